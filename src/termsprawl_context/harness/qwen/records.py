"""Qwen Code 0.24.4 chat lines normalised into ``Entry`` (``harness/base.py`` has the shape).

- ``type:"user"``, ``provenance:"real_user"``: the person's typed text (Qwen records only
  what was typed; the ``<system-reminder>`` blocks it sends the model are not recorded).
- ``type:"user"`` with a ``subtype`` (``notification``: a background sub-agent finished, its
  ``<task-notification>`` text) or ``provenance:"system"``: harness text (``is_meta``).
- ``type:"assistant"``: ``parts`` ``text`` (``thought: true`` a thinking block) and
  ``functionCall`` (a ``tool_use``).
- ``type:"tool_result"``: ``functionResponse`` parts (a ``tool_result``; the shell tool's
  ``response.output`` opens with ``Command:``/``Directory:`` lines of Qwen's own).
- ``type:"system"``: ``attribution_snapshot``, ``ui_telemetry``, ``chat_compression``
  (``systemPayload.info`` token counts; the compressed history itself is not recorded):
  kept as system entries, printed nowhere.
A sub-agent's file has the same lines; its entries are the sub-agent's (``is_sidechain``).
"""

from __future__ import annotations

import json

from termsprawl_context.harness.blocks import as_str, new_entry, part_text

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Optional


PROVENANCE_PERSON = "real_user"
KIND_USER, KIND_ASSISTANT, KIND_TOOL_RESULT, KIND_SYSTEM = "user", "assistant", "tool_result", "system"
# A line's type -> its entry's kind (a tool result stands as the user's turn, as in Claude's records).
_ENTRY_KINDS = {KIND_SYSTEM: "system", KIND_ASSISTANT: "assistant", KIND_TOOL_RESULT: "user", KIND_USER: "user"}


def _parts(record: dict) -> list:
    message = record.get("message")
    parts = message.get("parts") if isinstance(message, dict) else None
    return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []


def _call(part: dict) -> "Optional[dict]":
    call = part.get("functionCall")
    if not isinstance(call, dict):
        return None
    args = call.get("args")
    return {"type": "tool_use", "id": as_str(call.get("id")), "name": as_str(call.get("name")), "input": args}


def _result(part: dict) -> "Optional[dict]":
    response = part.get("functionResponse")
    if not isinstance(response, dict):
        return None
    body = response.get("response")
    output = body.get("output") if isinstance(body, dict) else body
    error = isinstance(body, dict) and "error" in body and "output" not in body
    if isinstance(body, dict) and error:
        output = body.get("error")
    text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False, default=str)
    return {"type": "tool_result", "tool_use_id": as_str(response.get("id")), "content": text, "is_error": error}


def _blocks(parts: list, kind: str) -> list:
    blocks = []
    for part in parts:
        block = part_text(part) or (_call(part) if kind == KIND_ASSISTANT else _result(part))
        if block is not None:
            blocks.append(block)
    return blocks


def line_to_entries(record: dict, line: int, offset: int, agent_id: str = "") -> list:
    """The entries of one chat line (at most one)."""
    kind = record.get("type")
    fields = {
        "uuid": as_str(record.get("uuid")),
        "parent_uuid": as_str(record.get("parentUuid")),
        "session_id": as_str(record.get("sessionId")),
        "timestamp": as_str(record.get("timestamp")),
        "cwd": as_str(record.get("cwd")),
        "is_sidechain": bool(agent_id),
        "agent_id": agent_id,
    }
    if not isinstance(kind, str) or kind not in _ENTRY_KINDS:
        return []
    blocks = [] if kind == KIND_SYSTEM else _blocks(_parts(record), kind)
    typed = record.get("provenance") == PROVENANCE_PERSON and not record.get("subtype")
    meta = kind == KIND_USER and not typed
    return [new_entry(_ENTRY_KINDS[kind], blocks, record, line, offset, is_meta=meta, **fields)]
