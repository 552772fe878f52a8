"""Resolving a session id or prefix from the store's file names, before reading any file.

A prefix shared by different session ids is refused from the names alone (issue 14:
describing every match first cost seconds on a large store). One id held by several
files (backup folders such as ``projects.bak-...``, resumed copies) is not ambiguous:
the answer is the latest descendant, as ``locate`` picks it (the copy whose greatest
``timestamp`` is greatest; ties go to the smaller path), and the other copies are named
on stderr.
"""

import os
import stat
from typing import Callable, Dict, List, NamedTuple, Optional, TextIO, Tuple

from termsprawl_context.store import locate as store_locate
from termsprawl_context.store import sessions as store_sessions


class SessionCandidate(NamedTuple):
    """A file whose name says it is session ``session_id``."""

    session_id: str
    path: str


class Resolved(NamedTuple):
    """The chosen session file and the other copies of the same id, best first."""

    session_id: str
    path: str
    copies: Tuple[str, ...]


class AmbiguousPrefix(store_sessions.AmbiguousSession):
    """Different session ids start with the prefix (copies of one id count once):
    refused from the file names, each candidate file kept in ``matches``."""

    def __init__(self, partial: str, candidates: List[SessionCandidate]) -> None:
        super().__init__(partial, list(candidates))  # type: ignore[arg-type]
        self.candidates = list(candidates)  # the same files, typed for callers
        count = len({c.session_id for c in candidates})
        self.message = "ambiguous session ID '%s' matches %d sessions" % (partial, count)
        self.args = (self.message,)


def _is_regular(path: str) -> bool:
    """A regular file (symlinks followed, as opening it would): metadata only, never
    opened, so a FIFO named like a session cannot block the lookup."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def name_candidates(
    partial: str, projects_dir: str, skipped: List[str], is_regular: Callable[[str], bool] = _is_regular
) -> List[SessionCandidate]:
    """Every regular session file under ``projects_dir`` whose id equals or starts with
    ``partial``, sorted by (id, path); unlistable directories go to ``skipped``."""
    if not projects_dir or not os.path.isdir(projects_dir):
        return []
    found = []
    for path in store_sessions.iter_candidate_paths(projects_dir, skipped):
        session_id = store_sessions.session_id_of(os.path.basename(path))
        if session_id.startswith(partial) and is_regular(path):
            found.append(SessionCandidate(session_id, path))
    found.sort()
    return found


def by_id(candidates: List[SessionCandidate]) -> Dict[str, List[str]]:
    ids: Dict[str, List[str]] = {}
    for candidate in candidates:
        ids.setdefault(candidate.session_id, []).append(candidate.path)
    return ids


def latest_descendant(session_id: str, paths: List[str], err: Optional[TextIO] = None) -> List[str]:
    """``paths`` (copies of one session) ordered as ``locate`` ranks holders: greatest
    ``timestamp`` first, ties by the smaller path. Read only when there are two or more."""
    if len(paths) < 2:
        return list(paths)
    spellings = store_locate.UuidSpellings(session_id)
    ranked = []
    for path in paths:
        _, max_ts = store_locate.scan_file(path, session_id, spellings, err)
        ranked.append((max_ts, path))
    # Greatest timestamp first; among equal timestamps, the smaller path first.
    ranked.sort(key=lambda pair: pair[1])
    ranked.sort(key=lambda pair: pair[0], reverse=True)
    return [path for _, path in ranked]


def resolve(partial: str, projects_dir: str, stderr: Optional[TextIO] = None) -> Resolved:
    """The one session id that is or starts with ``partial``, its latest copy and its
    other copies. Raises ``SessionNotFound``, or ``AmbiguousSession`` (with every
    candidate file) when two different ids match, before any file is read."""
    skipped: List[str] = []
    candidates = name_candidates(partial, projects_dir, skipped)
    store_sessions.report_skipped(skipped, "search", stderr)
    ids = by_id(candidates)
    if not ids:
        raise store_sessions.SessionIdNotFound(partial)
    if len(ids) > 1:
        raise AmbiguousPrefix(partial, candidates)
    ((session_id, paths),) = ids.items()
    ranked = latest_descendant(session_id, paths, stderr)
    return Resolved(session_id, ranked[0], tuple(ranked[1:]))


def find_session(
    partial: str, projects_dir: str, stderr: Optional[TextIO] = None
) -> Tuple[store_sessions.SessionInfo, Tuple[str, ...]]:
    """The session ``partial`` resolves to, described (head and tail), and the paths
    of its other copies. A copy that vanished or stopped being a regular file since the
    walk gives way to the next best one."""
    resolved = resolve(partial, projects_dir, stderr)
    ranked = (resolved.path,) + resolved.copies
    for number, path in enumerate(ranked):
        info = store_sessions.session_from_path(path, projects_dir)
        if info is not None:
            return info, ranked[:number] + ranked[number + 1 :]
    raise store_sessions.SessionIdNotFound(partial)


def copies_message(session_id: str, copies: Tuple[str, ...]) -> List[str]:
    """The stderr lines naming the other copies of a found session (none for one)."""
    return ["session %s has another copy (not the latest descendant): %s" % (session_id, path) for path in copies]


def candidates_message(candidates: List[SessionCandidate]) -> List[str]:
    """The stderr lines listing an ambiguous prefix's candidates, one file each."""
    return ["  %s\t%s" % (c.session_id, c.path) for c in candidates]
