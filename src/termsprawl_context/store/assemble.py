"""A transcript's messages, deduplicated and in time order, as their original lines.

The seed's pipeline: a message line is a JSON object whose ``uuid`` is not null (so
bookkeeping lines of any type drop out without a list of types); a uuid seen again
replaces the earlier copy's line and timestamp but keeps its first-seen position;
messages are ordered by (timestamp, first-seen position), a missing or non-string
timestamp sorting first; each is printed as its original line, whitespace-trimmed,
never re-serialised. Runs of ``isSidechain`` lines are announced on stderr and passed
through. A torn or junk line is skipped, never fatal.

Memory: transcripts run to hundreds of MB and may be mid-write, so the first pass
keeps, per message, only its uuid, its timestamp and where its kept copy lies in the
file (offset, length, two flag bits); the second pass re-reads those bytes in order
from the same open file, so bytes appended meanwhile are never mixed in.

Speed: lines are read in large chunks into one reused buffer (``store.chunks``), a line
over ``chunks.MAX_LINE_BYTES`` is skipped unread, and a file of ``PARALLEL_MIN_BYTES``
or more is cut into byte ranges parsed by forked processes (``store.parallel``) whose
records are merged back in file order: the same timeline as one process builds.
"""

import json
import os
import re
from array import array
from typing import Any, BinaryIO, Dict, Iterator, List, Optional, TextIO, Tuple

from termsprawl_context import jsonl
from termsprawl_context.errors import NotFound, Refusal
from termsprawl_context.store import parallel
from termsprawl_context.store.chunks import chunk_lines, iter_chunks
from termsprawl_context.store.locate import locate_or_refuse
from termsprawl_context._output import warn
from termsprawl_context.transcript.parse import (
    SCHEMA_DRIFT_CHECK_N,
    DriftProbe,
    has_known_field,
)

# json.loads(text) without its keyword handling, for the one-line-at-a-time loop.
_decode = json.JSONDecoder().decode

# Below this file size assemble-file parses in one process. Measured on the 2-core VM
# (benchmarks/bench_store.py, "sharing costs" row): a helper costs 0.6 ms of wall time
# to fork and collect, sending and merging its records 0.25 ms per MB, while parsing
# costs 5-11 ms per MB; two processes break even near 0.3 MB. Eight times that keeps
# the loss small when the second core turns out to be busy.
PARALLEL_MIN_BYTES = 2 << 20

SIDECHAIN_BEGINS = "isSidechain span begins (passthrough; collapse is prepass)"
SIDECHAIN_ENDS = "isSidechain span ends"

# Per-message flag bits.
_SIDECHAIN = 1
_NOT_UTF8 = 2  # the line held invalid UTF-8: print it as decoded, U+FFFD and all


class TranscriptFileNotFound(NotFound):
    """``assemble-file`` was given a path that is not a regular file."""

    def __init__(self, path: str) -> None:
        super().__init__("transcript file not found: %s" % (path,))
        self.path = path


class TranscriptVanished(NotFound):
    """The located transcript was gone by the time it was opened."""

    def __init__(self, path: str) -> None:
        super().__init__("canonical file disappeared during read: %s" % (path,))
        self.path = path


class TranscriptUnreadable(Refusal):
    """The transcript exists but could not be read to the end."""

    def __init__(self, path: str, reason: Any) -> None:
        super().__init__("cannot read %s: %s" % (path, reason))
        self.path = path


def _hashable(value: Any) -> Any:
    """A dict key for any JSON value that compares as the value does: the seed keyed
    its dict by the raw value and would crash on an array or object uuid. A boolean is
    tagged, since Python's ``True == 1`` would make ``true`` and ``1`` one message.

    An array or object becomes one flat tuple of (tag, value) tokens in document order
    (an object's members sorted by key, so member order does not matter, as in a
    dict's equality). Flat on purpose: nested tuples hash and compare recursively in C,
    so two equal uuids nested 900 deep would be a RecursionError on the second insert."""
    if isinstance(value, bool):
        return ("bool", value)
    if not isinstance(value, (list, dict)):
        return value
    tokens: List[Tuple[str, Any]] = []
    pending: List[Any] = [value]  # a stack: the next value to flatten is last
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            tokens.append(("{", len(item)))
            members = sorted(item.items(), key=_member_key)
            for key, member in reversed(members):
                pending.append(member)
                pending.append(_Key(key))
        elif isinstance(item, list):
            tokens.append(("[", len(item)))
            pending.extend(reversed(item))
        elif isinstance(item, _Key):
            tokens.append(("k", item.name))
        elif isinstance(item, bool):
            tokens.append(("b", item))
        elif isinstance(item, str):
            tokens.append(("s", item))
        else:  # a number or null: 1 and 1.0 are one JSON number
            tokens.append(("v", item))
    return ("json", tuple(tokens))


class _Key:
    """An object member's name on the flattening stack (told apart from a string value)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


def _member_key(member: Tuple[str, Any]) -> str:
    return member[0]


_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _uuid_key(uuid: Any) -> Any:
    """The dedup key of a uuid value: a canonical lower-case uuid string as its 16 bytes
    (a third of the memory; no JSON value is bytes, so no other key can equal it),
    any other value as itself (booleans tagged, arrays and objects frozen)."""
    if isinstance(uuid, str):
        if len(uuid) == 36 and _CANONICAL_UUID.fullmatch(uuid):
            return bytes.fromhex(uuid.replace("-", ""))
        return uuid
    return _hashable(uuid)


# Timestamps as Claude Code writes them (JavaScript's toISOString): kept as the integer
# their 17 digits spell, 8 bytes instead of the string, in the same order (equal-length
# digit strings sort as numbers; the separators are the same in every one). A missing
# one is -1, sorting first as the empty string does; any other spelling switches the
# timeline to keeping the strings themselves.
_CANONICAL_TS = re.compile(rb"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")
_TS_PUNCTUATION = b"-T:.Z"
_NO_TS = -1
_ODD_TS = -2  # in a helper's share: the string is sent beside the codes
# Slots are sorted in runs of this many, then merged: the sort's own keys and lists stay
# this small, however many messages there are.
_SORT_RUN = 1 << 16


def _ts_code(ts: bytes) -> Optional[int]:
    """``ts``'s order-keeping integer, or None when it is not in the canonical form."""
    if not ts:
        return _NO_TS
    if len(ts) == 24 and _CANONICAL_TS.fullmatch(ts):
        return int(ts.translate(None, _TS_PUNCTUATION))
    return None


def _ts_text(code: int) -> bytes:
    """The timestamp ``_ts_code`` turned into ``code``."""
    if code == _NO_TS:
        return b""
    d = b"%017d" % code
    return b"%s-%s-%sT%s:%s:%s.%sZ" % (d[:4], d[4:6], d[6:8], d[8:10], d[10:12], d[12:14], d[14:])


# The slot table is sized up front for the messages a file's size suggests (a line of at
# least about 100 bytes each), so it is rarely rebuilt; never beyond this many (4 MiB of
# table), so a big file of long lines reserves little it does not use.
_PRESIZE_LIMIT = 1 << 19
_MIN_LINE_GUESS = 100


class _UuidSlots(object):
    """The slot of each distinct uuid key, in flat buffers (issue 24: a dict of 600k
    keys cost about 100 bytes each). A canonical uuid (16 bytes, ``_uuid_key``) lives in
    an open-addressing table of slot numbers over one buffer of the keys themselves,
    compared exactly; any other key, rare, in a dict."""

    def __init__(self, expected: int = 0) -> None:
        self.keys = bytearray()  # 16 bytes per slot (zeros for a slot whose key is in ``other``)
        size = 1024
        while 2 * size < 3 * min(expected, _PRESIZE_LIMIT):
            size *= 2
        self.table = array("i", [0]) * size  # slot + 1, 0 for empty; a power of two long
        self.used = 0
        self.other: Dict[Any, int] = {}

    def slot_of(self, key: Any, new: int) -> int:
        """The slot of ``key``; one not here yet is given slot ``new`` (one probe walk)."""
        if type(key) is not bytes:
            slot = self.other.get(key)
            if slot is None:
                self.other[key] = slot = new
                self.keys += bytes(16)
            return slot
        table, keys = self.table, self.keys
        mask = len(table) - 1
        at = hash(key) & mask
        while True:
            value = table[at]
            if not value:
                break
            if keys[16 * value - 16 : 16 * value] == key:
                return value - 1
            at = (at + 1) & mask
        table[at] = new + 1
        keys += key
        self.used += 1
        if 3 * self.used > 2 * len(table):  # at most two thirds full: short probes
            self._grow()
        return new

    def _place(self, key: bytes, slot: int) -> None:
        table = self.table
        mask = len(table) - 1
        at = hash(key) & mask
        while table[at]:
            at = (at + 1) & mask
        table[at] = slot + 1

    def _grow(self) -> None:
        old = self.table
        self.table = array("i", [0]) * (2 * len(old))
        keys = self.keys
        for value in old:
            if value:
                slot = value - 1
                self._place(bytes(keys[16 * slot : 16 * slot + 16]), slot)


class _Timeline:
    """Message metadata in first-seen order: slot i is the i-th distinct uuid.

    Only flat buffers grow here (arrays, bytearrays, and a dict of the rare keys that
    are not canonical uuids): a growing list would be traversed by every full garbage
    collection, making the load quadratic. About 45 bytes a message: the key (16), its
    share of the slot table (8), the timestamp's code (8; ``_ts_code``), offset (8),
    length (4) and flags. A timeline that meets a timestamp in another spelling keeps
    every timestamp as UTF-8 bytes in one buffer instead; UTF-8 (surrogates passed
    through) sorts as the strings do.
    """

    def __init__(self, size: int = 0) -> None:
        self.slots = _UuidSlots(size // _MIN_LINE_GUESS)
        self.codes: Optional[array] = array("q")  # None once the strings are kept
        self.ts_blob = bytearray()
        self.ts_start = array("q")
        self.ts_size = array("l")
        self.offsets = array("q")
        self.lengths = array("i")  # a kept line is at most chunks.MAX_LINE_BYTES long
        self.flags = bytearray()

    def __len__(self) -> int:
        return len(self.offsets)

    def _keep_strings(self) -> None:
        """Turn the codes back into the strings they stand for, from now on kept as such."""
        codes, self.codes = self.codes, None
        for code in codes or ():
            self._append_ts(_ts_text(code))

    def _append_ts(self, ts: bytes) -> None:
        self.ts_start.append(len(self.ts_blob))
        self.ts_size.append(len(ts))
        self.ts_blob += ts

    def add(self, key: Any, ts: bytes, offset: int, length: int, flags: int, code: Optional[int] = None) -> None:
        if self.codes is not None:
            if code is None:
                code = _ts_code(ts)
            if code is None:
                self._keep_strings()
        elif code is not None:
            ts = _ts_text(code)
        count = len(self.offsets)
        slot = self.slots.slot_of(key, count)
        if slot == count:
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
        """Slots by (timestamp, first-seen): a stable sort on timestamp alone, since
        slots are numbered in first-seen order. The uuids are not needed to print, so
        they are freed first; the slots are sorted in runs of ``_SORT_RUN`` and the runs
        merged (earlier runs first among equals: still stable), so the sort's keys and
        lists never hold every message."""
        self.slots = _UuidSlots()
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
        if count <= _SORT_RUN:
            return iter(sorted(range(count), key=key))
        import heapq

        runs = [
            array("q", sorted(range(low, min(low + _SORT_RUN, count)), key=key)) for low in range(0, count, _SORT_RUN)
        ]
        return iter(heapq.merge(*runs, key=key))


class _Records(object):
    """A range's messages as flat buffers, in file order, for a helper process to send
    back: what ``_Timeline.add`` would have been given, one call each (keys and
    timestamps packed as the timeline packs them, the rare others beside)."""

    __slots__ = ("keys", "other_keys", "codes", "odd_ts", "offsets", "lengths", "flags")

    def __init__(self) -> None:
        self.keys = bytearray()
        self.other_keys: Dict[int, Any] = {}
        self.codes = array("q")
        self.odd_ts: Dict[int, bytes] = {}
        self.offsets = array("q")
        self.lengths = array("i")
        self.flags = bytearray()

    def add(self, key: Any, ts: bytes, offset: int, length: int, flags: int) -> None:
        index = len(self.offsets)
        if type(key) is bytes:
            self.keys += key
        else:
            self.other_keys[index] = key
            self.keys += bytes(16)
        code = _ts_code(ts)
        if code is None:
            self.odd_ts[index] = ts
            code = _ODD_TS
        self.codes.append(code)
        self.offsets.append(offset)
        self.lengths.append(length)
        self.flags.append(flags)

    def plain(self, known: List[bool]) -> tuple:
        """The buffers themselves, not copies: marshal sends any buffer as bytes."""
        return (self.keys, self.other_keys, self.codes, self.odd_ts, self.offsets, self.lengths, self.flags, known)


def _as_array(typecode: str, data: Any) -> array:
    """``data`` as an array: itself (a share made in this process) or built from the
    bytes a helper sent."""
    return data if isinstance(data, array) else array(typecode, data)


def _replay(timeline: _Timeline, share: list) -> None:
    """Add a helper's share (``_Records.plain``, given in a list this empties, so the
    share is freed as soon as it is unpacked) to ``timeline``, in its order."""
    keys, other_keys, codes, odd_ts, offsets, lengths, flags = share.pop()[:7]
    codes, offsets, lengths = _as_array("q", codes), _as_array("q", offsets), _as_array("i", lengths)
    keys = bytes(keys)  # a slice of bytes is a bytes key (a bytearray's would be neither bytes nor hashable)
    add = timeline.add
    for i in range(len(offsets)):
        key = other_keys[i] if i in other_keys else keys[16 * i : 16 * i + 16]
        code = codes[i]
        if code == _ODD_TS:
            add(key, odd_ts[i], offsets[i], lengths[i], flags[i])
        else:
            add(key, b"", offsets[i], lengths[i], flags[i], code)


class _DriftRecord(object):
    """Stands in for a DriftProbe in a helper process: notes whether each of the range's
    first parsed objects has a known field, to be replayed into the real probe."""

    __slots__ = ("known", "settled")

    def __init__(self) -> None:
        self.known: List[bool] = []
        self.settled = False

    def see(self, obj: dict) -> None:
        self.known.append(has_known_field(obj))
        self.settled = len(self.known) >= SCHEMA_DRIFT_CHECK_N


# What a replayed note is fed to the probe as: an object with a known field, or not.
_KNOWN_OBJECT = {"uuid": None}
_UNKNOWN_OBJECT: Dict[str, Any] = {}


def _scan_range(f: BinaryIO, start: int, stop: Optional[int], add, drift) -> None:
    """Parse every line that begins in ``[start, stop)`` once, feeding ``drift`` and
    handing each message to ``add(key, ts, offset, length, flags)`` in file order.

    A line over the length bound, one that is not a JSON object, and one nested too
    deeply to parse or to key is junk, skipped."""
    decode = _decode
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
        if raw[:1] == b"{":
            try:
                obj = decode(text)
            except ValueError:  # perhaps Unicode whitespace that strip() removes
                obj = _decode_stripped(text)
            except RecursionError:
                continue
        else:
            obj = _decode_stripped(text)
        if obj is None or type(obj) is not dict:
            continue
        if probing:
            drift.see(obj)
            probing = not drift.settled
        uuid = obj.get("uuid")
        if uuid is None:
            continue
        try:
            key = _uuid_key(uuid)
            hash(key)  # nested tuples hash recursively, in C
        except RecursionError:
            continue
        ts = obj.get("timestamp")
        ts_bytes = ts.encode("utf-8", "surrogatepass") if isinstance(ts, str) else b""
        if obj.get("isSidechain"):
            flags |= _SIDECHAIN
        length = len(raw)
        if not flags & _NOT_UTF8 and (raw[:1] != b"{" or raw[-1:] != b"}"):
            line_at, length = _trimmed_span(text, line_at)
        add(key, ts_bytes, line_at, length, flags)


def _decode_stripped(text: str) -> Any:
    """The JSON value of ``text.strip()`` when that differs from ``text`` and starts an
    object, else None: the seed strips every Unicode space, JSON only four."""
    stripped = text.strip()
    if stripped == text or stripped[:1] != "{":
        return None
    try:
        return _decode(stripped)
    except (ValueError, RecursionError):
        return None


def _range_records(f: BinaryIO, span: Tuple[int, Optional[int]]) -> tuple:
    """A helper's share: the plain records of one byte range."""
    records, drift = _Records(), _DriftRecord()
    _scan_range(f, span[0], span[1], records.add, drift)
    return records.plain(drift.known)


def _ranges(size: int, parts: int) -> List[Tuple[int, Optional[int]]]:
    """``parts`` byte ranges of near-equal size; the last one open-ended, so bytes
    appended meanwhile are read as a single process would read them."""
    starts = [size * i // parts for i in range(parts)]
    stops: List[Optional[int]] = list(starts[1:])
    return list(zip(starts, stops + [None]))


def _load(f: BinaryIO, path: str, err: Optional[TextIO], jobs: Optional[int] = None) -> _Timeline:
    """First pass: every line parsed once, message metadata kept, bytes dropped. A big
    file is cut into ranges parsed by several processes, merged back in file order."""
    drift = DriftProbe()
    jobs = parallel.available_jobs() if jobs is None else jobs
    size = os.fstat(f.fileno()).st_size
    timeline: Optional[_Timeline] = None
    if jobs <= 1 or size < PARALLEL_MIN_BYTES:
        timeline = _Timeline(size)
        _scan_range(f, 0, None, timeline.add, drift)
    else:
        # The timeline is made after the helpers are forked (in ``share``): they need none of its buffers.
        spans = list(enumerate(_ranges(size, jobs)))
        parent = os.getpid()
        direct = [0]  # how many leading ranges were added straight to the timeline

        def share(item: Tuple[int, Tuple[int, Optional[int]]]) -> Optional[tuple]:
            # In this process, the next range in file order goes straight into the
            # timeline (never held as a share beside it); any other comes back as one.
            nonlocal timeline
            index, span = item
            if os.getpid() == parent and index == direct[0]:
                if timeline is None:
                    timeline = _Timeline(size)
                _scan_range(f, span[0], span[1], timeline.add, drift)
                direct[0] += 1
                return None
            return _range_records(f, span)

        shares = parallel.map_shared(share, spans, [size // jobs] * jobs, PARALLEL_MIN_BYTES, jobs)
        shares = shares[direct[0] :]
        if timeline is None:
            timeline = _Timeline(size)
        shares.reverse()
        while shares:  # in file order, each share freed once replayed
            for note in shares[-1][-1]:
                if drift.settled:
                    break
                drift.see(_KNOWN_OBJECT if note else _UNKNOWN_OBJECT)
            _replay(timeline, [shares.pop()])
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


def _emit_lines(f: BinaryIO, path: str, timeline: _Timeline, out: BinaryIO, err: Optional[TextIO]) -> int:
    """Second pass: each kept copy re-read from the same open file and printed.

    Only reads are turned into ``TranscriptUnreadable``; a write error (a closed
    stdout pipe) reaches the caller as it is."""
    offsets, lengths, flags = timeline.offsets, timeline.lengths, timeline.flags
    in_sidechain = False
    emitted = 0
    for slot in timeline.order():
        length = lengths[slot]
        try:
            data = _read_at(f, offsets[slot], length)
        except OSError as exc:
            raise TranscriptUnreadable(path, exc) from None
        bits = flags[slot]
        if len(data) == length and bits & _NOT_UTF8:
            data = data.decode("utf-8", "replace").strip().encode("utf-8")
        elif len(data) != length:
            data = b""
        if data[:1] != b"{" or data[-1:] != b"}":
            # What was a JSON object in the first pass is not one now: the file was
            # truncated or rewritten in place between the passes.
            raise TranscriptUnreadable(path, "the file changed while it was read")
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


def _assemble_open(path: str, out: BinaryIO, err: Optional[TextIO], missing: type, jobs: Optional[int] = None) -> int:
    try:
        f = jsonl.open_regular(path)
    except (FileNotFoundError, NotADirectoryError, jsonl.NotARegularFile):
        raise missing(path) from None
    except OSError as exc:
        raise TranscriptUnreadable(path, exc) from None
    with f:
        try:
            timeline = _load(f, path, err, jobs)
        except OSError as exc:
            raise TranscriptUnreadable(path, exc) from None
        return _emit_lines(f, path, timeline, out, err)


def assemble_file(path: Any, out: BinaryIO, err: Optional[TextIO] = None, jobs: Optional[int] = None) -> int:
    """Print the timeline of exactly the file ``path``; the number of lines printed.

    Raises ``TranscriptFileNotFound`` when ``path`` is not a regular file and
    ``TranscriptUnreadable`` when it cannot be read. Zero messages is not an error.
    """
    path = os.fsdecode(path) if isinstance(path, (bytes, os.PathLike)) else path
    return _assemble_open(path, out, err, TranscriptFileNotFound, jobs)


def assemble(
    uuid: str, projects_dir: str, out: BinaryIO, err: Optional[TextIO] = None, jobs: Optional[int] = None
) -> int:
    """Locate the canonical transcript of ``uuid`` and print its timeline.

    Raises ``SessionNotFound`` when no transcript holds it, ``TranscriptVanished`` when
    it was removed before it could be read.
    """
    path = locate_or_refuse(uuid, projects_dir, err, jobs)
    return _assemble_open(path, out, err, TranscriptVanished, jobs)
