"""The hand-off: what a peer was asked to do and what it answered. Where the bare dump
prints harness text (compaction summaries, slash command envelopes, ``isMeta`` bodies,
inline sub-agent turns) as the peer's, this keeps the peer's own conversation as
``transcript.entry.speaker`` classifies it: the last ``window`` turns, the person's last
``prompts`` prompts however old and the last answer, read backwards only until all three
are known. ``--all`` (``tools=True``) adds one-line tool call and result summaries. It
reads no project state: the caller names peers, titles, paths.
"""

from __future__ import annotations

from collections import deque, namedtuple

from termsprawl_context.handoff_render import apply_budget
from termsprawl_context.jsonl import line_numbers, open_regular, parse_object
from termsprawl_context import model
from termsprawl_context.transcript import entry as records, slash_commands, tool_blocks

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, Iterable, List, Optional, Sequence

DEFAULT_TURNS = 40  # the dump's own window
DEFAULT_MAX_CHARS = 20000  # all peers' turn texts together: about 5,000 tokens
PROMPTS_KEPT = 3  # the person's last prompts, kept whatever the window
TOOL_SUMMARY_CHARS = 160  # one line for a tool call or result under --all

ROLE_USER = "user"  # the person
ROLE_ASSISTANT = "assistant"
ROLE_TOOL_CALL = "tool_call"
ROLE_TOOL_RESULT = "tool_result"
ROLE_TASK = "task"  # a sub-agent or background job finished: one line, never the person's words


# ``text`` is cut to its share when ``cut``; ``chars`` is the whole text's length in code
# points; ``line`` the 1-based physical line (0 until counted).
HandoffTurn = namedtuple("HandoffTurn", "role text timestamp uuid line offset cut chars")
# One peer's (or one session's) turns, oldest first; ``earlier``: the peer's session before
# its current one, filling a window its current session leaves short.
PeerHandoff = namedtuple("PeerHandoff", "id title path turns earlier", defaults=(False,))


def _clip(text: str) -> str:
    """``text`` on one line, cut to ``TOOL_SUMMARY_CHARS``."""
    text = " ".join(text.split())
    return text if len(text) <= TOOL_SUMMARY_CHARS else text[: TOOL_SUMMARY_CHARS - 1] + "\u2026"


# The input field that says the most about a call, for the common tools.
_INPUT_KEYS = ("command", "file_path", "path", "pattern", "url", "query", "description", "prompt")


def tool_call_summary(call: model.ToolCall) -> str:
    """``<name> <the first telling input field, else the input as compact JSON>``."""
    data = call.input
    detail = ""
    if isinstance(data, dict):
        # tool_blocks.first_string, but a blank value is passed over too
        values = (data.get(key) for key in _INPUT_KEYS)
        detail = next((value for value in values if isinstance(value, str) and value.strip()), "")
        if not detail and data:
            import json

            detail = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return _clip("%s %s" % (call.name or "?", detail))


def tool_result_summary(result: model.ToolResult, output: "Optional[str]" = None) -> str:
    """``error: `` when the harness says so, the output's first non-blank line (past any
    wrapper the CLI put round it) and its line count."""
    bodies = [output] if output is not None else tool_blocks.result_texts(result.content)
    lines = "\n".join(bodies).split("\n") if bodies else []
    first = next((line for line in lines if line.strip()), "")
    text = first or "(no output)"
    if len(lines) > 1:
        text += " (%d lines)" % len(lines)
    return _clip(("error: " if result.is_error else "") + text)


def entry_turns(entry: model.Entry, tools: bool = False, previous: "Optional[model.Entry]" = None) -> List[HandoffTurn]:
    """The turns one entry contributes, in block order: the person's words (``previous``:
    the local command this entry may be the output of), a slash command as typed, the
    assistant's text, a task notification's line, and with ``tools`` a summary per tool
    call and result. Sidechain, meta, compaction and other harness entries give none."""
    who = records.speaker(entry)
    found = []
    if who == model.PERSON:
        text = "\n".join(records.person_texts(entry, previous))
        if text.strip():
            found.append((ROLE_USER, text))
    elif who in (model.COMMAND, model.INJECTED):
        command = slash_commands.slash_command(entry)
        if command:
            found.append((ROLE_USER, command))
    elif who == model.TASK_NOTIFICATION:
        line = slash_commands.task_notification_line(entry)
        if line:
            found.append((ROLE_TASK, line))
    elif who == model.ASSISTANT:
        text = tool_blocks.assistant_text(entry)
        if text.strip():  # a whitespace-only text block says nothing
            found.append((ROLE_ASSISTANT, text))
        if tools:
            found.extend((ROLE_TOOL_CALL, tool_call_summary(call)) for call in tool_blocks.tool_calls(entry))
    if tools and who in (model.PERSON, model.TOOL_RESULT):
        outputs = tool_blocks.tool_outputs(entry)
        found.extend(
            (ROLE_TOOL_RESULT, tool_result_summary(res, out))
            for res, out in zip(tool_blocks.tool_results(entry), outputs)
        )
    return [
        HandoffTurn(role, text, entry.timestamp, entry.uuid, entry.line, entry.offset, False, len(text))
        for role, text in found
    ]


# The uuids held exactly while reading backwards: far more than a real tail needs (40 turns
# are a few hundred entries). Past it, a turn about to be kept is looked up in the file
# (``_Collector._later``), so a session read to its start holds a bounded set.
SEEN_UUIDS_HELD = 1 << 16


class _Collector(object):
    """The selection, gathered backwards until known; an entry seen twice (one uuid) counts once,
    at its last line, as ``assemble`` keeps it. Uuids past ``SEEN_UUIDS_HELD`` are looked up in
    ``path`` (records in the model's shape; without one, "", ``seen`` holds every uuid)."""

    def __init__(self, window: int, prompts: int, tools: bool, path: str = "") -> None:
        self.window, self.prompts, self.tools = window, prompts, tools
        self.turns = []  # latest first
        self.persons = 0
        self.answered = False
        self.seen = set()
        self.covered_from = None  # type: Any
        self.path = path
        # (entry, its turns, its uuid when its last copy is unknown): the entry after this one,
        # whose turns wait for it: it may be a local command's output, known from its envelope.
        self.waiting = None  # type: Any

    def _wanted(self, turn: HandoffTurn) -> bool:
        if len(self.turns) < self.window:
            return True
        if turn.role == ROLE_USER:
            return self.persons < self.prompts
        return turn.role == ROLE_ASSISTANT and not self.answered

    def _keep(self, entry: model.Entry, turns: List[HandoffTurn], uuid: str) -> None:
        """Count an entry's ``turns``, keeping those the selection wants; a later line holding ``uuid`` wins."""
        if not turns:
            return
        found = list(reversed(turns))
        if uuid and any(self._wanted(t) for t in found) and self._later(uuid, entry.offset + 1):
            return  # a later line holds this uuid: that copy counted
        for turn in found:
            if self._wanted(turn):
                self.turns.append(turn)
            if turn.role == ROLE_USER:
                self.persons += 1
            elif turn.role == ROLE_ASSISTANT:
                self.answered = True

    def _settle(self, previous: Optional[model.Entry]) -> None:
        if self.waiting is not None:
            later, turns, uuid = self.waiting
            self.waiting = None
            if slash_commands.is_local_command_output(later, previous):
                turns = entry_turns(later, self.tools, previous)
            self._keep(later, turns, uuid)

    def add(self, entry: model.Entry) -> None:
        uuid, seen = entry.uuid, self.seen
        if uuid:
            if uuid in seen:
                return
            if len(seen) < SEEN_UUIDS_HELD or not self.path:
                seen.add(uuid)
                self.covered_from = entry.offset
                uuid = ""  # known to be its last copy
        self._settle(entry)
        self.waiting = (entry, entry_turns(entry, self.tools), uuid)

    def done(self) -> bool:
        # The waiting entry's turns are not counted yet: one more message decides them.
        return len(self.turns) >= self.window and self.persons >= self.prompts and self.answered

    def _later(self, uuid: str, start: int) -> bool:
        """Whether an entry whose line begins in ``[start, covered_from)`` has ``uuid``; only lines
        that can spell it (bytescan's rule) are parsed, so a lookup costs about a read."""
        from termsprawl_context.bytescan import Needles, has_ascii_escape
        from termsprawl_context.store.chunks import iter_chunks  # only past SEEN_UUIDS_HELD uuids

        needles = Needles.for_values((uuid,))  # no plain bytes (not ASCII, empty): every line
        with open_regular(self.path) as f:
            for _at, buf, begin, end in iter_chunks(f, start, self.covered_from):
                if (
                    needles.plain is not None
                    and not needles.plainly_in(buf, begin, end)
                    and not has_ascii_escape(buf, begin, end)
                ):
                    continue
                for raw in buf[begin:end].split(b"\n"):
                    record = parse_object(raw) if needles.in_line(raw) else None
                    if record is not None and model.entry_of(record).uuid == uuid:
                        return True
        return False

    def select(self, entries: Iterable[model.Entry]) -> List[HandoffTurn]:
        """The selection from entries, last first, read only until it is known."""
        for entry in entries:
            self.add(entry)
            if self.done():
                break  # the waiting entry is older than all the selection needs
        else:
            self._settle(None)  # the first entry: nothing before it decides its turns
        self.turns.reverse()
        return self.turns


def select_from_entries(
    entries: Iterable[model.Entry], window: int = DEFAULT_TURNS, prompts: int = PROMPTS_KEPT, tools: bool = False
) -> List[HandoffTurn]:
    """``_Collector``'s selection from entries read forward, holding only what it can keep."""
    tail = deque(maxlen=max(window, 0))  # type: deque
    asked = deque(maxlen=max(prompts, 0))  # type: deque
    answer = []  # type: list
    for index, turn in enumerate(turn for entry in entries for turn in entry_turns(entry, tools)):
        tail.append((index, turn))
        if turn.role == ROLE_USER:
            asked.append((index, turn))
        elif turn.role == ROLE_ASSISTANT:
            answer = [(index, turn)]
    kept = dict(tail)
    kept.update(asked)
    kept.update(answer)
    return [kept[i] for i in sorted(kept)]


def read_harness_turns(
    path: str,
    harness: Any = None,
    window: int = DEFAULT_TURNS,
    prompts: int = PROMPTS_KEPT,
    tools: bool = False,
    lines: bool = False,
) -> List[HandoffTurn]:
    """The hand-off's turns of ``path`` written by ``harness`` (a ``Harness`` or a name; None:
    the default), read backward when it can, with line numbers when ``lines``. OSError when
    unreadable, ValueError for a harness this build cannot read."""
    from termsprawl_context.harness import get

    if not hasattr(harness, "entries"):
        found = get(harness)
        if found is None:
            raise ValueError("no such harness: %s" % harness)
        harness = found
    backwards = harness.entries_reverse(path)
    if backwards is None:
        return select_from_entries(harness.entries(path), window, prompts, tools)  # entries carry their lines
    turns = _Collector(window, prompts, tools, path if harness.native_records else "").select(backwards)
    return number_lines(path, turns) if lines and turns else turns


def number_lines(path: str, turns: Sequence[HandoffTurn]) -> List[HandoffTurn]:
    """``turns`` with ``line`` counted from their offsets (a cost that grows with the file:
    only the JSON form pays it); unchanged when the file cannot be read."""
    try:
        with open_regular(path) as f:
            lines = line_numbers(f, [t.offset for t in turns])
    except OSError:
        return list(turns)
    return [t._replace(line=lines.get(t.offset, t.line)) for t in turns]


def linked_sources(self_id: str, io: Any) -> Iterable[Any]:
    """``(peer, title or id, path, harness or None, previous (path, harness) or None)`` for each
    linked peer with an index entry, in the dump's order, over the dump's ``ContextIO``."""
    for linked in io.linked_peers(self_id):
        recorded = io.recorded_path(linked.peer)
        if not recorded:
            continue
        title = io.node_title(linked.peer)
        harness = io.harness_of(linked.peer)
        previous = io.previous_source(linked.peer) if hasattr(io, "previous_source") else None
        yield linked.peer, linked.peer if title is None else title, io.resolve(recorded), harness, previous


EARLIER_TITLE = "%s, earlier session"  # the heading of the turns a previous session fills in


def gone_notes(project: str, peers: Iterable[Any]) -> List[str]:
    """Why each ``linked_sources`` peer's transcript is gone, if its harness says (Gemini CLI deletes resumed chats)."""
    peers = list(peers)
    if not peers:  # the registry below is loaded only when a peer is linked: a run with none never needs it
        return []
    from termsprawl_context.harness import get

    notes = (get(source[3]).gone_note(project, source[0], source[2]) for source in peers if source[3])
    return [note for note in notes if note]


def _turns_or_none(path: str, harness: Any, window: int, prompts: int, lines: bool) -> List[HandoffTurn]:
    """``read_harness_turns``, failing open: [] for a transcript that cannot be read."""
    try:
        return read_harness_turns(path, harness, window, prompts, lines=lines)
    except (OSError, ValueError):
        return []


def build_handoff(
    peers: Iterable[Any], window: int = DEFAULT_TURNS, max_chars: int = DEFAULT_MAX_CHARS, lines: bool = False
) -> List[PeerHandoff]:
    """The hand-off of ``peers`` (``linked_sources``'s tuples, or ``(id, title, path)``) cut to
    ``max_chars``; a peer whose transcript cannot be read or holds no turn is left out."""
    found = []
    for source in peers:
        peer_id, title, path, harness, previous = (tuple(source) + (None, None))[:5]
        turns = _turns_or_none(path, harness, window, PROMPTS_KEPT, lines)
        if previous and len(turns) < window:
            # The peer's current session is short (a new one): its earlier session fills the window.
            earlier = _turns_or_none(previous[0], previous[1], window - len(turns), 0, lines)
            # A resumed or forked session may hold the earlier one's turns already: never twice.
            held = set((t.role, t.text, t.timestamp) for t in turns)
            earlier = [t for t in earlier if (t.role, t.text, t.timestamp) not in held]
            if earlier:
                found.append(PeerHandoff(peer_id, EARLIER_TITLE % title, previous[0], earlier, True))
        if turns:
            found.append(PeerHandoff(peer_id, title, path, turns))
    return apply_budget(found, max_chars)
