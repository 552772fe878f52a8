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
"""

import os
import re
from array import array
from typing import Any, BinaryIO, Dict, List, Optional, TextIO

from termsprawl_context import jsonl
from termsprawl_context.errors import NotFound, Refusal
from termsprawl_context.store.locate import locate_or_refuse
from termsprawl_context._output import warn
from termsprawl_context.transcript.parse import (
    DriftProbe,
    is_sidechain,
)

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
    its dict by the raw value and would crash on an array or object uuid."""
    if isinstance(value, list):
        return ("[]", tuple(_hashable(item) for item in value))
    if isinstance(value, dict):
        return ("{}", frozenset((key, _hashable(item)) for key, item in value.items()))
    return value


_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _uuid_key(uuid: Any) -> Any:
    """The dedup key of a uuid value: a canonical lower-case uuid string as its 16 bytes
    (a third of the memory; no JSON value is bytes, so no other key can equal it),
    any other value as itself."""
    if isinstance(uuid, str):
        if len(uuid) == 36 and _CANONICAL_UUID.fullmatch(uuid):
            return bytes.fromhex(uuid.replace("-", ""))
        return uuid
    return _hashable(uuid)


class _Timeline:
    """Message metadata in first-seen order: slot i is the i-th distinct uuid.

    Only flat buffers grow here (arrays, bytearrays, and a dict of atomic keys the
    collector does not track): a growing list would be traversed by every full garbage
    collection, making the load quadratic. Timestamps are kept as UTF-8 bytes in one
    buffer; UTF-8 (surrogates passed through) sorts as the strings do.
    """

    def __init__(self) -> None:
        self.slots: Dict[Any, int] = {}
        self.ts_blob = bytearray()
        self.ts_start = array("q")
        self.ts_size = array("q")
        self.offsets = array("q")
        self.lengths = array("q")
        self.flags = bytearray()

    def __len__(self) -> int:
        return len(self.offsets)

    def add(self, key: Any, ts: bytes, offset: int, length: int, flags: int) -> None:
        slot = self.slots.get(key)
        if slot is None:
            self.slots[key] = len(self.offsets)
            self.ts_start.append(len(self.ts_blob))
            self.ts_size.append(len(ts))
            self.ts_blob += ts
            self.offsets.append(offset)
            self.lengths.append(length)
            self.flags.append(flags)
        else:  # keep-last: the later copy wins, the first-seen position stays
            self.ts_start[slot] = len(self.ts_blob)
            self.ts_size[slot] = len(ts)
            self.ts_blob += ts
            self.offsets[slot] = offset
            self.lengths[slot] = length
            self.flags[slot] = flags

    def order(self) -> List[int]:
        """Slots by (timestamp, first-seen): a stable sort on timestamp alone, since
        slots are numbered in first-seen order. The uuids are not needed to print, so
        they are freed before the sort allocates its keys."""
        self.slots = {}
        blob, self.ts_blob = bytes(self.ts_blob), bytearray()
        start, size = self.ts_start, self.ts_size
        return sorted(range(len(self.offsets)), key=lambda slot: blob[start[slot]:start[slot] + size[slot]])


def _load(f: BinaryIO, path: str, err: Optional[TextIO]) -> _Timeline:
    """First pass: every line parsed once, message metadata kept, bytes dropped."""
    timeline = _Timeline()
    add = timeline.add
    parse = jsonl.parse_object
    drift = DriftProbe()
    for line in jsonl.iter_lines(f):
        raw = line.raw
        flags = 0
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None:
            obj = parse(text)
        else:
            obj = parse(raw)
            flags = _NOT_UTF8
        if obj is None:
            continue
        drift.see(obj)
        uuid = obj.get("uuid")
        if uuid is None:
            continue
        ts = obj.get("timestamp")
        ts_bytes = ts.encode("utf-8", "surrogatepass") if isinstance(ts, str) else b""
        if is_sidechain(obj):
            flags |= _SIDECHAIN
        offset, length = line.offset, len(raw)
        if text is not None and (raw[:1] != b"{" or raw[-1:] != b"}"):
            offset, length = _trimmed_span(text, offset)
        add(_uuid_key(uuid), ts_bytes, offset, length, flags)
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


def _emit_lines(
    f: BinaryIO, path: str, timeline: _Timeline, out: BinaryIO, err: Optional[TextIO]
) -> int:
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


def _assemble_open(path: str, out: BinaryIO, err: Optional[TextIO], missing: type) -> int:
    try:
        f = jsonl.open_regular(path)
    except (FileNotFoundError, NotADirectoryError, jsonl.NotARegularFile):
        raise missing(path) from None
    except OSError as exc:
        raise TranscriptUnreadable(path, exc) from None
    with f:
        try:
            timeline = _load(f, path, err)
        except OSError as exc:
            raise TranscriptUnreadable(path, exc) from None
        return _emit_lines(f, path, timeline, out, err)


def assemble_file(path: Any, out: BinaryIO, err: Optional[TextIO] = None) -> int:
    """Print the timeline of exactly the file ``path``; the number of lines printed.

    Raises ``TranscriptFileNotFound`` when ``path`` is not a regular file and
    ``TranscriptUnreadable`` when it cannot be read. Zero messages is not an error.
    """
    path = os.fsdecode(path) if isinstance(path, (bytes, os.PathLike)) else path
    return _assemble_open(path, out, err, TranscriptFileNotFound)


def assemble(uuid: str, projects_dir: str, out: BinaryIO, err: Optional[TextIO] = None) -> int:
    """Locate the canonical transcript of ``uuid`` and print its timeline.

    Raises ``SessionNotFound`` when no transcript holds it, ``TranscriptVanished`` when
    it was removed before it could be read.
    """
    path = locate_or_refuse(uuid, projects_dir, err)
    return _assemble_open(path, out, err, TranscriptVanished)
