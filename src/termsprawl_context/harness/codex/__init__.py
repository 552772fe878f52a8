"""Codex CLI behind ``harness/base.py``'s interface. Observed on Codex CLI 0.169.0 run against a
scripted Responses API server (``../shared/reference/other-harnesses.md``), and on the 0.47 shape
public files show.

A rollout is ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl``; every line is an
envelope ``{"timestamp", "type", "payload"}`` (0.169 adds ``ordinal`` and ``metadata``). What the
model saw and said is the ``response_item`` lines (``records.item_entries``): user-role text is the
person's or the harness's context, role ``developer`` holds permissions, skills and a SessionStart
hook's context. ``event_msg`` lines repeat them for the UI and are read only for which answers were
shown (so nothing counts twice). A ``compacted`` line holds the bridge text that continues the
conversation; the summary the model wrote for it is recorded just before as an ordinary assistant
message (``records.classed`` tells it from an answer). A fork (``session_meta.history_base``) does
not copy its parent's history: the parent's rollout is read first, up to ``end_byte_offset``
(``records.rollout_entries``). A sub-agent thread (``parent_thread_id``, ``thread_source: "subagent"``) is its own
file; its turns are a sub-agent's (``is_sidechain``), as Claude Code's sub-agent transcripts are.
"""

from __future__ import annotations

import os

from termsprawl_context.harness.base import Harness, Q_ALL, Session, depth_first, relay_to_person
from termsprawl_context.harness.codex import facts
from termsprawl_context.harness.codex.records import as_str, is_subagent_meta, meta_of, parent_thread_of
from termsprawl_context.harness.codex.records import rollout_entries, rollout_entries_reverse


class CodexHarness(Harness):
    name, label, command = facts.NAME, "Codex CLI", "codex"
    hook_settings_file = facts.HOOKS_FILE
    instruction_file = facts.INSTRUCTION_FILE
    init_options = ("codex_hook", "agents_md")
    init_option_help = (
        "register a SessionStart hook for Codex CLI in DIR/%(settings)s (kept out of git; Codex runs it in a "
        "project whose hooks you trusted; no `[features]` entry is needed)",
        "add the managed block to DIR/%(instruction)s (created if absent): the one file outside .termsprawl/ "
        "init writes only when asked",
    )
    hook_next_steps = """codex: the hook runs once Codex CLI trusts this project and its hooks (it asks at the first
      start; `codex exec --trust --dangerously-bypass-hook-trust` in scripts); start it
      as `TERMSPRAWL_NODE_ID=carol codex` and its sessions are nodes like any other.
"""
    setup_steps = (
        "Codex CLI asks, at the first start in this folder, to trust the project, then to review its "
        'hooks: trust both ("Continue without trusting" means the hook never runs; `codex exec --trust` '
        "in scripts)"
    )
    unrecorded_at_root = (
        "Codex CLI did not run the project's hook: the project or its hooks were not trusted (\"Continue "
        "without trusting (hooks won't run)\"), or it was started before `init`: quit it and start "
        "%(start)s at the project root, trusting the project and its hooks"
    )

    home_variables = ((facts.HOME_ENV, ""),)
    home_default = facts.HOME_DIR_NAME
    store_subdirs = (facts.SESSIONS_SUBDIR, "archived_sessions")  # `codex` moves archived threads there

    def _session_files(self, environ=None):
        """Rollouts of the live store (archived ones are never a project's current session)."""
        home = self.home(environ)
        return list(facts.rollouts_under(os.path.join(home, facts.SESSIONS_SUBDIR))) if home else []

    def _head(self, path):
        """A sub-agent thread names no working directory here, so ``project_sessions`` leaves it out."""
        meta = meta_of(path)
        return facts.thread_id_of(path), "" if meta.get(facts.META_PARENT_THREAD) else as_str(meta.get(facts.META_CWD))

    def sessions(self, environ=None):
        for root in self.store_roots(environ):
            for path in facts.rollouts_under(root):
                thread = facts.thread_id_of(path)
                if thread:
                    yield Session(self.name, thread, path)

    def session_id_of(self, path):
        return facts.thread_id_of(path)

    def sniff(self, first):
        payload = first.get("payload")
        keys = payload if isinstance(payload, dict) else {}
        return first.get(facts.FIELD_TYPE) == facts.KIND_SESSION_META and (
            "cli_version" in keys or "originator" in keys
        )

    def entries(self, path):
        return rollout_entries(path, self.store_roots())

    def entries_reverse(self, path):
        return rollout_entries_reverse(path, self.store_roots())

    answers = Q_ALL

    def subagent_paths(self, path):
        """The rollouts beside this one (in its sessions root) whose ``session_meta`` names it their parent."""
        thread = self.stable_id(path)
        return None if thread is None else _children_index(facts.sessions_root_of(path)).get(thread, [])

    def subagent_tree(self, path):
        """``subagent_paths`` of the whole tree from one walk (each rollout's first line read once)."""
        thread = self.stable_id(path)
        if thread is None:
            return None
        index = _children_index(facts.sessions_root_of(path))
        return depth_first(index.get(thread, []), lambda child: index.get(facts.thread_id_of(child), []), {path})

    def stable_id(self, path):
        """The first record's thread id when the file name agrees (a resumed thread appends to its rollout)."""
        thread = as_str(meta_of(path).get("id"))
        return thread if thread and thread == facts.thread_id_of(path) else None

    def subagent_parent(self, path):
        """A sub-agent thread's ``session_meta`` names its parent thread (0.169), its rollout found by ``find_rollout``."""
        if self.stable_id(path) is None:
            return None
        meta = meta_of(path)
        if not is_subagent_meta(meta):
            return False, ""
        parent = parent_thread_of(meta)
        return True, facts.find_rollout(parent, path, self.store_roots()) if parent != facts.thread_id_of(path) else ""

    def session_ids(self, path):
        """The thread id, then the session a sub-agent thread runs in (its parent's), as ``session_meta`` names them."""
        thread = self.stable_id(path)
        if thread is None:
            return None
        session = as_str(meta_of(path).get("session_id"))
        return [thread] + ([session] if session and session != thread else [])

    def work_dirs(self, path):
        """``session_meta``'s ``cwd`` (a resume keeps its thread's directory)."""
        cwd = as_str(meta_of(path).get(facts.META_CWD))
        return [cwd] if cwd else None

    def hook_subagent(self, payload):
        # A sub-agent thread's hook payload keeps its parent's session_id and adds the
        # child's thread id as agent_id (0.169).
        return as_str(payload.get("agent_id"))

    def session_start_output(self, system_message=None, additional_context=None, session_title=None):
        """Claude Code's shape; a warning for the person also goes to the model, to pass on: Codex 0.169's TUI
        draws a SessionStart ``systemMessage`` only under the first prompt (`↳ Hook · ...`) and ``codex exec``
        nowhere, while ``additionalContext`` reaches the model as a developer message."""
        context = relay_to_person(additional_context, system_message)
        return Harness.session_start_output(self, system_message, context, session_title)

    def hook_entry(self, command):
        # SessionStart's `source` (0.169): "startup", "resume", and "fork" for `exec fork` (a new
        # thread: the matcher "startup|resume" misses it; "*" matches all three).
        return {"matcher": "*", "hooks": [{"type": "command", "command": command, "timeout": 30}]}


def _children_index(root: str) -> dict:
    """Per parent thread id, the rollouts under ``root`` whose ``session_meta`` names it, sorted."""
    index = {}  # type: dict
    for candidate in facts.rollouts_under(root):
        parent = as_str(meta_of(candidate).get(facts.META_PARENT_THREAD))
        if parent and parent != facts.thread_id_of(candidate):
            index.setdefault(parent, []).append(candidate)
    return {parent: sorted(children) for parent, children in index.items()}


HARNESS = CodexHarness()
