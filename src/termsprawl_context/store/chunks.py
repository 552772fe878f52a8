"""Whole lines of a store file in large chunks, with a bound on one line.

``locate`` and ``assemble`` scan hundreds of MB: reading a block at a time and working
on whole lines inside it (one ``bytes.find`` or ``bytes.split`` per block) is what lets
them run near the speed of the disk cache, and a line longer than ``MAX_LINE_BYTES``
(a newline-less file, a 2 GB torn write) is streamed past and skipped as unreadable,
never held. Reads are positional (``os.pread``), so processes forked to share a scan
can read one inherited descriptor without moving each other's file position.

Bytes only: nothing here knows JSON or Claude Code. (It belongs beside ``jsonl``; it
lives here until that module grows a bounded reader of its own.)
"""

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO, Callable, Iterator, Optional, Tuple

# Files are read in blocks of this size.
BLOCK_SIZE = 1 << 20

# The longest line any store reader holds (the Go reader's maxRecordBytes): a longer
# line is skipped, like a line that is not JSON.
MAX_LINE_BYTES = 16 << 20


def reader(f: "BinaryIO") -> "Callable[[int, int], bytes]":
    """``read(offset, size)`` for ``f``: positional where the platform has ``pread``
    (the file position is never moved, so forked readers may share the descriptor),
    seek-and-read elsewhere."""
    pread = getattr(os, "pread", None)
    try:
        fd = f.fileno()
    except (AttributeError, OSError, ValueError):  # an in-memory file
        pread = None
    if pread is not None:
        return lambda offset, size: pread(fd, size, offset)

    def read(offset: int, size: int) -> bytes:
        f.seek(offset)
        return f.read(size)

    return read


def _first_line_start(read, start: int, block_size: int) -> "Optional[int]":
    """The offset of the first line that begins at or after ``start`` (> 0): just past
    the first newline at or after ``start - 1``; None when there is none. A giant line
    in the way is streamed past, a block at a time."""
    pos = start - 1
    while True:
        block = read(pos, block_size)
        if not block:
            return None
        newline = block.find(b"\n")
        if newline >= 0:
            return pos + newline + 1
        pos += len(block)


def iter_chunks(
    f: "BinaryIO",
    start: int = 0,
    stop: "Optional[int]" = None,
    max_line: "Optional[int]" = None,
    block_size: "Optional[int]" = None,
) -> "Iterator[Tuple[int, bytes]]":
    """Yield ``(offset, data)``: consecutive whole lines of ``f``, each ending in
    b"\\n" except a torn last line at the end of the file, ``offset`` being where
    ``data`` starts in the file.

    The lines yielded are those that begin in ``[start, stop)`` (``stop`` None: up to
    the end of the file, however long it has grown meanwhile); so ranges cut anywhere
    share out a file's lines exactly once. A line longer than ``max_line`` bytes
    (newline excluded) is never yielded nor held: it is read past and a new chunk
    begins after it. Chunks are about ``block_size`` bytes. (The defaults,
    ``MAX_LINE_BYTES`` and ``BLOCK_SIZE``, are read at each call.)
    """
    max_line = MAX_LINE_BYTES if max_line is None else max_line
    block_size = max(1, min(BLOCK_SIZE if block_size is None else block_size, max_line))  # so a line within one block fits the bound
    read = reader(f)
    if start > 0:
        found = _first_line_start(read, start, block_size)
        if found is None:
            return
        start = found
    if stop is not None and start >= stop:
        return
    pos = start  # the next byte to read
    carry = bytearray()  # the line in progress, when it began in an earlier block
    carry_at = start  # where the carried line begins
    skipping = False  # inside a line over the bound: drop bytes up to its newline
    while True:
        block = read(pos, block_size)
        if not block:
            break
        block_at = pos
        pos += len(block)
        begin = 0  # where this block's unconsumed bytes begin
        if skipping:
            newline = block.find(b"\n")
            if newline < 0:
                continue
            skipping = False
            begin = newline + 1
            carry_at = block_at + begin
            if stop is not None and carry_at >= stop:
                return
        last = block.rfind(b"\n", begin)
        if last < 0:
            if len(carry) + len(block) - begin > max_line:
                carry = bytearray()
                skipping = True
            else:
                if not carry:
                    carry_at = block_at + begin
                carry += block[begin:] if begin else block
            continue
        if carry:
            first = block.find(b"\n", begin)
            if len(carry) + first - begin > max_line:  # the carried line ends here, too long
                at = block_at + first + 1
                data = block[first + 1:last + 1]
            else:
                carry += block[begin:last + 1]
                at, data = carry_at, bytes(carry)
            carry = bytearray()
        else:
            at, data = block_at + begin, block[begin:last + 1] if begin or last + 1 < len(block) else block
        if last + 1 < len(block):
            carry_at = block_at + last + 1
            carry += block[last + 1:]
        else:
            carry_at = pos
        if stop is not None and at + len(data) > stop:
            if at >= stop:
                return
            # Keep the lines that begin before stop: up to the newline ending the line
            # that holds byte stop - 1.
            cut = data.find(b"\n", stop - 1 - at)
            yield at, data[:cut + 1]
            return
        if data:
            yield at, data
    if carry and not skipping and (stop is None or carry_at < stop):
        yield carry_at, bytes(carry)


def split_lines(data: bytes) -> list:
    """The lines of one chunk, without their newlines (a final b"\\n" ends a line, it
    does not start an empty one)."""
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    return lines
