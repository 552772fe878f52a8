"""A session's title, by one rule wherever a session is named (``choose_title``'s order).
Only what the person typed (``typed_texts``) titles a session, never the harness's text.
Every title is one line of plain text (the seed's ``SanitizeText``) cut to
``TITLE_MAX_BYTES`` with ``...``. Reads no file.
"""

from collections import namedtuple
from typing import Any, Dict, Iterable, Optional

from termsprawl_context import model
from termsprawl_context.model import INJECTED, PERSON, Entry, entry_of
from termsprawl_context.transcript.slash_commands import command_as_typed, is_local_command_output
from termsprawl_context.transcript.speakers import content_texts, not_the_person, text_kind, typed_texts
from termsprawl_context.transcript.text import collapse_whitespace, sanitize_text, truncate_utf8


# The seed cuts first user messages to half the backend's 8 KiB field limit; every title too.
TITLE_MAX_BYTES = 4 * 1024

# ``title_source`` values: where a session's title came from.
TITLE_CUSTOM = model.TITLE_CUSTOM  # "custom-title"
TITLE_AI = model.TITLE_AI  # "ai-title"
TITLE_SUMMARY = model.TITLE_SUMMARY  # "summary": a summary line naming the session
TITLE_PROMPT = "prompt"  # the first prompt the person typed
TITLE_COMMAND = "command"  # no prompt typed: the first slash command the person ran
TITLE_FIRST_MESSAGE = "first-message"  # the seed's first user message, whatever it is


# A session's title and its ``title_source`` (both "" when nothing names it).
Title = namedtuple("Title", "text source")
NO_TITLE = Title("", "")


def clean_title(text: str) -> str:
    """``text`` sanitised and cut, as a title."""
    return truncate_utf8(sanitize_text(text), TITLE_MAX_BYTES)


def clean_title_record_text(text: str) -> str:
    """A ``custom-title`` / ``ai-title`` record's text as a title, tags kept (as written)."""
    return truncate_utf8(collapse_whitespace(text), TITLE_MAX_BYTES)


def _first_title(texts: Iterable[str]) -> str:
    """The first of ``texts`` not empty once made a title (``clean_title``), as one."""
    return next((title for title in map(clean_title, texts) if title), "")


def typed_prompt(entry: Entry) -> str:
    """The first text the person typed in a ``user`` entry, as a title."""
    if entry.type != model.TYPE_USER:
        return ""
    return _first_title(typed_texts(entry))


def is_harness_title(text: str) -> bool:
    """Whether a title candidate opens as the harness's text or a local command's known answer."""
    return text_kind(text) != PERSON or text.lstrip().startswith(model.LOCAL_COMMAND_ANSWERS)


def typed_command(entry: Entry) -> str:
    """The first slash command a ``user`` entry records the person running, as typed, as a title."""
    if entry.type != model.TYPE_USER or not_the_person(entry):
        return ""
    texts = content_texts(entry.content)
    return _first_title(command_as_typed(text) for text in texts if text_kind(text) == INJECTED)


def first_typed_prompt(records: Iterable[Optional[Dict[str, Any]]]) -> str:
    """The first prompt the person typed among parsed ``records`` (None: not an object)."""
    previous = None
    for entry in (entry_of(record) for record in records if record is not None):
        if entry.type == model.TYPE_USER:
            prompt = "" if is_local_command_output(entry, previous) else typed_prompt(entry)
            if prompt:
                return prompt
            previous = entry
    return ""


def choose_title(
    custom: str = "",
    ai: str = "",
    linked_summary: str = "",
    local_summary: str = "",
    prompt: str = "",
    command: str = "",
    first_message: str = "",
) -> Title:
    """The first non-empty candidate and its ``title_source``, best first: the latest
    custom-title (/rename), the latest ai-title, a summary whose ``leafUuid`` is one of the
    session's messages (anywhere in the store), a summary local to the file, the first typed
    prompt, the first slash command, the seed's first user message (unless the harness's)."""
    if first_message and is_harness_title(first_message):
        first_message = ""
    sources = (TITLE_CUSTOM, TITLE_AI, TITLE_SUMMARY, TITLE_SUMMARY, TITLE_PROMPT, TITLE_COMMAND, TITLE_FIRST_MESSAGE)
    for text, source in zip((custom, ai, linked_summary, local_summary, prompt, command, first_message), sources):
        if text:
            # A summary's title is cut too (the summary field itself stays whole).
            return Title(truncate_utf8(text, TITLE_MAX_BYTES), source)
    return NO_TITLE
