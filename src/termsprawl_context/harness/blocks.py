"""Values the record model's shapes take that several CLIs' records give alike: a line's
own ids, a millisecond epoch as a transcript time stamp, text and ``tool_use`` blocks, and
one normalised ``Entry``."""

from termsprawl_context.model import as_str

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, Iterable, Optional

    from termsprawl_context.model import Entry


def line_ids(record: dict) -> dict:
    """``new_entry``'s ids of a line naming them ``id``, ``parentId``, ``timestamp`` (pi, Copilot, Droid)."""
    return {
        "uuid": as_str(record.get("id")),
        "parent_uuid": as_str(record.get("parentId")),
        "timestamp": as_str(record.get("timestamp")),
    }


def iso_ms(value: "Any") -> str:
    """A millisecond epoch as ``model.iso_utc`` writes seconds ("" when it is none)."""
    from termsprawl_context.model import iso_utc

    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1e14:
        return ""
    return iso_utc(int(value) / 1000)


def text_blocks(texts: "Iterable[str]") -> list:
    return [{"type": "text", "text": text} for text in texts]


def part_text(part: dict) -> "Optional[dict]":
    """The block of a Gemini API ``parts`` item's non-empty ``text`` (Gemini CLI, Qwen Code):
    a thinking one when it is a ``thought``; None when it holds no text."""
    text = part.get("text")
    if not isinstance(text, str) or not text:
        return None
    return {"type": "thinking", "thinking": text} if part.get("thought") is True else {"type": "text", "text": text}


def tool_use(call_id: str, name: str, arguments: "Any") -> dict:
    """The ``tool_use`` block of a call whose arguments are kept when JSON-shaped (else {})."""
    return {
        "type": "tool_use",
        "id": call_id,
        "name": name,
        "input": arguments if isinstance(arguments, (dict, list, str)) else {},
    }


def new_entry(kind: str, blocks: list, record: dict, line: int, offset: int, **fields) -> "Entry":
    """One normalised entry of ``kind`` ("user", "assistant", "system") and its blocks; ``fields``
    name its ids and flags as ``Entry`` does, and ``role`` where it is not the one ``kind`` gives."""
    from termsprawl_context.model import Entry

    get = fields.get
    message = {"role": get("role") or ("assistant" if kind == "assistant" else "user"), "content": blocks}
    return Entry(
        kind,
        get("uuid", ""),
        get("parent_uuid", ""),
        "",
        get("session_id", ""),
        get("timestamp", ""),
        get("cwd", ""),
        "",
        bool(get("is_sidechain", False)),
        bool(get("is_meta", False)),
        bool(get("is_compact_summary", False)),
        False,
        get("agent_id", ""),
        message,
        blocks,
        get("tool_use_result"),
        None,
        line,
        offset,
        record,
    )
