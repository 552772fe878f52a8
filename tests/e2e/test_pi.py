"""The real pi (pinned in package.json) in the loop, against the scripted chat-completions
server: its ``models.json`` names the server, ``PI_OFFLINE=1``, a scratch HOME, no account.

A project set up with ``init --pi`` (its ``.pi/extensions/termsprawl.ts``) records the session
as a node from the extension's ``session_start``; the hook's context line reaches the model as
a hidden extension message, and the model runs it through the ``bash`` tool and reads its
Claude Code peer (a real Claude Code transcript); the Claude Code node then reads the pi node
(dump and hand-off) with every typed prompt and answer and no harness text. Without the client
the module skips with one line (a failure with $TERMSPRAWL_REQUIRE_CLIENTS=1).
"""

import json
import os
import subprocess

import pytest

from .chat_nodes import (
    HARNESS_MARKS,
    Scenario,
    conversation_of,
    dump_turns,
    index_entry,
    project_with_claude_peer,
    run_pyz,
)
from .chat_server import ChatServer, MODEL, message_texts
from .clients import client_bin


@pytest.fixture(scope="module", autouse=True)
def pi():
    return client_bin("pi")


def models_json(base_url):
    model = {"id": MODEL, "name": "Mock model", "reasoning": False, "contextWindow": 200000, "maxTokens": 8192}
    compat = {"supportsDeveloperRole": False, "supportsReasoningEffort": False}
    provider = {"baseUrl": base_url, "api": "openai-completions", "apiKey": "sk-mock", "compat": compat}
    provider["models"] = [model]
    return {"providers": {"mock": provider}}


class Pi(object):
    def __init__(self, root, server):
        self.home, self.project, self.server = root / "home", root / "proj", server
        agent = self.home / ".pi" / "agent"
        agent.mkdir(parents=True)
        self.project.mkdir()
        (agent / "models.json").write_text(json.dumps(models_json(server.base_url)))

    def env(self, **extra):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PI_", "OPENAI_", "TERMSPRAWL_"))}
        env.update(HOME=str(self.home), PI_OFFLINE="1", NO_COLOR="1")
        env.update(extra)
        return env

    def run(self, prompt, *args, node=None):
        """``pi --mode json -p PROMPT ARGS`` in the project."""
        extra = {"TERMSPRAWL_NODE_ID": node} if node else {}
        argv = [client_bin("pi"), "--provider", "mock", "--model", MODEL, "--mode", "json", "-p", prompt]
        done = subprocess.run(
            argv + list(args),
            cwd=str(self.project),
            env=self.env(**extra),
            capture_output=True,
            text=True,
            timeout=90,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
        return done

    def sessions(self):
        return sorted((self.home / ".pi" / "agent" / "sessions").glob("*/*.jsonl"))


@pytest.fixture
def world(tmp_path, pyz):
    scenario = Scenario("bash")
    with ChatServer(scenario) as server:
        box = Pi(tmp_path, server)
        box.scenario = scenario
        project_with_claude_peer(pyz, box.project, ["--pi"], "pp")
        yield box


def test_pi_node_is_recorded_reads_its_claude_peer_and_is_read(world, pyz):
    peer_view = run_pyz(pyz, ["--cwd", world.project, "--self", "pp", "--format", "markdown"], world.project)
    assert peer_view.returncode == 0 and b"/review parser.py" in peer_view.stdout
    world.run("read your peer please", node="pp")
    (record,) = world.sessions()
    # The extension's session_start ran the hook: the node is the session's own file.
    assert index_entry(world.project, "pp") == {"version": 1, "path": str(record), "harness": "pi"}
    # Its context line reached the model as a user-role message the person never typed.
    first = world.server.completions()[0]
    assert any("linked agents: cc" in t for t in message_texts(first, "user"))
    (output,) = world.scenario.read_outputs
    assert peer_view.stdout.decode().strip() in output
    # `-c` goes on in the same file; the extension answers once per start.
    world.run("second prompt", "-c", node="pp")
    assert world.sessions() == [record]
    raw = record.read_text()
    assert raw.count('"type":"custom_message"') == 2 and '"customType":"termsprawl"' in raw
    dump = run_pyz(pyz, ["--cwd", world.project, "--self", "cc"], world.project)
    assert dump.returncode == 0, dump.stderr
    text = dump.stdout.decode()
    assert text.startswith("# linked context from pp (pp)\n")
    assert dump_turns(text) == [
        ("user", "read your peer please"),
        ("assistant", "I read my peer."),
        ("user", "second prompt"),
        ("assistant", "answer to second prompt"),
    ]
    assert not any(mark in text for mark in HARNESS_MARKS)
    handoff = run_pyz(pyz, ["--cwd", world.project, "--self", "cc", "--format", "markdown"], world.project)
    assert conversation_of(handoff.stdout.decode()) == [t for _, t in dump_turns(text)]
    env = world.env()
    listed = run_pyz(pyz, ["sessions", "--json", "--harness", "pi"], world.project, env=env)
    (row,) = [json.loads(x) for x in listed.stdout.decode().splitlines()]
    assert (row["transcript_path"], row["cwd"]) == (str(record), str(world.project))
    shown = run_pyz(pyz, ["show", row["session_id"]], world.project, env=env).stdout.decode()
    for said in ("read your peer please", "I read my peer.", "second prompt", "answer to second prompt"):
        assert said in shown
    assert not any(mark in shown for mark in HARNESS_MARKS)


def test_init_owns_its_extension_and_refuses_anothers(tmp_path, pyz):
    project = tmp_path / "p"
    (project / ".pi" / "extensions").mkdir(parents=True)
    theirs = project / ".pi" / "extensions" / "termsprawl.ts"
    theirs.write_text("export default function () {}\n")
    done = run_pyz(pyz, ["init", "--cwd", project, "--pi"], project)
    assert done.returncode == 1 and b"left untouched" in done.stdout
    assert theirs.read_text() == "export default function () {}\n"
    theirs.unlink()
    assert run_pyz(pyz, ["init", "--cwd", project, "--pi"], project).returncode == 0
    assert theirs.read_text().startswith("// managed by termsprawl-context init")
