"""The stores of the harnesses other than Claude Code, through the harness interface.

Claude Code's store keeps its own fast readers (``sessions``, ``search``): their answers
are fixed by the fidelity tests. The catalog (``store.catalog``) lists and names every
store's sessions; the other harnesses' sessions are described and searched here,
harness-neutrally: each harness lists its transcripts
(``Harness.sessions``) and normalises its records (``Harness.entries``), and the rules
(what the person typed, what the assistant said, what a tool call and result hold) are
the record model's, as for Claude Code. Everything fails open per file: a transcript
that cannot be read is passed over.
"""

import os
from typing import Iterator, Optional, Sequence

from termsprawl_context.errors import NotFound, Refusal
from termsprawl_context.model import SessionInfo
from termsprawl_context.store.catalog import HarnessSession, other_sessions

__all__ = ["HarnessSession", "NotRecorded", "require_claude_record", "chosen_harnesses", "describe", "search_other"]


class NotRecorded(Refusal):
    """The harness's records do not hold what the question needs: fail closed, by name
    (seed 002's ErrSubagentUnlinked is the model)."""

    def __init__(self, question: str, label: str, path: str = "") -> None:
        where = " (%s)" % path if path else ""
        super().__init__("%s: %s records do not hold what this needs%s" % (question, label, where))


def require_claude_record(path: str, command: str) -> None:
    """Refuse, by name, a command whose rules are Claude Code's (citations, uuids and
    their ancestry, background-agent signals) on another harness's transcript: a
    grounded answer must not come from records read as a shape they are not."""
    from termsprawl_context import harness as harnesses

    found = harnesses.for_path(os.path.abspath(path)) if path else None
    if found is not None and not found.native_records:
        raise NotRecorded(command, found.label, path)


def chosen_harnesses(name: Optional[str], include_claude: bool = True) -> list:
    """The harnesses ``--harness NAME`` chooses (None or "all": every one this build
    reads); a NotFound names an unknown one."""
    from termsprawl_context import harness as harnesses

    if name and name != "all":
        found = harnesses.get(name)
        if found is None:
            raise NotFound("unknown harness %s (known: %s)" % (name, ", ".join(h.name for h in harnesses.available())))
        return [found] if include_claude or not found.native_records else []
    return [h for h in harnesses.available() if include_claude or not h.native_records]


def describe(session: HarnessSession) -> SessionInfo:
    """One session's listing fields, as its provider describes it (``Harness.describe``)."""
    from termsprawl_context import harness as harnesses

    return harnesses.get(session.harness).describe(session.path, session.mtime, session.size, session.session_id)


def search_other(matcher, chosen: list, kinds: Sequence[str], limit: int, environ=None) -> Iterator[tuple]:
    """``(session, title, entry, kind, snippet)`` for each matching entry, newest
    session first and in file order within one, at most ``limit``; the texts searched
    are ``store.search.entry_texts``'s (the peer's own conversation)."""
    from termsprawl_context import harness as harnesses
    from termsprawl_context.store.search import entry_texts, snippet
    from termsprawl_context.store.session_titles import session_title

    left = limit
    for session in reversed(other_sessions(chosen, environ)):
        if left <= 0:
            return
        harness = harnesses.get(session.harness)
        title = None
        try:
            for entry in harness.entries(session.path):
                if entry.line <= 0:
                    continue  # a fork's inherited history: its hits are its own session's
                for kind, text in entry_texts(entry, kinds):
                    found = matcher.find(text)
                    if found is None:
                        continue
                    if title is None:
                        title = session_title(session.path, session.session_id, harness=session.harness).text
                        title = title or session.session_id
                    yield session, title, entry, kind, snippet(*found)
                    left -= 1
                    break
                if left <= 0:
                    return
        except OSError:
            continue
