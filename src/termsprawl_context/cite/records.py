"""One record as the pools read it (``Record``), and the passes that load it: whole,
streamed, just the calls and local commands a search's candidates name, or what is read
at one line, reading no line past it (the cited entry with the calls and local command it
needs, and what ``result-at`` and ``envelope-at`` print)."""

from __future__ import annotations

from collections import deque, namedtuple

from termsprawl_context.bytescan import Needles, file_holds_ascii_escape, scan_buffer
from termsprawl_context.cite.pools import exclusion, has_answer_prefix, tool_bodies
from termsprawl_context.cite import matching
from termsprawl_context.cite.matching import NEEDLE_CHUNK, scan_file
from termsprawl_context import model as cc
from termsprawl_context.transcript.entry import person_texts
from termsprawl_context.transcript.slash_commands import is_local_command, output_parent
from termsprawl_context.errors import NO_ENTRY_AT_LINE, NotFound
from termsprawl_context.transcript.tool_blocks import result_texts, tool_calls, tool_results
from termsprawl_context.transcript.record import decode_line, entry_at, iter_raw_lines

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import Dict, Iterable, List, Optional, Set, Tuple

    from termsprawl_context.model import Entry


Call = namedtuple("Call", "call cwd")


class Record(object):
    """One transcript's entries with every call by id (with its entry's cwd) and the local
    commands' uuid hashes (a typed text under one is its output); ``calls`` given: only
    those and ``local_commands`` are known (a streamed search looks up just those)."""

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
            self._citable[tool_use_id] = exclusion(self.calls.get(tool_use_id)) == ""
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
    """Whether the record may spell a token with an escape (bytescan's rule; True when it
    cannot be read: the line reader says why). Without one its lines are tested for the
    plain bytes alone: what the harness writes (JSON.stringify escapes no printable ASCII)
    costs one pass, not an escape search a line (a line appended later is tested alike)."""
    return scan_file(path, lambda f: file_holds_ascii_escape(f, scan_buffer(NEEDLE_CHUNK)))


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
    """The calls with ids in ``ids`` (the last copy wins) and the uuid hashes of the local
    commands ``parents`` (a bit filter) may hold, in one pass parsing only lines that may
    hold either. A uuid counts as a local command when any of its lines is one (fail
    closed: a typed text is dropped, never added)."""
    found: Dict[str, Call] = {}
    local: Set[int] = set()
    if not ids and parents is None:
        return found, local
    fast = matching.PREFILTER  # off: every line parsed (the plain search)
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
    fast = matching.PREFILTER  # off: every line decoded (the plain search)
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
    for found in iter_raw_lines(path):
        if found.number == line:
            return entry_at(found, decode_line(found.raw))
    return None


def calls_answered_at(path: str, entry: Entry) -> Record:
    """A Record holding just the calls ``entry``'s results answer (each its last copy up to
    ``entry``): what ``tool_bodies`` needs, in memory that does not grow with the record."""
    wanted = {result.tool_use_id for result in tool_results(entry) if result.tool_use_id}
    needles = Needles.for_values(sorted(wanted)) if matching.PREFILTER else None  # off: every line decoded
    holders = stream_entries(path, needles, entry.line) if wanted else ()
    calls = {call.id: Call(call, holder.cwd) for holder in holders for call in tool_calls(holder) if call.id in wanted}
    return Record(path, [], calls)


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
