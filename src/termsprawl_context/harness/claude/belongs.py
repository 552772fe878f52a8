"""Whose record is this file: the belongs-to checks, by session and by working tree.

A file is asked, not trusted to match its name: records that carry a ``sessionId`` say
which session wrote them. Two readings of that evidence, on purpose:

- ``belongs_to_session`` guards a path someone GAVE us. It refuses only on positive
  disagreement (some record names another session and none names this one); a file
  naming no session, or one that cannot be read, is let through, so a harness that stops
  writing the field does not turn every session into a refusal.
- ``carries_session`` is for a path we GUESS (``relocation``): it takes a file only on
  positive agreement (at least one record carries the id), so a coincidental name never
  hands back another conversation.

Both scan the whole file (containment, not first record: a resumed conversation may
carry hundreds of an older session's records before its own), streaming line by line.
"""

from typing import Dict, Iterator, Mapping, NamedTuple, Optional  # noqa: F401 (also used in type comments, which ruff does not read)

from termsprawl_context.errors import RecordUnreadable, WrongRecord
from termsprawl_context.harness.base import resolve_dir, under
from termsprawl_context.harness.claude import facts as claude_facts
from termsprawl_context.transcript.entry import Entry, decode_entry
from termsprawl_context.transcript.record import decode_line, iter_raw_lines, iter_records


def _decoded(raw: bytes) -> Optional[Entry]:
    """Any record's canonical decoding (uuid or not), or None: the belongs-to checks
    count preamble records too."""
    record = decode_line(raw)
    return decode_entry(record) if record is not None else None


def _values(path: str, field: str) -> Iterator[str]:
    """Each record's non-empty ``field`` (an ``Entry`` attribute), in file order; raises
    RecordUnreadable when the file cannot be read to the end."""
    for line in iter_raw_lines(path):
        entry = _decoded(line.raw)
        value = getattr(entry, field) if entry is not None else ""
        if value:
            yield value


def _disagrees(readable: bool, agrees: bool, first_other: Optional[str]) -> bool:
    """The one belongs-to rule: only a positive disagreement counts (the file was read,
    no record agrees, and some record names another); an absence of evidence never does."""
    return readable and not agrees and first_other is not None


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
        for found in _values(path, "session_id"):
            if found == session_id:
                return SessionEvidence(True, True, first_foreign)
            if first_foreign is None:
                first_foreign = found
    except RecordUnreadable:
        return SessionEvidence(False, False, first_foreign)
    return SessionEvidence(True, False, first_foreign)


def belongs_to_session(path: str, session_id: str) -> bool:
    """True unless the file's records positively name another session and never this one.

    An empty ``session_id``, a file naming no session, and an unreadable or missing file
    (left to whoever reads it properly to report) all answer True."""
    if not session_id:
        return True
    return not _disagrees(*session_evidence(path, session_id))


def check_belongs_to_session(path: str, session_id: str) -> None:
    """``belongs_to_session`` for callers that refuse: raises WrongRecord naming the
    first foreign id found."""
    if not session_id:
        return
    evidence = session_evidence(path, session_id)
    if _disagrees(*evidence):
        raise WrongRecord.session(path, evidence.first_foreign or "", session_id)


def carries_session(path: str, session_id: str) -> bool:
    """True only when some record of the readable regular file at ``path`` carries
    ``session_id``: the positive reading a guessed path needs."""
    return bool(session_id) and session_evidence(path, session_id).carries


# --- the tree a record was written in ----------------------------------------------------------


class TreeEvidence(NamedTuple):
    """What a file's records say about one tree."""

    readable: bool
    inside: bool  # some record's resolved cwd is the tree or beneath it (``base.under``)
    first_cwd: Optional[str]  # the first non-empty cwd seen, as written


def tree_evidence(path: str, cwd: str) -> TreeEvidence:
    """Scan ``path`` until a record's resolved ``cwd`` lies in ``cwd`` (or the end)."""
    want = resolve_dir(cwd)
    resolved = {}  # type: Dict[str, str]
    first_cwd = None  # type: Optional[str]
    try:
        for found in _values(path, "cwd"):
            if first_cwd is None:
                first_cwd = found
            seen = resolved.get(found)
            if seen is None:
                seen = resolved[found] = resolve_dir(found)
            if under(seen, want):
                return TreeEvidence(True, True, first_cwd)
    except RecordUnreadable:
        return TreeEvidence(False, False, first_cwd)
    return TreeEvidence(True, False, first_cwd)


def belongs_to_tree(path: str, cwd: str) -> bool:
    """True unless the file's records name working directories and none is ``cwd`` or
    beneath it (compared resolved, as literal paths). An empty ``cwd``, a file naming
    no directory, and an unreadable file answer True: what is caught is a positive
    disagreement, never an absence of evidence."""
    if not cwd:
        return True
    return not _disagrees(*tree_evidence(path, cwd))


def check_belongs_to_tree(path: str, cwd: str) -> None:
    """``belongs_to_tree`` for callers that refuse: raises WrongRecord naming the first
    directory the file's records give."""
    if not cwd:
        return
    evidence = tree_evidence(path, cwd)
    if _disagrees(*evidence):
        raise WrongRecord.tree(path, evidence.first_cwd or "", cwd)


def start_cwd(path: str) -> str:
    """The working directory the session began in: the first non-empty ``cwd`` its
    records give ("" when none). Raises RecordUnreadable when it cannot be read."""
    for line, record in iter_records(path):
        entry = decode_entry(record) if record is not None else None
        if entry is not None and entry.cwd:
            return entry.cwd
    return ""


# --- the running session's own record ---------------------------------------------------------


def current_session_path(environ: Optional[Mapping[str, str]] = None, cwd: str = "") -> str:
    """The current session's own transcript, from the environment, or "".

    The harness answers first (``harness.claude.current_session_path``: the session id
    it sets, looked for under the project dir of ``cwd`` and each of its ancestors,
    then under every project dir): a candidate is taken when it is a regular file
    whose records do not name another session and, for a directory-derived one, were
    written in that directory or beneath it. Else ``$TERMSPRAWL_TRANSCRIPT``, verbatim
    (a tool a hook started gets the hook's record there)."""
    return claude_facts.current_session_path(environ, cwd, _is_current_session)


def _is_current_session(candidate: str, session_id: str, tree: str) -> bool:
    if not belongs_to_session(candidate, session_id):
        return False
    return not tree or belongs_to_tree(candidate, tree)
