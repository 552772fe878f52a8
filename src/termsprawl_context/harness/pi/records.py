"""One pi session line → the record model's ``Entry`` values, and a session file read
forward or newest first (0.73.1, format v3; the kinds are in ``facts``).

- ``message`` role ``user``: the person's words (a string, or its ``text`` blocks);
  ``assistant``: text, thinking and ``toolCall`` blocks (``tool_use``); ``toolResult``: a
  ``tool_result`` of its ``toolCallId``; ``bashExecution`` (a ``!cmd`` and its output) and
  ``custom``: the harness's (``is_meta``); the summary roles: ``is_compact_summary``.
- ``custom_message``: an extension's text the model read as a user message (termsprawl's
  own context line among them): ``is_meta``, never the person's.
- ``compaction`` / ``branch_summary``: their ``summary`` (``is_compact_summary``).

Every line stands alone, so reading from the end gives the same entries newest first.
"""

from __future__ import annotations

from termsprawl_context.harness.blocks import tool_use
from termsprawl_context.harness.pi import facts

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Iterator

    from termsprawl_context.transcript.entry import Entry


def _str(value) -> str:
    return value if isinstance(value, str) else ""


def _entry(kind: str, blocks: list, record: dict, line: int, offset: int, head: dict, **flags) -> "Entry":
    from termsprawl_context.transcript.entry import Entry

    message = {"role": "assistant" if kind == "assistant" else "user", "content": blocks}
    return Entry(
        type=kind,
        uuid=_str(record.get("id")),
        parent_uuid=_str(record.get("parentId")),
        logical_parent_uuid="",
        session_id=_str(head.get("id")),
        timestamp=_str(record.get("timestamp")),
        cwd=_str(head.get("cwd")),
        git_branch="",
        is_sidechain=False,
        is_meta=flags.get("meta", False),
        is_compact_summary=flags.get("summary", False),
        is_transcript_only=False,
        agent_id="",
        message=message,
        content=blocks,
        tool_use_result=None,
        attachment=None,
        line=line,
        offset=offset,
        record=record,
    )


def _texts(content) -> list:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    found = []
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "text" and _str(block.get("text")):
            found.append({"type": "text", "text": block["text"]})
    return found


def _assistant_blocks(content) -> list:
    found = []
    for block in content if isinstance(content, list) else ():
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and _str(block.get("text")):
            found.append({"type": "text", "text": block["text"]})
        elif kind == "thinking" and _str(block.get("thinking")):
            found.append({"type": "thinking", "thinking": block["thinking"]})
        elif kind == "toolCall" and _str(block.get("id")):
            found.append(tool_use(block["id"], _str(block.get("name")), block.get("arguments")))
    return found


def _message_entries(record: dict, message: dict, line: int, offset: int, head: dict) -> list:
    role = message.get("role")
    args = (record, line, offset, head)
    if role == facts.ROLE_USER:
        blocks = _texts(message.get("content"))
        return [_entry("user", blocks, *args)] if blocks else []
    if role == facts.ROLE_ASSISTANT:
        blocks = _assistant_blocks(message.get("content"))
        return [_entry("assistant", blocks, *args)] if blocks else []
    if role == facts.ROLE_TOOL_RESULT and _str(message.get("toolCallId")):
        text = "\n".join(b["text"] for b in _texts(message.get("content")))
        block = {"type": "tool_result", "tool_use_id": message["toolCallId"], "content": text}
        block["is_error"] = message.get("isError") is True
        return [_entry("user", [block], *args)]
    if role == facts.ROLE_BASH:
        text = "\n".join(filter(None, (_str(message.get("command")), _str(message.get("output")))))
        return [_entry("user", _texts(text), *args, meta=True)] if text else []
    if role == facts.ROLE_CUSTOM:
        blocks = _texts(message.get("content"))
        return [_entry("user", blocks, *args, meta=True)] if blocks else []
    if role in facts.ROLES_SUMMARY:
        blocks = _texts(_str(message.get("summary")))
        return [_entry("user", blocks, *args, summary=True)] if blocks else []
    return []


def line_entries(record: dict, line: int, offset: int, head: dict) -> list:
    """The entries one parsed session line stands for ([] for the client's bookkeeping)."""
    kind = record.get("type")
    if kind == facts.KIND_MESSAGE:
        message = record.get("message")
        return _message_entries(record, message, line, offset, head) if isinstance(message, dict) else []
    if kind == facts.KIND_CUSTOM_MESSAGE:
        blocks = _texts(record.get("content"))
        return [_entry("user", blocks, record, line, offset, head, meta=True)] if blocks else []
    if kind in (facts.KIND_COMPACTION, facts.KIND_BRANCH_SUMMARY):
        blocks = _texts(_str(record.get("summary")))
        return [_entry("user", blocks, record, line, offset, head, summary=True)] if blocks else []
    return []


def header_of(path: str) -> dict:
    """The header line (``type: "session"``) as a dict, {} when the file opens otherwise."""
    from termsprawl_context.harness.base import head_value

    found = {}  # type: dict

    def pick(record: dict) -> str:
        if record.get("type") == facts.KIND_HEADER:
            found.update(record)
        return "done"  # only the first parsed record can be the header

    head_value(path, pick)
    return found


def session_entries(path: str) -> Iterator[Entry]:
    """The file's entries, forward. Raises OSError when it cannot be opened."""
    from termsprawl_context.jsonl import iter_lines, open_regular, parse_object

    head = {"id": facts.session_id_of(path)}  # type: dict
    with open_regular(path) as f:
        for line in iter_lines(f):
            record = parse_object(line.raw)
            if record is None:
                continue
            if record.get("type") == facts.KIND_HEADER and line.number == 1:
                head = {"id": _str(record.get("id")) or head["id"], "cwd": _str(record.get("cwd"))}
                continue
            for entry in line_entries(record, line.number, line.offset, head):
                yield entry


def session_entries_reverse(path: str) -> Iterator[Entry]:
    """``session_entries`` newest first, from the end (``line`` 0; the header read once).
    Raises OSError when it cannot be opened."""
    from termsprawl_context.jsonl import iter_lines_reverse, open_regular, parse_object

    header = header_of(path)
    head = {"id": _str(header.get("id")) or facts.session_id_of(path), "cwd": _str(header.get("cwd"))}
    with open_regular(path) as f:
        for offset, raw in iter_lines_reverse(f):
            record = parse_object(raw)
            if record is None or (offset == 0 and record.get("type") == facts.KIND_HEADER):
                continue
            for entry in reversed(line_entries(record, 0, offset, head)):
                yield entry
