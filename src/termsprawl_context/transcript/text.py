"""Plain text out of transcript strings: tags stripped, entities decoded, whitespace
collapsed, and byte-bounded truncation that never splits a UTF-8 sequence.

These are the session-discovery rules (summaries, first user messages, titles): they
make one readable line of a string, and know nothing of where the string came from.
(What text a message's content holds is ``content``'s.)
"""

import html
import re


# Anything from "<" to the next ">" is a tag, exactly as the seed's `<[^>]*>`; it is
# removed before entities are decoded, so an escaped "&lt;div&gt;" survives as "<div>".
_TAG = re.compile(r"<[^>]*>")

# Go's unicode.IsSpace (strings.Fields): Python's str.split() would also split on the
# ASCII separators \x1c-\x1f, which Go keeps as text, so the set is spelled out.
GO_SPACE_CHARS = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_GO_SPACE_RUN = re.compile("[%s]+" % re.escape(GO_SPACE_CHARS))

ELLIPSIS = "..."


# Python's str.split() splits on exactly Go's set plus these four; without them in the
# text, the C-speed split gives Go's answer.
_PYTHON_ONLY_SPACES = ("\x1c", "\x1d", "\x1e", "\x1f")


def collapse_whitespace(text: str) -> str:
    """Every run of (Unicode) whitespace becomes one space; the ends are trimmed."""
    if not any(c in text for c in _PYTHON_ONLY_SPACES):
        return " ".join(text.split())
    return _GO_SPACE_RUN.sub(" ", text).strip(GO_SPACE_CHARS)


def sanitize_text(text: str) -> str:
    """The seed's SanitizeText: strip tags, then decode HTML entities, then collapse
    whitespace and trim, so a summary or prompt reads as one line of plain text."""
    cleaned = _TAG.sub("", text)
    decoded = html.unescape(cleaned)
    return collapse_whitespace(decoded)


def truncate_utf8(text: str, max_bytes: int) -> str:
    """The seed's truncateString: ``text`` if it fits in ``max_bytes`` UTF-8 bytes,
    else its longest prefix of at most ``max_bytes - 3`` bytes that ends on a character
    boundary, plus "..." (just "..." when there is no room for more)."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text
    room = max_bytes - len(ELLIPSIS)
    if room <= 0:
        return ELLIPSIS
    return utf8_prefix(data, room) + ELLIPSIS


def utf8_prefix(data: bytes, size: int) -> str:
    """The longest prefix of UTF-8 ``data`` of at most ``size`` bytes that ends on a
    character boundary, decoded."""
    # A byte 0b10xxxxxx continues a sequence: cutting before it would split a character.
    while 0 < size < len(data) and (data[size] & 0xC0) == 0x80:
        size -= 1
    return data[:size].decode("utf-8", "surrogatepass")
