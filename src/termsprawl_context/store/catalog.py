"""The session catalog: the one walk over a store and the one way to name a session, for
every command that names a session (``sessions``, ``find``, ``show``, ``search``,
``locate``, ``assemble``).

A Claude Code session is a ``<36-character stem>.jsonl`` regular file anywhere under the
projects directory (``agent-*`` files are sub-agents, not sessions). Another harness's
sessions are those its ``Harness.sessions`` lists. A session is named by its full id, a
prefix of one, a path to its transcript, or ``latest``; only names and ``stat`` decide
(no transcript is opened), so a prefix shared by different ids is refused from the names
alone (issue 14). One id held by several files (a backup folder such as
``projects.bak-...``, a resumed copy) is one session: Claude Code's copies are ranked as
``locate`` ranks holders (the latest descendant), another harness's by mtime.
Every store is asked alike: ``latest`` is the newest session of any, and a prefix that fits
sessions of two stores is ambiguous.
"""

import operator
import os
import stat
from typing import Iterator, List, NamedTuple, Optional, Sequence, TextIO, Tuple

from termsprawl_context._output import write_diagnostic
from termsprawl_context.errors import AmbiguousSession, NotFound, SessionIdNotFound
from termsprawl_context.harness import DEFAULT_HARNESS, get as _provider


LATEST = "latest"
# The seed's store (``--projects-dir``, ``--project``): the default provider's, walked here.
SEED = _provider(DEFAULT_HARNESS)
TRANSCRIPT_SUFFIX = SEED.transcript_suffix
# A full session id (a UUID): a shorter name may be a prefix of one.
UUID_LENGTH = 36
# An ambiguity names at most this many ids: the refusal must stay one line.


class SessionFile(NamedTuple):
    """A session transcript in the store: its id (the file's stem), path and mtime."""

    session_id: str
    path: str
    mtime: float


class Candidate(NamedTuple):
    """A file whose name says it is session ``session_id`` of ``harness``."""

    session_id: str
    path: str
    harness: str = DEFAULT_HARNESS


class HarnessSession(NamedTuple):
    """A transcript in another harness's store."""

    harness: str
    session_id: str
    path: str
    mtime: float
    size: int


class Resolved(NamedTuple):
    """The session a name resolves to: its chosen file, its harness, and the other
    copies of the same id, best first."""

    session_id: str
    path: str
    harness: str = DEFAULT_HARNESS
    copies: Tuple[str, ...] = ()


# --- names -------------------------------------------------------------------------------


is_session_file_name = SEED.is_session_file_name  # bound once: the walk asks it of every file


def stem_of(path: str) -> str:
    """A transcript path's file name without ``.jsonl`` (the whole name without it)."""
    name = os.path.basename(path)
    return name[: -len(TRANSCRIPT_SUFFIX)] if name.endswith(TRANSCRIPT_SUFFIX) else name


def is_path(name: str) -> bool:
    """Whether a session's name is a path: it holds a separator or ends ``.jsonl``."""
    return os.sep in name or (os.altsep is not None and os.altsep in name) or name.endswith(TRANSCRIPT_SUFFIX)


# --- the walk ----------------------------------------------------------------------------


_ENTRY_NAME = operator.attrgetter("name")  # a sort key in C: a walk sorts every directory of the store


def list_directory(path: str, ordered: bool = True) -> List["os.DirEntry[str]"]:
    """The entries of the directory ``path`` (in name order when ``ordered``); raises
    OSError when it cannot be listed."""
    with os.scandir(path) as it:
        return sorted(it, key=_ENTRY_NAME) if ordered else list(it)


def walk(root: str, skipped: Optional[List[str]] = None, ordered: bool = True) -> Iterator["os.DirEntry[str]"]:
    """The entries under ``root`` whose names are session file names, depth first (in
    name order when ``ordered``: a caller that sorts the answer itself need not pay for
    it). Directories are not followed through symlinks; one that cannot be listed is
    appended to ``skipped`` and the walk goes on."""
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
            elif is_session_file_name(entry.name):
                yield entry
        stack.extend(reversed(subdirs))


def project_store_dir(projects_dir: str, work_dir: str) -> str:
    """The store folder holding the sessions run in ``work_dir``."""
    return SEED.project_folder(projects_dir, work_dir)


def store_root(projects_dir: str, project: Optional[str] = None) -> str:
    """The folder to look in: the store, or only ``project``'s folder of it."""
    if not projects_dir:
        return ""
    return project_store_dir(projects_dir, project) if project else projects_dir


def require_store(projects_dir: str, explicit: Optional[str]) -> str:
    """``projects_dir``, refused (exit 1) when it was named explicitly (``--projects-dir``)
    and is not a directory. A missing default store is an empty one."""
    if explicit and not os.path.isdir(projects_dir):
        raise NotFound("projects directory not found: %s" % projects_dir)
    return projects_dir


def session_files(
    projects_dir: str, project: Optional[str] = None, prefix: str = "", skipped: Optional[List[str]] = None
) -> List[SessionFile]:
    """Every regular session file under the store (or ``project``'s folder) whose id
    starts with ``prefix``, newest first by mtime (a tie: the smaller path first): one
    walk, a ``stat`` per session file, no transcript opened."""
    root = store_root(projects_dir, project)
    if not root or not os.path.isdir(root):
        return []
    found = []
    cut = -len(TRANSCRIPT_SUFFIX)
    for entry in walk(root, skipped, ordered=False):  # a stat per session file: the cost of `show latest`
        name = entry.name
        if name.startswith(prefix):
            try:
                st = entry.stat()  # symlinks followed, as opening it would; a FIFO is not a session
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                found.append(SessionFile(name[:cut], entry.path, st.st_mtime))
    found.sort(key=lambda s: (-s.mtime, s.path))
    return found


def format_skipped_paths(paths: List[str], operation: str) -> str:
    """The seed's warning about unreadable paths (without its log-file pointer); "" for
    none."""
    if not paths:
        return ""
    lines = ["", "\u26a0 Warning: Could not access %d path(s) during %s:" % (len(paths), operation)]
    lines.extend("  - %s" % p for p in paths)
    lines.append("Check their permissions; the rest of the store was read.")
    return "\n".join(lines) + "\n\n"


def report_skipped(paths: List[str], operation: str, stderr: Optional[TextIO] = None) -> None:
    """``format_skipped_paths`` on ``stderr``, when there are any."""
    text = format_skipped_paths(paths, operation)
    if text:
        write_diagnostic(text, stderr)  # the listing stands even when stderr is closed


def latest_session(projects_dir: str, project: Optional[str] = None) -> SessionFile:
    """The most recently written session file; ``SessionIdNotFound`` when there is none."""
    found = session_files(projects_dir, project)
    if not found:
        raise SessionIdNotFound(LATEST)
    return found[0]


def other_sessions(chosen: Sequence[object], environ=None) -> List[HarnessSession]:
    """Every transcript of the chosen providers' stores (``Harness.sessions``) but the
    seed's (the projects directory, walked by ``session_files``), oldest first (a tie:
    the smaller path first)."""
    found = []
    for harness in chosen:
        name = getattr(harness, "name")
        if getattr(harness, "native_records"):
            continue
        for session in getattr(harness, "sessions")(environ):
            st = getattr(harness, "session_stat")(session.path)
            if st is not None:
                found.append(HarnessSession(name, session.session_id, session.path, st[0], st[1]))
    found.sort(key=lambda s: (s.mtime, s.path))
    return found


# --- naming one session ------------------------------------------------------------------


def _one_id(name: str, candidates: List[Candidate]) -> List[Candidate]:
    """The candidates of the one id ``name`` names (an exact id before prefixes);
    refused when there is none or several."""
    exact = [c for c in candidates if c.session_id == name]
    fits = exact or [c for c in candidates if c.session_id.startswith(name)]
    ids = {c.session_id for c in fits}
    if not ids:
        raise SessionIdNotFound(name)
    if len(ids) > 1:
        raise AmbiguousSession(name, fits)
    return fits


def latest_descendant(session_id: str, paths: List[str], err: Optional[TextIO] = None) -> List[str]:
    """``paths`` (copies of one session) ordered as ``locate`` ranks holders: greatest
    ``timestamp`` first, ties by the smaller path. Read only when there are two or more."""
    if len(paths) < 2:
        return list(paths)
    from termsprawl_context.store import locate as store_locate

    spellings = store_locate.UuidSpellings(session_id)
    ranked = []
    for path in sorted(paths):
        _, max_ts = store_locate.scan_file(path, session_id, spellings, err)
        ranked.append((max_ts, path))
    ranked.sort(key=lambda pair: pair[0], reverse=True)  # stable: equal timestamps keep the smaller path first
    return [path for _, path in ranked]


def _seed_files(name: str, root: str, stderr: Optional[TextIO]) -> List[SessionFile]:
    """The seed store's session files ``name`` may mean (every one for ``latest``), newest first."""
    skipped: List[str] = []
    files = session_files(root, None, "" if name == LATEST else name, skipped)
    report_skipped(skipped, "search", stderr)
    return files


def _resolved(session_id: str, harness: str, paths: List[str], stderr: Optional[TextIO]) -> Resolved:
    """The chosen copy of one session: the seed store's ranked as ``locate`` ranks holders,
    another harness's newest first (``paths`` is in that order already)."""
    ranked = latest_descendant(session_id, paths, stderr) if harness == DEFAULT_HARNESS else paths
    return Resolved(session_id, ranked[0], harness, tuple(ranked[1:]))


def _resolve_in_stores(name: str, seed: List[SessionFile], others: List[HarnessSession], stderr) -> Resolved:
    """``name`` over every store alike: ``latest`` is the newest file of any store, an id
    or prefix is refused as ambiguous when it fits sessions of different stores."""
    if name == LATEST:
        newest = [(f.mtime, DEFAULT_HARNESS, f.session_id) for f in seed[:1]]
        newest += [(s.mtime, s.harness, s.session_id) for s in others[-1:]]
        if not newest:
            raise SessionIdNotFound(LATEST)
        _, harness, session_id = max(newest, key=lambda n: n[0])  # a tie: the seed store's, listed first
    else:
        candidates = [Candidate(f.session_id, f.path) for f in seed]
        candidates += [Candidate(s.session_id, s.path, s.harness) for s in reversed(others)]
        fits = _one_id(name, candidates)
        if len({c.harness for c in fits}) > 1:  # one id in two stores is two sessions
            raise AmbiguousSession(name, fits)
        session_id, harness = fits[0].session_id, fits[0].harness
    if harness == DEFAULT_HARNESS:
        paths = [f.path for f in seed if f.session_id == session_id]
    else:
        paths = [s.path for s in reversed(others) if s.session_id == session_id and s.harness == harness]
    return _resolved(session_id, harness, paths, stderr)


def _resolve_file(name: str, harness: Optional[str]) -> Resolved:
    """A path: the file (a regular one), read by the harness ``--harness`` names, else by
    the one whose store (or first record) it is."""
    from termsprawl_context import harness as harnesses

    path = os.path.abspath(name)
    if harness and harness != "all":
        chosen = harnesses.get(harness)
        if chosen is None:
            raise NotFound("unknown harness %s" % harness)
    else:
        chosen = harnesses.for_path(path)
    regular = chosen.session_stat(path) is not None  # a regular file, or a row of a CLI's database
    if not regular:
        raise NotFound("transcript file not found: %s" % name)
    session_id = stem_of(path)
    if not chosen.native_records:
        session_id = chosen.session_id_of(path) or session_id
    return Resolved(session_id, path, chosen.name)


def reads_seed_store(harness: Optional[str]) -> bool:
    """Whether the ``--harness`` value (None: every store) includes the seed's store (the
    projects directory: the default provider's)."""
    return harness in (None, "all", DEFAULT_HARNESS)


def resolve(
    name: str,
    projects_dir: str,
    project: Optional[str] = None,
    harness: Optional[str] = None,
    others: Sequence[object] = (),
    stderr: Optional[TextIO] = None,
) -> Resolved:
    """The session ``name`` names: a full id, a unique prefix of one, a path to a
    transcript file, or ``latest`` (the most recently modified).

    ``projects_dir`` is the seed's store (the default provider's) (``project``: only the sessions run there),
    read unless ``harness`` names another harness; ``others`` are the other harnesses
    whose stores are asked alike (the CLI checks the store it names first:
    ``cli/store_options.native_store``). Refusals (the CLI refuses
    an empty name first, exit 2; here it is the prefix of every id): ``SessionIdNotFound``,
    or ``NotFound`` for a path that is not a regular file (exit 1); ``AmbiguousSession``
    (exit 1) for a prefix of several ids, decided from the names before any file is
    read, also when the ids are of different stores. Unlistable directories are named
    once on ``stderr``."""
    if is_path(name):
        return _resolve_file(name, harness)
    seed = _seed_files(name, store_root(projects_dir, project), stderr) if reads_seed_store(harness) else []
    return _resolve_in_stores(name, seed, other_sessions(others) if others else [], stderr)


def resolve_uuid(name: str, projects_dir: str) -> str:
    """The uuid ``locate`` and ``assemble`` look for: ``latest`` becomes the newest
    session's id, a unique prefix of a session id becomes that id; anything else
    (a full session or message uuid, or a word no session id starts with) is kept as
    given, for them to find or refuse."""
    if name == LATEST:
        return latest_session(projects_dir).session_id
    if len(name) >= UUID_LENGTH:
        return name
    candidates = [Candidate(f.session_id, f.path) for f in session_files(projects_dir, None, name)]
    try:
        return _one_id(name, candidates)[0].session_id
    except SessionIdNotFound:
        return name


def copies_message(session_id: str, copies: Tuple[str, ...]) -> List[str]:
    """The stderr lines naming the other copies of a found session (none for one)."""
    return ["session %s has another copy (not the latest descendant): %s" % (session_id, path) for path in copies]


def candidates_message(candidates: List[Candidate]) -> List[str]:
    """The stderr lines listing an ambiguous prefix's candidates, one file each."""
    return ["  %s\t%s" % (c.session_id, c.path) for c in candidates]
