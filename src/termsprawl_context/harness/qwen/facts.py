"""Qwen Code's facts (observed on Qwen Code 0.24.4 run against a scripted OpenAI
chat-completions server, ``../shared/reference/more-clis.md`` §2, and read in its bundle).

Store: ``<runtime dir>/projects/<enc cwd>/chats/<session id>.jsonl``, one file across
resumes; a sub-agent's transcript is ``<runtime dir>/projects/<enc cwd>/subagents/<session
id>/agent-<type>-<tool call id>.jsonl`` (+ ``.meta.json``). The runtime dir is
``$QWEN_RUNTIME_DIR``, else ``$QWEN_HOME``, else ``~/.qwen``. ``<enc cwd>`` is the project's
absolute path with every non-alphanumeric character replaced by ``-``.

Every line has ``uuid``, ``parentUuid``, ``sessionId``, ``timestamp``, ``type``,
``provenance``, ``cwd``; messages carry Gemini-style ``parts`` (``text``, ``thought``,
``functionCall``, ``functionResponse``).
"""

from __future__ import annotations

import os


NAME = "qwen-code"
TRANSCRIPT_SUFFIX = ".jsonl"
PROJECTS_SUBDIR = "projects"
CHATS_SUBDIR = "chats"
SUBAGENTS_SUBDIR = "subagents"
AGENT_FILE_PREFIX = "agent-"
# `QWEN_RUNTIME_DIR` moves session data; `QWEN_HOME` moves the whole config folder (0.24.4).
RUNTIME_DIR_ENV = "QWEN_RUNTIME_DIR"
HOME_ENV = "QWEN_HOME"
HOME_DIR_NAME = ".qwen"

# --- the project ------------------------------------------------------------------------
# Hooks (Claude-shaped, SessionStart payload has `transcript_path`) and permission rules
# are read from the project's settings; Qwen rewrites the file on load (adds "$version").
SETTINGS_FILE = os.path.join(".qwen", "settings.json")
# Qwen reads QWEN.md (and AGENTS.md) from the project and expands `@./path` imports.
INSTRUCTION_FILE = "QWEN.md"
MEMORY_IMPORT_PREFIX = "@./"
# Headless default mode offers no shell tool unless a rule admits a command; the
# Claude-style `Bash(<cmd>)` alias is not honoured there, `run_shell_command(<cmd>)` is.
PERMISSIONS_KEY = "permissions"
PERMISSION_ALLOW = "allow"
SHELL_RULE = "run_shell_command(%s)"
