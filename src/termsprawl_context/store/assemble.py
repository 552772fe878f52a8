"""A transcript's messages, deduplicated and in time order, as their original lines.

The seed's pipeline: a message is a JSON object line whose ``uuid`` is not null; a uuid
seen again replaces the earlier copy's line and timestamp but keeps its first-seen
place; messages are ordered by (timestamp, first-seen), a missing or non-string
timestamp first; each is printed as its original line, whitespace-trimmed, never
re-serialised. Runs of ``isSidechain`` lines are announced on stderr and passed
through. A torn or junk line is skipped, never fatal.

Transcripts run to hundreds of MB and may be mid-write, so the first pass keeps per
message only its metadata in flat buffers (``Timeline``: no line's bytes; 600k messages
stay under 64 MB whatever their uuids look like, and no garbage collection walks them),
and the second re-reads the kept spans from the same open file, so bytes appended
meanwhile are never mixed in. A file of ``PARALLEL_MIN_BYTES`` or more is cut into byte
ranges parsed by forked processes (``_range_records``), replayed in file order: the same
timeline as one process builds.
"""

import os
import re
from array import array
from operator import itemgetter
from typing import Any, BinaryIO, Callable, Iterator, List, Optional, TextIO, Tuple

from termsprawl_context import jsonl
from termsprawl_context.errors import NotARegularFile, NotFound, RecordUnreadable
from termsprawl_context.store import parallel
from termsprawl_context.store.chunks import chunk_lines, iter_chunks
from termsprawl_context.store.locate import locate_or_refuse
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


# --- the timeline: message metadata in flat buffers ---------------------------------------
def _string_token(text: str) -> bytes:
    data = text.encode("utf-8", "surrogatepass")
    return b"s%d:%s" % (len(data), data)


def _number_token(value: Any) -> bytes:
    """One JSON number's token: equal numbers (1 and 1.0, -0.0 and 0) are one dict key, so
    one token; the JSON parser's NaN is one object, so one key."""
    if isinstance(value, float):
        if value != value:
            return b"n"
        if not value.is_integer():  # inf included
            return b"f%s;" % repr(value).encode()
        value = int(value)
    return b"i%d;" % value


def _value_tokens(value: Any) -> bytes:
    """Any JSON value as a flat string of self-delimiting tokens, equal exactly when the
    values were equal dict keys in the seed (members sorted by name; ``true`` and ``1``
    apart, a boolean being tagged). A stack, not recursion: a uuid nested 900 deep is a
    key like any other."""
    out: List[bytes] = []
    pending: List[Any] = [value]  # a stack: the next item is last
    while pending:
        item = pending.pop()
        if type(item) is bytes:  # a closing token, pushed as it is (no JSON value is bytes)
            out.append(item)
        elif isinstance(item, dict):
            out.append(b"{")
            pending.append(b"}")
            for name, member in sorted(item.items(), key=itemgetter(0), reverse=True):
                pending.append(member)
                pending.append(_string_token(name))
        elif isinstance(item, list):
            out.append(b"[")
            pending.append(b"]")
            pending.extend(reversed(item))
        elif isinstance(item, str):
            out.append(_string_token(item))
        elif item is True or item is False or item is None:
            out.append(b"T" if item is True else b"F" if item is False else b"N")
        else:
            out.append(_number_token(item))
    return b"".join(out)


def uuid_key(uuid: Any) -> bytes:
    """The dedup key of a uuid value: equal exactly when the seed's dict keys were; ``s``
    and a string's UTF-8 (surrogates passed through), or ``j`` and ``_value_tokens``."""
    if isinstance(uuid, str):
        return b"s" + uuid.encode("utf-8", "surrogatepass")
    return b"j" + _value_tokens(uuid)


# Timestamps as JavaScript's toISOString writes them: kept as the integer their 17 digits
# spell, in the same order (the separators are the same in every one). A missing one is
# -1, first as the empty string; any other spelling makes the timeline keep strings.
_CANONICAL_TS = re.compile(rb"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")
_TS_PUNCTUATION = b"-T:.Z"
_NO_TS = -1
_ODD_TS = -2  # in a helper's share: the string is sent beside the codes
SORT_RUN = 1 << 16


def ts_code(ts: bytes) -> Optional[int]:
    """``ts``'s order-keeping integer, or None when it is not in the canonical form."""
    if not ts:
        return _NO_TS
    if len(ts) == 24 and _CANONICAL_TS.fullmatch(ts):
        return int(ts.translate(None, _TS_PUNCTUATION))
    return None


def ts_text(code: int) -> bytes:
    """The timestamp ``ts_code`` turned into ``code``."""
    if code == _NO_TS:
        return b""
    d = b"%017d" % code
    return b"%s-%s-%sT%s:%s:%s.%sZ" % (d[:4], d[4:6], d[6:8], d[8:10], d[10:12], d[12:14], d[14:])


# The slot table is sized up front for the messages a file's size suggests (a line of at
# least ~100 bytes each), so it is rarely rebuilt; at most 4 MiB of table, so a big file of
# long lines reserves little it does not use.
_PRESIZE_LIMIT = 1 << 19
_MIN_LINE_GUESS = 100


class Timeline:
    """Message metadata in first-seen order: slot i is the i-th distinct uuid; a uuid seen
    again replaces its copy's line and timestamp but keeps its slot.

    Only flat buffers grow here, never an object per message: a growing list or dict would
    be traversed by every full garbage collection (a quadratic load), and a key object costs
    50 to 100 bytes. A slot costs 37 bytes whatever the uuid: its key's hash, its share of
    an open-addressing table, its timestamp's code, offset, length and flags. Where two
    hashes are equal, both keys are read back from the file by ``key_at(offset, length,
    flags)`` (one read per later copy: linear). Meeting a timestamp in another spelling, it
    keeps every timestamp as UTF-8 bytes instead (which sort as the strings do)."""

    def __init__(self, key_at: Callable[[int, int, int], bytes], size: int = 0) -> None:
        self.key_at = key_at
        self.hashes = array("q")  # each slot's key's hash()
        table_size = 1024
        while 2 * table_size < 3 * min(size // _MIN_LINE_GUESS, _PRESIZE_LIMIT):
            table_size *= 2
        self.table = array("i", [0]) * table_size  # slot + 1, 0 for empty; a power of two long
        self.codes: Optional[array] = array("q")  # None once the strings are kept
        self.ts_blob = bytearray()
        self.ts_start = array("q")
        self.ts_size = array("i")  # a timestamp is shorter than its line
        self.offsets = array("q")
        self.lengths = array("i")  # a kept line is at most jsonl.MAX_LINE_BYTES long
        self.flags = bytearray()

    def _keep_strings(self) -> None:
        """Turn the codes back into the strings they stand for, kept as such from now on."""
        codes, self.codes = self.codes, None
        for code in codes or ():
            self._append_ts(ts_text(code))

    def _append_ts(self, ts: bytes) -> None:
        self.ts_start.append(len(self.ts_blob))
        self.ts_size.append(len(ts))
        self.ts_blob += ts

    def _find(self, key: Optional[bytes], key_hash: int, offset: int, length: int, flags: int) -> int:
        """The slot of the message's key, or -1 with a new slot's place taken in the table."""
        table, hashes = self.table, self.hashes
        mask = len(table) - 1
        at = key_hash & mask
        while True:
            value = table[at]
            if not value:
                break
            slot = value - 1
            if hashes[slot] == key_hash:
                if key is None:
                    key = self.key_at(offset, length, flags)
                if self.key_at(self.offsets[slot], self.lengths[slot], self.flags[slot]) == key:
                    return slot
            at = (at + 1) & mask
        table[at] = len(hashes) + 1
        hashes.append(key_hash)
        if 3 * len(hashes) > 2 * len(table):  # at most two thirds full: short probes
            self._grow()
        return -1

    def _grow(self) -> None:
        self.table = table = array("i", [0]) * (2 * len(self.table))
        mask = len(table) - 1
        for slot, key_hash in enumerate(self.hashes):
            at = key_hash & mask
            while table[at]:
                at = (at + 1) & mask
            table[at] = slot + 1

    def add(
        self,
        key: Optional[bytes],
        key_hash: int,
        ts: bytes,
        offset: int,
        length: int,
        flags: int,
        code: Optional[int] = None,
    ) -> None:
        """One message: its key (``uuid_key``; None to read it back when needed) and its
        ``hash()``, its timestamp (or its ``code``), and where its line lies."""
        if self.codes is not None:
            if code is None:
                code = ts_code(ts)
            if code is None:
                self._keep_strings()
        elif code is not None:
            ts = ts_text(code)
        slot = self._find(key, key_hash, offset, length, flags)
        if slot < 0:
            if self.codes is not None:
                self.codes.append(code)
            else:
                self._append_ts(ts)
            self.offsets.append(offset)
            self.lengths.append(length)
            self.flags.append(flags)
        else:  # keep-last: the later copy wins, the first-seen position stays
            if self.codes is not None:
                self.codes[slot] = code
            else:
                self.ts_start[slot] = len(self.ts_blob)
                self.ts_size[slot] = len(ts)
                self.ts_blob += ts
            self.offsets[slot] = offset
            self.lengths[slot] = length
            self.flags[slot] = flags

    def order(self) -> Iterator[int]:
        """Slots by (timestamp, first-seen): a stable sort on timestamp, slots being numbered
        first-seen. The hashes are freed first; runs of ``SORT_RUN`` are sorted and merged
        (still stable), so the sort's keys and lists never hold every message."""
        self.hashes, self.table = array("q"), array("i", [0])
        key: Any
        if self.codes is not None:
            key = self.codes.__getitem__
        else:
            blob, self.ts_blob = bytes(self.ts_blob), bytearray()
            start, size = self.ts_start, self.ts_size

            def ts_of(slot: int) -> bytes:
                return blob[start[slot] : start[slot] + size[slot]]

            key = ts_of
        count = len(self.offsets)
        if count <= SORT_RUN:
            return iter(sorted(range(count), key=key))
        import heapq

        runs = [
            array("q", sorted(range(low, min(low + SORT_RUN, count)), key=key)) for low in range(0, count, SORT_RUN)
        ]
        return iter(heapq.merge(*runs, key=key))


def _as_array(typecode: str, data: Any) -> array:
    """``data`` itself (a share made in this process) or the array a helper's bytes spell."""
    return data if isinstance(data, array) else array(typecode, data)


def replay(timeline: Timeline, share: list) -> None:
    """Add a helper's share (``_range_records``), popped from ``share`` so it is freed once unpacked."""
    hashes, codes, odd_ts, odd_ends, offsets, lengths, flags = share.pop()[:7]
    hashes, codes, odd_ends = _as_array("q", hashes), _as_array("q", codes), _as_array("q", odd_ends)
    offsets, lengths, odd_ts = _as_array("q", offsets), _as_array("i", lengths), bytes(odd_ts)
    add = timeline.add
    odd = 0
    for i in range(len(offsets)):
        code: Optional[int] = codes[i]
        ts = b""
        if code == _ODD_TS:  # sent beside the codes: ``add`` codes it itself
            ts, code = odd_ts[odd_ends[odd - 1] if odd else 0 : odd_ends[odd]], None
            odd += 1
        add(None, hashes[i], ts, offsets[i], lengths[i], flags[i], code)


# --- the two passes ------------------------------------------------------------------------


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
            lead = len(text) - len(text.lstrip())  # the span of text.strip() in the line's bytes
            line_at, length = line_at + len(text[:lead].encode("utf-8")), len(text.strip().encode("utf-8"))
        add(key, hash(key), ts_bytes, line_at, length, flags)


def _key_reader(f: BinaryIO, path: str):
    """``key_at(offset, length, flags)``: the key of the message kept there, read back from the file."""

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
    """A helper's share: one byte range's messages in file order as ``Timeline.add``'s
    arguments but the keys (a forked process hashes as its parent), timestamps as codes,
    the odd ones end to end beside; the buffers themselves (marshal sends any buffer as
    bytes), then the drift probe's findings."""
    hashes, codes, odd_ends, offsets, lengths = array("q"), array("q"), array("q"), array("q"), array("i")
    odd_ts, flags = bytearray(), bytearray()  # odd_ts: the timestamps coded ``_ODD_TS``, in order

    def add(key: bytes, key_hash: int, ts: bytes, offset: int, length: int, bits: int) -> None:
        hashes.append(key_hash)
        code = ts_code(ts)
        if code is None:
            odd_ts.extend(ts)
            odd_ends.append(len(odd_ts))
            code = _ODD_TS
        codes.append(code)
        offsets.append(offset)
        lengths.append(length)
        flags.append(bits)

    drift = DriftProbe()
    _scan_range(f, span[0], span[1], add, drift)
    return hashes, codes, odd_ts, odd_ends, offsets, lengths, flags, (drift.probed, drift.known_seen)


def _load(f: BinaryIO, path: str, err: Optional[TextIO], jobs: Optional[int] = None) -> Timeline:
    """First pass: every line parsed once, message metadata kept, bytes dropped (a big file shared out)."""
    drift = DriftProbe()
    jobs = parallel.available_jobs() if jobs is None else jobs
    size = os.fstat(f.fileno()).st_size
    jobs = 1 if jobs <= 1 or size < PARALLEL_MIN_BYTES else jobs
    # Near-equal byte ranges, the last open-ended (bytes appended meanwhile are read as one
    # process reads them); the timeline is made after the helpers are forked.
    starts = [size * i // jobs for i in range(jobs)]
    spans = list(enumerate(zip(starts, starts[1:] + [None])))
    parent = os.getpid()
    direct = [0]  # how many leading ranges were added straight to the timeline
    timeline: Optional[Timeline] = None

    def share(item: Tuple[int, Tuple[int, Optional[int]]]) -> Optional[tuple]:
        # In this process, the next range in file order goes straight into the timeline
        # (never held as a share beside it); any other comes back as one.
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
        if side != in_sidechain:
            in_sidechain = side
            warn(SIDECHAIN_BEGINS if side else SIDECHAIN_ENDS, err)
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
