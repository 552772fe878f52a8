"""What ``init`` plants for the other agent CLIs, behind explicit options: each CLI's hook in
its project settings (kept out of git: its hook runs for anyone who trusts the project),
the files it owns wholly, its config's read permission, its instruction file's import, and
(``--agents-md``) the managed block in the root ``AGENTS.md``: a deliberate exception to
seed 000, for CLIs such as Codex that read no other file and have no import syntax.
"""

import os
import shlex
from typing import Any

from termsprawl_context.errors import SettingsUnusable
from termsprawl_context.harness import available
from termsprawl_context.workspace import discovery, hook_settings, install
from termsprawl_context.workspace.init_steps import FAILED, KEPT, SKIPPED, UNCHANGED, WRITTEN, Step, failed
from termsprawl_context.workspace.files import check_write_target, read_small_file, write_atomic
from termsprawl_context.workspace.project import command_path, hook_command, walk_up_command


ROOT_AGENTS_FILE = "AGENTS.md"


# The read server runs where the agent CLI runs (Gemini CLI gives it no project variable).
MCP_COMMAND = walk_up_command('"$(pwd -P)"', "mcp")


def prepare_hook(cwd: str, harness: Any) -> hook_settings.PreparedHook:
    """The harness's hook file merged: its hook, a read server, a permission rule; SettingsUnusable."""
    settings, size = hook_settings.load_hook_file(cwd, harness)
    hooked = hook_settings.merge_hook(settings, harness)
    base = settings if hooked is None else hooked
    merged, notes = harness.merge_project_settings(base, MCP_COMMAND)
    read_prefix = "%s %s" % (shlex.quote(command_path(cwd)), discovery.HANDOFF_ARGS)
    more, more_notes = harness.merge_project_permissions(base if merged is None else merged, read_prefix)
    merged = next((m for m in (more, merged, hooked) if m is not None), None)
    return hook_settings.PreparedHook(harness, merged, size, hooked is not None, tuple(notes) + tuple(more_notes))


def register_harness_hook(cwd: str, prepared: hook_settings.PreparedHook, installed: bool) -> list:
    """Write the merged hook file and keep it out of git; the steps, for init's report."""
    harness = prepared.harness
    relative = harness.hook_settings_file
    if not installed:
        return [Step("hook", relative, SKIPPED, install.NOT_INSTALLED)]
    steps = hook_settings.register_settings(cwd, prepared)
    kept = [Step("hook", relative, KEPT, note) for note in prepared.notes]
    return steps + kept + [install.ignore_hook_file(cwd, relative, harness.label)]


def write_root_agents_block(cwd: str) -> "Step":
    """The managed block in the root ``AGENTS.md`` (created if absent; every byte outside it kept)."""
    outcome = discovery.refresh_agents_block(cwd, ROOT_AGENTS_FILE)
    readers = ", ".join(h.label for h in available() if "agents_md" in h.init_options)
    written = "managed block for agents that read AGENTS.md (%s)" % readers
    return install.marker_step("agents-md", ROOT_AGENTS_FILE, outcome, written, "managed block already current")


def write_instruction_import(cwd: str, harness: Any) -> "Step":
    """The managed block's import line in the harness's ``instruction_file``, every other byte kept."""
    relative, line = harness.instruction_file, discovery.import_line(harness)
    outcome = discovery.refresh_marker(cwd, relative, lambda current: discovery.add_import(current or "", line))
    return install.marker_step("memory", relative, outcome, "imports %s" % line, "already imports %s" % line)


# The words every file termsprawl owns wholly carries on its first line (on its second,
# after a `#!` line): ``Harness.owned_files`` writes them.
MANAGED_MARKER = b"termsprawl-context: managed file"


def _is_ours(existing: bytes, content: bytes) -> bool:
    """Identical, or its first line (its second after a ``#!`` line) carries the marker."""
    if existing == content:
        return True
    lines = existing.split(b"\n", 2)
    heading = lines[1] if lines[0].startswith(b"#!") and len(lines) > 1 else lines[0]
    # Or the marker line the provider writes first (a JSON file's `"//"` key, a comment).
    return MANAGED_MARKER in heading or (bool(content.strip()) and heading == content.split(b"\n", 1)[0])


def write_owned_file(cwd: str, relative: str, content: bytes, mode: int) -> "Step":
    """One owned file, written atomically with its mode when absent or ours; else FAILED, untouched."""
    path = os.path.join(cwd, relative)
    try:
        check_write_target(cwd, path)
        if os.path.lexists(path):
            existing = read_small_file(path) if not os.path.islink(path) else None
            if existing is None or not _is_ours(existing, content):
                return Step("hook", relative, FAILED, "left untouched: a file of yours is there, not ours")
            if existing == content and (os.stat(path).st_mode & 0o777) == mode:
                return Step("hook", relative, UNCHANGED, "already in place")
        write_atomic(cwd, path, content, mode)  # its folders made level by level, never through a symlink
    except (OSError, ValueError) as exc:
        return failed("hook", relative, exc)
    return Step("hook", relative, WRITTEN, "mode %o" % mode)


def write_owned_files(cwd: str, harness: Any) -> list:
    """``Harness.owned_files`` written into the project; one naming the project's absolute path
    is this person's (a clone elsewhere would run another project's command): kept out of git."""
    project = os.path.abspath(cwd)
    steps = []
    for relative, content, mode in harness.owned_files(cwd, hook_command(harness)):
        step = write_owned_file(cwd, relative, content, mode)
        steps.append(step)
        named = any(form.encode("utf-8", "surrogateescape") in content for form in (project, shlex.quote(project)))
        if named and step.outcome != FAILED:
            steps.append(install.ignore_hook_file(cwd, relative, harness.label))
    return steps


def merge_harness_config(cwd: str, harness: Any) -> list:
    """The harness's ``config_file`` merged by its ``merge_config`` (FAILED: no plain JSON object)."""
    relative = harness.config_file
    if not relative:
        return []
    path = os.path.join(cwd, relative)
    try:
        check_write_target(cwd, path)
        data = read_small_file(path) if os.path.lexists(path) and not os.path.islink(path) else b""
        if data is None or os.path.islink(path):
            return [Step("permission", relative, FAILED, "cannot be read as a regular file")]
        settings = hook_settings.parse_settings(data, relative) if data else {}
        merged, notes = harness.merge_config(settings)
        steps = [Step("permission", relative, KEPT, note) for note in notes]
        if merged is None:
            return [Step("permission", relative, UNCHANGED, "read rule in place")] + steps
        write_atomic(cwd, path, hook_settings.dump_settings(merged, len(data)))
    except SettingsUnusable as exc:
        return [Step("permission", relative, FAILED, exc.reason)]
    except (OSError, ValueError, RecursionError) as exc:
        return [failed("permission", relative, exc)]
    return [Step("permission", relative, WRITTEN, "only the read command runs unasked")] + steps
