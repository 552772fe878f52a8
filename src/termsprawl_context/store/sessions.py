"""Sessions in the harness's store: the listing (``sessions``), and one session described
(``find``).

The sessions are the catalog's (``store.catalog``: the one walk, the one resolve); each is
described by ``session_meta`` at bounded cost (its head and tail, never the whole file).
"""

import os
import stat
from typing import Any, Callable, List, NamedTuple, Optional, Tuple

from termsprawl_context.errors import NotARegularFile, SessionIdNotFound
from termsprawl_context.harness import DEFAULT_HARNESS
from termsprawl_context.jsonl import open_regular
from termsprawl_context.model import SessionInfo
from termsprawl_context.store import catalog
from termsprawl_context.store import parallel
from termsprawl_context.store import summary_index as _summaries
from termsprawl_context.store.session_meta import (
    SessionMetadata,
    SummaryLink,
    read_buffers,
    read_session_metadata,
)
from termsprawl_context.byte_windows import ReadBuffers
from termsprawl_context.transcript.titles import Title


# Describing a session costs about the same whatever its size (head and tail only), so
# a listing is shared between processes by its number of sessions. A helper costs about
# 2 ms (fork, collect, unpack) and a session 0.2-0.7 ms of CPU, so two processes break
# even near 10 sessions (benchmarks/bench_sessions_cli.py prints both figures); the
# threshold is several times that, since a small listing is fast either way.
PARALLEL_MIN_SESSIONS = 64


class ScanResult(NamedTuple):
    sessions: List[SessionInfo]
    skipped: List[str]  # directories that could not be listed
    # ``render(session)`` of each listed session, in the same order, when the scan was
    # given a renderer (else None): made where the session was described, so a listing
    # shared between processes shares its rendering too.
    rendered: Optional[List[Any]] = None


# --- scanning the store -----------------------------------------------------------------


def session_from_path(
    path: str,
    projects_dir: str,
    buffers: Optional[ReadBuffers] = None,
    uuids_out: Optional[List[bytes]] = None,
    tail_links_out: Optional[List[SummaryLink]] = None,
) -> Optional[SessionInfo]:
    """The seed's parseSessionFromPath: the session at ``path``, or None when the name
    is not a session's or the path is not a regular file (a directory, a FIFO). A
    regular file that cannot be read is listed with no metadata, as the seed lists it.
    ``uuids_out``, ``tail_links_out``: as ``read_session_metadata`` fills them (nothing
    when unread)."""
    name = os.path.basename(path)
    if not catalog.is_session_file_name(name):
        return None
    session_id = catalog.session_id_of(name)
    meta = SessionMetadata()
    try:
        f = open_regular(path)
    except NotARegularFile:
        return None
    except OSError:
        try:
            st = os.stat(path)
        except OSError:
            return None  # gone since it was listed
        if not stat.S_ISREG(st.st_mode):
            return None
    else:
        with f:
            st = os.fstat(f.fileno())
            try:
                meta = read_session_metadata(f, st.st_size, session_id, buffers, uuids_out, tail_links_out)
            except OSError:
                pass  # an I/O error mid-read: the session is there, its metadata is not
    project = project_path_of(path, projects_dir)
    where = meta._replace(
        session_id=session_id, transcript_path=path, project_path=project, mtime=st.st_mtime, size=st.st_size
    )
    return SessionInfo(*where, harness=DEFAULT_HARNESS)


def project_path_of(path: str, projects_dir: str) -> str:
    """The folder of ``path`` relative to ``projects_dir`` ("." for the dir itself)."""
    folder = os.path.dirname(path)
    if not projects_dir:
        return ""
    if folder == projects_dir:
        return "."
    if folder.startswith(projects_dir + os.sep):
        return folder[len(projects_dir) + 1 :]  # the walk's own paths: no syscalls needed
    return os.path.relpath(folder, projects_dir)


def scan_sessions(
    projects_dir: str,
    project: Optional[str] = None,
    accept: Optional[Callable[[str], bool]] = None,
    summaries: bool = True,
    render: Optional[Callable[[SessionInfo], Any]] = None,
) -> ScanResult:
    """Every session under ``projects_dir`` (only ``project``'s folder when given),
    oldest first by mtime. ``accept(session_id)`` may narrow the set before any file is
    opened. A missing store is an empty one. With ``summaries``, a session no custom or
    AI title names is titled by a summary in any listed head that names one of its
    messages (``store.summary_index``); without, as each file alone says. ``render``
    (a plain function whose results ``marshal`` can carry, such as a line of text) fills
    ``ScanResult.rendered``; a session the summary index retitles is rendered again."""
    root = catalog.store_root(projects_dir, project)
    skipped: List[str] = []
    if not root or not os.path.isdir(root):
        return ScanResult([], skipped, [] if render is not None else None)
    paths = [
        path
        for path in catalog.iter_candidate_paths(root, skipped)
        if accept is None or accept(catalog.session_id_of(os.path.basename(path)))
    ]
    buffers = read_buffers()

    def describe(path: str) -> Optional[Tuple[Any, ...]]:
        found: Optional[List[bytes]] = [] if summaries else None
        links: Optional[List[SummaryLink]] = [] if summaries else None
        info = session_from_path(path, projects_dir, buffers, found, links)
        if info is None:
            return None
        plain = _plain_session(info, found[0] if found else b"")
        tail = tuple((link.summary, link.leaf_uuid) for link in links) if links else ()
        return (plain, None, tail) if render is None else (plain, render(info), tail)

    sessions = []
    packed: List[bytes] = []  # per listed session: its tail window's uuids
    texts: List[Any] = []  # per listed session: what render made of it
    tail_links: List[Tuple[Tuple[str, str], ...]] = []  # per listed session: its tail's summary links
    described = parallel.map_shared(describe, paths, [1] * len(paths), PARALLEL_MIN_SESSIONS)
    for item in described:
        if item is not None:
            info, uuids = _session_of_plain(item[0])
            sessions.append(info)
            packed.append(uuids)
            texts.append(item[1])
            tail_links.append(item[2])
    if summaries:
        titled = apply_summary_index(sessions, packed, tail_links)
        if render is not None:
            texts = [text if new is old else render(new) for text, old, new in zip(texts, sessions, titled)]
        sessions = titled
    order = sorted(range(len(sessions)), key=lambda number: sessions[number].mtime)
    return ScanResult(
        [sessions[number] for number in order],
        skipped,
        [texts[number] for number in order] if render is not None else None,
    )


def _plain_session(info: SessionInfo, uuids: bytes) -> Tuple[Any, ...]:
    """A described session as plain tuples (what a helper process can send back)."""
    links = tuple((link.summary, link.leaf_uuid) for link in info.summary_links)
    return tuple(info._replace(summary_links=links)) + (uuids,)  # type: ignore[arg-type]


def _session_of_plain(plain: Tuple[Any, ...]) -> Tuple[SessionInfo, bytes]:
    """``_plain_session`` undone: (the session, its tail window's packed uuids)."""
    info = SessionInfo(*plain[:-1])
    if not info.summary_links:  # most heads hold none: no second tuple to build
        return info, plain[-1]
    links = tuple(SummaryLink(text, leaf) for text, leaf in info.summary_links)
    return info._replace(summary_links=links), plain[-1]


def apply_summary_index(
    sessions: List[SessionInfo], packed: List[bytes], tail_links: Optional[List[Tuple[Tuple[str, str], ...]]] = None
) -> List[SessionInfo]:
    """``sessions`` retitled by the summary index of their heads and tails: a session
    one of whose tail window's uuids (``packed``, one entry each) a summary names takes
    that summary as its title. ``tail_links``: each session's tail window's summary
    links ((summary, leaf) pairs in file order), written after its head's."""
    index = _summaries.index_sessions(sessions, tail_links)
    if not len(index):
        return sessions
    titled = list(sessions)
    for number, uuids in enumerate(packed):
        if not uuids:
            continue  # titled by a custom or AI title, or a tail naming no message
        info = titled[number]
        title = _summaries.apply_to_title(Title(info.title, info.title_source), uuids, index)
        if title.source != info.title_source:
            titled[number] = info._replace(title=title.text, title_source=title.source)
    return titled


def describe_resolved(resolved: catalog.Resolved, projects_dir: str) -> Tuple[SessionInfo, Tuple[str, ...]]:
    """The Claude Code session ``catalog.resolve`` found, described (head and tail), and
    the paths of its other copies. A copy that vanished or stopped being a regular file
    since the walk gives way to the next best one (``SessionIdNotFound`` when none is
    left)."""
    ranked = (resolved.path,) + resolved.copies
    for number, path in enumerate(ranked):
        info = session_from_path(path, projects_dir)
        if info is not None:
            return info, ranked[:number] + ranked[number + 1 :]
    raise SessionIdNotFound(resolved.session_id)
