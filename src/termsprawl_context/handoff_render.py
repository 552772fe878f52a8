"""The hand-off's text: how much of it (a budget shared fairly across peers, then across
each peer's turns) and its two renderings.

Markdown in which no transcript text can forge a section or a turn (every turn's text,
and every peer's block, sits in a backtick fence longer than any backtick run inside it,
so no content can close it), and JSON. Pure functions over ``handoff``'s plain tuples
(``HandoffTurn``, ``PeerHandoff``), which it needs only by their fields.
"""

from __future__ import annotations

from termsprawl_context.transcript.turns import PEER_HEADING, PEER_SEPARATOR

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, List, Sequence

    from termsprawl_context.handoff import HandoffTurn, PeerHandoff

FORMAT_MARKDOWN = "markdown"
FORMAT_JSON = "json"
FORMATS = (FORMAT_MARKDOWN, FORMAT_JSON)

SESSION_HEADING = "# session "
PEER_FENCE_INFO = "peer"
TURN_FENCE_INFO = "text"
MIN_FENCE = 3
CUT_MARKER = "[cut: %d of %d characters shown]"


# --- how much text -----------------------------------------------------------------------------


def share(sizes: Sequence[int], budget: int) -> List[int]:
    """A max-min fair split of ``budget`` among claims of ``sizes``: no one gets more
    than it asks, and what a small claim leaves goes to the larger ones. The parts sum
    to exactly ``min(budget, sum(sizes))``."""
    parts = [0] * len(sizes)
    remaining = max(0, budget)
    order = sorted(range(len(sizes)), key=lambda i: (sizes[i], i))
    for rank, i in enumerate(order):
        give = min(sizes[i], remaining // (len(order) - rank))
        parts[i] = give
        remaining -= give
    return parts


def cut_turn(turn: HandoffTurn, allowed: int) -> HandoffTurn:
    """``turn`` with its text cut to ``allowed`` code points (marked ``cut``)."""
    if len(turn.text) <= allowed:
        return turn
    return turn._replace(text=turn.text[:allowed], cut=True)


def apply_budget(peers: Sequence[PeerHandoff], max_chars: int) -> List[PeerHandoff]:
    """Cut the peers' turn texts so that together they hold at most ``max_chars``
    characters: shared fairly across peers, then across each peer's turns."""
    wanted = [sum(len(t.text) for t in peer.turns) for peer in peers]
    result = []
    for peer, allowed in zip(peers, share(wanted, max_chars)):
        parts = share([len(t.text) for t in peer.turns], allowed)
        result.append(peer._replace(turns=[cut_turn(t, n) for t, n in zip(peer.turns, parts)]))
    return result


# --- rendering ------------------------------------------------------------------------------------


def one_line(text: Any) -> str:
    """``text`` as one line for a heading: line breaks (for CommonMark, Python's
    splitlines, terminals) and every other control character become spaces."""
    if not isinstance(text, str):
        return ""
    from termsprawl_context._output import terminal_safe

    return terminal_safe(text, stand_in=" ", line_breaks=True)


def fence_for(*texts: str) -> str:
    """A backtick fence no content among ``texts`` can close: longer than any backtick
    run in them (at least three)."""
    fence = "`" * MIN_FENCE
    while any(fence in text for text in texts):
        fence += "`"
    return fence


def _turn_heading(turn: HandoffTurn) -> str:
    parts = ["## " + turn.role]
    if turn.timestamp:
        parts.append(one_line(turn.timestamp))
    return " \u00b7 ".join(parts)


def _turn_block(turn: HandoffTurn) -> List[str]:
    fence = fence_for(turn.text)
    lines = [_turn_heading(turn), fence + TURN_FENCE_INFO, turn.text, fence]
    if turn.cut:
        lines.append(CUT_MARKER % (len(turn.text), turn.chars))
    return lines


def format_peer_markdown(peer: PeerHandoff, heading: str = PEER_HEADING) -> str:
    """One peer's block: the heading and transcript path on lines of their own, then
    the turns inside one peer fence, each turn's text inside its own fence. The peer
    fence is longer than every line inside it can hold, the turn fences longer than
    any backtick run in their text: no text closes a fence, so none can start a
    section or a turn."""
    body = []
    for turn in peer.turns:
        body.extend(_turn_block(turn))
    inner = "\n".join(body)
    fence = fence_for(inner)
    head = "%s%s (%s)" % (heading, one_line(peer.title), one_line(peer.id))
    lines = [head, "transcript: " + one_line(peer.path), fence + PEER_FENCE_INFO, inner, fence]
    return "\n".join(lines)


def format_markdown(peers: Sequence[PeerHandoff], heading: str = PEER_HEADING) -> str:
    """Every peer's block, separated by ``---`` lines; "" when there are none."""
    return PEER_SEPARATOR.join(format_peer_markdown(peer, heading) for peer in peers)


def handoff_data(peers: Sequence[PeerHandoff]) -> dict:
    """The hand-off as plain JSON-ready data."""
    return {
        "peers": [
            {
                "id": peer.id,
                "title": peer.title,
                "transcript": peer.path,
                "turns": [
                    {
                        "role": t.role,
                        "text": t.text,
                        "timestamp": t.timestamp,
                        "uuid": t.uuid,
                        "line": t.line,
                        "cut": t.cut,
                        "chars": t.chars,
                    }
                    for t in peer.turns
                ],
                **({"earlier": True} if peer.earlier else {}),
            }
            for peer in peers
        ]
    }


def format_json(peers: Sequence[PeerHandoff]) -> str:
    """The hand-off as one JSON document (one line)."""
    import json

    from termsprawl_context._output import terminal_safe_json

    return terminal_safe_json(json.dumps(handoff_data(peers), ensure_ascii=False))


def render(peers: Sequence[PeerHandoff], fmt: str, heading: str = PEER_HEADING) -> str:
    """The hand-off in ``fmt`` (one of ``FORMATS``), without a trailing newline."""
    if fmt == FORMAT_JSON:
        return format_json(peers)
    return format_markdown(peers, heading)
