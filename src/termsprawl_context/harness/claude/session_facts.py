"""What one transcript line says about its session, and the plain rules over such lines:
the first user message and first prompt, summaries and their links, titles naming this
session, the head's and tail's facts combined into a session's metadata (titled by
``transcript.titles``). The fast scanners (``session_scan``) must return
exactly what these rules return over every line.
"""

from typing import Iterable, List, NamedTuple, Optional, Tuple, Union

from termsprawl_context import model
from termsprawl_context.jsonl import parse_object
from termsprawl_context.model import SummaryLink
from termsprawl_context.transcript.content import first_content_text
from termsprawl_context.transcript.entry import Entry, entry_of, is_local_command_output
from termsprawl_context.transcript.text import (
    sanitize_text,
    truncate_utf8,
)
from termsprawl_context.transcript.titles import (
    TITLE_AI,
    TITLE_CUSTOM,
    choose_title,
    clean_title_record_text,
    typed_command,
    typed_prompt,
)


# The backend limit the seed truncates against; first user messages get half of it.
MAX_METADATA_FIELD_SIZE = 8 * 1024
FIRST_USER_MESSAGE_MAX_BYTES = MAX_METADATA_FIELD_SIZE // 2
# Titles, their sources and what the person typed: one rule, in transcript.titles.


class ExtractionResult(NamedTuple):
    """The seed's metadata: the last local summary, the first user message, the links."""

    summary: str = ""
    first_user_message: str = ""
    summary_links: Tuple[SummaryLink, ...] = ()


class SessionMetadata(NamedTuple):
    """What a transcript's head and tail say about its session, after where its file
    is (blank when described from its lines alone; ``model.SessionInfo`` fills them)."""

    session_id: str = ""
    transcript_path: str = ""
    project_path: str = ""  # the transcript's folder, relative to the projects dir
    mtime: float = 0.0
    size: int = 0
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
        if not first_user and kind == model.TYPE_USER:
            first_user = _first_user_message(entry)
        elif kind == model.TITLE_SUMMARY:
            summary = take_summary(entry, summary, links)
    return ExtractionResult(summary, first_user, tuple(links))


def entry_of_line(raw: Union[bytes, bytearray, str]) -> Optional[Entry]:
    """The lenient entry of one line (metadata fails open), or None for junk."""
    record = parse_object(raw)
    return entry_of(record) if record is not None else None


def _first_user_message(entry: Entry) -> str:
    text = first_content_text(entry.content)
    return truncate_utf8(sanitize_text(text), FIRST_USER_MESSAGE_MAX_BYTES) if text else ""


def take_summary(entry: Entry, summary: str, links: List[SummaryLink]) -> str:
    """Apply one summary entry: append a link, or return the new local summary."""
    text = entry.record.get(model.FIELD_SUMMARY)
    if not isinstance(text, str) or not text:
        return summary
    leaf = entry.record.get(model.FIELD_LEAF_UUID)
    if isinstance(leaf, str) and leaf:
        links.append(SummaryLink(sanitize_text(text), leaf))
        return summary
    return sanitize_text(text)


def title_of(entry: Entry, session_id: str) -> Tuple[str, str]:
    """(kind, title) of a ``custom-title``/``ai-title`` entry naming this session; a
    title entry whose ``sessionId`` names another session is that session's, even when
    the harness wrote it into this file (anthropics/claude-code#27202)."""
    kind = entry.type
    if kind == TITLE_CUSTOM:
        key = model.FIELD_CUSTOM_TITLE
    elif kind == TITLE_AI:
        key = model.FIELD_AI_TITLE
    else:
        return "", ""
    owner = entry.session_id
    if session_id and owner and owner != session_id:
        return "", ""
    title = clean_title_record_text(model.as_str(entry.record.get(key)))
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


class UserFacts:
    """The first user message and the first prompt, fed user entries in file order."""

    def __init__(self) -> None:
        self.first_user = ""
        self.prompt = ""
        self.command = ""
        self.previous: Optional[Entry] = None  # the user entry fed before, which may be a local command

    def done(self) -> bool:
        return bool(self.first_user and self.prompt)

    def feed(self, entry: Entry) -> None:
        if entry.type != model.TYPE_USER or self.done():
            return
        if not self.first_user:
            self.first_user = _first_user_message(entry)
        previous = self.previous
        if not self.prompt and not (
            previous is not None
            and entry.parent_uuid
            and entry.parent_uuid == previous.uuid
            and is_local_command_output(entry, previous)
        ):
            # The record model decides what the person typed, block by block.
            self.prompt = typed_prompt(entry)
            if not self.prompt and not self.command:
                self.command = typed_command(entry)
        self.previous = entry


def scan_tail(lines_last_first: Iterable[bytes], session_id: str = "") -> TailFacts:
    """The plain algorithm: parse every tail line, last first, keeping the latest custom
    title, AI title and timestamp. ``session_scan``'s fast tail scanner must return
    exactly this (the tests hold it to that); it falls back on this for a window
    holding an ASCII-spelling escape."""
    custom = ai = last_ts = ""
    for raw in lines_last_first:
        entry = entry_of_line(raw)
        if entry is None:
            continue
        if not last_ts:
            last_ts = entry.timestamp
        title_kind, title = title_of(entry, session_id)
        if title_kind == TITLE_CUSTOM and not custom:
            custom = title
        elif title_kind == TITLE_AI and not ai:
            ai = title
    return TailFacts(custom, ai, last_ts)


def combine(head: HeadFacts, tail: TailFacts) -> SessionMetadata:
    """One session's metadata from its head and tail facts, titled by
    ``transcript.titles.choose_title`` without the store's summary index (``listing.describe_store``
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


def tail_summary_links_plain(lines_last_first: Iterable[bytes]) -> List[SummaryLink]:
    """The plain rule: the summary links (``leafUuid`` set) of every tail line, parsed,
    in file order. ``session_scan``'s fast tail scanner must return exactly this."""
    links: List[SummaryLink] = []
    for raw in reversed(list(lines_last_first)):
        entry = entry_of_line(raw)
        if entry is not None and entry.type == model.TITLE_SUMMARY:
            take_summary(entry, "", links)
    return links
