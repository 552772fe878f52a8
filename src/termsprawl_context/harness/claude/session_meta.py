"""What a session's transcript says about it (first user message, first prompt, summary,
titles, working directory, branch, first and last timestamps), read from a bounded head
and tail: the windows read here, the plain rules in ``session_facts``, the
scanners that apply them to the windows in ``session_scan`` (fast and plain,
behind one switch).

Describing a session never parses the whole transcript: its head (at most
``HEAD_MAX_LINES`` lines within ``HEAD_MAX_BYTES``) and its tail (the last
``TAIL_MAX_BYTES``) are all that is read (``byte_windows``), ``MAX_BYTES_PER_SESSION``
at most, so a 400 MB transcript costs what a 400 KB one does. Within those windows the
fast scanners parse only the lines whose bytes hold a fact's token.
"""

import os
from typing import BinaryIO, List, Optional

from termsprawl_context import byte_windows as windows
from termsprawl_context.byte_windows import HeadWindow, TailWindow, iter_lines_within
from termsprawl_context.harness.claude import session_scan
from termsprawl_context.harness.claude.session_facts import SessionMetadata, SummaryLink, combine, entry_of_line
from termsprawl_context.jsonl import open_regular, parse_object
from termsprawl_context.transcript.titles import TITLE_AI, TITLE_CUSTOM, first_typed_prompt


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


def read_buffers() -> windows.ReadBuffers:
    """Buffers a scan reuses for every session's head and tail."""
    return windows.ReadBuffers(HEAD_BLOCK_BYTES, TAIL_MAX_BYTES)


def read_head(f: BinaryIO, size: int, buffer: Optional[bytearray] = None) -> HeadWindow:
    """A session's head: at most ``HEAD_MAX_LINES`` lines within ``HEAD_MAX_BYTES``."""
    return windows.read_head(f, size, HEAD_MAX_LINES, HEAD_MAX_BYTES, HEAD_BLOCK_BYTES, buffer)


def read_tail(f: BinaryIO, size: int, buffer: Optional[bytearray] = None) -> TailWindow:
    """A session's tail: its last ``TAIL_MAX_BYTES``."""
    return windows.read_tail(f, size, TAIL_MAX_BYTES, buffer)


def past_head(window: HeadWindow, tail_window: TailWindow, size: int) -> int:
    """Where, in ``tail_window.data``, the lines after the head's begin (a line's start,
    maybe before the window or past its end)."""
    head_end = window.ends[-1] + 1 if window.ends else 0
    if window.whole_file:
        return head_end  # the tail is a slice of the head's own buffer
    return head_end - max(0, size - TAIL_MAX_BYTES)  # read_tail's data[0] is that file offset


def read_tail_past(f: BinaryIO, size: int, window: HeadWindow, buffer: Optional[bytearray] = None) -> TailWindow:
    """The tail window of the open transcript ``f`` whose head is ``window`` (a slice of
    the head's own bytes when the head holds the whole file)."""
    return windows.tail_of_head(window, TAIL_MAX_BYTES) if window.whole_file else read_tail(f, size, buffer)


def tail_links_past_head(f: BinaryIO, size: int, window: HeadWindow) -> List[SummaryLink]:
    """The summary links of the open transcript ``f``'s tail window, past its head's lines
    (``window``)."""
    tail = read_tail_past(f, size, window)
    return list(session_scan.scanner.tail(tail, "", past_head(window, tail, size), None).summary_links)


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
    entry: the tail window's uuids (the scanner's ``tail_uuids``), or b"" when a
    custom or AI title already names the session (no summary can outrank it).
    ``tail_links_out``, when given, gets the summary links of the tail window's lines
    past the head: they may name this session or another."""
    window = read_head(f, size, buffers.head if buffers else None)
    tail_window = read_tail_past(f, size, window, buffers.tail if buffers else None)
    begin = past_head(window, tail_window, size) if tail_links_out is not None else None
    scanner = session_scan.scanner  # the fast scanners, or the plain ones they must equal
    escaped = scanner.census(tail_window)  # searched once, for all of the tail's readers
    tail = scanner.tail(tail_window, session_id, begin, escaped)
    head = scanner.head(window, session_id)
    if not head.prompt:
        head = head._replace(prompt=_prompt_past_head(f, window))
    if not window.whole_file and not tail.last_timestamp:
        # The tail window held no whole dated line (one giant last line): the head's
        # last dated line is the latest we know of.
        tail = tail._replace(last_timestamp=_last_timestamp(window))
    meta = combine(head, tail)
    if uuids_out is not None:
        titled = meta.title_source in (TITLE_CUSTOM, TITLE_AI)
        uuids_out.append(b"" if titled else scanner.tail_uuids(tail_window, escaped))
    if tail_links_out is not None:
        tail_links_out.extend(tail.summary_links)
    return meta


def _prompt_past_head(f: BinaryIO, window: HeadWindow) -> str:
    """The first prompt the person typed past a head that holds none (a compaction
    summary opens it, or a run of slash commands and their output), sought on from where
    the head's read stopped, within ``HEAD_MAX_BYTES`` of the file's start: describing
    a session still reads no more than the head bound plus the tail window."""
    last_end = window.ends[-1] + 1 if window.ends else 0
    leftover = window.data[last_end : window.length]
    if window.whole_file:  # the rest of the file is in memory already
        lines = iter(bytes(leftover).split(b"\n"))
    elif window.length >= HEAD_MAX_BYTES:
        return ""
    else:
        lines = iter_lines_within(f, leftover, window.length, HEAD_MAX_BYTES)
    return first_typed_prompt(parse_object(raw) for raw in lines)


def _last_timestamp(window: HeadWindow) -> str:
    for index in range(len(window.ends) - 1, -1, -1):
        entry = entry_of_line(window.line(index))
        if entry is not None and entry.timestamp:
            return entry.timestamp
    return ""


def session_metadata(path: str, session_id: str = "", uuids_out: Optional[List[bytes]] = None) -> SessionMetadata:
    """``read_session_metadata`` of the file at ``path``; empty (fail open) when it is
    missing, unreadable or not a regular file."""
    try:
        with open_regular(path) as f:
            return read_session_metadata(f, os.fstat(f.fileno()).st_size, session_id, uuids_out=uuids_out)
    except OSError:
        return SessionMetadata()
