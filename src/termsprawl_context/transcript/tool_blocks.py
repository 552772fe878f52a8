"""Tool calls and results in entries, and the harness's answers that say a call never ran."""

from __future__ import annotations

from termsprawl_context import model
from termsprawl_context.model import ToolCall, ToolResult, as_str
from termsprawl_context.transcript.speakers import content_texts

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, List, Optional, Sequence

    from termsprawl_context.model import Entry


def _blocks(entry: Entry, entry_type: str, block_type: str) -> "List[dict]":
    """``entry``'s blocks of ``block_type`` when it is of ``entry_type`` ("": any)."""
    if (entry_type and entry.type != entry_type) or not isinstance(entry.content, list):
        return []
    return [block for block in entry.content if isinstance(block, dict) and block.get("type") == block_type]


def tool_calls(entry: Entry) -> List[ToolCall]:
    blocks = _blocks(entry, model.TYPE_ASSISTANT, "tool_use")
    return [ToolCall(as_str(block.get("id")), as_str(block.get("name")), block.get("input")) for block in blocks]


def tool_results(entry: Entry) -> List[ToolResult]:
    blocks = _blocks(entry, model.TYPE_USER, "tool_result")
    return [
        ToolResult(as_str(block.get("tool_use_id")), block.get("content"), block.get("is_error") is True)
        for block in blocks
    ]


def tool_outputs(entry: Entry) -> "List[Optional[str]]":
    """Per ``tool_results(entry)``, the tool's own output where the CLI wrapped it, else None."""
    blocks = _blocks(entry, model.TYPE_USER, "tool_result")
    return [block["output"] if isinstance(block.get("output"), str) else None for block in blocks]


def first_string(tool_input: Any, keys: Sequence[str]) -> str:
    """The first non-empty string among a call input's ``keys`` ("" when none, or not an object)."""
    values = (tool_input.get(key) for key in keys) if isinstance(tool_input, dict) else ()
    return next((value for value in values if isinstance(value, str) and value), "")


def result_texts(content: Any) -> List[str]:
    return content_texts(content, any_object=True)


def assistant_text(entry: Entry) -> str:
    if entry.type != model.TYPE_ASSISTANT:
        return ""
    return "\n".join(content_texts(entry.content))


def tool_use_ids(entry: Entry) -> List[str]:
    """The non-empty ids of an entry's ``tool_use`` blocks, whatever its type."""
    ids = (block.get("id") for block in _blocks(entry, "", "tool_use"))
    return [use_id for use_id in ids if isinstance(use_id, str) and use_id]


def is_hook_refusal(body: str) -> bool:
    """Whether a tool_result body is a PreToolUse hook blocking the call, not the tool's."""
    return body.startswith(model.HOOK_REFUSAL_PREFIX) and model.HOOK_REFUSAL_MARK in body


def not_run_kind(result: ToolResult) -> str:
    """Which ``model.NOT_RUN_*`` answer a tool result is, "" when the call ran. Only one marked
    ``is_error`` can say so: a tool's own output may print anything."""
    if not result.is_error:
        return ""
    for body in result_texts(result.content):
        if is_hook_refusal(body):
            return model.NOT_RUN_HOOK
        for kind, openings in model.NOT_RUN_PREFIXES:
            for opening in openings:
                if body.startswith(opening):
                    if opening == model.NOT_RUN_DENIED_OPENING and model.NOT_RUN_DENIED not in body:
                        continue
                    return kind
    return ""
