"""A Gemini CLI chat log resolved from its end: each message newest first, reading only as
far back as the consumer takes (the dump's and the hand-off's tail read).

The rule is the forward resolution's (``chat.py``): a message sits where its last copy
is, so the first copy of an id met from the end wins, in its place; a ``$rewindTo`` met
backwards drops every message met before it (backwards) down to the copy of its target,
the target included (all of them when that target was not in the conversation then); a
``$set.messages`` list is its messages placed at that line, in list order. Why a message
sits at its last copy (Gemini CLI 0.61's ``chatRecordingService``): the client only ever
writes a message again while it is the conversation's last (``recordMessageTokens`` and
``recordToolCalls`` update ``getLastMessage``), so on every log it writes the last copy's
place is the first copy's place."""

from termsprawl_context.harness.gemini import facts
from termsprawl_context.harness.gemini.chat import Where

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import BinaryIO, Iterator, Optional, Tuple

__all__ = ["newest_messages"]

_LOSE, _WIN, _STOP = 0, 1, 2


class _Backwards(object):
    """The state of a backward resolution: the ids already decided (won, or dropped by a
    rewind met later in the file) and the rewinds whose target is not yet met."""

    __slots__ = ("decided", "cuts", "pending")

    def __init__(self) -> None:
        self.decided = set()  # type: set
        self.cuts = []  # type: list  # rewind targets, the earliest line last
        self.pending = {}  # type: dict  # target -> how many of ``cuts`` name it

    def rewind(self, target: str) -> None:
        self.cuts.append(target)
        self.pending[target] = self.pending.get(target, 0) + 1

    def meet(self, message_id: str) -> int:
        """What the copy of ``message_id`` met now (the newest not yet read) is: the winner,
        a loser, or the sign that everything before it is gone."""
        cuts = self.cuts
        if cuts:
            if message_id == cuts[-1]:
                cuts.pop()
                self.pending[message_id] -= 1
                self.decided.add(message_id)
                # A later rewind naming it again found it gone (this earlier one cut it): that
                # later one cleared the whole conversation before it.
                return _STOP if self.pending[message_id] else _LOSE
            if self.pending.get(message_id):
                return _STOP  # an earlier rewind cut this target before the later one named it
            self.decided.add(message_id)
            return _LOSE
        if message_id in self.decided:
            return _LOSE
        self.decided.add(message_id)
        return _WIN


def newest_messages(f: "BinaryIO") -> "Iterator[Tuple[dict, Where]]":
    """Each resolved message of the open chat log, newest first, with its place (``line``
    0: line numbers are unknown from the end; ``offset`` its line's). Memory: the ids met
    and one line at a time. A ``$set.messages`` list is met only when the tail reaches back
    past it (a resume's or a compression's): what came before it is then resolved forward,
    up to it, as ``chat.resolve_lines`` does (a listed message keeps its earlier place)."""
    from termsprawl_context.harness.gemini.chat import resolve_lines, winners
    from termsprawl_context.jsonl import iter_lines_reverse, parse_object

    state = _Backwards()
    for offset, raw in iter_lines_reverse(f):
        record = parse_object(raw)
        if record is None:
            continue
        found = _record_messages(record)
        if found is None:
            state.rewind(record[facts.REWIND_KEY])
            continue
        listed = bool(found) and not isinstance(record.get(facts.FIELD_ID), str)
        if listed:
            f.seek(0)
            before = winners(f, resolve_lines(f, until=offset), newest_first=True)
            placed = ((message, Where(0, where.offset, where.size)) for message, where in before)
        else:
            placed = ((message, Where(0, offset, len(raw))) for message in found)
        for message, where in placed:
            verdict = state.meet(message[facts.FIELD_ID])
            if verdict == _STOP:
                return
            if verdict == _WIN:
                yield message, where
        if listed:
            return  # the forward resolution up to the list gave everything before it


def _record_messages(record: dict) -> "Optional[list]":
    """The messages one record places, the last placed first; None for a rewind (the
    precedence of ``chat.apply_record``)."""
    if isinstance(record.get(facts.REWIND_KEY), str):
        return None
    if isinstance(record.get(facts.FIELD_ID), str):
        return [record]
    update = record.get(facts.SET_KEY)
    messages = update.get(facts.FIELD_MESSAGES) if isinstance(update, dict) else None
    if not isinstance(messages, list):
        return []
    return [m for m in reversed(messages) if isinstance(m, dict) and isinstance(m.get(facts.FIELD_ID), str)]
