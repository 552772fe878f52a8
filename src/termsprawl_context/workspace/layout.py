"""Where ``.termsprawl/`` state lives and which project an installed copy serves, alone so
the dump asks both without loading the writers. The read boundary: an installed copy (the
only command a CLI's permission rules let run unasked) reads its own project's state and
no other's; the artifact run from elsewhere reads the project it is told (``--cwd``)."""

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Optional


STATE_DIR = ".termsprawl"
LINKS_DIR = "links"
TRANSCRIPTS_DIR = "transcripts"
PROJECT_FILE = "project.json"
# Every agent CLI's per-user folder (Claude Code, Codex CLI, Gemini CLI): inside the home
# directory it is user-wide, not a project's, so never written.
HOME_HARNESS_DIRS = (".claude", ".codex", ".gemini")


def state_path(cwd: str, *parts: str) -> str:
    """``<cwd>/.termsprawl/<parts...>``."""
    return os.path.join(cwd, STATE_DIR, *parts)


# Where init installs the command, relative to the project.
INSTALLED_COMMAND = os.path.join(STATE_DIR, "bin", "termsprawl-context")


def installed_project(path: "Optional[str]") -> "Optional[str]":
    """The project whose installed command ``path`` is or lies in, or None; taken as spelled (a
    copy serves where it was run from); ``.termsprawl`` a real directory (a symlink would serve any state)."""
    if not path:
        return None
    marker = os.sep + INSTALLED_COMMAND
    try:
        absolute = os.path.abspath(path)
    except (OSError, ValueError):  # a relative path, and the working directory was removed
        return None
    at = (absolute + os.sep).rfind(marker + os.sep)
    if at < 0:
        return None
    project = absolute[:at] or os.sep
    state = os.path.join(project, STATE_DIR)
    return project if os.path.isdir(state) and not os.path.islink(state) else None


def running_project() -> "Optional[str]":
    """The project this process's installed copy lives in, or None (a checkout, the bare artifact)."""
    import termsprawl_context

    return installed_project(getattr(termsprawl_context, "__file__", None))


def serves(project: str, directory: str) -> bool:
    """``directory`` (resolved) is ``project`` or inside it with no other project on the way
    (what an installed copy of ``project`` accepts as ``--cwd``)."""
    try:
        root = os.path.realpath(project)
        current = os.path.realpath(directory)
    except (OSError, ValueError):
        return False
    if current != root and not current.startswith(root.rstrip(os.sep) + os.sep):
        return False
    while current != root:
        if os.path.isdir(os.path.join(current, STATE_DIR)):
            return False
        current = os.path.dirname(current)
    return True
