"""Codex CLI's facts, observed on 0.169.0 and the 0.47 shape: its store
(``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``), environment, project files and hook,
and its rollouts' record fields and injected text."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Iterator, List


NAME = "codex-cli"

# --- the store --------------------------------------------------------------------------
HOME_ENV = "CODEX_HOME"  # overrides ~/.codex
HOME_DIR_NAME = ".codex"
SESSIONS_SUBDIR = "sessions"  # sessions/YYYY/MM/DD/rollout-*.jsonl
ARCHIVED_SUBDIR = "archived_sessions"  # `codex` moves archived threads here, same names
ROLLOUT_PREFIX = "rollout-"
TRANSCRIPT_SUFFIX = ".jsonl"
THREAD_ID_CHARS = 36  # a UUID (v7 in 0.169): the file name's last 36 characters

# --- the running session ----------------------------------------------------------------
# Set in the shell tool's subprocesses (0.169): the thread id, in a main thread both.
THREAD_ID_ENV = "CODEX_THREAD_ID"
SESSION_ID_ENV = "CODEX_SESSION_ID"

# --- the project ------------------------------------------------------------------------
PROJECT_CONFIG_DIR = ".codex"
HOOKS_FILE = os.path.join(PROJECT_CONFIG_DIR, "hooks.json")  # loaded only in a trusted project
INSTRUCTION_FILE = "AGENTS.md"  # read from the git root down to the cwd; no import syntax
HOOK_TIMEOUT_SECONDS = 30
# SessionStart's `source` (0.169): "startup", "resume", and "fork" for `exec fork` (a new
# thread: the matcher "startup|resume" misses it; "*" matched all three).
HOOK_SOURCES = ("startup", "resume", "fork")
HOOK_MATCHER = "*"
HOOK_AGENT_ID = "agent_id"  # in a sub-agent thread's hook payload: the child's thread id
# What the person's config needs for project hooks to run (0.169; `codex_hooks` is the
# deprecated spelling).
FEATURES_TABLE = "features"
HOOKS_FEATURE = "hooks"

# --- envelope and record fields ---------------------------------------------------------
FIELD_TYPE = "type"
FIELD_PAYLOAD = "payload"
FIELD_TIMESTAMP = "timestamp"
KIND_SESSION_META = "session_meta"
KIND_RESPONSE_ITEM = "response_item"
KIND_EVENT = "event_msg"  # UI duplicates of the response items: read only for which answers were shown
EVENT_ITEM_COMPLETED = "item_completed"
EVENT_AGENT_MESSAGE = "AgentMessage"
KIND_TURN_CONTEXT = "turn_context"
KIND_COMPACTED = "compacted"
ITEM_MESSAGE = "message"
ITEM_REASONING = "reasoning"
ITEM_CALLS = ("function_call", "custom_tool_call", "local_shell_call")
ITEM_OUTPUTS = ("function_call_output", "custom_tool_call_output")
ROLE_USER = "user"
ROLE_ASSISTANT = "assistant"
ROLE_DEVELOPER = "developer"
ROLE_SYSTEM = "system"
# session_meta payload fields
META_ID = "id"
META_CWD = "cwd"
META_CLI_VERSION = "cli_version"
META_ORIGINATOR = "originator"
META_FORKED_FROM = "forked_from_id"
META_HISTORY_BASE = "history_base"  # {thread_id, end_ordinal_exclusive, end_byte_offset}
META_END_BYTE_OFFSET = "end_byte_offset"
META_PARENT_THREAD = "parent_thread_id"
META_SESSION_ID = "session_id"  # 0.169, a sub-agent's: the session (its parent thread) it runs in
META_THREAD_SOURCE = "thread_source"
THREAD_SOURCE_SUBAGENT = "subagent"
META_SOURCE = "source"  # "exec", "cli", or {"subagent": {"thread_spawn": {parent_thread_id, ...}}}
# 0.169 marks where a user-role block came from.
PASSTHROUGH = "internal_chat_message_metadata_passthrough"
ITEM_KINDS = "content_item_kinds"
# The kind 0.169 gives the person's own text; every other kind it names on a user-role block is
# the client's (hooks.additional_context, agents_md.instructions, environments.environment_context,
# generic.turn_aborted, multi_agent.subagent_notification, ...). "unknown" (and no kind) says
# nothing: the prefixes decide.
PERSON_KIND = "user.text"
UNKNOWN_KIND = "unknown"

# --- harness text in user-role messages -------------------------------------------------
# 0.169: the instruction files, then the environment; sub-agent results; 0.47 and near:
# `<user_instructions>` held AGENTS.md.
CONTEXT_PREFIXES = (
    "# AGENTS.md instructions for ",
    "<environment_context>",
    "<subagent_notification>",
    "<user_instructions>",
    "<turn_aborted>",  # 0.169, after an interrupted turn
)
# The rest of Codex's own list of contextual fragments (codex-rs/core/src/context/
# contextual_user_message.rs), each the text's start and end as Codex matches them (trimmed,
# ASCII case ignored): a `!cmd` the person ran with its output, a skill file's body, a hook's
# prompt, extension, goal and internal context, and the warnings older releases wrote.
CONTEXT_FRAMES = (
    ("<user_shell_command>", "</user_shell_command>"),
    ("<skill>", "</skill>"),
    ("<hook_prompt", "</hook_prompt>"),
    ("<extension_context>", "</extension_context>"),
    ("<goal_context>", "</goal_context>"),
    ("<codex_internal_context", "</codex_internal_context>"),
    ("Warning: apply_patch was requested via ", "Use the apply_patch tool instead of exec_command."),
    ("Warning: The maximum number of unified exec processes you can keep open is", ""),
    ("Warning: Your account was flagged for potentially high-risk cyber activity", ""),
    ("Here is a list of plugins that are available but not installed.", ""),
)
# The bridge a compaction leaves: the summary, presented as another model's.
COMPACTION_PREFIX = "Another language model started to solve this problem"

# 0.169's exec_command output opens with its own header lines, then a line `Output:` and the
# command's output (`Chunk ID: ...`, `Wall time: ...`, `Process exited with code N`, ...);
# earlier unified exec wrote `Exit code: N` / `Wall time: ...` first.
OUTPUT_HEADER_STARTS = ("Chunk ID: ", "Exit code: ", "Wall time: ")
OUTPUT_MARK = "Output:\n"

# Forks of forks are read parent first; a chain longer than this (or a loop) stops.
MAX_FORK_DEPTH = 16


def thread_id_of(path: str) -> str:
    """The thread id a rollout's file name ends with, or ""."""
    name = os.path.basename(path)
    if not (name.startswith(ROLLOUT_PREFIX) and name.endswith(TRANSCRIPT_SUFFIX)):
        return ""
    stem = name[: -len(TRANSCRIPT_SUFFIX)]
    if len(stem) < len(ROLLOUT_PREFIX) + THREAD_ID_CHARS:
        return ""
    tail = stem[-THREAD_ID_CHARS:]
    return tail if tail.count("-") == 4 and all(c in "0123456789abcdefABCDEF-" for c in tail) else ""


def rollouts_under(root: str) -> Iterator[str]:
    """Every ``YYYY/MM/DD/rollout-*.jsonl`` under a sessions root, oldest folder first."""
    from termsprawl_context.harness.base import listing

    for year in listing(root):
        for month in listing(os.path.join(root, year)):
            for day in listing(os.path.join(root, year, month)):
                folder = os.path.join(root, year, month, day)
                for name in listing(folder):
                    if name.startswith(ROLLOUT_PREFIX) and name.endswith(TRANSCRIPT_SUFFIX):
                        yield os.path.join(folder, name)


def find_rollout(thread_id: str, roots: List[str]) -> str:
    """The rollout of ``thread_id`` under any of ``roots``, or ""."""
    if not thread_id or len(thread_id) != THREAD_ID_CHARS:
        return ""
    return next((path for root in roots for path in rollouts_under(root) if thread_id_of(path) == thread_id), "")


def sessions_root_of(path: str) -> str:
    """The sessions root of a rollout at ``root/YYYY/MM/DD/name``; "" outside that layout (four
    levels up from a copy elsewhere may be any folder, ``/`` too, for a parent search to walk)."""
    day = os.path.dirname(os.path.abspath(path))
    month = os.path.dirname(day)
    year = os.path.dirname(month)
    parts = (os.path.basename(year), os.path.basename(month), os.path.basename(day))
    if not all(p.isdigit() and p.isascii() for p in parts) or [len(p) for p in parts] != [4, 2, 2]:
        return ""
    return os.path.dirname(year)
