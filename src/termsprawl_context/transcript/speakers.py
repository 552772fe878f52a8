"""Who wrote a record's text, beneath ``entry.speaker``: a record's explicit signals
(``model.SIGNALS``), else the text rules (a block's opening marker), and what the person
typed (``typed_texts``). On the hand-off's path: no ``typing`` or ``re`` at import time.
"""

from __future__ import annotations

from termsprawl_context import model
from termsprawl_context.model import COMPACTION, INJECTED, NOTICE, PERSON
from termsprawl_context.model import FIELD_ORIGIN, FIELD_PROMPT_SOURCE, FIELD_TURN_ORIGIN

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, List, Optional

    from termsprawl_context.model import Entry


# --- the explicit signals -------------------------------------------------------------------
SIGNAL_PERSON = "person"  # the record says the person produced the turn
SIGNAL_TASK = "task"  # the record says it is a task notification
SIGNAL_HARNESS = "harness"  # the record says the harness produced it


def turn_signal(entry: Entry) -> str:
    """The ``SIGNAL_*`` a user record's explicit fields say produced it; "" when none (before 2.1.x)."""
    record = entry.record
    if not isinstance(record, dict):
        return ""
    get = record.get
    origin, turn, source = get(FIELD_ORIGIN), get(FIELD_TURN_ORIGIN), get(FIELD_PROMPT_SOURCE)
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
    """Who wrote a user-role text (INJECTED, NOTICE, COMPACTION, else PERSON), by its opening marker."""
    head = text.lstrip()
    if head.startswith(model.INJECTED_PREFIXES):
        return INJECTED
    if head.startswith(model.NOTICE_PREFIXES):
        return NOTICE
    if head.startswith(model.COMPACTION_PREFIX):
        return COMPACTION
    return PERSON


def content_texts(content: Any, any_object: bool = False) -> List[str]:
    """The non-empty texts of a message's content: a string, or each bare string and ``text``
    block's ``text``; ``any_object``: each object's string ``text`` (a tool result's bodies)."""
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
    """The text of a prompt the person queued while the agent worked, or None."""
    attachment = entry.attachment
    if entry.type != model.TYPE_ATTACHMENT or not isinstance(attachment, dict):
        return None
    if attachment.get("type") != model.QUEUED_COMMAND or attachment.get("commandMode") != model.QUEUED_PROMPT_MODE:
        return None
    prompt = attachment.get("prompt")
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list):
        texts = (block.get("text") for block in prompt if isinstance(block, dict) and block.get("type") == "text")
        return "\n\n".join(text for text in texts if isinstance(text, str) and text)
    return ""


def not_the_person(entry: Entry) -> bool:
    """Whether flags or explicit signals say no text of this entry was typed."""
    if entry.is_meta or entry.is_sidechain or entry.is_compact_summary or entry.is_transcript_only:
        return True
    return entry.type == model.TYPE_USER and turn_signal(entry) in (SIGNAL_TASK, SIGNAL_HARNESS)


def typed_texts(entry: Entry) -> List[str]:
    """The texts of a user entry (or a queued prompt) that no flag or harness marker claims."""
    if not_the_person(entry):
        return []
    if entry.type == model.TYPE_ATTACHMENT:
        prompt = queued_prompt(entry)
        return [prompt] if prompt else []
    if entry.type != model.TYPE_USER:
        return []
    return [text for text in content_texts(entry.content) if text_kind(text) == PERSON]
