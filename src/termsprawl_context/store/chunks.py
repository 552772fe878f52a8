"""Whole lines of a store file in large chunks: the chunked reader of ``jsonl``'s family,
under its one line bound (``jsonl.iter_lines`` yields a line at a time).

``locate``, ``assemble`` and ``search`` scan hundreds of MB: working on whole lines inside
a block is what lets them run near the speed of the disk cache; a line longer than
``MAX_LINE_BYTES`` (a newline-less file, a 2 GB torn write) is streamed past, never held.
Reads are positional, so processes forked to share a scan can read one inherited
descriptor without moving each other's file position. Bytes only: no JSON, no harness.
"""

import os

from termsprawl_context import jsonl

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO, Callable, Iterator, Optional, Tuple

BLOCK_SIZE = 1 << 20  # files are read in blocks of this size
# jsonl's one bound, named here too so that a test can lower it for this reader alone.
MAX_LINE_BYTES = jsonl.MAX_LINE_BYTES


def reader(f: "BinaryIO") -> "Callable[[memoryview, int], int]":
    """``read_into(view, offset) -> count`` for ``f``: ``preadv`` where there is one, else
    seek and readinto. Into one reused buffer, not a fresh ``bytes`` a block: each fresh
    megabyte is 256 page faults, which cost more than searching it."""
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
    with memoryview(buf) as view:  # released before the buffer may grow
        return read_into(view[at : at + size], offset)


def _first_line_start(read_into, buf: bytearray, start: int, block_size: int) -> "Optional[int]":
    """The offset of the first line that begins at or after ``start`` (None: none), past a giant line."""
    if start <= 0:
        return 0
    pos = start - 1
    while True:
        got = _read(read_into, buf, 0, block_size, pos)
        if not got:
            return None
        newline = buf.find(b"\n", 0, got)
        if newline >= 0:
            return pos + newline + 1
        pos += got


def _carry(buf: bytearray, begin: int, end: int, max_line: int) -> "Tuple[int, bool]":
    """Move the open line ``buf[begin:end]`` to the buffer's start: ``(its length, False)``;
    ``(0, True)`` when it is already over ``max_line``, to be skipped to its newline."""
    if end - begin > max_line:
        return 0, True
    if begin:
        buf[: end - begin] = buf[begin:end]
    return end - begin, False


def iter_chunks(
    f: "BinaryIO",
    start: int = 0,
    stop: "Optional[int]" = None,
    max_line: "Optional[int]" = None,
    block_size: "Optional[int]" = None,
) -> "Iterator[Tuple[int, bytearray, int, int]]":
    """``(offset, buf, begin, end)``: ``buf[begin:end]`` holds whole lines of ``f`` (a torn
    last line at the end included) beginning at file ``offset``; ``buf`` is reused, so
    read it before the next step. The lines are those that begin in ``[start, stop)``
    (``stop`` None: the end, however far the file grew), so ranges cut anywhere share out
    the lines exactly once. A line over ``max_line`` bytes is read past, never held."""
    max_line = MAX_LINE_BYTES if max_line is None else max_line
    block_size = max(1, min(BLOCK_SIZE if block_size is None else block_size, max_line))
    read_into = reader(f)
    buf = bytearray(block_size)
    pos = _first_line_start(read_into, buf, start, block_size)  # the next byte to read
    if pos is None or (stop is not None and pos >= stop):
        return
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
        if skipping:  # kept == 0: drop bytes up to the long line's newline
            begin = buf.find(b"\n", 0, end) + 1
            if not begin:
                continue
            skipping = False
            if stop is not None and base + begin >= stop:
                return
        last = buf.rfind(b"\n", max(begin, kept), end)
        if last < 0:
            kept, skipping = _carry(buf, begin, end, max_line)
            continue
        if kept:
            first = buf.find(b"\n", kept, end)
            if first - begin > max_line:  # the carried line ends here, too long
                begin = first + 1
        if begin <= last:
            at = base + begin
            if stop is not None and at + last + 1 - begin > stop:
                if at < stop:  # the lines that begin before stop, up to the one holding byte stop - 1
                    yield at, buf, begin, buf.find(b"\n", begin + stop - 1 - at, last + 1) + 1
                return
            yield at, buf, begin, last + 1
        kept, skipping = _carry(buf, last + 1, end, max_line)
    if kept and not skipping and (stop is None or pos - kept < stop):
        yield pos - kept, buf, 0, kept


def line_bounds(buf: "bytes | bytearray", begin: int, end: int) -> "Iterator[Tuple[int, int]]":
    """``(start, stop)`` of each line in ``buf[begin:end]``, its newline excluded."""
    pos = begin
    while pos < end:
        stop = buf.find(b"\n", pos, end)
        if stop < 0:
            stop = end
        yield pos, stop
        pos = stop + 1


def line_around(buf: "bytes | bytearray", at: int, begin: int, end: int) -> "Tuple[int, int]":
    """``(start, stop)`` of the line in ``buf[begin:end]`` that holds position ``at``."""
    start = buf.rfind(b"\n", begin, at) + 1
    stop = buf.find(b"\n", at, end)
    return (start if start > begin else begin), (end if stop < 0 else stop)


def chunk_lines(chunk_iter) -> "Iterator[Tuple[int, bytes]]":
    """``(offset, raw)`` of every line in ``iter_chunks``' chunks, a copy without its newline."""
    for at, buf, begin, end in chunk_iter:
        with memoryview(buf) as view:  # released before the buffer may grow
            for start, stop in line_bounds(buf, begin, end):
                yield at + start - begin, bytes(view[start:stop])
