"""Where a resumed session's record really is: Claude Code reports a path under the new
directory's project folder and keeps appending to the original."""

import os
from typing import List, Optional

from termsprawl_context.harness.claude.belongs import carries_session
from termsprawl_context.harness.claude.facts import AGENT_FILE_PREFIX, SUBAGENTS_DIR, TRANSCRIPT_SUFFIX
from termsprawl_context.harness.claude.hooks import SOURCE_STARTUP
from termsprawl_context.transcript.record import same_file


def _session_of_tail(tail: List[str]) -> str:
    """The session id a record's place names (``<id>.jsonl``, ``<id>/subagents/[...]/agent-*.jsonl``), or ""."""
    last = tail[-1]
    if not last.endswith(TRANSCRIPT_SUFFIX):
        return ""
    if len(tail) == 1:
        return last[: -len(TRANSCRIPT_SUFFIX)]
    if len(tail) >= 3 and tail[1] == SUBAGENTS_DIR and last.startswith(AGENT_FILE_PREFIX):
        return tail[0]
    return ""


def relocate_record(projects: str, path: str, source: Optional[str] = None) -> str:
    """Where the record reported at ``path`` really is, usually ``path``: a missing one is looked
    for at the same place under every other project folder of ``projects``, in name order,
    the first file carrying the session id taken. Costs one stat unless it is missing."""
    if not projects or not path or source == SOURCE_STARTUP:
        # A fresh session's record does not exist yet: looking elsewhere for it could
        # only find another project's file of the same name.
        return path
    if os.path.exists(path):
        return path
    parts = []  # type: List[str]
    root = os.path.normpath(os.path.abspath(path))
    while True:  # climbed to ``projects`` from the path, so another spelling of it still matches
        root, name = os.path.split(root)
        if not name:
            return path
        parts.insert(0, name)
        if same_file(root, projects):
            break
    own_folder, tail = parts[0], parts[1:]
    session_id = _session_of_tail(tail) if tail else ""
    if not session_id:
        return path
    try:
        with os.scandir(root) as entries:
            folders = sorted(e.name for e in entries if e.is_dir(follow_symlinks=False))
    except OSError:
        return path
    for folder in folders:
        if folder == own_folder:
            continue
        candidate = os.path.join(root, folder, *tail)
        if carries_session(candidate, session_id):
            return candidate
    return path
