"""A scripted Messages API server for driving a real Claude Code against, in the tests.

Claude Code (2.1.328) streams: ``POST /v1/messages`` with ``"stream": true``, answered with
server-sent events ``message_start``, ``content_block_start``, ``content_block_delta``
(``text_delta`` or ``input_json_delta``), ``content_block_stop``, ``message_delta`` (its
``stop_reason``), ``message_stop``. The main conversation's requests carry ``tools``; side
requests (a title, a summary) carry none and get a short text answer without using the
script. Each main request takes the script's next reply; when the script is spent the
answer is a plain end of turn. Every request is recorded (``received``), so a test asserts
what reached the model.

Standard library only; one server per scenario (scripted_server.py's plumbing).
"""

import json
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Union

try:
    from .scripted_server import Request, ScriptedHTTPServer, send_json, send_sse
except ImportError:  # run as a script (make_cc_fixtures.py) or from tests/e2e on sys.path
    from scripted_server import Request, ScriptedHTTPServer, send_json, send_sse  # type: ignore[no-redef]

MODEL = "claude-sonnet-4-5"
SIDE_ANSWER = "scripted side answer"
DONE_TEXT = "done"


class Text(NamedTuple):
    """An assistant reply that is only text: the turn ends."""

    text: str


class ToolUse(NamedTuple):
    """An assistant reply that calls one tool: the client runs it and asks again."""

    name: str
    input: Dict[str, Any]
    text: str = ""  # said before the call, if anything


def bash(command: str, description: str = "run it") -> ToolUse:
    return ToolUse("Bash", {"command": command, "description": description})


# A reply is a fixed one, or a function of the request body (to answer what the client sent).
Reply = Union[Text, ToolUse, Callable[[Dict[str, Any]], Union[Text, ToolUse]]]


def _events(reply: Union[Text, ToolUse], counter: int) -> List[tuple]:
    message_id = "msg_scripted_%d" % counter
    usage = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    start = {
        "type": "message_start",
        "message": {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage,
        },
    }
    events = [("message_start", start)]
    blocks = []
    text = reply.text
    if text:
        blocks.append(("text", text))
    if isinstance(reply, ToolUse):
        blocks.append(("tool_use", reply))
    for index, (kind, body) in enumerate(blocks):
        if kind == "text":
            events.append(
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
                )
            )
            events.append(
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": body}},
                )
            )
        else:
            events.append(
                (
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": index,
                        "content_block": {
                            "type": "tool_use",
                            "id": "toolu_scripted_%d_%d" % (counter, index),
                            "name": body.name,
                            "input": {},
                        },
                    },
                )
            )
            events.append(
                (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": json.dumps(body.input)},
                    },
                )
            )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    stop = "tool_use" if isinstance(reply, ToolUse) else "end_turn"
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


class ScriptedServer(ScriptedHTTPServer):
    """``with ScriptedServer(replies) as server:`` ... ``server.url``, ``server.main``.

    When the script is spent a main request gets ``default`` (a reply, or a function of
    the body); a side request gets ``side_answer``."""

    def __init__(
        self, replies: Optional[List[Reply]] = None, default: Reply = Text(DONE_TEXT), side_answer: str = SIDE_ANSWER
    ) -> None:
        super().__init__()
        self.replies = list(replies or [])
        self.default = default
        self.side_answer = side_answer
        self.main: List[Dict[str, Any]] = []  # the main conversation's bodies (with tools)
        self.counter = 0

    def answer_get(self, handler: BaseHTTPRequestHandler) -> None:
        send_json(handler, {})

    def answer(self, handler: BaseHTTPRequestHandler, request: Request, n: int) -> None:
        body = request.body if isinstance(request.body, dict) else {}
        if not request.path.split("?")[0].endswith("/v1/messages"):
            # count_tokens and the like: an answer that satisfies them
            send_json(handler, {"input_tokens": 10})
            return
        reply = self.take(body)
        with self.lock:
            self.counter += 1
            counter = self.counter
        if body.get("stream"):
            send_sse(handler, _events(reply, counter))
        else:
            send_json(handler, _message(reply, counter))

    def take(self, body: Dict[str, Any]) -> Union[Text, ToolUse]:
        with self.lock:
            if not body.get("tools"):
                return Text(self.side_answer)
            self.main.append(body)
            reply = self.replies.pop(0) if self.replies else self.default
        return reply(body) if callable(reply) else reply

    def add(self, *replies: Reply) -> None:
        with self.lock:
            self.replies.extend(replies)


def _message(reply: Union[Text, ToolUse], counter: int) -> Dict[str, Any]:
    content: List[Dict[str, Any]] = []
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    if isinstance(reply, ToolUse):
        content.append(
            {"type": "tool_use", "id": "toolu_scripted_%d" % counter, "name": reply.name, "input": reply.input}
        )
    return {
        "id": "msg_scripted_%d" % counter,
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": content,
        "stop_reason": "tool_use" if isinstance(reply, ToolUse) else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


# --- reading what reached the model -----------------------------------------------------------


def texts_of(body: Dict[str, Any]) -> List[str]:
    """Every text the request carried: the system prompt's and each message's text and
    tool_result blocks (flattened), in order."""
    out: List[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            if value.get("type") in ("text", None) and isinstance(value.get("text"), str):
                out.append(value["text"])
            elif value.get("type") == "tool_result":
                walk(value.get("content"))
            elif "content" in value:
                walk(value.get("content"))

    walk(body.get("system"))
    walk(body.get("messages"))
    return out


def tool_results(body: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The tool_result blocks of the request's last message."""
    messages = body.get("messages") or []
    if not messages:
        return []
    content = messages[-1].get("content")
    return (
        [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
        if isinstance(content, list)
        else []
    )


def result_text(block: Dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""
