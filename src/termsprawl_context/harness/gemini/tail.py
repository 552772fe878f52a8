"""A Gemini CLI chat log resolved from its end: each message newest first, reading only as
far back as the consumer takes (the dump's and the hand-off's tail read).

The rule is the forward resolution's (``chat.py``): a message sits where its last copy
is, so the first copy of an id met from the end wins, in its place; a ``$rewindTo`` met
backwards drops every message met before it (backwards) down to the copy of its target,
the target included (all of them when that target was not in the conversation then); a
``$set.messages`` list is merged with what came before it by one walk from the newest
(``_Merge``; ``chat._merge`` is the same walk forward). Why a message sits at its last
copy: Gemini CLI 0.61's loader keeps it at its first (``loadConversationRecord`` sets a JS
Map), but its writer only ever writes a message again while it is the conversation's last
(``ChatRecordingService.recordMessageTokens`` and ``recordToolCalls`` update
``getLastMessage``), so on every log 0.61 writes the two places are one."""

from array import array

from termsprawl_context.harness.gemini import facts
from termsprawl_context.harness.gemini.chat import Where, message_spans

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import BinaryIO, Iterable, Iterator, Optional, Tuple


# 0.61 writes a ``$set.messages`` list at each start (the first, at the log's head) and one at
# each resume, cancelled turn and compression: the newest is merged from the end (it holds its
# ids: a resume's holds the whole history), an older one is resolved forward.
_LOSE, _WIN, _STOP = 0, 1, 2


class _Backwards(object):
    """A backward resolution's state over the lines between two ``$set.messages`` lists: the
    ids decided and the rewinds whose target is not yet met."""

    __slots__ = ("decided", "cuts", "pending")

    def __init__(self) -> None:
        self.decided = set()  # type: set
        self.cuts = []  # type: list  # rewind targets, the earliest line last
        self.pending = {}  # type: dict  # target -> how many of ``cuts`` name it

    def rewind(self, target: str) -> None:
        self.cuts.append(target)
        self.pending[target] = self.pending.get(target, 0) + 1

    def meet(self, message_id: str) -> int:
        """The copy of ``message_id`` met now: the winner, a loser, or all before it gone."""
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

    def sift(self, placed: "Iterable[Tuple[dict, Where]]") -> "Tuple[list, bool]":
        """The winners among ``placed`` (met newest first), and whether a rewind found all before them gone."""
        out = []
        for message, where in placed:
            verdict = self.meet(message[facts.FIELD_ID])
            if verdict == _STOP:
                return out, True
            if verdict == _WIN:
                out.append((message, where))
        return out, False


class _Merge(object):
    """A ``$set.messages`` list met from the end, merged with the older messages as ``chat._merge``
    merges forward: each listed one (first position, last copy) is given when the older stream
    reaches one the list holds at or before it, or at the start; others pass between."""

    __slots__ = ("f", "offset", "size", "index", "copies", "spans", "messages", "next")

    def __init__(self, f: "BinaryIO", offset: int, raw: bytes, messages: list) -> None:
        self.f, self.offset, self.size = f, offset, len(raw)
        self.index = {}  # type: dict  # id -> its position among the listed ids
        self.copies = array("q")  # position -> the list element holding its last copy
        for at, message in enumerate(messages):
            if isinstance(message, dict) and isinstance(message.get(facts.FIELD_ID), str):
                known = self.index.setdefault(message[facts.FIELD_ID], len(self.copies))
                if known == len(self.copies):
                    self.copies.append(at)
                else:
                    self.copies[known] = at
        spans = message_spans(raw, len(messages))
        # Each listed message is read back alone when given (a resume's list is the whole
        # history on one line); the parsed list is kept only when the line cannot be so cut.
        self.spans = None  # type: Optional[array]  # element -> its start and end in the line
        if spans is not None:
            self.spans = array("q", (at for span in spans for at in span))
        self.messages = None if self.spans is not None else messages
        self.next = len(self.copies) - 1  # the newest listed message not yet given

    def _given(self, down_to: int) -> "Iterator[Tuple[dict, Where]]":
        from termsprawl_context.jsonl import parse_object

        while self.next >= down_to:
            at = self.copies[self.next]
            self.next -= 1
            if self.spans is None:
                message = self.messages[at]  # type: ignore[index]
            else:
                start, end = self.spans[2 * at], self.spans[2 * at + 1]
                self.f.seek(self.offset + start)
                message = parse_object(self.f.read(end - start))
                if message is None:
                    continue  # the file changed under us
            yield message, Where(0, self.offset, self.size)

    def feed(self, message: dict, where: Where) -> "Iterator[Tuple[dict, Where]]":
        at = self.index.get(message[facts.FIELD_ID])
        if at is None:
            yield message, where
        else:
            yield from self._given(at)

    def flush(self) -> "Iterator[Tuple[dict, Where]]":
        return self._given(0)


def newest_messages(f: "BinaryIO") -> "Iterator[Tuple[dict, Where]]":
    """Each resolved message of the open log, newest first, with its place (``line`` 0). Memory:
    the ids met, one line, and the ids of the newest ``$set.messages`` list (past it, the log is
    resolved forward up to the next older list)."""
    from termsprawl_context.harness.gemini.chat import resolve_lines, winners
    from termsprawl_context.jsonl import iter_lines_reverse, parse_object

    # The lines after the newest list, then (once it is met) those before it, whose winners pass
    # through the list's merge and the newer frame's rewinds. ``stop``: the frame whose rewind
    # found all before it gone (-1: none).
    frames = [_Backwards()]
    merge = None  # type: Optional[_Merge]  # the newest list, once met
    stop = -1
    for offset, raw in iter_lines_reverse(f):
        record = parse_object(raw)
        if record is None:
            continue
        found = _record_messages(record)
        if found is None:
            frames[-1].rewind(record[facts.REWIND_KEY])
            continue
        listed = bool(found) and not isinstance(record.get(facts.FIELD_ID), str)
        if listed and merge is None:
            merge = _Merge(f, offset, raw, record[facts.SET_KEY][facts.FIELD_MESSAGES])
            frames.append(_Backwards())
            continue
        if listed:  # resolved forward up to the list, which gives everything before it
            f.seek(0)
            before = winners(f, resolve_lines(f, until=offset), newest_first=True)
            placed = ((message, Where(0, where.offset, where.size)) for message, where, _index in before)
        else:
            placed = ((message, Where(0, offset, len(raw))) for message in found)
        level = len(frames) - 1
        batch, stopped = frames[level].sift(placed)
        stop = level if stopped else stop
        if merge is not None:
            batch, stopped = frames[0].sift(given for pair in batch for given in merge.feed(*pair))
            stop = 0 if stopped else stop
        yield from batch
        if stop >= 0 or listed:
            break
    if merge is not None and stop != 0:  # the list gives what it has left
        yield from frames[0].sift(merge.flush())[0]


def _record_messages(record: dict) -> "Optional[list]":
    """The messages one record places, last first; None for a rewind (``apply_record``'s order)."""
    if isinstance(record.get(facts.REWIND_KEY), str):
        return None
    if isinstance(record.get(facts.FIELD_ID), str):
        return [record]
    update = record.get(facts.SET_KEY)
    messages = update.get(facts.FIELD_MESSAGES) if isinstance(update, dict) else None
    if not isinstance(messages, list):
        return []
    return [m for m in reversed(messages) if isinstance(m, dict) and isinstance(m.get(facts.FIELD_ID), str)]
