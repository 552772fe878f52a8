"""Plain text out of transcript strings: tags stripped, entities decoded, whitespace
collapsed, and byte-bounded truncation that never splits a UTF-8 sequence; and the
content-to-text rules that are not the dump's (the dump's own, ``display_text``, is in
``entry``, on the dump's path): the session title's first text, the parse seam's text
with thinking kept.

The first are the session-discovery rules (summaries, first user messages, titles):
they make one readable line of a string, and know nothing of where it came from.
"""

import html
import re
from typing import Any, Mapping

# Anything from "<" to the next ">" is a tag, exactly as the seed's `<[^>]*>`; it is
# removed before entities are decoded, so an escaped "&lt;div&gt;" survives as "<div>".
_TAG = re.compile(r"<[^>]*>")

# Go's unicode.IsSpace (strings.Fields): Python's str.split() would also split on the
# ASCII separators \x1c-\x1f, which Go keeps as text, so the set is spelled out.
_GO_SPACE_CHARS = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_GO_SPACE_RUN = re.compile("[%s]+" % re.escape(_GO_SPACE_CHARS))

ELLIPSIS = "..."


# Python's str.split() splits on exactly Go's set plus these four; without them in the
# text, the C-speed split gives Go's answer.
_PYTHON_ONLY_SPACES = ("\x1c", "\x1d", "\x1e", "\x1f")


def collapse_whitespace(text: str) -> str:
    """Every run of (Unicode) whitespace becomes one space; the ends are trimmed."""
    if not any(c in text for c in _PYTHON_ONLY_SPACES):
        return " ".join(text.split())
    return _GO_SPACE_RUN.sub(" ", text).strip(_GO_SPACE_CHARS)


def sanitize_text(text: str) -> str:
    """The seed's SanitizeText: strip tags, then decode HTML entities, then collapse
    whitespace and trim, so a summary or prompt reads as one line of plain text."""
    cleaned = _TAG.sub("", text)
    decoded = html.unescape(cleaned)
    return collapse_whitespace(decoded)


def utf8_length(text: str) -> int:
    """Length of ``text`` in UTF-8 bytes; a lone surrogate counts its 3 bytes."""
    return len(text.encode("utf-8", "surrogatepass"))


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
    cut = room
    # A byte 0b10xxxxxx continues a sequence: cutting before it would split a character.
    while cut > 0 and (data[cut] & 0xC0) == 0x80:
        cut -= 1
    return data[:cut].decode("utf-8", "surrogatepass") + ELLIPSIS


def text_with_thinking(content: Any) -> str:
    """The parse seam's text rule (the seed's ``msg_text``): a message's content as one
    string, KEEPING thinking blocks.

    A string is returned as is; in a list, text blocks and thinking blocks (wrapped as
    ``<thinking>\\n...\\n</thinking>``) are joined by newlines and every other block is
    skipped; anything else is "". The dump drops thinking; this seam keeps it because
    hand-off extraction needs the rejected hypotheses.
    """
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    out = []
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            text = block.get("text", "")
            if text:
                # A truthy non-string ``text`` would break the seed's join: here it is its str.
                out.append(text if isinstance(text, str) else str(text))
        elif kind == "thinking":
            # Real blocks keep their text under "thinking"; some variants use "text".
            thinking = block.get("thinking") or block.get("text") or ""
            if thinking:
                out.append("<thinking>\n%s\n</thinking>" % (thinking,))
    return "\n".join(out)


def _as_text(value: Any) -> str:
    """A truthy non-string ``text`` would break the join in the seed; here it is its str."""
    return value if isinstance(value, str) else str(value)


def first_content_text(content: Any) -> str:
    """The session-title rule's text of a message's content (the seed's
    extractTextFromMessage): a string content as is, else the first non-empty string
    ``text`` of a ``text`` block; "" otherwise."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                value = block.get("text")
                if isinstance(value, str) and value:
                    return value
    return ""


def first_text(record: Mapping[str, Any]) -> str:
    """The seed's extractTextFromMessage over a parsed line: ``message.content`` when it
    is a string, else the first non-empty ``text`` of a ``text`` block; "" otherwise
    (``entry.first_content_text``, the one rule)."""
    message = record.get("message")
    return first_content_text(message.get("content")) if isinstance(message, dict) else ""
