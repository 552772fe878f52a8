"""Streaming readers for JSON Lines files, forward and backward, nothing of any harness.
Files are hundreds of MB, appended to while read, may end torn or hold invalid UTF-8, NUL
bytes or one 2 GB line: nothing reads a whole file or holds more than ``MAX_LINE_BYTES``.

One bound and one cost model (``readable``) for every reader, two policies. Fail open
(``iter_lines``, ``iter_lines_reverse``, ``parse_object``): an unreadable line is streamed
past and yielded with empty ``raw`` (numbers and offsets stay true). Fail closed
(``iter_lines_strict``): it is a ``LineTooLong`` error.
"""

from __future__ import annotations

import os
import stat

from termsprawl_context import plain_tuple

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import BinaryIO, Iterator, List, NamedTuple, Optional, Tuple, Union  # noqa: F401 (also used in type comments, which ruff does not read)

    class Line(NamedTuple):
        """A physical line: 1-based number, first byte's offset, bytes without the newline (a CR kept)."""

        number: int
        offset: int
        raw: bytes
else:
    Line = plain_tuple("Line", "number offset raw")


# Backward reads' block: a typical tail (a few dozen turns) costs a handful of reads.
BLOCK_SIZE = 1 << 16

# The one bound on a line, for every reader: the Go reference's (its scanner's 16 MiB
# buffer holds a line one byte shorter), so the fail-closed readers refuse what it refuses;
# the cost model below keeps a line that fits within the 64 MB peak RSS bound.
MAX_LINE_BYTES = (16 << 20) - 1
# Skipping an oversized line reads in blocks this large: fewer reads, still bounded.
SKIP_BLOCK_SIZE = 1 << 20

# The one cost model: what decoding and parsing a line would hold at once (``decode_cost``).
# A line costing more is unreadable like one over the bound. The budget is the 64 MB bound
# less the interpreter, the package and a command's copies (measured: `cite` on a plain
# 11 MiB record peaks at 58 MB): a plain ASCII line of about 11 MiB is read, a dense run of
# tiny values (20-30 times its length in Python objects) far less.
DECODE_BUDGET_BYTES = 34 * 1024 * 1024
# Estimated bytes per parsed value by the character introducing it (CPython's sizes, rounded up).
_COMMA_COST = 64
_ARRAY_COST = 72
_OBJECT_COST = 240
# Lines shorter than this cannot pass the budget whatever they hold: only longer ones are costed.
COST_CHECK_FROM = DECODE_BUDGET_BYTES // (1 + 4 + 4 + _OBJECT_COST)
_NOT_VALUE_MARKS = bytes(range(256)).translate(None, b",[{")  # translate, not a generator: built at every start
_FOUR_BYTE_LEADS = tuple(bytes([b]) for b in range(0xF0, 0x100))  # and the invalid bytes past them

# O_NONBLOCK opens a FIFO without waiting for a writer, so fstat can refuse it (no effect
# on regular files; absent on Windows, where FIFOs are not files on a path).
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


# ``json.loads``'s own C scanner, called directly: ``loads``'s whitespace regexes and type
# check cost about 3 of the 8 microseconds of a typical 500-byte record. Made from ``_json``
# with loads's defaults, not a JSONDecoder: the json package imports re, a third of the
# dump's start-up.
class _LoadsSettings(object):
    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__


try:
    from _json import make_scanner as _make_scanner
except ImportError:  # an interpreter built without the C accelerator
    import json

    _scan_value = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # set in __init__, untyped in typeshed
else:
    _scan_value = _make_scanner(_LoadsSettings())  # type: ignore[arg-type]  # typeshed wants a JSONDecoder; the scanner reads only these attributes


def open_regular(path: Union[str, bytes, "os.PathLike"]) -> BinaryIO:
    """``path`` open for binary reading if it is a regular file, else OSError; checked on
    the opened descriptor, so a file swapped for a FIFO cannot make a reader block."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except (ValueError, TypeError) as exc:  # an embedded NUL, a non-path object
        raise FileNotFoundError(str(exc)) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            from termsprawl_context.errors import NotARegularFile  # the dump's path loads errors.py only to raise

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


def read_within_bound(f: BinaryIO) -> bytes:
    """The rest of ``f``, or ``b""`` when longer than a line may be (``MAX_LINE_BYTES``)."""
    data = f.read(MAX_LINE_BYTES + 1)
    return data if len(data) <= MAX_LINE_BYTES else b""


def parse_object(raw: Union[bytes, str]) -> Optional[dict]:
    """The JSON object on one line, or None (blank, junk, a non-object, nesting past the
    recursion guard, unreadable). Invalid UTF-8 becomes U+FFFD, not the line's loss."""
    if len(raw) >= COST_CHECK_FROM and not readable(raw):
        return None
    return parse_object_text(raw.decode("utf-8", "replace") if isinstance(raw, (bytes, bytearray)) else raw)


def parse_object_text(text: str) -> Optional[dict]:
    """``parse_object`` of text whose bytes passed ``readable`` (U+FFFD: 3 bytes, the line's 1)."""
    text = text.strip()  # JSON's whitespace is str.strip's: the value must end where the text does
    if not text:
        return None
    if text[0] != "{" or text[-1] != "}":  # after the strip, only an object opens and ends so
        return None  # (and a torn line costs no scan: a scan's error imports json, and re)
    try:
        value, end = _scan_value(text, 0)
    except (StopIteration, ValueError, RecursionError, SystemError):
        # SystemError: CPython 3.8-3.11's C scanner raises its JSONDecodeError by looking
        # json.decoder up in sys.modules, without importing it; before anything imported it
        # (the dump never does), a malformed value surfaces as "returned NULL without setting
        # an exception" instead. It is the same junk line.
        return None
    return value if end == len(text) and isinstance(value, dict) else None


def _text_width(raw: Union[bytes, bytearray]) -> int:
    """Bytes a character of ``raw``'s text takes in CPython: 1 ASCII, 4 if a byte could open
    a 4-byte sequence (or is invalid past one), else 2."""
    if raw.isascii():
        return 1
    return 4 if any(lead in raw for lead in _FOUR_BYTE_LEADS) else 2


def _values_cost(raw: Union[bytes, bytearray]) -> int:
    marks = raw.translate(None, _NOT_VALUE_MARKS)
    return marks.count(b",") * _COMMA_COST + marks.count(b"[") * _ARRAY_COST + marks.count(b"{") * _OBJECT_COST


def decode_cost(raw: Union[bytes, bytearray]) -> int:
    """An upper estimate of what decoding ``raw`` holds at once: the line, its text, the
    strings parsed out (as wide as the widest a ``\\u`` escape spells), a cost per value."""
    width = _text_width(raw)
    return len(raw) * (1 + width + escaped_width(raw, width)) + _values_cost(raw)


def escaped_width(raw: bytes, width: int) -> int:
    """The widest character (1, 2 or 4 bytes) the strings parsed out of ``raw`` may hold,
    ``width`` its text's: escapes spell up to U+FFFF, or beyond as a surrogate pair."""
    if b"\\u" not in raw:
        return width
    lowered = raw.lower()
    if any(escape in lowered for escape in (b"\\ud8", b"\\ud9", b"\\uda", b"\\udb")):  # a surrogate's
        return 4
    return max(width, 2)


def readable(raw: Union[bytes, bytearray, str]) -> bool:
    """Whether a line is within the bound and the cost model (a ``str`` costed as its UTF-8);
    escapes are looked for only when the widest strings they spell would pass the budget."""
    if len(raw) < COST_CHECK_FROM:
        return True
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogatepass")
    if len(raw) > MAX_LINE_BYTES:
        return False
    if raw.lstrip(b" \t\r\n")[:1] not in (b"{", b"[", b'"'):
        return True  # no value parsing would build: it fails at its first byte, having cost only its text
    base = len(raw) * (1 + _text_width(raw)) + _values_cost(raw)
    return base + 4 * len(raw) <= DECODE_BUDGET_BYTES or decode_cost(raw) <= DECODE_BUDGET_BYTES


def _refuse_constant(name: str) -> None:
    # NaN and Infinity are Python's, not JSON: no harness writes them, and re-dumped they are not JSON.
    raise ValueError("%s is not valid JSON" % name)


def loads_strict(text: str, **options) -> object:
    """``json.loads(text, **options)`` refusing NaN and Infinity (ValueError)."""
    import json

    return json.loads(text, parse_constant=_refuse_constant, **options)


def json_type_name(value: object) -> str:
    """The JSON name of a decoded value's type, for messages (bool before int: it is one)."""
    return next((name for kind, name in _JSON_TYPES if isinstance(value, kind)), "object")


_JSON_TYPES = ((type(None), "null"), (bool, "boolean"), ((int, float), "number"), (str, "string"), (list, "array"))


def _physical_lines(f: BinaryIO, max_line: int, skip: bool) -> Iterator[Tuple[int, int, Optional[bytes]]]:
    """``(number, offset, raw)`` of each line from here; ``raw`` None for a line over
    ``max_line``, never held: with ``skip`` streamed past in blocks, else reading stops."""
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
    """Every line from here, ending at b"\\n" only (U+2028, U+0085, a lone b"\\r" are
    data); a torn last line too; one over ``max_line`` is read past, ``raw == b""``."""
    for number, offset, raw in _physical_lines(f, max_line, skip=True):
        yield Line(number, offset, b"" if raw is None else raw)


def line_numbers(f: BinaryIO, offsets: "List[int]", block_size: int = BLOCK_SIZE * 16) -> "dict":
    """``{offset: 1-based line number}`` for line-start ``offsets`` (past the end: left out)."""
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


def _joined(pending: Optional[List[bytes]], held: int, max_line: int) -> bytes:
    """The line ``pending`` holds, latest piece first (emptied); ``b""`` when over ``max_line``."""
    if pending is None or held > max_line:
        return b""
    pending.reverse()
    line = b"".join(pending)
    del pending[:]
    return line


def iter_lines_reverse(
    f: BinaryIO, end: Optional[int] = None, block_size: int = BLOCK_SIZE, max_line: int = MAX_LINE_BYTES
) -> Iterator[Tuple[int, bytes]]:
    """``(offset, raw)`` of ``iter_lines``'s lines, last first. ``end`` defaults to the size
    at the call (a line appended meanwhile is not seen). A line over ``max_line`` is
    ``b""``, never held: a tail that is one 2 GB line costs a block of memory."""
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
            held += size
            if pending is not None and held > max_line:
                pending = None
            elif pending is not None:
                pending.append(block)
            continue
        start = pos + cut + 1
        if start != end:
            tail = block[cut + 1 :]
            if pending is not None:
                pending.append(tail)
            yield start, _joined(pending, held + len(tail), max_line)
        # rfind, not split: split tests every byte of the block in a plain loop (a tenth of
        # a 1 MB peer's dump); rfind jumps from newline to newline.
        prev = block.rfind(b"\n", 0, cut)
        while prev >= 0:
            yield pos + prev + 1, block[prev + 1 : cut] if cut - prev - 1 <= max_line else b""
            cut = prev
            prev = block.rfind(b"\n", 0, cut)
        pending = [block[:cut]]
        held = cut
    if end > 0:
        yield 0, _joined(pending, held, max_line)  # what is left is the file's first line


def iter_lines_strict(f: BinaryIO) -> Iterator[Line]:
    """``iter_lines`` failing closed: an unreadable line raises LineTooLong, a long one once
    its first ``MAX_LINE_BYTES + 1`` bytes are in (Go's bufio.Scanner's buffer)."""
    from termsprawl_context.errors import LineTooLong

    for number, offset, raw in _physical_lines(f, MAX_LINE_BYTES, skip=False):
        if raw is None:
            raise LineTooLong("line %d is longer than %d bytes" % (number, MAX_LINE_BYTES + 1))
        if not readable(raw):
            raise LineTooLong("line %d would take more than %d bytes to decode" % (number, DECODE_BUDGET_BYTES))
        yield Line(number, offset, raw)
