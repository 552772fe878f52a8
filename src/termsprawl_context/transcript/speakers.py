"""Who wrote a record's text, beneath ``entry.speaker``: the speakers' names, the explicit
signals a record may carry (``SIGNALS``, Claude Code 2.1.328) and the text rules read
when it has none (a block's opening marker: ``model.INJECTED_PREFIXES`` and
friends), and what the person typed by those rules (``typed_texts``).

It reads an ``Entry`` (transcript/entry.py) by its fields only, so it imports nothing of
the record model; ``entry`` re-exports every name here. On the hand-off's path: no
``typing`` or ``re`` at import time.
"""

from __future__ import annotations

from termsprawl_context import model
from termsprawl_context.model import COMPACTION, INJECTED, NOTICE, PERSON

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, List, Optional

    from termsprawl_context.transcript.entry import Entry


# --- the explicit signals -------------------------------------------------------------------
# Fields that say who produced a record, where a record has them; a record without any is
# read by the text rules below, exactly as before these fields existed (the corpus's files,
# 1.0.24 to 2.1.114, hold none of promptSource/turnOrigin/origin/turnCompanion/rendered).
# (field, value, meaning, first seen): "first seen" is the oldest client version we have
# records of holding the field, not necessarily the version that introduced it.
SIGNALS = (
    (model.FIELD_PROMPT_SOURCE, "typed", "the person typed the prompt (interactive)", "2.1.328"),
    (model.FIELD_PROMPT_SOURCE, "sdk", "the person's prompt through print mode or the SDK", "2.1.328"),
    (model.FIELD_PROMPT_SOURCE, "system", "the harness wrote the turn (a task notification)", "2.1.328"),
    (model.FIELD_TURN_ORIGIN, "human", "the turn started from the person's input", "2.1.328"),
    (model.FIELD_TURN_ORIGIN, "sdk", "a print-mode or SDK prompt started it (a slash command's too)", "2.1.328"),
    (model.FIELD_TURN_ORIGIN, "task_notification", "a sub-agent or background job finished", "2.1.328"),
    (model.FIELD_ORIGIN, "{kind: human}", "the person's turn", "2.1.328"),
    (model.FIELD_ORIGIN, "{kind: task-notification}", "a task notification (producer, runId)", "2.1.328"),
    # turnCompanion: a slash command's expansion, the reminder before a notification.
    (model.FIELD_TURN_COMPANION, "true", "written beside a turn (with isMeta): never typed", "2.1.328"),
    (model.FIELD_IS_COMPACT_SUMMARY, "true", "the summary that continues a compacted conversation", "1.0.80"),
    (model.FIELD_IS_VISIBLE_IN_TRANSCRIPT_ONLY, "true", "shown in the transcript, never typed", "2.1.5"),
    (model.FIELD_RENDERED_ROLE, "system|user", "an attachment as the model saw it: the harness's text", "2.1.328"),
)
SIGNAL_PERSON = "person"  # the record says the person produced the turn
SIGNAL_TASK = "task"  # the record says it is a task notification
SIGNAL_HARNESS = "harness"  # the record says the harness produced it


_FIELD_ORIGIN, _FIELD_TURN_ORIGIN, _FIELD_PROMPT_SOURCE = (
    model.FIELD_ORIGIN,
    model.FIELD_TURN_ORIGIN,
    model.FIELD_PROMPT_SOURCE,
)


def turn_signal(entry: Entry) -> str:
    """What a user record's explicit fields say produced it: ``SIGNAL_TASK``,
    ``SIGNAL_HARNESS``, ``SIGNAL_PERSON``, or "" when it has none of them (every record
    before 2.1.x's signals: the text rules decide)."""
    record = entry.record
    if not isinstance(record, dict):
        return ""
    get = record.get
    origin, turn, source = get(_FIELD_ORIGIN), get(_FIELD_TURN_ORIGIN), get(_FIELD_PROMPT_SOURCE)
    if origin is None and turn is None and source is None:
        return ""  # every record before the signals (session listings ask this per user line)
    kind = origin.get(model.ORIGIN_KIND) if isinstance(origin, dict) else None
    if kind == model.ORIGIN_KIND_TASK or turn == model.TURN_ORIGIN_TASK:
        return SIGNAL_TASK
    if source == model.PROMPT_SOURCE_SYSTEM:
        return SIGNAL_HARNESS
    if kind in model.ORIGIN_KINDS_PERSON or turn in model.TURN_ORIGINS_PERSON or source in model.PROMPT_SOURCES_PERSON:
        return SIGNAL_PERSON
    return ""


# --- text ---------------------------------------------------------------------------------
def text_kind(text: str) -> str:
    """Who wrote a user-role text, from its opening words: INJECTED for the harness's
    envelopes, NOTICE for its side notices, COMPACTION for a compaction summary, else
    PERSON. A marker counts only at the start (after trimming): quoted elsewhere, it is
    the person's text."""
    head = text.lstrip()
    if head.startswith(model.INJECTED_PREFIXES):
        return INJECTED
    if head.startswith(model.NOTICE_PREFIXES):
        return NOTICE
    if head.startswith(model.COMPACTION_PREFIX):
        return COMPACTION
    return PERSON


def content_texts(content: Any, any_object: bool = False) -> List[str]:
    """The non-empty texts of a message's content, block by block: a string content is
    one text; in a list, a bare string or a ``text`` block's string ``text`` each count.
    Tool calls, tool results, thinking and images carry none. ``any_object``: a tool
    result's bodies instead, the string ``text`` of every object whatever its type."""
    if isinstance(content, str):
        return [content] if content else []
    if not isinstance(content, list):
        return []
    texts = []
    for block in content:
        if isinstance(block, str):
            if block and not any_object:
                texts.append(block)
        elif isinstance(block, dict) and (any_object or block.get("type") == "text"):
            value = block.get("text")
            if isinstance(value, str) and value:
                texts.append(value)
    return texts


def queued_prompt(entry: Entry) -> Optional[str]:
    """The text of a prompt the person queued while the agent worked (an ``attachment``
    of type ``queued_command`` in prompt mode), or None for any other entry."""
    attachment = entry.attachment
    if entry.type != model.TYPE_ATTACHMENT or not isinstance(attachment, dict):
        return None
    if attachment.get("type") != model.QUEUED_COMMAND or attachment.get("commandMode") != model.QUEUED_PROMPT_MODE:
        return None
    prompt = attachment.get("prompt")
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list):
        texts = [
            block["text"]
            for block in prompt
            if isinstance(block, dict)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
            and block["text"]
        ]
        return "\n\n".join(texts)
    return ""


def not_the_person(entry: Entry) -> bool:
    """Flags that say no text of this entry was typed by the person (the explicit
    signals of a task notification or a harness-sourced turn included)."""
    if entry.is_meta or entry.is_sidechain or entry.is_compact_summary or entry.is_transcript_only:
        return True
    return entry.type == model.TYPE_USER and turn_signal(entry) in (SIGNAL_TASK, SIGNAL_HARNESS)


def typed_texts(entry: Entry) -> List[str]:
    """What the person typed in this entry, block by block: the texts of a user entry
    (or a queued prompt) that no flag and no harness marker claims. [] for the rest."""
    if not_the_person(entry):
        return []
    if entry.type == model.TYPE_ATTACHMENT:
        prompt = queued_prompt(entry)
        return [prompt] if prompt else []
    if entry.type != model.TYPE_USER:
        return []
    return [text for text in content_texts(entry.content) if text_kind(text) == PERSON]


def has_tool_result(entry: Entry) -> bool:
    content = entry.content
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == "tool_result" for block in content
    )
