"""A session's scope: which records each pool is searched in (the root's for the
user's words, the root's tree for tool output), and a project's sessions in the order
``--across`` tries them."""

from __future__ import annotations

import os
from collections import namedtuple

from termsprawl_context.cite.matching import file_may_contain
from termsprawl_context.cite.pools import SOURCE_TOOL_RESULT, SOURCE_USER
from termsprawl_context.errors import NoSessionRoot, NotFound, os_reason
from termsprawl_context.cite.search import search_into
from termsprawl_context.cite.transcripts import PROVIDER
from termsprawl_context.cite.values import Hits
from termsprawl_context.errors import Refusal
from termsprawl_context.transcript.record import same_file

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import List, Optional, Sequence

    from termsprawl_context.cite.values import Match


# Where each pool is searched: the root record for the user's words ("" when a
# sub-agent's root is not found), and the root's (or orphan's) tree for tool output.
SessionRecords = namedtuple("SessionRecords", "user_in tool_in")


def citation_records(path: str, subagent: bool = False) -> SessionRecords:
    user_in = PROVIDER.session_root(path)
    if subagent and same_file(user_in, path):
        user_in = ""
    top = user_in or path
    return SessionRecords(user_in, [top] + (PROVIDER.subagent_tree(top) or []))


def session_hits(path: str, quote: str, sources: Sequence[str] = (), subagent: bool = False) -> Hits:
    sources = list(sources) or [SOURCE_USER]
    records = citation_records(path, subagent)
    hits = Hits()
    if SOURCE_USER in sources:
        if not records.user_in:
            raise NoSessionRoot()
        search_into(records.user_in, quote, [SOURCE_USER], hits)
    if SOURCE_TOOL_RESULT in sources:
        own = Hits()
        search_into(path, quote, [SOURCE_TOOL_RESULT], own)
        if own:
            hits.extend(own)
        else:
            for other in records.tool_in:
                if not same_file(other, path):
                    search_into(other, quote, [SOURCE_TOOL_RESULT], hits)
    order = {p: i for i, p in reversed(list(enumerate(records.tool_in)))}
    return hits.sorted_by(order)


def cite_in_session(path: str, quote: str, sources: Sequence[str] = (), subagent: bool = False) -> List[Match]:
    """Matches of ``quote`` in the session: the user pool in the root record only
    (NoSessionRoot when a sub-agent's root is gone); the tool pool in the caller's own
    record, and only when that holds none in the root's whole tree. Tree order, then line."""
    return list(session_hits(path, quote, sources, subagent))


def session_may_contain(path: str, needle: Optional[bytes], buffer: Optional[bytearray] = None) -> bool:
    """Whether any record the session search from ``path`` reads may hold the needle."""
    if needle is None:
        return True
    try:
        files = [path] + PROVIDER.session_transcripts(path)
    except Refusal:
        return True
    unique = {os.path.normpath(name): name for name in reversed(files)}  # each file once, by its first name
    return any(file_may_contain(name, needle, buffer) for name in unique.values())


def session_candidates(current: str, project_dir: str) -> List[str]:
    """The current record, then the project's other ``*.jsonl`` files newest first
    (modification time; ties by path)."""
    candidates = [current] if current else []
    try:
        names = os.listdir(project_dir)
    except FileNotFoundError:  # "" too: no project directory, the current record alone
        return candidates
    except OSError as exc:
        raise NotFound("transcript: list sessions in %s: %s" % (project_dir, os_reason(exc))) from None
    others = []
    for name in names:
        if not name.endswith(PROVIDER.transcript_suffix):
            continue
        full = os.path.join(project_dir, name)
        if current and os.path.normpath(full) == os.path.normpath(current):
            continue
        try:
            st = os.stat(full)
        except OSError:
            continue
        if os.path.isdir(full):
            continue
        others.append((-st.st_mtime_ns, full))
    others.sort()
    return candidates + [full for _, full in others]
