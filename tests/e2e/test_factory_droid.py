"""The real Factory Droid 0.225.2 as a node, against the scripted chat-completions server.

One project set up with the built artifact's ``init --droid-hook --agents-md`` in a scratch
HOME, Droid's BYOK model in ``~/.factory/settings.json`` (no login). Node ``alice`` is a Claude
Code transcript; node ``bob`` is ``droid exec`` started with ``TERMSPRAWL_NODE_ID=bob`` at its
default autonomy: its SessionStart hook records bob, the hook's context reaches the model, and
the model runs the exact command it names through ``Execute`` (declaring it low-risk, which is
what lets exec run it: Droid has no exact command rule). Droid cannot resume offline, so the
second prompt is a second session, which the hook records as bob's new session. Then the lead
(alice) reads bob.
"""

import json
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from chat_server import ChatServer, last_tool_output, message_texts, reply, tool_call  # noqa: E402
from clients import client_bin  # noqa: E402

RUN_TIMEOUT = 90
ALICE_WORDS = "alice-says: the migration is blocked on the schema review"
ALICE_ANSWER = "alice-answers: I will wait for the review"
BOB_ONE = "bob-prompt-one: what is alice doing?"
BOB_ANSWER_ONE = "bob-answer-one: alice waits for a schema review"
BOB_TWO = "bob-prompt-two: and after that?"
BOB_ANSWER_TWO = "bob-answer-two: she merges"
HARNESS_TEXT = ("termsprawl: you are agent node", "<system-reminder>")
COMMAND_IN_CONTEXT = re.compile(r"run: ([^\n<]+)")


def claude_transcript(path):
    records = [
        {"type": "user", "uuid": "u1", "sessionId": "s-alice", "timestamp": "2026-12-01T00:00:00Z",
         "message": {"role": "user", "content": ALICE_WORDS}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s-alice",
         "timestamp": "2026-12-01T00:00:01Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": ALICE_ANSWER}]}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


class World(object):
    def __init__(self, root, pyz):
        self.root, self.pyz = root, str(pyz)
        self.home, self.project = root / "home", root / "proj"
        (self.home / ".factory").mkdir(parents=True)
        self.project.mkdir()
        subprocess.run(["git", "init", "-q", str(self.project)], check=True)
        self.droid = client_bin("droid")

    def env(self, **extra):
        env = {
            k: v for k, v in os.environ.items() if not k.startswith(("FACTORY_", "DROID_", "TERMSPRAWL_", "CLAUDE_"))
        }
        env.update(HOME=str(self.home), NO_COLOR="1")
        env.update(extra)
        return env

    def tool(self, *args):
        done = subprocess.run(
            [sys.executable, self.pyz] + [str(a) for a in args],
            cwd=str(self.project),
            env=self.env(),
            capture_output=True,
            timeout=60,
        )
        assert b"Traceback" not in done.stderr
        return done

    def run_droid(self, server, prompt):
        model = {
            "id": "custom:mock-model",
            "model": "mock-model",
            "displayName": "Mock model",
            "provider": "generic-chat-completion-api",
            "baseUrl": server.base_url,
            "apiKey": "sk-mock",
            "maxOutputTokens": 8192,
        }
        (self.home / ".factory" / "settings.json").write_text(json.dumps({"customModels": [model]}))
        env = self.env(TERMSPRAWL_NODE_ID="bob")
        done = subprocess.run(
            [self.droid, "exec", "-m", "custom:mock-model", "-o", "json", prompt],
            cwd=str(self.project),
            env=env,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
        return done

    def index_entry(self, node):
        return json.loads((self.project / ".termsprawl" / "transcripts" / (node + ".json")).read_text())


def first_script(body, n):
    """Run the command the hook's context line names, then answer with what it printed."""
    output = last_tool_output(body)
    if output is None:
        found = COMMAND_IN_CONTEXT.search("\n".join(message_texts(body)))
        if not found:
            return reply("no context line")
        read = {"command": found.group(1).strip(), "riskLevel": "low", "riskLevelReason": "reads a file"}
        return reply(None, [tool_call("call_read0", "Execute", read)])
    return reply(BOB_ANSWER_ONE if ALICE_WORDS in output else "the read failed: " + output[:300])


@pytest.fixture(scope="module")
def world(tmp_path_factory, pyz):
    world = World(tmp_path_factory.mktemp("droid-e2e"), pyz)
    done = world.tool("init", "--cwd", world.project, "--droid-hook", "--agents-md")
    assert done.returncode == 0, done.stderr
    alice = world.root / "alice.jsonl"
    claude_transcript(alice)
    assert world.tool("index", "set", "alice", alice).returncode == 0
    assert world.tool("links", "add", "alice", "bob").returncode == 0
    with ChatServer(first_script) as first:
        world.first = first
        world.first_run = world.run_droid(first, BOB_ONE)
    world.session_id = json.loads(world.first_run.stdout)["session_id"]
    world.after_first = world.index_entry("bob")
    with ChatServer(lambda body, n: reply(BOB_ANSWER_TWO)) as second:
        world.second_run = world.run_droid(second, BOB_TWO)
    world.second_id = json.loads(world.second_run.stdout)["session_id"]
    world.after_second = world.index_entry("bob")
    return world


def test_init_wrote_the_hook_and_the_agents_block(world):
    settings = json.loads((world.project / ".factory" / "settings.json").read_text())
    assert "hook --harness factory-droid" in json.dumps(settings["hooks"]["SessionStart"])
    assert "permissions" not in settings  # no exact command rule exists in Droid's language
    assert "termsprawl:context-links" in (world.project / "AGENTS.md").read_text()


def test_hook_records_each_droid_session_as_the_node(world):
    assert world.after_first["harness"] == "factory-droid"
    assert world.after_first["path"].endswith("/%s.jsonl" % world.session_id)
    assert world.second_id != world.session_id  # exec cannot resume offline: a new session
    assert world.after_second["path"].endswith("/%s.jsonl" % world.second_id)


def test_the_model_reads_alice_through_execute(world):
    requests = world.first.completions()
    texts = "\n".join(message_texts(requests[0]))
    assert "termsprawl: you are agent node bob; linked agents: alice." in texts
    outputs = [last_tool_output(body) for body in requests]
    assert any(o and ALICE_WORDS in o and ALICE_ANSWER in o for o in outputs)


def test_the_lead_reads_bobs_prompts_and_answers_without_harness_text(world):
    done = world.tool("--cwd", world.project, "--self", "alice")
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert out.startswith("# linked context from bob")
    for words in (BOB_TWO, BOB_ANSWER_TWO):  # the node's session is now the second one
        assert words in out
    for text in HARNESS_TEXT:
        assert text not in out
    handoff = json.loads(world.tool("--cwd", world.project, "--self", "alice", "--format", "json").stdout)
    peers = handoff["peers"] if isinstance(handoff, dict) and "peers" in handoff else handoff
    # The node's earlier session (the first exec) fills the hand-off before its current one.
    bobs = [p for p in peers if p["id"] == "bob"]
    turns = [(t["role"], t["text"]) for p in bobs for t in p["turns"]]
    assert turns == [
        ("user", BOB_ONE),
        ("assistant", BOB_ANSWER_ONE),
        ("user", BOB_TWO),
        ("assistant", BOB_ANSWER_TWO),
    ]
    assert not any(text in json.dumps(bobs) for text in HARNESS_TEXT)


def test_sessions_and_show_read_the_droid_store(world):
    listed = world.tool("sessions", "--harness", "factory-droid", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = [json.loads(line) for line in listed.stdout.decode().splitlines()]
    assert {world.session_id, world.second_id} <= {r["session_id"] for r in rows}
    for session, words in ((world.session_id, (BOB_ONE, BOB_ANSWER_ONE)), (world.second_id, (BOB_TWO, BOB_ANSWER_TWO))):
        shown = world.tool("show", session)
        assert shown.returncode == 0, shown.stderr
        out = shown.stdout.decode()
        for one in words:
            assert one in out
        for text in HARNESS_TEXT:
            assert text not in out
    found = world.tool("search", "bob-prompt-two")
    assert found.returncode == 0 and found.stdout.decode().startswith(world.after_second["path"] + ":")
    unfound = world.tool("search", "termsprawl: you are agent node")  # harness text is not the conversation
    assert unfound.stdout == b""
