"""Who speaks in an ``Entry`` (``speaker``) and the person's words in it (``person_texts``):
the one classifier every reader of a record's meaning shares. On the hand-off's path: no
``typing`` or ``re`` at import time.
"""

from __future__ import annotations

from termsprawl_context import model
from termsprawl_context.model import ASSISTANT, COMMAND, COMPACTION, INJECTED, META, NOTICE, OTHER, PERSON, SIDECHAIN
from termsprawl_context.model import SYSTEM, TASK_NOTIFICATION, TOOL_RESULT, Entry
from termsprawl_context.transcript.slash_commands import is_local_command_output, slash_command
from termsprawl_context.transcript.speakers import SIGNAL_HARNESS, SIGNAL_PERSON, SIGNAL_TASK, content_texts
from termsprawl_context.transcript.speakers import not_the_person, queued_prompt, text_kind, turn_signal, typed_texts
from termsprawl_context.transcript.tool_blocks import tool_results

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import List, Optional


def person_texts(entry: Entry, parent: Optional[Entry] = None) -> List[str]:
    """The person's words in ``entry``: its typed texts when it speaks as ``PERSON``, none when
    ``parent`` is the local command whose output it is (without it, see ``output_parent``). A
    slash command's envelope is the harness's rendering: citations never ground in it."""
    if speaker(entry) != PERSON or is_local_command_output(entry, parent):
        return []
    return typed_texts(entry)


def speaker(entry: Entry) -> str:
    """Who speaks in ``entry`` (one of ``SPEAKERS``): the flags first, then a user record's
    explicit ``SIGNALS`` (a harness-sourced turn is never ``PERSON``), then its texts."""
    kind = entry.type
    if entry.is_sidechain:
        return SIDECHAIN
    if kind == model.TYPE_ASSISTANT:
        return ASSISTANT
    if kind == model.TYPE_SYSTEM:
        return SYSTEM
    if kind == model.TYPE_ATTACHMENT:
        return PERSON if queued_prompt(entry) is not None and not not_the_person(entry) else INJECTED
    if kind != model.TYPE_USER:
        return OTHER
    if entry.is_compact_summary:
        return COMPACTION
    if entry.is_meta or entry.is_transcript_only:
        return META
    signal = turn_signal(entry)
    if signal == SIGNAL_TASK:
        return TASK_NOTIFICATION
    if signal == SIGNAL_PERSON and slash_command(entry):
        return COMMAND
    kinds = [text_kind(text) for text in content_texts(entry.content)]
    if PERSON in kinds:
        return INJECTED if signal == SIGNAL_HARNESS else PERSON
    if tool_results(entry):
        return TOOL_RESULT
    return next((harness_kind for harness_kind in (COMPACTION, INJECTED, NOTICE) if harness_kind in kinds), OTHER)
