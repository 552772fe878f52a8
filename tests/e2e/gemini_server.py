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
from typing import List, NamedTuple

try:
    from .scripted_server import ScriptedHTTPServer, send_json, send_sse
except ImportError:  # imported with tests/e2e on sys.path (test_gemini_e2e.py)
    from scripted_server import ScriptedHTTPServer, send_json, send_sse

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
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": USAGE,
        "modelVersion": "gemini-scripted",
    }


def step_parts(step) -> List[dict]:
    if isinstance(step, Say):
        return [{"text": step.text}]
    if isinstance(step, Shell):
        return [{"functionCall": {"name": SHELL_TOOL, "args": {"command": step.command}}}]
    return [{"functionCall": {"name": step.name, "args": step.args}}]


class GeminiServer(ScriptedHTTPServer):
    """``with GeminiServer(steps) as server:`` serves on ``server.url`` until the block ends."""

    protocol_version = "HTTP/1.0"  # as the CLI was first driven: one request per connection

    def __init__(self, steps, subagent_steps=()) -> None:
        super().__init__()
        self.steps = list(steps)
        # A sub-agent's turns come to the same endpoint; its requests declare complete_task.
        self.subagent_steps = list(subagent_steps)
        self.subagent_requests = []
        self.requests = []  # (path, body) of every main-turn request, in order
        self.side = []  # (path, body) of every side call

    def answer(self, handler, request, n) -> None:
        path, body = request.path, request.body
        if ":countTokens" in path:
            send_json(handler, {"totalTokens": 10})
            return
        if ":streamGenerateContent" in path:
            with self.lock:
                if COMPLETE_TASK in declared_functions(body):
                    self.subagent_requests.append((path, body))
                    queue = self.subagent_steps
                else:
                    self.requests.append((path, body))
                    queue = self.steps
                step = queue.pop(0) if queue else Say("(no more scripted steps)")
                if callable(step):  # a step decided by what reached the model
                    step = step(body)
            send_sse(handler, [(None, _candidate(step_parts(step)))], eol="\r\n")
            return
        with self.lock:
            self.side.append((path, body))
        # generateContent side calls: a title summary gets a title; the routing classifier
        # (and anything else) gets JSON naming a model, which is what it parses.
        text = json.dumps(body)
        if TITLE_PROMPT_MARK in text and "reasoning" not in text:
            answer = SCRIPTED_TITLE
        else:
            answer = json.dumps(
                {
                    "reasoning": "scripted",
                    "model_choice": "flash",
                    "complexity_reasoning": "scripted",
                    "complexity_score": 1,
                }
            )
        send_json(handler, _candidate([{"text": answer}]))


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
