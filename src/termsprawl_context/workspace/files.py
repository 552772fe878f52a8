"""Files under ``<project>/.termsprawl/``: the layout, bounded reads and atomic writes.

Every write is a temp file in the target's own directory, then ``os.replace``: a reader
sees the old file or the new one, never a torn one, and no lock (no ``fcntl``) is
needed. Nothing is ever written outside the project directory: a directory reached
through a symlink that leaves the project is refused.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Optional

STATE_DIR = ".termsprawl"
LINKS_DIR = "links"
TRANSCRIPTS_DIR = "transcripts"
BIN_DIR = "bin"
PROJECT_FILE = "project.json"

# State files are a few hundred bytes; project.json is the app's whole project. A file
# larger than this is not ours to parse, and reading it whole would be a trap.
MAX_STATE_FILE_BYTES = 16 * 1024 * 1024


class OutsideProject(OSError):
    """A write would land outside the project directory (a symlinked folder)."""


class NestedProject(OSError):
    """A write would start a second ``.termsprawl/`` project inside an existing one."""


def state_path(cwd: str, *parts: str) -> str:
    return os.path.join(cwd, STATE_DIR, *parts)


def read_small_file(path: str, limit: int = MAX_STATE_FILE_BYTES) -> Optional[bytes]:
    """The bytes of a regular file no larger than ``limit``; None for anything else."""
    from termsprawl_context.jsonl import try_open_regular

    f = try_open_regular(path)
    if f is None:
        return None
    try:
        with f:
            data = f.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None


def _inside(real_root: str, path: str) -> bool:
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def ensure_dir_within(root: str, directory: str) -> None:
    """Create ``directory`` under ``root`` one level at a time, refusing to step into
    (or create anything beneath) a level that resolves outside ``root``."""
    real_root = os.path.realpath(root)
    relative = os.path.relpath(directory, root)
    if relative == os.curdir:
        return
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        raise OutsideProject("refusing to write outside %s: %s" % (root, directory))
    current = root
    for part in relative.split(os.sep):
        current = os.path.join(current, part)
        if not os.path.isdir(current):
            os.mkdir(current)
        if not _inside(real_root, current):
            raise OutsideProject("refusing to write outside %s: %s" % (root, current))


def file_mode(path: str) -> Optional[int]:
    """The permission bits of ``path``, or None when it cannot be stat'ed."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return None


def _new_file_mode() -> int:
    # mkstemp creates 0600; a state file should get what open() would give it.
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomic(root: str, path: str, data: bytes, mode: Optional[int] = None) -> None:
    """Replace ``path`` (inside ``root``) with ``data`` atomically; raises OSError
    (NestedProject when ``root`` has no ``.termsprawl/`` but lies inside a project).

    The new file gets ``mode``, else the mode of the file it replaces, else the
    umask's default. The temp file is removed on any failure, so none is left behind."""
    import tempfile  # only writers pay for it; the dump never writes

    if not os.path.isdir(os.path.join(root, STATE_DIR)):
        from termsprawl_context.workspace.project import enclosing_project

        outer = enclosing_project(root)
        if outer:
            raise NestedProject("refusing to start a project inside the project %s: %s" % (outer, root))
    directory = os.path.dirname(path)
    ensure_dir_within(root, directory)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if mode is None:
            mode = file_mode(path)
        os.chmod(tmp, _new_file_mode() if mode is None else mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def has_version(entry: dict, expected: int) -> bool:
    """``entry["version"]`` is the JSON number ``expected`` (1 and 1.0 alike, as a
    JavaScript reader sees them; ``true`` is not a number, though Python says it is 1)."""
    version = entry.get("version")
    return isinstance(version, (int, float)) and not isinstance(version, bool) and version == expected


def dump_json(value: object) -> bytes:
    """Pretty JSON as the context layer writes it: 2-space indent, trailing newline,
    non-ASCII kept as is (escaped only where it cannot be UTF-8, e.g. a path holding
    undecodable bytes, so it reads back to the same path)."""
    import json

    text = json.dumps(value, indent=2, ensure_ascii=False)
    try:
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(value, indent=2) + "\n").encode("ascii")
