"""What a session's transcript says about it (first message and prompt, summary, titles,
directory, branch, first and last timestamps), read from a bounded head and tail: the
windows here, the rules in ``session_facts``, the scanners (fast and plain, one switch) in
``session_scan``. At most ``MAX_BYTES_PER_SESSION`` is read, so a 400 MB transcript costs
what a 400 KB one does; the fast scanners parse only lines holding a fact's token.
"""

import os
from typing import BinaryIO, List, Optional, Tuple

from termsprawl_context import byte_windows as windows
from termsprawl_context.byte_windows import HeadWindow, TailWindow, iter_lines_within
from termsprawl_context.harness.claude import session_scan
from termsprawl_context.harness.claude.session_facts import SessionMetadata, SummaryLink, combine, entry_of_line
from termsprawl_context.jsonl import open_regular, parse_object
from termsprawl_context.transcript.titles import TITLE_AI, TITLE_CUSTOM, first_typed_prompt


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


def read_buffers() -> windows.ReadBuffers:
    """Buffers a scan reuses for every session's head and tail."""
    return windows.ReadBuffers(HEAD_BLOCK_BYTES, TAIL_MAX_BYTES)


def read_head(f: BinaryIO, size: int, buffer: Optional[bytearray] = None) -> HeadWindow:
    """A session's head: at most ``HEAD_MAX_LINES`` lines within ``HEAD_MAX_BYTES``."""
    return windows.read_head(f, size, HEAD_MAX_LINES, HEAD_MAX_BYTES, HEAD_BLOCK_BYTES, buffer)


def read_tail(f: BinaryIO, size: int, buffer: Optional[bytearray] = None) -> TailWindow:
    """A session's tail: its last ``TAIL_MAX_BYTES``."""
    return windows.read_tail(f, size, TAIL_MAX_BYTES, buffer)


def read_tail_past(
    f: BinaryIO, size: int, window: HeadWindow, buffer: Optional[bytearray] = None
) -> Tuple[TailWindow, int]:
    """The tail window of ``f`` whose head is ``window``, and where in its data the lines after
    the head begin (maybe outside it)."""
    head_end = window.ends[-1] + 1 if window.ends else 0
    if window.whole_file:  # the tail is a slice of the head's own buffer
        return windows.tail_of_head(window, TAIL_MAX_BYTES), head_end
    return read_tail(f, size, buffer), head_end - max(0, size - TAIL_MAX_BYTES)  # read_tail's data[0] is that offset


def read_session_metadata(
    f: BinaryIO,
    size: int,
    session_id: str = "",
    buffers: Optional[windows.ReadBuffers] = None,
    uuids_out: Optional[List[bytes]] = None,
    tail_links_out: Optional[List[SummaryLink]] = None,
) -> SessionMetadata:
    """Describe the open transcript ``f`` from its head and tail; a typed prompt is sought on
    within ``HEAD_MAX_BYTES`` when the head holds none. ``uuids_out`` gets the tail's packed
    uuids (b"" under a custom or AI title: no summary outranks it); ``tail_links_out``, the
    tail's summary links past the head (naming this session or another)."""
    window = read_head(f, size, buffers.head if buffers else None)
    tail_window, past_head = read_tail_past(f, size, window, buffers.tail if buffers else None)
    begin = past_head if tail_links_out is not None else None
    scanner = session_scan.scanner  # the fast scanners, or the plain ones they must equal
    escaped = scanner.census(tail_window)  # searched once, for all of the tail's readers
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
    """The first typed prompt past a head holding none (a compaction summary or slash commands
    open it), within ``HEAD_MAX_BYTES`` of the start: still no more than head plus tail."""
    last_end = window.ends[-1] + 1 if window.ends else 0
    leftover = window.data[last_end : window.length]
    if window.whole_file:  # the rest of the file is in memory already
        lines = iter(bytes(leftover).split(b"\n"))
    elif window.length >= HEAD_MAX_BYTES:
        return ""
    else:
        lines = iter_lines_within(f, leftover, window.length, HEAD_MAX_BYTES)
    return first_typed_prompt(parse_object(raw) for raw in lines)


def session_metadata(path: str, session_id: str = "", uuids_out: Optional[List[bytes]] = None) -> SessionMetadata:
    """``read_session_metadata`` of ``path``; empty (fail open) when it cannot be read."""
    try:
        with open_regular(path) as f:
            return read_session_metadata(f, os.fstat(f.fileno()).st_size, session_id, uuids_out=uuids_out)
    except OSError:
        return SessionMetadata()
