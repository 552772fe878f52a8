"""The fast scanners over a session's head and tail windows: search the bytes for each
fact's token, parse only the lines that may hold it, and stop once it is known. Each
must return exactly what the plain rules (``store/session_facts.py``) return over every
line; the tests' oracles hold them to that.
"""

import bisect
import re
from typing import Dict, Iterable, Iterator, List, Optional, Tuple, Union

from termsprawl_context.byte_windows import HeadWindow, TailWindow
from termsprawl_context.bytescan import ESCAPE_LENGTH as _ESCAPE_LENGTH, ascii_escape_pattern
from termsprawl_context.bytescan import has_ascii_escape as _has_ascii_escape
from termsprawl_context import model as cc
from termsprawl_context.store.session_facts import (
    HeadFacts,
    SummaryLink,
    TailFacts,
    take_summary,
    title_of,
    UserFacts,
    entry_of_line,
    scan_tail,
    tail_summary_links_plain,
)
from termsprawl_context.transcript.entry import Entry
from termsprawl_context.transcript.titles import TITLE_AI, TITLE_CUSTOM

__all__ = ["HeadIndex", "TOKEN_TIMESTAMP", "scan_head", "scan_head_window", "scan_tail_window", "tail_summary_links"]


# The prefilter. Each fact is decided by lines of one kind, and a line of that kind
# must hold the kind's token in its bytes, unless a JSON escape spells one of the
# token's ASCII characters (\u0020-\u007f). Lines holding such an escape (never
# written by the harness, which escapes only control characters) are always parsed,
# so the filter spares parses without ever changing an answer.
_TOKEN_USER = b'"user"'
_TOKEN_CWD = b'"cwd"'
TOKEN_TIMESTAMP = b'"timestamp"'
# A summary or title entry's line holds its "type" key naming the kind (JSON allows
# whitespace around the colon): one search finds the head's summaries and titles
# together. It starts at "ype" since the regex engine skips fastest to a rare first
# byte ('y' is under 1% of transcript bytes, '"' over 4%); the lookbehind checks the
# key's opening quote and "t".
# Each token otherwise gets its own search, stopped once its fact is known: one
# alternation of newlines and all the tokens has no literal prefix to skip by, and
# measured 3-5x slower than the separate searches it would replace (bench_sessions.py,
# one-pass row).
_TYPE_KEY = cc.FIELD_TYPE.encode("ascii")


def _kind_re(kinds: Tuple[str, ...]) -> "re.Pattern[bytes]":
    """A line's "type" key naming one of ``kinds``, found from its "ype" (above)."""
    return re.compile(
        re.escape(_TYPE_KEY[1:] + b'"')
        + b'(?<="'
        + re.escape(_TYPE_KEY)
        + b'")'
        + rb'\s*:\s*"(?:'
        + b"|".join(re.escape(kind.encode("ascii")) for kind in kinds)
        + b')"'
    )


_KIND_RE = _kind_re((cc.TITLE_SUMMARY, TITLE_CUSTOM, TITLE_AI))
# A title entry names its title under a key ending in this (cc.FIELD_CUSTOM_TITLE,
# cc.FIELD_AI_TITLE): the tail, where no summary counts, seeks that token alone ('T'
# is rare as well).
TITLE_KEY_SUFFIX = "Title"
_TITLE_KEY_RE = re.compile(re.escape(TITLE_KEY_SUFFIX.encode("ascii") + b'"'))
_ESCAPE_ASCII_RE = ascii_escape_pattern()  # bytescan's rule: \u0020-\u007f, escapes that spell ASCII
_Token = Union[bytes, "re.Pattern[bytes]"]  # a literal, or a compiled literal


_UNPARSED = object()  # a line not parsed yet (None is a line that is no entry)


class HeadIndex:
    """Line lookups over a head window: which lines hold a token, parsed once each."""

    def __init__(self, window: HeadWindow) -> None:
        self.window = window
        self.limit = window.ends[-1] if window.ends else 0
        self.parsed: Dict[int, Optional[Entry]] = {}
        # The head's one census of ASCII-spelling escapes: where they start, and their
        # lines (a whole-file tail reuses the positions instead of searching again).
        self.escapes = [m.start() for m in _ESCAPE_ASCII_RE.finditer(window.data, 0, self.limit)]
        self.escaped = sorted({self.line_of(pos) for pos in self.escapes})

    def escaped_within(self, start: int, end: int) -> bool:
        """Whether ``data[start:end]`` holds an ASCII-spelling escape, from the census
        where it covers the range and a search only past its end."""
        if any(start <= pos and pos + _ESCAPE_LENGTH <= end for pos in self.escapes):
            return True
        past = max(start, self.limit - _ESCAPE_LENGTH + 1)  # a match the census could not see ends past limit
        return past < end and _has_ascii_escape(self.window.data, past, end)

    def line_of(self, pos: int) -> int:
        return bisect.bisect_left(self.window.ends, pos)

    def _token_lines(self, token: _Token) -> Iterator[int]:
        data, ends, limit = self.window.data, self.window.ends, self.limit
        if isinstance(token, bytes):
            find = data.find
            pos = find(token, 0, limit)
            while pos >= 0:
                index = bisect.bisect_left(ends, pos)
                yield index
                pos = find(token, ends[index] + 1, limit)
            return
        search = token.search
        match = search(data, 0, limit)
        while match is not None:
            index = bisect.bisect_left(ends, match.start())
            yield index
            match = search(data, ends[index] + 1, limit)

    def entries(self, token: _Token) -> Iterator[Entry]:
        """Parsed entries of the lines that may hold a ``token`` fact, in file order."""
        indexes: Iterable[int] = self._token_lines(token)
        if self.escaped:
            indexes = sorted(set(indexes) | set(self.escaped))
        parsed = self.parsed
        for index in indexes:
            entry = parsed.get(index, _UNPARSED)
            if entry is _UNPARSED:
                entry = parsed[index] = entry_of_line(self.window.line(index))
            if entry is not None:
                yield entry  # type: ignore[misc]


def scan_head_window(window: HeadWindow, session_id: str = "") -> HeadFacts:
    """The head's facts, parsing only lines whose bytes hold the token of the fact
    being sought, and stopping each search once its fact is known. It must return what
    parsing every line in order returns (the tests' oracle holds it to that)."""
    return scan_head(HeadIndex(window), session_id)


def scan_head(index: HeadIndex, session_id: str, titles: bool = True) -> HeadFacts:
    """``scan_head_window`` over an indexed head; without ``titles`` the head's title
    entries, which the summaries' search finds too, are ignored (its custom and AI
    titles come back "")."""
    if not index.window.ends:
        return HeadFacts()
    users = UserFacts()
    for entry in index.entries(_TOKEN_USER):
        users.feed(entry)
        if users.done():
            break
    summary = custom = ai = ""
    links: List[SummaryLink] = []
    for entry in index.entries(_KIND_RE):
        if entry.type == cc.TITLE_SUMMARY:
            summary = take_summary(entry, summary, links)
        elif titles:
            title_kind, title = title_of(entry, session_id)
            if title_kind == TITLE_CUSTOM:
                custom = title
            elif title_kind == TITLE_AI:
                ai = title
    cwd = branch = ""
    for entry in index.entries(_TOKEN_CWD):
        cwd = entry.cwd
        if cwd:
            branch = entry.git_branch
            break
    first_ts = ""
    for entry in index.entries(TOKEN_TIMESTAMP):
        first_ts = entry.timestamp
        if first_ts:
            break
    return HeadFacts(
        summary, users.first_user, tuple(links), users.prompt, custom, ai, cwd, branch, first_ts, users.command
    )


def _line_entry(data: Union[bytes, bytearray], hit: int, first: int, end: int) -> Tuple[int, Optional[Entry]]:
    """(start, parsed entry) of the line of ``data[first:end]`` holding offset ``hit``."""
    newline = data.rfind(b"\n", first, hit)
    start = first if newline < 0 else newline + 1
    stop = data.find(b"\n", hit, end)
    return start, entry_of_line(bytes(data[start : stop if stop >= 0 else end]))


def scan_tail_window(
    window: TailWindow, session_id: str = "", escaped: Optional[bool] = None, summaries_from: Optional[int] = None
) -> TailFacts:
    """``scan_tail`` over the window's whole lines, parsing only the latest lines holding
    a title or timestamp token, found by searching the bytes (no line is split or
    walked). A window with an ASCII-spelling escape (never written by the harness) is
    walked line by line with the plain algorithm instead. With ``summaries_from`` (a
    line's start in ``window.data``), the same search's summary lines from there on give
    ``summary_links`` (``tail_summary_links``, at no second pass over the bytes)."""
    data, first, end = window.data, window.first_whole_line(), window.stop()
    if _has_ascii_escape(data, first, end) if escaped is None else escaped:
        facts = scan_tail(window.lines_last_first(), session_id)
        if summaries_from is None or summaries_from >= end:
            return facts
        return facts._replace(summary_links=tuple(tail_summary_links(window, True, summaries_from)))
    # One search finds the title and summary lines (their "type" key naming the kind).
    hits = list(_KIND_RE.finditer(data, first, end))
    custom = ai = ""
    floor = end
    for match in reversed(hits):
        hit = match.start()
        if hit >= floor or data.endswith(_TOKEN_SUMMARY_KIND, 0, match.end()):
            continue  # on a line already read, or a summary
        floor, entry = _line_entry(data, hit, first, end)
        if entry is None:
            continue
        title_kind, title = title_of(entry, session_id)
        if title_kind == TITLE_CUSTOM and not custom:
            custom = title
        elif title_kind == TITLE_AI and not ai:
            ai = title
        if custom and ai:
            break
    last_ts = ""
    while not last_ts:
        hit = data.rfind(TOKEN_TIMESTAMP, first, end)
        if hit < 0:
            break
        end, entry = _line_entry(data, hit, first, end)
        if entry is not None:
            last_ts = entry.timestamp
    links: List[SummaryLink] = []
    if summaries_from is not None:
        line_end = -1
        for match in hits:
            hit = match.start()
            if hit < summaries_from or hit <= line_end or not data.endswith(_TOKEN_SUMMARY_KIND, 0, match.end()):
                continue
            _, entry = _line_entry(data, hit, first, window.stop())
            line_end = data.find(b"\n", hit, window.stop())
            if line_end < 0:
                line_end = window.stop()
            if entry is not None and entry.type == cc.TITLE_SUMMARY:
                take_summary(entry, "", links)
    return TailFacts(custom, ai, last_ts, tuple(links))


# A summary line in the tail: its "type" key naming the kind (the head's search, one kind).
_SUMMARY_KIND_RE = _kind_re((cc.TITLE_SUMMARY,))


_TOKEN_SUMMARY_KIND = b'"' + cc.TITLE_SUMMARY.encode("ascii") + b'"'


def tail_summary_links(
    window: TailWindow, escaped: Optional[bool] = None, begin: Optional[int] = None
) -> List[SummaryLink]:
    """The summary links in the tail window's whole lines, in file order: Claude Code
    2.0.x appends a summary of the conversation so far to the session's own file,
    often past its first 50 lines (the head, where the seed looks), naming the record
    just before it. ``begin`` (a line's start in ``window.data``) leaves out the lines
    before it: those the head holds, whose links the head gives. Only lines whose bytes
    name the kind are parsed; a window with an ASCII-spelling escape is parsed line by
    line instead."""
    data, first, end = window.data, window.first_whole_line(), window.stop()
    if begin is not None and begin > first:
        window, first = window._replace(start=min(begin, end), cut=False), min(begin, end)
    if _has_ascii_escape(data, first, end) if escaped is None else escaped:
        return tail_summary_links_plain(window.lines_last_first())
    links: List[SummaryLink] = []
    # Most tails hold no summary: one plain search of the kind's quoted name decides that
    # (a match of the regex holds it), and the regex starts on the line of its first one.
    gate = data.find(_TOKEN_SUMMARY_KIND, first, end)
    if gate < 0:
        return links
    pos = data.rfind(b"\n", first, gate) + 1 or first
    while True:
        m = _SUMMARY_KIND_RE.search(data, pos, end)
        if m is None:
            return links
        start, entry = _line_entry(data, m.start(), first, end)
        if entry is not None and entry.type == cc.TITLE_SUMMARY:
            take_summary(entry, "", links)
        newline = data.find(b"\n", m.start(), end)
        if newline < 0:
            return links
        pos = newline + 1
