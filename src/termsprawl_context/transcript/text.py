"""One readable line out of a transcript string: tags stripped, entities decoded, whitespace
collapsed, and truncation to bytes that never splits a UTF-8 sequence.
"""

import html
import re


# The seed's tag, removed before entities are decoded: an escaped "&lt;div&gt;" survives as "<div>".
_TAG = re.compile(r"<[^>]*>")

# Go's unicode.IsSpace (strings.Fields): Python's str.split() would also split on the
# ASCII separators \x1c-\x1f, which Go keeps as text, so the set is spelled out.
GO_SPACE_CHARS = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_GO_SPACE_RUN = re.compile("[%s]+" % re.escape(GO_SPACE_CHARS))
# Without these four in the text, the C-speed str.split() gives Go's answer.
_PYTHON_ONLY_SPACES = ("\x1c", "\x1d", "\x1e", "\x1f")


def collapse_whitespace(text: str) -> str:
    """Every run of whitespace (Go's) as one space, the ends trimmed."""
    if not any(c in text for c in _PYTHON_ONLY_SPACES):
        return " ".join(text.split())
    return _GO_SPACE_RUN.sub(" ", text).strip(GO_SPACE_CHARS)


def sanitize_text(text: str) -> str:
    """The seed's SanitizeText: tags stripped, then entities decoded, whitespace collapsed."""
    return collapse_whitespace(html.unescape(_TAG.sub("", text)))


def truncate_utf8(text: str, max_bytes: int) -> str:
    """The seed's truncateString: ``text``, or its characters within ``max_bytes - 3`` and "..."."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text
    return utf8_prefix(data, max_bytes - 3) + "..." if max_bytes > 3 else "..."


def utf8_prefix(data: bytes, size: int) -> str:
    """The whole characters of UTF-8 ``data`` within ``size`` bytes, decoded."""
    while 0 < size < len(data) and (data[size] & 0xC0) == 0x80:  # 0b10xxxxxx continues a character
        size -= 1
    return data[:size].decode("utf-8", "surrogatepass")
