"""Streaming readers for JSON Lines files, forward and backward.

This layer knows bytes, lines and JSON objects, nothing of Claude Code. Files on this
beat are hundreds of MB, appended to while we read, and may end in a torn line, hold
invalid UTF-8, NUL bytes or a single 20 MB line; so nothing here reads a whole file,
and nothing here raises on content: a line that is not a JSON object parses to None.
"""

from __future__ import annotations

import json
import os
import stat
from collections import namedtuple

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import BinaryIO, Iterator, List, Optional, Tuple, Union

# Backward reads go in blocks of this size: big enough that a typical tail (a few
# dozen turns) costs a handful of reads, small enough to stay far below any RSS bound.
BLOCK_SIZE = 1 << 16

# O_NONBLOCK lets us open a FIFO without waiting for a writer, so fstat can refuse it;
# it has no effect on reads of regular files. Absent on Windows, where FIFOs are not
# files on a path anyway.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


class NotARegularFile(OSError):
    """The path names a FIFO, a directory, a device or a socket: never read as a file."""


class Line(namedtuple("Line", "number offset raw")):
    """One physical line: its 1-based number, the byte offset of its first byte, and
    its bytes without the terminating newline (a carriage return, if any, is kept).
    A named tuple from collections, not typing: this module is on every dump's path."""

    __slots__ = ()


def open_regular(path: Union[str, bytes, "os.PathLike"]) -> BinaryIO:
    """Open ``path`` for binary reading if and only if it is a regular file.

    Raises OSError (FileNotFoundError, PermissionError, NotARegularFile, ...) otherwise.
    The check is made on the opened descriptor, so a file swapped for a FIFO between a
    stat and the open cannot make a reader block forever.
    """
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except (ValueError, TypeError) as exc:  # an embedded NUL, a non-path object
        raise FileNotFoundError(str(exc)) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotARegularFile("not a regular file: %s" % os.fsdecode(path))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def try_open_regular(path) -> Optional[BinaryIO]:
    """``open_regular`` for fail-open callers: None instead of any OSError."""
    try:
        return open_regular(path)
    except OSError:
        return None


def parse_object(raw: Union[bytes, str]) -> Optional[dict]:
    """The JSON object on one line, or None for blank, junk, or a non-object value.

    Bytes are decoded as UTF-8 with U+FFFD for invalid sequences, so a stray byte
    costs one character, not the line. Nesting deep enough to exhaust the parser's
    recursion guard is junk like any other.
    """
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    text = text.strip()
    if not text:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _refuse_constant(name: str) -> None:
    # NaN and Infinity are Python's extension, not JSON; a file re-dumped with them
    # would no longer be JSON, and a payload holding them was not written by a harness.
    raise ValueError("%s is not valid JSON" % name)


def loads_strict(text: str) -> object:
    """``json.loads`` that refuses NaN and Infinity (ValueError; RecursionError when
    nested too deeply). For documents we validate or rewrite, not transcript lines,
    which ``parse_object`` reads as leniently as the harness's readers do."""
    return json.loads(text, parse_constant=_refuse_constant)


def json_type_name(value: object) -> str:
    """The JSON name of a decoded value's type, for messages: object, array, string,
    number, boolean, null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def iter_lines(f: BinaryIO) -> Iterator[Line]:
    """Yield every physical line from the file's current position to its end.

    Lines end at b"\\n" only: U+2028, U+0085 or a lone b"\\r" inside a line are data.
    A last line without a newline (a torn write) is yielded like any other.
    """
    number = 0
    offset = f.tell()
    for chunk in f:
        number += 1
        raw = chunk[:-1] if chunk.endswith(b"\n") else chunk
        yield Line(number, offset, raw)
        offset += len(chunk)


def iter_lines_reverse(
    f: BinaryIO, end: Optional[int] = None, block_size: int = BLOCK_SIZE
) -> Iterator[Tuple[int, bytes]]:
    """Yield ``(offset, raw)`` for each line from the last to the first.

    ``end`` defaults to the file's size when called, so bytes appended while we read
    are not seen: the answer is the file as it was, never a half-written line from
    after that instant. Line numbers are unknown from the end, so only offsets are
    given. The same lines as ``iter_lines`` are produced, in reverse order: an empty
    tail after a final newline is not a line.
    """
    if end is None:
        end = os.fstat(f.fileno()).st_size
    pos = end
    # Pieces of the line being assembled, latest piece first: a giant line is joined
    # once, not re-copied for every block it spans.
    pending: List[bytes] = []
    while pos > 0:
        size = min(block_size, pos)
        pos -= size
        f.seek(pos)
        block = f.read(size)
        if len(block) != size:
            return  # the file shrank under us: what we have not read is gone
        cut = block.rfind(b"\n")
        if cut < 0:
            pending.append(block)
            continue
        start = pos + cut + 1
        pending.append(block[cut + 1:])
        if start != end:
            pending.reverse()
            yield start, b"".join(pending)
        parts = block[:cut].split(b"\n")
        line_end = pos + cut
        for i in range(len(parts) - 1, 0, -1):
            part = parts[i]
            line_end -= len(part)
            yield line_end, part
            line_end -= 1
        pending = [parts[0]]
    if end > 0:
        # What is left is the file's first line, from offset 0.
        pending.reverse()
        yield 0, b"".join(pending)


class LineTooLong(OSError):
    """A line reached the reader's bound: the file cannot be read as records."""


def iter_lines_bounded(f: BinaryIO, limit: int) -> Iterator[Line]:
    """``iter_lines`` with a bound on one line: a line of ``limit`` bytes or more
    (its newline not counted) raises LineTooLong once its first ``limit`` bytes are in,
    as Go's bufio.Scanner does with a buffer of ``limit`` bytes.

    At most ``limit`` + 1 bytes of one line are ever held: the bound is checked while
    the line is read, not after."""
    number = 0
    offset = f.tell()
    readline = f.readline
    while True:
        chunk = readline(limit + 1)
        if not chunk:
            return
        number += 1
        raw = chunk[:-1] if chunk.endswith(b"\n") else chunk
        if len(raw) >= limit:
            raise LineTooLong("line %d is longer than %d bytes" % (number, limit))
        yield Line(number, offset, raw)
        offset += len(chunk)
