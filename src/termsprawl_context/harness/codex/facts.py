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
ROLLOUT_PREFIX = "rollout-"
TRANSCRIPT_SUFFIX = ".jsonl"
THREAD_ID_CHARS = 36  # a UUID (v7 in 0.169): the file name's last 36 characters

# --- the project ------------------------------------------------------------------------
# (0.169 sets CODEX_THREAD_ID, and in a main thread CODEX_SESSION_ID, in the shell tool's subprocesses.)
PROJECT_CONFIG_DIR = ".codex"
HOOKS_FILE = os.path.join(PROJECT_CONFIG_DIR, "hooks.json")  # loaded only in a trusted project
INSTRUCTION_FILE = "AGENTS.md"  # read from the git root down to the cwd; no import syntax

# --- envelope and record fields ---------------------------------------------------------
FIELD_TYPE = "type"
KIND_SESSION_META = "session_meta"
KIND_EVENT = "event_msg"  # UI duplicates of the response items: read only for which answers were shown
META_CWD = "cwd"  # session_meta's (and turn_context's)
META_PARENT_THREAD = "parent_thread_id"

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
# The rest of Codex's own list of contextual fragments (codex-rs/core/src/context/contextual_user_message.rs), each the
# text's start and end as Codex matches them (trimmed, ASCII case ignored): a `!cmd` the person ran with its output, a
# skill file's body, a hook's prompt, extension, goal and internal context, and the warnings older releases wrote.
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

# Forks of forks are read parent first; a chain longer than this (or a loop) stops.
MAX_FORK_DEPTH = 16


def thread_id_of(path: str) -> str:
    """The thread id a rollout's file name ends with, or ""."""
    name = os.path.basename(path)
    named = name.startswith(ROLLOUT_PREFIX) and name.endswith(TRANSCRIPT_SUFFIX)
    tail = name[len(ROLLOUT_PREFIX) : -len(TRANSCRIPT_SUFFIX)][-THREAD_ID_CHARS:] if named else ""
    shaped = len(tail) == THREAD_ID_CHARS and tail.count("-") == 4
    return tail if shaped and all(c in "0123456789abcdefABCDEF-" for c in tail) else ""


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


def find_rollout(thread_id: str, near: str, roots: List[str]) -> str:
    """The rollout of ``thread_id``, looked for in the sessions root the rollout ``near`` lies in
    first (a thread's sub-agents and forks are written beside it), then under ``roots``; or ""."""
    if not thread_id or len(thread_id) != THREAD_ID_CHARS:
        return ""
    search = dict.fromkeys([sessions_root_of(near)] + [root for root in roots if root])
    return next((path for root in search for path in rollouts_under(root) if thread_id_of(path) == thread_id), "")


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
