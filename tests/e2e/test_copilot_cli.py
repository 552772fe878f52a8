"""The real GitHub Copilot CLI (pinned in package.json) in the loop, against the scripted
chat-completions server: BYOK env, ``COPILOT_OFFLINE=true``, no GitHub login, a scratch HOME.

A project set up with ``init --copilot`` (its ``.github/hooks/termsprawl.json``) records the
session as a node from the client's own ``sessionStart`` payload; the hook's context line
reaches the model, which runs it through the ``bash`` tool and reads its Claude Code peer (a
real Claude Code transcript); the Claude Code node then reads the Copilot node (dump and
hand-off) with every typed prompt and answer and no harness text. Without the client the
module skips with one line (a failure with $TERMSPRAWL_REQUIRE_CLIENTS=1).
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

TASK = ("task", {"description": "child work", "prompt": "child task", "agent_type": "general-purpose", "name": "kid"})


@pytest.fixture(scope="module", autouse=True)
def copilot():
    return client_bin("copilot")


class Copilot(object):
    def __init__(self, root, server):
        self.home, self.project, self.server = root / "home", root / "proj", server
        self.home.mkdir()
        self.project.mkdir()

    def env(self, **extra):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("COPILOT_", "GITHUB_", "GH_", "TERMSPRAWL_"))}
        env.update(
            HOME=str(self.home),
            COPILOT_OFFLINE="true",
            COPILOT_PROVIDER_BASE_URL=self.server.base_url,
            COPILOT_PROVIDER_TYPE="openai",
            COPILOT_PROVIDER_API_KEY="sk-mock",
            COPILOT_MODEL=MODEL,
            COPILOT_AUTO_UPDATE="false",
            COPILOT_ALLOW_ALL="true",  # exactly "true" also trusts the folder, which loads its hooks
            NO_COLOR="1",
        )
        env.update(extra)
        return env

    def run(self, prompt, *args, node=None):
        """``copilot -p PROMPT --output-format json ARGS``: the session id of its result line."""
        extra = {"TERMSPRAWL_NODE_ID": node} if node else {}
        argv = [client_bin("copilot"), "-p", prompt, "--no-auto-update", "--output-format", "json"] + list(args)
        done = subprocess.run(
            argv,
            cwd=str(self.project),
            env=self.env(**extra),
            capture_output=True,
            text=True,
            timeout=90,
            stdin=subprocess.DEVNULL,
        )
        results = [json.loads(x) for x in done.stdout.splitlines() if x.startswith('{"type":"result"')]
        assert done.returncode == 0 and results, (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
        return results[-1]["sessionId"]

    def events(self, session_id):
        return self.home / ".copilot" / "session-state" / session_id / "events.jsonl"


@pytest.fixture
def world(tmp_path, pyz):
    scenario = Scenario("bash", TASK)
    with ChatServer(scenario) as server:
        box = Copilot(tmp_path, server)
        box.scenario = scenario
        project_with_claude_peer(pyz, box.project, ["--copilot"], "cp")
        yield box


def test_copilot_node_is_recorded_reads_its_claude_peer_and_is_read(world, pyz):
    peer_view = run_pyz(pyz, ["--cwd", world.project, "--self", "cp", "--format", "markdown"], world.project)
    assert peer_view.returncode == 0 and b"/review parser.py" in peer_view.stdout
    session = world.run("read your peer please", node="cp")
    events = world.events(session)
    # The sessionStart payload (an id, no path) recorded the node at the path the id names.
    assert index_entry(world.project, "cp") == {"version": 1, "path": str(events), "harness": "copilot-cli"}
    # Its top-level additionalContext reached the model, which ran the command it named.
    first = world.server.completions()[0]
    assert any("linked agents: cc" in t for t in message_texts(first, "user"))
    (output,) = world.scenario.read_outputs
    assert peer_view.stdout.decode().strip() in output
    # Resumed: the same file; a sub-agent's turns stay inside it.
    assert world.run("second prompt", "--resume", session, node="cp") == session
    world.run("spawn a helper", "--resume", session, node="cp")
    raw = events.read_text()
    assert '"agentId"' in raw and "child result words" in raw
    # The lead (the Claude Code node) reads the Copilot node: typed prompts and answers only.
    dump = run_pyz(pyz, ["--cwd", world.project, "--self", "cc"], world.project)
    assert dump.returncode == 0, dump.stderr
    text = dump.stdout.decode()
    assert text.startswith("# linked context from cp (cp)\n")
    assert dump_turns(text) == [
        ("user", "read your peer please"),
        ("assistant", "I read my peer."),
        ("user", "second prompt"),
        ("assistant", "answer to second prompt"),
        ("user", "spawn a helper"),
        ("assistant", "The sub-agent is done."),
    ]
    assert not any(mark in text for mark in HARNESS_MARKS) and "child task" not in text
    handoff = run_pyz(pyz, ["--cwd", world.project, "--self", "cc", "--format", "markdown"], world.project)
    turns = conversation_of(handoff.stdout.decode())
    assert turns == [t for _, t in dump_turns(text)]
    # The store: `sessions --json` lists it, `show` prints every typed prompt and answer.
    env = world.env()
    listed = run_pyz(pyz, ["sessions", "--json", "--harness", "copilot-cli"], world.project, env=env)
    (row,) = [json.loads(x) for x in listed.stdout.decode().splitlines()]
    assert (row["session_id"], row["transcript_path"], row["cwd"]) == (session, str(events), str(world.project))
    shown = run_pyz(pyz, ["show", session], world.project, env=env).stdout.decode()
    for said in ("read your peer please", "I read my peer.", "second prompt", "answer to second prompt"):
        assert said in shown
    assert not any(mark in shown for mark in HARNESS_MARKS)
    found = run_pyz(pyz, ["search", "second prompt", "--harness", "copilot-cli"], world.project, env=env)
    assert str(events) in found.stdout.decode()


def test_init_owns_its_hook_file_and_refuses_anothers(tmp_path, pyz):
    project = tmp_path / "p"
    (project / ".github" / "hooks").mkdir(parents=True)
    theirs = project / ".github" / "hooks" / "termsprawl.json"
    theirs.write_text('{"version":1,"hooks":{}}\n')
    done = run_pyz(pyz, ["init", "--cwd", project, "--copilot"], project)
    assert done.returncode == 1 and b"left untouched" in done.stdout
    assert theirs.read_text() == '{"version":1,"hooks":{}}\n'
    theirs.unlink()
    assert run_pyz(pyz, ["init", "--cwd", project, "--copilot"], project).returncode == 0
    ours = theirs.read_bytes()
    again = run_pyz(pyz, ["init", "--cwd", project, "--copilot"], project)
    assert again.returncode == 0 and theirs.read_bytes() == ours
