"""A scripted OpenAI Responses API server for Codex CLI (stdlib only).

Codex 0.169 posts each model turn to ``POST /v1/responses`` with ``"stream": true`` and
reads server-sent events (``../shared/reference/other-harnesses.md``): ``response.created``,
then per output item ``response.output_item.added`` / ``.done``, then
``response.completed`` with ``usage``. The script is a function of the request body: it
returns the output items of the next answer, so a scenario can look at what the client
sent (the tool output of the previous call, a hook's developer message) before
answering. Every request body is kept, in order, for the test's assertions.
"""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

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
    return {"type": "reasoning", "summary": [{"type": "summary_text", "text": text}], "content": None,
            "encrypted_content": None}


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


class ResponsesServer(object):
    """``with ResponsesServer(script) as server: server.base_url``. ``script(body, n)``
    returns the output items for the n-th request (0-based), or a dict
    ``{"items": [...], "total_tokens": N}``."""

    def __init__(self, script):
        self.script = script
        self.requests = []
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):  # /v1/models and the like: nothing to offer
                body = b'{"object": "list", "data": []}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw.decode("utf-8")) if raw else {}
                except ValueError:
                    body = {}
                with outer.lock:
                    n = len(outer.requests)
                    outer.requests.append({"path": self.path, "body": body})
                if not self.path.rstrip("/").endswith("/responses"):
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                answer = outer.script(body, n)
                if isinstance(answer, dict):
                    items, total = answer.get("items", []), answer.get("total_tokens", DEFAULT_TOTAL_TOKENS)
                else:
                    items, total = answer, DEFAULT_TOTAL_TOKENS
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                rid = "resp_%d" % n
                events = [("response.created", {"type": "response.created", "response": {"id": rid}})]
                for i, item in enumerate(items):
                    item = dict(item)
                    item.setdefault("id", "item_%d_%d" % (n, i))
                    events.append(("response.output_item.added",
                                   {"type": "response.output_item.added", "output_index": i, "item": item}))
                    events.append(("response.output_item.done",
                                   {"type": "response.output_item.done", "output_index": i, "item": item}))
                usage = {"input_tokens": total // 2, "input_tokens_details": {"cached_tokens": 0},
                         "output_tokens": total - total // 2, "output_tokens_details": {"reasoning_tokens": 0},
                         "total_tokens": total}
                events.append(("response.completed",
                               {"type": "response.completed", "response": {"id": rid, "usage": usage}}))
                for name, data in events:
                    self.wfile.write(("event: %s\ndata: %s\n\n" % (name, json.dumps(data))).encode("utf-8"))
                self.wfile.flush()
                self.close_connection = True

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self):
        return "http://127.0.0.1:%d/v1" % self.httpd.server_address[1]

    def responses(self):
        """The bodies of the /responses requests, in order."""
        return [r["body"] for r in self.requests if r["path"].rstrip("/").endswith("/responses")]

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
