"""One pi session line → the record model's ``Entry`` values (0.73.1, format v3; the kinds
are in ``facts``).

- ``message`` role ``user``: the person's words (a string, or its ``text`` blocks);
  ``assistant``: text, thinking and ``toolCall`` blocks (``tool_use``); ``toolResult``: a
  ``tool_result`` of its ``toolCallId``; ``bashExecution`` (a ``!cmd`` and its output) and
  ``custom``: the harness's (``is_meta``); the summary roles: ``is_compact_summary``.
- ``custom_message``: an extension's text the model read as a user message (termsprawl's
  own context line among them): ``is_meta``, never the person's.
- ``compaction`` / ``branch_summary``: their ``summary`` (``is_compact_summary``).

Every line stands alone, so reading from the end gives the same entries newest first
(``linelog``), each with the session id and directory of the header, the file's first line.
"""

from __future__ import annotations

from termsprawl_context.harness.blocks import as_str, line_ids, new_entry, tool_use
from termsprawl_context.harness.pi import facts


def _entry(kind: str, blocks: list, record: dict, line: int, offset: int, session_id: str, cwd: str, **flags):
    return new_entry(kind, blocks, record, line, offset, session_id=session_id, cwd=cwd, **line_ids(record), **flags)


def _texts(content) -> list:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    found = []
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "text" and as_str(block.get("text")):
            found.append({"type": "text", "text": block["text"]})
    return found


def _assistant_blocks(content) -> list:
    found = []
    for block in content if isinstance(content, list) else ():
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and as_str(block.get("text")):
            found.append({"type": "text", "text": block["text"]})
        elif kind == "thinking" and as_str(block.get("thinking")):
            found.append({"type": "thinking", "thinking": block["thinking"]})
        elif kind == "toolCall" and as_str(block.get("id")):
            found.append(tool_use(block["id"], as_str(block.get("name")), block.get("arguments")))
    return found


def _message_entries(record: dict, message: dict, args: tuple) -> list:
    role = message.get("role")
    if role == facts.ROLE_USER:
        blocks = _texts(message.get("content"))
        return [_entry("user", blocks, *args)] if blocks else []
    if role == facts.ROLE_ASSISTANT:
        blocks = _assistant_blocks(message.get("content"))
        return [_entry("assistant", blocks, *args)] if blocks else []
    if role == facts.ROLE_TOOL_RESULT and as_str(message.get("toolCallId")):
        text = "\n".join(b["text"] for b in _texts(message.get("content")))
        block = {"type": "tool_result", "tool_use_id": message["toolCallId"], "content": text}
        block["is_error"] = message.get("isError") is True
        return [_entry("user", [block], *args)]
    if role == facts.ROLE_BASH:
        text = "\n".join(filter(None, (as_str(message.get("command")), as_str(message.get("output")))))
        return [_entry("user", _texts(text), *args, is_meta=True)] if text else []
    if role == facts.ROLE_CUSTOM:
        blocks = _texts(message.get("content"))
        return [_entry("user", blocks, *args, is_meta=True)] if blocks else []
    if role in facts.ROLES_SUMMARY:
        blocks = _texts(as_str(message.get("summary")))
        return [_entry("user", blocks, *args, is_compact_summary=True)] if blocks else []
    return []


def line_entries(record: dict, line: int, offset: int, session_id: str, cwd: str) -> list:
    """The entries one parsed session line stands for ([] for the header and the client's
    bookkeeping)."""
    kind = record.get("type")
    args = (record, line, offset, session_id, cwd)
    if kind == facts.KIND_MESSAGE:
        message = record.get("message")
        return _message_entries(record, message, args) if isinstance(message, dict) else []
    if kind == facts.KIND_CUSTOM_MESSAGE:
        blocks = _texts(record.get("content"))
        return [_entry("user", blocks, *args, is_meta=True)] if blocks else []
    if kind in (facts.KIND_COMPACTION, facts.KIND_BRANCH_SUMMARY):
        blocks = _texts(as_str(record.get("summary")))
        return [_entry("user", blocks, *args, is_compact_summary=True)] if blocks else []
    return []
