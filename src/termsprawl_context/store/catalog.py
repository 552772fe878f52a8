"""The session catalog: the one walk over a store and the one way to name a session.

A store whose root an option names (``Harness.root_option``) is walked here; another
provider is asked for its ``sessions``. A session is named by its full id, a prefix of
one, a transcript's path, or ``latest`` (the newest of any store); only names and ``stat``
decide (no transcript is opened). One id held by several files (a backup folder, a resumed
copy) is one session, its copies ranked by ``Harness.rank_copies``; a prefix that fits
different ids, or sessions of two stores, is ambiguous.
"""

import operator
import os
import stat
from collections import namedtuple
from typing import Any, Callable, Iterator, List, Optional, Sequence, TextIO, Tuple

from termsprawl_context._output import write_diagnostic
from termsprawl_context.errors import AmbiguousSession, NotFound, SessionIdNotFound
from termsprawl_context import harness as harnesses
from termsprawl_context.store.paths import ROOTED


LATEST = "latest"
# A name ending so is a transcript's path, not a session id.
TRANSCRIPT_SUFFIX = ".jsonl"
# A full session id (a UUID): a shorter name may be a prefix of one.
UUID_LENGTH = 36


# A file whose name says it is session ``session_id`` of ``harness``, modified at ``mtime``.
Candidate = namedtuple("Candidate", "session_id path harness mtime", defaults=(ROOTED.name, 0.0))
# The session a name resolves to, and the other copies of its id, best first.
Resolved = namedtuple("Resolved", "session_id path harness copies", defaults=(ROOTED.name, ()))


def stem_of(path: str) -> str:
    """A transcript path's file name without ``.jsonl``."""
    name = os.path.basename(path)
    return name[: -len(TRANSCRIPT_SUFFIX)] if name.endswith(TRANSCRIPT_SUFFIX) else name


def is_path(name: str) -> bool:
    """Whether a session's name is a path: it holds a separator or ends ``.jsonl``."""
    return os.sep in name or (os.altsep is not None and os.altsep in name) or name.endswith(TRANSCRIPT_SUFFIX)


_ENTRY_NAME = operator.attrgetter("name")  # a sort key in C: a walk sorts every directory of the store


def list_directory(path: str, ordered: bool = True) -> List["os.DirEntry[str]"]:
    """The directory's entries (in name order when ``ordered``)."""
    with os.scandir(path) as it:
        return sorted(it, key=_ENTRY_NAME) if ordered else list(it)


def walk(
    root: str,
    skipped: Optional[List[str]] = None,
    ordered: bool = True,
    is_session: Callable[[str], bool] = ROOTED.is_session_file_name,
) -> Iterator["os.DirEntry[str]"]:
    """The entries under ``root`` that ``is_session`` names, depth first, symlinked directories not followed."""
    stack = [root]
    while stack:
        directory = stack.pop()
        try:
            entries = list_directory(directory, ordered)
        except OSError:
            if skipped is not None:
                skipped.append(directory)
            continue
        subdirs = []
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
                subdirs.append(entry.path)
            elif is_session(entry.name):
                yield entry
        stack.extend(reversed(subdirs))


def store_root(projects_dir: str, project: Optional[str] = None, provider: Any = ROOTED) -> str:
    """The folder of ``provider``'s store to look in: the store, or ``project``'s folder."""
    if not projects_dir:
        return ""
    return provider.project_folder(projects_dir, project) if project else projects_dir


def require_store(projects_dir: str, explicit: Optional[str]) -> str:
    """``projects_dir``, refused when named explicitly and not a directory (a missing default is empty)."""
    if explicit and not os.path.isdir(projects_dir):
        raise NotFound("projects directory not found: %s" % projects_dir)
    return projects_dir


def session_files(
    projects_dir: str,
    project: Optional[str] = None,
    prefix: str = "",
    skipped: Optional[List[str]] = None,
    provider: Any = ROOTED,
) -> List[Candidate]:
    """Every regular session file of the store (or ``project``'s folder) whose id starts
    with ``prefix``, newest first (a tie: the smaller path): a ``stat`` each, none opened."""
    root = store_root(projects_dir, project, provider)
    if not root or not os.path.isdir(root):
        return []
    found = []
    cut = -len(provider.transcript_suffix)
    for entry in walk(root, skipped, False, provider.is_session_file_name):  # a stat per file: `show latest`'s cost
        name = entry.name
        if name.startswith(prefix):
            try:
                st = entry.stat()  # symlinks followed, as opening it would; a FIFO is not a session
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                found.append(Candidate(name[:cut], entry.path, provider.name, st.st_mtime))
    found.sort(key=lambda s: (-s.mtime, s.path))
    return found


def listed(
    provider: Any, store: str = "", project: Optional[str] = None, prefix: str = "", skipped=None
) -> List[Candidate]:
    """``provider``'s sessions whose id starts with ``prefix``, newest first (a tie: the smaller path)."""
    if provider.root_option:
        return session_files(store, project, prefix, skipped, provider)
    found = []
    for session in provider.sessions():
        if session.session_id.startswith(prefix):
            st = provider.session_stat(session.path)
            if st is not None:
                found.append(Candidate(session.session_id, session.path, provider.name, st[0]))
    found.sort(key=lambda c: (-c.mtime, c.path))
    return found


def store_paths(provider: Any, store: str, project: Optional[str] = None, skipped=None) -> List[str]:
    """The transcripts of ``provider``'s sessions (a rooted store walked in name order, none stat'ed)."""
    if not provider.root_option:
        return [session.path for session in provider.sessions()]
    root = store_root(store, project, provider)
    if not root or not os.path.isdir(root):
        return []
    return [entry.path for entry in walk(root, skipped, True, provider.is_session_file_name)]


def report_skipped(paths: List[str], operation: str, stderr: Optional[TextIO] = None) -> None:
    """The seed's warning about unreadable paths (without its log-file pointer), if any."""
    if not paths:
        return
    lines = ["", "\u26a0 Warning: Could not access %d path(s) during %s:" % (len(paths), operation)]
    lines.extend("  - %s" % p for p in paths)
    lines.append("Check their permissions; the rest of the store was read.")
    write_diagnostic("\n".join(lines) + "\n\n", stderr)  # the listing stands even when stderr is closed


def latest_session(projects_dir: str, project: Optional[str] = None) -> Candidate:
    """The most recently written session file; ``SessionIdNotFound`` when there is none."""
    found = session_files(projects_dir, project)
    if not found:
        raise SessionIdNotFound(LATEST)
    return found[0]


def _one_id(name: str, candidates: List[Candidate]) -> List[Candidate]:
    """The candidates of the one id ``name`` names (an exact id before prefixes)."""
    fits = [c for c in candidates if c.session_id == name] or [c for c in candidates if c.session_id.startswith(name)]
    ids = {c.session_id for c in fits}
    if not ids:
        raise SessionIdNotFound(name)
    if len(ids) > 1:
        raise AmbiguousSession(name, fits)
    return fits


def _resolve_file(name: str, harness: Optional[str]) -> Resolved:
    """A path: the regular file, read by the harness ``--harness`` names, else by its own."""
    path = os.path.abspath(name)
    chosen = harnesses.get(harness) if harness and harness != "all" else harnesses.for_path(path)
    if chosen is None:
        raise NotFound("unknown harness %s" % harness)
    if chosen.session_stat(path) is None:  # neither a regular file nor a row of a CLI's database
        raise NotFound("transcript file not found: %s" % name)
    return Resolved(chosen.session_id_of(path) or stem_of(path), path, chosen.name)


def resolve(
    name: str,
    projects_dir: str,
    project: Optional[str] = None,
    harness: Optional[str] = None,
    chosen: Optional[Sequence[Any]] = None,
    stderr: Optional[TextIO] = None,
) -> Resolved:
    """The session ``name`` names in the stores of ``chosen`` (default: the one rooted at
    ``projects_dir``); ``harness`` (``--harness``) reads a path. Refusals:
    ``SessionIdNotFound``, ``NotFound`` (a path that is no regular file), ``AmbiguousSession``
    (an empty name, which the CLI refuses first, is the prefix of every id)."""
    if is_path(name):
        return _resolve_file(name, harness)
    skipped: List[str] = []
    prefix = "" if name == LATEST else name
    stores = [listed(p, projects_dir, project, prefix, skipped) for p in (chosen if chosen is not None else [ROOTED])]
    report_skipped(skipped, "search", stderr)
    if name == LATEST:
        newest = [found[0] for found in stores if found]
        if not newest:
            raise SessionIdNotFound(LATEST)
        best = max(newest, key=lambda c: c.mtime)  # a tie: the store listed first
    else:
        fits = _one_id(name, [c for found in stores for c in found])
        if len({c.harness for c in fits}) > 1:  # one id in two stores is two sessions
            raise AmbiguousSession(name, fits)
        best = fits[0]
    session_id, owner = best.session_id, best.harness
    paths = [c.path for found in stores for c in found if c.session_id == session_id and c.harness == owner]

    def greatest(path: str) -> str:  # locate's rank of one copy: its records' greatest timestamp
        from termsprawl_context.store import locate as store_locate

        return store_locate.scan_file(path, session_id, store_locate.UuidSpellings(session_id), stderr)[1]

    ranked = harnesses.get(owner).rank_copies(paths, greatest)
    return Resolved(session_id, ranked[0], owner, tuple(ranked[1:]))


def resolve_uuid(name: str, projects_dir: str) -> str:
    """The uuid ``locate`` and ``assemble`` look for: ``latest`` or a unique prefix of a
    session id becomes that id; anything else is kept, for them to find or refuse."""
    if name == LATEST:
        return latest_session(projects_dir).session_id
    if len(name) >= UUID_LENGTH:
        return name
    try:
        return _one_id(name, listed(ROOTED, projects_dir, prefix=name))[0].session_id
    except SessionIdNotFound:
        return name


def copies_message(session_id: str, copies: Tuple[str, ...]) -> List[str]:
    """The stderr lines naming the other copies of a found session."""
    return ["session %s has another copy (not the latest descendant): %s" % (session_id, path) for path in copies]


def candidates_message(candidates: List[Candidate]) -> List[str]:
    """The stderr lines listing an ambiguous prefix's candidates."""
    return ["  %s\t%s" % (c.session_id, c.path) for c in candidates]
