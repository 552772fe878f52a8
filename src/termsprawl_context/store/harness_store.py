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
from typing import Iterator, NamedTuple, Optional, Sequence

from termsprawl_context.errors import NotFound, NotRecorded
from termsprawl_context.store.catalog import HarnessSession, other_sessions
from termsprawl_context.transcript import entry as records

__all__ = ["HarnessSession", "require_claude_record", "chosen_harnesses", "describe", "search_other"]

TITLE_MAX_CHARS = 200


class HarnessSessionInfo(NamedTuple):
    """What ``sessions`` prints for another harness's session: the fields Claude Code's
    ``SessionInfo`` has that its records can fill, and its harness."""

    harness: str
    session_id: str
    transcript_path: str
    mtime: float
    size: int
    title: str = ""
    first_user_message: str = ""
    cwd: str = ""
    first_timestamp: str = ""
    last_timestamp: str = ""
    sidechain: bool = False

    def to_dict(self) -> dict:
        from termsprawl_context.store.sessions import iso_utc

        data = self._asdict()
        data["modified"] = iso_utc(self.mtime)
        return data


def require_claude_record(path: str, command: str) -> None:
    """Refuse, by name, a command whose rules are Claude Code's (citations, uuids and
    their ancestry, background-agent signals) on another harness's transcript: a
    grounded answer must not come from records read as a shape they are not."""
    from termsprawl_context import harness as harnesses

    found = harnesses.for_path(os.path.abspath(path)) if path else None
    if found is not None and found.name != harnesses.CLAUDE_CODE:
        raise NotRecorded(command, found.label, path)


def chosen_harnesses(name: Optional[str], include_claude: bool = True) -> list:
    """The harnesses ``--harness NAME`` chooses (None or "all": every one this build
    reads); a NotFound names an unknown one."""
    from termsprawl_context import harness as harnesses

    if name and name != "all":
        found = harnesses.get(name)
        if found is None:
            raise NotFound("unknown harness %s (known: %s)" % (name, ", ".join(h.name for h in harnesses.available())))
        return [found] if include_claude or found.name != harnesses.CLAUDE_CODE else []
    return [h for h in harnesses.available() if include_claude or h.name != harnesses.CLAUDE_CODE]


def describe(session: HarnessSession) -> HarnessSessionInfo:
    """One session's listing fields: the first typed prompt (its title), the working
    directory and the first timestamp, read forward only as far as that prompt; the
    last timestamp from the end when the harness reads backwards (else one pass)."""
    from termsprawl_context import harness as harnesses

    first = cwd = start = end = ""
    sidechain = False
    harness = harnesses.get(session.harness)
    try:
        for entry in harness.entries(session.path):
            start = start or entry.timestamp
            end = entry.timestamp or end
            cwd = cwd or entry.cwd
            sidechain = sidechain or entry.is_sidechain
            typed = [t for t in records.typed_texts(entry) if t.strip()]
            if typed:
                first = " ".join(typed[0].split())[:TITLE_MAX_CHARS]
                break
        if first:
            backwards = harness.entries_reverse(session.path)
            for entry in backwards if backwards is not None else harness.entries(session.path):
                if entry.timestamp:
                    end = entry.timestamp
                    if backwards is not None:
                        break
    except OSError:
        pass
    return HarnessSessionInfo(*session, first, first, cwd, start, end, sidechain)


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
