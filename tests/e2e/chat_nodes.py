"""What the Copilot CLI and pi end-to-end tests share: the scripted chat-completions model
that reads a node's peers when its hook's context line told it how, a project set up with
``init`` holding a Claude Code peer (a transcript the real Claude Code 2.1.328 wrote, from
``tests/fixtures``), and readers of the dump's output."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from .chat_server import message_texts, messages, reply, tool_call

FIXTURE = (
    Path(__file__).resolve().parent.parent / "fixtures" / "cc-2.1.328" / "d77cb839-8406-465e-b632-63f6e5d8d6fa.jsonl"
)
CONTEXT_LINE = re.compile(r"termsprawl: you are agent node (\S+);.*? run: (.+?)$", re.M)
DATETIME = re.compile(r"^<current_datetime>.*?</current_datetime>\s*", re.S)
# Text a client or our hook put before the model that is never the person's.
HARNESS_MARKS = ("termsprawl: you are agent node", "<current_datetime>", "You are the GitHub Copilot CLI")


def run_pyz(pyz, args, cwd, env=None, stdin=None):
    return subprocess.run(
        [sys.executable, str(pyz)] + [str(a) for a in args],
        cwd=str(cwd),
        env=env,
        input=stdin,
        capture_output=True,
        timeout=60,
    )


def typed(text):
    """A prompt as typed: Copilot's ``<current_datetime>`` prefix taken off."""
    return DATETIME.sub("", text).strip()


class Scenario(object):
    """Runs the context line's command through the shell tool (``shell_tool``) when the
    prompt says ``read your peer``; delegates to a sub-agent (``task_tool``) on ``spawn``;
    else answers ``answer to <prompt>``. Keeps what each read returned."""

    def __init__(self, shell_tool, task_tool=None):
        self.shell_tool, self.task_tool = shell_tool, task_tool
        self.read_outputs = []

    def __call__(self, body, n):
        found = messages(body)
        last = found[-1] if found else {}
        if isinstance(last, dict) and last.get("role") == "tool":
            content = last.get("content")
            text = content if isinstance(content, str) else json.dumps(content)
            if last.get("tool_call_id") == "call_read":
                self.read_outputs.append(text)
                return "I read my peer."
            return "The sub-agent is done."
        users = [typed(t) for t in message_texts(body, "user")]
        prompts = [t for t in users if not t.startswith("termsprawl:")]
        prompt = prompts[-1] if prompts else ""
        if prompt.startswith("child task"):
            return "child result words"
        if prompt.startswith("spawn") and self.task_tool:
            call = tool_call("call_task", self.task_tool[0], self.task_tool[1])
            return reply(None, [call])
        if prompt.startswith("read your peer"):
            lines = [m for t in users for m in CONTEXT_LINE.finditer(t)]
            if not lines:
                return "no context line reached me"
            return reply(None, [tool_call("call_read", self.shell_tool, {"command": lines[-1].group(2)})])
        return "answer to " + prompt


def project_with_claude_peer(pyz, project, init_args, node):
    """``init`` the project, index the Claude Code peer ``cc`` and link it to ``node``."""
    done = run_pyz(pyz, ["init", "--cwd", project] + init_args, project)
    assert done.returncode == 0, done.stderr
    peer = project.parent / "cc-peer.jsonl"
    shutil.copyfile(str(FIXTURE), str(peer))
    for args in (["index", "set", "cc", peer], ["links", "add", node, "cc"]):
        done = run_pyz(pyz, args + ["--cwd", project], project)
        assert done.returncode == 0, done.stderr
    return done


def index_entry(project, node):
    return json.loads((project / ".termsprawl" / "transcripts" / (node + ".json")).read_text())


def dump_turns(text):
    """The dump's (role, text) turns."""
    parts = re.split(r"^## (user|assistant)\n", text, flags=re.M)[1:]
    return [(parts[i], parts[i + 1].rstrip("\n")) for i in range(0, len(parts), 2)]


def conversation_of(text):
    """The markdown hand-off's turn texts."""
    return re.findall(r"```text\n(.*?)\n```", text, re.S)
