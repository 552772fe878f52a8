"""The one byte prefilter: which lines, or files, may hold the ASCII tokens a caller needs
(a uuid, a key, a type's value), searched before anything is parsed. The escape rule,
written once: JSON may spell any character ``\\u00XX``, so a line holding an escape of
printable ASCII (``\\u0020``-``\\u007f``) is a candidate too. The harness never writes one
(JSON.stringify escapes only control characters and lone surrogates), so the rule costs
nothing on real transcripts. A token not plain ASCII gives no needles: every line is a
candidate. Bytes only; ``re`` is imported on first use.
"""

from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import BinaryIO, Iterable, Iterator, List, Optional, Union


# Every escape below U+0100 starts so: a literal find is several times faster than the regex.
ESCAPE_PREFIX = b"\\u00"
# An escape that spells a printable ASCII character (0x20-0x7f), in any hex case.
ASCII_ESCAPE = rb"\\u00[2-7][0-9a-fA-F]"
ESCAPE_LENGTH = 6  # the bytes one such escape spans
# A token's bytes are JSON text ('"user"' holds the syntax's quotes); one holding a
# backslash (an escape) or "/" (may be "\\/") has no plain spelling.
_PLAIN = frozenset(c for c in range(0x20, 0x7F) if c not in b"\\/")
# A string value's bytes inside its quotes: a quote in it is written escaped too.
_PLAIN_VALUE = _PLAIN - frozenset(b'"')


_ascii_escape = None


def ascii_escape_pattern():
    """``ASCII_ESCAPE`` compiled on first use, alone: the listing compiles it at import, and needs no other."""
    global _ascii_escape
    if _ascii_escape is None:
        import re

        _ascii_escape = re.compile(ASCII_ESCAPE)
    return _ascii_escape


def has_ascii_escape(data: "Union[bytes, bytearray]", start: int = 0, end: "Optional[int]" = None) -> bool:
    """Whether ``data[start:end]`` holds an escape that spells printable ASCII."""
    end = len(data) if end is None else end
    return data.find(ESCAPE_PREFIX, start, end) >= 0 and ascii_escape_pattern().search(data, start, end) is not None


class Needles(namedtuple("Needles", "tokens plain")):
    """The tokens a caller needs and ``plain``, their ASCII spellings (None: every line a candidate)."""

    __slots__ = ()

    @classmethod
    def of(cls, tokens: "Iterable[Union[str, bytes]]", allowed: "frozenset" = _PLAIN) -> "Needles":
        """Needles for fragments of JSON text as written (``b'"user"'``, quotes the syntax's)."""
        tokens = tuple(tokens)
        raws = (t.encode("utf-8", "surrogatepass") if isinstance(t, str) else bytes(t) for t in tokens)
        plain = tuple(raw if raw and all(c in allowed for c in raw) else None for raw in raws)
        return cls(tokens, None if None in plain else plain)

    @classmethod
    def for_values(cls, values: "Iterable[Union[str, bytes]]") -> "Needles":
        """Needles for string values (a uuid): what stands between their quotes."""
        return cls.of(values, _PLAIN_VALUE)

    @classmethod
    def longest_run(cls, text: str, minimum: int, excluded: bytes = b"") -> "Needles":
        """Needles for the first longest run of ``text``'s bytes a JSON string writes as
        themselves (not ``"``, ``\\``, ``/``, ``excluded``); none when shorter than ``minimum``."""
        allowed = _PLAIN_VALUE - frozenset(excluded)
        cuts = bytes(c if c in allowed else 0 for c in range(256))  # NUL, never allowed, ends a run
        best = max(text.encode("utf-8", "surrogatepass").translate(cuts).split(b"\0"), key=len)  # the first longest
        return cls((text,), (best,) if best and len(best) >= minimum else None)

    @property
    def longest(self) -> int:
        return max((len(p) for p in self.plain or ()), default=0)

    def in_line(self, raw: "Union[bytes, bytearray]") -> bool:
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


# CPython (3.10 on) searches a span of 30,000 bytes or more for a 6-99 byte needle with its
# two-way algorithm, several times slower on JSON text than its skip search on a shorter
# span (a 16-byte needle in 512 KiB: 9x, Debian's 3.11): so, windows just under.
FIND_WINDOW = 29000
_WINDOWED = range(6, 100)


def finds(data: "Union[bytes, bytearray]", needle: bytes, start: int = 0, end: "Optional[int]" = None) -> bool:
    """``data.find(needle, start, end) >= 0``, in overlapping ``FIND_WINDOW`` windows."""
    end = len(data) if end is None else end
    if len(needle) not in _WINDOWED or end - start <= FIND_WINDOW:
        return data.find(needle, start, end) >= 0
    reach = len(needle) - 1
    for at in range(start, end, FIND_WINDOW):
        if data.find(needle, at, min(end, at + FIND_WINDOW + reach)) >= 0:
            return True
    return False


# A file search's chunk: large enough that a find runs at memory speed, bounded whatever the
# file. The carry, what a chunk keeps of the one before, holds a token split by the edge.
CHUNK_BYTES = 4 << 20
CARRY_BYTES = 64


def scan_buffer(chunk: int = CHUNK_BYTES) -> bytearray:
    return bytearray(CARRY_BYTES + chunk)


def carry_over(buffer: bytearray, end: int, overlap: int) -> int:
    """Move the last ``overlap`` bytes before ``end`` to the front; how many moved."""
    keep = min(overlap, end)
    if keep:
        buffer[0:keep] = buffer[end - keep : end]
    return keep


def file_may_hold(f: "BinaryIO", needles: Needles, escapes: bool = True, buffer: "Optional[bytearray]" = None) -> bool:
    """Whether the rest of ``f`` holds a token's plain bytes or (``escapes``) an ASCII-spelling
    escape. Read in chunks, not mapped: a file truncated under a mapping is a SIGBUS."""
    if needles.plain is None:
        return True
    return bool(needles.plain) and file_holds_ascii_escape(f, buffer, needles, escapes)


def file_holds_ascii_escape(
    f: "BinaryIO", buffer: "Optional[bytearray]" = None, needles: Needles = Needles((), ()), escapes: bool = True
) -> bool:
    """Whether the rest of ``f`` holds an ASCII-spelling escape (or, given ``needles``, a token)."""
    overlap = max(needles.longest, ESCAPE_LENGTH if escapes else 0) - 1
    carry = max(CARRY_BYTES, overlap)
    if buffer is None or len(buffer) < 2 * carry:
        buffer = bytearray(carry + CHUNK_BYTES)
    view = memoryview(buffer)
    chunk = len(buffer) - carry
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


# --- escapes in lowercased text (a case-insensitive search) -----------------------------

# The only non-ASCII characters whose ``str.lower`` holds ASCII (the tests check all of Unicode).
LOWER_TO_ASCII = ("\u0130", "\u212a")
# What a case-insensitive prefilter must also look for, besides its needle's bytes:
ESCAPES_ASCII = "ascii"  # an escape spelling printable ASCII
ESCAPES_ASCII_FOLDED = "ascii+folded"  # that, or a spelling of a LOWER_TO_ASCII character
ESCAPES_ANY = "any"  # any escape but a control character's (for non-ASCII needles)
ANY_ESCAPE = b"\\u"
_compiled = None


def _regexes() -> dict:
    """Each kind's looks ``(gate, regex, shift)``, compiled on
    first use: the regex runs from the gate's first occurrence (or the start), a match at
    ``m.start() - shift``. Each has a literal prefix the engine scans by its first byte;
    ASCII's starts at ``00``, ``0`` being rarer in JSON than ``\\`` or ``u`` (measured: one
    pass beats a find of ``u00`` and a regex)."""
    global _compiled
    if _compiled is None:
        import re

        _compiled = {
            ESCAPES_ASCII: ((None, re.compile(rb"00[2-7](?<=\\u00[2-7])"), 2),),
            ESCAPES_ASCII_FOLDED: ((ANY_ESCAPE, re.compile(rb"\\u(?:00[2-7]|0130|212a)"), 0),)
            + tuple((b, re.compile(re.escape(b)), 0) for b in (c.encode("utf-8") for c in LOWER_TO_ASCII)),
            ESCAPES_ANY: ((ANY_ESCAPE, re.compile(rb"\\u(?!00[01])"), 0),),
        }
    return _compiled


def escape_positions(low: bytes, kind: str, first: int = 0, limit: "Optional[int]" = None) -> "Iterator[int]":
    """Offsets in lowercased ``low[first:limit]`` where a character may be escaped (``kind``)."""
    end = len(low) if limit is None else limit
    for gate, finder, shift in _regexes()[kind]:
        at = first
        if gate is not None:
            at = low.find(gate, first, end)
            if at < 0:
                continue
        for m in finder.finditer(low, at, end):
            yield m.start() - shift


# --- every position a JSON string may be spelled at -------------------------------------

# JSON's two-character escapes, by the character they stand for.
SHORT_ESCAPES = {char: b"\\" + letter.encode() for char, letter in zip('"\\/\b\f\n\r\t', '"\\/bfnrt')}


class ValueSpellings:
    """Where in a file's bytes a JSON string equal to ``target`` may be: the target quoted, or
    an escape of one of its characters (``\\uXXXX`` in any hex case, a surrogate pair beyond
    U+FFFF, a two-character escape). A target holding U+FFFD (invalid UTF-8) is not ``usable``."""

    def __init__(self, target: str) -> None:
        self.usable = "\ufffd" not in target
        # Spellings found as they are: the target quoted, each two-character escape.
        literals = set()
        try:
            literals.add(b'"' + target.encode("utf-8") + b'"')
        except UnicodeEncodeError:  # a lone surrogate: only its escape can spell it
            pass
        codes = set()  # the 4 hex digits (lower case) of each \uXXXX that may spell a character
        prefixes = set()  # b"\\u" and the first two of those digits, in every letter case
        for char in set(target):
            codepoint = ord(char)
            if codepoint > 0xFFFF:  # spelled as a surrogate pair: look for its first half
                codepoint = 0xD800 + ((codepoint - 0x10000) >> 10)
            code = b"%04x" % codepoint
            codes.add(code)
            first, second = code[:1], code[1:2]
            prefixes.update(ANY_ESCAPE + a + b for a in (first, first.upper()) for b in (second, second.upper()))
            if char in SHORT_ESCAPES:
                literals.add(SHORT_ESCAPES[char])
        self.codes = frozenset(codes)
        self.prefixes = tuple(sorted(prefixes))
        self.literals = tuple(sorted(literals))

    def hits(self, data: "Union[bytes, bytearray]", begin: int = 0, end: "Optional[int]" = None) -> "List[int]":
        """Positions in ``data[begin:end]`` where a spelling of the target may be, ascending."""
        end = len(data) if end is None else end
        found = []
        for literal in self.literals:
            at = data.find(literal, begin, end)
            while at >= 0:
                found.append(at)
                at = data.find(literal, at + 1, end)
        codes = self.codes
        for prefix in self.prefixes:
            at = data.find(prefix, begin, end)
            while at >= 0:
                if bytes(data[at + 2 : min(at + 6, end)]).lower() in codes:
                    found.append(at)
                at = data.find(prefix, at + 4, end)
        found.sort()
        return found
