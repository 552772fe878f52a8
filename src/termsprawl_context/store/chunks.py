"""Whole lines of a store file in large chunks, with a bound on one line.

``locate`` and ``assemble`` scan hundreds of MB: reading a block at a time and working
on whole lines inside it (one ``bytes.find`` or ``bytes.split`` per block) is what lets
them run near the speed of the disk cache, and a line longer than ``MAX_LINE_BYTES``
(a newline-less file, a 2 GB torn write) is streamed past and skipped as unreadable,
never held. Reads are positional (``os.pread``), so processes forked to share a scan
can read one inherited descriptor without moving each other's file position.

Bytes only: nothing here knows JSON or Claude Code. (It could move into ``jsonl``,
whose bound it shares; ``jsonl.iter_lines`` yields one line at a time, this a chunk.)
"""

import os

from termsprawl_context import jsonl

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO, Callable, Iterator, Optional, Tuple

# Files are read in blocks of this size.
BLOCK_SIZE = 1 << 20

# The longest line any store reader holds: jsonl's bound, so every reader of the
# package agrees on which lines are unreadable.
MAX_LINE_BYTES = jsonl.MAX_LINE_BYTES


def reader(f: "BinaryIO") -> "Callable[[memoryview, int], int]":
    """``read_into(view, offset) -> count`` for ``f``: positional where the platform has
    ``preadv`` (the file position is never moved, so forked readers may share the
    descriptor), seek-and-readinto elsewhere. Reading into one reused buffer, not a
    fresh ``bytes`` a block, matters: each fresh megabyte is a quarter of a thousand
    page faults, which cost more than searching it."""
    preadv = getattr(os, "preadv", None)
    try:
        fd = f.fileno()
    except (AttributeError, OSError, ValueError):  # an in-memory file
        preadv = None
    if preadv is not None:
        return lambda view, offset: preadv(fd, [view], offset)

    def read_into(view: memoryview, offset: int) -> int:
        f.seek(offset)
        return f.readinto(view) or 0  # type: ignore[attr-defined]

    return read_into


def _read(read_into, buf: bytearray, at: int, size: int, offset: int) -> int:
    """Read up to ``size`` bytes at file ``offset`` into ``buf[at:]`` (grown if needed)."""
    if len(buf) < at + size:
        buf.extend(bytes(at + size - len(buf)))
    view = memoryview(buf)
    try:
        return read_into(view[at : at + size], offset)
    finally:
        view.release()


def _first_line_start(read_into, buf: bytearray, start: int, block_size: int) -> "Optional[int]":
    """The offset of the first line that begins at or after ``start`` (> 0): just past
    the first newline at or after ``start - 1``; None when there is none. A giant line
    in the way is streamed past, a block at a time."""
    pos = start - 1
    while True:
        got = _read(read_into, buf, 0, block_size, pos)
        if not got:
            return None
        newline = buf.find(b"\n", 0, got)
        if newline >= 0:
            return pos + newline + 1
        pos += got


def iter_chunks(
    f: "BinaryIO",
    start: int = 0,
    stop: "Optional[int]" = None,
    max_line: "Optional[int]" = None,
    block_size: "Optional[int]" = None,
) -> "Iterator[Tuple[int, bytearray, int, int]]":
    """Yield ``(offset, buf, begin, end)``: ``buf[begin:end]`` holds consecutive whole
    lines of ``f``, each ending in b"\\n" except a torn last line at the end of the file,
    and begins at file ``offset``. ``buf`` is one reused buffer: read it (``find``,
    slices) before the next step, never keep it.

    The lines yielded are those that begin in ``[start, stop)`` (``stop`` None: up to
    the end of the file, however long it has grown meanwhile); so ranges cut anywhere
    share out a file's lines exactly once. A line longer than ``max_line`` bytes
    (newline excluded) is never yielded nor held: it is read past and a new chunk
    begins after it. Chunks are about ``block_size`` bytes. (The defaults,
    ``MAX_LINE_BYTES`` and ``BLOCK_SIZE``, are read at each call.)
    """
    max_line = MAX_LINE_BYTES if max_line is None else max_line
    block_size = max(1, min(BLOCK_SIZE if block_size is None else block_size, max_line))
    read_into = reader(f)
    buf = bytearray(block_size)
    if start > 0:
        found = _first_line_start(read_into, buf, start, block_size)
        if found is None:
            return
        start = found
    if stop is not None and start >= stop:
        return
    pos = start  # the next byte to read
    kept = 0  # buf[:kept] is the line in progress, begun in an earlier block
    skipping = False  # inside a line over the bound: drop bytes up to its newline
    while True:
        got = _read(read_into, buf, kept, block_size, pos)
        if not got:
            break
        base = pos - kept  # the file offset of buf[0]
        pos += got
        end = kept + got
        begin = 0
        if skipping:  # kept == 0
            newline = buf.find(b"\n", 0, end)
            if newline < 0:
                continue
            skipping = False
            begin = newline + 1
            if stop is not None and base + begin >= stop:
                return
        last = buf.rfind(b"\n", max(begin, kept), end)
        if last < 0:
            if end - begin > max_line:
                kept, skipping = 0, True
            else:
                if begin:
                    buf[: end - begin] = buf[begin:end]
                kept = end - begin
            continue
        if kept:
            first = buf.find(b"\n", kept, end)
            if first - begin > max_line:  # the carried line ends here, too long
                begin = first + 1
        if begin <= last:
            at = base + begin
            if stop is not None and at + last + 1 - begin > stop:
                if at < stop:
                    # Keep the lines that begin before stop: up to the newline ending
                    # the line that holds byte stop - 1.
                    yield at, buf, begin, buf.find(b"\n", begin + stop - 1 - at, last + 1) + 1
                return
            yield at, buf, begin, last + 1
        kept = end - last - 1
        if kept:
            buf[:kept] = buf[last + 1 : end]
    if kept and not skipping and (stop is None or pos - kept < stop):
        yield pos - kept, buf, 0, kept


def iter_lines(chunk_iter) -> "Iterator[Tuple[int, bytes]]":
    """``(offset, raw)`` of every line in ``iter_chunks``' chunks, without its newline,
    as bytes (a copy: safe to keep)."""
    for at, buf, begin, end in chunk_iter:
        view = memoryview(buf)
        try:
            pos = begin
            while pos < end:
                newline = buf.find(b"\n", pos, end)
                if newline < 0:
                    newline = end
                yield at + pos - begin, bytes(view[pos:newline])
                pos = newline + 1
        finally:
            view.release()  # before the buffer may grow
