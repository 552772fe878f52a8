"""Which project (a directory holding ``.termsprawl/``) a command works on when not told:
its installed copy's own, else the nearest at or above the working directory, below home
and the root (a stray ``~/.termsprawl`` would capture every directory below home). On the
dump's path: no ``typing``, ``re`` or ``json`` at import.
"""

from __future__ import annotations

import os

from termsprawl_context.errors import UsageError
from termsprawl_context.workspace.layout import INSTALLED_COMMAND, STATE_DIR, running_project

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Mapping, Optional

    from termsprawl_context.harness.base import Harness


# The node an agent speaks for: injected at spawn by the desktop app, or set by the
# user per terminal. A termsprawl fact, not Claude Code's.
NODE_ID_ENV = "TERMSPRAWL_NODE_ID"


def _home(environ: "Optional[Mapping[str, str]]") -> str:
    home = (os.environ if environ is None else environ).get("HOME")
    return os.path.abspath(home) if home else ""


def _is_project(directory: str) -> bool:
    return os.path.isdir(os.path.join(directory, STATE_DIR))


def find_project(start: str, environ: "Optional[Mapping[str, str]]" = None) -> "Optional[str]":
    """The nearest project at or above ``start`` (made absolute, not resolved: the user's own path)."""
    home = _home(environ)
    try:
        current = os.path.abspath(start)
    except OSError:  # a relative start, and the working directory was removed
        return None
    while True:
        parent = os.path.dirname(current)
        if parent == current or current == home:  # the filesystem root and home are never projects
            return None
        if _is_project(current):
            return current
        current = parent


def enclosing_project(directory: str, environ: "Optional[Mapping[str, str]]" = None) -> "Optional[str]":
    """The project strictly above ``directory`` when it is none itself (a write would nest one)."""
    try:
        absolute = os.path.abspath(directory)
    except OSError:  # a relative path, and the working directory was removed
        return None
    if _is_project(absolute) or absolute == _home(environ):
        return None
    return find_project(os.path.dirname(absolute), environ)  # (the root's parent is the root: None)


def default_project(environ: "Optional[Mapping[str, str]]" = None) -> "Optional[str]":
    """Its installed copy's project, else the nearest at or above the working directory."""
    own = running_project()
    if own:
        return own
    try:
        start = os.getcwd()
    except OSError:  # the working directory was removed
        return None
    return find_project(start, environ)


def start_command(cli_command: str, node: str = "<node>") -> str:
    """How a terminal starts an agent CLI (its command ``cli_command``) as ``node``."""
    return "%s=%s %s" % (NODE_ID_ENV, node, cli_command)


def command_path(project: str) -> str:
    """The installed command of ``project``, absolute."""
    return os.path.join(os.path.abspath(project), INSTALLED_COMMAND)


def hook_command(harness: "Harness") -> str:
    """The hook command ``init`` writes: up from ``hook_start_dir`` (a CLI may start in a
    subdirectory) to the installed command's ``hook``, naming the harness if ``hook_names_itself``."""
    named = " --harness %s" % harness.name if harness.hook_names_itself else ""
    return walk_up_command(harness.hook_start_dir, "hook" + named)


def walk_up_command(start: str, args: str) -> str:
    """A ``sh`` line running the installed command at or above ``start`` with ``args``."""
    line = 'd=%(start)s; while [ ! -x "$d/%(cmd)s" ] && [ "$d" != / ]; do d=$(dirname "$d"); done; exec "$d/%(cmd)s"'
    return line % {"start": start, "cmd": INSTALLED_COMMAND} + " " + args


def default_self(
    explicit: "Optional[str]", environ: "Optional[Mapping[str, str]]" = None, command: str = ""
) -> "Optional[str]":
    """``--self``, else ``$TERMSPRAWL_NODE_ID``, else None; an empty variable is refused (UsageError)."""
    if explicit is not None:
        return explicit
    value = (os.environ if environ is None else environ).get(NODE_ID_ENV)
    if value == "":
        raise UsageError(
            "%s$%s is set but empty; give --self NODE or set it to this agent's node id"
            % (command + ": " if command else "", NODE_ID_ENV)
        )
    return value
