"""Gemini CLI 0.61 reads its peers with no prompt, through what ``init --gemini-hook``
registers (the project's ``.gemini/settings.json``: a trusted read-only MCP server, the
command's ``mcp``): the real client against the scripted model, headless in its default
approval mode (no ``--yolo``) and in its TUI in a pseudo-terminal.

- The read the markers name (the hook's context line names the tool) runs and returns the
  peer's words; the TUI draws no confirmation.
- The same route cannot write: the tool refuses any other argument, and the shell route to
  ``links add`` is not open headless (0.61 offers no shell tool there).
- ``gemini -r``: the resumed session is told its node again (the server's instructions reach
  the system prompt at every start).
- Gemini CLI's own start-up cleanup leaves the resumed peer's chat in place.
"""

import json
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from gemini_pty import CONFIRMATION_MARKS, Tui  # noqa: E402
from gemini_server import Call, GeminiServer, Say, Shell, declared_functions, request_texts  # noqa: E402
from test_gemini_e2e import ALICE_ANSWER, ALICE_WORDS, World, claude_transcript  # noqa: E402

RUN_TIMEOUT = 120
CONTEXT_MARK = "termsprawl: you are agent node carol; linked agents: alice."
TOOL_IN_CONTEXT = re.compile(r"call the tool (\S+) ")


def all_texts(body):
    system = body.get("systemInstruction") or {}
    return "\n".join(request_texts(body) + [p.get("text", "") for p in system.get("parts") or []])


def call_the_named_tool(arguments=None):
    """The model's move: call the tool the context line names, when the client declares it."""

    def step(body):
        named = [n for n in TOOL_IN_CONTEXT.findall(all_texts(body)) if n in declared_functions(body)]
        assert named, "no declared tool named in the context: %s" % all_texts(body)[-1500:]
        return Call(named[0], arguments or {})

    return step


def tool_outputs(server):
    return [
        json.dumps(p["functionResponse"].get("response"))
        for _path, body in server.requests
        for c in body.get("contents") or []
        for p in c.get("parts") or []
        if "functionResponse" in p
    ]


class ReadWorld(World):
    def gemini_env(self, server, node="carol"):
        return self.env(
            GEMINI_API_KEY="x",
            GOOGLE_GEMINI_BASE_URL=server.url,
            GEMINI_CLI_TRUST_WORKSPACE="true",
            TERMSPRAWL_NODE_ID=node,
            TERM="xterm-256color",
        )

    def headless(self, server, *args):
        """Default approval mode: no --yolo, no --approval-mode."""
        done = subprocess.run(
            [self.gemini] + list(args) + ["-o", "json"],
            cwd=str(self.project),
            env=self.gemini_env(server),
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
        return done

    def tui(self, server, prompt, *args, requests=2, settle=3):
        tui = Tui([self.gemini] + list(args), str(self.project), self.gemini_env(server))
        try:
            assert tui.pump(60, lambda: "Tips for getting started" in tui.text()), tui.text()[-2000:]
            tui.pump(settle)
            tui.type(prompt)
            tui.pump(60, lambda: len(server.requests) >= requests)
            tui.pump(3)
            return tui.text()
        finally:
            tui.close()

    def links(self):
        return sorted(os.listdir(str(self.project / ".termsprawl" / "links")))


@pytest.fixture(scope="module")
def world(tmp_path_factory, pyz):
    world = ReadWorld(tmp_path_factory.mktemp("gemini-read"), pyz)
    done = world.tool("init", "--cwd", world.project, "--gemini-hook", "--gemini-md")
    assert done.returncode == 0, done.stderr
    alice = world.root / "alice.jsonl"
    claude_transcript(alice)
    assert world.tool("index", "set", "alice", alice).returncode == 0
    assert world.tool("links", "add", "alice", "carol").returncode == 0
    return world


def test_headless_default_mode_reads_the_peer_with_the_tool_the_context_names(world):
    with GeminiServer([call_the_named_tool(), Say("carol read alice")]) as server:
        done = world.headless(server, "-p", "carol-headless: what is alice doing?")
    assert CONTEXT_MARK in all_texts(server.requests[0][1])
    outputs = tool_outputs(server)
    assert outputs and ALICE_WORDS in outputs[-1] and ALICE_ANSWER in outputs[-1]
    assert json.loads(done.stdout)["response"] == "carol read alice"


def test_the_same_route_writes_nothing(world):
    before = world.links()
    command = world.tool_command = str(world.project / ".termsprawl" / "bin" / "termsprawl-context")
    with GeminiServer(
        [
            call_the_named_tool({"args": "links add hank eve"}),
            Shell(command + " --format markdown links add hank eve"),
            Shell(command + " links add hank eve"),
            Say("tried"),
        ]
    ) as server:
        world.headless(server, "-p", "carol-write: link hank and eve")
    assert world.links() == before
    assert "hank" not in "".join(world.links())
    outputs = tool_outputs(server)
    # The client checks the tool's schema (no other property) before the server would refuse it.
    assert outputs and "additional properties" in outputs[0] and ALICE_WORDS not in outputs[0]
    # 0.61 headless in its default mode offers no shell tool: neither command ran.
    assert "run_shell_command" not in declared_functions(server.requests[0][1])
    assert not any("linked hank and eve" in o for o in outputs)
    assert any("run_shell_command" in o and "not found" in o for o in outputs)


def test_tui_reads_the_peer_with_no_confirmation(world):
    with GeminiServer([call_the_named_tool(), Say("carol-tui read alice")]) as server:
        screen = world.tui(server, "carol-tui: what is alice doing?")
    assert len(server.requests) >= 2, screen[-2000:]
    outputs = tool_outputs(server)
    assert outputs and ALICE_WORDS in outputs[-1]
    for mark in CONFIRMATION_MARKS:
        assert mark not in screen, screen[-2000:]
    assert "carol-tui read alice" in screen


def test_a_resumed_session_is_told_its_node_and_its_chat_is_kept(world):
    with GeminiServer([Say("resumed answer")]) as server:
        world.headless(server, "-r", "latest", "-p", "carol-resumed: and now?")
    assert CONTEXT_MARK in all_texts(server.requests[0][1])
    with GeminiServer([call_the_named_tool(), Say("resumed tui answer")]) as server:
        # 0.61 queues a typed prompt only until its MCP servers connect, then refreshes the
        # system prompt with their instructions asynchronously (scheduleMcpContextRefresh): a
        # prompt typed in between goes out without them. Under load the server's start can
        # reach that window, so the resumed TUI waits longer before typing.
        screen = world.tui(server, "carol-resumed-tui: and now?", "-r", "latest", settle=10)
    assert server.requests and CONTEXT_MARK in all_texts(server.requests[0][1]), screen[-2000:]
    for mark in CONFIRMATION_MARKS:
        assert mark not in screen
    # A later start in the project (another node): 0.61's cleanup would delete every file of
    # the resumed session (its header-only stub looks corrupt); the project's setting stops it.
    kept = world.index_entry("carol")["path"]
    # The stub a resume in a later minute leaves (as tests/fixtures/gemini-0.61/ holds one):
    # written here, so the run does not hang on the clock's minute.
    header = json.loads(open(kept).readline())
    stub = os.path.join(os.path.dirname(kept), "session-2099-01-01T00-00-%s.jsonl" % header["sessionId"][:8])
    if not [
        n
        for n in os.listdir(os.path.dirname(kept))
        if n.endswith(header["sessionId"][:8] + ".jsonl") and n != os.path.basename(kept)
    ]:
        with open(stub, "w") as f:
            f.write(json.dumps(dict(header, startTime="2099-01-01T00:00:00.000Z")) + "\n")
    with GeminiServer([Say("dave here")]) as server:
        world.headless(server, "-p", "dave: hello")
    assert os.path.exists(kept)
