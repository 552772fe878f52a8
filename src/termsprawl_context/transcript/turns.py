"""The dump's reading of a transcript: its printable user and assistant turns.

A turn is an entry whose top-level ``type`` is ``user`` or ``assistant``, whose ``message``
is an object, and whose ``message.content`` is a string (as is, even empty) or a list with
a ``text`` block with string text (joined by ``\\n``); tool calls, results and thinking never
print. Each turn is cut to ``LINKED_TURN_MAX_CHARS`` and the last ``MAX_LINKED_TURNS`` kept,
read backwards: the cost does not grow with the file. A line is parsed only when its bytes
could print (``may_print``, behind the switch ``line_filter``).
"""

from __future__ import annotations

from termsprawl_context import plain_tuple
from termsprawl_context.jsonl import iter_lines_reverse, parse_object, try_open_regular
from termsprawl_context.transcript.content import display_text as content_to_text

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import List, NamedTuple, Optional

    class Turn(NamedTuple):
        """One printable turn: ``role`` is "user" or "assistant" (the entry's top-level
        type, not ``message.role``), ``text`` is already cut to the cap."""

        role: str
        text: str
else:
    Turn = plain_tuple("Turn", "role text")


MAX_LINKED_TURNS = 40
LINKED_TURN_MAX_CHARS = 2000
TURN_ROLES = ("user", "assistant")
PEER_HEADING = "# linked context from "  # the hand-off's Markdown opens each peer with it too
PEER_SEPARATOR = "\n---\n"


def entry_turn(entry: dict) -> Optional[Turn]:
    """The turn an entry prints as, cut to the cap, or None."""
    role = entry.get("type")
    if not isinstance(role, str) or role not in TURN_ROLES:
        return None
    message = entry.get("message")
    if not isinstance(message, dict):
        return None
    text = content_to_text(message.get("content"))
    if text is None:
        return None
    # Slicing a str counts code points, so a character is never split.
    return Turn(role, text[:LINKED_TURN_MAX_CHARS])


# --- which lines are parsed: the fast path and its plain version ----------------------
# A 1 MB peer's tail is mostly tool results, tool calls and thinking, which never print:
# parsing them was most of what a peer adds to the dump's start.


def every_line(raw: bytes) -> bool:
    """The plain version: ``entry_turn`` decides every line."""
    return True


# Past this many bytes a line holding ``"text"`` or a ``\u`` escape is decided by its skeleton.
SKELETON_FROM = 4096
# A string longer than this cannot spell a key or a value the rule compares
# ("assistant", 9 characters, at most 6 bytes each as an escape): the skeleton empties it.
_SKELETON_KEPT = 64
_JSON_SPACE = b" \t\r\n"


def may_print(raw: bytes) -> bool:
    """False only for a line that, were it any valid JSON, could not print. Without ``"text"``
    or a ``\\u`` escape (which might spell a key's letters) only a string ``message.content``
    prints: a ``"content"`` key two brackets deep before a string (a tool result's is four)."""
    # find, not ``in``: bytes ``in`` bytes first fails as an integer test, formatting an error.
    if raw.find(b'"text"') >= 0 or raw.find(b"\\u") >= 0:
        return len(raw) <= SKELETON_FROM or _skeleton_prints(raw)
    done = depth = 0
    at = raw.find(b'"content"')
    while at >= 0:
        colon = _token_at(raw, at + 9)
        value = _token_at(raw, colon + 1)
        if raw[colon : colon + 1] == b":" and raw[value : value + 1] == b'"':
            # Both ends are outside any string, so the quotes between them pair up.
            outside = b"".join(_string_parts(raw[done:at])[0::2])
            depth += outside.count(b"{") + outside.count(b"[") - outside.count(b"}") - outside.count(b"]")
            if depth == 2:
                return True
            done = at
        at = raw.find(b'"content"', at + 9)
    return False


def _token_at(raw: bytes, at: int) -> int:
    """Where the JSON token at or after ``at`` starts, past JSON's whitespace."""
    while at < len(raw) and raw[at] in _JSON_SPACE:
        at += 1
    return at


def _string_parts(raw: bytes) -> List[bytes]:
    """``raw`` split at the quotes that delimit strings: odd parts are strings' insides (in
    valid JSON, once ``\\\\`` and ``\\"`` are replaced each quote left delimits a string; the
    slower first replace is needed only when a quote follows two backslashes)."""
    if raw.find(b'\\\\"') >= 0:
        raw = raw.replace(b"\\\\", b"__")
    return raw.replace(b'\\"', b"__").split(b'"')


def _skeleton_prints(raw: bytes) -> bool:
    """Whether the line prints with strings over ``_SKELETON_KEPT`` bytes emptied (keys kept)."""
    parts = _string_parts(raw)
    parts[1::2] = [p if len(p) <= _SKELETON_KEPT else b"" for p in parts[1::2]]
    skeleton = b'"'.join(parts)
    if len(skeleton) * 2 > len(raw):
        return True  # mostly short strings: parsing the line itself costs less
    entry = parse_object(skeleton)
    return entry is not None and entry_turn(entry) is not None


line_filter = may_print  # the switch (issue 28 item 3): every_line is the plain version


def read_turns(path: str, limit: int = MAX_LINKED_TURNS) -> List[Turn]:
    """The last ``limit`` printable turns, oldest first; [] for a file that cannot be read."""
    f = try_open_regular(path)
    if f is None:
        return []
    found: List[Turn] = []
    keep = line_filter
    try:
        with f:
            for _offset, raw in iter_lines_reverse(f):
                if not keep(raw):
                    continue
                entry = parse_object(raw)
                turn = entry_turn(entry) if entry is not None else None
                if turn is not None:
                    found.append(turn)
                    if len(found) >= limit:
                        break
    except OSError:
        return []
    found.reverse()
    return found


def entries_turns(entries, limit: int = MAX_LINKED_TURNS, newest_first: bool = False) -> List[Turn]:
    """``read_turns`` over another harness's normalised entries: ``entry_turn``'s rule, less
    what no one typed and no model answered (harness context, compaction text, a sub-agent's
    turns). ``newest_first``: ``entries`` come from the end and reading stops at ``limit``."""
    from collections import deque

    from termsprawl_context.transcript.speakers import not_the_person

    found = deque(maxlen=limit)  # type: deque
    try:
        for entry in entries:
            if entry.type not in TURN_ROLES or not_the_person(entry):
                continue
            text = content_to_text(entry.content)
            if text is not None:
                found.append(Turn(entry.type, text[:LINKED_TURN_MAX_CHARS]))
                if newest_first and len(found) >= limit:
                    break
    except OSError:
        return []
    return list(reversed(found)) if newest_first else list(found)


def format_linked_context(peer_id: str, peer_title: str, turns: List[Turn]) -> str:
    """One peer's block of the dump, without a trailing newline."""
    lines = ["%s%s (%s)" % (PEER_HEADING, peer_title, peer_id)]
    for turn in turns:
        lines.extend(("## " + turn.role, turn.text))
    return "\n".join(lines)
