"""A session's facts from its head and tail windows, by the plain rules of
``store/session_facts.py``: every whole line of each window is parsed.

The windows are bounded (``session_meta``: 50 lines within 1 MiB, the last 64 KiB), so
parsing them whole costs what describing the session costs whatever the file's size.
A byte-searching scanner (parse only the lines holding a fact's token) stood here until
issue 28: it saved about 0.4 ms a session and no ``benchmarks/`` target needed it
(benchmarks/FAST_PATHS.md).
"""

from typing import Iterable, List, Optional

from termsprawl_context.byte_windows import TailWindow
from termsprawl_context.harness import claude as cc
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
from termsprawl_context.transcript.titles import TITLE_AI, TITLE_CUSTOM

__all__ = ["scan_head", "scan_tail_window", "tail_summary_links"]


def scan_head(lines: Iterable[bytes], session_id: str = "") -> HeadFacts:
    """The head's facts: every line parsed in file order (the first user message and
    prompt, the last local summary and every link, the last custom and AI titles
    naming this session, the first cwd with its branch, the first timestamp)."""
    users = UserFacts()
    summary = cwd = branch = first_ts = custom = ai = ""
    links: List[SummaryLink] = []
    for raw in lines:
        entry = entry_of_line(raw)
        if entry is None:
            continue
        users.feed(entry)
        if entry.type == cc.TITLE_SUMMARY:
            summary = take_summary(entry, summary, links)
        title_kind, title = title_of(entry, session_id)
        if title_kind == TITLE_CUSTOM:
            custom = title
        elif title_kind == TITLE_AI:
            ai = title
        if not cwd:
            cwd = entry.cwd
            if cwd:
                branch = entry.git_branch  # the branch the session started on
        if not first_ts:
            first_ts = entry.timestamp
    return HeadFacts(
        summary, users.first_user, tuple(links), users.prompt, custom, ai, cwd, branch, first_ts, users.command
    )


def scan_tail_window(window: TailWindow, session_id: str = "", summaries_from: Optional[int] = None) -> TailFacts:
    """``scan_tail`` over the window's whole lines; with ``summaries_from`` (a line's
    start in ``window.data``), also the summary links of the lines from there on
    (``tail_summary_links``)."""
    facts = scan_tail(window.lines_last_first(), session_id)
    if summaries_from is None or summaries_from >= window.stop():
        return facts
    return facts._replace(summary_links=tuple(tail_summary_links(window, summaries_from)))


def tail_summary_links(window: TailWindow, begin: Optional[int] = None) -> List[SummaryLink]:
    """The summary links in the tail window's whole lines, in file order: Claude Code
    2.0.x appends a summary of the conversation so far to the session's own file,
    often past its first 50 lines (the head, where the seed looks), naming the record
    just before it. ``begin`` (a line's start in ``window.data``) leaves out the lines
    before it: those the head holds, whose links the head gives."""
    first, end = window.first_whole_line(), window.stop()
    if begin is not None and begin > first:
        window = window._replace(start=min(begin, end), cut=False)
    return tail_summary_links_plain(window.lines_last_first())
