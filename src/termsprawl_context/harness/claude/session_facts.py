"""The rules over a transcript's entries: first user message and prompt, summaries and their
links, titles naming this session, head and tail facts combined into its metadata (titled by
``transcript.titles``). ``session_scan``'s scanners, plain and fast, apply them.
"""

from typing import Iterable, List, NamedTuple, Optional, Tuple, Union

from termsprawl_context import model
from termsprawl_context.jsonl import parse_object
from termsprawl_context.model import Entry, SessionInfo, SummaryLink, entry_of
from termsprawl_context.transcript.content import first_content_text
from termsprawl_context.transcript.slash_commands import is_local_command_output
from termsprawl_context.transcript.text import sanitize_text, truncate_utf8
from termsprawl_context.transcript.titles import (
    TITLE_AI,
    TITLE_CUSTOM,
    choose_title,
    clean_title_record_text,
    typed_command,
    typed_prompt,
)


# Half the backend's 8 KiB metadata field limit, which the seed truncates against.
FIRST_USER_MESSAGE_MAX_BYTES = 8 * 1024 // 2


# What a transcript's head and tail say: the listing's own shape, where its file is (and
# whose) left blank for the listing to fill.
SessionMetadata = SessionInfo


def entry_of_line(raw: Union[bytes, bytearray, str]) -> Optional[Entry]:
    """The lenient entry of one line (metadata fails open), or None for junk."""
    record = parse_object(raw)
    return entry_of(record) if record is not None else None


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


_TITLE_KEYS = {TITLE_CUSTOM: model.FIELD_CUSTOM_TITLE, TITLE_AI: model.FIELD_AI_TITLE}


def title_of(entry: Entry, session_id: str) -> Tuple[str, str]:
    """(kind, title) of a custom or AI title entry naming this session: one naming another is
    that session's, even in this file (anthropics/claude-code#27202)."""
    key = _TITLE_KEYS.get(entry.type)
    owner = entry.session_id
    if key is None or (session_id and owner and owner != session_id):
        return "", ""
    title = clean_title_record_text(model.as_str(entry.record.get(key)))
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


def user_facts(entries: Iterable[Entry]) -> Tuple[str, str, str]:
    """The first user message, the first prompt and the first slash command run before any
    prompt, from entries in file order; read no further once message and prompt are known."""
    first_user = prompt = command = ""
    previous: Optional[Entry] = None  # the user entry before, which may be a local command
    for entry in entries:
        if entry.type != model.TYPE_USER:
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
    return first_user, prompt, command


def combine(head: HeadFacts, tail: TailFacts) -> SessionMetadata:
    """One session's metadata, titled by ``choose_title`` (tail before head), no summary index yet."""
    title, source = choose_title(
        custom=tail.custom_title or head.custom_title,
        ai=tail.ai_title or head.ai_title,
        local_summary=head.summary,
        prompt=head.prompt,
        command=head.command,
        first_message=head.first_user_message,
    )
    shared = {name: value for name, value in head._asdict().items() if name in SessionMetadata._fields}
    return SessionMetadata(title=title, title_source=source, last_timestamp=tail.last_timestamp, **shared)
