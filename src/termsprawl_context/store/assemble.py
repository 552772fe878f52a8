"""A transcript's messages, deduplicated and in time order, as their original lines.

The seed's pipeline: a message is a JSON object line whose ``uuid`` is not null; a uuid
seen again replaces the earlier copy's line and timestamp but keeps its first-seen
place; messages are ordered by (timestamp, first-seen), a missing or non-string
timestamp first; each is printed as its original line, whitespace-trimmed, never
re-serialised. Runs of ``isSidechain`` lines are announced on stderr and passed
through. A torn or junk line is skipped, never fatal.

Transcripts run to hundreds of MB and may be mid-write, so the first pass keeps per
message only what ``store.timeline`` holds (no line's bytes), and the second re-reads
the kept spans from the same open file, so bytes appended meanwhile are never mixed in.
Lines are read in chunks (``store.chunks``); a file of ``PARALLEL_MIN_BYTES`` or more
is cut into byte ranges parsed by forked processes (``store.parallel``), merged back in
file order: the same timeline as one process builds.
"""

import os
from typing import Any, BinaryIO, Optional, TextIO, Tuple

from termsprawl_context import jsonl
from termsprawl_context.errors import NotARegularFile, NotFound, RecordUnreadable
from termsprawl_context.store import parallel
from termsprawl_context.store.chunks import chunk_lines, iter_chunks
from termsprawl_context.store.locate import locate_or_refuse
from termsprawl_context.store.timeline import RangeRecords, Timeline, replay, uuid_key
from termsprawl_context._output import warn
from termsprawl_context.transcript.parse import DriftProbe


# Below this file size assemble-file parses in one process. Measured on the 2-core VM
# (benchmarks/bench_store.py, "sharing costs" row): a helper costs 0.6 ms of wall time
# to fork and collect, sending and merging its records 0.25 ms per MB, while parsing
# costs 5-11 ms per MB; two processes break even near 0.3 MB. Eight times that keeps
# the loss small when the second core turns out to be busy.
PARALLEL_MIN_BYTES = 2 << 20

SIDECHAIN_BEGINS = "isSidechain span begins (passthrough; collapse is prepass)"
SIDECHAIN_ENDS = "isSidechain span ends"


def _unreadable(path: str, why: object = "the file changed while it was read") -> RecordUnreadable:
    return RecordUnreadable("cannot read %s: %s" % (path, why))


# Per-message flag bits.
_SIDECHAIN = 1
_NOT_UTF8 = 2  # the line held invalid UTF-8: print it as decoded, U+FFFD and all


def _scan_range(f: BinaryIO, start: int, stop: Optional[int], add, drift) -> None:
    """Parse each line that begins in ``[start, stop)``, feeding ``drift`` and handing each
    message to ``add(key, hash, ts, offset, length, flags)``; a line over the length
    bound, not an object, or nested too deeply is junk, skipped."""
    probing = not drift.settled
    for line_at, raw in chunk_lines(iter_chunks(f, start, stop)):
        if len(raw) >= jsonl.COST_CHECK_FROM and not jsonl.readable(raw):
            continue  # past the cost model: unreadable, like junk
        flags = 0
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("utf-8", "replace")
            flags = _NOT_UTF8
        obj = jsonl.parse_object_text(text)
        if obj is None:
            continue
        if probing:
            drift.see(obj)
            probing = not drift.settled
        uuid = obj.get("uuid")
        if uuid is None:
            continue
        key = uuid_key(uuid)  # flat bytes, built without recursion however deep the uuid
        ts = obj.get("timestamp")
        ts_bytes = ts.encode("utf-8", "surrogatepass") if isinstance(ts, str) else b""
        if obj.get("isSidechain"):
            flags |= _SIDECHAIN
        length = len(raw)
        if not flags & _NOT_UTF8 and (raw[:1] != b"{" or raw[-1:] != b"}"):
            line_at, length = _trimmed_span(text, line_at)
        add(key, hash(key), ts_bytes, line_at, length, flags)


def _key_reader(f: BinaryIO, path: str):
    """``key_at(offset, length, flags)``: the key of the message kept there, read back
    (``Timeline`` asks only where two keys' hashes are equal)."""

    def key_at(offset: int, length: int, flags: int) -> bytes:
        try:
            data = _read_at(f, offset, length)
        except OSError as exc:
            raise _unreadable(path, exc) from None
        obj = None
        if len(data) == length:
            try:
                obj = jsonl.parse_object_text(data.decode("utf-8", "replace" if flags & _NOT_UTF8 else "strict"))
            except UnicodeDecodeError:
                pass
        if obj is None or obj.get("uuid") is None:
            raise _unreadable(path)  # a message in the first pass is not one now: rewritten in place
        return uuid_key(obj["uuid"])

    return key_at


def _range_records(f: BinaryIO, span: Tuple[int, Optional[int]]) -> tuple:
    """A helper's share: the plain records of one byte range."""
    records, drift = RangeRecords(), DriftProbe()
    _scan_range(f, span[0], span[1], records.add, drift)
    return records.plain((drift.probed, drift.known_seen))


def _load(f: BinaryIO, path: str, err: Optional[TextIO], jobs: Optional[int] = None) -> Timeline:
    """First pass: every line parsed once, message metadata kept, bytes dropped. A big
    file is cut into ranges parsed by several processes, merged back in file order."""
    drift = DriftProbe()
    jobs = parallel.available_jobs() if jobs is None else jobs
    size = os.fstat(f.fileno()).st_size
    timeline: Optional[Timeline] = None
    if jobs <= 1 or size < PARALLEL_MIN_BYTES:
        timeline = Timeline(_key_reader(f, path), size)
        _scan_range(f, 0, None, timeline.add, drift)
    else:
        # Near-equal byte ranges, the last open-ended (bytes appended meanwhile are read as
        # one process reads them); the timeline is made after the helpers are forked.
        starts = [size * i // jobs for i in range(jobs)]
        spans = list(enumerate(zip(starts, starts[1:] + [None])))
        parent = os.getpid()
        direct = [0]  # how many leading ranges were added straight to the timeline

        def share(item: Tuple[int, Tuple[int, Optional[int]]]) -> Optional[tuple]:
            # In this process, the next range in file order goes straight into the
            # timeline (never held as a share beside it); any other comes back as one.
            nonlocal timeline
            index, span = item
            if os.getpid() == parent and index == direct[0]:
                if timeline is None:
                    timeline = Timeline(_key_reader(f, path), size)
                _scan_range(f, span[0], span[1], timeline.add, drift)
                direct[0] += 1
                return None
            return _range_records(f, span)

        shares = parallel.map_shared(share, spans, [size // jobs] * jobs, PARALLEL_MIN_BYTES, jobs)
        shares = shares[direct[0] :]
        if timeline is None:
            timeline = Timeline(_key_reader(f, path), size)
        shares.reverse()
        while shares:  # in file order, each share freed once replayed
            drift.merge(*shares[-1][-1])
            replay(timeline, [shares.pop()])
    drift.warn(path, err)
    return timeline


def _trimmed_span(text: str, offset: int):
    """(offset, length) of ``text.strip()`` within the line's bytes (valid UTF-8)."""
    stripped = text.strip()
    lead = len(text) - len(text.lstrip())
    return offset + len(text[:lead].encode("utf-8")), len(stripped.encode("utf-8"))


def _read_at(f: BinaryIO, offset: int, length: int) -> bytes:
    pread = getattr(os, "pread", None)
    if pread is not None:
        data = pread(f.fileno(), length, offset)
        if len(data) < length:  # pread may return short only at EOF or on signals
            data += pread(f.fileno(), length - len(data), offset + len(data))
        return data
    f.seek(offset)
    return f.read(length)


def _emit_lines(f: BinaryIO, path: str, timeline: Timeline, out: BinaryIO, err: Optional[TextIO]) -> int:
    """Second pass: each kept copy re-read and printed. A write error (a closed stdout
    pipe) reaches the caller as it is; only reads become ``RecordUnreadable``."""
    offsets, lengths, flags = timeline.offsets, timeline.lengths, timeline.flags
    in_sidechain = False
    emitted = 0
    for slot in timeline.order():
        length = lengths[slot]
        try:
            data = _read_at(f, offsets[slot], length)
        except OSError as exc:
            raise _unreadable(path, exc) from None
        bits = flags[slot]
        if len(data) == length and bits & _NOT_UTF8:
            data = data.decode("utf-8", "replace").strip().encode("utf-8")
        elif len(data) != length:
            data = b""
        if data[:1] != b"{" or data[-1:] != b"}":
            raise _unreadable(path)  # an object in the first pass is not one now: truncated or rewritten
        side = bool(bits & _SIDECHAIN)
        if side and not in_sidechain:
            in_sidechain = True
            warn(SIDECHAIN_BEGINS, err)
        elif not side and in_sidechain:
            in_sidechain = False
            warn(SIDECHAIN_ENDS, err)
        out.write(data)
        out.write(b"\n")
        emitted += 1
    return emitted


def _assemble_open(path: str, out: BinaryIO, err: Optional[TextIO], missing: str, jobs: Optional[int] = None) -> int:
    try:
        f = jsonl.open_regular(path)
    except (FileNotFoundError, NotADirectoryError, NotARegularFile):
        raise NotFound(missing % (path,)) from None
    except OSError as exc:
        raise _unreadable(path, exc) from None
    with f:
        try:
            timeline = _load(f, path, err, jobs)
        except OSError as exc:
            raise _unreadable(path, exc) from None
        return _emit_lines(f, path, timeline, out, err)


def assemble_file(path: Any, out: BinaryIO, err: Optional[TextIO] = None, jobs: Optional[int] = None) -> int:
    """Print the timeline of exactly the file ``path``; the number of lines printed (0 is
    no error). ``NotFound`` when it is not a regular file, ``RecordUnreadable`` unread."""
    path = os.fsdecode(path) if isinstance(path, (bytes, os.PathLike)) else path
    return _assemble_open(path, out, err, "transcript file not found: %s", jobs)


def assemble(
    uuid: str, projects_dir: str, out: BinaryIO, err: Optional[TextIO] = None, jobs: Optional[int] = None
) -> int:
    """Print the timeline of ``uuid``'s canonical transcript: ``SessionNotFound`` when no
    transcript holds it, ``NotFound`` when it was removed before it could be read."""
    path = locate_or_refuse(uuid, projects_dir, err, jobs)
    return _assemble_open(path, out, err, "canonical file disappeared during read: %s", jobs)
