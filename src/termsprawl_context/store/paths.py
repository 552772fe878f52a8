"""Where the harness keeps its store, and how it names a working directory's folder.

One resolver serves every command that reads the store: ``--projects-dir``, else
``$CLAUDE_CONFIG_DIR/projects``, else ``~/.claude/projects``. The store is only ever read.
"""

import os
import re
from typing import Mapping, Optional

CONFIG_DIR_ENV = "CLAUDE_CONFIG_DIR"
PROJECTS_SUBDIR = "projects"

_NOT_ALNUM = re.compile(r"[^a-zA-Z0-9]")


def config_dir(environ: Optional[Mapping[str, str]] = None) -> str:
    """The harness's configuration directory; "" when no home can be found."""
    env = os.environ if environ is None else environ
    explicit = (env.get(CONFIG_DIR_ENV) or "").strip()
    if explicit:
        return explicit
    home = env.get("HOME") or ""
    if not home and environ is None:
        home = os.path.expanduser("~")  # HOME unset: the password database's answer
        if home == "~":
            home = ""
    if not home:
        return ""
    return os.path.join(home, ".claude")


def projects_dir(explicit: Optional[str] = None, environ: Optional[Mapping[str, str]] = None) -> str:
    """The projects directory: ``explicit`` if given, else ``<config dir>/projects``.

    Made absolute, so every path printed from it can be opened from anywhere."""
    if explicit:
        return os.path.abspath(explicit)
    base = config_dir(environ)
    return os.path.abspath(os.path.join(base, PROJECTS_SUBDIR)) if base else ""


def encode_project_dir(directory: str) -> str:
    """The harness's folder name for a working directory: every character that is not
    an ASCII letter or digit becomes ``-``, one for one. Lossy by the harness's design:
    ``/a/b-c`` and ``/a/b/c`` share a folder."""
    return _NOT_ALNUM.sub("-", directory)


def resolve_work_dir(directory: str) -> str:
    """``directory`` with symlinks resolved; a missing tail is re-joined onto its
    longest existing ancestor, resolved. "" stays ""; any failure returns the input."""
    if not directory:
        return ""
    try:
        absolute = os.path.abspath(directory)
        existing, tail = absolute, []
        while not os.path.exists(existing):
            parent, name = os.path.split(existing)
            if parent == existing:
                break
            tail.append(name)
            existing = parent
        resolved = os.path.realpath(existing)
        return os.path.join(resolved, *reversed(tail)) if tail else resolved
    except (OSError, ValueError):
        return directory


def project_dir(config: str, directory: str) -> str:
    """Where the harness keeps the transcripts of sessions run in ``directory``."""
    if not config:
        return ""
    return os.path.join(config, PROJECTS_SUBDIR, encode_project_dir(resolve_work_dir(directory)))
