"""Find the canonical transcript of a session or message uuid in the harness's store.

Canonical = the latest descendant: among ``<projects>/*/*.jsonl`` (exactly one level)
the files that hold the uuid (their name stem is the uuid, or some line's ``uuid`` is
it), the one whose greatest ``timestamp`` (plain string order) is greatest; ties go to
the smaller path. A fork copies its parent's prefix, uuids and all, so the file with
the latest content is the most complete copy.

Speed without a second rule: a file can only hold the uuid if its bytes contain one of
the uuid's JSON spellings, so each file is first searched as bytes, and only files that
may hold it are parsed, every line of them, by the seed's own rule. ``byte_filter=False``
is the seed's algorithm (parse every line of every file), kept for measurement.
"""

import os
import re
from typing import BinaryIO, Iterator, Optional, TextIO, Tuple

from termsprawl_context import jsonl
from termsprawl_context.errors import NotFound
from termsprawl_context._output import warn
from termsprawl_context.transcript.parse import DriftProbe

TRANSCRIPT_SUFFIX = ".jsonl"

# Files are searched in blocks of this size; consecutive blocks overlap so a spelling
# cut by a block boundary is still seen.
SEARCH_BLOCK_SIZE = 1 << 20

# JSON's two-character escapes, by the character they stand for.
_SHORT_ESCAPES = {'"': b'\\"', "\\": b"\\\\", "/": b"\\/", "\b": b"\\b", "\f": b"\\f",
                  "\n": b"\\n", "\r": b"\\r", "\t": b"\\t"}


class SessionNotFound(NotFound):
    """No transcript in the store holds the uuid."""

    def __init__(self, uuid: str) -> None:
        super().__init__("uuid not found in any transcript: %s" % (uuid,))
        self.uuid = uuid


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


def _hex_any_case(codepoint: int) -> bytes:
    """A regex for the 4 hex digits of ``codepoint`` in any letter case."""
    out = []
    for digit in "%04x" % codepoint:
        out.append("[%s%s]" % (digit, digit.upper()) if digit.isalpha() else digit)
    return "".join(out).encode("ascii")


class UuidSpellings:
    """What bytes a file must contain if one of its lines has ``uuid`` == target.

    A JSON string equal to the target writes each character either as itself (its
    UTF-8 bytes) or as an escape (``\\uXXXX`` in any hex case, a surrogate pair for
    characters beyond U+FFFF, or a two-character escape). So a file that holds neither
    the target's UTF-8 bytes nor an escape of one of its characters cannot hold it.
    Invalid UTF-8 decodes to U+FFFD, so a target holding U+FFFD gets no filter.
    """

    def __init__(self, target: str) -> None:
        self.usable = "\ufffd" not in target
        try:
            self.literal: Optional[bytes] = target.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: only its escape can spell it
            self.literal = None
        alternatives = set()
        for char in set(target):
            codepoint = ord(char)
            if codepoint > 0xFFFF:
                high = 0xD800 + ((codepoint - 0x10000) >> 10)
                alternatives.add(b"u" + _hex_any_case(high))
            else:
                alternatives.add(b"u" + _hex_any_case(codepoint))
            if char in _SHORT_ESCAPES:
                alternatives.add(re.escape(_SHORT_ESCAPES[char][1:]))
        self.escapes = (
            re.compile(b"\\\\(?:" + b"|".join(sorted(alternatives)) + b")") if alternatives else None
        )
        # The longest spelling a block boundary may cut: the literal or one escape.
        self.overlap = max(len(self.literal or b""), 6) - 1

    def may_be_in(self, f: BinaryIO, block_size: int = SEARCH_BLOCK_SIZE) -> bool:
        """True if the rest of ``f`` may hold the target; reads it in blocks into one
        reused buffer (no allocation per block), each block searched with the tail of
        the previous one in front of it."""
        if not self.usable:
            return True
        literal, escapes, overlap = self.literal, self.escapes, self.overlap
        buf = bytearray(overlap + block_size)
        view = memoryview(buf)
        kept = 0  # bytes of the previous block kept at the front of buf
        try:
            while True:
                got = f.readinto(view[kept:kept + block_size])  # type: ignore[attr-defined]
                if not got:
                    return False
                end = kept + got
                if literal is not None and buf.find(literal, 0, end) >= 0:
                    return True
                if escapes is not None and escapes.search(buf, 0, end) is not None:
                    return True
                kept = min(overlap, end)
                buf[:kept] = buf[end - kept:end]
        finally:
            view.release()


def _scan_lines(f: BinaryIO, target: str, drift: DriftProbe) -> Tuple[bool, str]:
    """The seed's per-file scan over every line: (holds target as a line's uuid,
    greatest string timestamp or ""), feeding ``drift`` as it goes."""
    contains = False
    max_ts = ""
    parse = jsonl.parse_object
    for line in jsonl.iter_lines(f):
        obj = parse(line.raw)
        if obj is None:
            continue
        drift.see(obj)
        uuid = obj.get("uuid")
        if uuid is not None and uuid == target:
            contains = True
        ts = obj.get("timestamp")
        if isinstance(ts, str) and ts > max_ts:
            max_ts = ts
    return contains, max_ts


def _probe_drift(f: BinaryIO, drift: DriftProbe) -> None:
    """Feed ``drift`` from a file not otherwise parsed: the same verdict as a full scan,
    reading only until it is settled."""
    for line in jsonl.iter_lines(f):
        obj = jsonl.parse_object(line.raw)
        if obj is not None:
            drift.see(obj)
            if drift.settled:
                return


def scan_file(
    path: str,
    target: str,
    spellings: Optional[UuidSpellings] = None,
    err: Optional[TextIO] = None,
) -> Tuple[bool, str]:
    """(file holds ``target``, its greatest timestamp) for one store file.

    A file that vanished is silently not a holder; any other read failure (including a
    FIFO or a directory named ``*.jsonl``) is one warning and not a holder. Without
    ``spellings`` every line is parsed (the seed); with them, a file whose stem is not
    the target and whose bytes cannot spell it is only probed for drift.
    """
    stem = os.path.splitext(os.path.basename(path))[0]
    drift = DriftProbe()
    try:
        with jsonl.open_regular(path) as f:
            if spellings is not None and stem != target and not spellings.may_be_in(f):
                f.seek(0)
                _probe_drift(f, drift)
                contains, max_ts = False, ""
            else:
                f.seek(0)
                contains, max_ts = _scan_lines(f, target, drift)
                contains = contains or stem == target
    except FileNotFoundError:
        return False, ""
    except OSError as exc:
        _warn(err, "cannot read %s: %s" % (path, exc))
        return False, ""
    drift.warn(path, err)
    return contains, max_ts


def locate(
    uuid: str,
    projects_dir: str,
    err: Optional[TextIO] = None,
    byte_filter: bool = True,
) -> Optional[str]:
    """The canonical transcript path holding ``uuid``, or None. Never writes."""
    spellings = UuidSpellings(uuid) if byte_filter else None
    best_path: Optional[str] = None
    best_ts = ""
    for path in iter_store_files(projects_dir, err):
        contains, max_ts = scan_file(path, uuid, spellings, err)
        if not contains:
            continue
        if best_path is None or max_ts > best_ts or (max_ts == best_ts and path < best_path):
            best_path, best_ts = path, max_ts
    return best_path


def locate_or_refuse(uuid: str, projects_dir: str, err: Optional[TextIO] = None) -> str:
    """``locate``, raising ``SessionNotFound`` instead of returning None."""
    path = locate(uuid, projects_dir, err)
    if path is None:
        raise SessionNotFound(uuid)
    return path
