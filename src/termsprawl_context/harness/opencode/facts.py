"""OpenCode's facts: where its database is, how a session is named, its tables and the
fields of its rows, its project files (observed on OpenCode 1.18.33, run against a
scripted chat-completions server; ``../shared/reference/more-clis.md`` section 4).

The store is one SQLite database, ``$XDG_DATA_HOME/opencode/opencode.db`` (else
``~/.local/share/opencode/opencode.db``), in WAL mode: right after a run most rows sit in
``opencode.db-wal``, so it is read with its WAL (SQLite does that on open). Tables read:
``session(id, parent_id, directory, title, version, time_created, time_updated)``,
``message(id, session_id, time_created, data)`` and ``part(id, message_id, session_id,
data)``; ``data`` is a JSON object. A session has no file of its own, so its path here is
``<database path>#<session id>`` (``session_path``): one string that names the session
unambiguously and lies in the store, for every reader that keys a session by its path.
"""

import os


NAME = "opencode"
LABEL = "OpenCode"

DATA_HOME_ENV = "XDG_DATA_HOME"
DATA_SUBDIR = "opencode"
DATA_DEFAULT = os.path.join(".local", "share", DATA_SUBDIR)
DB_NAME = "opencode.db"
# `<db>#<session id>`: "#" is in no session id (`ses_` + 26 letters and digits).
SEPARATOR = "#"

# --- rows ---------------------------------------------------------------------------------
# message.data: {"role": "user" | "assistant", "time": {"created": ms}, "summary": true on
# the assistant message a compaction wrote, "path": {"cwd", "root"} (assistant)}.
ROLE_USER, ROLE_ASSISTANT = "user", "assistant"
# part.data kinds: "text" (a typed prompt in a user message, an answer in an assistant
# one; "synthetic": true marks text OpenCode wrote itself, "ignored": true text it keeps
# from the model), "reasoning", "tool" ({"tool", "callID", "state": {"status", "input",
# "output" | "error"}}), "step-start"/"step-finish"/"snapshot"/"patch" (bookkeeping),
# "file", "agent", "subtask", "compaction" (what the CLI attached or did, never typed).
PART_TEXT, PART_REASONING, PART_TOOL = "text", "reasoning", "tool"
PART_NOT_TYPED = ("file", "agent", "subtask", "compaction")
# A tool part's state.status; "error" carries state.error instead of state.output.
STATUS_ERROR = "error"

# --- project files (init) -----------------------------------------------------------------
# A project plugin: plain JS in `.opencode/plugins/`, loaded at start with no trust step.
PLUGIN_FILE = os.path.join(".opencode", "plugins", "termsprawl.js")
# The project's config (JSONC allowed): `permission.bash` rules are globs over the whole
# command string ({"*": "ask", "<cmd>": "allow"} admits exactly <cmd>).
CONFIG_FILE = "opencode.json"
# OpenCode reads AGENTS.md at the project root (and CLAUDE.md when AGENTS.md is absent).
INSTRUCTION_FILE = "AGENTS.md"


def session_path(db: str, session_id: str) -> str:
    return db + SEPARATOR + session_id


def split_path(path: str) -> tuple:
    """``(database path, session id)`` of a session path; ("", "") when it is none."""
    db, sep, session_id = path.rpartition(SEPARATOR)
    if not sep or not session_id or not db.endswith(DB_NAME):
        return "", ""
    return db, session_id
