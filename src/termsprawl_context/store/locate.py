"""Find the canonical transcript of a session or message uuid in the harness's store.

Canonical = the latest descendant: among ``<projects>/*/*.jsonl`` (exactly one level)
the files that hold the uuid (their name stem is the uuid, or some line's ``uuid`` is
it), the one whose greatest ``timestamp`` (plain string order) is greatest; ties go to
the smaller path. A fork copies its parent's prefix, uuids and all, so the file with
the latest content is the most complete copy.

Phase 1 finds the holders: a file named after the uuid holds it; in any other only lines
whose bytes may spell it (``bytescan.ValueSpellings``) are parsed, up to the first that
confirms it. Phase 2, only when two or more files hold it, parses each holder whole for
its timestamps. Every file is probed for schema drift, as the seed does.
``byte_filter=False`` parses every line in phase 1 (the tests' second oracle).
"""

import os
from typing import Any, BinaryIO, Callable, Iterator, Optional, TextIO, Tuple

from termsprawl_context import jsonl
from termsprawl_context.bytescan import ValueSpellings as UuidSpellings  # where a line may spell the uuid
from termsprawl_context.errors import SessionNotFound
from termsprawl_context._output import warn
from termsprawl_context.store import parallel
from termsprawl_context.store.catalog import TRANSCRIPT_SUFFIX, stem_of
from termsprawl_context.store.chunks import chunk_lines, iter_chunks, line_around, line_bounds
from termsprawl_context.transcript.parse import DriftProbe, warn_schema_drift


# Below this many bytes in the store, phase 1 runs in one process. Measured on the
# 2-core VM (benchmarks/bench_store.py, "sharing costs" row): a helper costs 0.6 ms of
# wall time to fork and collect, while phase 1 costs 0.5-0.8 ms per MB; two processes
# break even near 2.4 MB. Three times that keeps the loss small when the second core
# turns out to be busy.
PARALLEL_MIN_BYTES = 8 << 20


def iter_store_files(projects_dir: str, err: Optional[TextIO] = None) -> Iterator[str]:
    """Every ``<projects_dir>/<dir>/<name>.jsonl``, in name order: an unlistable store is
    one warning, an unlistable project skipped in silence (old projects come and go)."""
    if not projects_dir or not os.path.isdir(projects_dir):
        return
    try:
        subdirs = sorted(os.listdir(projects_dir))
    except OSError as exc:
        warn("cannot list %s: %s" % (projects_dir, exc), err)
        return
    for name in subdirs:
        sub = os.path.join(projects_dir, name)
        try:
            entries = sorted(os.listdir(sub))
        except OSError:  # not a directory (a file, a dangling link), or unlistable
            continue
        yield from (os.path.join(sub, entry) for entry in entries if entry.endswith(TRANSCRIPT_SUFFIX))


def _is_target(obj: Optional[dict], target: str) -> bool:
    return obj is not None and obj.get("uuid") == target  # target is a str: a missing uuid never equals it


def _find_holder(f: BinaryIO, target: str, spellings: UuidSpellings, by_name: bool, drift: DriftProbe) -> bool:
    """Phase 1 on one open file: whether it holds ``target``, feeding ``drift``."""
    held = by_name
    parse = jsonl.parse_object
    for _at, buf, begin, end in iter_chunks(f):
        if not drift.settled:  # the drift probe: the first lines, in order
            for start, stop in line_bounds(buf, begin, end):
                obj = parse(bytes(buf[start:stop]))
                if obj is not None:
                    drift.see(obj)
                    held = held or _is_target(obj, target)
                    if drift.settled:
                        break
        if held:
            if drift.settled:
                return True
            continue
        if spellings.usable:
            hits = spellings.hits(buf, begin, end)
        else:  # no byte test can find the uuid: every line is a candidate
            hits = [start for start, _stop in line_bounds(buf, begin, end)]
        line_end = -1
        for at in hits:
            if at < line_end:
                continue  # in the line just parsed
            start, line_end = line_around(buf, at, begin, end)
            if _is_target(parse(bytes(buf[start:line_end])), target):
                held = True
                break
        if held and drift.settled:
            return True
    return held


def _read(path: str, scan: Callable[[BinaryIO], Any]) -> Tuple[Any, Optional[str]]:
    """``(scan(f), None)`` over the file; ``(None, None)`` when it vanished, ``(None, warning)``
    on any other failure (a FIFO or a directory named ``*.jsonl`` included)."""
    try:
        with jsonl.open_regular(path) as f:
            return scan(f), None
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, "cannot read %s: %s" % (path, exc)


def _phase_one(path: str, target: str, spellings: UuidSpellings) -> tuple:
    """(holds the uuid or None when unreadable, drift lines probed, known field seen,
    warning or None) for one file: plain data, so a helper process can send it back."""
    drift = DriftProbe()
    held, message = _read(path, lambda f: _find_holder(f, target, spellings, stem_of(path) == target, drift))
    return held, drift.probed, drift.known_seen, message


def _held(path: str, phase_one: tuple, err: Optional[TextIO]) -> bool:
    """Phase 1's verdict on one file, its warnings written: whether it holds the uuid."""
    held, probed, known, message = phase_one
    if message:
        warn(message, err)
    if held is None:
        return False
    warn_schema_drift(path, probed, known, err)
    return held


def _max_timestamp(path: str, err: Optional[TextIO]) -> Optional[str]:
    """Phase 2: the holder's greatest string ``timestamp`` (string order; "" for none), None if unread."""

    def greatest(f: BinaryIO) -> str:
        max_ts = ""
        for _at, raw in chunk_lines(iter_chunks(f)):
            obj = jsonl.parse_object(raw)
            ts = obj.get("timestamp") if obj is not None else None
            if isinstance(ts, str) and ts > max_ts:
                max_ts = ts
        return max_ts

    max_ts, message = _read(path, greatest)
    if message:
        warn(message, err)
    return max_ts


def scan_file(path: str, target: str, spellings: UuidSpellings, err: Optional[TextIO] = None) -> Tuple[bool, str]:
    """(file holds ``target``, its greatest timestamp); a vanished file is silently not a holder."""
    if not _held(path, _phase_one(path, target, spellings), err):
        return False, ""
    max_ts = _max_timestamp(path, err)
    return max_ts is not None, max_ts or ""


def locate(
    uuid: str,
    projects_dir: str,
    err: Optional[TextIO] = None,
    byte_filter: bool = True,
    jobs: Optional[int] = None,
) -> Optional[str]:
    """The canonical transcript path holding ``uuid``, or None."""
    paths = list(iter_store_files(projects_dir, err))
    spellings = UuidSpellings(uuid)
    spellings.usable = spellings.usable and byte_filter  # not usable: every line is a candidate
    weights = [parallel.file_weight(path) for path in paths]
    verdicts = parallel.map_shared(
        lambda path: _phase_one(path, uuid, spellings), paths, weights, PARALLEL_MIN_BYTES, jobs
    )
    holders = [path for path, verdict in zip(paths, verdicts) if _held(path, verdict, err)]
    if len(holders) < 2:
        return holders[0] if holders else None
    stamped = [(path, _max_timestamp(path, err)) for path in holders]
    readable = sorted((path, max_ts) for path, max_ts in stamped if max_ts is not None)
    return max(readable, key=lambda c: c[1])[0] if readable else None  # max keeps the first of a tie: the smaller path


def locate_or_refuse(uuid: str, projects_dir: str, err: Optional[TextIO] = None, jobs: Optional[int] = None) -> str:
    """``locate``, raising ``SessionNotFound`` instead of returning None."""
    path = locate(uuid, projects_dir, err, jobs=jobs)
    if path is None:
        raise SessionNotFound(uuid)
    return path
