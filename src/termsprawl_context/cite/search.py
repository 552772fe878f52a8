"""The search: one record as the pools read it (``Record``) and the passes that load it
(whole, streamed, just the calls and local commands the candidates name, or up to one line
and none past it: the cited entry, and what ``result-at`` and ``envelope-at`` print); one
record's streamed search; a session's scope (which records each pool is searched in); a
project's sessions in the order ``--across`` tries them; the matches, each once (``Hits``)."""

from __future__ import annotations

import heapq
import os
from array import array
from collections import deque, namedtuple
from itertools import chain

from termsprawl_context import model as cc
from termsprawl_context.bytescan import FIND_WINDOW, Needles, file_holds_ascii_escape, finds, scan_buffer
from termsprawl_context.cite import pools
from termsprawl_context.errors import NO_ENTRY_AT_LINE, AnswerUnmatched, NoSessionRoot, NotFound, Refusal, os_reason
from termsprawl_context.transcript import answers
from termsprawl_context.transcript.entry import person_texts
from termsprawl_context.transcript.record import decode_line, entry_at, iter_raw_lines, same_file
from termsprawl_context.transcript.slash_commands import is_local_command, output_parent
from termsprawl_context.transcript.text import collapse_whitespace
from termsprawl_context.transcript.tool_blocks import not_run_kind, result_texts, tool_calls, tool_results

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

    from termsprawl_context.model import Entry


Call = namedtuple("Call", "call cwd")


class Record(object):
    """One transcript's entries, every call by id (with its entry's cwd) and the local commands' uuid
    hashes (a typed text under one is its output); given ``calls``, only those and ``local_commands``."""

    def __init__(
        self,
        path: str,
        entries: List[Entry],
        calls: Optional[Dict[str, Call]] = None,
        local_commands: Optional[Set[int]] = None,
    ) -> None:
        self.path = path
        self.entries = entries
        if calls is None:
            calls = {call.id: Call(call, entry.cwd) for entry in entries for call in tool_calls(entry) if call.id}
            if local_commands is None:
                local_commands = {hash(e.uuid) for e in entries if is_local_command(e)}
        self.calls: Dict[str, Call] = calls
        self.local_commands: Set[int] = local_commands or set()
        self.other_tool_ids: Set[str] = {i for i, c in calls.items() if c.call.name != cc.TOOL_ASK_USER_QUESTION}
        self._citable: Dict[str, bool] = {}

    def entry_at(self, line: int) -> Optional[Entry]:
        return next((entry for entry in self.entries if entry.line == line), None)

    def person_texts(self, entry: Entry) -> List[str]:
        """``person_texts(entry)``, none when its parent is a local command (its output)."""
        texts = person_texts(entry)
        parent = output_parent(entry) if texts else ""
        return [] if parent and hash(parent) in self.local_commands else texts

    def citable(self, tool_use_id: str) -> bool:
        """Whether the result answering ``tool_use_id`` is tool output (``exclusion``)."""
        if tool_use_id not in self._citable:
            self._citable[tool_use_id] = pools.exclusion(self.calls.get(tool_use_id)) == ""
        return self._citable[tool_use_id]


# The tokens a line holding a tool call holds (``tool_calls``: a block of this type), and
# those one of which a local command's caveat or envelope line holds (the markers of
# ``transcript.slash_commands.is_local_command`` without the ``< >`` that Go's encoder escapes),
# with a word each marker holds as a first test that rules out most lines. Speed only:
# bytescan's escape rule makes a line spelling them with escapes a candidate too.
TOOL_USE_TOKEN = b'"tool_use"'
TOOL_USE_LINES = Needles.of([TOOL_USE_TOKEN])
LOCAL_COMMAND_MARKERS = tuple(
    marker.strip("<>").encode()
    for marker in (cc.LOCAL_COMMAND_OPEN, cc.LOCAL_COMMAND_CAVEAT_OPEN, cc.LOCAL_COMMAND_CAVEAT)
)
COMMAND_WORD = b"command"
_LOCAL_COMMAND_LINES = Needles.of(LOCAL_COMMAND_MARKERS)
_COMMAND_LINES = Needles.of([COMMAND_WORD])
# The last lines before a typed candidate are kept (unparsed) to find its parent there and
# decide at once whether it is a local command: in the corpus, 99 of 164 typed entries'
# parents are the line before, and 55 of the other 65 two or three lines up (past
# file-history-snapshot, queue-operation and progress records). A parent further up, or on
# a line over PARENT_LINE_BYTES (an envelope is a few hundred), is looked up by uuid later.
RECENT_LINES = 4
PARENT_LINE_BYTES = 64 * 1024
# Bits of the filter of the uuids the deferred candidates' parents hash to: 16 a parent,
# up to 2 MiB of them.
_PARENT_FILTER_BITS = 1 << 24


def holds_escapes(path: str) -> bool:
    """Whether the record may spell a token with an escape (bytescan's rule; True when unreadable).
    Without one, lines are tested for the plain bytes alone, a line appended later too: JSON.stringify
    escapes no printable ASCII, so the harness's records cost one pass, not an escape search a line."""
    return pools.scan_file(path, lambda f: file_holds_ascii_escape(f, scan_buffer(pools.NEEDLE_CHUNK)))


def may_be_local_command(raw: bytes, escaped: bool = True) -> bool:
    """Whether the line ``raw`` may be a local command's caveat or envelope once parsed
    (``escaped`` False: its record holds no escape, ``holds_escapes``)."""
    if escaped:
        return _COMMAND_LINES.in_line(raw) and _LOCAL_COMMAND_LINES.in_line(raw)
    return COMMAND_WORD in raw and _LOCAL_COMMAND_LINES.plainly_in(raw)


def stream_entries(path: str, needles: Optional[Needles] = None, until: int = 0) -> Iterable[Entry]:
    """The record's entries, streamed: only the lines that may hold ``needles``' tokens
    (up to line ``until`` when given, reading none past it)."""
    for line in iter_raw_lines(path):
        if until and line.number > until:
            break
        if needles is None or needles.in_line(line.raw):
            entry = entry_at(line, decode_line(line.raw))
            if entry is not None:
                yield entry


def calls_and_commands(
    path: str, ids: Set[str], parents: Optional[bytearray], escaped: Optional[bool] = None
) -> Tuple[Dict[str, Call], Set[int]]:
    """The calls with ids in ``ids`` (the last copy wins) and the uuid hashes of the local commands
    ``parents`` (a bit filter) may hold, in one pass parsing only lines that may hold either; a uuid
    is a local command when any of its lines is one (fail closed: a typed text is dropped, never added)."""
    found: Dict[str, Call] = {}
    local: Set[int] = set()
    if not ids and parents is None:
        return found, local
    fast = pools.PREFILTER  # off: every line parsed (the plain search)
    escaped = (holds_escapes(path) if escaped is None else escaped) if fast else True
    for line in iter_raw_lines(path):
        raw = line.raw
        calls = bool(ids) and (not fast or TOOL_USE_TOKEN in raw or escaped and TOOL_USE_LINES.in_line(raw))
        commands = parents is not None and (not fast or may_be_local_command(raw, escaped))
        if not (calls or commands):
            continue
        entry = entry_at(line, decode_line(raw))
        if entry is None:
            continue
        for call in tool_calls(entry) if calls else ():
            if call.id in ids:
                found[call.id] = Call(call, entry.cwd)
        if commands and _filter_has(parents, entry.uuid) and is_local_command(entry):
            local.add(hash(entry.uuid))
    return found, local


def parent_filter(count: int, keys: Iterable[int]) -> Optional[bytearray]:
    """The bit filter of ``count`` parents' uuid hashes ``keys``, None for none."""
    if not count:
        return None
    size = 128
    while size * 8 < 16 * count and size * 8 < _PARENT_FILTER_BITS:
        size *= 2
    bits = bytearray(size)
    for key in keys:
        key &= size * 8 - 1
        bits[key >> 3] |= 1 << (key & 7)
    return bits


def _filter_has(bits: "Optional[bytearray]", uuid: str) -> bool:
    if bits is None:
        return False
    key = hash(uuid) & (len(bits) * 8 - 1)
    return bool(bits[key >> 3] >> (key & 7) & 1)


UNREAD = object()  # a recent line kept undecoded


def find_recent(recent: deque, uuid: str) -> Optional[Entry]:
    """The entry ``uuid`` names among ``recent`` ([line, entry or ``UNREAD``], oldest first),
    newest first, decoding a line only when it may hold the uuid."""
    key = Needles.for_values([uuid])
    fast = pools.PREFILTER  # off: every line decoded (the plain search)
    for item in reversed(recent):
        line, entry = item
        if entry is UNREAD:
            if fast and not key.in_line(line.raw):
                continue
            entry = item[1] = entry_at(line, decode_line(line.raw))
        if entry is not None and entry.uuid == uuid:
            return entry
    return None


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
            found = find_recent(recent, parent) if parent else None
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
    found = next((raw for raw in iter_raw_lines(path) if raw.number == line), None)
    return entry_at(found, decode_line(found.raw)) if found is not None else None


def tool_result_at(path: str, line: int) -> Tuple[str, bool]:
    """The genuine tool output on the entry at ``line`` (joined by newlines) and whether
    there is any (the call a result answers comes before it)."""
    entry = entry_at_line(path, line)
    if entry is None or entry.type != cc.TYPE_USER:
        return "", False
    # Just the calls its results answer, each its last copy up to the entry: what
    # ``tool_bodies`` needs, in memory that does not grow with the record.
    wanted = {result.tool_use_id for result in tool_results(entry) if result.tool_use_id}
    needles = Needles.for_values(sorted(wanted)) if pools.PREFILTER else None  # off: every line decoded
    holders = stream_entries(path, needles, entry.line) if wanted else ()
    calls = {call.id: Call(call, holder.cwd) for holder in holders for call in tool_calls(holder) if call.id in wanted}
    record = Record(path, [], calls)
    bodies = [body for _, body in pools.tool_bodies(record, entry)]
    return "\n".join(bodies), bool(bodies)


def envelope_at(path: str, line: int) -> List[str]:
    """The AskUserQuestion answer envelopes on the entry at ``line``, whole and in order;
    NotFound when the line is no entry."""
    entry = entry_at_line(path, line)
    if entry is None:
        raise NotFound("transcript: envelope at %s:%d: %s" % (path, line, NO_ENTRY_AT_LINE))
    return [
        body for result in tool_results(entry) for body in result_texts(result.content) if pools.has_answer_prefix(body)
    ]


class Match(namedtuple("Match", "path line")):
    """One entry a quote landed on: the record's path as given and its 1-based line."""

    __slots__ = ()

    def __str__(self) -> str:
        return "%s:%d" % (self.path, self.line)


_BITMAP_LINES = 1 << 24  # lines past this (a file of 16 million lines) are kept in a plain set


class Hits(object):
    """Matches in the order found, each once: per record its lines as 8-byte integers, and the lines seen
    as one bit each (1e6 matches cost about 8 MB; Match tuples in a list and a set, over 150 MB)."""

    def __init__(self) -> None:
        self._runs: List[Tuple[str, array]] = []
        self._seen: Dict[str, bytearray] = {}
        self._far: Set[Tuple[str, int]] = set()
        self._count = 0

    def add(self, path: str, line: int) -> bool:
        """Add the match unless it is already here; whether it was added."""
        if line >= _BITMAP_LINES or line < 0:
            if (path, line) in self._far:
                return False
            self._far.add((path, line))
        else:
            bits = self._seen.setdefault(path, bytearray())
            byte, bit = divmod(line, 8)
            if byte >= len(bits):
                bits.extend(bytes(max(byte + 1 - len(bits), len(bits))))
            if bits[byte] >> bit & 1:
                return False
            bits[byte] |= 1 << bit
        if not self._runs or self._runs[-1][0] != path or self._runs[-1][1][-1] > line:
            self._runs.append((path, array("q")))  # each run ascends, so runs merge in order
        self._runs[-1][1].append(line)
        self._count += 1
        return True

    def __len__(self) -> int:
        return self._count

    def __iter__(self):
        for path, lines in self._runs:
            for line in lines:
                yield Match(path, line)

    def sorted_by(self, order: Dict[str, int]) -> "Hits":
        """The same matches ordered by ``order`` of their path (absent first), then line."""
        paths = dict.fromkeys(path for path, _ in self._runs)
        ordered = Hits()
        for path in sorted(paths, key=lambda p: order.get(p, -1)):
            runs = [lines for p, lines in self._runs if p == path]
            for line in heapq.merge(*runs):
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
    typed = pools.SOURCE_USER in sources and any(words in collapse_whitespace(t) for t in person_texts(entry))
    parent = output_parent(entry) if typed else ""
    found = find_recent(recent, parent) if parent and recent is not None else None
    if found is not None:  # decided here: is_local_command_output(entry, found)
        typed, parent = not is_local_command(found), ""
    envelopes, tools = [], []
    if entry.type == cc.TYPE_USER:
        user = pools.SOURCE_USER in sources and pools.answers_entry(entry)
        for result in tool_results(entry):
            for body in result_texts(result.content):
                if user and pools.has_answer_prefix(body) and words in collapse_whitespace(body):
                    envelopes.append((result, body))
                if (
                    pools.SOURCE_TOOL_RESULT in sources
                    and result.tool_use_id
                    and pools.body_matches(body, words)
                    and pools.genuine_body(body)
                    and not not_run_kind(result)
                ):
                    tools.append(result.tool_use_id)
    if typed or envelopes or tools:
        return _Candidate(entry.line, typed, envelopes, tools, parent)
    return None


def _decide(record: Record, candidate: _Candidate, words: str) -> bool:
    """Whether the candidate is a match; AnswerUnmatched when the quote sits in an envelope not
    readable against its call's questions, or is an answer in only some of its readings."""
    hit = candidate.typed and not (candidate.parent and hash(candidate.parent) in record.local_commands)
    for result, body in candidate.envelopes:
        if result.tool_use_id in record.other_tool_ids:
            continue  # another tool printed it (a shell echoing an envelope): never the person's
        readings, why = pools.envelope_readings(record, result, body)
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


def search_into(path: str, quote: str, sources: Sequence[str], hits: "Hits") -> None:
    """Matches of ``quote`` into ``hits``: a pass for candidates (a typed match keeps its line, and its
    parent's hash, 16 bytes, if not in the lines just before it), one for the calls and commands they name."""
    words = collapse_whitespace(quote)
    if not words:
        return
    sources = list(sources) or [pools.SOURCE_USER]
    needles = pools.quote_needles(quote)
    # The quote's run, tested as its plain bytes alone unless the record holds an escape
    # (then by bytescan's whole rule, ``may_hold``).
    run = needles.plain[0] if needles is not None else None
    escaped = holds_escapes(path) if needles is not None else None  # the calls' pass asks it too
    may_hold = needles.in_line if needles is not None and escaped else None
    # The first pass: typed lines decided already, typed lines waiting on their parent (and
    # those parents' hashes), candidates waiting on their calls.
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
    user_in = pools.PROVIDER.session_root(path)
    if subagent and same_file(user_in, path):
        user_in = ""
    top = user_in or path
    return SessionRecords(user_in, [top] + (pools.PROVIDER.subagent_tree(top) or []))


def session_hits(path: str, quote: str, sources: Sequence[str] = (), subagent: bool = False) -> Hits:
    sources = list(sources) or [pools.SOURCE_USER]
    records = citation_records(path, subagent)
    hits = Hits()
    if pools.SOURCE_USER in sources:
        if not records.user_in:
            raise NoSessionRoot()
        search_into(records.user_in, quote, [pools.SOURCE_USER], hits)
    if pools.SOURCE_TOOL_RESULT in sources:
        own = Hits()
        search_into(path, quote, [pools.SOURCE_TOOL_RESULT], own)
        if own:
            for match in own:
                hits.add(*match)
        else:
            for other in records.tool_in:
                if not same_file(other, path):
                    search_into(other, quote, [pools.SOURCE_TOOL_RESULT], hits)
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
        files = [path] + pools.PROVIDER.session_transcripts(path)
    except Refusal:
        return True
    unique = {os.path.normpath(name): name for name in reversed(files)}  # each file once, by its first name
    return any(pools.file_may_contain(name, needle, buffer) for name in unique.values())


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
        if not name.endswith(pools.PROVIDER.transcript_suffix):
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
