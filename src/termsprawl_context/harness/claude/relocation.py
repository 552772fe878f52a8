"""Where a resumed session's record really is: Claude Code reports a path under the new
directory's project folder and keeps appending to the original."""

import os
from typing import Optional, Tuple

from termsprawl_context.harness.claude.belongs import carries_session
from termsprawl_context.harness.claude.facts import AGENT_FILE_PREFIX, SUBAGENTS_DIR, TRANSCRIPT_SUFFIX
from termsprawl_context.harness.claude.hooks import SOURCE_STARTUP
from termsprawl_context.transcript.record import same_file


def _split_under_projects(projects: str, path: str) -> Optional[Tuple[str, str, Tuple[str, ...]]]:
    """``(projects root as spelled in path, project folder name, tail parts)`` when
    ``path`` lies under ``projects``; the root is climbed to from ``path``'s own
    ancestors, so a symlinked or differently spelled ``projects`` still matches."""
    parts = []
    current = path
    while True:
        parent, name = os.path.split(current)
        if parent == current or not name:
            return None
        parts.append(name)
        current = parent
        if same_file(current, projects):
            break
    parts.reverse()
    if len(parts) < 2:
        return None
    return current, parts[0], tuple(parts[1:])


def _session_of_tail(tail: Tuple[str, ...]) -> str:
    """The session id a record's place in a project folder names, or "".

    ``<id>.jsonl`` is a session's record; ``<id>/subagents/[...]/agent-<a>.jsonl`` is a
    sub-agent's, which nests under its session and so moves with it."""
    last = tail[-1]
    if not last.endswith(TRANSCRIPT_SUFFIX):
        return ""
    if len(tail) == 1:
        return last[: -len(TRANSCRIPT_SUFFIX)]
    if len(tail) >= 3 and tail[1] == SUBAGENTS_DIR and last.startswith(AGENT_FILE_PREFIX):
        return tail[0]
    return ""


def relocate_record(projects: str, path: str, source: Optional[str] = None) -> str:
    """Where the record the harness reported at ``path`` really is; usually ``path``.

    ``projects`` is the harness's projects directory (``<config dir>/projects``). When a
    session is resumed from another directory, Claude Code reports ``transcript_path``
    under the new directory's project folder, where no file exists, while it keeps
    appending to the original. So a missing ``path`` is looked for at the same place
    under every other project folder, in name order, and the first regular file one of
    whose records carries the session id is taken. ``path`` is returned unchanged when
    it exists, when ``source`` is ``startup`` (a fresh session's record is not written
    yet), when it does not lie under ``projects``, or when nothing matches. Costs one
    stat unless the path is missing."""
    if not projects or not path or source == SOURCE_STARTUP:
        # A fresh session's record does not exist yet: looking elsewhere for it could
        # only find another project's file of the same name.
        return path
    try:
        os.stat(path)
        return path
    except (OSError, ValueError):
        pass
    clean = os.path.normpath(os.path.abspath(path))
    split = _split_under_projects(projects, clean)
    if split is None:
        return path
    root, own_folder, tail = split
    session_id = _session_of_tail(tail)
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
