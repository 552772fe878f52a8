"""GitHub Copilot CLI's own facts: where it keeps its sessions, the kinds of its event lines,
its hook payload and the files ``init`` plants for it.

Observed on Copilot CLI 1.0.102 (``@github/copilot``) run headless against a scripted
chat-completions server with BYOK env and ``COPILOT_OFFLINE=true`` (no GitHub login;
``../shared/reference/more-clis.md`` §3). A session is the folder
``$COPILOT_HOME/session-state/<session id>/`` (``$COPILOT_HOME`` defaults to
``~/.copilot``, as its bundle's ``configDir ?? COPILOT_HOME ?? ~/.copilot`` reads); its
record is ``events.jsonl`` there, append-only, one file across ``--resume``. Every line is
``{type, data, id, timestamp, parentId}``, plus top-level ``agentId`` on a sub-agent's lines
(a sub-agent is inlined in its parent's file: it has no transcript of its own) and
``ephemeral`` on kinds that are shown on stdout only. ``session-store.db`` (SQLite) beside
it is an index of the same turns: never read here, so a Python without ``sqlite3`` loses
nothing.
"""

from __future__ import annotations


NAME = "copilot-cli"
LABEL = "GitHub Copilot CLI"
HOME_ENV = "COPILOT_HOME"
HOME_SUBDIR = ".copilot"
SESSION_STATE_SUBDIR = "session-state"
EVENTS_FILE = "events.jsonl"

# The line kinds read (1.0.102); every other kind (turn bounds, usage, model changes,
# sub-agent bookkeeping, shutdown) is the client's own and prints nowhere.
KIND_SESSION_START = "session.start"
KIND_USER = "user.message"  # data.content is what was typed; transformedContent adds <current_datetime>
KIND_SYSTEM = "system.message"  # the full system prompt (a sub-agent's too)
KIND_ASSISTANT = "assistant.message"  # data.content, data.toolRequests[{toolCallId, name, arguments}]
KIND_TOOL_DONE = "tool.execution_complete"  # data.toolCallId, success, result.content / error
# Read in its bundle, not yet seen in a record: a notification the harness sends the model,
# the model's reasoning, and the summary that continues a compacted conversation.
KIND_NOTIFICATION = "system.notification"  # data.content
KIND_REASONING = "assistant.reasoning"  # data.content
KIND_COMPACTED = "session.compaction_complete"  # data.summaryContent
KIND_HOOK_END = "hook.end"  # data.output: what a hook answered (additionalContext reached the model)
FIELD_AGENT_ID = "agentId"  # top level: the line belongs to a sub-agent run inside the session
# A sub-agent's prompt carries data.source "agent-<parent session id>"; a typed one has none.
USER_SOURCE = "source"

# Hook payloads (1.0.102): sessionStart {sessionId, timestamp (ms), cwd, source "new" |
# "resume", initialPrompt}: the id, no transcript path (the path follows from the id).
PAYLOAD_SESSION_ID = "sessionId"
PAYLOAD_SOURCES = {"new": "startup", "resume": "resume"}
HOOK_ENV = "COPILOT_CLI"  # "1" in every hook's environment
HOOK_EVENT = "sessionStart"
HOOK_TIMEOUT_SECONDS = 30
# A project hook file (`.github/hooks/*.json`, loaded once the folder is trusted); this one
# is termsprawl's own, written whole by `init`, its first line (a "//" key: the format
# is JSON, so the marker is a key) saying so.
HOOK_FILE = ".github/hooks/termsprawl.json"
MANAGED_MARKER = '{"//": "managed by termsprawl-context init: rewritten by it, do not edit",'

_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")


def is_session_id(value) -> bool:
    """Whether ``value`` can name a session folder (letters, digits, ``-``, ``_``)."""
    return isinstance(value, str) and 0 < len(value) <= 128 and not (set(value) - _SAFE)
