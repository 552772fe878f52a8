"""Tool calls and tool results in a transcript's entries: the ``tool_use`` blocks of an
assistant entry, the ``tool_result`` blocks of a user entry, their bodies, and the
harness's answers that say a call never ran (a hook's refusal, a denial). Read from an
``Entry``'s fields; ``entry`` re-exports every name here.
"""

from __future__ import annotations

from termsprawl_context import model
from termsprawl_context.model import ToolCall, ToolResult
from termsprawl_context.transcript.speakers import content_texts

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, List, Optional

    from termsprawl_context.transcript.entry import Entry


def _blocks(entry: Entry, entry_type: str, block_type: str) -> "List[dict]":
    """The content blocks of type ``block_type`` when ``entry`` is of ``entry_type``."""
    if entry.type != entry_type or not isinstance(entry.content, list):
        return []
    return [block for block in entry.content if isinstance(block, dict) and block.get("type") == block_type]


def _string(value: Any) -> str:
    return value if isinstance(value, str) else ""


def tool_calls(entry: Entry) -> List[ToolCall]:
    """The tool calls of an assistant entry, in block order; [] for other entries."""
    blocks = _blocks(entry, model.TYPE_ASSISTANT, "tool_use")
    return [ToolCall(_string(block.get("id")), _string(block.get("name")), block.get("input")) for block in blocks]


def tool_results(entry: Entry) -> List[ToolResult]:
    """The tool results a user entry carries, in block order; [] for other entries."""
    blocks = _blocks(entry, model.TYPE_USER, "tool_result")
    return [
        ToolResult(_string(block.get("tool_use_id")), block.get("content"), block.get("is_error") is True)
        for block in blocks
    ]


def tool_outputs(entry: Entry) -> "List[Optional[str]]":
    """Per tool result of ``tool_results(entry)``, the tool's own output where the CLI
    wrapped it in lines of its own (the block's ``output``), else None."""
    blocks = _blocks(entry, model.TYPE_USER, "tool_result")
    return [block["output"] if isinstance(block.get("output"), str) else None for block in blocks]


def result_texts(content: Any) -> List[str]:
    """The bodies of a tool result's content: a string is one body; in a list, the
    non-empty string ``text`` of every element, whatever its type."""
    return content_texts(content, any_object=True)


def assistant_text(entry: Entry) -> str:
    """An assistant entry's ``text`` blocks joined by newlines ("" for other entries)."""
    if entry.type != model.TYPE_ASSISTANT:
        return ""
    return "\n".join(content_texts(entry.content))


def tool_use_ids(entry: Entry) -> List[str]:
    """The non-empty ids of the ``tool_use`` blocks in an entry's content, whatever the
    entry's type (a string content has none)."""
    if not isinstance(entry.content, list):
        return []
    return [
        block["id"]
        for block in entry.content
        if isinstance(block, dict)
        and block.get("type") == "tool_use"
        and isinstance(block.get("id"), str)
        and block["id"]
    ]


def is_hook_refusal(body: str) -> bool:
    """Whether a tool_result body is a PreToolUse hook blocking the call
    (``PreToolUse:<Tool> hook error: <reason>``) rather than anything the tool produced."""
    return body.startswith(model.HOOK_REFUSAL_PREFIX) and model.HOOK_REFUSAL_MARK in body


def not_run_kind(result: ToolResult) -> str:
    """Which of the harness's "this call never ran" answers a tool result is (one of
    ``model.NOT_RUN_*`` kinds), or "" when the call ran.

    Only a result marked ``is_error`` can say so: a tool's own output may print
    anything, and text that merely looks like a refusal must not unmake a call."""
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
