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
pool read it; titles and search read ``typed_texts`` beneath it). This module is on the dump's path: no ``typing`` or ``re``
at import time.
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
# Only from a record's explicit signals (SIGNALS below), so older files never get them:
TASK_NOTIFICATION = "task_notification"  # a sub-agent or background job finished (the harness's turn)
COMMAND = "command"  # a slash command the person ran that reached the model (its envelope)

SPEAKERS = (
    PERSON,
    ASSISTANT,
    INJECTED,
    NOTICE,
    META,
    COMPACTION,
    TOOL_RESULT,
    SIDECHAIN,
    SYSTEM,
    OTHER,
    TASK_NOTIFICATION,
    COMMAND,
)

# --- the explicit signals -------------------------------------------------------------------
# Fields that say who produced a record, where a record has them; a record without any is
# read by the text rules below, exactly as before these fields existed (the corpus's files,
# 1.0.24 to 2.1.114, hold none of promptSource/turnOrigin/origin/turnCompanion/rendered).
# (field, value, meaning, first seen): "first seen" is the oldest client version we have
# records of holding the field, not necessarily the version that introduced it.
SIGNALS = (
    (cc.FIELD_PROMPT_SOURCE, "typed", "the person typed the prompt (interactive)", "2.1.328"),
    (cc.FIELD_PROMPT_SOURCE, "sdk", "the person's prompt through print mode or the SDK", "2.1.328"),
    (cc.FIELD_PROMPT_SOURCE, "system", "the harness wrote the turn (a task notification)", "2.1.328"),
    (cc.FIELD_TURN_ORIGIN, "human", "the turn started from the person's input", "2.1.328"),
    (
        cc.FIELD_TURN_ORIGIN,
        "sdk",
        "the turn started from a print-mode or SDK prompt (a slash " "command's envelope included)",
        "2.1.328",
    ),
    (cc.FIELD_TURN_ORIGIN, "task_notification", "a sub-agent or background job finished", "2.1.328"),
    (cc.FIELD_ORIGIN, "{kind: human}", "the person's turn", "2.1.328"),
    (cc.FIELD_ORIGIN, "{kind: task-notification}", "a task notification (producer, runId)", "2.1.328"),
    (
        cc.FIELD_TURN_COMPANION,
        "true",
        "written beside a turn (a slash command's expansion, the "
        "reminder before a notification): with isMeta, never typed",
        "2.1.328",
    ),
    (cc.FIELD_IS_COMPACT_SUMMARY, "true", "the summary that continues a compacted conversation", "1.0.80"),
    (cc.FIELD_IS_VISIBLE_IN_TRANSCRIPT_ONLY, "true", "shown in the transcript, never typed", "2.1.5"),
    (
        cc.FIELD_RENDERED_ROLE,
        "system|user",
        "an attachment's text as the model saw it: the " "harness's, whatever the role",
        "2.1.328",
    ),
)
SIGNAL_PERSON = "person"  # the record says the person produced the turn
SIGNAL_TASK = "task"  # the record says it is a task notification
SIGNAL_HARNESS = "harness"  # the record says the harness produced it


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


_FIELD_ORIGIN, _FIELD_TURN_ORIGIN, _FIELD_PROMPT_SOURCE = cc.FIELD_ORIGIN, cc.FIELD_TURN_ORIGIN, cc.FIELD_PROMPT_SOURCE


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
    kind = origin.get(cc.ORIGIN_KIND) if isinstance(origin, dict) else None
    if kind == cc.ORIGIN_KIND_TASK or turn == cc.TURN_ORIGIN_TASK:
        return SIGNAL_TASK
    if source == cc.PROMPT_SOURCE_SYSTEM:
        return SIGNAL_HARNESS
    if kind in cc.ORIGIN_KINDS_PERSON or turn in cc.TURN_ORIGINS_PERSON or source in cc.PROMPT_SOURCES_PERSON:
        return SIGNAL_PERSON
    return ""


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
    return entry.type == cc.TYPE_USER and turn_signal(entry) in (SIGNAL_TASK, SIGNAL_HARNESS)


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


def _tag_text(text: str, tag: str) -> str:
    """The text between ``<tag>`` and ``</tag>`` (the first pair), "" when absent."""
    opening, closing = "<%s>" % tag, "</%s>" % tag
    start = text.find(opening)
    if start < 0:
        return ""
    start += len(opening)
    end = text.find(closing, start)
    return text[start:end] if end >= 0 else ""


def command_as_typed(text: str) -> str:
    """``/name args`` of a slash command's envelope text (older records write the name
    without its slash), "" when the text names no command. Whitespace is the envelope's."""
    name = _tag_text(text, cc.COMMAND_NAME_TAG).strip()
    if not name:
        return ""
    if not name.startswith("/"):
        name = "/" + name
    args = _tag_text(text, cc.COMMAND_ARGS_TAG).strip()
    return name + " " + args if args else name


def slash_command(entry: Entry) -> str:
    """The slash command the person ran, as they typed it (``/review parser.py``), when
    this user entry is the envelope of one that reached the model; "" otherwise.

    Reached the model: the record's signals say the person started the turn (2.1.328
    writes ``turnOrigin`` on such an envelope and none on a local command's), or, without
    signals, the envelope opens with ``<command-message>`` (a local command's opens with
    ``<command-name>``, 1.0.x to 2.1.328). The expansion that follows (``isMeta``) is
    the harness's, and so is a local command (/compact, /context, /model) and its output."""
    if entry.type != cc.TYPE_USER or not_the_person(entry):
        return ""
    signal = turn_signal(entry)
    for text in content_texts(entry.content):
        head = text.lstrip()
        if not head.startswith(cc.INJECTED_PREFIXES):
            continue
        if signal == SIGNAL_PERSON or head.startswith(cc.PROMPT_COMMAND_OPEN):
            typed = command_as_typed(head)
            if typed:
                return typed
    return ""


def is_local_command(entry: Entry) -> bool:
    """A user entry that is a local command's caveat or envelope (``/compact``,
    ``/model``): what follows it as its child is that command's output, not typed."""
    if entry.type != cc.TYPE_USER or slash_command(entry):
        return False
    for text in content_texts(entry.content):
        head = text.lstrip()
        if head.startswith((cc.LOCAL_COMMAND_OPEN, cc.LOCAL_COMMAND_CAVEAT_OPEN, cc.LOCAL_COMMAND_CAVEAT)):
            return True
    return False


def output_parent(entry: Entry) -> str:
    """The uuid of the entry that, were it a local command's caveat or envelope, would
    make this entry's typed text that command's output (``is_local_command_output``);
    "" when no parent could: not a user entry, no parent, an explicit signal that the
    person typed it, or no text the text rules call typed. A reader that streams (cite)
    keeps this uuid and looks the parent up later, instead of holding every entry."""
    if entry.type != cc.TYPE_USER or not entry.parent_uuid or turn_signal(entry) == SIGNAL_PERSON:
        return ""
    if not any(text_kind(text) == PERSON for text in content_texts(entry.content)):
        return ""  # the envelope after its caveat, or wrapped output: the text rules see to those
    return entry.parent_uuid


def is_local_command_output(entry: Entry, parent: Optional[Entry]) -> bool:
    """Whether ``entry`` (a user entry whose text rules call it typed) is the output of
    the local command ``parent`` records: its parent is a caveat or a local command's
    envelope and no explicit signal says the person typed it (older clients wrote a
    command's answer as plain text there: ``Unknown skill: hookify`` after /hookify)."""
    if parent is None:
        return False
    uuid = output_parent(entry)
    return bool(uuid) and uuid == parent.uuid and is_local_command(parent)


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


def task_notification_line(entry: Entry) -> str:
    """One line saying what finished, for a task notification: its ``<summary>`` and
    ``<status>`` (``Agent "Marker finder" finished (completed)``); never its task id,
    tool-use id or output file. "" when the entry is not one or says neither."""
    if entry.type != cc.TYPE_USER or turn_signal(entry) != SIGNAL_TASK:
        return ""
    for text in content_texts(entry.content):
        if cc.TASK_NOTIFICATION_OPEN not in text:
            continue
        summary = " ".join(_tag_text(text, cc.TASK_SUMMARY_TAG).split())
        status = " ".join(_tag_text(text, cc.TASK_STATUS_TAG).split())
        if summary and status:
            return summary if status in summary else "%s (%s)" % (summary, status)
        if summary or status:
            return summary or "a background task ended: %s" % status
    return ""


def has_tool_result(entry: Entry) -> bool:
    content = entry.content
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == "tool_result" for block in content
    )


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
                ToolResult(
                    use_id if isinstance(use_id, str) else "", block.get("content"), block.get("is_error") is True
                )
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
        if isinstance(block, dict)
        and block.get("type") == "tool_use"
        and isinstance(block.get("id"), str)
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
