"""A Gemini CLI chat file resolved: the log's lines (last copy wins, ``$set``, ``$rewindTo``)
into its header facts and its messages' places, read back one winner at a time; the
older single-JSON chats; a chat's header and a resume's real file."""

import os
from array import array
from collections import namedtuple

from termsprawl_context.harness.base import listing
from termsprawl_context.harness.gemini import facts
from termsprawl_context.harness.gemini.parts import message_ids
from termsprawl_context.model import as_str

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Callable, Iterator, List, Optional, Tuple


# --- one chat file, resolved -----------------------------------------------------------------
# Where a message's winning copy is: its line (number, offset), its bytes (``size`` from
# ``start`` into the line: a copy in a ``$set.messages`` list is read alone) and, when they
# are the whole list's line, its ``index`` there (else -1); ``ids``, the (kind, call id) pairs
# the message gives, when the resolution kept them.
Where = namedtuple("Where", "line offset size index ids start", defaults=(-1, (), 0))


class Chat(object):
    """A chat file's resolution: its header facts and its messages, in order, as places."""

    __slots__ = ("session_id", "kind", "summary", "places", "columns", "ids", "free", "opened")

    def __init__(self) -> None:
        self.session_id = ""
        self.kind = ""
        self.summary = ""
        # Message id -> its slot, in the order of each id's last copy; a slot's place is one row of
        # ``columns`` (line, offset, size, start, index: machine integers, not a Where
        # object each, so a chat of many small messages costs a few words a message).
        self.places = {}  # type: dict
        self.columns = tuple(array("q") for _ in range(5))
        self.ids = {}  # type: dict  # slot -> the call ids its message gives, when kept and any
        self.free = []  # type: list  # slots a rewind emptied
        # The header facts are the first record's only (``header_of``'s, and what a reader from
        # the end can know without reading the whole file).
        self.opened = False

    def wheres(self, newest_first: bool = False) -> "Iterator[Where]":
        """Each message's place, in order (or newest first)."""
        line, offset, size, start, index = self.columns
        ids = self.ids
        for slot in reversed(self.places.values()) if newest_first else self.places.values():
            yield Where(line[slot], offset[slot], size[slot], index[slot], ids.get(slot, ()), start[slot])


def _place(chat: Chat, message_id: str, where: Where, move: bool = True) -> None:
    """``where`` is the message's place: at the end for a copy on its own line (its last copy:
    0.61's place, see ``tail.py``), or, not ``move``, where it already was (new ones last)."""
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
    if where.ids:
        chat.ids[slot] = where.ids
    else:
        chat.ids.pop(slot, None)


def _merge(chat: Chat, listed: dict) -> None:
    """A ``$set.messages`` list applied: the list's order, each message it lacks kept (the
    client would drop it; see ``__init__``) before the listed one that followed it, by the
    same newest-first walk as ``tail._Merge``."""
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


def _rewind(chat: Chat, target: str) -> None:
    """Drop ``target`` and every message after it, all when it is unknown (the client's rule)."""
    places = chat.places
    known = target in places
    while places:
        dropped, slot = places.popitem()  # the newest
        chat.free.append(slot)
        chat.ids.pop(slot, None)
        if known and dropped == target:
            return


def apply_record(chat: Chat, record: dict, where: Where, with_ids: bool = False, raw: "Optional[bytes]" = None) -> None:
    """One parsed line applied to ``chat``. ``with_ids``: places keep their message's call ids;
    ``raw``: the line's bytes, so a ``$set.messages`` message's place is its own bytes."""
    first, chat.opened = not chat.opened, True
    rewind = record.get(facts.REWIND_KEY)
    if isinstance(rewind, str):
        _rewind(chat, rewind)
        return
    message_id = record.get(facts.FIELD_ID)
    if isinstance(message_id, str):
        _place(chat, message_id, where._replace(ids=message_ids(record)) if with_ids else where)
        return
    update = record.get(facts.SET_KEY)
    if isinstance(update, dict):
        messages = update.get(facts.FIELD_MESSAGES)
        if isinstance(messages, list):
            spans = message_spans(raw, len(messages)) if raw is not None and messages else None
            listed = {}  # type: dict  # id -> its place: its first position in the list, its last copy
            for index, message in enumerate(messages):
                if isinstance(message, dict) and isinstance(message.get(facts.FIELD_ID), str):
                    ids = message_ids(message) if with_ids else ()
                    if spans is None:
                        found = Where(where.line, where.offset, where.size, index, ids)
                    else:
                        start, end = spans[index]
                        found = Where(where.line, where.offset, end - start, -1, ids, start)
                    listed[message[facts.FIELD_ID]] = found
            _merge(chat, listed)
        if isinstance(update.get(facts.SUMMARY_KEY), str):
            chat.summary = update[facts.SUMMARY_KEY]
        if isinstance(update.get(facts.HEADER_SESSION_ID), str) and first:
            chat.session_id = update[facts.HEADER_SESSION_ID]
        return
    if isinstance(record.get(facts.HEADER_SESSION_ID), str):
        if first:
            _take_header(chat, record)
        if isinstance(record.get(facts.SUMMARY_KEY), str):
            chat.summary = record[facts.SUMMARY_KEY]


def _take_header(chat: Chat, record: dict) -> None:
    chat.session_id = as_str(record.get(facts.HEADER_SESSION_ID))
    chat.kind = as_str(record.get("kind"))


def resolve_lines(f, with_ids: bool = False, until: int = -1) -> Chat:
    """Resolve an open chat log from its start, one bounded line at a time (up to offset ``until``)."""
    from termsprawl_context.jsonl import iter_lines, parse_object

    chat = Chat()
    for line in iter_lines(f):
        if 0 <= until < line.offset:
            break
        record = parse_object(line.raw)
        if record is not None:
            apply_record(chat, record, Where(line.number, line.offset, len(line.raw)), with_ids, line.raw)
    return chat


def winners(f, chat: Chat, newest_first: bool = False) -> "Iterator[Tuple[dict, Where, int]]":
    """Each resolved message with its place and index, in order (or newest first), read back.
    The last two lines stay parsed: a resume's ``$set.messages`` line holds many winners in a
    row, the messages it skipped between them."""
    from termsprawl_context.jsonl import parse_object

    cache = []  # type: list  # [(offset, parsed or None)], newest last, at most two
    count = len(chat.places)
    for number, where in enumerate(chat.wheres(newest_first)):
        index = count - 1 - number if newest_first else number
        parsed = None
        at = where.offset + where.start
        for offset, value in cache:
            if offset == at:
                parsed = value
                break
        else:
            f.seek(at)
            parsed = parse_object(f.read(where.size))
            cache.append((at, parsed))
            del cache[:-2]
        if parsed is None:
            continue  # the file changed under us: what was there is gone
        if where.index < 0:
            yield parsed, where, index
            continue
        update = parsed.get(facts.SET_KEY)
        messages = update.get(facts.FIELD_MESSAGES) if isinstance(update, dict) else None
        if isinstance(messages, list) and where.index < len(messages) and isinstance(messages[where.index], dict):
            yield messages[where.index], where, index


def legacy_messages(data: bytes) -> "Tuple[Chat, List[dict]]":
    """An older single-JSON chat's (``{sessionId, ..., messages: [...]}``) facts and messages (an
    id given twice keeps its first place, its last value); nothing for another text."""
    from termsprawl_context.jsonl import loads_strict, readable

    chat = Chat()
    try:
        value = loads_strict(data.decode("utf-8", "replace")) if readable(data) else None
    except (ValueError, RecursionError):
        value = None
    if not isinstance(value, dict):
        return chat, []
    _take_header(chat, value)
    chat.summary = as_str(value.get(facts.SUMMARY_KEY))
    messages = value.get(facts.FIELD_MESSAGES)
    by_id = {}  # type: dict
    for message in messages if isinstance(messages, list) else []:
        if isinstance(message, dict) and isinstance(message.get(facts.FIELD_ID), str):
            by_id[message[facts.FIELD_ID]] = message
    return chat, list(by_id.values())


def is_legacy(path: str) -> bool:
    return path.endswith(facts.LEGACY_SUFFIX)


# An older single-JSON chat (``session-*.json``) is one object, ``{"sessionId", "projectHash",
# "startTime", ..., "messages": [...]}``, written by ``JSON.stringify(conversation, null, 2)`` (its
# first line is ``{`` alone): a listing or a sniff reads its first ``HEAD_BYTES`` only, never the
# whole file (one may be many megabytes; its messages come after these keys).
HEAD_BYTES = 1 << 16


def _string_after(text: str, key: str) -> "Optional[str]":
    """The JSON string value of the first top-level-looking ``"key":``, else None."""
    import json

    at = text.find('"%s"' % key)
    rest = text[at + len(key) + 2 :].lstrip() if at >= 0 else ""
    if not rest.startswith(":"):
        return None
    try:
        value, _end = json.JSONDecoder().raw_decode(rest[1:].lstrip())
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def head_facts(path: str) -> dict:
    """``{"sessionId", "projectHash"}`` when a legacy chat's head opens an object naming both (strings), else {}."""
    text = read_head(path).decode("utf-8", "replace")
    if not text.lstrip().startswith("{"):
        return {}
    messages = text.find('"messages"')
    scope = text if messages < 0 else text[:messages]
    found = {key: _string_after(scope, key) for key in (facts.HEADER_SESSION_ID, "projectHash")}
    return found if all(found.values()) else {}


def read_head(path: str) -> bytes:
    """A file's first ``HEAD_BYTES`` (b"" when it cannot be read as a regular file)."""
    from termsprawl_context.jsonl import try_open_regular

    f = try_open_regular(path)
    if f is None:
        return b""
    try:
        with f:
            return f.read(HEAD_BYTES)
    except OSError:
        return b""


def header_of(path: str) -> "Optional[Chat]":
    """The facts of a chat file's first record, its header, or None (a legacy chat has none)."""
    from termsprawl_context.harness.base import head_record

    chat = Chat()
    apply_record(chat, head_record(path, lambda record: True) if not is_legacy(path) else {}, Where(1, 0, 0))
    return chat if chat.session_id else None


def resumed_chat(path: str, session_id: str) -> str:
    """The chat a resumed session really writes to. Observed on 0.61: at ``gemini -r`` the
    hook's transcript_path is a new file (``session-<now>-<id8>.jsonl``: a header and the
    session context) while the conversation goes on in the session's ``first_chat``."""
    folder, name = os.path.split(path)
    if not name.startswith(facts.SESSION_FILE_PREFIX):
        return path
    return first_chat(folder, session_id) or path


def first_chat(folder: str, session_id: str) -> str:
    """The earliest by name (start time first) of ``folder``'s chats whose header names the session, or ""."""
    short = session_id[:8]
    names = listing(folder) if short else []
    tail = "-" + short + facts.TRANSCRIPT_SUFFIX
    for candidate in names:
        if candidate.startswith(facts.SESSION_FILE_PREFIX) and candidate.endswith(tail):
            full = os.path.join(folder, candidate)
            if os.path.islink(full):
                continue  # the folder was checked inside the store; a link may lead out
            chat = header_of(full)
            if chat is not None and chat.session_id == session_id:
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
    """``(the element spans at the end of path, where the value at text[i] ends)``: down
    the object members named by ``path`` (the last member of a name wins, as in
    ``json.loads``), then the array's elements; spans None when the value is not so
    shaped. Each value is parsed once, by the scan that passes over it."""
    from json.decoder import scanstring  # type: ignore[attr-defined]  # public since Python 2.6, not in typeshed

    if not path:
        if text[i : i + 1] != "[":
            return None, scan(text, i)[1]
        return _elements(text, i, scan)
    if text[i : i + 1] != "{":
        return None, scan(text, i)[1]
    i = _skip(text, i + 1)
    found = None  # type: Optional[list]
    if text[i : i + 1] == "}":
        return found, i + 1
    while True:
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
        i, closed = _after_item(text, i, "}")
        if closed:
            return found, i


def _elements(text: str, i: int, scan: "Callable") -> "Tuple[list, int]":
    """The character spans of the elements of the array at ``text[i]``, and its end."""
    spans = []  # type: List[Tuple[int, int]]
    i = _skip(text, i + 1)
    if text[i : i + 1] == "]":
        return spans, i + 1
    while True:
        _value, end = scan(text, i)
        spans.append((i, end))
        i, closed = _after_item(text, end, "]")
        if closed:
            return spans, i


def _after_item(text: str, i: int, close: str) -> "Tuple[int, bool]":
    """Past the comma after an item at ``text[i]``, or past ``close`` (True); else ValueError."""
    i = _skip(text, i)
    if text[i : i + 1] == ",":
        return _skip(text, i + 1), False
    if text[i : i + 1] == close:
        return i + 1, True
    raise ValueError("no comma")


def message_spans(raw: bytes, count: int) -> "Optional[List[Tuple[int, int]]]":
    """``(byte start, byte end)`` within ``raw`` of each of the ``count`` elements of its
    ``$set.messages`` list, in order; None when the line is not shaped so. Exact whatever the
    bytes: each invalid byte is one character here (``surrogateescape``), and a span starts
    and ends at ASCII punctuation, where UTF-8 decoding resynchronises, so decoding a span
    alone gives the characters that decoding the whole line gives there."""
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
