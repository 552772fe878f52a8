"""Factory Droid 0.225.2 session lines normalised into ``Entry`` (``harness/base.py``).

``~/.factory/sessions/<enc cwd>/<session id>.jsonl`` (append-only; ``<id>.settings.json``
beside it is rewritten in place and never read here). Lines:

- ``{"type":"session_start","id","title","cwd",…}``: the first line; no entry.
- ``{"type":"message","id","parentId","timestamp","message":{"role","content":[…]}}``, the
  content Claude-shaped (``text``, ``tool_use``, ``tool_result``, ``thinking``). A user
  message is the person's unless it is Droid's: its ``id`` starts with ``context-`` (the
  ``<system-reminder>`` block sent before each prompt) or it records a hook run
  (``message.hookEventName``, with ``hookResults``; its content is empty). Those are
  ``is_meta``; a user message holding ``tool_result`` blocks is a tool's.
- ``agent_turn_outcome`` and anything else: no entry.
"""

from __future__ import annotations

from termsprawl_context.harness.blocks import line_ids, new_entry


KIND_SESSION_START = "session_start"
KIND_MESSAGE = "message"
CONTEXT_ID_PREFIX = "context-"
HOOK_EVENT_FIELD = "hookEventName"
BLOCK_KINDS = ("text", "thinking", "tool_use", "tool_result")


def _blocks(content) -> list:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") in BLOCK_KINDS]


def line_to_entries(record: dict, line: int, offset: int, session_id: str = "", cwd: str = "") -> list:
    """The entries of one session line (at most one)."""
    if record.get("type") != KIND_MESSAGE:
        return []
    message = record.get("message")
    if not isinstance(message, dict):
        return []
    role = message.get("role")
    if role not in ("user", "assistant"):
        return []
    fields = dict(line_ids(record), session_id=session_id, cwd=cwd)
    blocks = _blocks(message.get("content"))
    if role == "assistant":
        return [new_entry("assistant", blocks, record, line, offset, **fields)]
    harness = fields["uuid"].startswith(CONTEXT_ID_PREFIX) or HOOK_EVENT_FIELD in message
    return [new_entry("user", blocks, record, line, offset, is_meta=harness, **fields)]
