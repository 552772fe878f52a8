"""Cline CLI 3.0.65, for real, against the scripted chat-completions server (issue 30).

The project is set up with ``init --cline`` (executable ``.clinerules/hooks/TaskStart`` and
``TaskResume``). ``TERMSPRAWL_NODE_ID=bob cline --json`` records its session as node ``bob``
through TaskStart; bob, linked to a Claude Code peer (``cc``), reads it by running the dump
through ``run_commands`` (Cline auto-approves every command by default: no rule is written);
the second turn resumes the session in the TUI (``--id`` works only there), in a
pseudo-terminal. A lead linked to bob reads every typed prompt and answer, with the CLI's
``<user_input mode="act">`` wrapping stripped. The TUI's hub daemon is stopped by its pid.
"""

import fcntl
import json
import os
import signal
import struct
import subprocess
import termios

import pytest

from .chat_server import ChatServer, reply, tool_call
from .clients import client_bin
from .gemini_pty import Tui
from .node_world import CC_ANSWER, CC_TYPED, NodeWorld, after_last_user, lead_turns

TYPED = ["CL-PROMPT-1 read what the linked agents did", "CL-PROMPT-2 and now summarise"]
READ = ".termsprawl/bin/termsprawl-context --format markdown"


def script(body, n):
    prompt, outputs = after_last_user(body)
    if "CL-PROMPT-1" in prompt and "CL-PROMPT-2" not in prompt:
        if not outputs:
            return reply("CL-SAY-1 reading", [tool_call("call_read", "run_commands", {"commands": [READ]})])
        return reply("CL-ANSWER-1 peer prompt seen: %s" % (CC_TYPED in outputs[-1]))
    return reply("CL-ANSWER-2 summary")


def hub_daemons(home):
    """The pids of Cline hub daemons started with this scratch HOME."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmdline = f.read()
            with open("/proc/%s/environ" % pid, "rb") as f:
                environ = f.read().split(b"\0")
        except OSError:
            continue
        if b"--cline-hub-daemon" in cmdline and ("HOME=%s" % home).encode() in environ:
            found.append(int(pid))
    return found


@pytest.fixture(scope="module")
def world(tmp_path_factory, pyz):
    cline = client_bin("cline")
    world = NodeWorld(tmp_path_factory.mktemp("cline"), pyz)
    done = world.tool("init", "--cwd", world.project, "--cline")
    assert done.returncode == 0, done.stderr
    world.claude_peer()
    for pair in (("bob", "cc"), ("lead", "bob")):
        assert world.tool("links", "add", *pair).returncode == 0
    env = world.env(TERMSPRAWL_NODE_ID="bob", CLINE_SESSION_BACKEND_MODE="local", TERM="xterm-256color")
    try:
        with ChatServer(script) as server:
            login = ["auth", "-p", "openai", "-k", "sk-mock", "-m", "mock-model", "-b", server.base_url]
            subprocess.run(
                [cline] + login, cwd=str(world.project), env=env, capture_output=True, timeout=60, check=True
            )
            done = subprocess.run(
                [cline, "--json", TYPED[0]], cwd=str(world.project), env=env, capture_output=True, timeout=60
            )
            assert done.returncode == 0, done.stderr[-2000:]
            world.first = [json.loads(x) for x in done.stdout.decode().splitlines() if x.startswith("{")]
            world.session = os.path.basename(os.path.dirname(world.entry("bob")["path"]))
            tui = Tui([cline, "--id", world.session], str(world.project), env)
            fcntl.ioctl(tui.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 45, 140, 0, 0))
            try:
                assert tui.pump(30, lambda: "Ask anything" in tui.text()), tui.text()[-2000:]
                tui.type(TYPED[1])
                assert tui.pump(30, lambda: "CL-ANSWER-2" in tui.text()), tui.text()[-2000:]
                tui.pump(2)
            finally:
                tui.close()
            world.requests = [r.body for r in server.received]
    finally:
        for pid in hub_daemons(world.home):
            os.kill(pid, signal.SIGTERM)
    return world


def test_init_wrote_executable_hook_scripts(world):
    for event in ("TaskStart", "TaskResume"):
        path = world.project / ".clinerules" / "hooks" / event
        assert path.stat().st_mode & 0o777 == 0o755
        assert path.read_text().splitlines()[1].startswith("# termsprawl-context: managed file")


def test_task_start_recorded_the_session_as_the_node(world):
    entry = world.entry("bob")
    assert entry["harness"] == "cline"
    assert entry["path"].endswith("%s/%s.messages.json" % (world.session, world.session))


def test_the_node_read_its_claude_code_peer_through_its_shell_tool(world):
    outputs = [o for body in world.requests for o in after_last_user(body)[1]]
    assert any(CC_TYPED in o and CC_ANSWER in o for o in outputs)


def test_a_lead_reads_both_turns_and_no_harness_text(world):
    turns = lead_turns(world, "bob")
    assert [t for r, t in turns if r == "user"] == TYPED
    said = " ".join(t for r, t in turns if r == "assistant")
    assert "CL-ANSWER-1 peer prompt seen: True" in said and "CL-ANSWER-2 summary" in said
    assert all("<user_input" not in t and "</user_input>" not in t for _r, t in turns)


def test_sessions_lists_it_and_show_prints_every_prompt_and_answer(world):
    done = world.tool("sessions", "--json", "--harness", "cline")
    assert done.returncode == 0, done.stderr
    listed = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert [s["session_id"] for s in listed] == [world.session]
    assert listed[0]["first_user_message"] == TYPED[0]
    shown = world.tool("show", world.session, "--all", "--format", "json")
    assert shown.returncode == 0, shown.stderr
    turns = [(t["role"], t["text"]) for t in json.loads(shown.stdout.decode())["turns"]]
    assert [t for r, t in turns if r == "user"] == TYPED
    assert "CL-ANSWER-2 summary" in [t for r, t in turns if r == "assistant"]
