"""The catalog's title rule: one session's title, wherever a session is named.

``sessions`` titles every session in one pass (the summary index built from every head
it reads, ``sessions.apply_summary_index``). Every command naming one session (``find
--json``, ``show``, ``search``'s hits, the hand-off's headers) titles it here by the same
rule: the session is described as the listing describes it, and the summaries that may
name it are those in the heads and tails of its own project folder (where the harness
writes them), so titling one session reads that folder's heads, never the whole store
and never any file whole. Another harness's session is titled by its first typed prompt
(``Harness.describe``).
"""

import os
import re
from typing import Callable, Dict, FrozenSet, List, NamedTuple, Optional, Tuple

from termsprawl_context.bytescan import has_ascii_escape
from termsprawl_context import model
from termsprawl_context.jsonl import open_regular
from termsprawl_context.store import session_meta
from termsprawl_context import harness as harnesses
from termsprawl_context.harness import DEFAULT_HARNESS
from termsprawl_context.store.catalog import is_session_file_name, list_directory, stem_of
from termsprawl_context.store.summary_index import SummaryIndex, apply_to_title
from termsprawl_context.transcript.titles import NO_TITLE, Title


# A summary's link as the harness writes it: the key, then its string value's bytes up to
# the next quote (a value holding an escape shows a backslash there).
_LEAF_KEY = b'"' + model.FIELD_LEAF_UUID.encode("ascii") + b'"'
_LEAF_VALUE = re.compile(re.escape(_LEAF_KEY) + rb'\s*:\s*"([^"]*)"')


def head_summary_links(path: str) -> List[session_meta.SummaryLink]:
    """The seed's summary links in the head of the file at ``path``, then those of its
    tail window (as the listing indexes them; [] when it cannot be read as a regular
    file)."""
    try:
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            window = session_meta.read_head(f, size)
            lines = [window.line(i) for i in range(len(window.ends))]
            links = list(session_meta.extract_metadata_from_lines(lines).summary_links)
            return links + session_meta.tail_links_past_head(f, size, window)
    except OSError:
        return []


class FileLeaves(NamedTuple):
    """One session file of a folder, and the ``leafUuid`` values its head and tail
    windows' bytes show (None: an escape hides what they say, so it is parsed)."""

    path: str
    mtime: float
    leaves: Optional[FrozenSet[bytes]]


def file_leaves(path: str, mtime: float) -> FileLeaves:
    """The ``leafUuid`` values in the bytes of the windows ``head_summary_links`` parses
    (a superset of the links it finds: a key or value spelled with an escape makes it
    None), found without splitting or parsing a line."""
    try:
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            head = session_meta.read_head(f, size)
            tail = session_meta.read_tail_past(f, size, head)
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
        entries = list_directory(folder)
    except OSError:
        return []
    found = []
    for entry in entries:
        if is_session_file_name(entry.name):
            try:
                mtime = entry.stat().st_mtime
            except OSError:
                continue
            found.append(file_leaves(entry.path, mtime))
    return found


def index_naming(files: List[FileLeaves], packed: bytes) -> SummaryIndex:
    """The summary index of those of ``files`` that may name one of the packed uuids
    (``summary_index.pack``): for those uuids it answers as the whole folder's index
    does, since a link in another file names none of them."""
    own = frozenset(packed.split(b"\n"))
    index = SummaryIndex()
    for item in files:
        if item.leaves is None or not own.isdisjoint(item.leaves):
            index.add_file(item.path, item.mtime, head_summary_links(item.path))
    return index


def _title(path: str, session_id: str, harness: str, index_of: Callable[[str, bytes], SummaryIndex]) -> Title:
    provider = harnesses.get(harness)
    if provider is not None and not provider.native_records:
        info = provider.describe(path, session_id=session_id)
        return Title(info.title, info.title_source) if info.title else NO_TITLE
    session_id = session_id or stem_of(path)
    uuids_out: List[bytes] = []
    try:
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            meta = session_meta.read_session_metadata(f, size, session_id, uuids_out=uuids_out)
    except OSError:
        return NO_TITLE
    title = Title(meta.title, meta.title_source)
    if not uuids_out or not uuids_out[0]:
        return title  # a custom or AI title, or a tail naming no message
    return apply_to_title(title, uuids_out[0], index_of(os.path.dirname(path), uuids_out[0]))


def session_title(
    path: str, session_id: str = "", index: Optional[SummaryIndex] = None, harness: str = DEFAULT_HARNESS
) -> Title:
    """The title of the session whose transcript is at ``path`` and its source (a
    ``Title(text, source)``; ``NO_TITLE`` when the file cannot be read), by the rule
    ``sessions`` lists it with. ``session_id`` defaults to the file's stem; ``index``
    to the summaries of the file's own folder; ``harness``: whose transcript it is."""
    if index is not None:
        return _title(path, session_id, harness, lambda _folder, _packed: index)
    return _title(path, session_id, harness, lambda folder, packed: index_naming(folder_files(folder), packed))


class Titles:
    """``session_title`` for sessions named one after another (``search``'s hits): each
    session titled once, each folder's files' leaves read once, when first needed."""

    def __init__(self) -> None:
        self._titles: Dict[Tuple[str, str], str] = {}
        self._folders: Dict[str, List[FileLeaves]] = {}

    def _index_of(self, folder: str, packed: bytes) -> SummaryIndex:
        if folder not in self._folders:
            self._folders[folder] = folder_files(folder)
        return index_naming(self._folders[folder], packed)

    def text(self, path: str, session_id: str = "", harness: str = DEFAULT_HARNESS) -> str:
        """The title's text ("" for an untitled session)."""
        key = (harness, path)
        if key not in self._titles:
            self._titles[key] = _title(path, session_id, harness, self._index_of).text
        return self._titles[key]


def with_session_title(info, index: Optional[SummaryIndex] = None):
    """``info`` (a ``sessions.SessionInfo``, one session described alone) titled as
    ``sessions`` would title it."""
    title = session_title(info.transcript_path, info.session_id, index)
    if not title.source:
        return info
    return info._replace(title=title.text, title_source=title.source)
