"""Whose record is this file: the belongs-to checks, by session and by working tree, and where
a resumed session's record really is. A file is asked, not trusted to match its name: records
that carry a ``sessionId`` say which session wrote them, read two ways on purpose.
``belongs_to_session`` guards a path someone GAVE us: it refuses only on positive disagreement
(some record names another session, none this one), so a harness that stops writing the field
does not turn every session into a refusal. ``carries_session`` is for a path we GUESS
(``relocate_record``): it takes a file only when a record carries the id, so a coincidental
name never hands back another conversation. Both stream the whole file: a resumed
conversation may carry hundreds of an older session's records before its own.
"""

import functools
import os
from typing import Callable, List, Mapping, NamedTuple, Optional  # noqa: F401 (also used in type comments, which ruff does not read)

from termsprawl_context.errors import RecordUnreadable, WrongRecord
from termsprawl_context.harness.base import resolve_dir, under
from termsprawl_context.harness.claude import facts as claude_facts
from termsprawl_context.model import decode_entry
from termsprawl_context.transcript.record import decode_line, iter_raw_lines, iter_records, same_file


class Evidence(NamedTuple):
    """What a file's records say about one value of a field (a session id, a tree)."""

    readable: bool  # False: it could not be opened or read to the end
    carries: bool  # some record's value is the one asked about
    first_foreign: Optional[str]  # the first other non-empty value seen before that, if any


def _evidence(path: str, field: str, matches: Callable[[str], bool]) -> Evidence:
    """Scan ``path`` until a record's ``Entry`` attribute ``field`` ``matches``; records without
    a value never decide."""
    first_foreign = None  # type: Optional[str]
    try:
        for line in iter_raw_lines(path):
            entry = decode_entry(decode_line(line.raw))  # None for a line that is no record
            found = getattr(entry, field) if entry is not None else ""
            if found and matches(found):
                return Evidence(True, True, first_foreign)
            if found and first_foreign is None:
                first_foreign = found
    except RecordUnreadable:
        return Evidence(False, False, first_foreign)
    return Evidence(True, False, first_foreign)


def session_evidence(path: str, session_id: str) -> Evidence:
    return _evidence(path, "session_id", lambda found: found == session_id)


def _foreign(evidence_of: Callable[[str, str], Evidence], path: str, value: str) -> Optional[str]:
    """The first foreign value when ``path``'s records disagree with a non-empty ``value``, else
    None: only a positive disagreement counts, never an absence of evidence."""
    evidence = evidence_of(path, value) if value else None
    if evidence is None or not evidence.readable or evidence.carries:
        return None
    return evidence.first_foreign


def belongs_to_session(path: str, session_id: str) -> bool:
    """True unless the file's records name another session and never this one."""
    return _foreign(session_evidence, path, session_id) is None


def check_belongs_to_session(path: str, session_id: str) -> None:
    """``belongs_to_session`` as a WrongRecord naming the first foreign id."""
    foreign = _foreign(session_evidence, path, session_id)
    if foreign is not None:
        raise WrongRecord.session(path, foreign, session_id)


def carries_session(path: str, session_id: str) -> bool:
    """True only when some record of the regular file at ``path`` carries ``session_id``."""
    return bool(session_id) and session_evidence(path, session_id).carries


# --- the tree a record was written in ----------------------------------------------------------


def _tree_evidence(path: str, cwd: str) -> Evidence:
    """Whether some record's resolved cwd is ``cwd`` or beneath it (``base.under``)."""
    want = resolve_dir(cwd)
    resolved = functools.lru_cache(maxsize=None)(resolve_dir)  # a file repeats its few directories
    return _evidence(path, "cwd", lambda found: under(resolved(found), want))


def belongs_to_tree(path: str, cwd: str) -> bool:
    """True unless the file's records name working directories and none is ``cwd`` or beneath it (compared resolved)."""
    return _foreign(_tree_evidence, path, cwd) is None


def check_belongs_to_tree(path: str, cwd: str) -> None:
    """``belongs_to_tree`` as a WrongRecord naming the first directory its records give."""
    foreign = _foreign(_tree_evidence, path, cwd)
    if foreign is not None:
        raise WrongRecord.tree(path, foreign, cwd)


def start_cwd(path: str) -> str:
    """The first non-empty ``cwd`` its records give, or ""; RecordUnreadable when unreadable."""
    for line, record in iter_records(path):
        entry = decode_entry(record)
        if entry is not None and entry.cwd:
            return entry.cwd
    return ""


# --- the running session's own record ---------------------------------------------------------


def current_session_path(environ: Optional[Mapping[str, str]] = None, cwd: str = "") -> str:
    """The current session's own transcript, or "": ``facts.current_session_path``'s candidate
    whose records do not name another session and, when found by directory, were written
    in or beneath it; else ``$TERMSPRAWL_TRANSCRIPT`` (a hook-started tool's record)."""
    return claude_facts.current_session_path(
        environ,
        cwd,
        lambda path, session_id, tree: belongs_to_session(path, session_id) and belongs_to_tree(path, tree),
    )


# --- where a resumed session's record really is ----------------------------------------------
# Claude Code reports a path under the new directory's project folder and keeps appending
# to the original.


def _session_of_tail(tail: List[str]) -> str:
    """The session id a record's place names (``<id>.jsonl``, ``<id>/subagents/[...]/agent-*.jsonl``), or ""."""
    last = tail[-1]
    if not last.endswith(claude_facts.TRANSCRIPT_SUFFIX):
        return ""
    if len(tail) == 1:
        return last[: -len(claude_facts.TRANSCRIPT_SUFFIX)]
    if len(tail) >= 3 and tail[1] == claude_facts.SUBAGENTS_DIR and last.startswith(claude_facts.AGENT_FILE_PREFIX):
        return tail[0]
    return ""


def relocate_record(projects: str, path: str, source: Optional[str] = None) -> str:
    """Where the record reported at ``path`` really is, usually ``path``: a missing one is looked
    for at the same place under every other project folder of ``projects``, in name order,
    the first file carrying the session id taken. Costs one stat unless it is missing."""
    if not projects or not path or source == claude_facts.SOURCE_STARTUP:
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
