"""The record model: one ``Entry`` per transcript line, and who is speaking in it.

Every rule that asks what a record means (the dump's turns, session titles and first
prompts, citations, identity, the hand-off) reads an ``Entry`` built here, so the
guards against Claude Code's shape changes live once. Two constructors, on purpose:

- ``entry_of(record)`` is lenient, for fail-open readers: a field of the wrong JSON type
  reads as absent ("" / False / None) and the rest of the line still counts.
- ``decode_entry(record)`` is the canonical decoding that fail-closed readers (identity,
  citations, queries) use. It mirrors the Go reference's ``encoding/json`` decode: keys
  match case-insensitively, a kept field of the wrong type makes the whole line "not a
  record" (None), ``null`` reads as the zero value.

Who speaks (``speaker``) is decided from the flags first, then from a record's explicit
signals where it has them (``SIGNALS``, Claude Code 2.1.328), then block by block from the
text's opening marker (``model.INJECTED_PREFIXES`` and friends). The person's
words are ``person_texts`` (one classifier: ``show``, the hand-off and citations' user
pool read it; titles and search read ``typed_texts`` beneath it).

The model is split by job, and this module re-exports it all: the speakers' names, the
signals and the text rules in ``speakers``, slash and local commands in
``slash_commands``, tool calls and results in ``tool_blocks``; the record itself, its
decoding, ``speaker`` and ``person_texts`` here. On the hand-off's path: no ``typing`` or
``re`` at import time.
"""

from __future__ import annotations

from termsprawl_context import model
from termsprawl_context.model import (
    ASSISTANT,
    COMMAND,
    COMPACTION,
    INJECTED,
    META,
    NOTICE,
    OTHER,
    PERSON,
    SIDECHAIN,
    SYSTEM,
    TASK_NOTIFICATION,
    TOOL_RESULT,
    Entry,
    ToolCall,  # noqa: F401 (the record model's readers take it from here)
    ToolResult,  # noqa: F401 (the record model's readers take it from here)
    decode_entry,  # noqa: F401 (the record model's readers take it from here)
    entry_of,  # noqa: F401 (the record model's readers take it from here)
)

# The modules this one is split into, star-imported: every reader of the model imports
# this one module, and this module's own rules use their names (so ruff cannot tell where
# each name comes from: mypy checks that they exist).
# ruff: noqa: F405
from termsprawl_context.transcript.slash_commands import *  # noqa: F403
from termsprawl_context.transcript.speakers import *  # noqa: F403
from termsprawl_context.transcript.tool_blocks import *  # noqa: F403

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import List, Optional


def person_texts(entry: Entry, parent: Optional[Entry] = None) -> List[str]:
    """What the person typed in ``entry``: the one classifier of "the person's words"
    that ``show``, the hand-off and the user pool of ``cite`` read.

    Its typed texts when it speaks as the person (``speaker`` is ``PERSON``), none when
    ``parent`` (the entry before it, when the reader knows it) is a local command whose
    output it is. ``parent`` None: the cross-entry rule is not applied here, and a reader
    that cannot pass the parent drops the texts itself when ``output_parent(entry)``
    names a local command (cite does, by uuid). Not here, on purpose: a slash command
    that reached the model (``slash_command``). The hand-off and ``show`` show it as the
    person typed it (``/review parser.py``); citations never ground in it, since its
    envelope is the harness's rendering, not the person's text. That is the one place
    where what ``show`` shows is wider than the user pool."""
    if speaker(entry) != PERSON or is_local_command_output(entry, parent):
        return []
    return typed_texts(entry)


def speaker(entry: Entry) -> str:
    """Who is speaking in ``entry``: one of ``SPEAKERS``.

    Flags decide first (a sidechain turn is a sub-agent's whatever its type; a meta or
    compaction record is the harness's); then a user record's explicit signals, where it
    has them (``SIGNALS``: a task notification; a slash command the person ran that
    reached the model, ``COMMAND``; a harness-sourced turn is never ``PERSON``); then a
    user entry is the person's when any of its texts is typed, a tool's when it carries
    a tool result, else whichever harness text it holds. A record without signals (every
    client before 2.1.x's) is classified by the flags and texts alone, as it always was."""
    kind = entry.type
    if entry.is_sidechain:
        return SIDECHAIN
    if kind == model.TYPE_ASSISTANT:
        return ASSISTANT
    if kind == model.TYPE_SYSTEM:
        return SYSTEM
    if kind == model.TYPE_ATTACHMENT:
        if queued_prompt(entry) is not None and not not_the_person(entry):
            return PERSON
        return INJECTED
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
    if has_tool_result(entry):
        return TOOL_RESULT
    for harness_kind in (COMPACTION, INJECTED, NOTICE):
        if harness_kind in kinds:
            return harness_kind
    return OTHER
