"""Find the canonical transcript of a session or message uuid in the harness's store.

Canonical = the latest descendant: among ``<projects>/*/*.jsonl`` (exactly one level)
the files that hold the uuid (their name stem is the uuid, or some line's ``uuid`` is
it), the one whose greatest ``timestamp`` (plain string order) is greatest; ties go to
the smaller path. A fork copies its parent's prefix, uuids and all, so the file with
the latest content is the most complete copy.

Speed without a second rule, in two phases:
1. Which files hold the uuid. A file named after it holds it by name: its content is
   not searched. Any other file can hold it only where its bytes spell it: the quoted
   literal, or an escape of one of its characters (``bytescan.ValueSpellings``), so
   only the lines holding such a spelling are parsed, and the search stops at the
   first line that confirms the uuid.
2. Timestamps, only when two or more files hold it: then each holder is parsed whole.
Every file is also probed for schema drift (its first parsed lines), as the seed does.
Phase 1 is shared between processes when the store is big enough (``parallel``).
A line over ``chunks.MAX_LINE_BYTES`` is skipped as unreadable, never held.
``byte_filter=False`` is the seed's algorithm (parse every line of every file), kept
for measurement and as the tests' second oracle.
"""

import os
from typing import BinaryIO, Iterator, List, Optional, TextIO, Tuple

from termsprawl_context import jsonl
from termsprawl_context.bytescan import ValueSpellings as UuidSpellings  # where a line may spell the uuid
from termsprawl_context.errors import SessionNotFound
from termsprawl_context._output import warn
from termsprawl_context.store import parallel
from termsprawl_context.store.chunks import chunk_lines, iter_chunks
from termsprawl_context.transcript.parse import DriftProbe, warn_schema_drift


TRANSCRIPT_SUFFIX = ".jsonl"

# Below this many bytes in the store, phase 1 runs in one process. Measured on the
# 2-core VM (benchmarks/bench_store.py, "sharing costs" row): a helper costs 0.6 ms of
# wall time to fork and collect, while phase 1 costs 0.5-0.8 ms per MB; two processes
# break even near 2.4 MB. Three times that keeps the loss small when the second core
# turns out to be busy.
PARALLEL_MIN_BYTES = 8 << 20

# Phase 1's verdict on one file.
NOT_HELD, HELD, UNREADABLE = 0, 1, 2


def _warn(err: Optional[TextIO], message: str) -> None:
    warn(message, err)


def iter_store_files(projects_dir: str, err: Optional[TextIO] = None) -> Iterator[str]:
    """Every ``<projects_dir>/<dir>/<name>.jsonl``, in name order.

    A missing store yields nothing; an unlistable store is one warning; an unlistable
    project directory is skipped in silence (old projects come and go).
    """
    if not projects_dir or not os.path.isdir(projects_dir):
        return
    try:
        subdirs = sorted(os.listdir(projects_dir))
    except OSError as exc:
        _warn(err, "cannot list %s: %s" % (projects_dir, exc))
        return
    for name in subdirs:
        sub = os.path.join(projects_dir, name)
        if not os.path.isdir(sub):
            continue
        try:
            entries = sorted(os.listdir(sub))
        except OSError:
            continue
        for entry in entries:
            if entry.endswith(TRANSCRIPT_SUFFIX):
                yield os.path.join(sub, entry)


def _is_target(obj: Optional[dict], target: str) -> bool:
    if obj is None:
        return False
    uuid = obj.get("uuid")
    return uuid is not None and uuid == target


def _line_at(buf: bytearray, begin: int, end: int, at: int) -> Tuple[int, int]:
    """The bounds in ``buf[begin:end]`` of the line holding position ``at``."""
    start = buf.rfind(b"\n", begin, at) + 1
    if start <= begin:
        start = begin
    stop = buf.find(b"\n", at, end)
    return start, (end if stop < 0 else stop)


def _find_holder(f: BinaryIO, target: str, spellings: UuidSpellings, by_name: bool, drift: DriftProbe) -> bool:
    """Phase 1 on one open file: whether it holds ``target``, feeding ``drift``."""
    held = by_name
    parse = jsonl.parse_object
    for _at, buf, begin, end in iter_chunks(f):
        line = begin
        while not drift.settled and line < end:  # the drift probe: the first lines, in order
            start, line = _line_at(buf, line, end, line)
            obj = parse(bytes(buf[start:line]))
            line += 1
            if obj is not None:
                drift.see(obj)
                held = held or _is_target(obj, target)
        if held:
            if drift.settled:
                return True
            continue
        if not spellings.usable:
            for start, stop in _lines(buf, begin, end):
                if _is_target(parse(bytes(buf[start:stop])), target):
                    held = True
                    break
            continue
        line_end = -1
        for at in spellings.hits(buf, begin, end):
            if at < line_end:
                continue  # in the line just parsed
            start, line_end = _line_at(buf, begin, end, at)
            if _is_target(parse(bytes(buf[start:line_end])), target):
                held = True
                break
        if held and drift.settled:
            return True
    return held


def _lines(buf: bytearray, begin: int, end: int) -> Iterator[Tuple[int, int]]:
    """The bounds of each line in ``buf[begin:end]``."""
    pos = begin
    while pos < end:
        stop = buf.find(b"\n", pos, end)
        if stop < 0:
            stop = end
        yield pos, stop
        pos = stop + 1


def _phase_one(path: str, target: str, spellings: UuidSpellings) -> tuple:
    """(verdict, drift lines probed, known field seen, warning or None) for one file:
    plain data, so a helper process can send it back."""
    stem = os.path.splitext(os.path.basename(path))[0]
    drift = DriftProbe()
    try:
        with jsonl.open_regular(path) as f:
            held = _find_holder(f, target, spellings, stem == target, drift)
    except FileNotFoundError:
        return UNREADABLE, 0, False, None
    except OSError as exc:
        return UNREADABLE, 0, False, "cannot read %s: %s" % (path, exc)
    return (HELD if held else NOT_HELD), drift.probed, drift.known_seen, None


def _full_scan(f: BinaryIO, target: str, drift: DriftProbe) -> Tuple[bool, str]:
    """The seed's per-file scan over every line: (holds target as a line's uuid,
    greatest string timestamp or ""), feeding ``drift`` as it goes."""
    contains = False
    max_ts = ""
    parse = jsonl.parse_object
    for _at, raw in chunk_lines(iter_chunks(f)):
        obj = parse(raw)
        if obj is None:
            continue
        drift.see(obj)
        if not contains and _is_target(obj, target):
            contains = True
        ts = obj.get("timestamp")
        if isinstance(ts, str) and ts > max_ts:
            max_ts = ts
    return contains, max_ts


def _max_timestamp(path: str) -> tuple:
    """Phase 2 on one holder: (readable, greatest string timestamp, warning or None)."""
    try:
        with jsonl.open_regular(path) as f:
            return True, _full_scan(f, "", DriftProbe())[1], None
    except FileNotFoundError:
        return False, "", None
    except OSError as exc:
        return False, "", "cannot read %s: %s" % (path, exc)


def scan_file(
    path: str,
    target: str,
    spellings: Optional[UuidSpellings] = None,
    err: Optional[TextIO] = None,
) -> Tuple[bool, str]:
    """(file holds ``target``, its greatest timestamp) for one store file: the seed's
    whole-file scan, or phase 1 then phase 2 when ``spellings`` are given.

    A file that vanished is silently not a holder; any other read failure (including a
    FIFO or a directory named ``*.jsonl``) is one warning and not a holder.
    """
    if spellings is not None:
        verdict, probed, known, message = _phase_one(path, target, spellings)
        if message:
            _warn(err, message)
        if verdict == UNREADABLE:
            return False, ""
        warn_schema_drift(path, probed, known, err)
        if verdict != HELD:
            return False, ""
        readable, max_ts, message = _max_timestamp(path)
        if message:
            _warn(err, message)
        return readable, max_ts
    stem = os.path.splitext(os.path.basename(path))[0]
    drift = DriftProbe()
    try:
        with jsonl.open_regular(path) as f:
            contains, max_ts = _full_scan(f, target, drift)
    except FileNotFoundError:
        return False, ""
    except OSError as exc:
        _warn(err, "cannot read %s: %s" % (path, exc))
        return False, ""
    drift.warn(path, err)
    return contains or stem == target, max_ts


def _latest(candidates: List[Tuple[str, str]]) -> Optional[str]:
    """The path of the greatest (timestamp, then the smaller path) among (path, ts)."""
    best_path: Optional[str] = None
    best_ts = ""
    for path, max_ts in candidates:
        if best_path is None or max_ts > best_ts or (max_ts == best_ts and path < best_path):
            best_path, best_ts = path, max_ts
    return best_path


def locate(
    uuid: str,
    projects_dir: str,
    err: Optional[TextIO] = None,
    byte_filter: bool = True,
    jobs: Optional[int] = None,
) -> Optional[str]:
    """The canonical transcript path holding ``uuid``, or None. Never writes.

    ``jobs`` caps the processes phase 1 may use (default ``parallel.available_jobs()``).
    """
    paths = list(iter_store_files(projects_dir, err))
    if not byte_filter:
        held = []
        for path in paths:
            contains, max_ts = scan_file(path, uuid, None, err)
            if contains:
                held.append((path, max_ts))
        return _latest(held)
    spellings = UuidSpellings(uuid)
    verdicts = parallel.map_shared(
        lambda path: _phase_one(path, uuid, spellings),
        paths,
        [parallel.file_weight(path) for path in paths],
        PARALLEL_MIN_BYTES,
        jobs,
    )
    holders = []
    for path, (verdict, probed, known, message) in zip(paths, verdicts):
        if message:
            _warn(err, message)
        if verdict == UNREADABLE:
            continue
        warn_schema_drift(path, probed, known, err)
        if verdict == HELD:
            holders.append(path)
    if len(holders) < 2:
        return holders[0] if holders else None
    stamped = []
    for path in holders:
        readable, max_ts, message = _max_timestamp(path)
        if message:
            _warn(err, message)
        if readable:
            stamped.append((path, max_ts))
    return _latest(stamped)


def locate_or_refuse(uuid: str, projects_dir: str, err: Optional[TextIO] = None, jobs: Optional[int] = None) -> str:
    """``locate``, raising ``SessionNotFound`` instead of returning None."""
    path = locate(uuid, projects_dir, err, jobs=jobs)
    if path is None:
        raise SessionNotFound(uuid)
    return path
