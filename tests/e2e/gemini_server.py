"""A scripted model server for the real Gemini CLI (0.61), stdlib only.

The CLI, given ``GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT`` and any ``GEMINI_API_KEY``,
posts its main turn to ``/v1beta/models/<model>:streamGenerateContent?alt=sse`` (answered
with ``data: <GenerateContentResponse>`` events), side calls to ``:generateContent`` (a
routing classifier that expects JSON, a session-title summary) and ``:countTokens``.

Each main-turn request takes the next scripted step: ``Say(text)`` answers with text and
stops; ``Shell(command)`` calls the ``run_shell_command`` tool (the CLI runs it and posts
the result in its next request); ``Call(name, args)`` calls any function; a callable is
given the request body and returns one of those. Every request body is kept in ``requests`` so a test can
assert what reached the model.
"""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import List, NamedTuple

SHELL_TOOL = "run_shell_command"  # Gemini CLI 0.61's shell tool
AGENT_TOOL = "invoke_agent"  # starts a sub-agent: {"agent_name", "prompt"}
COMPLETE_TASK = "complete_task"  # a sub-agent ends by calling it ({"result": ...} for the generalist)
TITLE_PROMPT_MARK = "Summarize"  # the session-title side call's prompt opens with it
SCRIPTED_TITLE = "Scripted session title"
USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}


class Say(NamedTuple):
    text: str


class Shell(NamedTuple):
    command: str


class Call(NamedTuple):
    name: str
    args: dict


def _candidate(parts: List[dict]) -> dict:
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": USAGE, "modelVersion": "gemini-scripted"}


def step_parts(step) -> List[dict]:
    if isinstance(step, Say):
        return [{"text": step.text}]
    if isinstance(step, Shell):
        return [{"functionCall": {"name": SHELL_TOOL, "args": {"command": step.command}}}]
    return [{"functionCall": {"name": step.name, "args": step.args}}]


class GeminiServer(object):
    """``with GeminiServer(steps) as server:`` serves on ``server.url`` until the block ends."""

    def __init__(self, steps, subagent_steps=()) -> None:
        self.steps = list(steps)
        # A sub-agent's turns come to the same endpoint; its requests declare complete_task.
        self.subagent_steps = list(subagent_steps)
        self.subagent_requests = []
        self.requests = []  # (path, body) of every main-turn request, in order
        self.side = []  # (path, body) of every side call
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw.decode("utf-8")) if raw else {}
                except ValueError:
                    body = {}
                server.handle(self, body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

    def _json(self, handler, obj, status=200) -> None:
        data = json.dumps(obj).encode("utf-8")
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def handle(self, handler, body: dict) -> None:
        path = handler.path
        if ":countTokens" in path:
            self._json(handler, {"totalTokens": 10})
            return
        if ":streamGenerateContent" in path:
            with self._lock:
                if COMPLETE_TASK in declared_functions(body):
                    self.subagent_requests.append((path, body))
                    queue = self.subagent_steps
                else:
                    self.requests.append((path, body))
                    queue = self.steps
                step = queue.pop(0) if queue else Say("(no more scripted steps)")
                if callable(step):  # a step decided by what reached the model
                    step = step(body)
            data = ("data: %s\r\n\r\n" % json.dumps(_candidate(step_parts(step)))).encode("utf-8")
            handler.send_response(200)
            handler.send_header("Content-Type", "text/event-stream")
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            handler.wfile.write(data)
            return
        with self._lock:
            self.side.append((path, body))
        # generateContent side calls: a title summary gets a title; the routing classifier
        # (and anything else) gets JSON naming a model, which is what it parses.
        text = json.dumps(body)
        if TITLE_PROMPT_MARK in text and "reasoning" not in text:
            answer = SCRIPTED_TITLE
        else:
            answer = json.dumps({"reasoning": "scripted", "model_choice": "flash", "complexity_reasoning": "scripted", "complexity_score": 1})
        self._json(handler, _candidate([{"text": answer}]))


def request_texts(body: dict) -> List[str]:
    """Every text and function-response output in a request's ``contents``, in order."""
    found = []
    for content in body.get("contents") or []:
        for part in content.get("parts") or []:
            if isinstance(part.get("text"), str):
                found.append(part["text"])
            response = part.get("functionResponse")
            if isinstance(response, dict):
                found.append(json.dumps(response.get("response")))
    return found


def declared_functions(body: dict) -> List[str]:
    return [f.get("name") for tool in body.get("tools") or [] for f in tool.get("functionDeclarations") or []]
