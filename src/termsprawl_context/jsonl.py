"""Streaming readers for JSON Lines files, forward and backward.

This layer knows bytes, lines and JSON objects, nothing of Claude Code. Files on this
beat are hundreds of MB, appended to while we read, and may end in a torn line, hold
invalid UTF-8, NUL bytes or a single 2 GB line with no newline at all; so nothing here
reads a whole file, nothing here holds more than ``MAX_LINE_BYTES`` of one line, and
nothing here raises on content: a line that is not a JSON object parses to None.

A line longer than ``MAX_LINE_BYTES`` is unreadable: the readers stream past it one
block at a time and yield it with empty ``raw`` (so numbers and offsets stay true and it
parses to None, like any junk line). ``parse_object`` also declines a line whose parse
would cost more than ``PARSE_BUDGET_BYTES`` (a dense run of tiny values expands 20-30
times in Python objects), so one line never costs a reader more than that budget.
"""

from __future__ import annotations

import json
import os
import stat
from collections import namedtuple

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import BinaryIO, Iterator, List, Optional, Tuple, Union  # noqa: F401 (also used in type comments, which ruff does not read)

# Backward reads go in blocks of this size: big enough that a typical tail (a few
# dozen turns) costs a handful of reads, small enough to stay far below any RSS bound.
BLOCK_SIZE = 1 << 16

# The longest line any reader holds. Real records reach a few MiB (pasted images, long
# tool results); the harness's own readers stop at 10-16 MiB. Kept lower so that the
# line, its decoded text and its parsed value fit far below the 64 MB peak RSS bound.
MAX_LINE_BYTES = 8 * 1024 * 1024
# Skipping an oversized line reads in blocks this large: fewer reads, still bounded.
SKIP_BLOCK_SIZE = 1 << 20
# What one line's parse may cost: its decoded text twice (the text, and the strings
# parsed out of it) plus an estimate per value (below). Real lines cost about 3x their
# length; a dense array of tiny values would cost 30x.
PARSE_BUDGET_BYTES = 40 * 1024 * 1024
# Lines shorter than this cannot exceed the budget whatever they hold (30 x 64 KiB).
_DENSITY_CHECK_FROM = 64 * 1024
# Estimated bytes per parsed value, by the character that introduces it: a comma (one
# more element or member), an array, an object (CPython's sizes, rounded up).
_COMMA_COST = 64
_ARRAY_COST = 72
_OBJECT_COST = 240

# O_NONBLOCK lets us open a FIFO without waiting for a writer, so fstat can refuse it;
# it has no effect on reads of regular files. Absent on Windows, where FIFOs are not
# files on a path anyway.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


# ``json.loads``'s own C scanner, called directly. ``loads`` wraps it in a whitespace
# regex before and after the value and a type check: about 3 of the 8 microseconds a
# typical 500-byte record costs. The text is stripped first, so "the value ends where
# the text ends" is the test ``loads`` makes (JSON's whitespace is str.strip's too).
_scan_value = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # set in __init__, untyped in typeshed


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
    recursion guard is junk like any other; so is a line longer than ``MAX_LINE_BYTES``
    or one whose parse would cost more than ``PARSE_BUDGET_BYTES``.
    """
    if len(raw) > MAX_LINE_BYTES:
        return None
    text = raw.decode("utf-8", "replace") if isinstance(raw, (bytes, bytearray)) else raw
    text = text.strip()
    if not text:
        return None
    if text[0] != "{":  # after the strip, only an object can open with its brace
        return None
    if len(text) >= _DENSITY_CHECK_FROM and not affordable(text):
        return None
    try:
        value, end = _scan_value(text, 0)
    except (StopIteration, ValueError, RecursionError):
        return None
    return value if end == len(text) and isinstance(value, dict) else None


def parse_cost(text: str) -> int:
    """An upper estimate of the bytes ``json.loads(text)`` holds at its peak."""
    import sys

    values = text.count(",") * _COMMA_COST + text.count("[") * _ARRAY_COST + text.count("{") * _OBJECT_COST
    return 2 * sys.getsizeof(text) + values


def affordable(text: str, budget: int = PARSE_BUDGET_BYTES) -> bool:
    """``text`` can be parsed within ``budget`` bytes (see ``parse_cost``)."""
    return parse_cost(text) <= budget


def _refuse_constant(name: str) -> None:
    # NaN and Infinity are Python's extension, not JSON; a file re-dumped with them
    # would no longer be JSON, and a payload holding them was not written by a harness.
    raise ValueError("%s is not valid JSON" % name)


def loads_strict(text: str, **options) -> object:
    """``json.loads`` that refuses NaN and Infinity (ValueError; RecursionError when
    nested too deeply). For documents we validate or rewrite, not transcript lines,
    which ``parse_object`` reads as leniently as the harness's readers do. ``options``
    go to ``json.loads`` (``parse_float``, ``object_pairs_hook``, ...)."""
    return json.loads(text, parse_constant=_refuse_constant, **options)


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


def _physical_lines(f: BinaryIO, max_line: int, skip: bool) -> Iterator[Tuple[int, int, Optional[bytes]]]:
    """``(number, offset, raw)`` of each line from the current position; ``raw`` is None
    for a line longer than ``max_line`` bytes, which is never held: with ``skip`` it is
    streamed past in bounded blocks and reading goes on, else reading stops there."""
    number = 0
    offset = f.tell()
    readline = f.readline
    while True:
        chunk = readline(max_line + 1)
        if not chunk:
            return
        number += 1
        size = len(chunk)
        raw = None  # type: Optional[bytes]
        if chunk.endswith(b"\n"):
            raw = chunk[:-1]
            chunk = b""  # the slice is a copy: let the line be held once, not twice
        elif size <= max_line:
            raw = chunk  # a last line without a newline
        elif not skip:
            yield number, offset, None
            return
        else:
            chunk = b""  # drop the held part before streaming past the rest
            while True:
                piece = readline(SKIP_BLOCK_SIZE)
                size += len(piece)
                if not piece or piece.endswith(b"\n"):
                    break
        yield number, offset, raw
        offset += size


def iter_lines(f: BinaryIO, max_line: int = MAX_LINE_BYTES) -> Iterator[Line]:
    """Yield every physical line from the file's current position to its end.

    Lines end at b"\\n" only: U+2028, U+0085 or a lone b"\\r" inside a line are data.
    A last line without a newline (a torn write) is yielded like any other. A line
    longer than ``max_line`` bytes is never held: it is read past in bounded blocks and
    yielded with ``raw == b""``.
    """
    for number, offset, raw in _physical_lines(f, max_line, skip=True):
        yield Line(number, offset, b"" if raw is None else raw)


def line_numbers(f: BinaryIO, offsets: "List[int]", block_size: int = BLOCK_SIZE * 16) -> "dict":
    """``{offset: 1-based line number}`` for line-start ``offsets``: one forward count
    of the newlines before the largest of them, in blocks (the lines themselves are
    never split). An offset past the end of the file is left out."""
    wanted = sorted(set(o for o in offsets if o >= 0))
    numbers = {}
    if not wanted:
        return numbers
    f.seek(0)
    buf = bytearray(block_size)
    newlines = pos = i = 0
    with memoryview(buf) as view:
        while i < len(wanted):
            got = f.readinto(view)  # type: ignore[attr-defined]
            if not got:
                break
            end = pos + got
            while i < len(wanted) and wanted[i] <= end:
                numbers[wanted[i]] = newlines + buf.count(b"\n", 0, wanted[i] - pos) + 1
                i += 1
            newlines += buf.count(b"\n", 0, got)
            pos = end
    return numbers


def iter_lines_reverse(
    f: BinaryIO, end: Optional[int] = None, block_size: int = BLOCK_SIZE, max_line: int = MAX_LINE_BYTES
) -> Iterator[Tuple[int, bytes]]:
    """Yield ``(offset, raw)`` for each line from the last to the first.

    ``end`` defaults to the file's size when called, so bytes appended while we read
    are not seen: the answer is the file as it was, never a half-written line from
    after that instant. Line numbers are unknown from the end, so only offsets are
    given. The same lines as ``iter_lines`` are produced, in reverse order: an empty
    tail after a final newline is not a line, and a line longer than ``max_line`` is
    yielded as ``b""`` without ever being held (a tail that is one 2 GB line costs one
    block of memory, not 2 GB).
    """
    if end is None:
        end = os.fstat(f.fileno()).st_size
    pos = end
    # Pieces of the line being assembled, latest piece first: a giant line is joined
    # once, not re-copied for every block it spans. None once it is known too long.
    pending = []  # type: Optional[List[bytes]]
    held = 0
    while pos > 0:
        size = min(block_size if pending is not None else max(block_size, SKIP_BLOCK_SIZE), pos)
        pos -= size
        f.seek(pos)
        block = f.read(size)
        if len(block) != size:
            return  # the file shrank under us: what we have not read is gone
        cut = block.rfind(b"\n")
        if cut < 0:
            if pending is not None:
                held += size
                if held > max_line:
                    pending = None
                else:
                    pending.append(block)
            continue
        start = pos + cut + 1
        if start != end:
            tail = block[cut + 1:]
            if pending is None or held + len(tail) > max_line:
                yield start, b""
            else:
                pending.append(tail)
                pending.reverse()
                yield start, b"".join(pending)
        parts = block[:cut].split(b"\n")
        line_end = pos + cut
        for i in range(len(parts) - 1, 0, -1):
            part = parts[i]
            line_end -= len(part)
            yield line_end, part if len(part) <= max_line else b""
            line_end -= 1
        pending = [parts[0]]
        held = len(parts[0])
    if end > 0:
        # What is left is the file's first line, from offset 0.
        if pending is None or held > max_line:
            yield 0, b""
        else:
            pending.reverse()
            yield 0, b"".join(pending)


class LineTooLong(OSError):
    """A line reached the reader's bound: the file cannot be read as records."""


def iter_lines_bounded(f: BinaryIO, limit: int) -> Iterator[Line]:
    """``iter_lines`` with a bound on one line: a line of ``limit`` bytes or more
    (its newline not counted) raises LineTooLong once its first ``limit`` bytes are in,
    as Go's bufio.Scanner does with a buffer of ``limit`` bytes.

    At most ``limit`` bytes of one line are ever held: the bound is checked while the
    line is read, not after."""
    for number, offset, raw in _physical_lines(f, limit - 1, skip=False):
        if raw is None:
            raise LineTooLong("line %d is longer than %d bytes" % (number, limit))
        yield Line(number, offset, raw)


# --- checking a large document without building it ----------------------------------------

_SCAN_KINDS = ("string", "number", "literal", "punct")


def _scan_patterns():
    import re

    # One JSON token after optional JSON whitespace, as json.loads reads them: the start
    # of a string, a number, the three literals, punctuation.
    token = re.compile(
        rb'[ \t\r\n]*(?:(")'
        rb"|(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)"
        rb"|(true|false|null)"
        rb"|([\[\]{},:]))"
    )
    # Inside a string: what ends a run of plain bytes (any byte >= 0x80 is data, decoded
    # later with U+FFFD for invalid sequences), and the escapes JSON allows. Strings are
    # walked run by run, not matched by one pattern, whose backtracking state would
    # grow with the string (1.4 GB for a 10 MB one).
    special = re.compile(rb'["\\\x00-\x1f]')
    escape = re.compile(rb'\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})')
    # Runs of plain members, each followed by a comma: a scalar (a string without
    # escapes, a number, a literal) in an array, or ``"key": scalar`` in an object.
    # Skipping up to 4096 of them per match turns a dense 10 MiB payload from millions
    # of steps of this loop into a few thousand, with the engine's state bounded.
    scalar = rb'(?:"[^"\\\x00-\x1f]*"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null)'
    space = rb"[ \t\r\n]*"
    array_run = re.compile(rb"(?:" + space + scalar + space + rb",){1,4096}")
    object_run = re.compile(rb"(?:" + space + rb'"[^"\\\x00-\x1f]*"' + space + rb":" + space + scalar + space + rb",){1,4096}")
    return token.match, special.search, escape.match, array_run.match, object_run.match


def _string_end(data: bytes, start: int, special, escape) -> int:
    """The offset just past the string whose opening quote is at ``start``."""
    pos = start + 1
    while True:
        m = special(data, pos)
        if m is None:
            raise ValueError("unterminated string starting at byte %d" % start)
        at = m.start()
        char = data[at]
        if char == 0x22:  # the closing quote
            return at + 1
        if char == 0x5C:  # a backslash
            e = escape(data, at)
            if e is None:
                raise ValueError("invalid escape at byte %d" % at)
            pos = e.end()
            continue
        raise ValueError("invalid control character at byte %d" % at)


def _decode(token: bytes) -> object:
    return json.loads(token.decode("utf-8", "replace"))


def pick_members(data: bytes, keys: Tuple[str, ...], max_value_bytes: int = 1 << 20) -> dict:
    """Check that ``data`` is one JSON object (json.loads's grammar, NaN and Infinity
    refused) without building it, and return its top-level members named in ``keys``
    whose values are strings, numbers, booleans or null (decoded) or, for an array or
    an object, the empty value of that type (a stand-in that keeps its JSON type).

    Memory is the document's bytes plus the picked values, however dense the rest is,
    and nesting costs no recursion. Raises ValueError naming the first offending byte
    offset, as ``json.loads`` would refuse the document, and for a picked value longer
    than ``max_value_bytes`` (so that picking it cannot cost more than that)."""
    token, special, escape, array_run, object_run = _scan_patterns()
    wanted = set(keys)
    # How a wanted key is spelled in a run (runs hold no escapes): a top-level run is
    # skipped only up to the first of these, so every wanted key is seen as a key.
    spellings = [b'"' + k.encode("utf-8") + b'"' for k in keys]
    picked = {}  # type: dict
    stack = []  # type: List[str]  # "{" or "[" for each open container
    pos, size = 0, len(data)
    expect = "value"  # value | key_or_close | key | colon | comma_or_close | value_or_close
    key = None  # type: Optional[str]
    # A key longer than this cannot spell a wanted one, even fully \u-escaped.
    longest_key = 6 * max([len(k) for k in keys] or [0]) + 2
    started = False
    while True:
        if stack:
            if stack[-1] == "[" and expect in ("value", "value_or_close") and len(stack) > 1:
                run = array_run(data, pos)
                if run is not None:
                    pos, expect = run.end(), "value"
                    continue
            elif stack[-1] == "{" and expect in ("key", "key_or_close"):
                run = object_run(data, pos)
                if run is not None and len(stack) == 1:
                    # Skip only the members before the first wanted key's spelling.
                    text = run.group()
                    cut = min([text.find(sp) for sp in spellings if sp in text] or [-1])
                    if cut >= 0:
                        run = object_run(data, pos, pos + cut)
                if run is not None:
                    pos, expect = run.end(), "key"
                    continue
        m = token(data, pos)
        if m is None:
            if data[pos:].strip(b" \t\r\n"):
                raise ValueError("invalid JSON at byte %d" % (pos + len(data[pos:]) - len(data[pos:].lstrip(b" \t\r\n"))))
            break
        kind = _SCAN_KINDS[m.lastindex - 1]
        start = m.start(m.lastindex)
        if kind == "string":
            pos = _string_end(data, start, special, escape)
            text = b""  # sliced below only when it is a key or a picked value
        else:
            pos = m.end()
            text = m.group(m.lastindex)
        if started and not stack:
            raise ValueError("extra data at byte %d" % start)
        if expect in ("key", "key_or_close"):
            if kind == "string":
                if len(stack) == 1:
                    key = _decode(data[start:pos]) if pos - start <= longest_key else None  # type: ignore[assignment]
                expect = "colon"
                continue
            if text == b"}" and expect == "key_or_close":
                stack.pop()
                if len(stack) == 1 and key in wanted:
                    picked[key] = {}
                expect = "comma_or_close"
                continue
            raise ValueError("expecting a property name at byte %d" % start)
        if expect == "colon":
            if text != b":":
                raise ValueError("expecting ':' at byte %d" % start)
            expect = "value"
            continue
        if expect == "comma_or_close":
            if text == b",":
                expect = "key" if stack[-1] == "{" else "value"
                continue
            if text in (b"}", b"]") and (text == b"}") == (stack[-1] == "{"):
                stack.pop()
                if len(stack) == 1 and key in wanted:
                    picked[key] = [] if text == b"]" else {}
                expect = "comma_or_close"
                continue
            raise ValueError("expecting ',' or a closing bracket at byte %d" % start)
        # a value is expected (or, right after "[", a "]")
        if text == b"]" and expect == "value_or_close":
            stack.pop()
            if len(stack) == 1 and key in wanted:
                picked[key] = []
            expect = "comma_or_close"
            continue
        if kind == "punct" and text not in (b"{", b"["):
            raise ValueError("expecting a value at byte %d" % start)
        started = True
        if text == b"{":
            stack.append("{")
            expect = "key_or_close"
            continue
        if text == b"[":
            if not stack:
                raise ValueError("expected a JSON object, got array")
            stack.append("[")
            expect = "value_or_close"
            continue
        if not stack:
            scalar = "string" if kind == "string" else json_type_name(json.loads(text.decode("ascii")))
            raise ValueError("expected a JSON object, got %s" % scalar)
        if len(stack) == 1 and key in wanted:
            if pos - start > max_value_bytes:
                raise ValueError("%s is longer than %d bytes" % (key, max_value_bytes))
            picked[key] = _decode(data[start:pos])
        expect = "comma_or_close"
    if not started:
        raise ValueError("expecting a value at byte 0")
    if stack:
        raise ValueError("unterminated JSON at byte %d" % size)
    return picked
