"""Whose record is this file: belongs-to checks, and finding a resumed session's real record.

A file is asked, not trusted to match its name: records that carry a ``sessionId`` say
which session wrote them. Two readings of that evidence, on purpose:

- ``belongs_to_session`` guards a path someone GAVE us. It refuses only on positive
  disagreement (some record names another session and none names this one); a file
  naming no session, or one that cannot be read, is let through, so a harness that stops
  writing the field does not turn every session into a refusal.
- ``relocate_record`` GUESSES a path, so it takes a file only on positive agreement (at
  least one record carries the id): a coincidental name must never hand back another
  conversation.

Both scan the whole file (containment, not first record: a resumed conversation may
carry hundreds of an older session's records before its own), streaming line by line.
"""

import os
from typing import NamedTuple, Optional, Tuple

from termsprawl_context.errors import Refusal
from termsprawl_context.jsonl import iter_lines, open_regular, parse_object

SESSION_ID_FIELD = "sessionId"
TRANSCRIPT_SUFFIX = ".jsonl"
SUBAGENT_DIR = "subagents"
SUBAGENT_PREFIX = "agent-"
# A fresh session's record does not exist yet when SessionStart fires with this source;
# looking elsewhere for it could only find another project's file of the same name.
STARTUP_SOURCE = "startup"

_FIELD_BYTES = SESSION_ID_FIELD.encode("ascii")


class WrongSession(Refusal):
    """The transcript at a path names another session and never this one."""

    def __init__(self, path: str, found: str, session_id: str) -> None:
        super().__init__(
            "the transcript at that path belongs to another session: %s says it belongs to %s, not %s"
            % (path, found, session_id)
        )
        self.path = path
        self.found = found
        self.session_id = session_id


class SessionEvidence(NamedTuple):
    """What a file's records say about one session id."""

    readable: bool  # False: it could not be opened or read to the end
    carries: bool  # some record's sessionId is the id asked about
    first_foreign: Optional[str]  # the first other non-empty sessionId seen, if any


def session_evidence(path: str, session_id: str) -> SessionEvidence:
    """Scan ``path`` until a record carries ``session_id`` (or the end).

    Records with no, an empty or a non-string ``sessionId`` are skipped, never decisive."""
    first_foreign = None  # type: Optional[str]
    try:
        f = open_regular(path)
    except OSError:
        return SessionEvidence(False, False, None)
    try:
        with f:
            for line in iter_lines(f):
                # A line that cannot hold the key, not even JSON-escaped, costs no parse.
                if _FIELD_BYTES not in line.raw and b"\\u" not in line.raw:
                    continue
                record = parse_object(line.raw)
                found = record.get(SESSION_ID_FIELD) if record is not None else None
                if not isinstance(found, str) or not found:
                    continue
                if found == session_id:
                    return SessionEvidence(True, True, first_foreign)
                if first_foreign is None:
                    first_foreign = found
    except OSError:
        return SessionEvidence(False, False, first_foreign)
    return SessionEvidence(True, False, first_foreign)


def belongs_to_session(path: str, session_id: str) -> bool:
    """True unless the file's records positively name another session and never this one.

    An empty ``session_id``, a file naming no session, and an unreadable or missing file
    (left to whoever reads it properly to report) all answer True."""
    if not session_id:
        return True
    evidence = session_evidence(path, session_id)
    return not evidence.readable or evidence.carries or evidence.first_foreign is None


def check_belongs_to_session(path: str, session_id: str) -> None:
    """``belongs_to_session`` for callers that refuse: raises WrongSession naming the
    first foreign id found."""
    if not session_id:
        return
    evidence = session_evidence(path, session_id)
    if evidence.readable and not evidence.carries and evidence.first_foreign is not None:
        raise WrongSession(path, evidence.first_foreign, session_id)


def carries_session(path: str, session_id: str) -> bool:
    """True only when some record of the readable regular file at ``path`` carries
    ``session_id``: the positive reading a guessed path needs."""
    return bool(session_id) and session_evidence(path, session_id).carries


def _same_directory(a: str, b: str) -> bool:
    """Both name one existing directory, whatever symlinks or spellings lead there."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


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
        if _same_directory(current, projects):
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
    if len(tail) >= 3 and tail[1] == SUBAGENT_DIR and last.startswith(SUBAGENT_PREFIX):
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
    if not projects or not path or source == STARTUP_SOURCE:
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
