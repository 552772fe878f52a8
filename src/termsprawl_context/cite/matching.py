"""Matching a quote word for word, and the bytes searched for it before anything is
parsed (speed only, never an answer)."""

from __future__ import annotations

import re

from termsprawl_context import jsonl
from termsprawl_context.bytescan import Needles
from termsprawl_context.transcript.text import collapse_whitespace

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import Optional

__all__ = [
    "MIN_NEEDLE",
    "NEEDLE_CHUNK",
    "body_matches",
    "contains_words",
    "file_may_contain",
    "normalize",
    "quote_needle",
    "strip_read_gutters",
]

MIN_NEEDLE = 4  # a shorter run of plain bytes is no prefilter: everything is searched
NEEDLE_CHUNK = 1 << 20  # a session's files are searched for the needle in chunks this size

_READ_GUTTER = re.compile(r"^[ \t]*[0-9]+\t", re.MULTILINE)
# Beside what a JSON string never writes as itself (bytescan's rule): the bytes a writer may
# escape anyway (Go's encoder writes < > & as \u003c ...), and the space, which a
# normalised quote and the record may spell differently.
_NEEDLE_EXCLUDED = b" <>&"


def normalize(text: str) -> str:
    """Whitespace runs (Go's set) become one space, the ends trimmed."""
    return collapse_whitespace(text)


def contains_words(text: str, quote: str) -> bool:
    """Whether ``quote`` is in ``text`` word for word: only whitespace may differ."""
    return normalize(quote) in normalize(text)


def strip_read_gutters(body: str) -> str:
    """A Read result without its ``   12\\t`` line-number prefixes."""
    return _READ_GUTTER.sub("", body)


def body_matches(body: str, words: str) -> bool:
    if words in normalize(body):
        return True
    return "\t" in body and words in normalize(strip_read_gutters(body))


def quote_needle(quote: str) -> Optional[bytes]:
    """The longest run of the quote's bytes that JSON writes as themselves (printable
    ASCII but ``" \\ < > & /``), first longest on ties; None when shorter than 4.
    Searched in raw bytes before anything is parsed: speed only, never an answer. The
    run is bytescan's rule (``Needles.longest_run``), not a copy of it."""
    plain = Needles.longest_run(quote, MIN_NEEDLE, _NEEDLE_EXCLUDED).plain
    return plain[0] if plain else None


def file_may_contain(path: str, needle: Optional[bytes]) -> bool:
    """Whether the file's bytes may hold ``needle``: read in 1 MiB chunks with an
    overlap; no needle, or a file that cannot be read, answers yes."""
    if not needle:
        return True
    try:
        f = jsonl.open_regular(path)
    except OSError:
        return True
    keep = len(needle) - 1
    with f:
        tail = b""
        try:
            while True:
                chunk = f.read(NEEDLE_CHUNK)
                if not chunk:
                    return False
                if needle in tail + chunk[: len(needle)] or needle in chunk:
                    return True
                tail = chunk[-keep:] if keep else b""
        except OSError:
            return True
