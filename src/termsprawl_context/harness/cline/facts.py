"""Cline CLI's facts (observed on Cline CLI 3.0.65 run against a scripted chat-completions
server; ``../shared/reference/more-clis.md`` section 6).

Store: ``$CLINE_SESSION_DATA_DIR``, else ``$CLINE_DATA_DIR/sessions``, else
``$CLINE_DIR/data/sessions``, else ``~/.cline/data/sessions`` (read in the 3.0.65 binary).
A session is a folder ``<id>/`` (id ``<epoch ms>_<5 letters and digits>``) holding
``<id>.json`` (the manifest: ``cwd``, ``workspace_root``, ``prompt``, ``status``, ...) and
``<id>.messages.json`` (the conversation), each one JSON document rewritten whole on every
change. ``data/db/sessions.db`` indexes them (SQLite, WAL) with the manifest's fields; it is
not read here: the manifests say the same, so no ``sqlite3`` is needed for Cline.

Messages file: ``{"version", "updated_at", "agent", "sessionId", "origin", "messages":
[...], "system_prompt"}``; a message ``{"id", "role", "content": [blocks], "ts": ms}``.
The typed prompt is wrapped by the CLI: ``<user_input mode="act">…</user_input>`` (the mode
is the CLI's, "act" or "plan"); any other text in a user message is the CLI's own.
Assistant blocks ``text``, ``thinking``, ``tool_use`` (``run_commands`` ...); a tool result
is a user message of ``tool_result`` blocks whose ``content`` is a list of
``{"query", "result", "success"}``.
"""

import os


NAME = "cline"
LABEL = "Cline CLI"

# The sessions folder, as ``base.user_dir`` reads it (the store paragraph above).
SESSIONS_VARIABLES = (
    ("CLINE_SESSION_DATA_DIR", ""),
    ("CLINE_DATA_DIR", "sessions"),
    ("CLINE_DIR", os.path.join("data", "sessions")),
)
SESSIONS_DEFAULT = os.path.join(".cline", "data", "sessions")
MANIFEST_SUFFIX = ".json"
MESSAGES_SUFFIX = ".messages.json"

USER_INPUT_OPEN = "<user_input"  # then ` mode="act">` (or "plan")
USER_INPUT_CLOSE = "</user_input>"

# Hooks: an executable `.clinerules/hooks/<Event>` (any of .sh .py .js ... or none) in the
# workspace; stdin is one JSON payload. TaskStart (`hookName: "agent_start"`) and TaskResume
# (`"agent_resume"`, a TUI resume) carry `sessionContext.rootSessionId` (the session id),
# `workspaceRoots` and `taskId` (a per-run `conv_…` id, not the session). Nothing a hook
# prints reaches the model in 3.0.65.
HOOK_DIR = os.path.join(".clinerules", "hooks")
HOOK_EVENTS = ("TaskStart", "TaskResume")
HOOK_RESUME = "agent_resume"
# Cline reads `.clinerules/` (every file in it) and AGENTS.md at the workspace root as rules.
INSTRUCTION_FILE = "AGENTS.md"

_ID_CHARS = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-")


def is_session_id(value: object) -> bool:
    return isinstance(value, str) and 0 < len(value) <= 128 and value[0] != "-" and set(value) <= _ID_CHARS


def messages_path(root: str, session_id: str) -> str:
    return os.path.join(root, session_id, session_id + MESSAGES_SUFFIX)
