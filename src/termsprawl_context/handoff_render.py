"""The hand-off's text: how much (a budget shared fairly across peers, then their turns,
so only the longest texts are cut, in code points, with a marker) and its renderings:
JSON, and Markdown in which no transcript text can forge a section or a turn (each text
sits in a backtick fence longer than any backtick run inside it)."""

from __future__ import annotations

from termsprawl_context.transcript.turns import PEER_HEADING, PEER_SEPARATOR

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, List, Sequence

    from termsprawl_context.handoff import PeerHandoff

FORMAT_MARKDOWN = "markdown"
FORMAT_JSON = "json"
FORMATS = (FORMAT_MARKDOWN, FORMAT_JSON)

SESSION_HEADING = "# session "
PEER_FENCE_INFO = "peer"
TURN_FENCE_INFO = "text"
MIN_FENCE = 3
CUT_MARKER = "[cut: %d of %d characters shown]"
JSON_TURN_FIELDS = ("role", "text", "timestamp", "uuid", "line", "cut", "chars")  # in this order


def share(sizes: Sequence[int], budget: int) -> List[int]:
    """A max-min fair split of ``budget`` among claims of ``sizes`` (none gets more than it
    asks; what a small claim leaves goes to the larger): summing to ``min(budget, sum(sizes))``."""
    parts = [0] * len(sizes)
    remaining = max(0, budget)
    order = sorted(range(len(sizes)), key=lambda i: (sizes[i], i))
    for rank, i in enumerate(order):
        give = min(sizes[i], remaining // (len(order) - rank))
        parts[i] = give
        remaining -= give
    return parts


def apply_budget(peers: Sequence[PeerHandoff], max_chars: int) -> List[PeerHandoff]:
    """The peers' turn texts cut to ``max_chars`` code points together, shared fairly."""
    wanted = [sum(len(t.text) for t in peer.turns) for peer in peers]
    result = []
    for peer, allowed in zip(peers, share(wanted, max_chars)):
        parts = share([len(t.text) for t in peer.turns], allowed)
        turns = [t if len(t.text) <= n else t._replace(text=t.text[:n], cut=True) for t, n in zip(peer.turns, parts)]
        result.append(peer._replace(turns=turns))
    return result


def one_line(text: Any) -> str:
    """``text`` as one line for a heading: line breaks (any kind) and other controls become spaces."""
    if not isinstance(text, str):
        return ""
    from termsprawl_context._output import terminal_safe

    return terminal_safe(text, stand_in=" ", line_breaks=True)


def fence_for(*texts: str) -> str:
    """A backtick fence longer than any backtick run in ``texts`` (at least three)."""
    fence = "`" * MIN_FENCE
    while any(fence in text for text in texts):
        fence += "`"
    return fence


def format_peer_markdown(peer: PeerHandoff, heading: str = PEER_HEADING) -> str:
    """One peer's block: heading and transcript path on lines of their own, then its turns in
    one peer fence, each text in its own fence, which no text can close."""
    body = []
    for turn in peer.turns:
        fence = fence_for(turn.text)
        stamp = " \u00b7 " + one_line(turn.timestamp) if turn.timestamp else ""
        body.extend(["## " + turn.role + stamp, fence + TURN_FENCE_INFO, turn.text, fence])
        if turn.cut:
            body.append(CUT_MARKER % (len(turn.text), turn.chars))
    inner = "\n".join(body)
    fence = fence_for(inner)
    head = "%s%s (%s)" % (heading, one_line(peer.title), one_line(peer.id))
    lines = [head, "transcript: " + one_line(peer.path), fence + PEER_FENCE_INFO, inner, fence]
    return "\n".join(lines)


def handoff_data(peers: Sequence[PeerHandoff]) -> dict:
    return {
        "peers": [
            {
                "id": peer.id,
                "title": peer.title,
                "transcript": peer.path,
                "turns": [{key: getattr(t, key) for key in JSON_TURN_FIELDS} for t in peer.turns],
                **({"earlier": True} if peer.earlier else {}),
            }
            for peer in peers
        ]
    }


def render(peers: Sequence[PeerHandoff], fmt: str) -> str:
    """The hand-off in ``fmt`` (one of ``FORMATS``: JSON on one line, else peers' Markdown blocks
    separated by ``---`` lines), without a trailing newline."""
    if fmt != FORMAT_JSON:
        return PEER_SEPARATOR.join(format_peer_markdown(peer) for peer in peers)
    import json

    from termsprawl_context._output import terminal_safe_json

    return terminal_safe_json(json.dumps(handoff_data(peers), ensure_ascii=False))
