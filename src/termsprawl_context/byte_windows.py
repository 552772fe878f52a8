"""Byte windows: a file's first lines and its last bytes, read in bounded, reusable buffers,
never the whole file. Bytes and newlines only; the bounds are the caller's.
"""

import io
from typing import BinaryIO, Iterator, List, NamedTuple, Optional, Union

from termsprawl_context.jsonl import iter_lines_reverse


# A window read past the head goes in blocks of this size (the head's own bound caps it).
WINDOW_BLOCK_BYTES = 1 << 16


class ReadBuffers:
    """Buffers a scan reuses for every file's head and tail: a fresh 64 KiB bytes object
    per read costs more than the read (its pages are handed back and faulted in again)."""

    def __init__(self, head_bytes: int, tail_bytes: int) -> None:
        self.head = bytearray(head_bytes)  # grown by read_head when a head needs it
        self.tail = bytearray(tail_bytes)


class HeadWindow(NamedTuple):
    """A file's first bytes (``data[:length]``) and ``ends[i]``, line i's newline (or end, if torn)."""

    data: Union[bytes, bytearray]
    ends: List[int]
    whole_file: bool  # ``data[:length]`` is the entire file
    length: int

    def line(self, index: int) -> bytes:
        start = self.ends[index - 1] + 1 if index else 0
        return bytes(self.data[start : self.ends[index]])

    def lines(self) -> List[bytes]:
        return [self.line(i) for i in range(len(self.ends))]


def read_head(
    f: BinaryIO, size: int, max_lines: int, max_bytes: int, block_bytes: int, buffer: Optional[bytearray] = None
) -> HeadWindow:
    """The first lines of ``f`` (``size`` bytes), read in blocks up to the ``max_lines``-th
    newline, ``max_bytes`` or the end (into ``buffer``, grown). A line not ending within the
    bound is not in the head; an unterminated one counts only at the file's end."""
    buf = buffer if buffer is not None else bytearray(block_bytes)
    f.seek(0)
    ends: List[int] = []
    append, find = ends.append, buf.find  # bound once: this loop runs once a line
    need = max_lines
    total = 0
    at_end = False
    while total < max_bytes and need:
        want = min(block_bytes, max_bytes - total)
        if len(buf) < total + want:
            buf.extend(bytes(total + want - len(buf)))  # never beyond max_bytes
        with memoryview(buf) as view, view[total : total + want] as part:
            got = f.readinto(part) or 0  # type: ignore[attr-defined]
        stop = total + got
        cut = find(b"\n", total, stop)
        while cut >= 0:
            append(cut)
            need -= 1
            if not need:
                break
            cut = find(b"\n", cut + 1, stop)
        total = stop
        if got < want:
            at_end = True
            break
    at_end = at_end or total >= size
    last_end = ends[-1] + 1 if ends else 0
    if at_end and need and last_end < total:
        ends.append(total)
    return HeadWindow(buf, ends, at_end, total)


def iter_lines_within(f: BinaryIO, leftover: Union[bytes, bytearray], start: int, limit: int) -> Iterator[bytes]:
    """The lines of ``f`` from ``start`` (after ``leftover``) ending before ``limit``; a torn last counts."""
    pending = bytes(leftover)
    pos = start
    f.seek(start)
    while pos < limit:
        block = f.read(min(WINDOW_BLOCK_BYTES, limit - pos))
        if not block:
            if pending:
                yield pending  # the file ends without a newline: a torn last line
            return
        pos += len(block)
        data = pending + block if pending else block
        begin = 0
        while True:
            cut = data.find(b"\n", begin)
            if cut < 0:
                break
            yield data[begin:cut]
            begin = cut + 1
        pending = data[begin:]


class TailWindow(NamedTuple):
    """A file's last bytes (all of it when smaller): ``data[start:end]``."""

    data: Union[bytes, bytearray]
    cut: bool  # the window starts inside the file: its first line is not whole
    start: int = 0
    end: Optional[int] = None  # None: len(data)

    def stop(self) -> int:
        return len(self.data) if self.end is None else self.end

    def first_whole_line(self) -> int:
        """Offset of the window's first whole line; ``stop()`` when it has none."""
        if not self.cut:
            return self.start
        newline = self.data.find(b"\n", self.start, self.stop())
        return self.stop() if newline < 0 else newline + 1

    def lines_last_first(self) -> Iterator[bytes]:
        """The window's whole lines, last first, split by the reverse line reader."""
        body = bytes(self.data[self.first_whole_line() : self.stop()])
        for _, raw in iter_lines_reverse(io.BytesIO(body), end=len(body)):  # type: ignore[arg-type]
            yield raw


def read_tail(f: BinaryIO, size: int, max_bytes: int, buffer: Optional[bytearray] = None) -> TailWindow:
    """The last ``max_bytes`` of a file of ``size`` bytes, in one read."""
    start = max(0, size - max_bytes)
    want = size - start
    buf = buffer if buffer is not None else bytearray(want)
    f.seek(start)
    with memoryview(buf) as view, view[:want] as part:
        got = f.readinto(part) or 0  # type: ignore[attr-defined]
    return TailWindow(buf, start > 0, 0, got)


def tail_of_head(window: HeadWindow, max_bytes: int) -> TailWindow:
    """The last ``max_bytes`` of a file the head read whole, without reading it again."""
    start = max(0, window.length - max_bytes)
    return TailWindow(window.data, start > 0, start, window.length)
