"""pi's own facts (``@mariozechner/pi-coding-agent`` 0.73.1, session format v3, its
``docs/session-format.md``; observed run headless against a scripted chat-completions
server, ``../shared/reference/more-clis.md`` §5).

A session is one append-only JSONL file
``$PI_CODING_AGENT_DIR/sessions/--<cwd with / as ->--/<ISO time, : and . as ->_<uuid>.jsonl``
(``$PI_CODING_AGENT_DIR`` defaults to ``~/.pi/agent``; ``$PI_CODING_AGENT_SESSION_DIR``
replaces the whole sessions folder; a ``sessionDir`` in pi's settings.json is not read
here), one file across ``-c``. Its first line is the header ``{"type": "session",
"version": 3, "id", "timestamp", "cwd"}`` (+ ``parentSession`` for a fork); every other
line is an entry ``{type, id, parentId, timestamp, ...}`` of a tree: entries are appended
as they happen, so a branch left with ``/tree`` stays in the file before the new one
(read here in file order, every branch).
"""

from __future__ import annotations

import os


NAME = "pi"
LABEL = "pi"
AGENT_DIR_ENV = "PI_CODING_AGENT_DIR"
AGENT_SUBDIR = os.path.join(".pi", "agent")
# The sessions folder, as ``base.user_dir`` reads it.
SESSIONS_VARIABLES = (("PI_CODING_AGENT_SESSION_DIR", ""), (AGENT_DIR_ENV, "sessions"))
SESSIONS_DEFAULT = os.path.join(AGENT_SUBDIR, "sessions")

KIND_HEADER = "session"
KIND_MESSAGE = "message"
KIND_CUSTOM_MESSAGE = "custom_message"  # an extension's text sent to the model: never the person's
KIND_COMPACTION = "compaction"  # summary: what continues a compacted conversation
KIND_BRANCH_SUMMARY = "branch_summary"  # summary of a branch left with /tree
# message.role values: user / assistant / toolResult from pi-ai; the rest pi's own.
ROLE_USER, ROLE_ASSISTANT, ROLE_TOOL_RESULT = "user", "assistant", "toolResult"
ROLE_BASH = "bashExecution"  # a `!cmd` the person ran and its output: command output
ROLE_CUSTOM = "custom"  # an extension's message
ROLES_SUMMARY = ("branchSummary", "compactionSummary")

# A project extension (`.pi/extensions/*.ts`, loaded with no trust step in 0.73.1), written
# whole by `init`; its first line says so.
EXTENSION_FILE = ".pi/extensions/termsprawl.ts"
MANAGED_MARKER = "// managed by termsprawl-context init: rewritten by it, do not edit"
# The extension's payload: session_start's reason ("startup" also on -c in 0.73.1).
REASON_SOURCES = {"startup": "startup", "new": "startup", "resume": "resume", "fork": "resume", "reload": "resume"}
