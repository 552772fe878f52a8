"""Mistral Vibe behind the interface (``store.py`` reads its unified session store).

Observed on Mistral Vibe 3.0.3 (``../shared/reference/more-clis.md`` §8). A session is a
folder, ``<vibe home>/logs/session/unified/<session id>/``; the transcript path this tool
keeps for it is the folder's ``meta.json`` (a regular file every session has), and its
entries come from the folder. The store is rewritten in place (generations, ``CURRENT``),
not appended to, so there is no cheap tail: a read costs the live generation's chunks and
the journal since it, each bounded by the line readers' budget.

Vibe has no session-start hook. ``init --vibe-hook`` writes ``.vibe/hooks.toml`` (a file
termsprawl owns wholly: Vibe reads hooks from nowhere else in the project; refused when a
file of the person's is there), a ``post_tool``
hook running ``hook --harness mistral-vibe``: its payload (``session_id``, ``transcript_path``
= the session folder, ``cwd``) records the node, and its
``hook_specific_output.additional_context`` is appended to the tool's result the model reads.
What can go wrong: nothing is recorded until the model first calls a tool (a session that
only talks is no node until then), the context line rides on every tool result, and Vibe
reads project hooks only in a trusted folder (``vibe --trust``, or trusted once). Without
the hook, the node is the newest session whose ``meta.json`` names the project as its working
directory (``project_sessions``; ``index set`` records it): two Vibe sessions started in the
project at once make that the newest one, which may be the other terminal's.
"""

from __future__ import annotations

import json
import os
import shlex

from termsprawl_context.harness.base import INSTALLED_COMMAND, Harness, Q_ENTRIES, Q_IDENTITY
from termsprawl_context.harness.blocks import as_str
from termsprawl_context.harness.vibe.store import META_FILE, projection_entries, read_json, session_entries


NAME = "mistral-vibe"
HOME_ENV, HOME_DIR_NAME = "VIBE_HOME", ".vibe"
UNIFIED_SUBDIR = os.path.join("logs", "session", "unified")
HOOKS_FILE = os.path.join(".vibe", "hooks.toml")
MANAGED_MARKER = "# termsprawl-context: written by `termsprawl-context init --vibe-hook`; it replaces this file"
# Vibe 3.0.3's hook table: `type` one of pre_tool, post_tool, post_agent; the command gets the
# payload on stdin; only post_tool's output reaches the model. (A JSON string is a TOML basic
# string.) Not `.vibe/config.toml`: Vibe 3.0.3 rewrote it on its first run (a migration merged
# its read-only defaults into `[tools.bash] allowlist`, comments dropped), so no marker lasts.
HOOKS_TOML = """%s
[[hooks]]
name = "termsprawl-context"
type = "post_tool"
command = %s
"""
HOOK_OUTPUT, HOOK_CONTEXT = "hook_specific_output", "additional_context"


def _meta(path: str) -> dict:
    value = read_json(path)
    return value if isinstance(value, dict) else {}


def _working_dir(meta: dict) -> str:
    env = meta.get("environment")
    return as_str(env.get("working_directory") if isinstance(env, dict) else None)


class VibeHarness(Harness):
    name, label, command = NAME, "Mistral Vibe", "vibe"
    transcript_suffix = META_FILE
    instruction_file = "AGENTS.md"  # read only in a trusted folder (`vibe --trust`, or trusted once)
    init_options = ("vibe_hook", "agents_md")
    init_option_help = (
        "write DIR/.vibe/hooks.toml (termsprawl's own file; an existing one of yours is refused): a post_tool hook that records Mistral Vibe's session at its first tool call",
        "add the managed block to DIR/AGENTS.md (created if absent), which Mistral Vibe reads at launch in a trusted folder",
    )
    setup_steps = (
        "Mistral Vibe reads the project's hooks and AGENTS.md only in a trusted folder (`vibe --trust`); it has "
        "no session-start hook, so its session is recorded at the model's first tool call; it runs the read "
        "command unasked only with a `[tools.bash] allowlist` rule naming it (a command prefix: "
        '"<project>/.termsprawl/bin/termsprawl-context --format markdown"), which you add to ~/.vibe/config.toml '
        "or the project's .vibe/config.toml (Vibe rewrites that file on its first run, so termsprawl does not "
        "own it)"
    )
    unrecorded_at_root = (
        "Mistral Vibe did not run the project's hook: the folder is not trusted, or its model has not called a "
        "tool yet, or it was started before `init`: start %(start)s at the project root with `--trust`"
    )

    home_variables = ((HOME_ENV, ""),)
    home_default = HOME_DIR_NAME
    store_subdirs = (UNIFIED_SUBDIR,)

    def session_id_of(self, path):
        return os.path.basename(os.path.dirname(path)) if os.path.basename(path) == META_FILE else ""

    def _head(self, path):
        meta = _meta(path)
        return as_str(meta.get("session_id")), _working_dir(meta)

    def sniff(self, first):
        env = first.get("environment")
        return isinstance(env, dict) and "working_directory" in env and "session_id" in first and "config" in first

    def owned_files(self, project, command=""):
        """``.vibe/hooks.toml`` with the post_tool hook, opening with the managed marker line."""
        project = os.path.abspath(project)
        command = shlex.quote(os.path.join(project, INSTALLED_COMMAND))
        hook = "%s hook --cwd %s --harness %s" % (command, shlex.quote(project), NAME)
        return [(HOOKS_FILE, (HOOKS_TOML % (MANAGED_MARKER, json.dumps(hook))).encode("utf-8"), 0o644)]

    def session_start_output(self, system_message=None, additional_context=None, session_title=None):
        """Vibe's post_tool shape (3.0.3); a warning for the person goes to the model too, to
        pass on (Vibe shows the person no hook output)."""
        if system_message:
            additional_context = "\n".join(t for t in (additional_context, system_message) if t)
        return {HOOK_OUTPUT: {HOOK_CONTEXT: additional_context}} if additional_context else {}

    def hook_transcript(self, path, session_id, source, store=""):
        # A pre_tool/post_tool payload's transcript_path is the session folder (3.0.3).
        return os.path.join(path, META_FILE) if os.path.isdir(path) else path

    def entries(self, path):
        from termsprawl_context.jsonl import open_regular

        open_regular(path).close()  # the contract: OSError when it is no regular file
        folder = os.path.dirname(path)
        session, cwd = self._head(path)
        return _entries(folder, session or self.session_id_of(path), cwd)

    # Sub-agents (meta.json's child_sessions) were not exercised here: a named refusal.
    answers = (Q_ENTRIES, Q_IDENTITY)

    def subagent_parent(self, path):
        if self.stable_id(path) is None:
            return None
        return (bool(_meta(path).get("parent_session_id")), "")


def _entries(folder: str, session: str, cwd: str):
    for number, entry in enumerate(session_entries(folder), 1):
        for one in projection_entries(entry, session, cwd, number):
            yield one


HARNESS = VibeHarness()
