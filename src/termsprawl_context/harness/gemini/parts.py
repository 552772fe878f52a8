"""One Gemini CLI message's parts: its content as parts, the hook block and compression summary in a user
message, tool calls and results, and the call ids a message gives."""

from termsprawl_context.harness.gemini import facts
from termsprawl_context.model import as_str

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, List, Optional, Tuple


def parts_of(content: "Any") -> "List[dict]":
    """A message's content as parts (a string, bare or in the list, is a text part; others go)."""
    if isinstance(content, str):
        return [{"text": content}] if content else []
    if isinstance(content, dict):
        return [content]
    if not isinstance(content, list):
        return []
    return [{"text": p} if isinstance(p, str) else p for p in content if isinstance(p, (str, dict))]


def part_texts(parts: "List[dict]") -> "List[str]":
    """The non-empty string texts of a message's parts, in order."""
    return [p["text"] for p in parts if isinstance(p.get("text"), str) and p["text"]]


def split_hook_context(text: str) -> "Tuple[str, str]":
    """``(hook block, typed text)`` of a first prompt the CLI prefixed with a SessionStart hook's context
    (``<hook_context>...</hook_context>\\n\\n<prompt>``); ("", text) when none."""
    if not text.startswith(facts.HOOK_CONTEXT_OPEN):
        return "", text
    end = text.find(facts.HOOK_CONTEXT_CLOSE)
    if end < 0:
        return text, ""  # all of it is the hook's (the close never came)
    end += len(facts.HOOK_CONTEXT_CLOSE)
    rest = text[end:]
    if rest.startswith(facts.HOOK_CONTEXT_GAP):
        rest = rest[len(facts.HOOK_CONTEXT_GAP) :]
    return text[:end], rest


def is_cli_prompt(message: dict, texts: "List[str]") -> bool:
    """A user message 0.61 wrote itself (not the person): the IDE's editor context or its delta, the
    loop-recovery feedback, ``/directory add``'s context; or a prompt the client sent on the person's
    behalf under their prompt's ``displayContent`` (an AfterAgent hook's blocking reason, the loop feedback,
    the next-speaker "Please continue."), which then holds neither that typed text nor an @ reference's
    expansion of it."""
    first = texts[0] if texts else ""
    if first.startswith(facts.CLI_PROMPT_OPENINGS):
        return True
    # `/directory add`'s context (getDirectoryContextString): both lines, the first one first.
    if first.startswith("- **Workspace Directories:**\n") and "\n- **Directory Structure:**\n" in first:
        return True
    shown = typed_display(message)
    if not shown or not texts:
        return False
    sent = split_hook_context(first)[1]
    return not (shown[0] in sent or any("--- Content from referenced files ---" in t for t in texts))


def is_hook_block(text: str) -> bool:
    """A text part that is only a hook's context block (a BeforeAgent hook's, a part of its own; a
    SessionStart hook's, in the TUI a message of its own)."""
    return text.startswith(facts.HOOK_CONTEXT_OPEN) and text.rstrip().endswith(facts.HOOK_CONTEXT_CLOSE)


def response_body(response: "Any") -> "Tuple[str, bool]":
    """``(text, is an error)`` of a ``functionResponse.response``: ``output``, ``error``, else JSON."""
    if isinstance(response, dict):
        if isinstance(response.get("output"), str):
            return response["output"], False
        if isinstance(response.get("error"), str):
            return response["error"], True
    if isinstance(response, str):
        return response, False
    import json

    try:
        return json.dumps(response, ensure_ascii=False, sort_keys=True), False
    except (TypeError, ValueError):
        return "", False


def _unwrapped(body: str) -> "Optional[str]":
    """The tool's output inside ``<untrusted_context>`` (the shell's ``Output: `` alone), or None: 0.61 wraps
    a tool's output (wrapUntrusted) in those tags, and the shell tool's own text opens ``Output: `` (then
    ``Error: ``, ``Exit Code: ``, ``Process Group PGID: `` lines)."""
    opening, closing = "<untrusted_context>\n", "\n</untrusted_context>"
    if not (body.startswith(opening) and body.endswith(closing)):
        return None
    inner = body[len(opening) : len(body) - len(closing)]
    if not inner.startswith("Output: "):
        return inner
    lines = inner[len("Output: ") :].split("\n")
    sections = ("Error: ", "Exit Code: ", "Signal: ", "Background PIDs: ", "Process Group PGID: ")
    end = next((i for i, line in enumerate(lines) if i and line.startswith(sections)), len(lines))
    return "\n".join(lines[:end])


def result_block(part: dict, is_error: bool = False) -> "Optional[dict]":
    response = part.get("functionResponse")
    if not isinstance(response, dict):
        return None
    body, failed = response_body(response.get("response"))
    block = {"type": "tool_result", "tool_use_id": as_str(response.get("id")), "content": body}
    block["is_error"] = failed or is_error
    output = _unwrapped(body)
    if output is not None:
        block["output"] = output
    return block


CALL, RESULT = "call", "result"  # what a call id names, for giving each once


def gemini_calls(message: dict, parts: "List[dict]") -> "Tuple[List[dict], List[Tuple[dict, bool]]]":
    """A model message's calls and the result parts its ``toolCalls`` carry, with whether each failed."""
    calls = [part["functionCall"] for part in parts if isinstance(part.get("functionCall"), dict)]
    results = []  # type: List[Tuple[dict, bool]]
    tool_calls = message.get("toolCalls")
    for call in tool_calls if isinstance(tool_calls, list) else []:
        if isinstance(call, dict):
            calls.append(call)
            failed = call.get("status") == "error"
            for part in parts_of(call.get("result")):
                results.append((part, failed))
    return calls, results


def message_ids(message: dict) -> tuple:
    """The ``(CALL or RESULT, call id)`` pairs a message gives, in ``Normaliser``'s order (so the newest-first
    reading gives each once where forward does)."""
    kind = message.get(facts.FIELD_TYPE)
    parts = parts_of(message.get("content"))
    found = []
    if kind == facts.TYPE_USER:
        result_parts = parts
    elif kind == "gemini":
        calls, results = gemini_calls(message, parts)
        found = [(CALL, as_str(call.get("id"))) for call in calls]
        result_parts = [part for part, _failed in results]
    else:
        return ()
    for part in result_parts:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if isinstance(response, dict):
            found.append((RESULT, as_str(response.get("id"))))
    return tuple(pair for pair in found if pair[1])


def typed_display(message: dict) -> "List[str]":
    """What the person typed where the client kept it apart (``displayContent``, less a hook's context), or []."""
    texts = part_texts(parts_of(message.get(facts.FIELD_DISPLAY)))
    if texts:
        texts[0] = split_hook_context(texts[0])[1]
    return [t for t in texts if t]
