"""The shapes every provider produces, at the bottom of the package: one ``Entry`` per
transcript record, tool calls and results, the speakers' names, a store's ``Session`` and
the one ``SessionInfo`` every CLI's session is described as (so ``sessions --json`` has
one shape), and the record vocabulary the model reads.

Every provider (``harness/<cli>/``) normalises its records to one shape, the one Claude
Code writes natively (observed on Claude Code 1.0 through 2.1.328): the field names,
record kinds and text markers below are that shape's, read by the CLI-neutral rules in
``transcript/`` over any provider's entries. Where a CLI keeps its store, how it names
files and what its hooks say stay in its provider. Imports nothing of the package; on the
dump's path: no ``typing`` or ``re`` at import time.
"""

from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, Optional

__all__ = [
    "AGENT_LAUNCH_WORD",
    "ANSWER_JOIN",
    "ANSWER_PREFIXES",
    "ANSWER_PREVIEW_MARK",
    "ANSWER_TRAILERS",
    "ASSISTANT",
    "COMMAND",
    "COMMAND_ARGS_TAG",
    "COMMAND_NAME_TAG",
    "COMPACTION",
    "COMPACTION_PREFIX",
    "DELEGATION_TOOLS",
    "Entry",
    "FIELD_AI_TITLE",
    "FIELD_CUSTOM_TITLE",
    "FIELD_CWD",
    "FIELD_IS_COMPACT_SUMMARY",
    "FIELD_IS_VISIBLE_IN_TRANSCRIPT_ONLY",
    "FIELD_LEAF_UUID",
    "FIELD_ORIGIN",
    "FIELD_PROMPT_SOURCE",
    "FIELD_RENDERED_ROLE",
    "FIELD_SESSION_ID",
    "FIELD_SUMMARY",
    "FIELD_TURN_COMPANION",
    "FIELD_TURN_ORIGIN",
    "FIELD_TYPE",
    "FIELD_UUID",
    "HOOK_REFUSAL_MARK",
    "HOOK_REFUSAL_PREFIX",
    "INJECTED",
    "INJECTED_PREFIXES",
    "INPUT_COMMAND",
    "INPUT_FILE_PATH",
    "INPUT_PATH_KEYS",
    "INPUT_QUESTION",
    "INPUT_QUESTIONS",
    "INPUT_RUN_IN_BACKGROUND",
    "LOCAL_COMMAND_ANSWERS",
    "LOCAL_COMMAND_CAVEAT",
    "LOCAL_COMMAND_CAVEAT_OPEN",
    "LOCAL_COMMAND_OPEN",
    "META",
    "NOTICE",
    "NOTICE_PREFIXES",
    "NOT_RUN_DENIED",
    "NOT_RUN_DENIED_OPENING",
    "NOT_RUN_HOOK",
    "NOT_RUN_PREFIXES",
    "ORIGIN_KIND",
    "ORIGIN_KINDS_PERSON",
    "ORIGIN_KIND_TASK",
    "OTHER",
    "PERSON",
    "PROMPT_COMMAND_OPEN",
    "PROMPT_SOURCES_PERSON",
    "PROMPT_SOURCE_SYSTEM",
    "QUEUED_COMMAND",
    "QUEUED_PROMPT_MODE",
    "SIDECHAIN",
    "SYSTEM",
    "Session",
    "SessionInfo",
    "SummaryLink",
    "TASK_NOTIFICATION",
    "TASK_NOTIFICATION_MODE",
    "TASK_NOTIFICATION_OPEN",
    "TASK_STATUS_TAG",
    "TASK_SUMMARY_TAG",
    "TASK_TERMINAL_STATUSES",
    "TITLE_AI",
    "TITLE_CUSTOM",
    "TITLE_SUMMARY",
    "TOOL_ASK_USER_QUESTION",
    "TOOL_BASH",
    "TOOL_RESULT",
    "TOOL_TASK_OUTPUT",
    "TURN_ORIGINS_PERSON",
    "TURN_ORIGIN_TASK",
    "TYPE_ASSISTANT",
    "TYPE_ATTACHMENT",
    "TYPE_SYSTEM",
    "TYPE_USER",
    "ToolCall",
    "ToolResult",
    "decode_entry",
    "entry_of",
]


# --- the record vocabulary (Claude Code's record shape, which every provider produces) ------
FIELD_TYPE = "type"
FIELD_UUID = "uuid"
FIELD_PARENT_UUID = "parentUuid"
FIELD_LOGICAL_PARENT_UUID = "logicalParentUuid"  # set on the first record after a compaction
FIELD_SESSION_ID = "sessionId"
FIELD_TIMESTAMP = "timestamp"
FIELD_CWD = "cwd"
FIELD_GIT_BRANCH = "gitBranch"
FIELD_IS_SIDECHAIN = "isSidechain"
FIELD_IS_META = "isMeta"
FIELD_IS_COMPACT_SUMMARY = "isCompactSummary"
FIELD_IS_VISIBLE_IN_TRANSCRIPT_ONLY = "isVisibleInTranscriptOnly"
FIELD_AGENT_ID = "agentId"
FIELD_MESSAGE = "message"
FIELD_TOOL_USE_RESULT = "toolUseResult"
FIELD_ATTACHMENT = "attachment"
# Fields of the title and summary records.
FIELD_CUSTOM_TITLE = "customTitle"  # on custom-title records
FIELD_AI_TITLE = "aiTitle"  # on ai-title records
FIELD_SUMMARY = "summary"  # on summary records
FIELD_LEAF_UUID = "leafUuid"  # a summary naming another session's leaf message

# The record types that carry a conversation turn; others are kept verbatim as unknown.
TYPE_USER = "user"
TYPE_ASSISTANT = "assistant"
TYPE_SYSTEM = "system"
TYPE_ATTACHMENT = "attachment"

# Title records: the person's /rename, the harness's generated title, the 1.x summary.
TITLE_CUSTOM = "custom-title"
TITLE_AI = "ai-title"
TITLE_SUMMARY = "summary"

# An attachment that is a prompt the person typed while the agent was busy.
QUEUED_COMMAND = "queued_command"
QUEUED_PROMPT_MODE = "prompt"

# --- text the harness injects into user-role messages -------------------------------------
# A user-role text that, once trimmed, starts with one of these was written by the
# harness, not typed by the person (the citation pool's exact list).
INJECTED_PREFIXES = (
    "<task-notification>",
    "[SYSTEM NOTIFICATION - NOT USER INPUT]",
    "<system-reminder>",
    "<local-command",  # <local-command-stdout>, <local-command-stderr>, <local-command-caveat>
    "<command-name>",
    "<command-message>",
    "<command-args>",
)
# Notices the harness adds beside a typed prompt (IDE context, caveats before local command
# output, interruption markers): not typed by the person either, but outside the citation
# pool's exact list, so kept apart.
NOTICE_PREFIXES = (
    "<ide_opened_file>",
    "<ide_selection>",
    "<ide_diagnostics>",
    "Caveat: The messages below were generated by the user while running local commands.",
    "[Request interrupted by user",
    # Output of a command the person ran in bash mode (``!ls``): the shell's, not theirs.
    "<bash-stdout>",
    "<bash-stderr>",
    "<user-prompt-submit-hook>",  # a UserPromptSubmit hook's output shown beside the prompt
)
# The caveat record the harness writes before a local command's envelope and output
# (``<local-command-caveat>Caveat: ...`` since 2.1.x, the bare ``Caveat: ...`` before).
LOCAL_COMMAND_CAVEAT_OPEN = "<local-command-caveat>"
LOCAL_COMMAND_CAVEAT = "Caveat: The messages below were generated by the user while running local commands."
# A local command's envelope opens with its name; a command whose expansion reaches the
# model (a custom command, /init, /review) opens with its message instead (observed from
# 1.0.x to 2.1.328: ``<command-message>review</command-message>\n<command-name>/review...``).
LOCAL_COMMAND_OPEN = "<command-name>"
PROMPT_COMMAND_OPEN = "<command-message>"
# What a local command answered, written as a plain user text after its envelope by older
# clients (held-out store: a session titled "Unknown skill: hookify" after /hookify).
LOCAL_COMMAND_ANSWERS = ("Unknown skill: ", "Unknown command: ")
# A slash command the person ran, as the harness records it in a user-role text:
# ``<command-message>…</command-message><command-name>/x</command-name><command-args>…</command-args>``.
COMMAND_NAME_TAG = "command-name"
COMMAND_ARGS_TAG = "command-args"
# Explicit "who produced this turn" fields of a user record (2.1.328; absent in the
# corpus's 1.0.24 to 2.1.114 files). transcript.entry's SIGNALS table says what each means.
FIELD_PROMPT_SOURCE = "promptSource"  # "typed" | "sdk" | "system"
FIELD_TURN_ORIGIN = "turnOrigin"  # "human" | "sdk" | "task_notification"
FIELD_ORIGIN = "origin"  # {"kind": "human"} | {"kind": "task-notification", "producer", "runId"}
ORIGIN_KIND = "kind"
FIELD_TURN_COMPANION = "turnCompanion"  # true on a slash command's expansion (with isMeta)
PROMPT_SOURCES_PERSON = ("typed", "sdk")
PROMPT_SOURCE_SYSTEM = "system"
TURN_ORIGINS_PERSON = ("human", "sdk")
TURN_ORIGIN_TASK = "task_notification"
ORIGIN_KINDS_PERSON = ("human",)
ORIGIN_KIND_TASK = "task-notification"
# An attachment's text as the model saw it, and in which role (2.1.328): never typed.
FIELD_RENDERED = "rendered"
FIELD_RENDERED_ROLE = "renderedRole"
# A task notification's parts that may be shown: what finished and how; never its ids or
# output file (internal paths under /tmp/claude-<uid>/).
TASK_SUMMARY_TAG = "summary"
TASK_STATUS_TAG = "status"
# The compaction summary's opening words (older records lack isCompactSummary).
COMPACTION_PREFIX = "This session is being continued from a previous conversation"

# --- tool calls that never ran ------------------------------------------------------------
# A tool_result marked is_error whose body opens with one of these
# is the harness saying the call did not run, not the tool's own output; measured on real
# records. Kind name -> openings.
NOT_RUN_HOOK = "hook"  # a PreToolUse hook blocked the call
NOT_RUN_PERMISSION = "permission"  # the person did not grant it
NOT_RUN_INTERRUPTED = "interrupted"
NOT_RUN_TOOL_ERROR = "tool_use_error"  # the tool refused its input before running
NOT_RUN_SAFETY = "safety_check"  # the shell tool's own safety check
NOT_RUN_DENIED_OPENING = "Permission to use "
NOT_RUN_DENIED = " has been denied"  # the rest of "Permission to use <tool> has been denied"
NOT_RUN_PREFIXES = (
    (NOT_RUN_HOOK, ("Tool call blocked by a PreToolUse hook: ",)),
    (
        NOT_RUN_PERMISSION,
        (
            "The user doesn't want to ",
            NOT_RUN_DENIED_OPENING,  # counts only with NOT_RUN_DENIED after it
            "Claude requested permissions to use ",
            "This command requires approval",
            "This Bash command contains multiple operations. The following part requires approval: ",
            "Tool permission request",
        ),
    ),
    (NOT_RUN_INTERRUPTED, ("[Request interrupted by user for tool use]",)),
    (NOT_RUN_TOOL_ERROR, ("<tool_use_error>",)),
    (NOT_RUN_SAFETY, ("Contains brace with quote character",)),
)

# --- tools, results and notices the citations and background-agent readers know --------
TOOL_BASH = "Bash"
TOOL_ASK_USER_QUESTION = "AskUserQuestion"
TOOL_TASK_OUTPUT = "TaskOutput"  # returns a background task's output (maybe an agent's reply)
DELEGATION_TOOLS = ("Agent", "Task")  # dispatch a sub-agent; the result is its model-written reply
# Tool inputs that name a file the call reads.
INPUT_COMMAND = "command"
INPUT_PATH_KEYS = ("file_path", "path", "notebook_path")
INPUT_FILE_PATH = "file_path"
INPUT_RUN_IN_BACKGROUND = "run_in_background"
# An AskUserQuestion answer comes back as a tool result opening (somewhere) with one of
# these, then `"<question>"="<answer>", ...`, then one of the trailers.
ANSWER_PREFIXES = (
    "The user answered:",
    "Your questions have been answered:",
    "User has answered your questions:",
)  # the last: 2.0.x-2.1.14 (corpus)
ANSWER_TRAILERS = (
    ". Read the answers",
    ". You can now continue with these answers",
    ". You can now continue with the user's answers",
)
ANSWER_JOIN = '"="'
# 2.1.328 writes the preview of the option picked after its answer: the model's text.
ANSWER_PREVIEW_MARK = '" selected preview:\n'
INPUT_QUESTIONS = "questions"  # an AskUserQuestion call's input: [{"question": ..., "options": ...}]
INPUT_QUESTION = "question"
# A PreToolUse hook that blocked a call: the tool result "PreToolUse:<Tool> hook error: <reason>".
HOOK_REFUSAL_PREFIX = "PreToolUse:"
HOOK_REFUSAL_MARK = " hook error: "
# A background task's end, as the harness tells the model (a user text or a queued
# command in task-notification mode).
TASK_NOTIFICATION_OPEN = "<task-notification>"
TASK_NOTIFICATION_MODE = "task-notification"
TASK_TERMINAL_STATUSES = ("completed", "failed", "killed", "stopped")
# The receipt of a background Agent call names the agent: "... launched ...\nagentId: <id>".
AGENT_LAUNCH_WORD = "launched"


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


# --- tool calls and results ---------------------------------------------------------------------
class ToolCall(namedtuple("ToolCall", "id name input")):
    """A ``tool_use`` block of an assistant entry: its id, tool name and raw input."""

    __slots__ = ()


class ToolResult(namedtuple("ToolResult", "tool_use_id content is_error")):
    """A ``tool_result`` block of a user entry: the call it answers, its raw content and
    whether the harness marked it ``is_error``."""

    __slots__ = ()


# --- one record ---------------------------------------------------------------------------------
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
    (FIELD_TYPE, "type", "s"),
    (FIELD_UUID, "uuid", "s"),
    (FIELD_PARENT_UUID, "parent_uuid", "s"),
    (FIELD_LOGICAL_PARENT_UUID, "logical_parent_uuid", "s"),
    (FIELD_SESSION_ID, "session_id", "s"),
    (FIELD_TIMESTAMP, "timestamp", "s"),
    (FIELD_CWD, "cwd", "s"),
    (FIELD_GIT_BRANCH, "git_branch", "s"),
    (FIELD_IS_SIDECHAIN, "is_sidechain", "b"),
    (FIELD_IS_META, "is_meta", "b"),
    (FIELD_IS_COMPACT_SUMMARY, "is_compact_summary", "b"),
    (FIELD_IS_VISIBLE_IN_TRANSCRIPT_ONLY, "is_transcript_only", "b"),
    (FIELD_AGENT_ID, "agent_id", "s"),
    (FIELD_MESSAGE, "message", "r"),
    (FIELD_TOOL_USE_RESULT, "tool_use_result", "r"),
    (FIELD_ATTACHMENT, "attachment", "r"),
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
    message = get(FIELD_MESSAGE)
    if not isinstance(message, dict):
        message = None
    return Entry(
        _text(get(FIELD_TYPE)),
        _text(get(FIELD_UUID)),
        _text(get(FIELD_PARENT_UUID)),
        _text(get(FIELD_LOGICAL_PARENT_UUID)),
        _text(get(FIELD_SESSION_ID)),
        _text(get(FIELD_TIMESTAMP)),
        _text(get(FIELD_CWD)),
        _text(get(FIELD_GIT_BRANCH)),
        get(FIELD_IS_SIDECHAIN) is True,
        get(FIELD_IS_META) is True,
        get(FIELD_IS_COMPACT_SUMMARY) is True,
        get(FIELD_IS_VISIBLE_IN_TRANSCRIPT_ONLY) is True,
        _text(get(FIELD_AGENT_ID)),
        message,
        message.get("content") if message is not None else None,
        get(FIELD_TOOL_USE_RESULT),
        get(FIELD_ATTACHMENT),
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


# --- a store's sessions -------------------------------------------------------------------------
class Session(object):
    """One transcript file of a provider's store, as listings see it (no content read)."""

    __slots__ = ("harness", "session_id", "path")

    def __init__(self, harness: str, session_id: str, path: str) -> None:
        self.harness, self.session_id, self.path = harness, session_id, path

    def __repr__(self) -> str:
        return "Session(%r, %r, %r)" % (self.harness, self.session_id, self.path)


class SummaryLink(namedtuple("SummaryLink", "summary leaf_uuid")):
    """A summary record naming another session's leaf message (its ``leafUuid``)."""

    __slots__ = ()


# (One literal, so type checkers see the fields; the order is ``sessions --json``'s.)
class SessionInfo(
    namedtuple(
        "SessionInfo",
        "session_id transcript_path project_path mtime size summary first_user_message summary_links "
        "title title_source cwd git_branch first_timestamp last_timestamp harness",
        defaults=("", "", "", 0.0, 0, "", "", (), "", "", "", "", "", "", ""),
    )
):
    """One session described, the same shape for every CLI: its id and transcript, the
    store folder it lies in (relative to the store; "" when the store has none), its
    file's modification time and size, its title and where the title came from, the
    first prompt, the summaries it names, the directory and branch it ran in, its first
    and last record's time, and the provider (``harness``) that wrote it. A field the
    CLI's records do not hold is blank."""

    __slots__ = ()

    def to_dict(self) -> dict:
        """Every field as plain JSON-ready data, plus ``modified`` (mtime, ISO UTC)."""
        data = self._asdict()
        data["summary_links"] = [{"summary": link.summary, "leaf_uuid": link.leaf_uuid} for link in self.summary_links]
        data["modified"] = iso_utc(self.mtime)
        return data


def iso_utc(seconds: float) -> str:
    """``seconds`` since the epoch as ``YYYY-MM-DDTHH:MM:SS.mmmZ``, the transcripts' form."""
    import time

    whole = int(seconds // 1)
    millis = int(round((seconds - whole) * 1000))
    if millis == 1000:
        whole, millis = whole + 1, 0
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + ".%03dZ" % millis
