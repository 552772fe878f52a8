"""One session's title by the listing's rule, wherever a session is named.

``sessions`` titles every session in one pass (the summary index built from every
head it reads). A command naming one session (``find --json``, ``show``, the hand-off's
headers) calls ``session_title``: the session is described as the listing describes
it, and the summaries that may name it are those in the heads of its own project
folder (where the harness writes them), so naming one session reads that folder's
heads, never the whole store and never any file whole.
"""

import os
from typing import List, Optional

from termsprawl_context.bytescan import Needles
from termsprawl_context.jsonl import open_regular
from termsprawl_context.store import session_meta
from termsprawl_context.store import sessions as store_sessions
from termsprawl_context.store.summary_index import SummaryIndex, apply_to_title
from termsprawl_context.transcript.titles import NO_TITLE, Title

# A head line can be a summary only if bytescan finds its type's token there.
_SUMMARY_LINES = Needles.of([b'"summary"'])


def head_summary_links(path: str) -> List[session_meta.SummaryLink]:
    """The seed's summary links in the head of the file at ``path``, then those of its
    tail window (as the listing indexes them; [] when it cannot be read as a regular
    file)."""
    try:
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            window = session_meta.read_head(f, size)
            lines = [line for line in window.lines() if _SUMMARY_LINES.in_line(line)]
            links = list(session_meta.extract_metadata_from_lines(lines).summary_links)
            return links + session_meta.tail_links_past_head(f, size)
    except OSError:
        return []


def folder_index(folder: str) -> SummaryIndex:
    """The summary index of the heads of the session files directly in ``folder``."""
    index = SummaryIndex()
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return index
    for name in names:
        if not store_sessions.is_session_file_name(name):
            continue
        path = os.path.join(folder, name)
        try:
            mtime = os.stat(path).st_mtime
        except OSError:
            continue
        index.add_file(path, mtime, head_summary_links(path))
    return index


def session_title(path: str, session_id: str = "", index: Optional[SummaryIndex] = None) -> Title:
    """The title of the session whose transcript is at ``path`` and its source (a
    ``Title(text, source)``; ``NO_TITLE`` when the file cannot be read), by the rule
    ``sessions`` lists it with. ``session_id`` defaults to the file's stem; ``index``
    to the summaries of the file's own folder."""
    if not session_id:
        session_id = store_sessions.session_id_of(os.path.basename(path))
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
    if index is None:
        index = folder_index(os.path.dirname(path))
    return apply_to_title(title, uuids_out[0], index)


def with_session_title(
    info: store_sessions.SessionInfo, index: Optional[SummaryIndex] = None
) -> store_sessions.SessionInfo:
    """``info`` (one session, described alone) titled as ``sessions`` would title it."""
    title = session_title(info.transcript_path, info.session_id, index)
    if not title.source:
        return info
    return info._replace(title=title.text, title_source=title.source)
