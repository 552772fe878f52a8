"""Standalone use (without the desktop app nothing writes the index): ``init_project``
installs the running one-file artifact as ``.termsprawl/bin/termsprawl-context``, plants
the discovery markers, keeps the personal index out of git and, optionally, registers the
default CLI's SessionStart hook.
"""

import os
import zipfile
from typing import List, NamedTuple, Optional

from termsprawl_context.errors import InsideProject, NotFound
from termsprawl_context.harness import available
from termsprawl_context.workspace import discovery, files
from termsprawl_context.workspace.layout import INSTALLED_COMMAND, STATE_DIR, TRANSCRIPTS_DIR
from termsprawl_context.workspace.hook_settings import prepare_settings
from termsprawl_context.workspace.init_steps import FAILED, KEPT, SKIPPED, UNCHANGED, WRITTEN, Step, failed
from termsprawl_context.workspace.project import enclosing_project


COMMAND_MODE = 0o755
# The artifact is a few MB; anything this large is not it.
MAX_ARTIFACT_BYTES = 64 * 1024 * 1024

GITIGNORE_FILE = os.path.join(STATE_DIR, ".gitignore")
IGNORED_ENTRY = TRANSCRIPTS_DIR + "/"
GITIGNORE_COMMENT = "# termsprawl: transcript index entries are absolute, personal paths"

# Claude Code keeps its personal settings file out of git when it creates the file itself
# (through the user's global excludes, which we never write); for a file init writes that
# holds a CLI's hook for this person, a .gitignore beside it does the same for every clone.
HOOK_GITIGNORE_COMMENT = "# termsprawl: the %s hook that records this person's sessions, never shared"
# Why a CLI's hook was not registered: the command it would run is missing.
NOT_INSTALLED = "the command it would run is not installed"
BUILD_HINT = (
    "build it with `python3 build_zipapp.py` (writes dist/termsprawl-context.pyz) or copy "
    "dist/termsprawl-context.pyz from the repository, then run `python3 termsprawl-context.pyz init`"
)


class InitReport(NamedTuple):
    cwd: str
    hook: bool
    steps: List[Step]

    @property
    def ok(self) -> bool:
        return all(step.outcome not in (FAILED, SKIPPED) for step in self.steps)


def running_artifact(module_file: Optional[str] = None) -> Optional[str]:
    """The one-file artifact this code runs from (the nearest ancestor of ``__file__`` that is a zip), or None."""
    if module_file is None:
        import termsprawl_context

        module_file = termsprawl_context.__file__ or ""
    current = os.path.dirname(os.path.abspath(module_file))
    while True:
        if os.path.isfile(current):
            return current if zipfile.is_zipfile(current) else None
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def install_command(cwd: str, artifact: str) -> Step:
    """Copy ``artifact`` to ``INSTALLED_COMMAND`` (0755), atomically, when the bytes or mode differ."""
    target = os.path.join(cwd, INSTALLED_COMMAND)
    data = files.read_small_file(artifact, MAX_ARTIFACT_BYTES)
    if data is None:
        return Step("command", INSTALLED_COMMAND, FAILED, "cannot read %s" % artifact)
    if files.read_small_file(target, MAX_ARTIFACT_BYTES) == data and files.file_mode(target) == COMMAND_MODE:
        return Step("command", INSTALLED_COMMAND, UNCHANGED, "same as %s" % artifact)
    try:
        files.write_atomic(cwd, target, data, mode=COMMAND_MODE)
    except OSError as exc:
        return failed("command", INSTALLED_COMMAND, exc)
    return Step("command", INSTALLED_COMMAND, WRITTEN, "copied from %s" % artifact)


def _refusal(cwd: str, relative: str) -> Optional[str]:
    """Why a marker file will be left alone (the write layer's refusal), or None."""
    path = os.path.join(cwd, relative)
    try:
        files.check_write_target(cwd, path)
        files.read_managed_file(path)
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def marker_step(what: str, relative: str, outcome: str, written: str = "", unchanged: str = "") -> Step:
    """init's step for a marker file ``discovery.refresh_marker`` answered ``outcome`` for."""
    details = {  # (REFUSED: init checked the file before writing, so it changed since)
        discovery.REFUSED: (FAILED, "left untouched: its markers are not one block"),
        discovery.USER_EDITED: (KEPT, "edited by its user: left alone"),
        discovery.FAILED: (FAILED, "could not be written"),
        discovery.WRITTEN: (WRITTEN, written),
    }
    return Step(what, relative, *details.get(outcome, (UNCHANGED, unchanged)))


def plant_discovery(cwd: str) -> List[Step]:
    """Plant or refresh the discovery markers; one step per marker file."""
    steps = []
    for relative, outcome in discovery.refresh_discovery(cwd):
        why = _refusal(cwd, relative) if outcome == discovery.FAILED else None
        steps.append(Step("discovery", relative, SKIPPED, why) if why else marker_step("discovery", relative, outcome))
    return steps


def _ignores(line: str, entry: str) -> bool:
    """A ``.gitignore`` line ignores ``entry`` (a name, or a folder ending in ``/``) rooted or not, or a glob."""
    import fnmatch

    pattern = line.strip().lstrip("/")
    for suffix in ("/**", "/*", "/"):
        if entry.endswith("/") and pattern.endswith(suffix):
            pattern = pattern[: -len(suffix)]
            break
    return bool(pattern) and not pattern.startswith(("#", "!")) and fnmatch.fnmatchcase(entry.rstrip("/"), pattern)


def merge_gitignore(content: str, entry: str = IGNORED_ENTRY, comment: str = GITIGNORE_COMMENT) -> str:
    """``content`` with ``entry`` ignored; unchanged when a line already does."""
    if any(_ignores(line, entry) for line in content.splitlines()):
        return content
    if content and not content.endswith("\n"):
        content += "\n"
    return content + comment + "\n" + entry + "\n"


def ensure_gitignore(
    cwd: str, relative: str = GITIGNORE_FILE, entry: str = IGNORED_ENTRY, comment: str = GITIGNORE_COMMENT
) -> Step:
    """Keep ``entry`` out of git with the ``.gitignore`` at ``relative``, merged into."""
    path = os.path.join(cwd, relative)
    data = files.read_small_file(path)
    if data is None and os.path.lexists(path):
        return Step("gitignore", relative, FAILED, "exists but is not a readable regular file")
    current = data.decode("utf-8", "surrogateescape") if data is not None else ""
    wanted = merge_gitignore(current, entry, comment)
    if data is not None and wanted == current:
        return Step("gitignore", relative, UNCHANGED, "already ignores %s" % entry)
    try:
        files.write_atomic(cwd, path, wanted.encode("utf-8", "surrogateescape"))
    except OSError as exc:
        return failed("gitignore", relative, exc)
    return Step("gitignore", relative, WRITTEN, "ignores %s" % entry)


def ignore_hook_file(cwd: str, relative: str, label: str) -> Step:
    """Keep the file at ``relative`` (the ``label`` CLI's hook for this person) out of git."""
    folder, name = os.path.split(relative)
    return ensure_gitignore(cwd, os.path.join(folder, ".gitignore"), name, HOOK_GITIGNORE_COMMENT % label)


def hook_harness():
    """The CLI whose hook and read rules ``init --hook`` registers (its ``hook`` option)."""
    return next(h for h in available() if "hook" in h.init_options)


def init_project(cwd: str, artifact: Optional[str], hook: bool = False, write_rules: bool = False) -> InitReport:
    """Install the command, markers, .gitignore, (``write_rules``) the rules file and (``hook``)
    the SessionStart hook. Refuses before writing anything without an artifact, a directory
    or inside another project, when the AGENTS.md markers are no block or the settings
    cannot be merged; the hook is SKIPPED unless the command it runs is in place."""
    if not artifact:
        raise NotFound("init: not running from the one-file artifact, so there is nothing to install; " + BUILD_HINT)
    if not os.path.isdir(cwd):
        raise NotFound("init: no such directory: %s" % cwd)
    outer = enclosing_project(cwd)
    if outer:
        raise InsideProject("init", cwd, outer, "run init there, or without --cwd from anywhere inside it")
    discovery.check_agents_block(cwd)  # ManagedBlockRefused, before anything is written
    prepared = prepare_settings(cwd, hook_harness()) if hook else None
    steps = [install_command(cwd, artifact)]
    steps.extend(plant_discovery(cwd))
    if write_rules:  # the block whole in a rules file its CLI loads from any folder, no import to approve
        block = "the instruction block"
        steps.append(marker_step("memory", discovery.RULES_FILE, discovery.ensure_rules(cwd), block, block))
    steps.append(ensure_gitignore(cwd))
    if prepared is not None:  # (harness_install imports this module: asked for here, at run time)
        from termsprawl_context.workspace.harness_install import register_harness_hook

        steps.extend(register_harness_hook(cwd, prepared, steps[0].outcome != FAILED))
    return InitReport(cwd, hook, steps)
