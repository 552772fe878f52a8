"""A session's facts from its head and tail windows, two ways that answer alike.

The plain scanners (``PLAIN_SCANNER``) parse every whole line by ``session_facts``' rules.
The fast ones (``FAST_SCANNER``) search the bytes for each fact's token, parse only the
lines that may hold it and stop once it is known; a line or window holding a JSON escape
that spells an ASCII character (``bytescan``'s rule) is parsed whole. ``scanner`` is the
switch; the session tests run under both (tests/scanner_fixtures.py). benchmarks/FAST_PATHS.md
names the row that keeps the fast one: where 50-line heads run to 1 MiB of tool results,
parsing every line puts ``sessions --json`` behind the peers it must beat.
"""

import bisect
import re
from typing import Callable, Dict, Iterable, Iterator, List, NamedTuple, Optional, Tuple, Union

from termsprawl_context.byte_windows import HeadWindow, TailWindow
from termsprawl_context.bytescan import ascii_escape_pattern
from termsprawl_context.bytescan import has_ascii_escape as _has_ascii_escape
from termsprawl_context import model as cc
from termsprawl_context.harness.claude import summary_index
from termsprawl_context.harness.claude.session_facts import (
    HeadFacts,
    SummaryLink,
    TailFacts,
    take_summary,
    title_of,
    user_facts,
    entry_of_line,
)
from termsprawl_context.model import Entry
from termsprawl_context.transcript.titles import TITLE_AI, TITLE_CUSTOM


class Scanner(NamedTuple):
    """One way to read a session's facts from its windows (every way answers alike)."""

    head: Callable[[HeadWindow, str], HeadFacts]  # (window, session_id)
    # What the tail's readers share: whether its whole lines hold an ASCII-spelling escape
    # (None: not searched). The fast ones search once, then each takes the answer.
    census: Callable[[TailWindow], Optional[bool]]
    tail: Callable[[TailWindow, str, Optional[int], Optional[bool]], TailFacts]  # (..., summaries_from, census)
    tail_uuids: Callable[[TailWindow, Optional[bool]], bytes]  # the window's own uuids, packed (window, census)


# --- the rules over the entries a scanner picks (the plain ones pick every one) --------


def _head_facts(
    session_id: str,
    users_from: Iterable[Entry],
    kinds_from: Iterable[Entry],
    cwds_from: Iterable[Entry],
    times_from: Iterable[Entry],
) -> HeadFacts:
    """The head's facts, each from the entries (file order) that may hold it; each read stops
    once its fact is known, so a lazy pick parses no further."""
    first_user, prompt, command = user_facts(users_from)
    summary = ""
    titles: Dict[str, str] = {}  # title kind -> the last one
    links: List[SummaryLink] = []
    for entry in kinds_from:
        if entry.type == cc.TITLE_SUMMARY:
            summary = take_summary(entry, summary, links)
        else:
            kind, title = title_of(entry, session_id)
            titles[kind] = title
    cwd = branch = ""
    for entry in cwds_from:
        if entry.cwd:
            cwd, branch = entry.cwd, entry.git_branch  # the branch the session started on
            break
    first_ts = next((entry.timestamp for entry in times_from if entry.timestamp), "")
    custom, ai = titles.get(TITLE_CUSTOM, ""), titles.get(TITLE_AI, "")
    return HeadFacts(summary, first_user, tuple(links), prompt, custom, ai, cwd, branch, first_ts, command)


def _tail_facts(
    session_id: str, kinds_last_first: Iterable[Entry], times_last_first: Iterable[Entry], summaries: Iterable[Entry]
) -> TailFacts:
    """The tail's latest custom and AI title and timestamp, each from the entries (last first)
    that may hold it, and the summary links of ``summaries`` (file order)."""
    titles: Dict[str, str] = {}  # title kind -> the latest one
    for entry in kinds_last_first:
        kind, title = title_of(entry, session_id)
        titles.setdefault(kind, title)
        if TITLE_CUSTOM in titles and TITLE_AI in titles:
            break
    last_ts = next((entry.timestamp for entry in times_last_first if entry.timestamp), "")
    links: List[SummaryLink] = []
    for entry in summaries:
        if entry.type == cc.TITLE_SUMMARY:
            take_summary(entry, "", links)
    return TailFacts(titles.get(TITLE_CUSTOM, ""), titles.get(TITLE_AI, ""), last_ts, tuple(links))


# --- the plain scanners: every whole line parsed ---------------------------------------


def _parsed(lines: Iterable[bytes]) -> List[Entry]:
    return [entry for entry in map(entry_of_line, lines) if entry is not None]


def _plain_head(window: HeadWindow, session_id: str = "") -> HeadFacts:
    entries = _parsed(window.lines())
    return _head_facts(session_id, entries, entries, entries, entries)


def _plain_tail(
    window: TailWindow, session_id: str = "", summaries_from: Optional[int] = None, escaped: Optional[bool] = None
) -> TailFacts:
    """The tail's facts from all its whole lines, and the summary links of those from
    ``summaries_from`` on."""
    entries = _parsed(window.lines_last_first())
    summaries: List[Entry] = []
    if summaries_from is not None and summaries_from < window.stop():
        # Claude Code 2.0.x appends a summary of the conversation so far, naming the record
        # before it, often past the head.
        if summaries_from > window.first_whole_line():
            window = window._replace(start=summaries_from, cut=False)
        summaries = _parsed(window.lines_last_first())[::-1]
    return _tail_facts(session_id, entries, entries, summaries)


def _tail_uuids(window: TailWindow, escaped: Optional[bool] = None) -> bytes:
    return summary_index.own_uuids(window.data, window.first_whole_line(), window.stop(), escaped)


def _plain_tail_uuids(window: TailWindow, escaped: Optional[bool] = None) -> bytes:
    return _tail_uuids(window, True)  # as if an escape were there: every line parsed


# The plain readers parse every line: no census to share.
PLAIN_SCANNER = Scanner(_plain_head, lambda window: None, _plain_tail, _plain_tail_uuids)


# --- the fast scanners: the bytes searched before a line is parsed ---------------------

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
_KIND_RE = re.compile(
    re.escape(_TYPE_KEY[1:] + b'"')
    + b'(?<="'
    + re.escape(_TYPE_KEY)
    + b'")'
    + rb'\s*:\s*"(?:'
    + b"|".join(re.escape(kind.encode("ascii")) for kind in (cc.TITLE_SUMMARY, TITLE_CUSTOM, TITLE_AI))
    + b')"'
)
_TOKEN_SUMMARY_KIND = b'"' + cc.TITLE_SUMMARY.encode("ascii") + b'"'
_ESCAPE_ASCII_RE = ascii_escape_pattern()  # bytescan's rule: \u0020-\u007f, escapes that spell ASCII
_Token = Union[bytes, "re.Pattern[bytes]"]  # a literal, or a compiled literal


def _head_index(window: HeadWindow) -> Callable[[_Token], Iterator[Entry]]:
    """Line lookups over a head window: the parsed entries of the lines that may hold a
    token, in file order, each line parsed once whichever token finds it first."""
    data, ends = window.data, window.ends
    limit = ends[-1] if ends else 0
    parsed: Dict[int, Optional[Entry]] = {}
    # The head's one census of ASCII-spelling escapes: the lines holding one.
    escaped = {bisect.bisect_left(ends, m.start()) for m in _ESCAPE_ASCII_RE.finditer(data, 0, limit)}

    def find(token: _Token, at: int) -> int:
        if isinstance(token, bytes):
            return data.find(token, at, limit)
        match = token.search(data, at, limit)
        return -1 if match is None else match.start()

    def token_lines(token: _Token) -> Iterator[int]:
        pos = find(token, 0)
        while pos >= 0:
            index = bisect.bisect_left(ends, pos)
            yield index
            pos = find(token, ends[index] + 1)

    def entries(token: _Token) -> Iterator[Entry]:
        indexes: Iterable[int] = sorted(set(token_lines(token)) | escaped) if escaped else token_lines(token)
        for index in indexes:
            if index not in parsed:
                parsed[index] = entry_of_line(window.line(index))
            entry = parsed[index]
            if entry is not None:
                yield entry

    return entries


def _fast_head(window: HeadWindow, session_id: str = "") -> HeadFacts:
    """The head's facts, parsing only lines holding the sought fact's token, until it is known."""
    entries = _head_index(window)
    tokens = (_TOKEN_USER, _KIND_RE, _TOKEN_CWD, TOKEN_TIMESTAMP)
    return _head_facts(session_id, *(entries(token) for token in tokens))


def _line_entry(data: Union[bytes, bytearray], hit: int, first: int, end: int) -> Tuple[int, int, Optional[Entry]]:
    """(start, end, parsed entry) of the line of ``data[first:end]`` holding offset ``hit``."""
    newline = data.rfind(b"\n", first, hit)
    start = first if newline < 0 else newline + 1
    stop = data.find(b"\n", hit, end)
    stop = stop if stop >= 0 else end
    return start, stop, entry_of_line(bytes(data[start:stop]))


def _census(window: TailWindow) -> Optional[bool]:
    return _has_ascii_escape(window.data, window.first_whole_line(), window.stop())


def _fast_tail(
    window: TailWindow, session_id: str = "", summaries_from: Optional[int] = None, escaped: Optional[bool] = None
) -> TailFacts:
    """``_plain_tail``'s answer, parsing only the latest lines whose bytes hold a title or
    timestamp token; a window with an ASCII-spelling escape (never written by the harness)
    goes the plain way. The same search gives ``summaries_from``'s links, no second pass."""
    if _census(window) if escaped is None else escaped:
        return _plain_tail(window, session_id, summaries_from)
    data, first, end = window.data, window.first_whole_line(), window.stop()
    hits = list(_KIND_RE.finditer(data, first, end))  # the title and summary lines
    begin = end if summaries_from is None else summaries_from  # no hit is past the end

    def titles() -> Iterator[Entry]:
        floor = end
        for match in reversed(hits):
            if match.start() < floor and not data.endswith(_TOKEN_SUMMARY_KIND, 0, match.end()):
                floor, _, entry = _line_entry(data, match.start(), first, end)  # a line is read once
                if entry is not None:
                    yield entry

    def stamps() -> Iterator[Entry]:
        floor = end
        hit = data.rfind(TOKEN_TIMESTAMP, first, floor)
        while hit >= 0:
            floor, _, entry = _line_entry(data, hit, first, floor)
            if entry is not None:
                yield entry
            hit = data.rfind(TOKEN_TIMESTAMP, first, floor)

    def summaries() -> Iterator[Entry]:
        line_end = -1
        for match in hits:
            hit = match.start()
            if hit >= begin and hit > line_end and data.endswith(_TOKEN_SUMMARY_KIND, 0, match.end()):
                _, line_end, entry = _line_entry(data, hit, first, end)
                if entry is not None:
                    yield entry

    return _tail_facts(session_id, titles(), stamps(), summaries())


FAST_SCANNER = Scanner(_fast_head, _census, _fast_tail, _tail_uuids)

# The switch: the listing reads every session through this one.
scanner = FAST_SCANNER
