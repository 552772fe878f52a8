"""Background sub-agents as one record shows them: launches, ends, what is still running,
and a cursor that reads only what was appended since the last call.

A launch is an ``Agent``/``Task`` call run in the background whose receipt names the
agent (``agentId: <id>`` in a result that says it launched); an end is a
``<task-notification>`` carrying a terminal status. Every signal has a stable key (the
uuid of the entry that carried it, or a hash of the notification), so signals folded from
many reads are never counted twice. Fail closed: a line that will not parse raises
``SignalsUnknown`` (the caller keeps its old cursor and reads the same lines again next
time). Rules and messages are the Go reference's (``agent_signals_cursor.go``, ``read.go``).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import namedtuple

from termsprawl_context import jsonl
from termsprawl_context.errors import SignalsUnknown, os_reason
from termsprawl_context import model
from termsprawl_context.model import decode_entry
from termsprawl_context.transcript.tool_blocks import result_texts, tool_calls
from termsprawl_context.transcript.record import decode_line
from termsprawl_context.transcript.text import GO_SPACE_CHARS

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import Callable, Iterable, List, Optional, Set, Tuple

    from termsprawl_context.model import Entry


LAUNCHED = "launched"  # a background Agent call whose receipt returned the agent's id
ENDED = "ended"  # a <task-notification> for the agent with a terminal status

FINGERPRINT_HEAD = 256  # bytes of the record's start in a cursor's check
FINGERPRINT_TAIL = 4096  # bytes before the cursor's offset in its check
# A line holding none of these (nor an awaited call's id) cannot carry a signal: the
# cursor only checks that it is JSON instead of decoding it.
SIGNAL_KEYWORDS = (b"run_in_background", b"task-notification", b"agentId")

_AGENT_ID = re.compile(r"agentId:\s*([A-Za-z0-9_-]+)")
_TASK_ID = re.compile(r"<task-id>\s*([^<\s]+)\s*</task-id>")
_STATUS = re.compile(r"<status>\s*([a-z_]+)\s*</status>")


class AgentSignal(namedtuple("AgentSignal", "kind agent_id status key")):
    """One fact about a background agent: LAUNCHED or ENDED, its id, the terminal status
    ("" for a launch), and the key of the record that carried it."""

    __slots__ = ()

    def to_json(self) -> dict:
        return {"kind": self.kind, "agentId": self.agent_id, "status": self.status, "key": self.key}


class AgentSignalCursor(namedtuple("AgentSignalCursor", "path offset check background")):
    """How far a record's signals have been read: the record, the byte after the last
    line read, the fingerprint of the bytes behind that offset, and the background calls
    launched whose receipt has not been read yet (sorted)."""

    __slots__ = ()

    def to_json(self) -> dict:
        data = {"path": self.path, "offset": self.offset}
        if self.check:
            data["check"] = self.check
        if self.background:
            data["background"] = list(self.background)
        return data

    @classmethod
    def from_json(cls, data: object) -> "AgentSignalCursor":
        """A cursor from its JSON form; anything malformed reads as the zero cursor
        (which starts over: never worse than a whole read)."""
        fields = data if isinstance(data, dict) else {}
        path, offset, check = fields.get("path"), fields.get("offset"), fields.get("check", "")
        background = fields.get("background", [])
        if (
            isinstance(path, str)
            and type(offset) is int
            and isinstance(check, str)
            and isinstance(background, list)
            and all(isinstance(b, str) for b in background)
        ):
            return cls(path, offset, check, tuple(sorted(background)))
        return cls("", 0, "", ())


def start_cursor(path: str) -> AgentSignalCursor:
    return AgentSignalCursor(path, 0, "", ())


# --- one entry's signals ---------------------------------------------------------------------
def _note_end(text: object, uuid: str, out: List[AgentSignal]) -> None:
    """Add the end ``text`` announces, if it is a task notification with a terminal status."""
    if not isinstance(text, str) or not text.strip(GO_SPACE_CHARS).startswith(model.TASK_NOTIFICATION_OPEN):
        return
    task, status = _TASK_ID.search(text), _STATUS.search(text)
    if task is None or status is None or status.group(1) not in model.TASK_TERMINAL_STATUSES:
        return
    agent = task.group(1)
    key = uuid or hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:8].hex()
    out.append(AgentSignal(ENDED, agent, status.group(1), "%s:%s" % (key, agent)))


def fold_entry(entry: Entry, awaited: Set[str], out: List[AgentSignal]) -> None:
    """Add the signals ``entry`` carries to ``out``, updating the background calls still
    ``awaited`` (a launch adds one; any result for it removes it, an error giving none)."""
    if entry.type == model.TYPE_ASSISTANT:
        for call in tool_calls(entry):
            flag = call.input.get(model.INPUT_RUN_IN_BACKGROUND) if isinstance(call.input, dict) else None
            if call.id and call.name in model.DELEGATION_TOOLS and (flag is True or flag == "true"):
                awaited.add(call.id)
    elif entry.type == model.TYPE_ATTACHMENT and isinstance(entry.attachment, dict):
        kind, mode = entry.attachment.get("type"), entry.attachment.get("commandMode")
        if kind == model.QUEUED_COMMAND and mode == model.TASK_NOTIFICATION_MODE:
            _note_end(entry.attachment.get("prompt"), entry.uuid, out)
    elif entry.type == model.TYPE_USER and isinstance(entry.content, (str, list)):
        blocks = [{"type": "text", "text": entry.content}] if isinstance(entry.content, str) else entry.content
        for block in blocks:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text":
                _note_end(block.get("text"), entry.uuid, out)
            elif kind == "tool_result":
                use_id = block.get("tool_use_id")
                if not isinstance(use_id, str) or use_id not in awaited:
                    continue
                awaited.discard(use_id)
                if block.get("is_error") is True:
                    continue
                for body in result_texts(block.get("content")):
                    found = _AGENT_ID.search(body)
                    if found is not None and model.AGENT_LAUNCH_WORD in body:
                        out.append(AgentSignal(LAUNCHED, found.group(1), "", "%s:%s" % (entry.uuid, found.group(1))))
                        break


def running(signals: Iterable[AgentSignal]) -> Set[str]:
    """The agents launched with no LATER end: the fold of ``signals`` in order."""
    alive: Set[str] = set()
    for signal in signals:
        if signal.kind == LAUNCHED:
            alive.add(signal.agent_id)
        elif signal.kind == ENDED:
            alive.discard(signal.agent_id)
    return alive


# --- reading ------------------------------------------------------------------------------
def _open(path: str, opener: Optional[Callable]):
    try:
        return (opener or jsonl.open_regular)(path)
    except OSError as exc:
        raise SignalsUnknown("transcript: open %s: %s" % (path, os_reason(exc))) from None


def background_agent_signals(path: str, opener: Optional[Callable] = None) -> List[AgentSignal]:
    """Every background-agent signal of the record at ``path``, every line decoded (fails closed)."""
    signals: List[AgentSignal] = []
    awaited: Set[str] = set()
    with _open(path, opener) as f:
        for raw in _lines(f, path):
            _fold_line(raw, path, awaited, signals, None, True)
    return signals


def running_background_agents(path: str) -> Set[str]:
    """The ids of the background agents the record shows as still running."""
    return running(background_agent_signals(path))


def _lines(f, path: str):
    """Each line with its newline (the last one maybe without), within jsonl's bound and
    cost model, failing closed: an unreadable line makes the signals unknown."""
    bound = jsonl.MAX_LINE_BYTES
    while True:
        raw = f.readline(bound + 2)  # the line, its newline, and one byte to tell it is too long
        if not raw:
            return
        if len(raw) - raw.endswith(b"\n") > bound:
            raise SignalsUnknown("transcript: read %s: a record is longer than %d bytes" % (path, bound + 1))
        if not jsonl.readable(raw):
            raise SignalsUnknown("transcript: read %s: a record would take too much memory to decode" % path)
        yield raw


def background_agent_signals_since(
    path: str, cursor: Optional[AgentSignalCursor] = None, opener: Optional[Callable] = None
) -> Tuple[List[AgentSignal], AgentSignalCursor]:
    """The signals of the lines after ``cursor`` and the cursor past them. A cursor for
    another path, past the end, or whose check no longer matches the bytes behind its
    offset (the record was rewritten) starts over from byte 0. Only what was appended is
    read, plus the fingerprint's 4 KiB window. A line that will not parse (a torn last
    line included) raises SignalsUnknown carrying the ORIGINAL cursor."""
    cur = cursor if cursor is not None else start_cursor(path)
    with _open(path, opener) as f:
        try:
            size = os.fstat(f.fileno()).st_size
        except OSError as exc:
            raise SignalsUnknown("transcript: stat %s: %s" % (path, os_reason(exc)), cur) from None
        offset = cur.offset
        awaited = set(cur.background)
        head = tail = b""
        if cur.path != path or offset < 0 or offset > size:
            offset, awaited = 0, set()
        elif offset > 0:
            f.seek(0)
            head = f.read(min(offset, FINGERPRINT_HEAD))
            f.seek(max(offset - FINGERPRINT_TAIL, 0))
            tail = f.read(min(offset, FINGERPRINT_TAIL))
            if not cur.check or hashlib.sha256(head + tail).hexdigest() != cur.check:
                offset, awaited, head, tail = 0, set(), b"", b""
        f.seek(offset)
        start = offset
        signals: List[AgentSignal] = []
        first = bytearray()  # the first bytes read now: the head, when reading from near 0
        last = bytearray()  # the last bytes read now: the new tail window
        for raw in _lines(f, path):
            _fold_line(raw, path, awaited, signals, cur)
            if len(first) < FINGERPRINT_HEAD:
                first += raw[: FINGERPRINT_HEAD - len(first)]
            last += raw
            if len(last) > FINGERPRINT_TAIL:
                del last[: len(last) - FINGERPRINT_TAIL]
            offset += len(raw)
        if offset == 0:
            return signals, AgentSignalCursor(path, 0, "", tuple(sorted(awaited)))
        # The new check from bytes already in hand: the old head and tail are contiguous
        # with what was read after them, so nothing is read twice.
        if len(head) == start:
            head = (head + bytes(first))[:FINGERPRINT_HEAD]
        check = hashlib.sha256(head + (tail + bytes(last))[-FINGERPRINT_TAIL:]).hexdigest()
    return signals, AgentSignalCursor(path, offset, check, tuple(sorted(awaited)))


def _fold_line(
    raw: bytes,
    path: str,
    awaited: Set[str],
    signals: List[AgentSignal],
    cur: Optional[AgentSignalCursor],
    every: bool = False,
) -> None:
    """Fold one line's signals (decoded only if it may carry one, unless ``every``); raise if not JSON."""
    body = raw.strip()
    if not body:
        return
    if every or any(word in body for word in SIGNAL_KEYWORDS) or any(i.encode() in body for i in awaited):
        value = decode_line(body)
        entry = decode_entry(value) if value is not None else None
        if entry is None:  # not JSON, or not a record (a kept field of the wrong type)
            raise SignalsUnknown("transcript: parse %s: not a JSON record" % path, cur)
        fold_entry(entry, awaited, signals)
        return
    # No signal can be on this line: only that it is JSON matters (a torn line is not).
    try:
        jsonl.loads_strict(body.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        raise SignalsUnknown("transcript: parse %s: not a JSON record" % path, cur) from None
