"""Claude Code's sessions described from their head and tail (``session_scan``), the whole
store at once (``sessions``) or one alone (``find --json``, ``show``, ``search``'s hits, the
hand-off's headers). A session no custom or AI title names is titled by a summary naming one
of its messages (``summary_index``): the listing indexes every head and tail it reads; one
session alone, those of its own project folder whose bytes may name one of its messages (never
the whole store nor any file whole).
"""

import os
import re
from typing import Any, Callable, FrozenSet, Iterable, List, NamedTuple, Optional, Tuple

from termsprawl_context import model
from termsprawl_context.byte_windows import HeadWindow, ReadBuffers, TailWindow
from termsprawl_context.bytescan import has_ascii_escape
from termsprawl_context.errors import NotARegularFile
from termsprawl_context.harness.base import regular_stat
from termsprawl_context.harness.claude import HARNESS
from termsprawl_context.harness.claude import session_scan
from termsprawl_context.harness.claude.facts import TRANSCRIPT_SUFFIX
from termsprawl_context.harness.claude.summary_index import SummaryIndex, apply_to_title, index_sessions
from termsprawl_context.jsonl import open_regular
from termsprawl_context.model import SessionInfo, SummaryLink
from termsprawl_context.transcript.titles import Title


# --- one session described ---------------------------------------------------------------


def session_from_path(
    path: str,
    projects_dir: str,
    buffers: Optional[ReadBuffers] = None,
    uuids_out: Optional[List[bytes]] = None,
    tail_links_out: Optional[List[SummaryLink]] = None,
) -> Optional[SessionInfo]:
    """The seed's parseSessionFromPath: None when the name is not a session's or it is no regular
    file; an unreadable one has no metadata, as in the seed (``*_out``: ``read_session_metadata``'s)."""
    name = os.path.basename(path)
    if not HARNESS.is_session_file_name(name):
        return None
    session_id = name[: -len(TRANSCRIPT_SUFFIX)]
    meta = SessionInfo()
    try:
        f = open_regular(path)
    except NotARegularFile:
        return None
    except OSError:
        st = regular_stat(path)  # unreadable, it is listed; gone since it was listed, it is not
        if st is None:
            return None
    else:
        with f:
            st = os.fstat(f.fileno())
            try:
                meta = session_scan.read_session_metadata(f, st.st_size, session_id, buffers, uuids_out, tail_links_out)
            except OSError:
                pass  # an I/O error mid-read: the session is there, its metadata is not
    return meta._replace(
        session_id=session_id,
        transcript_path=path,
        project_path=project_path_of(path, projects_dir),
        mtime=st.st_mtime,
        size=st.st_size,
        harness=HARNESS.name,
    )


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


def describe_alone(
    path: str,
    mtime: float = 0.0,
    size: int = 0,
    session_id: str = "",
    index: Optional[SummaryIndex] = None,
    folders=None,
) -> SessionInfo:
    """The session at ``path`` titled by the listing's rule (summaries of ``index``, else of its folder)."""
    session_id = session_id or HARNESS.session_id_of(path) or os.path.basename(path)
    uuids_out: List[bytes] = []
    meta = session_scan.session_metadata(path, session_id, uuids_out)
    packed = uuids_out[0] if uuids_out else b""
    if packed:  # else a custom or AI title, or a tail naming no message
        if index is None:
            folder = os.path.dirname(path)
            folders = {} if folders is None else folders
            if folder not in folders:
                folders[folder] = folder_files(folder)
            index = index_naming(folders[folder], packed)
        title = apply_to_title(Title(meta.title, meta.title_source), packed, index)
        meta = meta._replace(title=title.text, title_source=title.source)
    return meta._replace(session_id=session_id, transcript_path=path, mtime=mtime, size=size, harness=HARNESS.name)


# --- one folder's summaries --------------------------------------------------------------

# A summary's link as the harness writes it: the key, then its string value's bytes up to
# the next quote (a value holding an escape shows a backslash there).
_LEAF_KEY = b'"' + model.FIELD_LEAF_UUID.encode("ascii") + b'"'
_LEAF_VALUE = re.compile(re.escape(_LEAF_KEY) + rb'\s*:\s*"([^"]*)"')


def _windows(path: str) -> Tuple[HeadWindow, TailWindow, int]:
    """``(head, tail, where the tail's lines past the head begin)`` of ``path``; OSError when unreadable."""
    with open_regular(path) as f:
        size = os.fstat(f.fileno()).st_size
        head = session_scan.read_head(f, size)
        return (head,) + session_scan.read_tail_past(f, size, head)


def head_summary_links(path: str) -> List[SummaryLink]:
    """The summary links of the head of ``path``, then of its tail window's lines past the head ([] unreadable)."""
    scanner = session_scan.scanner
    try:
        head, tail, begin = _windows(path)
    except OSError:
        return []
    return list(scanner.head(head, "").summary_links + scanner.tail(tail, "", begin, None).summary_links)


class FileLeaves(NamedTuple):
    """A session file and the ``leafUuid`` values its head and tail bytes show (None: an escape hides them)."""

    path: str
    mtime: float
    leaves: Optional[FrozenSet[bytes]]


def file_leaves(path: str, mtime: float) -> FileLeaves:
    """The ``leafUuid`` values in the bytes ``head_summary_links`` parses (a superset), no line parsed."""
    try:
        head, tail, _begin = _windows(path)
    except OSError:
        return FileLeaves(path, mtime, frozenset())
    found: List[bytes] = []
    for data, start, end in ((head.data, 0, head.ends[-1] if head.ends else 0), (tail.data, tail.start, tail.stop())):
        if has_ascii_escape(data, start, end):
            return FileLeaves(path, mtime, None)
        at = data.find(_LEAF_KEY, start, end)  # a literal find runs at memory speed; the regex only where it is
        while at >= 0:
            value = _LEAF_VALUE.match(data, at, end)
            if value is not None:
                found.append(value.group(1))
            at = data.find(_LEAF_KEY, at + 1, end)
    if any(b"\\" in leaf for leaf in found):
        return FileLeaves(path, mtime, None)
    return FileLeaves(path, mtime, frozenset(found))


def folder_files(folder: str) -> List[FileLeaves]:
    """``file_leaves`` of each session file directly in ``folder``, in name order."""
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda entry: entry.name)
    except OSError:
        return []
    found = []
    for entry in entries:
        if HARNESS.is_session_file_name(entry.name):
            try:
                mtime = entry.stat().st_mtime
            except OSError:
                continue
            found.append(file_leaves(entry.path, mtime))
    return found


def index_naming(files: List[FileLeaves], packed: bytes) -> SummaryIndex:
    """The summary index of those ``files`` that may name one of the ``packed`` uuids (as good as all)."""
    own = frozenset(packed.split(b"\n"))
    index = SummaryIndex()
    for item in files:
        if item.leaves is None or not own.isdisjoint(item.leaves):
            index.add_file(item.path, item.mtime, head_summary_links(item.path))
    return index


# --- the whole store ---------------------------------------------------------------------

_Row = Tuple[Any, ...]  # one session as plain data, what a helper process can send back


def describe_store(
    paths: List[str],
    projects_dir: str,
    render: Optional[Callable[[SessionInfo], Any]] = None,
    summaries: bool = True,
    map_items: Optional[Callable[[Callable[[str], Optional[_Row]], List[str]], List[Optional[_Row]]]] = None,
) -> Tuple[List[SessionInfo], List[Any]]:
    """The sessions at ``paths`` described, oldest first, and ``render`` of each ([] without one), made
    where it was described (``marshal``-able), so a listing shared between processes (``map_items``)
    shares its rendering. With ``summaries``, retitled by any listed summary naming one of the uuids
    of its tail window."""
    buffers = session_scan.read_buffers()

    def row(path: str) -> Optional[_Row]:
        """(the session with its links as pairs, its tail's packed uuids, its rendering, its tail's links)."""
        found: Optional[List[bytes]] = [] if summaries else None
        links: Optional[List[SummaryLink]] = [] if summaries else None
        info = session_from_path(path, projects_dir, buffers, found, links)
        if info is None:
            return None
        plain = tuple(info._replace(summary_links=_pairs(info.summary_links)))
        return (plain, found[0] if found else b"", None if render is None else render(info), _pairs(links or ()))

    mapped = map_items(row, paths) if map_items is not None else map(row, paths)
    rows = [item for item in mapped if item is not None]
    sessions = [_session_of_plain(item[0]) for item in rows]
    texts = [item[2] for item in rows]
    index = index_sessions(sessions, [item[3] for item in rows]) if summaries else SummaryIndex()
    for number, item in enumerate(rows if len(index) else ()):
        info = sessions[number]
        title = apply_to_title(Title(info.title, info.title_source), item[1], index)
        if title.source != info.title_source:
            sessions[number] = info._replace(title=title.text, title_source=title.source)
            texts[number] = render(sessions[number]) if render is not None else None
    ordered = sorted(zip(sessions, texts), key=lambda pair: pair[0].mtime)
    return [info for info, _text in ordered], [text for _info, text in ordered] if render is not None else []


def _pairs(links: Iterable[SummaryLink]) -> Tuple[Tuple[str, str], ...]:
    return tuple((link.summary, link.leaf_uuid) for link in links)


def _session_of_plain(plain: _Row) -> SessionInfo:
    """A row's session, its links ``SummaryLink`` again."""
    info = SessionInfo(*plain)
    if not info.summary_links:  # most heads hold none: no second tuple to build
        return info
    return info._replace(summary_links=tuple(SummaryLink(text, leaf) for text, leaf in info.summary_links))
