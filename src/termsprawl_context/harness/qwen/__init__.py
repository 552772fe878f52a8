"""Qwen Code behind the interface (``facts.py`` has the store, ``records.py`` the lines).

Observed on Qwen Code 0.24.4. A node is recorded by a SessionStart hook in the project's
``.qwen/settings.json`` (its payload names ``session_id`` and ``transcript_path``, the chat
file; ``source`` "startup" or "resume"); the hook's ``hookSpecificOutput.additionalContext``
reaches the model, appended to its system message (the top-level ``additionalContext``
does not). The chat file is append-only, so the dump and the hand-off read it from the end.
"""

from __future__ import annotations

import os

from termsprawl_context.harness.base import Harness, Q_ALL, head_value, listing
from termsprawl_context.harness.linelog import LineLogHarness
from termsprawl_context.harness.qwen import facts
from termsprawl_context.harness.qwen.records import line_to_entries


class QwenHarness(LineLogHarness):
    name, label, command = facts.NAME, "Qwen Code", "qwen"
    hook_settings_file = facts.SETTINGS_FILE
    instruction_file = facts.INSTRUCTION_FILE
    instruction_import_prefix = facts.MEMORY_IMPORT_PREFIX
    # Qwen sets $QWEN_PROJECT_DIR (= the project) in the hook's environment (0.24.4).
    hook_start_dir = '"${QWEN_PROJECT_DIR:-$PWD}"'
    init_options = ("qwen_hook", "qwen_md")
    import_option = "qwen_md"
    init_option_help = (
        "register a SessionStart hook for Qwen Code in DIR/.qwen/settings.json, with the permission rule run_shell_command(<the read command>) (kept out of git)",
        "add the line @./.termsprawl/AGENTS.md to DIR/QWEN.md (created if absent), so Qwen Code reads the markers at launch",
    )
    setup_steps = (
        "Qwen Code runs the project's hook from .qwen/settings.json; headless (`qwen -p`) it offers the shell "
        "tool only for the command the permission rule there admits"
    )
    unrecorded_at_root = (
        "Qwen Code did not run the project's hook: it was started before `init`, or hooks are disabled in its "
        "settings: quit it and start %(start)s at the project root"
    )

    home_variables = ((facts.RUNTIME_DIR_ENV, ""), (facts.HOME_ENV, ""))
    home_default = facts.HOME_DIR_NAME
    store_subdirs = (facts.PROJECTS_SUBDIR,)
    transcript_subdirs = (facts.CHATS_SUBDIR,)

    def _head(self, path):
        return head_value(path, lambda r: r.get("sessionId")), head_value(path, lambda r: r.get("cwd"))

    def sniff(self, first):
        return isinstance(first.get("provenance"), str) and isinstance(first.get("sessionId"), str)

    def _converter(self, path):
        # Every line names its own session and directory; a sub-agent's file is all its agent's.
        agent = _agent_id_of(path)
        return lambda record, line, offset: line_to_entries(record, line, offset, agent)

    answers = Q_ALL

    def subagent_paths(self, path):
        """``subagents/<session id>/agent-*.jsonl`` beside the chats folder; a sub-agent's
        own file starts none (its sub-agents are its parent session's)."""
        if _agent_id_of(path):
            return []
        session = self.stable_id(path)
        if session is None:
            return None
        folder = os.path.join(os.path.dirname(os.path.dirname(path)), facts.SUBAGENTS_SUBDIR, session)
        return [os.path.join(folder, n) for n in listing(folder) if _agent_id_of(os.path.join(folder, n))]

    def stable_id(self, path):
        """The session id: the file name's, when the first record's ``sessionId`` agrees
        (a sub-agent's records carry its own id)."""
        if _agent_id_of(path):
            return self._head(path)[0] or None
        return Harness.stable_id(self, path)

    def subagent_parent(self, path):
        agent = _agent_id_of(path)
        if not agent:
            return (False, "") if self.stable_id(path) is not None else None
        session = os.path.basename(os.path.dirname(path))
        store = os.path.dirname(os.path.dirname(os.path.dirname(path)))
        parent = os.path.join(store, facts.CHATS_SUBDIR, session + facts.TRANSCRIPT_SUFFIX)
        return True, parent if os.path.isfile(parent) else ""

    hook_timeout = 30000  # milliseconds (0.24.4)

    def merge_project_permissions(self, settings, read_prefix):
        """The one permission rule that lets Qwen run the read command (``read_prefix``: the
        project's absolute command and its format words) unasked, headless too."""
        from termsprawl_context.harness.qwen.project import merge_permission

        return merge_permission(settings, read_prefix)


def _agent_id_of(path: str) -> str:
    """A sub-agent file's id (``subagents/<session>/agent-<type>-<call id>.jsonl``), else ""."""
    name = os.path.basename(path)
    parent = os.path.basename(os.path.dirname(os.path.dirname(path)))
    if parent != facts.SUBAGENTS_SUBDIR or not name.startswith(facts.AGENT_FILE_PREFIX):
        return ""
    return name[: -len(facts.TRANSCRIPT_SUFFIX)] if name.endswith(facts.TRANSCRIPT_SUFFIX) else ""


HARNESS = QwenHarness()
