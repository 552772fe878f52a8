"""One Codex CLI rollout line → entries: a ``response_item``'s message, reasoning, tool call
or output as the record model's ``Entry``; the thread a rollout's first line names; the
rules that class an assistant text as an answer or a compaction's summary."""

from __future__ import annotations

from termsprawl_context.harness.blocks import new_entry, text_blocks
from termsprawl_context.harness.codex import facts
from termsprawl_context.model import as_str

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import List, Optional


def rollout_line(raw: bytes) -> "Optional[tuple]":
    """(record, type, payload) of a rollout line whose payload is an object, else None."""
    from termsprawl_context.jsonl import parse_object

    record = parse_object(raw)
    if record is None:
        return None
    payload = record.get("payload")
    if not isinstance(payload, dict):
        return None
    return record, record.get(facts.FIELD_TYPE), payload


def _marked_texts(payload: dict) -> List[tuple]:
    """``(text, kind)`` for each text block of a message: the kind 0.169 marked its block with
    ("" where it names none). The person's own text is ``user.text``; every other kind is the
    client's (hooks.additional_context, agents_md.instructions, environments.environment_context,
    generic.turn_aborted, multi_agent.subagent_notification, ...); "unknown" (and no kind) says
    nothing: the prefixes decide."""
    from termsprawl_context.transcript.tool_blocks import result_texts

    content = payload.get("content")
    if not isinstance(content, list):
        return [(text, "") for text in result_texts(content)]
    passthrough = payload.get("internal_chat_message_metadata_passthrough")
    kinds = passthrough.get("content_item_kinds") if isinstance(passthrough, dict) else None
    kinds = kinds if isinstance(kinds, list) else []
    found = []
    for i, block in enumerate(content):
        text = block.get("text") if isinstance(block, dict) else None
        if isinstance(text, str) and text:
            kind = kinds[i] if i < len(kinds) else ""
            found.append((text, kind if isinstance(kind, str) and kind != "unknown" else ""))
    return found


def context_kind(text: str, marked: str = "") -> str:
    """ "compaction", "context" (other harness text) or "" (the person's words) for a user-role
    text: its 0.169 block kind decides where it names one, else its opening marker."""
    head = text.lstrip()
    if head.startswith(facts.COMPACTION_PREFIX):
        return "compaction"
    if marked:
        return "" if marked == "user.text" else "context"
    folded = text.strip().lower()  # framed as one of Codex's other contextual fragments
    framed = any(
        folded.startswith(start.lower()) and folded.endswith(end.lower()) for start, end in facts.CONTEXT_FRAMES
    )
    return "context" if head.startswith(facts.CONTEXT_PREFIXES) or framed else ""


def _tool_output(output):
    """(text, is_error) of a call's output: 0.169's text, or 0.47's JSON ``{output, metadata: {exit_code}}``."""
    if isinstance(output, str):
        if output.startswith("{"):
            from termsprawl_context.jsonl import parse_object

            parsed = parse_object(output)
            if parsed is not None and isinstance(parsed.get("output"), str):
                meta = parsed.get("metadata")
                code = meta.get("exit_code") if isinstance(meta, dict) else None
                return parsed["output"], isinstance(code, int) and not isinstance(code, bool) and code != 0
        return output, False
    if isinstance(output, dict):
        return as_str(output.get("content") or output.get("output")), output.get("success") is False
    return "", False


def _unwrapped(text: str) -> "Optional[str]":
    """The command's own output past Codex's header lines, or None when it opens without them.
    0.169's exec_command output opens with its own header lines, then a line ``Output:`` and the
    command's output (``Chunk ID: ...``, ``Wall time: ...``, ``Process exited with code N``, ...);
    earlier unified exec wrote ``Exit code: N`` / ``Wall time: ...`` first."""
    if not text.startswith(("Chunk ID: ", "Exit code: ", "Wall time: ")):
        return None
    at = text.find("\nOutput:\n")
    return text[at + len("\nOutput:\n") :] if at >= 0 else None


def compaction_entry(text: str, thread: dict, record: dict, line: int, offset: int):
    """The entry a ``compacted`` line's bridge (the summary continuing the conversation) stands as."""
    stamp = as_str(record.get("timestamp"))
    return new_entry(
        "user", text_blocks([text]), record, line, offset, timestamp=stamp, is_compact_summary=True, **thread
    )


def item_entries(payload: dict, thread: dict, record: dict, line: int, offset: int) -> list:
    # A message's texts (and a reasoning summary's) follow the tool-result rule: a string,
    # or the non-empty string ``text`` of each block.
    from termsprawl_context.jsonl import parse_object
    from termsprawl_context.transcript.tool_blocks import result_texts

    item = as_str(payload.get(facts.FIELD_TYPE))
    uuid = as_str(payload.get("id"))
    timestamp = as_str(record.get("timestamp"))

    def _entry(kind: str, blocks: list, **flags):
        """``new_entry`` with the thread's ids (``thread_of``); ``flags``: ``uuid``, ``is_meta``, ``is_compact_summary``."""
        return new_entry(kind, blocks, record, line, offset, timestamp=timestamp, **thread, **flags)

    if item == "message":
        role = as_str(payload.get("role"))
        blocks = text_blocks(result_texts(payload.get("content")))
        if role == "assistant":
            return [_entry("assistant", blocks, uuid=uuid)] if blocks else []
        if role in ("developer", "system"):
            return [_entry("user", blocks, uuid=uuid, is_meta=True)] if blocks else []
        if role != "user":
            return []
        texts = {"context": [], "compaction": [], "": []}  # type: dict
        for text, marked in _marked_texts(payload):
            texts[context_kind(text, marked)].append(text)
        flags = (("context", {"is_meta": True}), ("compaction", {"is_compact_summary": True}), ("", {"uuid": uuid}))
        return [_entry("user", text_blocks(texts[kind]), **flag) for kind, flag in flags if texts[kind]]
    if item == "reasoning":
        summary = result_texts(payload.get("summary"))
        if not summary:
            return []
        return [_entry("assistant", [{"type": "thinking", "thinking": "\n".join(summary)}], uuid=uuid)]
    if item in ("function_call", "custom_tool_call", "local_shell_call"):
        call_id = as_str(payload.get("call_id")) or uuid
        name = as_str(payload.get("name")) or ("shell" if item == "local_shell_call" else "")
        raw = payload.get("arguments") if "arguments" in payload else payload.get("input", payload.get("action"))
        # The arguments as the model sent them: a JSON object string is parsed.
        parsed = parse_object(raw) if isinstance(raw, str) else None
        block = {"type": "tool_use", "id": call_id, "name": name, "input": raw if parsed is None else parsed}
        return [_entry("assistant", [block], uuid=uuid)]
    if item in ("function_call_output", "custom_tool_call_output"):
        text, is_error = _tool_output(payload.get("output"))
        call_id = as_str(payload.get("call_id"))
        block = {"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": is_error}
        output = _unwrapped(text)
        if output is not None:
            block["output"] = output
        return [_entry("user", [block], uuid=uuid)]
    return []


def is_subagent_meta(payload: dict) -> bool:
    """Whether a ``session_meta`` payload is a sub-agent thread's."""
    if payload.get("thread_source") == "subagent":
        return True
    if as_str(payload.get(facts.META_PARENT_THREAD)):
        return True
    source = payload.get("source")  # "exec", "cli", or {"subagent": {"thread_spawn": {parent_thread_id, ...}}}
    return isinstance(source, dict) and "subagent" in source


def parent_thread_of(payload: dict) -> str:
    """``parent_thread_id`` of a sub-agent's ``session_meta``, else its ``source.subagent.thread_spawn``'s, else ""."""
    found = as_str(payload.get(facts.META_PARENT_THREAD))
    source = payload.get("source")
    spawn = source.get("subagent") if isinstance(source, dict) else None
    spawn = spawn.get("thread_spawn") if isinstance(spawn, dict) else None
    return found or (as_str(spawn.get(facts.META_PARENT_THREAD)) if isinstance(spawn, dict) else "")


def is_text_answer(entry) -> bool:
    return entry.type == "assistant" and bool(entry.content) and entry.content[0].get("type") == "text"


def classed(entry, announces: bool, bridge: "Optional[str]"):
    """An unannounced assistant text, as an answer or a compaction's summary. 0.169 announces
    each answer with an ``AgentMessage`` event just before it: in such a file an unannounced
    one is the summary (even when the ``compacted`` line after it was never written). Without
    announcements (0.47) it is one only when the next ``compacted`` bridge holds its text."""
    if announces or (bridge and entry.content[0].get("text", "") in bridge):
        return entry._replace(type="user", is_compact_summary=True)
    return entry


# How far into a rollout we look for an announcement, to know whether it announces answers.
ANNOUNCE_PROBE_BYTES = 1 << 20


def _head_lines(path: str):
    """A rollout's lines from its start, as far as the caller reads; none once it cannot be read."""
    from termsprawl_context.jsonl import iter_lines, open_regular

    try:
        with open_regular(path) as f:
            yield from iter_lines(f)
    except OSError:
        return


def announces_answers(path: str) -> bool:
    """Whether an ``AgentMessage`` event is within the rollout's first ``ANNOUNCE_PROBE_BYTES``."""
    for line in _head_lines(path):
        if line.offset >= ANNOUNCE_PROBE_BYTES:
            return False
        if b"AgentMessage" in line.raw:
            parts = rollout_line(line.raw)
            if parts is not None and parts[1] == facts.KIND_EVENT and announced_message(parts[2]):
                return True
    return False


def thread_of(path: str, meta: dict) -> dict:
    """What a rollout's ``session_meta`` says of the thread its lines belong to, as ``new_entry``'s fields."""
    session = as_str(meta.get("id")) or facts.thread_id_of(path)
    subagent = bool(meta) and is_subagent_meta(meta)
    cwd = as_str(meta.get(facts.META_CWD))
    return {"session_id": session, "cwd": cwd, "is_sidechain": subagent, "agent_id": session if subagent else ""}


def announced_message(payload: dict) -> str:
    """The id of the assistant message an ``item_completed`` event shows (0.169), or ""."""
    if payload.get(facts.FIELD_TYPE) != "item_completed":
        return ""
    item = payload.get("item")
    if not isinstance(item, dict) or item.get(facts.FIELD_TYPE) != "AgentMessage":
        return ""
    return as_str(item.get("id"))


def meta_of(path: str) -> dict:
    """The ``session_meta`` payload on a rollout's first line ({} when absent or odd)."""
    for line in _head_lines(path):
        parts = rollout_line(line.raw)
        return parts[2] if parts is not None and parts[1] == facts.KIND_SESSION_META else {}
    return {}
