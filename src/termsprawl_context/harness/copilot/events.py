"""One Copilot CLI ``events.jsonl`` line → the record model's ``Entry`` values, and the
file read forward or newest first (1.0.102; the kinds are in ``facts``).

- ``user.message``: the person's words are ``data.content`` (never ``transformedContent``,
  which prefixes ``<current_datetime>``), only when the line has no ``agentId`` and no
  ``data.source``; a sub-agent's prompt (``agentId``, ``source: "agent-<parent id>"``) is
  the sub-agent's (``is_sidechain``) and any other sourced message the harness's (``is_meta``).
- ``system.message``: the system prompt, a ``system`` entry (``is_meta``);
  ``system.notification``: the harness's note to the model (``is_meta``);
  ``session.compaction_complete``: its ``summaryContent`` (``is_compact_summary``);
  ``assistant.reasoning``: a thinking block (these three read in the bundle, not yet seen).
- ``hook.end``: a hook's ``additionalContext`` reached the model as a user message of its
  own (``is_meta``); nothing else a hook wrote is read.
- ``assistant.message``: its text and ``toolRequests`` (``tool_use`` blocks);
  ``tool.execution_complete``: the ``tool_result`` of its ``toolCallId``.
- A line with a top-level ``agentId`` is a sub-agent's turn inlined in the session
  (``is_sidechain``, ``agent_id``).

Every line stands alone (no line revises another), so reading from the end gives the same
entries newest first at the cost of the tail.
"""

from __future__ import annotations

from termsprawl_context.harness.blocks import tool_use
from termsprawl_context.harness.copilot import facts

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Iterator

    from termsprawl_context.transcript.entry import Entry


def _str(value) -> str:
    return value if isinstance(value, str) else ""


def _entry(kind: str, blocks: list, record: dict, line: int, offset: int, **flags) -> "Entry":
    from termsprawl_context.transcript.entry import Entry

    data = record.get("data")
    agent = _str(record.get(facts.FIELD_AGENT_ID))
    role = "assistant" if kind == "assistant" else ("system" if kind == "system" else "user")
    message = {"role": role, "content": blocks}  # type: dict
    return Entry(
        type=kind,
        uuid=_str(record.get("id")),
        parent_uuid=_str(record.get("parentId")),
        logical_parent_uuid="",
        session_id=flags.get("session_id", ""),
        timestamp=_str(record.get("timestamp")),
        cwd=flags.get("cwd", ""),
        git_branch="",
        is_sidechain=bool(agent) or flags.get("sidechain", False),
        is_meta=flags.get("meta", False),
        is_compact_summary=flags.get("summary", False),
        is_transcript_only=False,
        agent_id=agent,
        message=message,
        content=blocks,
        tool_use_result=data.get("result") if isinstance(data, dict) and kind == "user" else None,
        attachment=None,
        line=line,
        offset=offset,
        record=record,
    )


def _text(text: str) -> list:
    return [{"type": "text", "text": text}] if text else []


def _tool_uses(requests) -> list:
    blocks = []
    for request in requests if isinstance(requests, list) else ():
        if isinstance(request, dict) and _str(request.get("toolCallId")):
            blocks.append(tool_use(request["toolCallId"], _str(request.get("name")), request.get("arguments")))
    return blocks


def _tool_result(data: dict) -> list:
    call = _str(data.get("toolCallId"))
    if not call:
        return []
    result, error = data.get("result"), data.get("error")
    text = _str(result.get("content")) if isinstance(result, dict) else _str(result)
    if not text and isinstance(error, dict):
        text = _str(error.get("message"))
    elif not text:
        text = _str(error)
    failed = data.get("success") is False or bool(error)
    return [{"type": "tool_result", "tool_use_id": call, "content": text, "is_error": failed}]


def line_entries(record: dict, line: int, offset: int, session_id: str = "", cwd: str = "") -> list:
    """The entries one parsed events line stands for ([] for the client's bookkeeping)."""
    kind, data = record.get("type"), record.get("data")
    if not isinstance(data, dict):
        return []
    ids = {"session_id": session_id, "cwd": cwd}
    if kind == facts.KIND_USER:
        text = _str(data.get("content"))
        sourced = bool(_str(data.get(facts.USER_SOURCE)))
        agent = bool(_str(record.get(facts.FIELD_AGENT_ID)))
        meta = sourced and not agent
        return [_entry("user", _text(text), record, line, offset, meta=meta, sidechain=sourced, **ids)] if text else []
    if kind == facts.KIND_ASSISTANT:
        blocks = _text(_str(data.get("content"))) + _tool_uses(data.get("toolRequests"))
        return [_entry("assistant", blocks, record, line, offset, **ids)] if blocks else []
    if kind == facts.KIND_TOOL_DONE:
        blocks = _tool_result(data)
        return [_entry("user", blocks, record, line, offset, **ids)] if blocks else []
    if kind == facts.KIND_SYSTEM:
        text = _str(data.get("content"))
        return [_entry("system", _text(text), record, line, offset, meta=True, **ids)] if text else []
    if kind in (facts.KIND_NOTIFICATION, facts.KIND_COMPACTED):
        text = _str(data.get("content" if kind == facts.KIND_NOTIFICATION else "summaryContent"))
        flag = {"meta": True} if kind == facts.KIND_NOTIFICATION else {"summary": True}
        return [_entry("user", _text(text), record, line, offset, **dict(flag, **ids))] if text else []
    if kind == facts.KIND_REASONING:
        text = _str(data.get("content"))
        return (
            [_entry("assistant", [{"type": "thinking", "thinking": text}], record, line, offset, **ids)] if text else []
        )
    if kind == facts.KIND_HOOK_END:
        output = data.get("output")
        text = _str(output.get("additionalContext")) if isinstance(output, dict) else ""
        return [_entry("user", _text(text), record, line, offset, meta=True, **ids)] if text else []
    return []


def session_head(path: str) -> dict:
    """The ``session.start`` line's ``data`` ({} when the file does not open with one)."""
    from termsprawl_context.harness.base import head_value

    found = {}  # type: dict

    def pick(record: dict) -> str:
        data = record.get("data")
        if record.get("type") == facts.KIND_SESSION_START and isinstance(data, dict):
            found.update(data)
            return "found"
        return ""

    head_value(path, pick)
    return found


def _context(head: dict) -> tuple:
    context = head.get("context")
    cwd = _str(context.get("cwd")) if isinstance(context, dict) else ""
    return _str(head.get("sessionId")), cwd


def events_entries(path: str) -> Iterator[Entry]:
    """The file's entries, forward. Raises OSError when it cannot be opened."""
    from termsprawl_context.jsonl import iter_lines, open_regular, parse_object

    with open_regular(path) as f:
        session_id, cwd = facts.session_folder_id(path), ""
        for line in iter_lines(f):
            record = parse_object(line.raw)
            if record is None:
                continue
            data = record.get("data")
            if line.number == 1 and record.get("type") == facts.KIND_SESSION_START and isinstance(data, dict):
                found, cwd = _context(data)
                session_id = found or session_id
            for entry in line_entries(record, line.number, line.offset, session_id, cwd):
                yield entry


def events_entries_reverse(path: str) -> Iterator[Entry]:
    """``events_entries`` newest first, from the end (``line`` 0; the head read once for
    the session id and directory). Raises OSError when it cannot be opened."""
    from termsprawl_context.jsonl import iter_lines_reverse, open_regular, parse_object

    found, cwd = _context(session_head(path))
    session_id = found or facts.session_folder_id(path)
    with open_regular(path) as f:
        for offset, raw in iter_lines_reverse(f):
            record = parse_object(raw)
            if record is None:
                continue
            for entry in reversed(line_entries(record, 0, offset, session_id, cwd)):
                yield entry
