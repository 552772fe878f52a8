"""The real Mistral Vibe 3.0.3 as a node, against the scripted chat-completions server.

Vibe has no session-start hook: ``init --vibe-hook`` writes ``.vibe/hooks.toml`` with a
``post_tool`` hook, which records the session at the model's first tool call and appends the
context line to that tool's result. One project set up with ``init --vibe-hook --agents-md``
in a scratch HOME; ``~/.vibe/config.toml`` names the scripted model and allows the read
command by prefix (``[tools.bash] allowlist``: a rule the person adds; ``init`` cannot own
a project ``.vibe/config.toml``, which Vibe rewrites on its first run). ``alice`` (a Claude Code transcript) and ``carol`` are linked first. Turn 1: the
model runs ``cat parser.py``; the hook records carol and the result carries the context line;
the model runs the command it names and gets alice's words. Turn 2 (``--resume``): a second
prompt. Then the lead reads carol; and without the hook, the project's newest Vibe session
(``sessions --json``) is the same one.
"""

import json
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from chat_server import ChatServer, last_tool_output, reply, tool_call  # noqa: E402
from clients import client_bin  # noqa: E402

RUN_TIMEOUT = 90
ALICE_WORDS = "alice-says: the migration is blocked on the schema review"
ALICE_ANSWER = "alice-answers: I will wait for the review"
CAROL_ONE = "carol-prompt-one: what is alice doing?"
CAROL_ANSWER_ONE = "carol-answer-one: alice waits for a schema review"
CAROL_TWO = "carol-prompt-two: and after that?"
CAROL_ANSWER_TWO = "carol-answer-two: she merges"
HARNESS_TEXT = ("termsprawl:context-links", "Running hooks", "termsprawl: you are agent node")
COMMAND_IN_CONTEXT = re.compile(r"run: ([^\n]+)")


def claude_transcript(path):
    records = [
        {"type": "user", "uuid": "u1", "sessionId": "s-alice", "timestamp": "2026-12-01T00:00:00Z",
         "message": {"role": "user", "content": ALICE_WORDS}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s-alice",
         "timestamp": "2026-12-01T00:00:01Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": ALICE_ANSWER}]}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


CONFIG = """active_model = "mock"
enable_update_checks = false
enable_auto_update = false
enable_telemetry = false

[[providers]]
name = "mock"
api_base = "%s"
api_key_env_var = "MOCK_API_KEY"
backend = "generic"

[[models]]
name = "mock-model"
provider = "mock"
alias = "mock"

[tools.bash]
allowlist = [%s]
"""


class World(object):
    def __init__(self, root, pyz):
        self.root, self.pyz = root, str(pyz)
        self.home, self.project = root / "home", root / "proj"
        (self.home / ".vibe").mkdir(parents=True)
        self.project.mkdir()
        subprocess.run(["git", "init", "-q", str(self.project)], check=True)
        self.vibe = client_bin("vibe")
        self.read_prefix = "%s --format markdown" % (self.project / ".termsprawl" / "bin" / "termsprawl-context")

    def env(self, **extra):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("VIBE_", "MISTRAL_", "TERMSPRAWL_"))}
        env.update(HOME=str(self.home), NO_COLOR="1", MOCK_API_KEY="sk-mock")
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

    def run_vibe(self, server, *args):
        (self.home / ".vibe" / "config.toml").write_text(CONFIG % (server.base_url, json.dumps(self.read_prefix)))
        done = subprocess.run(
            [self.vibe, "--trust"] + list(args) + ["--output", "json"],
            cwd=str(self.project),
            env=self.env(TERMSPRAWL_NODE_ID="carol"),
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
        return done


def project_session(world):
    """The node rule: the newest Vibe session whose working directory is the project."""
    listed = world.tool("sessions", "--harness", "mistral-vibe", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = [json.loads(line) for line in listed.stdout.decode().splitlines()]
    mine = [r for r in rows if os.path.realpath(r["cwd"]) == os.path.realpath(str(world.project))]
    return max(mine, key=lambda r: r["mtime"])


def first_script(body, n):
    """``cat parser.py``; then the command the hook's context line (on that result) names."""
    output = last_tool_output(body)
    if output is None:
        return reply(None, [tool_call("call_cat", "bash", {"command": "cat parser.py"})])
    if ALICE_WORDS in output:
        return reply(CAROL_ANSWER_ONE)
    found = COMMAND_IN_CONTEXT.search(output)
    if not found:
        return reply("no context line: " + output[-300:])
    return reply(None, [tool_call("call_read", "bash", {"command": found.group(1).strip()})])


@pytest.fixture(scope="module")
def world(tmp_path_factory, pyz):
    world = World(tmp_path_factory.mktemp("vibe-e2e"), pyz)
    done = world.tool("init", "--cwd", world.project, "--vibe-hook", "--agents-md")
    assert done.returncode == 0, done.stderr
    (world.project / "parser.py").write_text("print('parser')\n")
    alice = world.root / "alice.jsonl"
    claude_transcript(alice)
    assert world.tool("index", "set", "alice", alice).returncode == 0
    assert world.tool("links", "add", "alice", "carol").returncode == 0
    with ChatServer(first_script) as first:
        world.first = first
        world.run_vibe(first, "-p", CAROL_ONE)
    world.entry = json.loads((world.project / ".termsprawl" / "transcripts" / "carol.json").read_text())
    world.row = project_session(world)
    with ChatServer(lambda body, n: reply(CAROL_ANSWER_TWO)) as second:
        world.run_vibe(second, "--resume", world.row["session_id"], "-p", CAROL_TWO)
    return world


def test_init_wrote_the_hook_and_vibe_left_it_as_written(world):
    hooks = (world.project / ".vibe" / "hooks.toml").read_text()
    assert hooks.startswith("# termsprawl-context:") and 'type = "post_tool"' in hooks
    again = world.tool("init", "--cwd", world.project, "--vibe-hook")  # still ours after Vibe ran
    assert again.returncode == 0 and b"unchanged  .vibe/hooks.toml" in again.stdout


def test_the_post_tool_hook_records_the_node_and_it_is_the_project_s_newest_session(world):
    assert world.entry["harness"] == "mistral-vibe"
    assert world.entry["path"] == world.row["transcript_path"]
    assert world.entry["path"].endswith("/unified/%s/meta.json" % world.row["session_id"])


def test_the_hook_s_context_reaches_the_model_and_it_reads_alice(world):
    outputs = [last_tool_output(body) for body in world.first.completions()]
    assert any(o and "termsprawl: you are agent node carol; linked agents: alice." in o for o in outputs)
    assert any(o and ALICE_WORDS in o and ALICE_ANSWER in o for o in outputs)


def test_the_lead_reads_carols_prompts_and_answers(world):
    done = world.tool("--cwd", world.project, "--self", "alice")
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    for words in (CAROL_ONE, CAROL_ANSWER_ONE, CAROL_TWO, CAROL_ANSWER_TWO):
        assert words in out
    assert out.index(CAROL_ONE) < out.index(CAROL_ANSWER_ONE) < out.index(CAROL_TWO) < out.index(CAROL_ANSWER_TWO)
    for text in HARNESS_TEXT:
        assert text not in out


def test_show_prints_every_typed_prompt_and_answer(world):
    shown = world.tool("show", world.row["session_id"])
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout.decode()
    for words in (CAROL_ONE, CAROL_ANSWER_ONE, CAROL_TWO, CAROL_ANSWER_TWO):
        assert words in out
    for text in HARNESS_TEXT:
        assert text not in out
    found = world.tool("search", "carol-prompt-two")
    assert found.returncode == 0 and found.stdout.decode().startswith(world.entry["path"] + ":")
    unfound = world.tool("search", "termsprawl: you are agent node")  # harness text is not the conversation
    assert unfound.stdout == b""
