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

Who speaks (``speaker``) is decided from the flags first, then block by block from the
text's opening marker (``harness.claude.INJECTED_PREFIXES`` and friends). This module is
on the dump's path: no ``typing`` or ``re`` at import time.
"""

from __future__ import annotations

from collections import namedtuple

from termsprawl_context.harness import claude as cc
from termsprawl_context.transcript.content import display_text  # noqa: F401 (part of the model's API)

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, List, Optional

# --- who is speaking ---------------------------------------------------------------------
PERSON = "person"  # text the person typed (or a prompt they queued)
ASSISTANT = "assistant"  # the model's own turn
INJECTED = "injected"  # harness text in a user-role message (<system-reminder>, command envelopes, ...)
NOTICE = "notice"  # harness notices beside a typed prompt (IDE context, caveats, interruptions)
META = "meta"  # isMeta / isVisibleInTranscriptOnly: shown to the model, never typed
COMPACTION = "compaction"  # the summary that continues a compacted conversation
TOOL_RESULT = "tool_result"  # a tool's output, carried in a user-role message
SIDECHAIN = "sidechain"  # an inline sub-agent's turn (isSidechain)
SYSTEM = "system"  # the harness's own system records
OTHER = "other"  # anything else (titles, summaries, snapshots, unknown kinds)

SPEAKERS = (PERSON, ASSISTANT, INJECTED, NOTICE, META, COMPACTION, TOOL_RESULT, SIDECHAIN, SYSTEM, OTHER)

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


# --- text ---------------------------------------------------------------------------------
def text_kind(text: str) -> str:
    """Who wrote a user-role text, from its opening words: INJECTED for the harness's
    envelopes, NOTICE for its side notices, COMPACTION for a compaction summary, else
    PERSON. A marker counts only at the start (after trimming): quoted elsewhere, it is
    the person's text."""
    head = text.lstrip()
    if head.startswith(cc.INJECTED_PREFIXES):
        return INJECTED
    if head.startswith(cc.NOTICE_PREFIXES):
        return NOTICE
    if head.startswith(cc.COMPACTION_PREFIX):
        return COMPACTION
    return PERSON


def content_texts(content: Any) -> List[str]:
    """The non-empty texts of a message's content, block by block: a string content is
    one text; in a list, a bare string or a ``text`` block's string ``text`` each count.
    Tool calls, tool results, thinking and images carry none."""
    if isinstance(content, str):
        return [content] if content else []
    if not isinstance(content, list):
        return []
    texts = []
    for block in content:
        if isinstance(block, str):
            if block:
                texts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            value = block.get("text")
            if isinstance(value, str) and value:
                texts.append(value)
    return texts


def queued_prompt(entry: Entry) -> Optional[str]:
    """The text of a prompt the person queued while the agent worked (an ``attachment``
    of type ``queued_command`` in prompt mode), or None for any other entry."""
    attachment = entry.attachment
    if entry.type != cc.TYPE_ATTACHMENT or not isinstance(attachment, dict):
        return None
    if attachment.get("type") != cc.QUEUED_COMMAND or attachment.get("commandMode") != cc.QUEUED_PROMPT_MODE:
        return None
    prompt = attachment.get("prompt")
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list):
        texts = [
            block["text"]
            for block in prompt
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
            and block["text"]
        ]
        return "\n\n".join(texts)
    return ""


def not_the_person(entry: Entry) -> bool:
    """Flags that say no text of this entry was typed by the person."""
    return entry.is_meta or entry.is_sidechain or entry.is_compact_summary or entry.is_transcript_only


def typed_texts(entry: Entry) -> List[str]:
    """What the person typed in this entry, block by block: the texts of a user entry
    (or a queued prompt) that no flag and no harness marker claims. [] for the rest."""
    if not_the_person(entry):
        return []
    if entry.type == cc.TYPE_ATTACHMENT:
        prompt = queued_prompt(entry)
        return [prompt] if prompt else []
    if entry.type != cc.TYPE_USER:
        return []
    return [text for text in content_texts(entry.content) if text_kind(text) == PERSON]


def has_tool_result(entry: Entry) -> bool:
    content = entry.content
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == "tool_result" for block in content
    )


def speaker(entry: Entry) -> str:
    """Who is speaking in ``entry``: one of ``SPEAKERS``.

    Flags decide first (a sidechain turn is a sub-agent's whatever its type; a meta or
    compaction record is the harness's); then a user entry is the person's when any of
    its texts is typed, a tool's when it carries a tool result, else whichever harness
    text it holds."""
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
    kinds = [text_kind(text) for text in content_texts(entry.content)]
    if PERSON in kinds:
        return PERSON
    if has_tool_result(entry):
        return TOOL_RESULT
    for harness_kind in (COMPACTION, INJECTED, NOTICE):
        if harness_kind in kinds:
            return harness_kind
    return OTHER


# --- tool calls and results -----------------------------------------------------------------
class ToolCall(namedtuple("ToolCall", "id name input")):
    """A ``tool_use`` block of an assistant entry: its id, tool name and raw input."""

    __slots__ = ()


class ToolResult(namedtuple("ToolResult", "tool_use_id content is_error")):
    """A ``tool_result`` block of a user entry: the call it answers, its raw content and
    whether the harness marked it ``is_error``."""

    __slots__ = ()


def tool_calls(entry: Entry) -> List[ToolCall]:
    """The tool calls of an assistant entry, in block order; [] for other entries."""
    if entry.type != cc.TYPE_ASSISTANT or not isinstance(entry.content, list):
        return []
    calls = []
    for block in entry.content:
        if isinstance(block, dict) and block.get("type") == "tool_use":
            call_id, name = block.get("id"), block.get("name")
            calls.append(
                ToolCall(
                    call_id if isinstance(call_id, str) else "",
                    name if isinstance(name, str) else "",
                    block.get("input"),
                )
            )
    return calls


def tool_results(entry: Entry) -> List[ToolResult]:
    """The tool results a user entry carries, in block order; [] for other entries."""
    if entry.type != cc.TYPE_USER or not isinstance(entry.content, list):
        return []
    results = []
    for block in entry.content:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            use_id = block.get("tool_use_id")
            results.append(
                ToolResult(use_id if isinstance(use_id, str) else "", block.get("content"), block.get("is_error") is True)
            )
    return results


def result_texts(content: Any) -> List[str]:
    """The bodies of a tool result's content: a string is one body; in a list, the
    non-empty string ``text`` of every element, whatever its type."""
    if isinstance(content, str):
        return [content] if content else []
    if not isinstance(content, list):
        return []
    bodies = []
    for element in content:
        if isinstance(element, dict):
            value = element.get("text")
            if isinstance(value, str) and value:
                bodies.append(value)
    return bodies


def assistant_text(entry: Entry) -> str:
    """An assistant entry's ``text`` blocks joined by newlines ("" for other entries)."""
    if entry.type != cc.TYPE_ASSISTANT:
        return ""
    return "\n".join(content_texts(entry.content))



def tool_use_ids(entry: Entry) -> List[str]:
    """The non-empty ids of the ``tool_use`` blocks in an entry's content, whatever the
    entry's type (a string content has none)."""
    if not isinstance(entry.content, list):
        return []
    return [
        block["id"]
        for block in entry.content
        if isinstance(block, dict) and block.get("type") == "tool_use" and isinstance(block.get("id"), str)
        and block["id"]
    ]


def is_hook_refusal(body: str) -> bool:
    """Whether a tool_result body is a PreToolUse hook blocking the call
    (``PreToolUse:<Tool> hook error: <reason>``) rather than anything the tool produced."""
    return body.startswith(cc.HOOK_REFUSAL_PREFIX) and cc.HOOK_REFUSAL_MARK in body


def hook_refusal_reason(body: str) -> Optional[str]:
    """The reason of a PreToolUse refusal body (what follows `` hook error: ``), or None
    when the body is not one."""
    if not is_hook_refusal(body):
        return None
    return body.split(cc.HOOK_REFUSAL_MARK, 1)[1]


def not_run_kind(result: ToolResult) -> str:
    """Which of the harness's "this call never ran" answers a tool result is (one of
    ``harness.claude``'s ``NOT_RUN_*`` kinds), or "" when the call ran.

    Only a result marked ``is_error`` can say so: a tool's own output may print
    anything, and text that merely looks like a refusal must not unmake a call."""
    if not result.is_error:
        return ""
    for body in result_texts(result.content):
        if is_hook_refusal(body):
            return cc.NOT_RUN_HOOK
        for kind, openings in cc.NOT_RUN_PREFIXES:
            for opening in openings:
                if body.startswith(opening):
                    if opening == cc.NOT_RUN_DENIED_OPENING and cc.NOT_RUN_DENIED not in body:
                        continue
                    return kind
    return ""
