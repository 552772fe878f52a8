"""Matching a quote word for word, and the bytes searched for it before anything is
parsed (speed only, never an answer)."""

from __future__ import annotations

import re

from termsprawl_context import jsonl
from termsprawl_context.bytescan import Needles, file_may_hold
from termsprawl_context.transcript.text import collapse_whitespace

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import BinaryIO, Callable, Optional


MIN_NEEDLE = 4  # a shorter run of plain bytes is no prefilter: everything is searched
NEEDLE_CHUNK = 1 << 20  # a session's files are searched for the needle in chunks this size (one buffer)

_READ_GUTTER = re.compile(r"^[ \t]*[0-9]+\t", re.MULTILINE)
# Beside what a JSON string never writes as itself (bytescan's rule): the bytes a writer may
# escape anyway (Go's encoder writes < > & as \u003c ...), and the space, which a
# normalised quote and the record may spell differently.
_NEEDLE_EXCLUDED = b" <>&"


def strip_read_gutters(body: str) -> str:
    """A Read result without its ``   12\\t`` line-number prefixes."""
    return _READ_GUTTER.sub("", body)


def body_matches(body: str, words: str) -> bool:
    if words in collapse_whitespace(body):
        return True
    return "\t" in body and words in collapse_whitespace(strip_read_gutters(body))


# The one switch of cite's fast path (CPython's json.scanner rule): True searches bytes
# before parsing (each record for the quote's run; its lines for calls, local commands,
# ids and uuids: records, transcripts); False is the plain search, every line
# parsed. The cite tests run under both (cite_fixtures.both_searches), and bench_cite's
# target row (>= 10x on `cite --across`) is what it buys.
PREFILTER = True


def quote_needles(quote: str) -> Optional[Needles]:
    """The bytes a line (or a file) holding ``quote`` must hold: the longest run of its
    bytes that JSON writes as themselves (printable ASCII but ``" \\ < > & /``, first
    longest on ties), found as itself or under bytescan's escape rule; None when the run
    is shorter than 4, or with ``PREFILTER`` off (every line a candidate). Speed only,
    never an answer."""
    if not PREFILTER:
        return None
    needles = Needles.longest_run(quote, MIN_NEEDLE, _NEEDLE_EXCLUDED)
    return needles if needles.plain else None


def quote_needle(quote: str) -> Optional[bytes]:
    """The run ``quote_needles`` searches for (None when there is none)."""
    needles = quote_needles(quote)
    return needles.plain[0] if needles is not None else None


def file_may_contain(path: str, needle: Optional[bytes], buffer: Optional[bytearray] = None) -> bool:
    """Whether the file's bytes may hold ``needle`` (a quote's run): as itself or under
    the escape rule (``bytescan.file_may_hold``, in ``buffer``'s chunks when given); no
    needle, or a file that cannot be read, answers yes."""
    return not needle or scan_file(path, lambda f: file_may_hold(f, Needles.of([needle]), buffer=buffer))


def scan_file(path: str, search: Callable[[BinaryIO], bool]) -> bool:
    """``search`` over the regular file at ``path``; True (parse it: the line reader says
    what is wrong) when it cannot be opened or read."""
    f = jsonl.try_open_regular(path)
    if f is None:
        return True
    with f:
        try:
            return search(f)
        except OSError:
            return True
