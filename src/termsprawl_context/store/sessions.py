"""Sessions in the harness's store: scan, find by id or prefix, describe at bounded cost.

A session is a ``<36-character stem>.jsonl`` regular file anywhere under the projects
directory (``agent-*`` files are sub-agents, not sessions). Describing one never parses
the whole transcript: its head (at most ``HEAD_MAX_LINES`` lines within
``HEAD_MAX_BYTES``) and its tail (the last ``TAIL_MAX_BYTES``) are all that is read,
``MAX_BYTES_PER_SESSION`` at most, so a 400 MB transcript costs what a 400 KB one does.
Within those windows only the lines whose bytes hold a fact's token are parsed; the
plain algorithms (every line parsed: ``scan_head``, ``scan_tail``) are kept as the
oracle the fast ones (``scan_head_window``, ``scan_tail_window``) are tested against.
"""

import bisect
import io
import os
import re
import stat
import time
from typing import (
    Any,
    BinaryIO,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    NamedTuple,
    Optional,
    TextIO,
    Tuple,
    Union,
)

from termsprawl_context._output import write_diagnostic
from termsprawl_context.errors import NotFound, Refusal
from termsprawl_context.jsonl import NotARegularFile, iter_lines_reverse, open_regular, parse_object
from termsprawl_context.store.paths import encode_project_dir, resolve_work_dir
from termsprawl_context.transcript.text import (
    collapse_whitespace,
    first_text,
    sanitize_text,
    truncate_utf8,
)

# A session file's stem is a UUID; only its length is checked, as the seed does.
UUID_LENGTH = 36
TRANSCRIPT_SUFFIX = ".jsonl"
AGENT_FILE_PREFIX = "agent-"

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
TITLE_MAX_BYTES = FIRST_USER_MESSAGE_MAX_BYTES

# Where a session's title came from, best first.
TITLE_CUSTOM = "custom-title"
TITLE_AI = "ai-title"
TITLE_SUMMARY = "summary"
TITLE_PROMPT = "prompt"
TITLE_FIRST_MESSAGE = "first-message"

# User text that is the harness talking, not the person: not a title.
_NOT_A_PROMPT_PREFIXES = (
    "[Request interrupted",
    "<command-name>",
    "<command-message>",
    "<local-command-stdout>",
    "<local-command-caveat>",
    "Caveat: The messages below were generated",
)


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


class SessionInfo(NamedTuple):
    """One session found in the store."""

    session_id: str
    transcript_path: str
    project_path: str  # the transcript's folder, relative to the projects dir
    mtime: float
    size: int
    summary: str = ""
    first_user_message: str = ""
    summary_links: Tuple[SummaryLink, ...] = ()
    title: str = ""
    title_source: str = ""
    cwd: str = ""
    git_branch: str = ""
    first_timestamp: str = ""
    last_timestamp: str = ""

    def to_dict(self) -> Dict[str, Any]:
        """Every field as plain JSON-ready data, plus ``modified`` (mtime, ISO UTC)."""
        data = self._asdict()
        data["summary_links"] = [
            {"summary": link.summary, "leaf_uuid": link.leaf_uuid} for link in self.summary_links
        ]
        data["modified"] = iso_utc(self.mtime)
        return data


class ScanResult(NamedTuple):
    sessions: List[SessionInfo]
    skipped: List[str]  # directories that could not be listed


class SessionIdNotFound(NotFound):
    """No session id equals or starts with what was asked for."""

    def __init__(self, partial: str) -> None:
        super().__init__("session not found: %s" % partial)
        self.partial = partial


class AmbiguousSession(Refusal):
    """More than one session id starts with what was asked for."""

    def __init__(self, partial: str, matches: List[SessionInfo]) -> None:
        super().__init__("ambiguous session ID '%s' matches %d sessions" % (partial, len(matches)))
        self.partial = partial
        self.matches = matches


def iso_utc(seconds: float) -> str:
    """``seconds`` since the epoch as ``YYYY-MM-DDTHH:MM:SS.mmmZ``, the transcripts' form."""
    whole = int(seconds // 1)
    millis = int(round((seconds - whole) * 1000))
    if millis == 1000:
        whole, millis = whole + 1, 0
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + ".%03dZ" % millis


# --- the seed's extraction, over lines in memory --------------------------------------


def extract_metadata_from_lines(lines: Iterable[Union[bytes, str]]) -> ExtractionResult:
    """The seed's ExtractMetadataFromLines over every line given.

    The first ``user`` entry with text gives the first user message (sanitised, then
    truncated to 4096 bytes); a ``summary`` without ``leafUuid`` is local (the last one
    wins); one with ``leafUuid`` is kept as a link. Blank and junk lines are skipped."""
    first_user = ""
    summary = ""
    links: List[SummaryLink] = []
    for raw in lines:
        entry = parse_object(raw)
        if entry is None:
            continue
        kind = entry.get("type")
        if not first_user and kind == "user":
            first_user = _first_user_message(entry)
        elif kind == "summary":
            summary = _take_summary(entry, summary, links)
    return ExtractionResult(summary, first_user, tuple(links))


def _first_user_message(entry: Dict[str, Any]) -> str:
    text = first_text(entry)
    return truncate_utf8(sanitize_text(text), FIRST_USER_MESSAGE_MAX_BYTES) if text else ""


def _take_summary(entry: Dict[str, Any], summary: str, links: List[SummaryLink]) -> str:
    """Apply one summary entry: append a link, or return the new local summary."""
    text = entry.get("summary")
    if not isinstance(text, str) or not text:
        return summary
    leaf = entry.get("leafUuid")
    if isinstance(leaf, str) and leaf:
        links.append(SummaryLink(sanitize_text(text), leaf))
        return summary
    return sanitize_text(text)


def extract_session_metadata(path: str) -> ExtractionResult:
    """The seed's ExtractSessionMetadata: extraction over the head of the file at
    ``path``; an empty result when it cannot be opened as a regular file."""
    meta = session_metadata(path)
    return ExtractionResult(meta.summary, meta.first_user_message, meta.summary_links)


# --- bounded reads ----------------------------------------------------------------------


class ReadBuffers:
    """Buffers one scan reads every session into. A fresh 64 KiB bytes object per read
    costs more than the read itself (the allocator hands the pages back and faults them
    in again), so a scan allocates these once and reuses them for every file."""

    def __init__(self) -> None:
        self.head = bytearray(HEAD_BLOCK_BYTES)  # grown by read_head when a head needs it
        self.tail = bytearray(TAIL_MAX_BYTES)


class HeadWindow(NamedTuple):
    """The bytes read from a file's start (``data[:length]``) and where its first lines
    end: ``ends[i]`` is the offset of the newline ending line i (or of the file's end,
    for a torn last line). At most ``HEAD_MAX_LINES`` lines, within ``HEAD_MAX_BYTES``.
    ``data`` may be a scan's reused buffer: valid until the next read into it."""

    data: Union[bytes, bytearray]
    ends: List[int]
    whole_file: bool  # ``data[:length]`` is the entire file
    length: int

    def line(self, index: int) -> bytes:
        start = self.ends[index - 1] + 1 if index else 0
        return bytes(self.data[start : self.ends[index]])

    def lines(self) -> List[bytes]:
        return [self.line(i) for i in range(len(self.ends))]


def read_head(f: BinaryIO, size: int, buffer: Optional[bytearray] = None) -> HeadWindow:
    """Read the file's first lines in ``HEAD_BLOCK_BYTES`` blocks, stopping at the
    ``HEAD_MAX_LINES``-th newline, at ``HEAD_MAX_BYTES`` or at the end of the file. A
    line that does not end within the bound is not a line of the head (a 20 MB first
    line is skipped, not read whole); a last unterminated line counts only at the end
    of the file, as a line scanner sees it. ``buffer`` is read into (and grown) when
    given."""
    buf = buffer if buffer is not None else bytearray(HEAD_BLOCK_BYTES)
    f.seek(0)
    ends: List[int] = []
    total = 0
    at_end = False
    while total < HEAD_MAX_BYTES and len(ends) < HEAD_MAX_LINES:
        want = min(HEAD_BLOCK_BYTES, HEAD_MAX_BYTES - total)
        if len(buf) < total + want:
            buf.extend(bytes(total + want - len(buf)))  # never beyond HEAD_MAX_BYTES
        with memoryview(buf) as view, view[total : total + want] as part:
            got = f.readinto(part) or 0  # type: ignore[attr-defined]
        pos = total
        while len(ends) < HEAD_MAX_LINES:
            cut = buf.find(b"\n", pos, total + got)
            if cut < 0:
                break
            ends.append(cut)
            pos = cut + 1
        total += got
        if got < want:
            at_end = True
            break
    at_end = at_end or total >= size
    last_end = ends[-1] + 1 if ends else 0
    if at_end and len(ends) < HEAD_MAX_LINES and last_end < total:
        ends.append(total)
    return HeadWindow(buf, ends, at_end, total)


def read_head_lines(f: BinaryIO, size: int) -> List[bytes]:
    """The head's lines as ``read_head`` finds them."""
    return read_head(f, size).lines()


class TailWindow(NamedTuple):
    """The file's last ``TAIL_MAX_BYTES`` (all of it when smaller): ``data[start:end]``."""

    data: Union[bytes, bytearray]
    cut: bool  # the window starts inside the file: its first line is not whole
    start: int = 0
    end: Optional[int] = None  # None: len(data)

    def stop(self) -> int:
        return len(self.data) if self.end is None else self.end

    def first_whole_line(self) -> int:
        """Offset of the window's first whole line; ``stop()`` when it has none."""
        if not self.cut:
            return self.start
        newline = self.data.find(b"\n", self.start, self.stop())
        return self.stop() if newline < 0 else newline + 1

    def lines_last_first(self) -> Iterator[bytes]:
        """The window's whole lines, last first, split by the reverse line reader."""
        body = bytes(self.data[self.first_whole_line() : self.stop()])
        for _, raw in iter_lines_reverse(io.BytesIO(body), end=len(body)):  # type: ignore[arg-type]
            yield raw


def read_tail(f: BinaryIO, size: int, buffer: Optional[bytearray] = None) -> TailWindow:
    """The last ``TAIL_MAX_BYTES`` of a file of ``size`` bytes, in one bounded read
    (into ``buffer``, ``TAIL_MAX_BYTES`` long, when given)."""
    start = max(0, size - TAIL_MAX_BYTES)
    want = size - start
    buf = buffer if buffer is not None else bytearray(want)
    f.seek(start)
    with memoryview(buf) as view, view[:want] as part:
        got = f.readinto(part) or 0  # type: ignore[attr-defined]
    return TailWindow(buf, start > 0, 0, got)


def tail_of_head(window: HeadWindow) -> TailWindow:
    """The tail window of a file the head read whole, without reading it again."""
    start = max(0, window.length - TAIL_MAX_BYTES)
    return TailWindow(window.data, start > 0, start, window.length)


class _Window:
    """The bytes of ``f`` from ``start`` on, addressed from 0: lets the reverse line
    reader walk the tail without ever seeking before it."""

    def __init__(self, f: BinaryIO, start: int) -> None:
        self._f = f
        self._start = start

    def seek(self, pos: int, whence: int = 0) -> int:
        return self._f.seek(self._start + pos, whence) - self._start

    def read(self, size: int = -1) -> bytes:
        return self._f.read(size)


def iter_tail_lines(f: BinaryIO, size: int) -> Iterator[bytes]:
    """The whole lines of the file's last ``TAIL_MAX_BYTES``, last first, read lazily
    backwards from the file in bounded blocks; the line cut by the window's start is
    not yielded. The plain reader the tail window is checked against."""
    start = max(0, size - TAIL_MAX_BYTES)
    window = _Window(f, start)
    for offset, raw in iter_lines_reverse(window, end=size - start):  # type: ignore[arg-type]
        if offset == 0 and start > 0:
            return
        yield raw


# --- metadata from the head and the tail -----------------------------------------------


def _string(entry: Dict[str, Any], key: str) -> str:
    value = entry.get(key)
    return value if isinstance(value, str) else ""


def _is_prompt(entry: Dict[str, Any], text: str) -> bool:
    """True when a user entry's text is something a person typed, fit for a title."""
    if entry.get("isMeta") is True or entry.get("isCompactSummary") is True:
        return False
    return not text.lstrip().startswith(_NOT_A_PROMPT_PREFIXES)


def _title_of(entry: Dict[str, Any], session_id: str) -> Tuple[str, str]:
    """(kind, title) of a ``custom-title``/``ai-title`` entry naming this session; a
    title entry whose ``sessionId`` names another session is that session's, even when
    the harness wrote it into this file (anthropics/claude-code#27202)."""
    kind = entry.get("type")
    if kind == TITLE_CUSTOM:
        key = "customTitle"
    elif kind == TITLE_AI:
        key = "aiTitle"
    else:
        return "", ""
    owner = entry.get("sessionId")
    if session_id and isinstance(owner, str) and owner and owner != session_id:
        return "", ""
    title = truncate_utf8(collapse_whitespace(_string(entry, key)), TITLE_MAX_BYTES)
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


class TailFacts(NamedTuple):
    custom_title: str = ""  # the last one in the tail window
    ai_title: str = ""
    last_timestamp: str = ""


class _UserFacts:
    """The first user message and the first prompt, fed user entries in file order."""

    def __init__(self) -> None:
        self.first_user = ""
        self.prompt = ""

    def done(self) -> bool:
        return bool(self.first_user and self.prompt)

    def feed(self, entry: Dict[str, Any]) -> None:
        if entry.get("type") != "user" or self.done():
            return
        text = first_text(entry)
        if not text:
            return
        clean = sanitize_text(text)
        if not self.first_user:
            self.first_user = truncate_utf8(clean, FIRST_USER_MESSAGE_MAX_BYTES)
        if not self.prompt and _is_prompt(entry, text):
            self.prompt = truncate_utf8(clean, TITLE_MAX_BYTES)


def scan_head(lines: Iterable[Union[bytes, str]], session_id: str = "") -> HeadFacts:
    """The plain algorithm: parse every head line in order. ``scan_head_window`` is the
    fast path and must return exactly this; the tests hold it to that."""
    users = _UserFacts()
    summary = cwd = branch = first_ts = custom = ai = ""
    links: List[SummaryLink] = []
    for raw in lines:
        entry = parse_object(raw)
        if entry is None:
            continue
        users.feed(entry)
        if entry.get("type") == "summary":
            summary = _take_summary(entry, summary, links)
        title_kind, title = _title_of(entry, session_id)
        if title_kind == TITLE_CUSTOM:
            custom = title
        elif title_kind == TITLE_AI:
            ai = title
        if not cwd:
            cwd = _string(entry, "cwd")
            if cwd:
                branch = _string(entry, "gitBranch")  # the branch the session started on
        if not first_ts:
            first_ts = _string(entry, "timestamp")
    return HeadFacts(summary, users.first_user, tuple(links), users.prompt, custom, ai, cwd, branch, first_ts)


# The prefilter. Each fact is decided by lines of one kind, and a line of that kind
# must hold the kind's token in its bytes, unless a JSON escape spells one of the
# token's ASCII characters (\u0020-\u007f). Lines holding such an escape (never
# written by the harness, which escapes only control characters) are always parsed,
# so the filter spares parses without ever changing an answer.
_TOKEN_USER = b'"user"'
_TOKEN_SUMMARY = b'"summary"'
_TOKEN_TITLE = b'-title"'
_TOKEN_CWD = b'"cwd"'
_TOKEN_TIMESTAMP = b'"timestamp"'
# The regex engine skips to a token's first byte, which beats bytes.find when that byte
# is rare ("-", "\\"); bytes.find is kept where it is faster (tokens opening with '"').
_TITLE_RE = re.compile(re.escape(_TOKEN_TITLE))
_ESCAPE_ASCII_RE = re.compile(rb"\\u00[2-7]")  # \u0020-\u007f: escapes that spell ASCII
_Token = Union[bytes, "re.Pattern[bytes]"]  # a literal, or a compiled literal


def _has_ascii_escape(raw: Union[bytes, bytearray], start: int = 0, end: Optional[int] = None) -> bool:
    return _ESCAPE_ASCII_RE.search(raw, start, len(raw) if end is None else end) is not None


class _HeadIndex:
    """Line lookups over a head window: which lines hold a token, parsed once each."""

    def __init__(self, window: HeadWindow) -> None:
        self.window = window
        self.limit = window.ends[-1] if window.ends else 0
        self.parsed: Dict[int, Optional[Dict[str, Any]]] = {}
        found = _ESCAPE_ASCII_RE.finditer(window.data, 0, self.limit)
        self.escaped = sorted({self.line_of(m.start()) for m in found})

    def line_of(self, pos: int) -> int:
        return bisect.bisect_left(self.window.ends, pos)

    def entry(self, index: int) -> Optional[Dict[str, Any]]:
        if index not in self.parsed:
            self.parsed[index] = parse_object(self.window.line(index))
        return self.parsed[index]

    def _token_lines(self, token: _Token) -> Iterator[int]:
        data, ends, limit = self.window.data, self.window.ends, self.limit

        def find(pos: int) -> int:
            if isinstance(token, bytes):
                return data.find(token, pos, limit)
            match = token.search(data, pos, limit)
            return match.start() if match else -1

        pos = find(0)
        while pos >= 0:
            index = bisect.bisect_left(ends, pos)
            yield index
            pos = find(ends[index] + 1)

    def entries(self, token: _Token) -> Iterator[Dict[str, Any]]:
        """Parsed entries of the lines that may hold a ``token`` fact, in file order."""
        indexes: Iterable[int] = self._token_lines(token)
        if self.escaped:
            indexes = sorted(set(indexes) | set(self.escaped))
        for index in indexes:
            entry = self.entry(index)
            if entry is not None:
                yield entry


def scan_head_window(window: HeadWindow, session_id: str = "") -> HeadFacts:
    """``scan_head`` over the window's lines, parsing only lines whose bytes hold the
    token of the fact being sought, and stopping each search once its fact is known."""
    if not window.ends:
        return HeadFacts()
    index = _HeadIndex(window)
    users = _UserFacts()
    for entry in index.entries(_TOKEN_USER):
        users.feed(entry)
        if users.done():
            break
    summary = ""
    links: List[SummaryLink] = []
    for entry in index.entries(_TOKEN_SUMMARY):
        if entry.get("type") == "summary":
            summary = _take_summary(entry, summary, links)
    custom = ai = ""
    for entry in index.entries(_TITLE_RE):
        title_kind, title = _title_of(entry, session_id)
        if title_kind == TITLE_CUSTOM:
            custom = title
        elif title_kind == TITLE_AI:
            ai = title
    cwd = branch = ""
    for entry in index.entries(_TOKEN_CWD):
        cwd = _string(entry, "cwd")
        if cwd:
            branch = _string(entry, "gitBranch")
            break
    first_ts = ""
    for entry in index.entries(_TOKEN_TIMESTAMP):
        first_ts = _string(entry, "timestamp")
        if first_ts:
            break
    return HeadFacts(summary, users.first_user, tuple(links), users.prompt, custom, ai, cwd, branch, first_ts)


def scan_tail(lines_last_first: Iterable[bytes], session_id: str = "") -> TailFacts:
    """The plain algorithm: parse every tail line, last first, keeping the latest custom
    title, AI title and timestamp. ``scan_tail_window`` is the fast path and must
    return exactly this; the tests hold it to that."""
    custom = ai = last_ts = ""
    for raw in lines_last_first:
        entry = parse_object(raw)
        if entry is None:
            continue
        if not last_ts:
            last_ts = _string(entry, "timestamp")
        title_kind, title = _title_of(entry, session_id)
        if title_kind == TITLE_CUSTOM and not custom:
            custom = title
        elif title_kind == TITLE_AI and not ai:
            ai = title
    return TailFacts(custom, ai, last_ts)


def combine(head: HeadFacts, tail: TailFacts) -> SessionMetadata:
    """One session's metadata from its head and tail facts. Title precedence is the
    harness's own: a custom title (tail, then head), an AI title (tail, then head), then
    the local summary, the first prompt a person typed, the first user message."""
    candidates = (
        (tail.custom_title or head.custom_title, TITLE_CUSTOM),
        (tail.ai_title or head.ai_title, TITLE_AI),
        # The summary field stays whole (the seed's); as a title it is cut like every other.
        (truncate_utf8(head.summary, TITLE_MAX_BYTES), TITLE_SUMMARY),
        (head.prompt, TITLE_PROMPT),
        (head.first_user_message, TITLE_FIRST_MESSAGE),
    )
    title, source = next(((t, s) for t, s in candidates if t), ("", ""))
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


def _line_entry(data: Union[bytes, bytearray], hit: int, first: int, end: int) -> Tuple[int, Optional[Dict[str, Any]]]:
    """(start, parsed entry) of the line of ``data[first:end]`` holding offset ``hit``."""
    newline = data.rfind(b"\n", first, hit)
    start = first if newline < 0 else newline + 1
    stop = data.find(b"\n", hit, end)
    return start, parse_object(bytes(data[start : stop if stop >= 0 else end]))


def scan_tail_window(window: TailWindow, session_id: str = "") -> TailFacts:
    """``scan_tail`` over the window's whole lines, parsing only the latest lines holding
    a title or timestamp token, found by searching the bytes (no line is split or
    walked). A window with an ASCII-spelling escape (never written by the harness) is
    walked line by line with the plain algorithm instead."""
    data, first, end = window.data, window.first_whole_line(), window.stop()
    if _has_ascii_escape(data, first, end):
        return scan_tail(window.lines_last_first(), session_id)
    custom = ai = ""
    floor = end
    for hit in reversed([m.start() for m in _TITLE_RE.finditer(data, first, end)]):
        if hit >= floor:
            continue  # on a line already read
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
            last_ts = _string(entry, "timestamp")
    return TailFacts(custom, ai, last_ts)


def read_session_metadata(
    f: BinaryIO, size: int, session_id: str = "", buffers: Optional[ReadBuffers] = None
) -> SessionMetadata:
    """Describe the open transcript ``f`` of ``size`` bytes, reading at most
    ``MAX_BYTES_PER_SESSION`` of it (head and tail), never parsing it whole."""
    window = read_head(f, size, buffers.head if buffers else None)
    head = scan_head_window(window, session_id)
    if window.whole_file:
        tail = scan_tail_window(tail_of_head(window), session_id)  # already in memory
    else:
        tail = scan_tail_window(read_tail(f, size, buffers.tail if buffers else None), session_id)
        if not tail.last_timestamp:
            # The tail window held no whole dated line (one giant last line): the head's
            # last dated line is the latest we know of.
            tail = tail._replace(last_timestamp=_last_timestamp(window))
    return combine(head, tail)


def _last_timestamp(window: HeadWindow) -> str:
    for index in range(len(window.ends) - 1, -1, -1):
        raw = window.line(index)
        if _TOKEN_TIMESTAMP in raw or _has_ascii_escape(raw):
            entry = parse_object(raw)
            if entry is not None and _string(entry, "timestamp"):
                return _string(entry, "timestamp")
    return ""


def session_metadata(path: str, session_id: str = "") -> SessionMetadata:
    """``read_session_metadata`` of the file at ``path``; empty (fail open) when it is
    missing, unreadable or not a regular file."""
    try:
        with open_regular(path) as f:
            return read_session_metadata(f, os.fstat(f.fileno()).st_size, session_id)
    except OSError:
        return SessionMetadata()


# --- scanning the store -----------------------------------------------------------------


def is_session_file_name(name: str) -> bool:
    """``<36-character stem>.jsonl`` and not an ``agent-`` file."""
    return (
        name.endswith(TRANSCRIPT_SUFFIX)
        and not name.startswith(AGENT_FILE_PREFIX)
        and len(name) - len(TRANSCRIPT_SUFFIX) == UUID_LENGTH
    )


def session_id_of(name: str) -> str:
    return name[: -len(TRANSCRIPT_SUFFIX)]


def session_from_path(
    path: str, projects_dir: str, buffers: Optional[ReadBuffers] = None
) -> Optional[SessionInfo]:
    """The seed's parseSessionFromPath: the session at ``path``, or None when the name
    is not a session's or the path is not a regular file (a directory, a FIFO). A
    regular file that cannot be read is listed with no metadata, as the seed lists it."""
    name = os.path.basename(path)
    if not is_session_file_name(name):
        return None
    session_id = session_id_of(name)
    meta = SessionMetadata()
    try:
        f = open_regular(path)
    except NotARegularFile:
        return None
    except OSError:
        try:
            st = os.stat(path)
        except OSError:
            return None  # gone since it was listed
        if not stat.S_ISREG(st.st_mode):
            return None
    else:
        with f:
            st = os.fstat(f.fileno())
            try:
                meta = read_session_metadata(f, st.st_size, session_id, buffers)
            except OSError:
                pass  # an I/O error mid-read: the session is there, its metadata is not
    project = project_path_of(path, projects_dir)
    return SessionInfo(session_id, path, project, st.st_mtime, st.st_size, **meta._asdict())


def project_path_of(path: str, projects_dir: str) -> str:
    """The folder of ``path`` relative to ``projects_dir`` ("." for the dir itself)."""
    folder = os.path.dirname(path)
    if not projects_dir:
        return ""
    if folder == projects_dir:
        return "."
    if folder.startswith(projects_dir + os.sep):
        return folder[len(projects_dir) + 1 :]  # the walk's own paths: no syscalls needed
    return os.path.relpath(folder, projects_dir)


def list_directory(path: str) -> List[Tuple[str, bool]]:
    """(name, is a real directory) for each entry, sorted by name; raises OSError when
    the directory cannot be listed. Symlinks to directories are not followed."""
    entries = []
    with os.scandir(path) as it:
        for entry in it:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            entries.append((entry.name, is_dir))
    entries.sort()
    return entries


def iter_candidate_paths(root: str, skipped: List[str]) -> Iterator[str]:
    """Paths under ``root`` whose names are session file names, depth first in name
    order; directories that cannot be listed are appended to ``skipped`` once each and
    the walk goes on."""
    stack = [root]
    while stack:
        directory = stack.pop()
        try:
            entries = list_directory(directory)
        except OSError:
            skipped.append(directory)
            continue
        subdirs = []
        for name, is_dir in entries:
            path = os.path.join(directory, name)
            if is_dir:
                subdirs.append(path)
            elif is_session_file_name(name):
                yield path
        stack.extend(reversed(subdirs))


def project_store_dir(projects_dir: str, work_dir: str) -> str:
    """The store folder holding the sessions run in ``work_dir``."""
    return os.path.join(projects_dir, encode_project_dir(resolve_work_dir(work_dir)))


def _scan_root(projects_dir: str, project: Optional[str]) -> str:
    if not projects_dir:
        return ""
    return project_store_dir(projects_dir, project) if project else projects_dir


def scan_sessions(
    projects_dir: str,
    project: Optional[str] = None,
    accept: Optional[Callable[[str], bool]] = None,
) -> ScanResult:
    """Every session under ``projects_dir`` (only ``project``'s folder when given),
    oldest first by mtime. ``accept(session_id)`` may narrow the set before any file is
    opened. A missing store is an empty one."""
    root = _scan_root(projects_dir, project)
    skipped: List[str] = []
    if not root or not os.path.isdir(root):
        return ScanResult([], skipped)
    sessions = []
    buffers = ReadBuffers()
    for path in iter_candidate_paths(root, skipped):
        if accept is not None and not accept(session_id_of(os.path.basename(path))):
            continue
        info = session_from_path(path, projects_dir, buffers)
        if info is not None:
            sessions.append(info)
    sessions.sort(key=lambda s: s.mtime)
    return ScanResult(sessions, skipped)


def format_skipped_paths(paths: List[str], operation: str) -> str:
    """The seed's warning about unreadable paths (without its log-file pointer); "" for
    none."""
    if not paths:
        return ""
    lines = ["", "\u26a0 Warning: Could not access %d path(s) during %s:" % (len(paths), operation)]
    lines.extend("  - %s" % p for p in paths)
    lines.append("Check their permissions; the rest of the store was read.")
    return "\n".join(lines) + "\n\n"


def _report_skipped(paths: List[str], operation: str, stderr: Optional[TextIO]) -> None:
    text = format_skipped_paths(paths, operation)
    if text:
        write_diagnostic(text, stderr)  # the listing stands even when stderr is closed


def scan_all_sessions(
    projects_dir: str, project: Optional[str] = None, stderr: Optional[TextIO] = None
) -> List[SessionInfo]:
    """The seed's ScanAllSessions: ``scan_sessions``, with directories that could not
    be read reported once on ``stderr`` while the rest is listed."""
    result = scan_sessions(projects_dir, project)
    _report_skipped(result.skipped, "scan", stderr)
    return result.sessions


def find_session(partial: str, projects_dir: str, stderr: Optional[TextIO] = None) -> SessionInfo:
    """The seed's FindSessionByID: the one session whose id equals or starts with
    ``partial``. Raises ``SessionIdNotFound`` or ``AmbiguousSession`` (exit 1)."""
    result = scan_sessions(projects_dir, accept=lambda session_id: session_id.startswith(partial))
    _report_skipped(result.skipped, "search", stderr)
    if not result.sessions:
        raise SessionIdNotFound(partial)
    if len(result.sessions) > 1:
        raise AmbiguousSession(partial, result.sessions)
    return result.sessions[0]
