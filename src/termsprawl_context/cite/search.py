"""The search: one record's, streamed (each entry's candidates, what the entry alone says,
then whether each counts, with the calls and local commands they name), a session's
scope (which records each pool is searched in) and a project's sessions in the order
``--across`` tries them; the matches found, each once (``Hits``)."""

from __future__ import annotations

import heapq
import os
from array import array
from collections import deque, namedtuple
from itertools import chain

from termsprawl_context.bytescan import FIND_WINDOW, finds
from termsprawl_context.cite.matching import PROVIDER, body_matches, file_may_contain, quote_needles
from termsprawl_context.transcript.text import collapse_whitespace
from termsprawl_context.cite.pools import (
    SOURCE_TOOL_RESULT,
    SOURCE_USER,
    answers_entry,
    envelope_readings,
    genuine_body,
    has_answer_prefix,
)
from termsprawl_context.cite.records import (
    PARENT_LINE_BYTES,
    RECENT_LINES,
    UNREAD,
    Record,
    calls_and_commands,
    holds_escapes,
    parent_filter,
    find_recent,
)
from termsprawl_context.errors import AnswerUnmatched, NoSessionRoot, NotFound, Refusal, os_reason
from termsprawl_context import model as cc
from termsprawl_context.transcript import answers
from termsprawl_context.transcript.entry import person_texts
from termsprawl_context.transcript.slash_commands import is_local_command, output_parent
from termsprawl_context.transcript.tool_blocks import not_run_kind, result_texts, tool_results
from termsprawl_context.transcript.record import decode_line, entry_at, iter_raw_lines, same_file

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

    from termsprawl_context.model import Entry


class Match(namedtuple("Match", "path line")):
    """One entry a quote landed on: the record's path as given and its 1-based line."""

    __slots__ = ()

    def __str__(self) -> str:
        return "%s:%d" % (self.path, self.line)


_BITMAP_LINES = 1 << 24  # lines past this (a file of 16 million lines) are kept in a plain set


class Hits(object):
    """Matches in the order found, each once: per record its lines as 8-byte integers,
    and a set of the lines seen as one bit a line (1e6 matching entries cost about 8 MB,
    where Match tuples in a list and a set cost over 150 MB)."""

    def __init__(self) -> None:
        self._runs: List[Tuple[str, array]] = []
        self._seen: Dict[str, bytearray] = {}
        self._far: Set[Tuple[str, int]] = set()
        self._count = 0

    def _mark(self, path: str, line: int) -> bool:
        """Record (path, line) as seen; False when it already was."""
        if line >= _BITMAP_LINES or line < 0:
            key = (path, line)
            if key in self._far:
                return False
            self._far.add(key)
            return True
        bits = self._seen.setdefault(path, bytearray())
        byte, bit = divmod(line, 8)
        if byte >= len(bits):
            bits.extend(bytes(max(byte + 1 - len(bits), len(bits))))
        if bits[byte] >> bit & 1:
            return False
        bits[byte] |= 1 << bit
        return True

    def add(self, path: str, line: int) -> bool:
        """Add the match unless it is already here; whether it was added."""
        if not self._mark(path, line):
            return False
        if not self._runs or self._runs[-1][0] != path or self._runs[-1][1][-1] > line:
            self._runs.append((path, array("q")))  # each run ascends, so runs merge in order
        self._runs[-1][1].append(line)
        self._count += 1
        return True

    def extend(self, matches: Iterable[Match]) -> None:
        for match in matches:
            self.add(match.path, match.line)

    def __len__(self) -> int:
        return self._count

    def __iter__(self):
        for path, lines in self._runs:
            for line in lines:
                yield Match(path, line)

    def __getitem__(self, index: int) -> Match:
        if index < 0:
            index += self._count
        for path, lines in self._runs:
            if index < len(lines):
                return Match(path, lines[index])
            index -= len(lines)
        raise IndexError("no such match")

    def sorted_by(self, order: Dict[str, int]) -> "Hits":
        """The same matches ordered by ``order`` of their path (absent first), then line."""
        paths = dict.fromkeys(path for path, _ in self._runs)
        ordered = Hits()
        for path in sorted(paths, key=lambda p: order.get(p, -1)):
            runs = [lines for p, lines in self._runs if p == path]
            merged = runs[0] if len(runs) == 1 else heapq.merge(*runs)
            for line in merged:
                ordered.add(path, line)
        return ordered


# One entry's search, in two steps so a streamed search keeps only candidates: what the
# entry alone says (typed words, and the lines just before it when the local command
# whose output they may be is there; tool results whose bodies hold the quote), then, with the
# calls those results name and the local commands the typed words' parents may be,
# whether each counts. envelopes: [(result, body)]; tools: [id]; parent: the uuid of an
# entry not yet read whose being a local command unmakes ``typed`` ("" when decided).
_Candidate = namedtuple("_Candidate", "line typed envelopes tools parent")


def _candidate(
    entry: Entry, words: str, sources: Sequence[str], recent: Optional[deque] = None
) -> Optional[_Candidate]:
    typed = SOURCE_USER in sources and any(words in collapse_whitespace(t) for t in person_texts(entry))
    parent = output_parent(entry) if typed else ""
    found = find_recent(recent, parent) if parent and recent is not None else None
    if found is not None:  # decided here: is_local_command_output(entry, found)
        typed, parent = not is_local_command(found), ""
    envelopes, tools = [], []
    if entry.type == cc.TYPE_USER:
        user = SOURCE_USER in sources and answers_entry(entry)
        for result in tool_results(entry):
            for body in result_texts(result.content):
                if user and has_answer_prefix(body) and words in collapse_whitespace(body):
                    envelopes.append((result, body))
                if (
                    SOURCE_TOOL_RESULT in sources
                    and result.tool_use_id
                    and body_matches(body, words)
                    and genuine_body(body)
                    and not not_run_kind(result)
                ):
                    tools.append(result.tool_use_id)
    if typed or envelopes or tools:
        return _Candidate(entry.line, typed, envelopes, tools, parent)
    return None


def _decide(record: Record, candidate: _Candidate, words: str) -> bool:
    """Whether the candidate is a match; AnswerUnmatched when the quote sits in an
    envelope that cannot be read against its call's questions, or is an answer in only
    some of its readings."""
    hit = candidate.typed and not (candidate.parent and hash(candidate.parent) in record.local_commands)
    for result, body in candidate.envelopes:
        if result.tool_use_id in record.other_tool_ids:
            continue  # another tool printed it (a shell echoing an envelope): never the person's
        readings, why = envelope_readings(record, result, body)
        if readings is not None:
            held = [any(words in collapse_whitespace(answer) for answer in reading) for reading in readings]
            if all(held):
                hit = True
                continue
            if not any(held):
                continue
            why = answers.SPLIT
        raise AnswerUnmatched(record.path, candidate.line, why)
    return hit or any(record.citable(i) for i in candidate.tools)


def _candidates(path: str, words: str, sources: Sequence[str], run: "Optional[bytes]", may_hold) -> tuple:
    """The record's first pass: ``(typed lines decided already, typed lines waiting on
    their parent, those parents' hashes, candidates waiting on their calls)``."""
    typed_lines, waiting_lines, waiting_parents = array("q"), array("q"), array("q")
    pending: List[_Candidate] = []
    recent = deque(maxlen=RECENT_LINES)  # type: deque
    for line in iter_raw_lines(path):
        raw = line.raw
        entry, candidate = UNREAD, None
        if (
            run is None
            or (run in raw if len(raw) <= FIND_WINDOW else finds(raw, run))  # a long line: bytescan's windows
            or (may_hold is not None and may_hold(raw))
        ):
            entry = entry_at(line, decode_line(raw))
            candidate = _candidate(entry, words, sources, recent) if entry is not None else None
        if len(raw) <= PARENT_LINE_BYTES:
            recent.append([line, entry])
        if candidate is None:
            continue
        if candidate.typed and not candidate.envelopes:
            if candidate.parent:
                waiting_lines.append(candidate.line)
                waiting_parents.append(hash(candidate.parent))
            else:
                typed_lines.append(candidate.line)  # decided without a call or a parent
        else:
            pending.append(candidate)
    return typed_lines, waiting_lines, waiting_parents, pending


def search_into(path: str, quote: str, sources: Sequence[str], hits: "Hits") -> None:
    """Matches of ``quote`` into ``hits``: one pass for candidates (a typed match keeps its
    line, and its parent's hash, 16 bytes, when that is not in the lines just before
    it), then one more for just the calls and local commands the candidates name."""
    words = collapse_whitespace(quote)
    if not words:
        return
    sources = list(sources) or [SOURCE_USER]
    needles = quote_needles(quote)
    # The quote's run, tested as its plain bytes alone unless the record holds an escape
    # (then by bytescan's whole rule, ``may_hold``).
    run = needles.plain[0] if needles is not None else None
    escaped = holds_escapes(path) if needles is not None else None  # the calls' pass asks it too
    may_hold = needles.in_line if needles is not None and escaped else None
    typed_lines, waiting_lines, waiting_parents, pending = _candidates(path, words, sources, run, may_hold)
    ids: Set[str] = {r.tool_use_id for c in pending for r, _ in c.envelopes if r.tool_use_id}
    ids.update(t for c in pending for t in c.tools)
    asked = [hash(c.parent) for c in pending if c.parent]
    parents = parent_filter(len(waiting_parents) + len(asked), chain(waiting_parents, asked))
    calls, local = calls_and_commands(path, ids, parents, escaped)
    record = Record(path, [], calls, local)
    kept = array("q", (line for line, key in zip(waiting_lines, waiting_parents) if key not in local))
    del waiting_lines, waiting_parents
    decided = array("q", (c.line for c in pending if _decide(record, c, words)))
    for number in heapq.merge(typed_lines, kept, decided):  # each in file order
        hits.add(path, number)


def cite(path: str, quote: str, sources: Sequence[str] = ()) -> List[Match]:
    """One match per entry of the record holding ``quote`` in a requested pool (none: the
    user pool), in file order; an all-whitespace quote matches nothing."""
    hits = Hits()
    search_into(path, quote, sources, hits)
    return list(hits)


# Where each pool is searched: the root record for the user's words ("" when a
# sub-agent's root is not found), and the root's (or orphan's) tree for tool output.
SessionRecords = namedtuple("SessionRecords", "user_in tool_in")


def citation_records(path: str, subagent: bool = False) -> SessionRecords:
    user_in = PROVIDER.session_root(path)
    if subagent and same_file(user_in, path):
        user_in = ""
    top = user_in or path
    return SessionRecords(user_in, [top] + (PROVIDER.subagent_tree(top) or []))


def session_hits(path: str, quote: str, sources: Sequence[str] = (), subagent: bool = False) -> Hits:
    sources = list(sources) or [SOURCE_USER]
    records = citation_records(path, subagent)
    hits = Hits()
    if SOURCE_USER in sources:
        if not records.user_in:
            raise NoSessionRoot()
        search_into(records.user_in, quote, [SOURCE_USER], hits)
    if SOURCE_TOOL_RESULT in sources:
        own = Hits()
        search_into(path, quote, [SOURCE_TOOL_RESULT], own)
        if own:
            hits.extend(own)
        else:
            for other in records.tool_in:
                if not same_file(other, path):
                    search_into(other, quote, [SOURCE_TOOL_RESULT], hits)
    order = {p: i for i, p in reversed(list(enumerate(records.tool_in)))}
    return hits.sorted_by(order)


def cite_in_session(path: str, quote: str, sources: Sequence[str] = (), subagent: bool = False) -> List[Match]:
    """Matches of ``quote`` in the session: the user pool in the root record only
    (NoSessionRoot when a sub-agent's root is gone); the tool pool in the caller's own
    record, and only when that holds none in the root's whole tree. Tree order, then line."""
    return list(session_hits(path, quote, sources, subagent))


def session_may_contain(path: str, needle: Optional[bytes], buffer: Optional[bytearray] = None) -> bool:
    """Whether any record the session search from ``path`` reads may hold the needle."""
    if needle is None:
        return True
    try:
        files = [path] + PROVIDER.session_transcripts(path)
    except Refusal:
        return True
    unique = {os.path.normpath(name): name for name in reversed(files)}  # each file once, by its first name
    return any(file_may_contain(name, needle, buffer) for name in unique.values())


def session_candidates(current: str, project_dir: str) -> List[str]:
    """The current record, then the project's other ``*.jsonl`` files newest first
    (modification time; ties by path)."""
    candidates = [current] if current else []
    try:
        names = os.listdir(project_dir)
    except FileNotFoundError:  # "" too: no project directory, the current record alone
        return candidates
    except OSError as exc:
        raise NotFound("transcript: list sessions in %s: %s" % (project_dir, os_reason(exc))) from None
    others = []
    for name in names:
        if not name.endswith(PROVIDER.transcript_suffix):
            continue
        full = os.path.join(project_dir, name)
        if current and os.path.normpath(full) == os.path.normpath(current):
            continue
        try:
            st = os.stat(full)
        except OSError:
            continue
        if os.path.isdir(full):
            continue
        others.append((-st.st_mtime_ns, full))
    others.sort()
    return candidates + [full for _, full in others]
