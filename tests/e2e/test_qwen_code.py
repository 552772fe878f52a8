"""The real Qwen Code 0.24.4 as a node, against the scripted chat-completions server.

One project set up with the built artifact's ``init --qwen-hook --qwen-md`` in a scratch HOME.
Node ``alice`` is a Claude Code transcript; node ``bob`` is Qwen Code started headless with
``TERMSPRAWL_NODE_ID=bob`` in its default approval mode (no yolo): its SessionStart hook records
bob, the hook's context line reaches the model, and the model runs the exact command it names
through ``run_shell_command``, admitted by the one rule ``init`` wrote (headless Qwen offers no
shell tool otherwise). A resume adds a second prompt. Then the lead (alice) reads bob.
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
PROBE = "bob-probe: link x and y"
HARNESS_TEXT = ("termsprawl: you are agent node", "qwen:session-start-context", "<system-reminder>")
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
        (self.home / ".qwen").mkdir(parents=True)
        self.project.mkdir()
        (self.home / ".qwen" / "settings.json").write_text(
            json.dumps(
                {
                    "security": {"auth": {"selectedType": "openai"}},
                    "model": {"name": "mock-model"},
                    "privacy": {"usageStatisticsEnabled": False},
                    "telemetry": {"enabled": False},
                    "general": {"disableAutoUpdate": True},
                }
            )
        )
        subprocess.run(["git", "init", "-q", str(self.project)], check=True)
        self.qwen = client_bin("qwen")

    def env(self, **extra):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("QWEN_", "OPENAI_", "TERMSPRAWL_", "CLAUDE_"))}
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

    def run_qwen(self, server, *args):
        env = self.env(
            OPENAI_API_KEY="sk-mock",
            OPENAI_BASE_URL=server.base_url,
            OPENAI_MODEL="mock-model",
            TERMSPRAWL_NODE_ID="bob",
        )
        done = subprocess.run(
            [self.qwen, "-o", "json"] + list(args),
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
        found = COMMAND_IN_CONTEXT.search("\n".join(message_texts(body, "system")))
        if not found:
            return reply("no context line")
        return reply(None, [tool_call("call_read0", "run_shell_command", {"command": found.group(1).strip()})])
    return reply(BOB_ANSWER_ONE if ALICE_WORDS in output else "the read failed: " + output[:300])


@pytest.fixture(scope="module")
def world(tmp_path_factory, pyz):
    world = World(tmp_path_factory.mktemp("qwen-e2e"), pyz)
    done = world.tool("init", "--cwd", world.project, "--qwen-hook", "--qwen-md")
    assert done.returncode == 0, done.stderr
    alice = world.root / "alice.jsonl"
    claude_transcript(alice)
    assert world.tool("index", "set", "alice", alice).returncode == 0
    assert world.tool("links", "add", "alice", "bob").returncode == 0
    with ChatServer(first_script) as first:
        world.first = first
        world.first_run = world.run_qwen(first, BOB_ONE)
    world.session_id = json.loads(world.first_run.stdout)[-1]["session_id"]
    world.after_first = world.index_entry("bob")
    with ChatServer(lambda body, n: reply(BOB_ANSWER_TWO)) as second:
        world.second_run = world.run_qwen(second, "-r", world.session_id, BOB_TWO)
    write = "%s links add x y" % (world.project / ".termsprawl" / "bin" / "termsprawl-context")

    def probe(body, n):  # the same command, another subcommand: the rule must not admit it
        if "call_write0" not in json.dumps(body):  # (the resumed history holds the earlier read's output)
            return reply(None, [tool_call("call_write0", "run_shell_command", {"command": write})])
        return reply("PROBE-DONE")

    with ChatServer(probe) as third:
        world.probe = third
        world.probe_run = world.run_qwen(third, "-r", world.session_id, PROBE)
    return world


def test_init_wrote_the_hook_the_rule_and_the_import(world):
    settings = json.loads((world.project / ".qwen" / "settings.json").read_text())
    command = str(world.project / ".termsprawl" / "bin" / "termsprawl-context")
    assert settings["permissions"]["allow"] == ["run_shell_command(%s --format markdown)" % command]
    assert "hook --harness qwen-code" in json.dumps(settings["hooks"]["SessionStart"])
    assert "@./.termsprawl/AGENTS.md" in (world.project / "QWEN.md").read_text()


def test_the_rule_admits_no_other_subcommand(world):
    # Headless, the declined call ends the run: its result is in the chat, not sent back.
    results = [
        json.dumps(part)
        for line in open(world.after_first["path"], encoding="utf-8")
        for part in json.loads(line).get("message", {}).get("parts") or []
        if "call_write0" in json.dumps(part) and "functionResponse" in part
    ]
    assert results and all("declined" in r or "permission" in r for r in results), world.probe_run.stdout[-1500:]
    assert not (world.project / ".termsprawl" / "links" / "x--y.json").exists()


def test_hook_records_the_qwen_session_as_a_node(world):
    entry = world.after_first
    assert entry["harness"] == "qwen-code"
    assert entry["path"].endswith("/chats/%s.jsonl" % world.session_id)
    assert world.index_entry("bob") == entry  # the resume's hook kept the node's file


def test_the_model_reads_alice_through_the_shell_rule(world):
    requests = world.first.completions()
    system = "\n".join(message_texts(requests[0], "system"))
    assert "termsprawl: you are agent node bob; linked agents: alice." in system
    assert "termsprawl:context-links" in system  # QWEN.md's import reached the model
    outputs = [last_tool_output(body) for body in requests]
    assert any(o and ALICE_WORDS in o and ALICE_ANSWER in o for o in outputs)


def test_the_lead_reads_bobs_prompts_and_answers_without_harness_text(world):
    done = world.tool("--cwd", world.project, "--self", "alice")
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert out.startswith("# linked context from bob")
    for words in (BOB_ONE, BOB_ANSWER_ONE, BOB_TWO, BOB_ANSWER_TWO):
        assert words in out
    assert out.index(BOB_ONE) < out.index(BOB_ANSWER_ONE) < out.index(BOB_TWO) < out.index(BOB_ANSWER_TWO)
    for text in HARNESS_TEXT:
        assert text not in out
    handoff = json.loads(world.tool("--cwd", world.project, "--self", "alice", "--format", "json").stdout)
    peers = handoff["peers"] if isinstance(handoff, dict) and "peers" in handoff else handoff
    bob = [p for p in peers if p["id"] == "bob"][0]
    turns = [(t["role"], t["text"]) for t in bob["turns"]]
    assert [t for t in turns if t[0] == "user"] == [("user", BOB_ONE), ("user", BOB_TWO), ("user", PROBE)]
    assert ("assistant", BOB_ANSWER_ONE) in turns and ("assistant", BOB_ANSWER_TWO) in turns


def test_sessions_and_show_read_the_qwen_store(world):
    listed = world.tool("sessions", "--harness", "qwen-code", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = [json.loads(line) for line in listed.stdout.decode().splitlines()]
    assert [r["transcript_path"] for r in rows if r["session_id"] == world.session_id] == [world.after_first["path"]]
    shown = world.tool("show", world.session_id)
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout.decode()
    for words in (BOB_ONE, BOB_ANSWER_ONE, BOB_TWO, BOB_ANSWER_TWO):
        assert words in out
    for text in HARNESS_TEXT:
        assert text not in out
    found = world.tool("search", "bob-prompt-two")
    assert found.returncode == 0 and found.stdout.decode().startswith(world.after_first["path"] + ":")
    unfound = world.tool("search", "termsprawl: you are agent node")  # harness text is not the conversation
    assert unfound.stdout == b""
