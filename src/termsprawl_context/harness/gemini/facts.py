"""Gemini CLI's facts: its store and chat files, the field names and injected text of its
records, its project files and hook payload (observed on Gemini CLI 0.61.0; see the
package's docstring)."""

import os


NAME = "gemini-cli"

# --- the store --------------------------------------------------------------------------
CONFIG_DIR_NAME = ".gemini"
# $GEMINI_CLI_HOME replaces the home directory: it names the folder that holds .gemini.
HOME_VARIABLES = (("GEMINI_CLI_HOME", CONFIG_DIR_NAME),)
CHATS_SUBDIR = "chats"  # ~/.gemini/tmp/<project name>/chats/ (projects.json maps launch dirs to names)
PROJECT_ROOT_FILE = ".project_root"  # in tmp/<project name>/: the launch directory
SESSION_FILE_PREFIX = "session-"  # session-<YYYY-MM-DDTHH-MM>-<first 8 of the id>.jsonl
TRANSCRIPT_SUFFIX = ".jsonl"
LEGACY_SUFFIX = ".json"  # older versions: one JSON object with a `messages` array
# A sub-agent's chat: chats/<parent session id>/<child session id>.jsonl.
_ID_CHARS = frozenset("0123456789abcdefABCDEF-ghijklmnopqrstuvwxyzGHIJKLMNOPQRSTUVWXYZ_")

# --- the running session -----------------------------------------------------------------
# Hooks get this, GEMINI_SESSION_ID (and CLAUDE_PROJECT_DIR, for compatibility); the shell
# tool's subprocess gets only GEMINI_CLI=1, so a tool cannot learn its session from the environment.
PROJECT_DIR_ENV = "GEMINI_PROJECT_DIR"

# --- line kinds --------------------------------------------------------------------------
FIELD_ID = "id"
FIELD_TYPE = "type"
# 0.61: a user message whose content the client expanded (an @ reference's file text between
# "--- Content from referenced files ---" and "--- End of content ---") keeps what the person
# typed here; absent when the two are the same.
FIELD_DISPLAY = "displayContent"
FIELD_MESSAGES = "messages"
SET_KEY = "$set"
REWIND_KEY = "$rewindTo"
# The header (first line, and again at each resume): sessionId, projectHash, startTime, kind.
HEADER_SESSION_ID = "sessionId"
KIND_SUBAGENT = "subagent"  # the header's kind ("main" | "subagent")
SUMMARY_KEY = "summary"  # in $set: the session's title

TYPE_USER = "user"

# Text the harness puts into user-role messages.
SESSION_CONTEXT_OPEN = "<session_context>"  # the first message: environment, GEMINI.md text
HOOK_CONTEXT_OPEN = "<hook_context>"  # a SessionStart hook's additionalContext, before the prompt
HOOK_CONTEXT_CLOSE = "</hook_context>"
HOOK_CONTEXT_GAP = "\n\n"  # between the hook's block and the typed prompt
# Chat compression (read in the 0.61 bundle, not observed in a run): the history is replaced
# by the model's summary as a user message holding a <state_snapshot>...</state_snapshot>,
# then this fixed model reply, each recorded as a new message at the log's end.
STATE_SNAPSHOT_OPEN = "<state_snapshot>"
STATE_SNAPSHOT_CLOSE = "</state_snapshot>"
COMPRESSION_ACK = "Got it. Thanks for the additional context!"
# Prompts 0.61 writes itself and records as user messages (read in its bundle): the IDE's
# editor context in full and as a delta (GeminiClient.getIdeContextParts), the loop-recovery
# feedback (_recoverFromLoop; it quotes the model's own words), each at the text's start.
CLI_PROMPT_OPENINGS = (
    "Here is the user's editor context as a JSON object. This is for your information only.",
    "Here is a summary of changes in the user's editor context, in JSON format." " This is for your information only.",
    "System: Potential loop detected. Details: ",
)

# --- project files (init) ----------------------------------------------------------------
PROJECT_CONFIG_DIR = ".gemini"
SETTINGS_FILE = os.path.join(PROJECT_CONFIG_DIR, "settings.json")  # read only in a trusted folder
MEMORY_FILE = "GEMINI.md"  # read at launch (git root and the launch directory); `@./path` imports
MEMORY_IMPORT_PREFIX = "@./"
HOOK_EVENT_SESSION_START = "SessionStart"
# Gemini's hook timeout is in milliseconds (Claude Code's and Codex's are seconds).
HOOK_TIMEOUT_MS = 30000


def subagent_dir(chat_path: str, session_id: str) -> str:
    """The folder holding the sub-agent chats of the session whose chat is ``chat_path`` (``chats/<session id>/``);
    "" for an id that cannot be a folder name (the CLI's ids are UUIDs: letters, digits and hyphens)."""
    if not session_id or session_id.strip("-") == "" or any(c not in _ID_CHARS for c in session_id):
        return ""
    return os.path.join(os.path.dirname(chat_path), session_id)
