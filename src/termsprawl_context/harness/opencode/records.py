"""OpenCode's rows as the record model's ``Entry`` (the shape ``harness/base.py`` gives),
forward and newest first, one message at a time (observed on OpenCode 1.18.33).

A message's parts become at most three entries, in this order: the person's words (a user
message's ``text`` parts not marked ``synthetic``/``ignored``), the harness's (its
synthetic text and what it attached: ``is_meta``), or, for an assistant message, its text,
reasoning and tool calls, then one ``user`` entry with the calls' results (as Claude Code
records them). A compaction's assistant message (``summary: true``) is
``is_compact_summary``. A sub-agent's session (``parent_id`` set) is all sub-agent
(``is_sidechain``, ``agent_id`` its own id): its "user" messages are the parent model's.
"""

from termsprawl_context.harness.blocks import as_str, iso_ms, new_entry
from termsprawl_context.harness.opencode import facts
from termsprawl_context.jsonl import parse_object

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Iterable, Iterator, List, Optional

    from termsprawl_context.model import Entry


class Session(object):
    """The facts of one session row every entry carries."""

    __slots__ = ("session_id", "directory", "sub_agent")

    def __init__(self, session_id: str, directory: str, sub_agent: bool) -> None:
        self.session_id, self.directory, self.sub_agent = session_id, directory, sub_agent


def group_messages(rows: "Iterable[tuple]") -> "Iterator[tuple]":
    """``(message id, message data, [part data, ...])`` from joined rows, in the rows'
    order (their parts in the rows' order too); a message's parts are consecutive rows."""
    current, data, parts = None, None, []  # type: Optional[str], Optional[dict], List[dict]
    for message_id, message_data, _part_id, part_data in rows:
        if message_id != current:
            if current is not None:
                yield current, data, parts
            current, parts = message_id, []
            data = parse_object(message_data) if isinstance(message_data, str) else None
        part = parse_object(part_data) if isinstance(part_data, str) else None
        if part is not None:
            parts.append(part)
    if current is not None:
        yield current, data, parts


def _tool_blocks(part: dict) -> "tuple":
    """``(tool_use block, tool_result block or None)`` of a tool part."""
    found = part.get("state")
    state = found if isinstance(found, dict) else {}  # type: dict
    call_id = as_str(part.get("callID")) or as_str(part.get("id"))
    use = {"type": "tool_use", "id": call_id, "name": as_str(part.get("tool")), "input": state.get("input") or {}}
    status = as_str(state.get("status"))
    if status not in ("completed", facts.STATUS_ERROR):
        return use, None
    failed = status == facts.STATUS_ERROR
    output = as_str(state.get("error") if failed else state.get("output"))
    result = {"type": "tool_result", "tool_use_id": call_id, "content": output, "is_error": failed}
    return use, result


def message_entries(
    session: Session, message_id: str, data: "Optional[dict]", parts: "List[dict]", line: int
) -> "List[Entry]":
    """The entries of one message, in order (see the module docstring); ``line`` is the
    ordinal the first one is given (0 for a reverse read)."""
    if not isinstance(data, dict):
        return []
    role = as_str(data.get("role"))
    times = data.get("time")
    created = times.get("created") if isinstance(times, dict) else None
    ids = {
        "session_id": session.session_id,
        "cwd": session.directory,
        "timestamp": iso_ms(created),
        "is_sidechain": session.sub_agent,
        "agent_id": session.session_id if session.sub_agent else "",
    }
    found = []  # type: List[Entry]

    def add(kind: str, uuid: str, blocks: list, meta: bool = False, summary: bool = False) -> None:
        if blocks:
            number = line + len(found) if line else 0
            found.append(
                new_entry(kind, blocks, data, number, -1, uuid=uuid, is_meta=meta, is_compact_summary=summary, **ids)
            )

    if role == facts.ROLE_USER:
        typed, injected = [], []  # type: List[dict], List[dict]
        for part in parts:
            kind = as_str(part.get("type"))
            if kind == facts.PART_TEXT and isinstance(part.get("text"), str):
                not_typed = part.get("synthetic") is True or part.get("ignored") is True
                (injected if not_typed else typed).append({"type": "text", "text": part["text"]})
            elif kind in facts.PART_NOT_TYPED:
                injected.append({"type": "text", "text": "[%s]" % kind})
        add("user", message_id, typed)
        add("user", message_id + ":meta", injected, meta=True)
    elif role == facts.ROLE_ASSISTANT:
        blocks, results = [], []  # type: List[dict], List[dict]
        for part in parts:
            kind = as_str(part.get("type"))
            if kind == facts.PART_TEXT and isinstance(part.get("text"), str) and part.get("synthetic") is not True:
                blocks.append({"type": "text", "text": part["text"]})
            elif kind == facts.PART_REASONING and isinstance(part.get("text"), str):
                blocks.append({"type": "thinking", "thinking": part["text"]})
            elif kind == facts.PART_TOOL:
                use, result = _tool_blocks(part)
                blocks.append(use)
                if result is not None:
                    results.append(result)
        summary = data.get("summary") is True
        add("assistant", message_id, blocks, summary=summary)
        add("user", message_id + ":results", results)
    return found
