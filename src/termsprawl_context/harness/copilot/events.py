"""One Copilot CLI ``events.jsonl`` line → the record model's ``Entry`` values (1.0.102;
the kinds are in ``facts``).

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
entries newest first at the cost of the tail (``linelog``), each with the session id and
directory ``session.start`` names.
"""

from __future__ import annotations

from termsprawl_context.harness.blocks import as_str, line_ids, new_entry, tool_use
from termsprawl_context.harness.copilot import facts

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from termsprawl_context.model import Entry


def _entry(kind: str, blocks: list, record: dict, line: int, offset: int, **flags) -> "Entry":
    data = record.get("data")
    agent = as_str(record.get(facts.FIELD_AGENT_ID))
    flags.setdefault("is_sidechain", bool(agent))
    flags.update(line_ids(record), agent_id=agent, role="system" if kind == "system" else "")
    flags["tool_use_result"] = data.get("result") if isinstance(data, dict) and kind == "user" else None
    return new_entry(kind, blocks, record, line, offset, **flags)


def _text(text: str) -> list:
    return [{"type": "text", "text": text}] if text else []


def _tool_uses(requests) -> list:
    blocks = []
    for request in requests if isinstance(requests, list) else ():
        if isinstance(request, dict) and as_str(request.get("toolCallId")):
            blocks.append(tool_use(request["toolCallId"], as_str(request.get("name")), request.get("arguments")))
    return blocks


def _tool_result(data: dict) -> list:
    call = as_str(data.get("toolCallId"))
    if not call:
        return []
    result, error = data.get("result"), data.get("error")
    text = as_str(result.get("content")) if isinstance(result, dict) else as_str(result)
    if not text and isinstance(error, dict):
        text = as_str(error.get("message"))
    elif not text:
        text = as_str(error)
    failed = data.get("success") is False or bool(error)
    return [{"type": "tool_result", "tool_use_id": call, "content": text, "is_error": failed}]


def line_entries(record: dict, line: int, offset: int, session_id: str = "", cwd: str = "") -> list:
    """The entries one parsed events line stands for ([] for the client's bookkeeping)."""
    kind, data = record.get("type"), record.get("data")
    if not isinstance(data, dict):
        return []
    ids = {"session_id": session_id, "cwd": cwd}
    if kind == facts.KIND_USER:
        text = as_str(data.get("content"))
        sourced = bool(as_str(data.get(facts.USER_SOURCE)))
        agent = bool(as_str(record.get(facts.FIELD_AGENT_ID)))
        meta = sourced and not agent
        return (
            [_entry("user", _text(text), record, line, offset, is_meta=meta, is_sidechain=sourced or agent, **ids)]
            if text
            else []
        )
    if kind == facts.KIND_ASSISTANT:
        blocks = _text(as_str(data.get("content"))) + _tool_uses(data.get("toolRequests"))
        return [_entry("assistant", blocks, record, line, offset, **ids)] if blocks else []
    if kind == facts.KIND_TOOL_DONE:
        blocks = _tool_result(data)
        return [_entry("user", blocks, record, line, offset, **ids)] if blocks else []
    if kind == facts.KIND_SYSTEM:
        text = as_str(data.get("content"))
        return [_entry("system", _text(text), record, line, offset, is_meta=True, **ids)] if text else []
    if kind in (facts.KIND_NOTIFICATION, facts.KIND_COMPACTED):
        text = as_str(data.get("content" if kind == facts.KIND_NOTIFICATION else "summaryContent"))
        flag = {"is_meta": True} if kind == facts.KIND_NOTIFICATION else {"is_compact_summary": True}
        return [_entry("user", _text(text), record, line, offset, **dict(flag, **ids))] if text else []
    if kind == facts.KIND_REASONING:
        text = as_str(data.get("content"))
        return (
            [_entry("assistant", [{"type": "thinking", "thinking": text}], record, line, offset, **ids)] if text else []
        )
    if kind == facts.KIND_HOOK_END:
        output = data.get("output")
        text = as_str(output.get("additionalContext")) if isinstance(output, dict) else ""
        return [_entry("user", _text(text), record, line, offset, is_meta=True, **ids)] if text else []
    return []
