"""The one byte prefilter: which lines, or which files, may hold the tokens a caller needs.

A caller that wants the entries whose JSON holds some ASCII token (a uuid, a key, a
type's value) searches bytes before it parses: a line whose bytes hold none of the
tokens cannot hold them once parsed, with one exception, the escape rule written here
once: JSON lets any character be written ``\\u00XX``, so an escape of a printable ASCII
character (``\\u0020``-``\\u007f``) may spell one of a token's characters and hide it
from a byte search. A line (or a file) holding such an escape is a candidate too. The
harness never writes one (JSON.stringify escapes only control characters and lone
surrogates), so the rule costs nothing on real transcripts and keeps every answer exact.

Tokens that are not plain ASCII (where a byte search would have to know every UTF-8
and escaped spelling) give no needles: every line is a candidate.

This layer knows bytes only, nothing of any harness. ``re`` is imported on first use.
"""

from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import BinaryIO, Iterable, Iterator, List, Optional, Union


# The bytes every escape of a character below U+0100 starts with: a literal find of it
# is several times faster than the regex, and rules out most chunks at once.
ESCAPE_PREFIX = b"\\u00"
# An escape that spells a printable ASCII character (0x20-0x7f), in any hex case.
ASCII_ESCAPE = rb"\\u00[2-7][0-9a-fA-F]"
ESCAPE_LENGTH = 6  # the bytes one such escape spans
# A token's bytes are JSON text ('"user"' holds the quotes of the syntax): printable
# ASCII that a writer may spell otherwise only by the escape rule. A backslash starts an
# escape and "/" may be written "\\/": a token holding either has no plain spelling.
_PLAIN = frozenset(c for c in range(0x20, 0x7F) if c not in b"\\/")
# A string value's bytes inside its quotes: a quote in it is written escaped too.
_PLAIN_VALUE = _PLAIN - frozenset(b'"')

_pattern = None


def ascii_escape_pattern():
    """``ASCII_ESCAPE`` compiled (once, on first use)."""
    global _pattern
    if _pattern is None:
        import re

        _pattern = re.compile(ASCII_ESCAPE)
    return _pattern


def has_ascii_escape(data: "Union[bytes, bytearray]", start: int = 0, end: "Optional[int]" = None) -> bool:
    """Whether ``data[start:end]`` holds an escape that spells printable ASCII."""
    end = len(data) if end is None else end
    return data.find(ESCAPE_PREFIX, start, end) >= 0 and ascii_escape_pattern().search(data, start, end) is not None


def _plain_bytes(token: "Union[str, bytes]", allowed: "frozenset" = _PLAIN) -> "Optional[bytes]":
    raw = token.encode("utf-8", "surrogatepass") if isinstance(token, str) else bytes(token)
    return raw if raw and all(c in allowed for c in raw) else None


class Needles(namedtuple("Needles", "tokens plain")):
    """The tokens a caller needs (``tokens``) and the bytes a search looks for
    (``plain``: their ASCII spellings, or None when a token has none and every line
    is a candidate). Their escaped spellings are the escape rule's: any line holding an
    ASCII-spelling escape."""

    __slots__ = ()

    @classmethod
    def of(cls, tokens: "Iterable[Union[str, bytes]]") -> "Needles":
        """Needles for fragments of JSON text as a writer emits them (``b'"user"'``,
        whose quotes are the syntax's)."""
        tokens = tuple(tokens)
        plain = tuple(_plain_bytes(t) for t in tokens)
        return cls(tokens, None if None in plain else plain)

    @classmethod
    def for_values(cls, values: "Iterable[Union[str, bytes]]") -> "Needles":
        """Needles for string values (a uuid, a session id): what stands between their
        quotes, where a quote of their own would be escaped."""
        values = tuple(values)
        plain = tuple(_plain_bytes(v, _PLAIN_VALUE) for v in values)
        return cls(values, None if None in plain else plain)

    @classmethod
    def longest_run(cls, text: str, minimum: int, excluded: bytes = b"") -> "Needles":
        """Needles for the longest run of ``text``'s bytes that a JSON string writes as
        themselves (not ``"``, ``\\``, ``/``), none of them in ``excluded`` (first longest on ties): a test that
        any text holding ``text`` passes. No needles (every line a candidate) when the
        run is shorter than ``minimum``."""
        allowed = _PLAIN_VALUE - frozenset(excluded)
        data = text.encode("utf-8", "surrogatepass")
        best, start = b"", -1
        for i in range(len(data) + 1):
            plain = i < len(data) and data[i] in allowed
            if plain and start < 0:
                start = i
            elif not plain and start >= 0:
                if i - start > len(best):
                    best = data[start:i]
                start = -1
        return cls((text,), (best,) if best and len(best) >= minimum else None)

    @property
    def longest(self) -> int:
        return max((len(p) for p in self.plain or ()), default=0)

    def in_line(self, raw: "Union[bytes, bytearray]") -> bool:
        """Whether the line ``raw`` may hold a token once parsed."""
        plain = self.plain
        if plain is None:
            return True
        if len(raw) > FIND_WINDOW:
            if self.plainly_in(raw):
                return True
        else:
            for p in plain:  # a loop, not any(): this runs on every line of a search
                if p in raw:
                    return True
        return bool(plain) and has_ascii_escape(raw)

    def plainly_in(self, data: "Union[bytes, bytearray]", start: int = 0, end: "Optional[int]" = None) -> bool:
        """Whether a token's plain bytes are in ``data[start:end]`` (no escape rule)."""
        end = len(data) if end is None else end
        return any(finds(data, p, start, end) for p in self.plain or ())


# CPython (3.10 on) searches a span of 30,000 bytes or more for a needle of 6 to 99 bytes
# with its two-way algorithm, several times slower on JSON text than the skip search it
# runs on a shorter span (a 16-byte needle in a 512 KiB transcript: 9x, Debian's 3.11):
# such a span is searched in windows just under that size.
FIND_WINDOW = 29000
_WINDOWED = range(6, 100)


def finds(data: "Union[bytes, bytearray]", needle: bytes, start: int = 0, end: "Optional[int]" = None) -> bool:
    """Whether ``needle`` is in ``data[start:end]``: ``data.find``, in windows of
    ``FIND_WINDOW`` bytes (overlapping by the needle's length less one) where that is
    faster."""
    end = len(data) if end is None else end
    if len(needle) not in _WINDOWED or end - start <= FIND_WINDOW:
        return data.find(needle, start, end) >= 0
    reach = len(needle) - 1
    for at in range(start, end, FIND_WINDOW):
        if data.find(needle, at, min(end, at + FIND_WINDOW + reach)) >= 0:
            return True
    return False


# Chunks of a file search: large enough that a find runs at memory speed, bounded so a
# search holds one chunk (and a carry) whatever the file.
CHUNK_BYTES = 4 << 20
# What a chunk keeps of the one before: enough for a token or an escape split by the
# chunk edge; a longer token falls back to joining.
CARRY_BYTES = 64


def scan_buffer(chunk: int = CHUNK_BYTES) -> bytearray:
    """A reusable buffer for ``file_may_hold``: one chunk and the carry before it."""
    return bytearray(CARRY_BYTES + chunk)


def carry_over(buffer: bytearray, end: int, overlap: int) -> int:
    """Move the last ``overlap`` bytes before ``end`` to the front; how many moved."""
    keep = min(overlap, end)
    if keep:
        buffer[0:keep] = buffer[end - keep : end]
    return keep


def file_may_hold(f: "BinaryIO", needles: Needles, escapes: bool = True, buffer: "Optional[bytearray]" = None) -> bool:
    """Whether the rest of ``f`` holds a token's plain bytes, or (with ``escapes``) an
    ASCII-spelling escape, searched in overlapped chunks and stopping at the first
    found. Read, not mapped: a file truncated under a mapping kills the process
    (SIGBUS). ``escapes=False`` is for a file already known to hold no escape."""
    if needles.plain is None:
        return True
    if not needles.plain:
        return False
    return _search_file(f, needles, escapes, buffer)


def file_holds_ascii_escape(f: "BinaryIO", buffer: "Optional[bytearray]" = None) -> bool:
    """Whether the rest of ``f`` holds an ASCII-spelling escape (as ``file_may_hold``
    searches): in a file that holds none, a token's plain bytes are its only spelling,
    so a line test there needs no escape rule."""
    return _search_file(f, Needles((), ()), True, buffer)


def _search_file(f: "BinaryIO", needles: Needles, escapes: bool, buffer: "Optional[bytearray]") -> bool:
    overlap = max(needles.longest, ESCAPE_LENGTH if escapes else 0) - 1
    chunk = CHUNK_BYTES
    if buffer is None or overlap > CARRY_BYTES:
        return _may_hold_joined(f, needles, escapes, overlap, chunk)
    view = memoryview(buffer)
    chunk = len(buffer) - CARRY_BYTES
    have = 0
    try:
        while True:
            got = f.readinto(view[have : have + chunk])  # type: ignore[attr-defined]  # a binary file opened for reading has it
            if not got:
                return False
            end = have + got
            if needles.plainly_in(buffer, 0, end) or (escapes and has_ascii_escape(buffer, 0, end)):
                return True
            have = carry_over(buffer, end, overlap)
    finally:
        view.release()


def _may_hold_joined(f: "BinaryIO", needles: Needles, escapes: bool, overlap: int, chunk: int) -> bool:
    """``file_may_hold`` without a buffer: each chunk, and the window joining its start
    to the end of the one before."""
    tail = b""
    while True:
        data = f.read(chunk)
        if not data:
            return False
        for part in (data, tail + data[:overlap]):
            if needles.plainly_in(part) or (escapes and has_ascii_escape(part)):
                return True
        tail = data[-overlap:] if overlap > 0 else b""


# --- escapes in lowercased text (a case-insensitive search) -----------------------------

# The only characters outside ASCII whose ``str.lower`` holds ASCII (checked over all of
# Unicode by the tests): a text holding them can match an ASCII needle.
LOWER_TO_ASCII = ("\u0130", "\u212a")
# What a case-insensitive prefilter must also look for, besides its needle's bytes:
ESCAPES_ASCII = "ascii"  # an escape spelling printable ASCII
ESCAPES_ASCII_FOLDED = "ascii+folded"  # that, or a spelling of a LOWER_TO_ASCII character
ESCAPES_ANY = "any"  # any escape but a control character's (for non-ASCII needles)
# The bytes every JSON escape starts with.
ANY_ESCAPE = b"\\u"
_folded_res = None


def _escape_finders() -> dict:
    """Each kind's looks, compiled on first use: (gate, regex, shift). Each look is one
    regex with a literal prefix, which the regex engine scans by stopping at each
    occurrence of its first byte (an alternation without a common prefix would cost it
    every position). The regex runs only from the gate's first occurrence (no gate: from
    the start), and a match at ``m.start()`` is an escape at ``m.start() - shift``. For
    ASCII the regex starts at the escape's ``00``: ``0`` is rarer in JSON than the
    backslash or ``u``, so this one pass (measured) beats a find of ``u00`` and a regex
    from there."""
    global _folded_res
    if _folded_res is None:
        import re

        _folded_res = {
            ESCAPES_ASCII: ((None, re.compile(rb"00[2-7](?<=\\u00[2-7])"), 2),),
            ESCAPES_ASCII_FOLDED: ((ANY_ESCAPE, re.compile(rb"\\u(?:00[2-7]|0130|212a)"), 0),)
            + tuple((b, re.compile(re.escape(b)), 0) for b in (c.encode("utf-8") for c in LOWER_TO_ASCII)),
            ESCAPES_ANY: ((ANY_ESCAPE, re.compile(rb"\\u(?!00[01])"), 0),),
        }
    return _folded_res


def escape_positions(low: bytes, kind: str, first: int = 0, limit: "Optional[int]" = None) -> "Iterator[int]":
    """Offsets in ``low[first:limit]`` (lowercased bytes) where a needle's character may
    be spelled other than as itself, for a prefilter of ``kind``."""
    end = len(low) if limit is None else limit
    for gate, finder, shift in _escape_finders()[kind]:
        at = first
        if gate is not None:
            at = low.find(gate, first, end)
            if at < 0:
                continue
        for m in finder.finditer(low, at, end):
            yield m.start() - shift


# --- every position a JSON string may be spelled at -------------------------------------

# JSON's two-character escapes, by the character they stand for.
SHORT_ESCAPES = {
    '"': b'\\"',
    "\\": b"\\\\",
    "/": b"\\/",
    "\b": b"\\b",
    "\f": b"\\f",
    "\n": b"\\n",
    "\r": b"\\r",
    "\t": b"\\t",
}


def _letter_cases(hex_digits: bytes) -> "List[bytes]":
    """Every spelling of hex digits with its letters in either case."""
    out = [b""]
    for digit in hex_digits.decode("ascii"):
        variants = {digit.lower(), digit.upper()}
        out = [head + v.encode("ascii") for head in out for v in sorted(variants)]
    return out


class ValueSpellings:
    """Where in a file's bytes a JSON string equal to ``target`` may be.

    Such a string writes each character either as itself (its UTF-8 bytes) or as an
    escape (``\\uXXXX`` in any hex case, a surrogate pair for characters beyond U+FFFF,
    or a two-character escape). So a line holding it holds either the whole target
    unescaped between quotes, or an escape of one of its characters. Invalid UTF-8
    decodes to U+FFFD, so a target holding U+FFFD gets no filter (``usable`` False:
    every line is a candidate).
    """

    def __init__(self, target: str) -> None:
        self.usable = "\ufffd" not in target
        try:
            self.quoted = b'"' + target.encode("utf-8") + b'"'  # type: Optional[bytes]
        except UnicodeEncodeError:  # a lone surrogate: only its escape can spell it
            self.quoted = None
        codes = set()  # the 4 hex digits (lower case) of each \uXXXX that may spell a character
        prefixes = set()  # b"\\u" and the first two of those digits, in every letter case
        short = set()
        for char in set(target):
            codepoint = ord(char)
            if codepoint > 0xFFFF:  # spelled as a surrogate pair: look for its first half
                codepoint = 0xD800 + ((codepoint - 0x10000) >> 10)
            code = b"%04x" % codepoint
            codes.add(code)
            prefixes.update(ANY_ESCAPE + variant for variant in _letter_cases(code[:2]))
            if char in SHORT_ESCAPES:
                short.add(SHORT_ESCAPES[char])
        self.codes = frozenset(codes)
        self.prefixes = tuple(sorted(prefixes))
        self.short = tuple(sorted(short))

    def hits(self, data: "Union[bytes, bytearray]", begin: int = 0, end: "Optional[int]" = None) -> "List[int]":
        """Positions in ``data[begin:end]`` where a spelling of the target may be,
        ascending."""
        end = len(data) if end is None else end
        found = []
        quoted = self.quoted
        if quoted is not None:
            at = data.find(quoted, begin, end)
            while at >= 0:
                found.append(at)
                at = data.find(quoted, at + 1, end)
        codes = self.codes
        for prefix in self.prefixes:
            at = data.find(prefix, begin, end)
            while at >= 0:
                if bytes(data[at + 2 : min(at + 6, end)]).lower() in codes:
                    found.append(at)
                at = data.find(prefix, at + 4, end)
        for escape in self.short:
            at = data.find(escape, begin, end)
            while at >= 0:
                found.append(at)
                at = data.find(escape, at + 1, end)
        found.sort()
        return found


# --- what an escape costs a decoder -----------------------------------------------------

# The escapes of a UTF-16 surrogate (a character beyond U+FFFF), lowercased.
_SURROGATE_ESCAPES = (b"\\ud8", b"\\ud9", b"\\uda", b"\\udb")


def escaped_width(raw: bytes, width: int) -> int:
    """The widest character (1, 2 or 4 bytes in CPython's strings) that the strings
    parsed out of ``raw`` may hold, given ``width`` for its unescaped text: escapes may
    spell up to U+FFFF, or beyond through a surrogate pair."""
    if ANY_ESCAPE not in raw:
        return width
    lowered = raw.lower()
    if any(escape in lowered for escape in _SURROGATE_ESCAPES):
        return 4
    return max(width, 2)
