"""What a session's transcript says about it (first message and prompt, summary, titles,
directory, branch, first and last timestamps), read from a bounded head and tail window:
at most ``MAX_BYTES_PER_SESSION``, so a 400 MB transcript costs what a 400 KB one does. The
rules over the entries come first, then the scanners that pick the entries they read, then
Claude Code's sessions so described: the whole store at once (``sessions``) or one alone
(``find --json``, ``show``, ``search``'s hits, the hand-off's headers).

Two ways read the facts from the windows and answer alike. The plain scanners
(``PLAIN_SCANNER``) parse every whole line. The fast ones (``FAST_SCANNER``) search the bytes
for each fact's token, parse only the lines that may hold it and stop once it is known; a line
or window holding a JSON escape that spells an ASCII character (``bytescan``'s rule) is parsed
whole. ``scanner`` is the switch; the session tests run under both (tests/scanner_fixtures.py).
benchmarks/FAST_PATHS.md names the row that keeps the fast one: where 50-line heads run to
1 MiB of tool results, parsing every line puts ``sessions --json`` behind the peers it must beat.

A session no custom or AI title names is titled by a summary naming one of its messages
(``summary_index``): the listing indexes every head and tail it reads; one session alone,
those of its own project folder whose bytes may name one of its messages (never the whole
store nor any file whole).
"""

import bisect
import os
import re
from typing import Any, BinaryIO, Callable, Dict, Iterable, Iterator, List, NamedTuple, Optional, Tuple, Union

from termsprawl_context import byte_windows as windows
from termsprawl_context.byte_windows import HeadWindow, TailWindow, iter_lines_within
from termsprawl_context.bytescan import ascii_escape_pattern, has_ascii_escape as _has_ascii_escape
from termsprawl_context import model as cc
from termsprawl_context.errors import NotARegularFile
from termsprawl_context.harness.base import regular_stat
from termsprawl_context.harness.claude import HARNESS, summary_index
from termsprawl_context.harness.claude.facts import TRANSCRIPT_SUFFIX
from termsprawl_context.harness.claude.summary_index import SummaryIndex, apply_to_title, index_sessions
from termsprawl_context.jsonl import open_regular, parse_object
from termsprawl_context.model import Entry, SessionInfo, SummaryLink, entry_of
from termsprawl_context.transcript.content import first_content_text
from termsprawl_context.transcript.slash_commands import is_local_command_output
from termsprawl_context.transcript.text import sanitize_text, truncate_utf8
from termsprawl_context.transcript.titles import (
    TITLE_AI,
    TITLE_CUSTOM,
    Title,
    choose_title,
    clean_title_record_text,
    first_typed_prompt,
    typed_command,
    typed_prompt,
)


# Half the backend's 8 KiB metadata field limit, which the seed truncates against.
FIRST_USER_MESSAGE_MAX_BYTES = 8 * 1024 // 2


def entry_of_line(raw: Union[bytes, bytearray, str]) -> Optional[Entry]:
    """The lenient entry of one line (metadata fails open), or None for junk."""
    record = parse_object(raw)
    return entry_of(record) if record is not None else None


def take_summary(entry: Entry, summary: str, links: List[SummaryLink]) -> str:
    """Apply one summary entry: append a link, or return the new local summary."""
    text = entry.record.get(cc.FIELD_SUMMARY)
    if not isinstance(text, str) or not text:
        return summary
    leaf = entry.record.get(cc.FIELD_LEAF_UUID)
    if isinstance(leaf, str) and leaf:
        links.append(SummaryLink(sanitize_text(text), leaf))
        return summary
    return sanitize_text(text)


_TITLE_KEYS = {TITLE_CUSTOM: cc.FIELD_CUSTOM_TITLE, TITLE_AI: cc.FIELD_AI_TITLE}


def title_of(entry: Entry, session_id: str) -> Tuple[str, str]:
    """(kind, title) of a custom or AI title entry naming this session: one naming another is
    that session's, even in this file (anthropics/claude-code#27202)."""
    key = _TITLE_KEYS.get(entry.type)
    owner = entry.session_id
    if key is None or (session_id and owner and owner != session_id):
        return "", ""
    title = clean_title_record_text(cc.as_str(entry.record.get(key)))
    return (entry.type, title) if title else ("", "")


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


def combine(head: HeadFacts, tail: TailFacts) -> SessionInfo:
    """One session's metadata, titled by ``choose_title`` (tail before head), no summary index yet."""
    title, source = choose_title(
        custom=tail.custom_title or head.custom_title,
        ai=tail.ai_title or head.ai_title,
        local_summary=head.summary,
        prompt=head.prompt,
        command=head.command,
        first_message=head.first_user_message,
    )
    shared = {name: value for name, value in head._asdict().items() if name in SessionInfo._fields}
    return SessionInfo(title=title, title_source=source, last_timestamp=tail.last_timestamp, **shared)


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
    """The head's facts, each from the entries (file order) that may hold it, read until it is known."""
    first_user = prompt = command = ""  # the first slash command is one run before any prompt
    previous: Optional[Entry] = None  # the user entry before, which may be a local command
    for entry in users_from:
        if entry.type != cc.TYPE_USER:
            continue
        text = "" if first_user else first_content_text(entry.content)
        if text:
            first_user = truncate_utf8(sanitize_text(text), FIRST_USER_MESSAGE_MAX_BYTES)
        if not prompt and not (
            previous is not None
            and entry.parent_uuid
            and entry.parent_uuid == previous.uuid
            and is_local_command_output(entry, previous)
        ):
            # The record model decides what the person typed, block by block.
            prompt = typed_prompt(entry)
            if not prompt and not command:
                command = typed_command(entry)
        if first_user and prompt:
            break
        previous = entry
    summary = ""
    titles: Dict[str, str] = {}  # title kind -> the last one
    links: List[SummaryLink] = []
    for entry in kinds_from:
        if entry.type == cc.TITLE_SUMMARY:
            summary = take_summary(entry, summary, links)
        else:
            kind, title = title_of(entry, session_id)
            titles[kind] = title
    start = next((entry for entry in cwds_from if entry.cwd), None)
    cwd, branch = (start.cwd, start.git_branch) if start is not None else ("", "")  # the branch it started on
    first_ts = next((entry.timestamp for entry in times_from if entry.timestamp), "")
    custom, ai = titles.get(TITLE_CUSTOM, ""), titles.get(TITLE_AI, "")
    return HeadFacts(summary, first_user, tuple(links), prompt, custom, ai, cwd, branch, first_ts, command)


def _tail_facts(
    session_id: str, kinds_last_first: Iterable[Entry], times_last_first: Iterable[Entry], summaries: Iterable[Entry]
) -> TailFacts:
    """The latest titles and timestamp, each from the entries (last first) that may hold it; ``summaries``' links."""
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
    """The tail's facts from all its whole lines, and the summary links of those from ``summaries_from`` on."""
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


# --- the windows, and one session read through the switch ---------------------------------

# The seed reads at most 50 lines for summary and first user message (both sit near the
# start; transcripts can be huge), within the seed's 1 MiB line limit: a 20 MB first line is
# skipped, not read (real 50-line heads run 10-200 KB, the corpus median about 100 KB).
HEAD_MAX_LINES = 50
HEAD_MAX_BYTES = 1 << 20
HEAD_BLOCK_BYTES = 1 << 16  # one or two reads hold a typical head
# Titles and the last timestamp come from the last 64 KiB, the window the harness's own
# session picker reads.
TAIL_MAX_BYTES = 1 << 16
# What describing one session may read, whatever the file's size.
MAX_BYTES_PER_SESSION = HEAD_MAX_BYTES + TAIL_MAX_BYTES


def read_head(f: BinaryIO, size: int, buffer: Optional[bytearray] = None) -> HeadWindow:
    """A session's head: at most ``HEAD_MAX_LINES`` lines within ``HEAD_MAX_BYTES``."""
    return windows.read_head(f, size, HEAD_MAX_LINES, HEAD_MAX_BYTES, HEAD_BLOCK_BYTES, buffer)


def read_tail_past(
    f: BinaryIO, size: int, window: HeadWindow, buffer: Optional[bytearray] = None
) -> Tuple[TailWindow, int]:
    """The tail window of ``f`` whose head is ``window``, and where in its data the lines past the head begin."""
    head_end = window.ends[-1] + 1 if window.ends else 0
    if window.whole_file:  # the tail is a slice of the head's own buffer
        return windows.tail_of_head(window, TAIL_MAX_BYTES), head_end
    tail = windows.read_tail(f, size, TAIL_MAX_BYTES, buffer)  # the last TAIL_MAX_BYTES
    return tail, head_end - max(0, size - TAIL_MAX_BYTES)  # its data[0] is that offset


def read_session_metadata(
    f: BinaryIO,
    size: int,
    session_id: str = "",
    buffers: Optional[windows.ReadBuffers] = None,
    uuids_out: Optional[List[bytes]] = None,
    tail_links_out: Optional[List[SummaryLink]] = None,
) -> SessionInfo:
    """The open transcript ``f`` described from its head and tail. ``uuids_out`` gets the tail's packed uuids
    (b"" under a custom or AI title: no summary outranks it); ``tail_links_out``, its summary links past the head."""
    window = read_head(f, size, buffers.head if buffers else None)
    tail_window, past_head = read_tail_past(f, size, window, buffers.tail if buffers else None)
    begin = past_head if tail_links_out is not None else None
    escaped = scanner.census(tail_window)  # searched once, for all of the tail's readers (fast or plain)
    tail = scanner.tail(tail_window, session_id, begin, escaped)
    head = scanner.head(window, session_id)
    if not head.prompt:
        head = head._replace(prompt=_prompt_past_head(f, window))
    if not window.whole_file and not tail.last_timestamp:
        # The tail window held no whole dated line (one giant last line): the head's
        # last dated line is the latest we know of.
        entries = map(entry_of_line, reversed(window.lines()))
        tail = tail._replace(last_timestamp=next((e.timestamp for e in entries if e is not None and e.timestamp), ""))
    meta = combine(head, tail)
    if uuids_out is not None:
        titled = meta.title_source in (TITLE_CUSTOM, TITLE_AI)
        uuids_out.append(b"" if titled else scanner.tail_uuids(tail_window, escaped))
    if tail_links_out is not None:
        tail_links_out.extend(tail.summary_links)
    return meta


def _prompt_past_head(f: BinaryIO, window: HeadWindow) -> str:
    """The first typed prompt past a head with none (compaction summary, slash commands), within ``HEAD_MAX_BYTES``."""
    last_end = window.ends[-1] + 1 if window.ends else 0
    leftover = window.data[last_end : window.length]
    if window.whole_file:  # the rest of the file is in memory already
        lines = iter(bytes(leftover).split(b"\n"))
    elif window.length >= HEAD_MAX_BYTES:
        return ""
    else:
        lines = iter_lines_within(f, leftover, window.length, HEAD_MAX_BYTES)
    return first_typed_prompt(parse_object(raw) for raw in lines)


def session_metadata(path: str, session_id: str = "", uuids_out: Optional[List[bytes]] = None) -> SessionInfo:
    """``read_session_metadata`` of ``path``; empty (fail open) when it cannot be read."""
    try:
        with open_regular(path) as f:
            return read_session_metadata(f, os.fstat(f.fileno()).st_size, session_id, uuids_out=uuids_out)
    except OSError:
        return SessionInfo()


# --- one session described ---------------------------------------------------------------


def session_from_path(
    path: str,
    projects_dir: str,
    buffers: Optional[windows.ReadBuffers] = None,
    uuids_out: Optional[List[bytes]] = None,
    tail_links_out: Optional[List[SummaryLink]] = None,
) -> Optional[SessionInfo]:
    """The seed's parseSessionFromPath: None when the name is not a session's or it is no regular
    file; an unreadable one has no metadata, as in the seed (``*_out``: ``read_session_metadata``'s)."""
    name = os.path.basename(path)
    if not HARNESS.is_session_file_name(name):
        return None
    session_id = name[: -len(TRANSCRIPT_SUFFIX)]
    meta = SessionInfo()
    try:
        f = open_regular(path)
    except NotARegularFile:
        return None
    except OSError:
        st = regular_stat(path)  # unreadable, it is listed; gone since it was listed, it is not
        if st is None:
            return None
    else:
        with f:
            st = os.fstat(f.fileno())
            try:
                meta = read_session_metadata(f, st.st_size, session_id, buffers, uuids_out, tail_links_out)
            except OSError:
                pass  # an I/O error mid-read: the session is there, its metadata is not
    return meta._replace(
        session_id=session_id,
        transcript_path=path,
        project_path=project_path_of(path, projects_dir),
        mtime=st.st_mtime,
        size=st.st_size,
        harness=HARNESS.name,
    )


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


def describe_alone(
    path: str,
    mtime: float = 0.0,
    size: int = 0,
    session_id: str = "",
    index: Optional[SummaryIndex] = None,
    folders=None,
) -> SessionInfo:
    """The session at ``path`` titled by the listing's rule (summaries of ``index``, else of its folder)."""
    session_id = session_id or HARNESS.session_id_of(path) or os.path.basename(path)
    uuids_out: List[bytes] = []
    meta = session_metadata(path, session_id, uuids_out)
    packed = uuids_out[0] if uuids_out else b""
    if packed:  # else a custom or AI title, or a tail naming no message
        if index is None:
            folder = os.path.dirname(path)
            folders = {} if folders is None else folders
            if folder not in folders:
                folders[folder] = folder_files(folder)
            index = index_naming(folders[folder], packed)
        title = apply_to_title(Title(meta.title, meta.title_source), packed, index)
        meta = meta._replace(title=title.text, title_source=title.source)
    return meta._replace(session_id=session_id, transcript_path=path, mtime=mtime, size=size, harness=HARNESS.name)


# --- one folder's summaries --------------------------------------------------------------

# A summary's link as the harness writes it: the key, then its string value's bytes up to
# the next quote (a value holding an escape shows a backslash there).
_LEAF_KEY = b'"' + cc.FIELD_LEAF_UUID.encode("ascii") + b'"'
_LEAF_VALUE = re.compile(re.escape(_LEAF_KEY) + rb'\s*:\s*"([^"]*)"')


def _windows(path: str) -> Tuple[HeadWindow, TailWindow, int]:
    """``(head, tail, where the tail's lines past the head begin)`` of ``path``; OSError when unreadable."""
    with open_regular(path) as f:
        size = os.fstat(f.fileno()).st_size
        head = read_head(f, size)
        return (head,) + read_tail_past(f, size, head)


def head_summary_links(path: str) -> List[SummaryLink]:
    """The summary links of the head of ``path``, then of its tail window's lines past the head ([] unreadable)."""
    try:
        head, tail, begin = _windows(path)
    except OSError:
        return []
    return list(scanner.head(head, "").summary_links + scanner.tail(tail, "", begin, None).summary_links)


class FileLeaves(NamedTuple):
    """A session file and the ``leafUuid`` values its head and tail bytes show (None: an escape hides them)."""

    path: str
    mtime: float
    leaves: Optional[frozenset]  # of bytes


def file_leaves(path: str, mtime: float) -> FileLeaves:
    """The ``leafUuid`` values in the bytes ``head_summary_links`` parses (a superset), no line parsed."""
    try:
        head, tail, _begin = _windows(path)
    except OSError:
        return FileLeaves(path, mtime, frozenset())
    found: List[bytes] = []
    for data, start, end in ((head.data, 0, head.ends[-1] if head.ends else 0), (tail.data, tail.start, tail.stop())):
        if _has_ascii_escape(data, start, end):
            return FileLeaves(path, mtime, None)
        at = data.find(_LEAF_KEY, start, end)  # a literal find runs at memory speed; the regex only where it is
        while at >= 0:
            value = _LEAF_VALUE.match(data, at, end)
            if value is not None:
                found.append(value.group(1))
            at = data.find(_LEAF_KEY, at + 1, end)
    return FileLeaves(path, mtime, None if any(b"\\" in leaf for leaf in found) else frozenset(found))


def folder_files(folder: str) -> List[FileLeaves]:
    """``file_leaves`` of each session file directly in ``folder``, in name order."""
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda entry: entry.name)
    except OSError:
        return []
    found = []
    for entry in entries:
        if HARNESS.is_session_file_name(entry.name):
            try:
                mtime = entry.stat().st_mtime
            except OSError:
                continue
            found.append(file_leaves(entry.path, mtime))
    return found


def index_naming(files: List[FileLeaves], packed: bytes) -> SummaryIndex:
    """The summary index of those ``files`` that may name one of the ``packed`` uuids (as good as all)."""
    own = frozenset(packed.split(b"\n"))
    index = SummaryIndex()
    for item in files:
        if item.leaves is None or not own.isdisjoint(item.leaves):
            index.add_file(item.path, item.mtime, head_summary_links(item.path))
    return index


# --- the whole store ---------------------------------------------------------------------

_Row = Tuple[Any, ...]  # one session as plain data, what a helper process can send back


def describe_store(
    paths: List[str],
    projects_dir: str,
    render: Optional[Callable[[SessionInfo], Any]] = None,
    summaries: bool = True,
    map_items: Optional[Callable[[Callable[[str], Optional[_Row]], List[str]], List[Optional[_Row]]]] = None,
) -> Tuple[List[SessionInfo], List[Any]]:
    """The sessions at ``paths`` described, oldest first, and ``render`` of each ([] without one), made
    where it was described (``marshal``-able), so a listing shared between processes (``map_items``)
    shares its rendering. With ``summaries``, retitled by any listed summary naming one of the uuids
    of its tail window."""
    buffers = windows.ReadBuffers(HEAD_BLOCK_BYTES, TAIL_MAX_BYTES)  # reused for every head and tail

    def row(path: str) -> Optional[_Row]:
        """(the session with its links as pairs, its tail's packed uuids, its rendering, its tail's links)."""
        found: Optional[List[bytes]] = [] if summaries else None
        links: Optional[List[SummaryLink]] = [] if summaries else None
        info = session_from_path(path, projects_dir, buffers, found, links)
        if info is None:
            return None
        plain = tuple(info._replace(summary_links=_pairs(info.summary_links)))
        return (plain, found[0] if found else b"", None if render is None else render(info), _pairs(links or ()))

    mapped = map_items(row, paths) if map_items is not None else map(row, paths)
    rows = [item for item in mapped if item is not None]
    sessions = [_session_of_plain(item[0]) for item in rows]
    texts = [item[2] for item in rows]
    index = index_sessions(sessions, [item[3] for item in rows]) if summaries else SummaryIndex()
    for number, item in enumerate(rows if len(index) else ()):
        info = sessions[number]
        title = apply_to_title(Title(info.title, info.title_source), item[1], index)
        if title.source != info.title_source:
            sessions[number] = info._replace(title=title.text, title_source=title.source)
            texts[number] = render(sessions[number]) if render is not None else None
    ordered = sorted(zip(sessions, texts), key=lambda pair: pair[0].mtime)
    return [info for info, _text in ordered], [text for _info, text in ordered] if render is not None else []


def _pairs(links: Iterable[SummaryLink]) -> Tuple[Tuple[str, str], ...]:
    return tuple((link.summary, link.leaf_uuid) for link in links)


def _session_of_plain(plain: _Row) -> SessionInfo:
    """A row's session, its links ``SummaryLink`` again."""
    info = SessionInfo(*plain)
    if not info.summary_links:  # most heads hold none: no second tuple to build
        return info
    return info._replace(summary_links=tuple(SummaryLink(text, leaf) for text, leaf in info.summary_links))
