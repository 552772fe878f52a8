"""A scripted OpenAI chat-completions server (stdlib only), the API most agent CLIs speak to
a model of your own: Qwen Code, Copilot CLI (BYOK), OpenCode, pi, Cline, Factory Droid and
Mistral Vibe were each run against one (``../shared/reference/more-clis.md``).

``POST …/chat/completions`` answers with the script's next reply, as server-sent
``chat.completion.chunk`` events ending in ``data: [DONE]`` when the request says
``"stream": true``, else as one ``chat.completion`` object. ``GET …/models`` lists the one
model. The script is a function of the request body and the request's place, so a scenario
can read what the client sent (a tool's output, a hook's context) before answering; every
request is kept (``received``), in order, for the test's assertions.
"""

import json

try:
    from .scripted_server import ScriptedHTTPServer, send_empty, send_json
except ImportError:  # imported with tests/e2e on sys.path
    from scripted_server import ScriptedHTTPServer, send_empty, send_json

MODEL = "mock-model"
# Some clients compact or refuse to when the usage is small; a scenario may set its own.
DEFAULT_PROMPT_TOKENS = 100


def reply(text=None, tool_calls=(), prompt_tokens=DEFAULT_PROMPT_TOKENS):
    """One assistant reply: its text (or None) and its tool calls (``tool_call(...)``)."""
    return {"content": text, "tool_calls": list(tool_calls), "prompt_tokens": prompt_tokens}


def tool_call(call_id, name, arguments):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def messages(body):
    found = body.get("messages") if isinstance(body, dict) else None
    return found if isinstance(found, list) else []


def message_texts(body, role=None):
    """Every text of the request's messages (of ``role``), in order: string contents and the
    text parts of list contents."""
    found = []
    for message in messages(body):
        if not isinstance(message, dict) or (role is not None and message.get("role") != role):
            continue
        content = message.get("content")
        if isinstance(content, str):
            found.append(content)
        elif isinstance(content, list):
            found.extend(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return found


def last_tool_output(body):
    """The content of the request's last ``tool`` message, or None."""
    for message in reversed(messages(body)):
        if isinstance(message, dict) and message.get("role") == "tool":
            content = message.get("content")
            if isinstance(content, list):
                return "".join(p.get("text", "") for p in content if isinstance(p, dict))
            return content if isinstance(content, str) else json.dumps(content)
    return None


class ChatServer(ScriptedHTTPServer):
    """``with ChatServer(script) as server: server.base_url``. ``script(body, n)`` returns
    ``reply(...)`` (or a plain string: the reply's text) for the n-th request (0-based, of
    every request received)."""

    def __init__(self, script):
        super().__init__()
        self.script = script

    @property
    def base_url(self):
        return self.url + "/v1"

    def answer_get(self, handler):
        if handler.path.rstrip("/").endswith("/models"):
            send_json(handler, {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "mock"}]})
        else:
            send_empty(handler, 404)

    def answer(self, handler, request, n):
        if not request.path.rstrip("/").endswith("/chat/completions"):
            send_empty(handler, 404)
            return
        answer = self.script(request.body, n)
        if not isinstance(answer, dict):
            answer = reply(answer)
        finish = "tool_calls" if answer["tool_calls"] else "stop"
        usage = {"prompt_tokens": answer["prompt_tokens"], "completion_tokens": 10}
        usage["total_tokens"] = usage["prompt_tokens"] + 10
        if not (isinstance(request.body, dict) and request.body.get("stream")):
            message = {"role": "assistant", "content": answer["content"]}
            if answer["tool_calls"]:
                message["tool_calls"] = answer["tool_calls"]
            body = {"id": "chatcmpl-%d" % n, "object": "chat.completion", "created": 0, "model": MODEL}
            body.update(choices=[{"index": 0, "message": message, "finish_reason": finish}], usage=usage)
            send_json(handler, body)
            return
        deltas = [{"role": "assistant", "content": answer["content"] or ""}]
        deltas += [{"tool_calls": [dict(call, index=i)]} for i, call in enumerate(answer["tool_calls"])]
        chunks = [_chunk(n, delta, None) for delta in deltas] + [_chunk(n, {}, finish, usage)]
        _send_stream(handler, chunks)

    def completions(self):
        """The bodies of the chat-completion POSTs, in order."""
        return [r.body for r in self.received if r.method == "POST" and r.path.rstrip("/").endswith("/completions")]


def _chunk(n, delta, finish, usage=None):
    chunk = {"id": "chatcmpl-%d" % n, "object": "chat.completion.chunk", "created": 0, "model": MODEL}
    chunk["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}]
    if usage is not None:
        chunk["usage"] = usage
    return chunk


def _send_stream(handler, chunks):
    payload = "".join("data: %s\n\n" % json.dumps(c) for c in chunks) + "data: [DONE]\n\n"
    data = payload.encode("utf-8")
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Cache-Control", "no-cache")
    handler.send_header("Content-Length", str(len(data)))
    handler.send_header("Connection", "close")
    handler.end_headers()
    handler.wfile.write(data)
    handler.wfile.flush()
    handler.close_connection = True
