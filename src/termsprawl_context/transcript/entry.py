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
text's opening marker (``harness.claude.INJECTED_PREFIXES`` and friends). The person's
words are ``person_texts`` (one classifier: ``show``, the hand-off and citations' user
pool read it; titles and search read ``typed_texts`` beneath it).

The model is split by job, and this module re-exports it all: the speakers' names, the
signals and the text rules in ``speakers``, slash and local commands in
``slash_commands``, tool calls and results in ``tool_blocks``; the record itself, its
decoding, ``speaker`` and ``person_texts`` here. On the hand-off's path: no ``typing`` or
``re`` at import time.
"""

from __future__ import annotations

from collections import namedtuple

from termsprawl_context.harness import claude as cc

# The modules this one is split into, star-imported: every reader of the model imports
# this one module, and this module's own rules use their names (so ruff cannot tell where
# each name comes from: mypy checks that they exist).
# ruff: noqa: F405
from termsprawl_context.transcript.slash_commands import *  # noqa: F403
from termsprawl_context.transcript.speakers import *  # noqa: F403
from termsprawl_context.transcript.tool_blocks import *  # noqa: F403

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, List, Optional

# The model's API: this module's own names and those of the modules it is split into that
# the package reads through it.
__all__ = ["Entry", "decode_entry", "entry_of", "person_texts", "speaker"]
__all__ += ["ASSISTANT", "COMMAND", "INJECTED", "PERSON", "TASK_NOTIFICATION", "TOOL_RESULT"]  # speakers
__all__ += ["content_texts", "not_the_person", "text_kind", "typed_texts"]  # speakers
__all__ += ["command_as_typed", "is_local_command", "is_local_command_output", "output_parent"]  # slash_commands
__all__ += ["slash_command", "task_notification_line"]  # slash_commands
__all__ += ["ToolCall", "ToolResult", "assistant_text", "is_hook_refusal", "not_run_kind"]  # tool_blocks
__all__ += ["result_texts", "tool_calls", "tool_outputs", "tool_results", "tool_use_ids"]  # tool_blocks


# (One literal, so type checkers see the fields.)
class Entry(
    namedtuple(
        "Entry",
        "type uuid parent_uuid logical_parent_uuid session_id timestamp cwd git_branch "
        "is_sidechain is_meta is_compact_summary is_transcript_only agent_id "
        "message content tool_use_result attachment line offset record",
    )
):
    """One transcript line's meaning.

    Strings are "" when absent; flags are False unless the record says ``true``;
    ``message`` is the message object or None, ``content`` its ``content`` (a string, a
    list of blocks, or None); ``tool_use_result`` and ``attachment`` are kept raw.
    ``line`` is the 1-based physical line (0 when unknown), ``offset`` the byte offset of
    the line's start (-1 when unknown), ``record`` the parsed object itself, for fields
    the model does not name.
    """

    __slots__ = ()


# JSON key -> (Entry field, kind): kind "s" string-or-null, "b" bool-or-null, "r" raw.
_DECODED = (
    (cc.FIELD_TYPE, "type", "s"),
    (cc.FIELD_UUID, "uuid", "s"),
    (cc.FIELD_PARENT_UUID, "parent_uuid", "s"),
    (cc.FIELD_LOGICAL_PARENT_UUID, "logical_parent_uuid", "s"),
    (cc.FIELD_SESSION_ID, "session_id", "s"),
    (cc.FIELD_TIMESTAMP, "timestamp", "s"),
    (cc.FIELD_CWD, "cwd", "s"),
    (cc.FIELD_GIT_BRANCH, "git_branch", "s"),
    (cc.FIELD_IS_SIDECHAIN, "is_sidechain", "b"),
    (cc.FIELD_IS_META, "is_meta", "b"),
    (cc.FIELD_IS_COMPACT_SUMMARY, "is_compact_summary", "b"),
    (cc.FIELD_IS_VISIBLE_IN_TRANSCRIPT_ONLY, "is_transcript_only", "b"),
    (cc.FIELD_AGENT_ID, "agent_id", "s"),
    (cc.FIELD_MESSAGE, "message", "r"),
    (cc.FIELD_TOOL_USE_RESULT, "tool_use_result", "r"),
    (cc.FIELD_ATTACHMENT, "attachment", "r"),
)
_BY_FOLDED_KEY = {key.casefold(): (field, kind) for key, field, kind in _DECODED}
_ZERO = {"s": "", "b": False, "r": None}


def _build(values: dict, record: dict, line: int, offset: int) -> Entry:
    message = values.get("message")
    if not isinstance(message, dict):
        message = None
    content = message.get("content") if message is not None else None
    return Entry(
        values.get("type", ""),
        values.get("uuid", ""),
        values.get("parent_uuid", ""),
        values.get("logical_parent_uuid", ""),
        values.get("session_id", ""),
        values.get("timestamp", ""),
        values.get("cwd", ""),
        values.get("git_branch", ""),
        values.get("is_sidechain", False),
        values.get("is_meta", False),
        values.get("is_compact_summary", False),
        values.get("is_transcript_only", False),
        values.get("agent_id", ""),
        message,
        content,
        values.get("tool_use_result"),
        values.get("attachment"),
        line,
        offset,
        record,
    )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def entry_of(record: dict, line: int = 0, offset: int = -1) -> Entry:
    """The lenient reading of a parsed line: exact key names, and a field of the wrong
    type reads as absent. For readers that fail open (the dump, session listings)."""
    # Spelled out field by field rather than looped over _DECODED: session listings
    # build one per parsed line, and the loop cost them a tenth of their time.
    get = record.get
    message = get(cc.FIELD_MESSAGE)
    if not isinstance(message, dict):
        message = None
    return Entry(
        _text(get(cc.FIELD_TYPE)),
        _text(get(cc.FIELD_UUID)),
        _text(get(cc.FIELD_PARENT_UUID)),
        _text(get(cc.FIELD_LOGICAL_PARENT_UUID)),
        _text(get(cc.FIELD_SESSION_ID)),
        _text(get(cc.FIELD_TIMESTAMP)),
        _text(get(cc.FIELD_CWD)),
        _text(get(cc.FIELD_GIT_BRANCH)),
        get(cc.FIELD_IS_SIDECHAIN) is True,
        get(cc.FIELD_IS_META) is True,
        get(cc.FIELD_IS_COMPACT_SUMMARY) is True,
        get(cc.FIELD_IS_VISIBLE_IN_TRANSCRIPT_ONLY) is True,
        _text(get(cc.FIELD_AGENT_ID)),
        message,
        message.get("content") if message is not None else None,
        get(cc.FIELD_TOOL_USE_RESULT),
        get(cc.FIELD_ATTACHMENT),
        line,
        offset,
        record,
    )


def decode_entry(record: Any, line: int = 0, offset: int = -1) -> Optional[Entry]:
    """The canonical decoding, or None when the line is "not a record": not an object,
    or a kept field of the wrong JSON type (``"timestamp": 123``, ``"isSidechain":
    "true"``). Keys match case-insensitively (``"UUID"`` fills uuid), the last of two
    spellings wins, and ``null`` reads as the zero value."""
    if not isinstance(record, dict):
        return None
    values = {}
    for key, value in record.items():
        hit = _BY_FOLDED_KEY.get(key.casefold()) if isinstance(key, str) else None
        if hit is None:
            continue
        field, kind = hit
        if value is None:
            values[field] = _ZERO[kind]
        elif kind == "s":
            if not isinstance(value, str):
                return None
            values[field] = value
        elif kind == "b":
            if not isinstance(value, bool):
                return None
            values[field] = value
        else:
            values[field] = value
    return _build(values, record, line, offset)


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
    if kind == cc.TYPE_ASSISTANT:
        return ASSISTANT
    if kind == cc.TYPE_SYSTEM:
        return SYSTEM
    if kind == cc.TYPE_ATTACHMENT:
        if queued_prompt(entry) is not None and not not_the_person(entry):
            return PERSON
        return INJECTED
    if kind != cc.TYPE_USER:
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
