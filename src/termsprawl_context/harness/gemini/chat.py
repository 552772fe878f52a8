"""A Gemini CLI chat file resolved: the log's lines (last copy wins, ``$set``, ``$rewindTo``) into its
header facts and its messages' places, read back one winner at a time; the older single-JSON chats; a
chat's header and a resume's real file."""

import os
from array import array
from collections import namedtuple

from termsprawl_context.harness.base import head_record, listing
from termsprawl_context.harness.gemini import facts
from termsprawl_context.model import as_str

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, BinaryIO, Callable, Iterable, Iterator, List, Optional, Tuple


# --- one chat file, resolved -----------------------------------------------------------------
# Where a message's winning copy is: its line (number, offset), its bytes (``size`` from ``start`` into
# the line: a copy in a ``$set.messages`` list is read alone) and, when they are the whole list's line,
# its ``index`` there (else -1); ``ids``, the (kind, call id) pairs it gives, when the resolution kept them.
Where = namedtuple("Where", "line offset size index ids start", defaults=(-1, (), 0))


class Chat(object):
    """A chat file's resolution: its header facts and its messages, in order, as places."""

    __slots__ = ("session_id", "kind", "places", "columns", "ids", "free", "opened")

    def __init__(self) -> None:
        self.session_id = ""
        self.kind = ""
        # Message id -> its slot, in the order of each id's last copy; a slot's place is one row of ``columns``
        # (line, offset, size, start, index: machine integers, not a Where each, so a chat of many small
        # messages costs a few words a message).
        self.places = {}  # type: dict
        self.columns = tuple(array("q") for _ in range(5))
        self.ids = {}  # type: dict  # slot -> the call ids its message gives, when kept and any
        self.free = []  # type: list  # slots a rewind emptied
        # The header facts are the first record's only (what a reader from the end can know).
        self.opened = False

    def wheres(self, newest_first: bool = False) -> "Iterator[Where]":
        """Each message's place, in order (or newest first)."""
        line, offset, size, start, index = self.columns
        ids = self.ids
        for slot in reversed(self.places.values()) if newest_first else self.places.values():
            yield Where(line[slot], offset[slot], size[slot], index[slot], ids.get(slot, ()), start[slot])


def _place(chat: Chat, message_id: str, where: Where, move: bool = True) -> None:
    """``where`` is the message's place: at the end for a copy on its own line (its last copy: 0.61's place,
    see ``newest_messages``), or, not ``move``, where it already was (new ones last)."""
    slot = chat.places.pop(message_id, None) if move else chat.places.get(message_id)
    columns = chat.columns
    if slot is None or slot < 0:
        if chat.free:
            slot = chat.free.pop()
        else:
            slot = len(columns[0])
            for column in columns:
                column.append(0)
    chat.places[message_id] = slot
    columns[0][slot], columns[1][slot], columns[2][slot] = where.line, where.offset, where.size
    columns[3][slot], columns[4][slot] = where.start, where.index
    chat.ids.pop(slot, None)
    if where.ids:
        chat.ids[slot] = where.ids


def _merge(chat: Chat, listed: dict) -> None:
    """A ``$set.messages`` list applied: the list's order, each message it lacks kept (the client would drop
    it; see ``__init__``) before the listed one that followed it, by ``_Merge``'s newest-first walk."""
    if not listed:
        return
    names = list(listed)
    index = {name: at for at, name in enumerate(names)}
    old = chat.places
    newest = []  # type: list
    left = len(names) - 1  # the newest listed message not yet given
    for name in reversed(old):
        at = index.get(name)
        if at is None:
            newest.append(name)
        elif at <= left:
            newest.extend(names[left : at - 1 if at else None : -1])
            left = at - 1
    newest.extend(names[left::-1] if left >= 0 else ())
    chat.places = {name: old.get(name, -1) for name in reversed(newest)}  # -1: a slot to take
    for name, where in listed.items():
        _place(chat, name, where, move=False)


def apply_record(
    chat: Chat, record: dict, where: Where, ids_of: "Optional[Callable]" = None, raw: "Optional[bytes]" = None
) -> None:
    """One parsed line applied to ``chat``. ``ids_of``: places keep the call ids it gives of their message;
    ``raw``: the line's bytes, so a ``$set.messages`` message's place is its own bytes."""
    first, chat.opened = not chat.opened, True
    rewind = record.get(facts.REWIND_KEY)
    if isinstance(rewind, str):  # its target and every message after it go, all when it is unknown (the client's rule)
        known = rewind in chat.places
        while chat.places:
            dropped, slot = chat.places.popitem()  # the newest
            chat.free.append(slot)
            chat.ids.pop(slot, None)
            if known and dropped == rewind:
                break
        return
    message_id = record.get(facts.FIELD_ID)
    if isinstance(message_id, str):
        _place(chat, message_id, where._replace(ids=ids_of(record)) if ids_of else where)
        return
    update = record.get(facts.SET_KEY)
    if isinstance(update, dict):
        messages = set_messages(record)
        spans = message_spans(raw, len(messages)) if raw is not None and messages else None
        listed = {}  # type: dict  # id -> its place: its first position in the list, its last copy
        for index, message in enumerate(messages):
            if is_message(message):
                ids = ids_of(message) if ids_of else ()
                start, end = (0, where.size) if spans is None else spans[index]
                at = index if spans is None else -1  # -1: the message is read alone
                listed[message[facts.FIELD_ID]] = Where(where.line, where.offset, end - start, at, ids, start)
        _merge(chat, listed)
        if isinstance(update.get(facts.HEADER_SESSION_ID), str) and first:
            chat.session_id = update[facts.HEADER_SESSION_ID]
        return
    if isinstance(record.get(facts.HEADER_SESSION_ID), str) and first:
        chat.session_id, chat.kind = record[facts.HEADER_SESSION_ID], as_str(record.get("kind"))


def resolve_lines(f, ids_of: "Optional[Callable]" = None, until: int = -1) -> Chat:
    """Resolve an open chat log from its start, one bounded line at a time (up to offset ``until``)."""
    from termsprawl_context.jsonl import iter_lines, parse_object

    chat = Chat()
    for line in iter_lines(f):
        if 0 <= until < line.offset:
            break
        record = parse_object(line.raw)
        if record is not None:
            apply_record(chat, record, Where(line.number, line.offset, len(line.raw)), ids_of, line.raw)
    return chat


def winners(f, chat: Chat, newest_first: bool = False) -> "Iterator[Tuple[dict, Where, int]]":
    """Each resolved message with its place and index, in order (or newest first), read back. The last two
    lines stay parsed: a resume's ``$set.messages`` line holds many winners in a row, the skipped between."""
    from termsprawl_context.jsonl import parse_object

    older, newer = (-1, None), (-1, None)  # type: tuple, tuple  # the last two lines read: (offset, parsed or None)
    count = len(chat.places)
    for number, where in enumerate(chat.wheres(newest_first)):
        index = count - 1 - number if newest_first else number
        at = where.offset + where.start
        if at in (older[0], newer[0]):
            parsed = older[1] if at == older[0] else newer[1]
        else:
            f.seek(at)
            parsed = parse_object(f.read(where.size))
            older, newer = newer, (at, parsed)
        message = parsed  # None when the file changed under us: what was there is gone
        if where.index >= 0 and parsed is not None:
            messages = set_messages(parsed)
            message = messages[where.index] if where.index < len(messages) else None
        if isinstance(message, dict):
            yield message, where, index


def legacy_messages(data: bytes) -> "Tuple[Chat, List[dict]]":
    """An older single-JSON chat's facts and messages (an id given twice keeps its first place, its last
    value); nothing for another text."""
    from termsprawl_context.jsonl import loads_strict, readable

    chat = Chat()
    try:
        value = loads_strict(data.decode("utf-8", "replace")) if readable(data) else None
    except (ValueError, RecursionError):
        value = None
    if not isinstance(value, dict):
        return chat, []
    chat.session_id, chat.kind = as_str(value.get(facts.HEADER_SESSION_ID)), as_str(value.get("kind"))
    messages = value.get(facts.FIELD_MESSAGES)
    by_id = {m[facts.FIELD_ID]: m for m in (messages if isinstance(messages, list) else []) if is_message(m)}
    return chat, list(by_id.values())


def is_legacy(path: str) -> bool:
    return path.endswith(facts.LEGACY_SUFFIX)


# An older single-JSON chat (``session-*.json``) is one object, ``{"sessionId", "projectHash",
# "startTime", ..., "messages": [...]}``, written by ``JSON.stringify(conversation, null, 2)`` (its
# first line is ``{`` alone): a listing or a sniff reads its first ``HEAD_BYTES`` only, never the
# whole file (one may be many megabytes; its messages come after these keys).
HEAD_BYTES = 1 << 16


def head_facts(path: str) -> dict:
    """``{"sessionId", "projectHash"}`` when a legacy chat's head opens an object naming both (strings), else {}."""
    import json

    text = read_head(path).decode("utf-8", "replace")
    if not text.lstrip().startswith("{"):
        return {}
    messages = text.find('"messages"')
    scope = text if messages < 0 else text[:messages]
    found = {}
    for key in (facts.HEADER_SESSION_ID, "projectHash"):  # each the string value of its first ``"key":``
        at = scope.find('"%s"' % key)
        rest = scope[at + len(key) + 2 :].lstrip() if at >= 0 else ""
        try:
            value = json.JSONDecoder().raw_decode(rest[1:].lstrip())[0] if rest.startswith(":") else None
        except ValueError:
            value = None
        if not isinstance(value, str) or not value:
            return {}
        found[key] = value
    return found


def read_head(path: str) -> bytes:
    """A file's first ``HEAD_BYTES`` (b"" when it cannot be read as a regular file)."""
    from termsprawl_context.jsonl import open_regular

    try:
        with open_regular(path) as f:
            return f.read(HEAD_BYTES)
    except OSError:
        return b""


def header_of(path: str) -> Chat:
    """The facts of a chat file's first record, its header; an empty Chat without one (a legacy chat has none)."""
    chat = Chat()
    apply_record(chat, head_record(path, lambda record: True) if not is_legacy(path) else {}, Where(1, 0, 0))
    return chat if chat.session_id else Chat()


def resumed_chat(path: str, session_id: str) -> str:
    """The chat a resumed session really writes to. Observed on 0.61: at ``gemini -r`` the hook's
    transcript_path is a new file (``session-<now>-<id8>.jsonl``: a header and the session context) while
    the conversation goes on in the session's ``first_chat``."""
    folder, name = os.path.split(path)
    return (first_chat(folder, session_id) if name.startswith(facts.SESSION_FILE_PREFIX) else "") or path


def first_chat(folder: str, session_id: str) -> str:
    """The earliest by name (start time first) of ``folder``'s chats whose header names the session, or ""."""
    short = session_id[:8]
    names = listing(folder) if short else []
    tail = "-" + short + facts.TRANSCRIPT_SUFFIX
    for candidate in names:
        if candidate.startswith(facts.SESSION_FILE_PREFIX) and candidate.endswith(tail):
            full = os.path.join(folder, candidate)
            # Not a link: the folder was checked inside the store; a link may lead out.
            if not os.path.islink(full) and header_of(full).session_id == session_id:
                return full
    return ""


# --- where each message of a ``{"$set": {"messages": [...]}}`` line sits in it, in bytes, so a
# message that wins from such a line is read back alone (a resume's list holds the whole history
# on one line: re-parsing that line per message made reading quadratic).
_SPACE = " \t\n\r"  # JSON's whitespace


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _SPACE:
        i += 1
    return i


def _walk(text: str, i: int, path: "Tuple[str, ...]", scan: "Callable") -> "Tuple[Optional[list], int]":
    """``(the element spans of the array at the end of path, where the value at text[i] ends)``: down the object members
    named by ``path`` (the last member of a name wins, as in ``json.loads``), then the array's elements; spans None when
    the value is not so shaped. Each value is parsed once, by the scan that passes over it."""
    from json.decoder import scanstring  # type: ignore[attr-defined]  # public since Python 2.6, not in typeshed

    opening, closing = ("{", "}") if path else ("[", "]")
    if text[i : i + 1] != opening:
        return None, scan(text, i)[1]
    found = None  # type: Optional[list]  # an object's: the spans down the member named path[0]
    spans = []  # type: List[Tuple[int, int]]  # an array's
    i = _skip(text, i + 1)
    if text[i : i + 1] == closing:
        return (found if path else spans), i + 1
    while True:
        if not path:
            end = scan(text, i)[1]
            spans.append((i, end))
            i = end
        else:
            if text[i : i + 1] != '"':
                raise ValueError("no key")
            name, i = scanstring(text, i + 1)
            i = _skip(text, i)
            if text[i : i + 1] != ":":
                raise ValueError("no colon")
            i = _skip(text, i + 1)
            if name == path[0]:
                found, i = _walk(text, i, path[1:], scan)
            else:
                i = scan(text, i)[1]
        i = _skip(text, i)
        if text[i : i + 1] == closing:
            return (found if path else spans), i + 1
        if text[i : i + 1] != ",":
            raise ValueError("no comma")
        i = _skip(text, i + 1)


def message_spans(raw: bytes, count: int) -> "Optional[List[Tuple[int, int]]]":
    """``(byte start, byte end)`` within ``raw`` of each of the ``count`` elements of its ``$set.messages``
    list, in order; None when the line is not shaped so. Exact whatever the bytes: each invalid byte is one
    character here (``surrogateescape``), and a span starts and ends at ASCII punctuation, where UTF-8
    decoding resynchronises, so decoding a span alone gives the characters the whole line gives there."""
    import json

    scan = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # set in __init__, untyped in typeshed
    text = raw.decode("utf-8", "surrogateescape")
    try:
        spans, _end = _walk(text, _skip(text, 0), (facts.SET_KEY, facts.FIELD_MESSAGES), scan)
    except (StopIteration, ValueError, RecursionError):
        return None
    if spans is None or len(spans) != count:
        return None
    found, done, at_byte = [], 0, 0
    for start, end in spans:
        at_byte += len(text[done:start].encode("utf-8", "surrogateescape"))
        size = len(text[start:end].encode("utf-8", "surrogateescape"))
        found.append((at_byte, at_byte + size))
        at_byte, done = at_byte + size, end
    return found


# --- the log resolved from its end (the dump's and the hand-off's tail read) ----------------------
# Each message newest first, reading only as far back as the consumer takes. The rule is the forward resolution's: the
# first copy of an id met from the end wins, in its place; a ``$rewindTo`` met backwards drops every message met
# before it down to its target's copy, the target included (all of them when the target was not in the conversation
# then); a ``$set.messages`` list is merged by one walk from the newest (``_Merge``; ``_merge`` walks forward). A
# message sits at its last copy, though Gemini CLI 0.61's loader keeps it at its first (``loadConversationRecord``
# sets a JS Map): its writer only writes a message again while it is the conversation's last
# (``ChatRecordingService.recordMessageTokens`` and ``recordToolCalls`` update ``getLastMessage``), so on every log
# 0.61 writes the two places are one. 0.61 writes a ``$set.messages`` list at each start (the first, at the log's
# head) and one at each resume, cancelled turn and compression: the newest is merged from the end (it holds its ids: a
# resume's holds the whole history), an older one is resolved forward.
_LOSE, _WIN, _STOP = 0, 1, 2


class _Backwards(object):
    """A backward resolution between two ``$set.messages`` lists: ids decided, rewinds whose target is unmet."""

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
        verdict = _LOSE if self.cuts or message_id in self.decided else _WIN
        if self.cuts and message_id == self.cuts[-1]:
            self.cuts.pop()
            self.pending[message_id] -= 1
            # A later rewind naming it again found it gone (this earlier one cut it): that
            # later one cleared the whole conversation before it.
            verdict = _STOP if self.pending[message_id] else _LOSE
        elif self.pending.get(message_id):
            return _STOP  # an earlier rewind cut this target before the later one named it
        self.decided.add(message_id)
        return verdict

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
    """A ``$set.messages`` list met from the end, merged with the older messages as ``_merge`` merges
    forward: each listed one (first position, last copy) is given when the older stream reaches one the
    list holds at or before it, or at the start; others pass between."""

    __slots__ = ("f", "offset", "size", "index", "copies", "spans", "messages", "next")

    def __init__(self, f: "BinaryIO", offset: int, raw: bytes, messages: list) -> None:
        self.f, self.offset, self.size = f, offset, len(raw)
        self.index = {}  # type: dict  # id -> its position among the listed ids
        self.copies = array("q")  # position -> the list element holding its last copy
        for at, message in enumerate(messages):
            if is_message(message):
                known = self.index.setdefault(message[facts.FIELD_ID], len(self.copies))
                if known == len(self.copies):
                    self.copies.append(at)
                else:
                    self.copies[known] = at
        spans = message_spans(raw, len(messages))
        # Each listed message is read back alone when given (a resume's list is the whole history on one
        # line); the parsed list is kept only when the line cannot be so cut.
        self.spans = None if spans is None else array("q", (at for span in spans for at in span))  # start, end
        self.messages = messages if spans is None else None
        self.next = len(self.copies) - 1  # the newest listed message not yet given

    def given(self, down_to: int) -> "Iterator[Tuple[dict, Where]]":
        """The listed messages not yet given, newest first, down to position ``down_to``."""
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
        return iter([(message, where)]) if at is None else self.given(at)


def newest_messages(f: "BinaryIO") -> "Iterator[Tuple[dict, Where]]":
    """Each resolved message of the open log, newest first, with its place (``line`` 0). Memory: the ids
    met, one line, and the ids of the newest ``$set.messages`` list (past it, the log is resolved forward
    up to the next older list)."""
    from termsprawl_context.jsonl import iter_lines_reverse, parse_object

    # The lines after the newest list, then (once it is met) those before it, whose winners pass through the list's
    # merge and the newer frame's rewinds. ``stop``: the frame whose rewind found all before it gone (-1: none).
    frames = [_Backwards()]
    merge = None  # type: Optional[_Merge]  # the newest list, once met
    stop = -1
    for offset, raw in iter_lines_reverse(f):
        record = parse_object(raw)
        if record is None:
            continue
        if isinstance(record.get(facts.REWIND_KEY), str):
            frames[-1].rewind(record[facts.REWIND_KEY])
            continue
        # The messages the record places, last first (``apply_record``'s order).
        single = isinstance(record.get(facts.FIELD_ID), str)
        found = [record] if single else [m for m in reversed(set_messages(record)) if is_message(m)]
        listed = bool(found) and not single
        if listed and merge is None:
            merge = _Merge(f, offset, raw, set_messages(record))
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
        yield from frames[0].sift(merge.given(0))[0]


def set_messages(record: dict) -> list:
    """A ``{"$set": {"messages": [...]}}`` record's list, else []."""
    update = record.get(facts.SET_KEY)
    messages = update.get(facts.FIELD_MESSAGES) if isinstance(update, dict) else None
    return messages if isinstance(messages, list) else []


def is_message(value: "Any") -> bool:
    return isinstance(value, dict) and isinstance(value.get(facts.FIELD_ID), str)
