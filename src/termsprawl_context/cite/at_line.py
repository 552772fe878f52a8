"""What is read at one line, reading no line past it: the cited entry with the calls and
local command it needs (``record_at``), and what ``result-at`` and ``envelope-at`` print."""

from __future__ import annotations

from collections import deque

from termsprawl_context.bytescan import Needles
from termsprawl_context.cite import matching
from termsprawl_context.cite.envelopes import has_answer_prefix
from termsprawl_context.cite.pools import tool_bodies
from termsprawl_context.cite.records import (
    PARENT_LINE_BYTES,
    RECENT_LINES,
    UNREAD,
    Record,
    calls_and_commands,
    parent_filter,
    recent_finder,
)
from termsprawl_context.errors import NO_ENTRY_AT_LINE, NotFound
from termsprawl_context import model as cc
from termsprawl_context.transcript.entry import person_texts
from termsprawl_context.transcript.slash_commands import is_local_command, output_parent
from termsprawl_context.transcript.tool_blocks import result_texts, tool_calls, tool_results
from termsprawl_context.transcript.record import decode_line, entry_at, iter_raw_lines

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import Dict, List, Optional, Tuple

    from termsprawl_context.model import Entry


def record_at(path: str, line: int) -> Record:
    """The entry at ``line`` with the calls its results answer and whether its parent is a
    local command (in the lines just before it, else looked up by uuid)."""
    recent = deque(maxlen=RECENT_LINES)  # type: deque
    for raw in iter_raw_lines(path):
        if raw.number == line:
            entry = entry_at(raw, decode_line(raw.raw))
            if entry is None:
                break
            ids = {r.tool_use_id for r in tool_results(entry)}
            parent = output_parent(entry) if person_texts(entry) else ""
            found = recent_finder(recent)(parent) if parent else None
            parents = parent_filter(1, [hash(parent)]) if parent and found is None else None
            calls, local = calls_and_commands(path, ids, parents)
            if found is not None:
                local = {hash(parent)} if is_local_command(found) else set()
            return Record(path, [entry], calls, local)
        if len(raw.raw) <= PARENT_LINE_BYTES:
            recent.append([raw, UNREAD])
    return Record(path, [], {})


def entry_at_line(path: str, line: int) -> Optional[Entry]:
    """The entry at physical ``line`` (None: no entry there), decoding no line before it."""
    for found in iter_raw_lines(path):
        if found.number == line:
            return entry_at(found, decode_line(found.raw))
    return None


def calls_answered_at(path: str, entry: Entry) -> Record:
    """A Record holding just the calls ``entry``'s results answer (each its last copy up to
    ``entry``): what ``tool_bodies`` needs, in memory that does not grow with the record."""
    wanted = {result.tool_use_id for result in tool_results(entry) if result.tool_use_id}
    needles = Needles.for_values(sorted(wanted))
    fast = matching.PREFILTER  # off: every line decoded (the plain search)
    holders: Dict[str, Entry] = {}
    if wanted:
        for found in iter_raw_lines(path):
            if found.number > entry.line:
                break
            raw = found.raw
            if fast and not needles.in_line(raw):
                continue
            candidate = entry_at(found, decode_line(raw))
            if candidate is None:
                continue
            for call in tool_calls(candidate):
                if call.id in wanted:
                    holders[call.id] = candidate
    unique = {id(e): e for e in holders.values()}
    return Record(path, sorted(unique.values(), key=lambda e: e.line))


def tool_result_at(path: str, line: int) -> Tuple[str, bool]:
    """The genuine tool output on the entry at ``line`` (joined by newlines) and whether
    there is any (the call a result answers comes before it)."""
    entry = entry_at_line(path, line)
    if entry is None or entry.type != cc.TYPE_USER:
        return "", False
    record = calls_answered_at(path, entry)
    bodies = [body for _, body in tool_bodies(record, entry)]
    return "\n".join(bodies), bool(bodies)


def envelope_at(path: str, line: int) -> List[str]:
    """The AskUserQuestion answer envelopes on the entry at ``line``, whole and in order;
    NotFound when the line is no entry."""
    entry = entry_at_line(path, line)
    if entry is None:
        raise NotFound("transcript: envelope at %s:%d: %s" % (path, line, NO_ENTRY_AT_LINE))
    return [body for result in tool_results(entry) for body in result_texts(result.content) if has_answer_prefix(body)]
