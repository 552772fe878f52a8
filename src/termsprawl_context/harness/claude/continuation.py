"""The stable session id: a transcript's origin, walked back through continuations.

A resumed conversation starts a new transcript whose origin record continues
(``logicalParentUuid``) a record of an older one; the walk crosses those restarts through
the project folder's other transcripts, searching their bytes before parsing any line.
"""

import os
from typing import Dict, List, NamedTuple, Optional, Set, Tuple  # noqa: F401 (also used in type comments, which ruff does not read)

from termsprawl_context import bytescan, errors
from termsprawl_context.harness.claude import facts as cc
from termsprawl_context.jsonl import open_regular
from termsprawl_context.transcript.timestamps import parse_timestamp
from termsprawl_context.model import Entry
from termsprawl_context.transcript.record import MAX_RECORD_BYTES, decode_line, entry_at, iter_raw_lines


# A real conversation resumes a handful of times: past these the chain is malformed.
MAX_RESTART_HOPS = 64
MAX_WALK_VISITS = 512


class Identity(NamedTuple):
    """The conversation a transcript belongs to: ``id`` (always usable), ``degraded`` (None at the
    true origin, else why the walk stopped short) and every transcript it could not read."""

    id: str
    degraded: Optional[errors.Degraded]
    unreadable_siblings: Tuple[str, ...]


class Origin(NamedTuple):
    """A transcript's origin record: its first parentless entry."""

    uuid: str
    logical_parent: str
    nanos: Optional[int]  # its timestamp; None when it does not parse


def origin_of(entry: Entry) -> Optional[Origin]:
    """The entry as an origin record, or None when it has a parent."""
    if entry.parent_uuid:
        return None
    parsed = parse_timestamp(entry.timestamp) if entry.timestamp else None
    return Origin(entry.uuid, entry.logical_parent_uuid, parsed[1] if parsed else None)


# Chunks of the byte search (bytescan's): no more than the line bound, so a line that
# reaches the bound cannot hide between two newlines of one chunk.
_CHUNK = bytescan.CHUNK_BYTES
_NO_NEEDLES = bytescan.Needles.of(())


class ByteSearchSiblings:
    """Siblings searched as bytes first: a file holding none of the uuids asked for (in any
    spelling the decoder reads) needs no parse; only the head up to the origin and the lines
    holding one are decoded. Every byte is read, so a line past the bound is found as the
    plain reader finds it."""

    def __init__(self) -> None:
        self._found = {}  # type: Dict[Tuple[str, Tuple[str, ...]], Optional[Origin]]
        self._clean = set()  # type: Set[str]
        self._buffer = bytescan.scan_buffer()  # one for every file the walk searches

    def holding(self, path: str, uuids: Tuple[str, ...]) -> Optional[Origin]:
        """The file's origin when one of its entries carries one of ``uuids`` (none empty), else None."""
        key = (path, uuids)
        if key not in self._found:
            needles = bytescan.Needles.for_values(uuids)  # plain None for a needle of odd characters: parse every line
            held = needles.plain is None or scan_bytes(path, needles.plain, self._clean, self._buffer)
            origin, found = _scan(path, needles, frozenset(uuids)) if held else (None, False)
            self._found[key] = origin if found else None
        return self._found[key]


def _scan(path: str, needles: bytescan.Needles, wanted: "frozenset" = frozenset()) -> Tuple[Optional[Origin], bool]:
    """The origin and whether the file's entries carry one of ``wanted``, decoding the head up to the
    origin and the lines that may hold a needle (all, without a plain spelling: then it reads
    to the end, checking every line's bound); else stops once both are known."""
    origin = None
    held = False
    for line in iter_raw_lines(path):
        raw = line.raw
        candidate = needles.in_line(raw)
        if origin is None or candidate:
            entry = entry_at(line, decode_line(raw))
            if entry is not None:
                if origin is None:
                    origin = origin_of(entry)
                held = held or (candidate and entry.uuid in wanted)
        if needles.plain is not None and origin is not None and (held or not needles.plain):
            break
    return origin, held


def scan_bytes(
    path: str, needles: Tuple[bytes, ...], clean: Optional[Set[str]] = None, buffer: Optional[bytearray] = None
) -> bool:
    """Whether the file's bytes hold a needle or an escape that could spell one, read to the end
    and raising RecordUnreadable as the line reader would. ``clean``: files read once with no
    long line and no escape, later searched for the needles only. ``buffer`` (``bytescan.scan_buffer``)
    is searched in place, so a walk of a thousand files allocates one chunk."""
    try:
        f = open_regular(path)
    except OSError as exc:
        raise errors.RecordUnreadable.opening(path, exc) from None
    overlap = max(max((len(n) for n in needles), default=1), bytescan.ESCAPE_LENGTH) - 1
    if buffer is None or overlap > bytescan.CARRY_BYTES:  # a needle longer than the shared carry: a buffer of its own
        buffer = bytearray(max(overlap, bytescan.CARRY_BYTES) + _CHUNK)
    found = escaped = False
    run = chunks = have = 0  # run: bytes since the last newline
    view = memoryview(buffer)
    with f:
        try:
            if clean is not None and path in clean:
                return bytescan.file_may_hold(f, bytescan.Needles(needles, needles), escapes=False, buffer=buffer)
            while True:
                got = f.readinto(view[have : have + _CHUNK])  # type: ignore[attr-defined]  # an open_regular file has it
                if not got:
                    break
                end = have + got
                first = buffer.find(b"\n", have, end)
                # The run before this chunk's first newline, then after its last (shorter than a
                # chunk, so within the bound: a chunk is smaller than it).
                if run + (got if first < 0 else first - have) >= MAX_RECORD_BYTES:
                    where = "(in its %d-%d MiB)" % (chunks * (_CHUNK >> 20), (chunks + 1) * (_CHUNK >> 20))
                    why = "a line is longer than %d bytes %s" % (MAX_RECORD_BYTES, where)
                    raise errors.RecordUnreadable.reading(path, errors.LineTooLong(why))
                run = run + got if first < 0 else end - buffer.rfind(b"\n", have, end) - 1
                escaped = escaped or bytescan.has_ascii_escape(buffer, 0, end)
                if needles and not found and (escaped or any(buffer.find(n, 0, end) >= 0 for n in needles)):
                    found = True
                have = bytescan.carry_over(buffer, end, overlap)
                chunks += 1  # chunks, not lines: only an error names a place, and it is rare
        except OSError as exc:
            raise errors.RecordUnreadable.reading(path, exc) from None
        finally:
            view.release()
    if clean is not None and not escaped:
        clean.add(path)
    return found


def resolve_stable_session_id(project_dir: str, path: str, siblings=None) -> Identity:
    """The identity of the conversation at ``path``: its origin's uuid, a continuation walked back
    through ``project_dir``'s other transcripts (name order, within MAX_RESTART_HOPS and
    MAX_WALK_VISITS) to the true origin; where the walk cannot cross one, that continuation's
    root, ``degraded`` saying why. Unreadable siblings are listed, never fatal; a file sharing
    this origin (itself, a fork) is never its predecessor. Raises what leaves nothing to key on:
    UsageError, RecordUnreadable (the transcript itself), NoOriginRecord, NoProjectDir (a
    continuation to cross, no ``project_dir``). ``siblings``: the reader (default
    ByteSearchSiblings; the tests' PlainSiblings is its oracle)."""
    if not path:
        raise errors.UsageError(errors.IDENTITY_CONTEXT + errors.NO_TRANSCRIPT_PATH)
    start = _scan(path, _NO_NEEDLES)[0]
    scan_bytes(path, ())  # the whole file read, as the reference does: a line past the bound anywhere refuses
    if start is None:
        raise errors.NoOriginRecord(path)
    if not start.logical_parent:
        return Identity(start.uuid, None, ())
    if not project_dir:
        raise errors.NoProjectDir(path, start.logical_parent)
    reader = siblings if siblings is not None else ByteSearchSiblings()
    unreadable = []  # type: List[str]
    try:
        with os.scandir(project_dir) as entries:
            suffix = cc.TRANSCRIPT_SUFFIX
            names = sorted(
                os.path.join(project_dir, e.name) for e in entries if e.name.endswith(suffix) and not e.is_dir()
            )
    except OSError:
        names = []
        if os.path.lexists(project_dir):
            unreadable.append(project_dir)
    visits = 0

    def walk(path: str, current: Origin, on_path: Set[str], hops: int) -> Tuple[str, Optional[errors.Degraded]]:
        """Depth first over the transcripts that may hold what ``current`` continues (another
        origin, not written after it, holding its logical parent's or its own uuid): one reaching
        a true origin, else the first's degraded answer, else ours."""
        nonlocal visits
        visits += 1
        if hops >= MAX_RESTART_HOPS or visits > MAX_WALK_VISITS:
            return current.uuid, errors.ChainRunaway(path, current.logical_parent)
        fallback = None  # type: Optional[Tuple[str, Optional[errors.Degraded]]]
        looped = False
        for sibling in names:
            try:
                origin = reader.holding(sibling, (current.logical_parent, current.uuid))
            except errors.RecordUnreadable:
                if sibling not in unreadable:  # listed once, however often the walk comes by
                    unreadable.append(sibling)
                continue
            if origin is None or origin.uuid == current.uuid:
                continue
            if origin.nanos is not None and current.nanos is not None and origin.nanos > current.nanos:
                continue
            if origin.uuid in on_path:
                looped = True
                continue
            if not origin.logical_parent:
                return origin.uuid, None
            answer = walk(sibling, origin, on_path | {origin.uuid}, hops + 1)
            if answer[1] is None:
                return answer
            fallback = fallback or answer
        if fallback is not None:
            return fallback
        if looped:
            return current.uuid, errors.ChainRunaway(path, current.logical_parent)
        return current.uuid, errors.ContinuationMissing(path, current.logical_parent)

    found, degraded = walk(path, start, {start.uuid}, 0)
    return Identity(found, degraded, tuple(unreadable))


def project_dir_of_record(path: str) -> str:
    """The folder of a record's conversation's transcripts: its own, or its session's for a sub-agent's."""
    from termsprawl_context.harness.claude.subagents import session_dir_of_subagent

    session_dir = session_dir_of_subagent(path, outermost=True)
    return os.path.dirname(session_dir) if session_dir else os.path.dirname(os.path.abspath(path))
