"""Naming one session on the command line: a full id, an unambiguous prefix, a path, or
``latest``, resolved the same way for ``show``, ``assemble`` and ``locate``.

Only names and ``stat`` are read (no transcript is opened), so resolving ``latest`` in
a store of 10,000 sessions costs a directory walk, as ``find`` does. The session scan
itself is ``store.sessions``'; this module only adds the ways of naming one.
"""

import os
import stat
from collections import namedtuple
from typing import List, Optional, Tuple

from termsprawl_context.errors import NotFound, Refusal, UsageError
from termsprawl_context.harness.claude import TRANSCRIPT_SUFFIX
from termsprawl_context.store import session_lookup
from termsprawl_context.store import sessions as store_sessions

LATEST = "latest"
# An ambiguity names at most this many candidates: the line must stay one line.
MAX_CANDIDATES_SHOWN = 10


class SessionFile(namedtuple("SessionFile", "session_id path mtime")):
    """A session transcript in the store: its id (the file's stem), path and mtime."""

    __slots__ = ()


class AmbiguousSessionPrefix(Refusal):
    """More than one session id starts with what was asked for; the candidates are
    named so the person can pick one."""

    def __init__(self, partial: str, ids: List[str]) -> None:
        shown = ", ".join(ids[:MAX_CANDIDATES_SHOWN])
        if len(ids) > MAX_CANDIDATES_SHOWN:
            shown += ", ... (%d more)" % (len(ids) - MAX_CANDIDATES_SHOWN)
        super().__init__("ambiguous session ID '%s' matches %d sessions: %s" % (partial, len(ids), shown))
        self.partial = partial
        self.ids = ids


class StoreNotFound(NotFound):
    """An explicitly named projects directory does not exist."""

    def __init__(self, path: str) -> None:
        super().__init__("projects directory not found: %s" % path)
        self.path = path


def require_store(projects_dir: str, explicit: Optional[str]) -> str:
    """``projects_dir``, refused (exit 1) when it was named explicitly (``--projects-dir``)
    and is not a directory. A missing default store is an empty one."""
    if explicit and not os.path.isdir(projects_dir):
        raise StoreNotFound(projects_dir)
    return projects_dir


def store_root(projects_dir: str, project: Optional[str] = None) -> str:
    """The folder to look in: the store, or only ``project``'s folder of it."""
    if not projects_dir:
        return ""
    return store_sessions.project_store_dir(projects_dir, project) if project else projects_dir


def session_files(projects_dir: str, project: Optional[str] = None, prefix: str = "") -> List[SessionFile]:
    """Every session file (regular files only) under the store (or ``project``'s
    folder) whose id starts with ``prefix``, newest first by mtime (a tie: the
    smaller path first). Directories that cannot be listed are passed over."""
    root = store_root(projects_dir, project)
    if not root or not os.path.isdir(root):
        return []
    found = []
    # The walk of store_sessions.iter_candidate_paths (directories not followed through
    # symlinks, unlistable ones passed over), with DirEntry's stat and no sorting: a
    # store of 10,000 sessions is walked in one pass, a stat per session file.
    stack = [root]
    while stack:
        directory = stack.pop()
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    name = entry.name
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
                            continue
                        if not store_sessions.is_session_file_name(name) or not name.startswith(prefix):
                            continue
                        st = entry.stat()
                    except OSError:
                        continue
                    if stat.S_ISREG(st.st_mode):
                        found.append(SessionFile(store_sessions.session_id_of(name), entry.path, st.st_mtime))
        except OSError:
            continue
    found.sort(key=lambda s: (-s.mtime, s.path))
    return found


def latest_session(projects_dir: str, project: Optional[str] = None) -> SessionFile:
    """The most recently written session; ``SessionNotFound`` when there is none."""
    found = session_files(projects_dir, project)
    if not found:
        raise store_sessions.SessionIdNotFound(LATEST)
    return found[0]


def _is_path(name: str) -> bool:
    return os.sep in name or (os.altsep is not None and os.altsep in name) or name.endswith(TRANSCRIPT_SUFFIX)


def resolve_session(name: str, projects_dir: str, project: Optional[str] = None) -> Tuple[str, str]:
    """``(session id, transcript path)`` for a session named by a full id, a unique
    prefix of one, a path to a transcript file, or ``latest``.

    Refusals: an empty name (usage, exit 2); a path that is not a regular file, or no
    matching session (exit 1); a prefix that several session ids start with (exit 1,
    naming them). One id stored in two folders is one session: its latest descendant,
    as ``find`` and ``locate`` pick it."""
    if not name:
        raise UsageError("session must not be empty")
    if name == LATEST:
        newest = latest_session(projects_dir, project)
        return newest.session_id, newest.path
    if _is_path(name):
        path = os.path.abspath(name)
        try:
            regular = stat.S_ISREG(os.stat(path).st_mode)
        except OSError:
            regular = False
        if not regular:
            raise NotFound("transcript file not found: %s" % name)
        stem = os.path.basename(path)
        if stem.endswith(TRANSCRIPT_SUFFIX):
            stem = stem[: -len(TRANSCRIPT_SUFFIX)]
        return stem, path
    # Ids and prefixes resolve as `find` resolves them (one rule for every command):
    # different ids refused from the names alone, copies of one id settled by the
    # latest descendant, as `locate` ranks holders.
    try:
        resolved = session_lookup.resolve(name, store_root(projects_dir, project))
    except session_lookup.AmbiguousPrefix as ambiguous:
        raise AmbiguousSessionPrefix(name, sorted({c.session_id for c in ambiguous.candidates})) from None
    return resolved.session_id, resolved.path


def resolve_uuid(name: str, projects_dir: str) -> str:
    """The uuid ``locate`` and ``assemble`` look for: ``latest`` becomes the newest
    session's id, a unique prefix of a session id becomes that id; anything else
    (a full session or message uuid, or a word no session id starts with) is kept as
    given, for them to find or refuse."""
    if name == LATEST:
        return latest_session(projects_dir).session_id
    if len(name) >= store_sessions.UUID_LENGTH:
        return name
    ids = sorted({s.session_id for s in session_files(projects_dir, None, name)})
    if len(ids) > 1:
        raise AmbiguousSessionPrefix(name, ids)
    return ids[0] if ids else name
