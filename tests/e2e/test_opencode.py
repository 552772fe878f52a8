"""OpenCode 1.18.33, for real, against the scripted chat-completions server (issue 30).

The project is set up with ``init --opencode`` (the plugin ``.opencode/plugins/termsprawl.js``
and ``opencode.json``'s ``permission.bash``). ``TERMSPRAWL_NODE_ID=alice opencode run`` records
its session as node ``alice`` through the plugin; alice is linked to a Claude Code peer
(``cc``) and reads it by running the dump through its bash tool (the one command the rule
admits); a second turn resumes the session (``run -s``); a third tries a write through the
same tool, which the rule refuses. The plugin put the hook's answer into the system prompt. A lead linked to alice reads every typed prompt and answer.
``npm_config_offline``: OpenCode's background install of its plugin package fails at once
instead of waiting on the registry (the plain-JS plugin needs none of it).
"""

import json
import subprocess

import pytest

from .chat_server import ChatServer, reply, tool_call
from .clients import client_bin
from .node_world import CC_ANSWER, CC_TYPED, NodeWorld, after_last_user, lead_turns

TYPED = ["OC-PROMPT-1 read what the linked agents did", "OC-PROMPT-2 and now summarise", "OC-PROMPT-3 link x and y"]
READ = ".termsprawl/bin/termsprawl-context --format markdown"
WRITE = ".termsprawl/bin/termsprawl-context links add x y"


def script(body, n):
    if "Generate a title" in json.dumps(body):
        return reply("Mock title")
    prompt, outputs = after_last_user(body)
    if prompt.startswith("OC-PROMPT-1"):
        if not outputs:
            return reply(
                "OC-SAY-1 reading", [tool_call("call_read", "bash", {"command": READ, "description": "peers"})]
            )
        return reply("OC-ANSWER-1 peer prompt seen: %s" % (CC_TYPED in outputs[-1]))
    if prompt.startswith("OC-PROMPT-3"):
        if not outputs:
            return reply(None, [tool_call("call_write", "bash", {"command": WRITE, "description": "link"})])
        return reply("OC-ANSWER-3 done")
    return reply("OC-ANSWER-2 summary")


class OpenCode(object):
    def __init__(self, world, server):
        self.world, self.server = world, server

    def run(self, *args):
        config = {
            "autoupdate": False,
            "share": "disabled",
            "model": "mock/mock-model",
            "small_model": "mock/mock-model",
            "provider": {
                "mock": {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "Mock",
                    "options": {"baseURL": self.server.base_url, "apiKey": "sk-mock"},
                    "models": {"mock-model": {"name": "Mock model", "tool_call": True}},
                }
            },
        }
        env = self.world.env(
            TERMSPRAWL_NODE_ID="alice",
            OPENCODE_CONFIG_CONTENT=json.dumps(config),
            OPENCODE_DISABLE_MODELS_FETCH="1",
            OPENCODE_DISABLE_AUTOUPDATE="1",
            npm_config_offline="true",
            npm_config_cache=self.world.root / "npm-cache",
        )
        done = subprocess.run(
            [client_bin("opencode"), "run", "--format", "json"] + list(args),
            cwd=str(self.world.project),
            env=env,
            capture_output=True,
            timeout=80,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        lines = [json.loads(line) for line in done.stdout.decode().splitlines() if line.startswith("{")]
        return lines[0]["sessionID"], lines


@pytest.fixture(scope="module")
def world(tmp_path_factory, pyz):
    client_bin("opencode")
    world = NodeWorld(tmp_path_factory.mktemp("opencode"), pyz)
    done = world.tool("init", "--cwd", world.project, "--opencode")
    assert done.returncode == 0, done.stderr
    world.init_out = done.stdout.decode()
    world.claude_peer()
    for pair in (("alice", "cc"), ("lead", "alice")):
        assert world.tool("links", "add", *pair).returncode == 0
    with ChatServer(script) as server:
        client = OpenCode(world, server)
        world.session, world.first = client.run(*TYPED[0].split())
        for prompt in TYPED[1:]:
            client.run("-s", world.session, *prompt.split())
        world.requests = [r.body for r in server.received]
    return world


def test_init_wrote_the_plugin_and_the_exact_read_rule(world):
    plugin = (world.project / ".opencode" / "plugins" / "termsprawl.js").read_text()
    assert plugin.startswith("// termsprawl-context: managed file") and "hook --harness opencode" in plugin
    rules = json.loads((world.project / "opencode.json").read_text())["permission"]["bash"]
    assert rules == {"*": "ask", READ: "allow"}
    assert "wired: OpenCode" in world.init_out


def test_the_plugin_recorded_the_session_as_the_node(world):
    entry = world.entry("alice")
    assert entry["harness"] == "opencode"
    assert entry["path"].endswith("opencode.db#" + world.session)


def test_the_node_read_its_claude_code_peer_through_its_shell_tool(world):
    answers = [p["part"]["text"] for p in world.first if p.get("type") == "text"]
    assert "OC-ANSWER-1 peer prompt seen: True" in answers
    outputs = [o for body in world.requests for o in after_last_user(body)[1]]
    assert any(CC_TYPED in o and CC_ANSWER in o for o in outputs)


def test_the_hooks_answer_reached_the_model_in_its_system_prompt(world):
    systems = [
        m.get("content") for body in world.requests for m in body.get("messages", []) if m.get("role") == "system"
    ]
    assert any(isinstance(s, str) and "termsprawl: you are agent node alice" in s for s in systems)


def test_the_rule_refused_the_write_through_the_same_tool(world):
    assert not (world.project / ".termsprawl" / "links" / "x--y.json").exists()


def test_a_lead_reads_every_typed_prompt_and_answer_and_no_harness_text(world):
    turns = lead_turns(world, "alice")
    assert [t for r, t in turns if r == "user"] == TYPED
    said = " ".join(t for r, t in turns if r == "assistant")
    # `run` cannot ask: the refused call ends the third turn, with no answer after it.
    for answer in ("OC-ANSWER-1 peer prompt seen: True", "OC-ANSWER-2 summary"):
        assert answer in said
    for marker in ("[compaction]", "[file]", "<system-reminder>", "termsprawl: you are agent node"):
        assert all(marker not in t for _r, t in turns)


def test_sessions_lists_it_and_show_prints_every_prompt_and_answer(world):
    done = world.tool("sessions", "--json", "--harness", "opencode")
    assert done.returncode == 0, done.stderr
    listed = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert [s["session_id"] for s in listed] == [world.session]
    assert listed[0]["first_user_message"] == TYPED[0] and listed[0]["cwd"] == str(world.project)
    shown = world.tool("show", world.session, "--all", "--format", "json")
    assert shown.returncode == 0, shown.stderr
    turns = [(t["role"], t["text"]) for t in json.loads(shown.stdout.decode())["turns"]]
    assert [t for r, t in turns if r == "user"] == TYPED
    assert "OC-ANSWER-2 summary" in [t for r, t in turns if r == "assistant"]


def test_doctor_sees_the_node_the_dump_prints(world):
    done = world.tool("doctor", "--self", "lead")
    assert done.returncode == 0, done.stderr
    assert "verdict: the dump prints 1 peer" in done.stdout.decode() and ": alice" in done.stdout.decode()
