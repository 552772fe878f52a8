"""What a session's transcript says about it: the metadata rules (first user message,
first prompt, summary, titles, working directory, branch, first and last timestamps)
and the fast scanners that find them in a bounded head and tail.

Describing a session never parses the whole transcript: its head (at most
``HEAD_MAX_LINES`` lines within ``HEAD_MAX_BYTES``) and its tail (the last
``TAIL_MAX_BYTES``) are all that is read (``byte_windows``), ``MAX_BYTES_PER_SESSION``
at most, so a 400 MB transcript costs what a 400 KB one does. Within those windows only
the lines whose bytes hold a fact's token are parsed; the plain algorithms (every line
parsed) are kept in the tests as the oracles the fast ones are checked against.
"""

import bisect
import os
import re
from typing import Any, BinaryIO, Dict, Iterable, Iterator, List, NamedTuple, Optional, Tuple, Union

from termsprawl_context import byte_windows as windows
from termsprawl_context.bytescan import ESCAPE_LENGTH as _ESCAPE_LENGTH, ascii_escape_pattern
from termsprawl_context.bytescan import has_ascii_escape as _has_ascii_escape
from termsprawl_context.byte_windows import HeadWindow, TailWindow
from termsprawl_context.harness import claude as cc
from termsprawl_context.jsonl import open_regular, parse_object
from termsprawl_context.store import head_prompt
from termsprawl_context.store import summary_index as _summaries
from termsprawl_context.transcript.content import first_content_text
from termsprawl_context.transcript.entry import Entry, entry_of, is_local_command_output
from termsprawl_context.transcript.titles import (  # noqa: F401 (the title_source values, re-exported)
    TITLE_AI,
    TITLE_COMMAND,
    TITLE_CUSTOM,
    TITLE_FIRST_MESSAGE,
    TITLE_MAX_BYTES,
    TITLE_PROMPT,
    TITLE_SUMMARY,
    choose_title,
    clean_title_record_text,
    typed_command,
    typed_prompt,
)
from termsprawl_context.transcript.text import (
    sanitize_text,
    truncate_utf8,
)

# The seed reads at most this many lines for summary and first user message: both are
# expected near the beginning, and transcripts can be very large.
HEAD_MAX_LINES = 50
# ... and never more than this many bytes of them: a single 20 MB first line is not read
# whole for metadata (a line longer than the bound is skipped). 1 MiB is the seed's own
# per-line limit; real 50-line heads run 10-200 KB (the corpus median is about 100 KB).
HEAD_MAX_BYTES = 1 << 20
# The head is read in blocks this big (one or two reads hold a typical 50-line head),
# stopping at the HEAD_MAX_LINES-th newline.
HEAD_BLOCK_BYTES = 1 << 16
# Titles and the last timestamp come from the last 64 KiB, the window the harness's own
# session picker reads (one read; its lines are then walked backwards).
TAIL_MAX_BYTES = 1 << 16
# What describing one session may read, whatever the file's size.
MAX_BYTES_PER_SESSION = HEAD_MAX_BYTES + TAIL_MAX_BYTES

# The backend limit the seed truncates against; first user messages get half of it.
MAX_METADATA_FIELD_SIZE = 8 * 1024
FIRST_USER_MESSAGE_MAX_BYTES = MAX_METADATA_FIELD_SIZE // 2
# Titles, their sources and what the person typed: one rule, in transcript.titles.


class SummaryLink(NamedTuple):
    """A summary naming another session's leaf message (``leafUuid``)."""

    summary: str
    leaf_uuid: str


class ExtractionResult(NamedTuple):
    """The seed's metadata: the last local summary, the first user message, the links."""

    summary: str = ""
    first_user_message: str = ""
    summary_links: Tuple[SummaryLink, ...] = ()


class SessionMetadata(NamedTuple):
    """What a transcript's head and tail say about its session."""

    summary: str = ""
    first_user_message: str = ""
    summary_links: Tuple[SummaryLink, ...] = ()
    title: str = ""
    title_source: str = ""
    cwd: str = ""
    git_branch: str = ""
    first_timestamp: str = ""
    last_timestamp: str = ""


def extract_metadata_from_lines(lines: Iterable[Union[bytes, str]]) -> ExtractionResult:
    """The seed's ExtractMetadataFromLines over every line given.

    The first ``user`` entry with text gives the first user message (sanitised, then
    truncated to 4096 bytes); a ``summary`` without ``leafUuid`` is local (the last one
    wins); one with ``leafUuid`` is kept as a link. Blank and junk lines are skipped."""
    first_user = ""
    summary = ""
    links: List[SummaryLink] = []
    for raw in lines:
        entry = entry_of_line(raw)
        if entry is None:
            continue
        kind = entry.type
        if not first_user and kind == cc.TYPE_USER:
            first_user = _first_user_message(entry)
        elif kind == cc.TITLE_SUMMARY:
            summary = _take_summary(entry, summary, links)
    return ExtractionResult(summary, first_user, tuple(links))


def entry_of_line(raw: Union[bytes, bytearray, str]) -> Optional[Entry]:
    """The lenient entry of one line (metadata fails open), or None for junk."""
    record = parse_object(raw)
    return entry_of(record) if record is not None else None


def _first_user_message(entry: Entry) -> str:
    text = first_content_text(entry.content)
    return truncate_utf8(sanitize_text(text), FIRST_USER_MESSAGE_MAX_BYTES) if text else ""


def _take_summary(entry: Entry, summary: str, links: List[SummaryLink]) -> str:
    """Apply one summary entry: append a link, or return the new local summary."""
    text = entry.record.get(cc.FIELD_SUMMARY)
    if not isinstance(text, str) or not text:
        return summary
    leaf = entry.record.get(cc.FIELD_LEAF_UUID)
    if isinstance(leaf, str) and leaf:
        links.append(SummaryLink(sanitize_text(text), leaf))
        return summary
    return sanitize_text(text)


def extract_session_metadata(path: str) -> ExtractionResult:
    """The seed's ExtractSessionMetadata: extraction over the head of the file at
    ``path``; an empty result when it cannot be opened as a regular file."""
    meta = session_metadata(path)
    return ExtractionResult(meta.summary, meta.first_user_message, meta.summary_links)


def read_buffers() -> windows.ReadBuffers:
    """Buffers a scan reuses for every session's head and tail."""
    return windows.ReadBuffers(HEAD_BLOCK_BYTES, TAIL_MAX_BYTES)


def read_head(f: BinaryIO, size: int, buffer: Optional[bytearray] = None) -> HeadWindow:
    """A session's head: at most ``HEAD_MAX_LINES`` lines within ``HEAD_MAX_BYTES``."""
    return windows.read_head(f, size, HEAD_MAX_LINES, HEAD_MAX_BYTES, HEAD_BLOCK_BYTES, buffer)


def read_tail(f: BinaryIO, size: int, buffer: Optional[bytearray] = None) -> TailWindow:
    """A session's tail: its last ``TAIL_MAX_BYTES``."""
    return windows.read_tail(f, size, TAIL_MAX_BYTES, buffer)


def _string(record: Dict[str, Any], key: str) -> str:
    value = record.get(key)
    return value if isinstance(value, str) else ""


def _title_of(entry: Entry, session_id: str) -> Tuple[str, str]:
    """(kind, title) of a ``custom-title``/``ai-title`` entry naming this session; a
    title entry whose ``sessionId`` names another session is that session's, even when
    the harness wrote it into this file (anthropics/claude-code#27202)."""
    kind = entry.type
    if kind == TITLE_CUSTOM:
        key = cc.FIELD_CUSTOM_TITLE
    elif kind == TITLE_AI:
        key = cc.FIELD_AI_TITLE
    else:
        return "", ""
    owner = entry.session_id
    if session_id and owner and owner != session_id:
        return "", ""
    title = clean_title_record_text(_string(entry.record, key))
    return (kind, title) if title else ("", "")


class HeadFacts(NamedTuple):
    summary: str = ""
    first_user_message: str = ""
    summary_links: Tuple[SummaryLink, ...] = ()
    prompt: str = ""  # the first user text a person typed (not meta, not markup)
    custom_title: str = ""  # the last one in the head
    ai_title: str = ""
    cwd: str = ""
    git_branch: str = ""
    first_timestamp: str = ""
    command: str = ""  # the first slash command the person ran, before any prompt


class TailFacts(NamedTuple):
    custom_title: str = ""  # the last one in the tail window
    ai_title: str = ""
    last_timestamp: str = ""
    # The summary links of the window's lines from ``summaries_from`` on (file order).
    summary_links: Tuple[SummaryLink, ...] = ()


class _UserFacts:
    """The first user message and the first prompt, fed user entries in file order."""

    def __init__(self) -> None:
        self.first_user = ""
        self.prompt = ""
        self.command = ""
        self.previous = None  # the user entry fed before, which may be a local command

    def done(self) -> bool:
        return bool(self.first_user and self.prompt)

    def feed(self, entry: Entry) -> None:
        if entry.type != cc.TYPE_USER or self.done():
            return
        if not self.first_user:
            self.first_user = _first_user_message(entry)
        previous = self.previous
        if not self.prompt and not (
            previous is not None and entry.parent_uuid and entry.parent_uuid == previous.uuid
            and is_local_command_output(entry, previous)
        ):
            # The record model decides what the person typed, block by block.
            self.prompt = typed_prompt(entry)
            if not self.prompt and not self.command:
                self.command = typed_command(entry)
        self.previous = entry


# The prefilter. Each fact is decided by lines of one kind, and a line of that kind
# must hold the kind's token in its bytes, unless a JSON escape spells one of the
# token's ASCII characters (\u0020-\u007f). Lines holding such an escape (never
# written by the harness, which escapes only control characters) are always parsed,
# so the filter spares parses without ever changing an answer.
_TOKEN_USER = b'"user"'
_TOKEN_CWD = b'"cwd"'
_TOKEN_TIMESTAMP = b'"timestamp"'
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
    + b'(?<="' + re.escape(_TYPE_KEY) + b'")'
    + rb'\s*:\s*"(?:'
    + b"|".join(re.escape(kind.encode("ascii")) for kind in (cc.TITLE_SUMMARY, TITLE_CUSTOM, TITLE_AI))
    + b')"'
)
# A title entry names its title under a key ending in this (cc.FIELD_CUSTOM_TITLE,
# cc.FIELD_AI_TITLE): the tail, where no summary counts, seeks that token alone ('T'
# is rare as well).
TITLE_KEY_SUFFIX = "Title"
_TITLE_KEY_RE = re.compile(re.escape(TITLE_KEY_SUFFIX.encode("ascii") + b'"'))
_ESCAPE_ASCII_RE = ascii_escape_pattern()  # bytescan's rule: \u0020-\u007f, escapes that spell ASCII
_Token = Union[bytes, "re.Pattern[bytes]"]  # a literal, or a compiled literal


_UNPARSED = object()  # a line not parsed yet (None is a line that is no entry)


class _HeadIndex:
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
    return _scan_head(_HeadIndex(window), session_id)


def _scan_head(index: _HeadIndex, session_id: str, titles: bool = True) -> HeadFacts:
    """``scan_head_window`` over an indexed head; without ``titles`` the head's title
    entries, which the summaries' search finds too, are ignored (its custom and AI
    titles come back "")."""
    if not index.window.ends:
        return HeadFacts()
    users = _UserFacts()
    for entry in index.entries(_TOKEN_USER):
        users.feed(entry)
        if users.done():
            break
    summary = custom = ai = ""
    links: List[SummaryLink] = []
    for entry in index.entries(_KIND_RE):
        if entry.type == cc.TITLE_SUMMARY:
            summary = _take_summary(entry, summary, links)
        elif titles:
            title_kind, title = _title_of(entry, session_id)
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
    for entry in index.entries(_TOKEN_TIMESTAMP):
        first_ts = entry.timestamp
        if first_ts:
            break
    return HeadFacts(
        summary, users.first_user, tuple(links), users.prompt, custom, ai, cwd, branch, first_ts, users.command
    )


def scan_tail(lines_last_first: Iterable[bytes], session_id: str = "") -> TailFacts:
    """The plain algorithm: parse every tail line, last first, keeping the latest custom
    title, AI title and timestamp. ``scan_tail_window`` is the fast path and must
    return exactly this (the tests hold it to that); it falls back on this for a window
    holding an ASCII-spelling escape."""
    custom = ai = last_ts = ""
    for raw in lines_last_first:
        entry = entry_of_line(raw)
        if entry is None:
            continue
        if not last_ts:
            last_ts = entry.timestamp
        title_kind, title = _title_of(entry, session_id)
        if title_kind == TITLE_CUSTOM and not custom:
            custom = title
        elif title_kind == TITLE_AI and not ai:
            ai = title
    return TailFacts(custom, ai, last_ts)


def combine(head: HeadFacts, tail: TailFacts) -> SessionMetadata:
    """One session's metadata from its head and tail facts, titled by
    ``transcript.titles.choose_title`` without the store's summary index (``scan_sessions``
    applies it): a custom title (tail, then head), an AI title (tail, then head), the
    local summary, the first prompt a person typed, the first slash command, the first
    user message."""
    title, source = choose_title(
        custom=tail.custom_title or head.custom_title,
        ai=tail.ai_title or head.ai_title,
        local_summary=head.summary,
        prompt=head.prompt,
        command=head.command,
        first_message=head.first_user_message,
    )
    return SessionMetadata(
        summary=head.summary,
        first_user_message=head.first_user_message,
        summary_links=head.summary_links,
        title=title,
        title_source=source,
        cwd=head.cwd,
        git_branch=head.git_branch,
        first_timestamp=head.first_timestamp,
        last_timestamp=tail.last_timestamp,
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
        links = tail_summary_links(window, True, summaries_from)
        return facts._replace(summary_links=tuple(links))
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
        title_kind, title = _title_of(entry, session_id)
        if title_kind == TITLE_CUSTOM and not custom:
            custom = title
        elif title_kind == TITLE_AI and not ai:
            ai = title
        if custom and ai:
            break
    last_ts = ""
    while not last_ts:
        hit = data.rfind(_TOKEN_TIMESTAMP, first, end)
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
                _take_summary(entry, "", links)
    return TailFacts(custom, ai, last_ts, tuple(links))


# A summary line in the tail: its "type" key naming the kind (the head's search, one kind).
_SUMMARY_KIND_RE = re.compile(
    re.escape(_TYPE_KEY[1:] + b'"') + b'(?<="' + re.escape(_TYPE_KEY) + b'")'
    + rb'\s*:\s*"' + re.escape(cc.TITLE_SUMMARY.encode("ascii")) + b'"'
)


_TOKEN_SUMMARY_KIND = b'"' + cc.TITLE_SUMMARY.encode("ascii") + b'"'


def tail_summary_links_plain(lines_last_first: Iterable[bytes]) -> List[SummaryLink]:
    """The plain rule: the summary links (``leafUuid`` set) of every tail line, parsed,
    in file order. ``tail_summary_links`` must return exactly this."""
    links: List[SummaryLink] = []
    for raw in reversed(list(lines_last_first)):
        entry = entry_of_line(raw)
        if entry is not None and entry.type == cc.TITLE_SUMMARY:
            _take_summary(entry, "", links)
    return links


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
            _take_summary(entry, "", links)
        newline = data.find(b"\n", m.start(), end)
        if newline < 0:
            return links
        pos = newline + 1


def past_head(window: HeadWindow, tail_window: TailWindow, size: int) -> int:
    """Where, in ``tail_window.data``, the lines after the head's begin (a line's start,
    maybe before the window or past its end)."""
    head_end = window.ends[-1] + 1 if window.ends else 0
    if window.whole_file:
        return head_end  # the tail is a slice of the head's own buffer
    return head_end - max(0, size - TAIL_MAX_BYTES)  # read_tail's data[0] is that file offset


def tail_links_past_head(f: BinaryIO, size: int) -> List[SummaryLink]:
    """``tail_summary_links`` of the open transcript ``f``, past its head's lines."""
    window = read_head(f, size)
    tail = windows.tail_of_head(window, TAIL_MAX_BYTES) if window.whole_file else read_tail(f, size)
    return tail_summary_links(tail, None, past_head(window, tail, size))


def read_session_metadata(
    f: BinaryIO,
    size: int,
    session_id: str = "",
    buffers: Optional[windows.ReadBuffers] = None,
    uuids_out: Optional[List[bytes]] = None,
    tail_links_out: Optional[List[SummaryLink]] = None,
) -> SessionMetadata:
    """Describe the open transcript ``f`` of ``size`` bytes, reading at most
    ``MAX_BYTES_PER_SESSION`` of it (head and tail), never parsing it whole. When the
    first ``HEAD_MAX_LINES`` lines hold no typed prompt, the search goes on within
    ``HEAD_MAX_BYTES`` of the file's start. ``uuids_out``, when given, gets one packed
    entry: the tail window's uuids (``store.summary_index.own_uuids``), or b"" when a
    custom or AI title already names the session (no summary can outrank it).
    ``tail_links_out``, when given, gets the summary links of the tail window's lines
    past the head (``tail_summary_links``): they may name this session or another."""
    window = read_head(f, size, buffers.head if buffers else None)
    index = _HeadIndex(window)
    if window.whole_file:
        tail_window = windows.tail_of_head(window, TAIL_MAX_BYTES)  # already in memory
    else:
        tail_window = read_tail(f, size, buffers.tail if buffers else None)
    # Each window is searched once for escapes, by all of its readers; a tail inside
    # the head takes the head's census.
    first, stop = tail_window.first_whole_line(), tail_window.stop()
    if window.whole_file:
        escaped = index.escaped_within(first, stop)
    else:
        escaped = _has_ascii_escape(tail_window.data, first, stop)
    begin = past_head(window, tail_window, size) if tail_links_out is not None else None
    tail = scan_tail_window(tail_window, session_id, escaped, begin)
    # A custom title in the tail outranks every title the head could hold: the head's
    # title entries are then ignored.
    head = _scan_head(index, session_id, titles=not tail.custom_title)
    if not head.prompt:
        last_end = window.ends[-1] + 1 if window.ends else 0
        leftover = window.data[last_end : window.length]
        if window.whole_file:  # the rest of the file is in memory already
            prompt = head_prompt.first_prompt_in(iter(bytes(leftover).split(b"\n")))
        else:
            prompt = head_prompt.prompt_past_head(f, leftover, window.length, HEAD_MAX_BYTES)
        head = head._replace(prompt=prompt)
    if not window.whole_file and not tail.last_timestamp:
        # The tail window held no whole dated line (one giant last line): the head's
        # last dated line is the latest we know of.
        tail = tail._replace(last_timestamp=_last_timestamp(window))
    meta = combine(head, tail)
    if uuids_out is not None:
        titled = meta.title_source in (TITLE_CUSTOM, TITLE_AI)
        uuids_out.append(b"" if titled else _summaries.own_uuids(tail_window.data, first, stop, escaped))
    if tail_links_out is not None:
        tail_links_out.extend(tail.summary_links)
    return meta


def _last_timestamp(window: HeadWindow) -> str:
    for index in range(len(window.ends) - 1, -1, -1):
        raw = window.line(index)
        if _TOKEN_TIMESTAMP in raw or _has_ascii_escape(raw):
            entry = entry_of_line(raw)
            if entry is not None and entry.timestamp:
                return entry.timestamp
    return ""


def session_metadata(path: str, session_id: str = "") -> SessionMetadata:
    """``read_session_metadata`` of the file at ``path``; empty (fail open) when it is
    missing, unreadable or not a regular file."""
    try:
        with open_regular(path) as f:
            return read_session_metadata(f, os.fstat(f.fileno()).st_size, session_id)
    except OSError:
        return SessionMetadata()
