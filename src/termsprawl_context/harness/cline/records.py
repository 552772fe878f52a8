"""Cline CLI's files read whole, within the line readers' bound, and its messages as the
record model's ``Entry`` (observed on Cline CLI 3.0.65).

A messages file is one JSON document rewritten whole, so no tail of it is a document: it is
read in one piece of at most ``jsonl.MAX_LINE_BYTES`` (16 MiB; a larger file reads as
empty, fail open), its messages are found in its bytes (``spans.py``) and parsed one at a
time under ``jsonl.parse_object``'s cost model (a message over it reads as absent), which
keeps a reader under 64 MB; the dump parses only the last messages.
"""

from termsprawl_context.harness.blocks import as_str, iso_ms, new_entry
from termsprawl_context.harness.cline import facts
from termsprawl_context.jsonl import open_regular, parse_object, read_within_bound

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, Iterable, Iterator, Optional, Tuple

    from termsprawl_context.model import Entry


def _read_document(path: str) -> "Optional[dict]":
    """The JSON object in ``path`` (bounded), or None when it is not one. Raises OSError
    when ``path`` cannot be opened as a regular file."""
    data = read_bytes(path)
    return parse_object(data) if data else None


def manifest_of(messages_file: str) -> dict:
    """The session's manifest (``<id>.json`` beside its messages), {} when unreadable."""
    if not messages_file.endswith(facts.MESSAGES_SUFFIX):
        return {}
    try:
        found = _read_document(messages_file[: -len(facts.MESSAGES_SUFFIX)] + facts.MANIFEST_SUFFIX)
    except OSError:
        return {}
    return found or {}


def split_user_input(text: str) -> "tuple":
    """``(typed, rest)``: the words inside ``<user_input mode="...">…</user_input>`` when
    the text is so wrapped, else ("", text): unwrapped text is the CLI's."""
    stripped = text.strip()
    if not stripped.startswith(facts.USER_INPUT_OPEN):
        return "", text
    end_tag = stripped.find(">")
    close = stripped.rfind(facts.USER_INPUT_CLOSE)
    if end_tag < 0 or close < end_tag:
        return "", text
    rest = stripped[close + len(facts.USER_INPUT_CLOSE) :].strip()
    return stripped[end_tag + 1 : close], rest


def _result_text(content: "Any") -> str:
    if isinstance(content, str):
        return content
    items = content if isinstance(content, list) else []
    values = [i.get("result", i.get("text")) if isinstance(i, dict) else i for i in items if isinstance(i, (dict, str))]
    return "\n".join(v if isinstance(v, str) else "" for v in values)


def read_bytes(path: str) -> bytes:
    """The file's bytes, at most ``MAX_LINE_BYTES`` (b"" for a larger one); raises OSError
    when ``path`` cannot be opened as a regular file."""
    with open_regular(path) as f:
        return read_within_bound(f)


def message_entries(session_id: str, cwd: str, messages: "Iterable[Tuple[int, Any]]") -> "Iterator[Entry]":
    """Each ``(index, message)`` as its entries: a user message's typed words, the CLI's
    text (``is_meta``), its tool results; an assistant message's text, thinking and calls."""
    for index, message in messages:
        if not isinstance(message, dict) or not isinstance(message.get("content"), (list, str)):
            continue
        role, uuid = as_str(message.get("role")), as_str(message.get("id"))
        ids = {"session_id": session_id, "cwd": cwd, "timestamp": iso_ms(message.get("ts"))}
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        line = index + 1
        if role == "user":
            typed, injected, results = [], [], []  # type: list, list, list
            for block in blocks:
                kind = as_str(block.get("type")) if isinstance(block, dict) else ""
                if kind == "text" and isinstance(block.get("text"), str):
                    words, rest = split_user_input(block["text"])
                    if words:
                        typed.append({"type": "text", "text": words})
                    if rest.strip():
                        injected.append({"type": "text", "text": rest})
                elif kind == "tool_result":
                    results.append(
                        {
                            "type": "tool_result",
                            "tool_use_id": as_str(block.get("tool_use_id")),
                            "content": _result_text(block.get("content")),
                            "is_error": block.get("is_error") is True,
                        }
                    )
            for kind_blocks, meta, suffix in (
                (typed, False, ""),
                (injected, True, ":meta"),
                (results, False, ":results"),
            ):
                if kind_blocks:
                    yield new_entry("user", kind_blocks, message, line, -1, uuid=uuid + suffix, is_meta=meta, **ids)
        elif role == "assistant":
            kept = []
            for block in blocks:
                kind = as_str(block.get("type")) if isinstance(block, dict) else ""
                if kind == "text" and isinstance(block.get("text"), str):
                    kept.append({"type": "text", "text": block["text"]})
                elif kind in ("thinking", "reasoning"):
                    kept.append({"type": "thinking", "thinking": as_str(block.get("thinking") or block.get("text"))})
                elif kind == "tool_use":
                    kept.append(
                        {
                            "type": "tool_use",
                            "id": as_str(block.get("id")),
                            "name": as_str(block.get("name")),
                            "input": block.get("input") or {},
                        }
                    )
            if kept:
                yield new_entry("assistant", kept, message, line, -1, uuid=uuid, **ids)
