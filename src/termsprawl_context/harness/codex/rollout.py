"""A Codex CLI rollout read whole into entries, forward or newest first, a fork's inherited
history (its parent's rollout up to the fork point) included."""

from __future__ import annotations

import os

from termsprawl_context.harness.codex import facts, records
from termsprawl_context.model import as_str


TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Iterator, List, Optional

    from termsprawl_context.model import Entry


def rollout_entries(path: str, roots: "Optional[List[str]]" = None, end: int = -1, depth: int = 0) -> Iterator[Entry]:
    """The entries of the rollout at ``path`` (up to byte ``end``), a fork's inherited history
    first; only the first line's ``session_meta`` names the thread. OSError when unopenable."""
    from termsprawl_context.jsonl import iter_lines, open_regular

    announces = records.announces_answers(path)
    with open_regular(path) as f:
        thread = records.thread_of(path, {})
        held = None  # an unannounced assistant text, until the next item says what it was
        announced = set()  # AgentMessage ids seen since the last item
        for line in iter_lines(f):
            if end >= 0 and line.offset + len(line.raw) >= end:
                break  # history_base ends at a line boundary: this line is the fork's, not ours
            envelope = records.rollout_line(line.raw)
            if envelope is None:
                continue
            record, kind, payload = envelope
            if kind == facts.KIND_EVENT:
                shown = records.announced_message(payload)
                if shown:
                    announced.add(shown)
                continue
            if kind == facts.KIND_SESSION_META:
                if line.number == 1:
                    thread = records.thread_of(path, payload)
                    yield from _inherited(path, payload, roots, depth)
                continue
            if kind == "turn_context":
                thread["cwd"] = as_str(payload.get(facts.META_CWD)) or thread["cwd"]
                continue
            if kind == "compacted":
                bridge = as_str(payload.get("message"))
                if held is not None:
                    yield records.classed(held, announces, bridge)
                    held = None
                announced = set()
                if bridge:
                    yield records.compaction_entry(bridge, thread, record, line.number, line.offset)
                continue
            if kind != "response_item":
                continue
            found = records.item_entries(payload, thread, record, line.number, line.offset)
            if not found:
                continue
            if held is not None:
                yield records.classed(held, announces, None)  # no `compacted` followed it
                held = None
            for entry in found:
                if records.is_text_answer(entry) and not (entry.uuid and entry.uuid in announced):
                    held = entry  # an unannounced text: the next item or `compacted` classes it
                else:
                    yield entry  # (an answer the person was shown)
            announced = set()
    if held is not None:
        yield records.classed(held, announces, None)


def rollout_entries_reverse(
    path: str, roots: "Optional[List[str]]" = None, end: int = -1, depth: int = 0
) -> Iterator[Entry]:
    """``rollout_entries`` newest first from the end, with ``line`` 0 and the session's ``cwd``
    from its first line; a fork's parent is read back from the fork point once its own lines end."""
    from termsprawl_context.jsonl import iter_lines_reverse, open_regular

    meta = records.meta_of(path)
    thread = records.thread_of(path, meta)
    announces = records.announces_answers(path)
    pending = None  # the latest assistant text, until the lines before it say whether it was announced
    pending_bridge = None  # the bridge of a `compacted` that came right after it
    bridge = None  # the bridge of a `compacted` seen since the last item
    with open_regular(path) as f:
        for offset, raw in iter_lines_reverse(f, end if end >= 0 else None):
            if end >= 0 and offset + len(raw) >= end:
                continue  # a line the fork point cuts: the forward reader stops before it
            envelope = records.rollout_line(raw)
            if envelope is None:
                continue
            record, kind, payload = envelope
            if kind == facts.KIND_EVENT:
                shown = records.announced_message(payload)
                if pending is not None and shown and shown == pending.uuid:
                    yield pending
                    pending = None
                continue
            if kind == "compacted":
                if pending is not None:
                    yield records.classed(pending, announces, pending_bridge)
                    pending = None
                text = as_str(payload.get("message"))
                if text:
                    yield records.compaction_entry(text, thread, record, 0, offset)
                bridge = text
                continue
            if kind != "response_item":
                continue
            found = records.item_entries(payload, thread, record, 0, offset)
            if not found:
                continue
            if pending is not None:
                yield records.classed(pending, announces, pending_bridge)
                pending = None
            for entry in reversed(found):
                if records.is_text_answer(entry):
                    pending, pending_bridge = entry, bridge
                else:
                    yield entry
            bridge = None
    if pending is not None:
        yield records.classed(pending, announces, pending_bridge)
    yield from _inherited(path, meta, roots, depth, reverse=True)


def _parent_of(path: str, payload: dict, roots) -> tuple:
    """``(parent rollout, fork point)`` a ``session_meta``'s ``history_base`` names, the point
    clamped to the parent's size (both directions read the same bytes); ``("", 0)`` when none."""
    base = payload.get("history_base")  # {thread_id, end_ordinal_exclusive, end_byte_offset}
    if not isinstance(base, dict):
        return "", 0
    end = base.get("end_byte_offset")
    parent_id = as_str(base.get("thread_id")) or as_str(payload.get("forked_from_id"))
    if not isinstance(end, int) or isinstance(end, bool) or end <= 0 or not parent_id:
        return "", 0
    parent = facts.find_rollout(parent_id, path, roots or [])
    try:
        return (parent, min(end, os.path.getsize(parent))) if parent else ("", 0)
    except OSError:
        return "", 0


def _chain_loops(path: str, payload: dict, roots) -> bool:
    """Whether the fork chain from ``path`` loops: then no parent history is inherited."""
    seen = {os.path.realpath(path)}
    current, meta = path, payload
    for _ in range(facts.MAX_FORK_DEPTH):
        parent, _ = _parent_of(current, meta, roots)
        if not parent:
            return False
        real = os.path.realpath(parent)
        if real in seen:
            return True
        seen.add(real)
        current, meta = parent, records.meta_of(parent)
    return False


def _inherited(path: str, payload: dict, roots, depth: int, reverse: bool = False) -> Iterator[Entry]:
    """A fork's parent history up to ``end_byte_offset``; nothing past a loop or ``MAX_FORK_DEPTH``."""
    if depth >= facts.MAX_FORK_DEPTH:
        return
    parent, end = _parent_of(path, payload, roots)
    if not parent or end <= 0 or (depth == 0 and _chain_loops(path, payload, roots)):
        return
    try:
        read = rollout_entries_reverse if reverse else rollout_entries
        for entry in read(parent, roots, end, depth + 1):
            # Not a line of this file: a <path>:<line> must never point into the wrong one.
            yield entry._replace(line=0, offset=-1)
    except OSError:
        return  # the parent is gone: the fork's own lines still read
