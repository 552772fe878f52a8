"""A scripted OpenAI Responses API server for Codex CLI (stdlib only).

Codex 0.169 posts each model turn to ``POST /v1/responses`` with ``"stream": true`` and
reads server-sent events (``../shared/reference/other-harnesses.md``): ``response.created``,
then per output item ``response.output_item.added`` / ``.done``, then
``response.completed`` with ``usage``. The script is a function of the request body: it
returns the output items of the next answer, so a scenario can look at what the client
sent (the tool output of the previous call, a hook's developer message) before
answering. Every request is kept (``received``), in order, for the test's assertions.
"""

import json

try:
    from .scripted_server import ScriptedHTTPServer, send_empty, send_json, send_sse
except ImportError:  # imported with tests/e2e on sys.path
    from scripted_server import ScriptedHTTPServer, send_empty, send_json, send_sse

# A large usage figure with a small model_auto_compact_token_limit forces a compaction.
DEFAULT_TOTAL_TOKENS = 100


def message(text):
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}


def shell_call(call_id, cmd):
    """The 0.169 shell tool: exec_command with {"cmd": ...}."""
    return {"type": "function_call", "name": "exec_command", "arguments": json.dumps({"cmd": cmd}), "call_id": call_id}


def function_call(call_id, name, arguments, namespace=None):
    item = {"type": "function_call", "name": name, "arguments": json.dumps(arguments), "call_id": call_id}
    if namespace:
        item["namespace"] = namespace
    return item


def reasoning(text):
    return {
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": text}],
        "content": None,
        "encrypted_content": None,
    }


def input_items(body):
    items = body.get("input") if isinstance(body, dict) else None
    return items if isinstance(items, list) else []


def input_texts(body):
    """Every text of the request's input items, in order (messages' blocks, tool outputs)."""
    found = []
    for item in input_items(body):
        if not isinstance(item, dict):
            continue
        if item.get("type") == "function_call_output":
            output = item.get("output")
            found.append(output if isinstance(output, str) else json.dumps(output))
        for block in item.get("content") or []:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                found.append(block["text"])
    return found


def last_output(body, call_id=None):
    """The output of the last function_call_output in the request (of ``call_id``)."""
    for item in reversed(input_items(body)):
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            if call_id is None or item.get("call_id") == call_id:
                output = item.get("output")
                return output if isinstance(output, str) else json.dumps(output)
    return None


class ResponsesServer(ScriptedHTTPServer):
    """``with ResponsesServer(script) as server: server.base_url``. ``script(body, n)``
    returns the output items for the n-th request (0-based, of every request received), or
    a dict ``{"items": [...], "total_tokens": N}``."""

    def __init__(self, script):
        super().__init__()
        self.script = script

    @property
    def base_url(self):
        return self.url + "/v1"

    def answer_get(self, handler):  # /v1/models and the like: nothing to offer
        send_json(handler, {"object": "list", "data": []})

    def answer(self, handler, request, n):
        if not request.path.rstrip("/").endswith("/responses"):
            send_empty(handler, 404)
            return
        answer = self.script(request.body, n)
        if isinstance(answer, dict):
            items, total = answer.get("items", []), answer.get("total_tokens", DEFAULT_TOTAL_TOKENS)
        else:
            items, total = answer, DEFAULT_TOTAL_TOKENS
        rid = "resp_%d" % n
        events = [("response.created", {"type": "response.created", "response": {"id": rid}})]
        for i, item in enumerate(items):
            item = dict(item)
            item.setdefault("id", "item_%d_%d" % (n, i))
            events.append(
                ("response.output_item.added", {"type": "response.output_item.added", "output_index": i, "item": item})
            )
            events.append(
                ("response.output_item.done", {"type": "response.output_item.done", "output_index": i, "item": item})
            )
        usage = {
            "input_tokens": total // 2,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": total - total // 2,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": total,
        }
        events.append(("response.completed", {"type": "response.completed", "response": {"id": rid, "usage": usage}}))
        send_sse(handler, events)

    def responses(self):
        """The bodies of the /responses POSTs, in order."""
        return [r.body for r in self.received if r.method == "POST" and r.path.rstrip("/").endswith("/responses")]
