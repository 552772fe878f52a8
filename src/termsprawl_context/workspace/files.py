"""Files under ``<project>/.termsprawl/``: bounded reads and contained writes. A write is a
temp file in the target's folder, then ``os.replace``: a reader sees the old file or the
new, never a torn one, with no lock. The folders down to the target are opened one level
at a time without following symlinks (one inside the project resolved first, one leaving
it refused) and the operation made relative to the opened folder, so a folder swapped
for a symlink mid-write cannot redirect it. A managed file that is a symlink, a FIFO or a
folder is left alone (``WriteRefused``); nothing is written into the home directory's
user-wide ``.claude/``, even when the project is the home directory.
"""

from __future__ import annotations

import errno
import os
import stat

from termsprawl_context.workspace.layout import HOME_HARNESS_DIRS

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import List, Optional

    from termsprawl_context.errors import WriteRefused


# State files are a few hundred bytes; project.json is the app's whole project. A file
# larger than this is not ours to parse, and reading it whole would be a trap.
MAX_STATE_FILE_BYTES = 16 * 1024 * 1024

# Opening folders by descriptor, without following a final symlink, is what makes the
# writes race-free; where the platform has no dir_fd (Windows), paths are checked instead.
# (os.replace shares os.rename's support; only os.rename is listed.)
_DIR_FD = all(f in os.supports_dir_fd for f in (os.open, os.rename, os.unlink, os.mkdir, os.stat))
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
_TEMP_SUFFIX = ".tmp"
_TEMP_RANDOM_BYTES = 6  # hex-spelled: twice as many characters
# What the temp name adds to a managed file's: ``.<name>.<hex>.tmp``. A name must fit NAME_MAX
# with this added, or the write fails with "File name too long".
TEMP_NAME_EXTRA_BYTES = len("." + "." + "0" * 2 * _TEMP_RANDOM_BYTES + _TEMP_SUFFIX)


def _refused(message: str) -> "WriteRefused":
    from termsprawl_context.errors import WriteRefused  # loaded only when a write is refused (never by the dump)

    return WriteRefused(message)


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


def read_managed_file(path: str, limit: int = MAX_STATE_FILE_BYTES) -> Optional[bytes]:
    """The bytes of a file we are about to rewrite (None: none there); WriteRefused for what
    cannot be read whole (symlink, FIFO, folder, unreadable, over ``limit``): a rewrite would lose the rest."""
    try:
        st = _replaceable_stat(path, None, path)
    except OSError as exc:
        from termsprawl_context.errors import WriteRefused

        if isinstance(exc, WriteRefused):
            raise
        raise _refused("%s cannot be examined (%s); left alone" % (path, exc.strerror or exc)) from None
    if st is None:
        return None
    if st.st_size > limit:
        raise _refused("%s is larger than %d bytes; left alone" % (path, limit))
    data = read_small_file(path, limit)
    if data is None:
        if not os.path.lexists(path):
            return None  # removed since the lstat: nothing there now
        raise _refused("%s cannot be read whole; left alone" % path)
    return data


def _home_harness_dirs() -> List[str]:
    """The resolved ``~/.claude`` of ``$HOME`` and of the account (they may differ)."""
    homes = [os.path.expanduser("~")]
    try:
        import pwd

        homes.append(pwd.getpwuid(os.getuid()).pw_dir)
    except (ImportError, KeyError, OSError, AttributeError):
        pass
    return [
        os.path.join(os.path.realpath(home), name)
        for home in homes
        if home and os.path.isabs(home)
        for name in HOME_HARNESS_DIRS
    ]


def _contained(root: str, directory: str) -> str:
    """``directory`` resolved, checked to lie inside ``root`` and outside ``~/.claude``."""
    from termsprawl_context.harness.base import under  # the one containment rule

    relative = os.path.relpath(directory, root)
    real = os.path.realpath(directory)
    outside = relative == os.pardir or relative.startswith(os.pardir + os.sep) or os.path.isabs(relative)
    if outside or not under(real, os.path.realpath(root)):
        raise _refused("refusing to write outside %s: %s" % (root, directory))
    for harness in _home_harness_dirs():
        if under(real, harness):
            raise _refused(
                "refusing to write into the home directory's %s (the user-wide one): %s"
                % (os.path.basename(harness), directory)
            )
    return real


def check_write_target(root: str, path: str) -> None:
    """WriteRefused when ``write_atomic(root, path, ...)`` would be refused for where ``path`` lies."""
    _contained(root, os.path.dirname(path))


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode)
    except OSError:
        return False


def _open_dir(root: str, directory: str, create: bool) -> Optional[int]:
    """A descriptor of ``directory`` (created level by level when ``create``) reached from ``root``
    without following a symlink; None without dir_fd (levels checked by path, names whole paths)."""
    real = _contained(root, directory)
    if not _DIR_FD:
        if create:
            _make_dirs_by_path(root, directory)
        return None
    real_root = os.path.realpath(root)
    relative = os.path.relpath(real, real_root)
    fd = os.open(real_root, _DIR_FLAGS)
    try:
        for part in [] if relative == os.curdir else relative.split(os.sep):
            if create:
                try:
                    os.mkdir(part, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass  # made by a concurrent writer, or there already: either is success
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                # A level resolved a moment ago is now a symlink: ELOOP, or ENOTDIR where
                # O_DIRECTORY is checked first (Linux), EMLINK on some BSDs.
                if exc.errno in (errno.ELOOP, errno.EMLINK) or (exc.errno == errno.ENOTDIR and _is_link(part, fd)):
                    raise _refused("refusing to write through a symlink that changed: %s" % directory) from None
                raise
            os.close(fd)
            fd = child
        return fd
    except BaseException:
        os.close(fd)
        raise


def _make_dirs_by_path(root: str, directory: str) -> None:
    """Create ``directory`` level by level, refusing one that resolves outside ``root``."""
    relative = os.path.relpath(directory, root)
    current = root
    for part in [] if relative == os.curdir else relative.split(os.sep):
        current = os.path.join(current, part)
        try:
            os.mkdir(current)
        except FileExistsError:
            pass
        _contained(root, current)


def file_mode(path: str) -> Optional[int]:
    """The permission bits of ``path``, or None when it cannot be stat'ed."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return None


def _replaceable_stat(name: str, dir_fd: "Optional[int]", shown: str) -> "Optional[os.stat_result]":
    """The ``lstat`` of the regular file ``name`` about to be replaced (None: absent); else WriteRefused."""
    try:
        st = os.lstat(name, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        raise _refused("%s is a symbolic link; left alone" % shown)
    if not stat.S_ISREG(st.st_mode):
        raise _refused("%s is not a regular file; left alone" % shown)
    return st


def _replacement_mode(name: str, dir_fd: Optional[int], shown: str, mode: Optional[int]) -> int:
    """``mode``, else that of the regular file ``name`` replaced, else what open() would give a new
    one (a temp file is created 0600); WriteRefused for what may not be replaced."""
    st = _replaceable_stat(name, dir_fd, shown)
    if mode is not None:
        return mode
    if st is not None:
        return st.st_mode & 0o7777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomic(root: str, path: str, data: bytes, mode: Optional[int] = None) -> None:
    """Replace ``path`` (inside ``root``) with ``data`` atomically (mode: ``_replacement_mode``);
    OSError (WriteRefused) otherwise, no temp file left behind."""
    from termsprawl_context.workspace.project import enclosing_project

    outer = enclosing_project(root)
    if outer:  # writing at root would start a second project inside one
        raise _refused("refusing to start a project inside the project %s: %s" % (outer, root))
    directory, base = os.path.split(path)
    temp = "." + base + "." + os.urandom(_TEMP_RANDOM_BYTES).hex() + _TEMP_SUFFIX
    dfd = _open_dir(root, directory, create=True)
    name, tmp = (base, temp) if dfd is not None else (path, os.path.join(directory, temp))
    try:
        chosen = _replacement_mode(name, dfd, path, mode)
        fd = os.open(tmp, _TEMP_FLAGS, 0o600, dir_fd=dfd)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                if dfd is not None:
                    os.fchmod(f.fileno(), chosen)
                else:  # (no os.fchmod on Windows before Python 3.13)
                    os.chmod(tmp, chosen)
            os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=dfd)
            except OSError:
                pass
            raise
    finally:
        if dfd is not None:
            os.close(dfd)


def remove_within(root: str, path: str) -> bool:
    """Unlink the regular file ``path`` inside ``root`` (False: none); WriteRefused for anything else."""
    directory, base = os.path.split(path)
    try:
        dfd = _open_dir(root, directory, create=False)
    except FileNotFoundError:
        return False
    name = base if dfd is not None else path
    try:
        if _replaceable_stat(name, dfd, path) is None:
            return False
        os.unlink(name, dir_fd=dfd)
        return True
    except FileNotFoundError:
        return False  # removed concurrently: the same outcome
    finally:
        if dfd is not None:
            os.close(dfd)


def has_version(entry: dict, expected: int) -> bool:
    """``entry["version"]`` is the JSON number ``expected`` (1 and 1.0 alike, as JavaScript sees them; not ``true``)."""
    version = entry.get("version")
    return isinstance(version, (int, float)) and not isinstance(version, bool) and version == expected


def dump_json(value: object) -> bytes:
    """JSON as the context layer writes it (2-space indent, final newline), non-ASCII as is
    unless it cannot be UTF-8 (a path's undecodable bytes: escaped, to read back)."""
    import json

    text = json.dumps(value, indent=2, ensure_ascii=False)
    try:
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(value, indent=2) + "\n").encode("ascii")
