"""Standalone use end to end, no desktop app: init --hook from the built artifact, two
agents whose SessionStart payloads go through the INSTALLED command's hook (run the way
Claude Code runs it: the registered command line in a shell), a link, then the installed
command's dump prints each agent the other's turns, and doctor explains the steps."""

import json
import os
import subprocess

from termsprawl_context.harness.claude.facts import encode_project_dir
from conftest import snapshot

SID_ALICE = "a11ce000-0000-4000-8000-000000000001"
SID_BOB = "b0b00000-0000-4000-8000-000000000002"


def jsonl(*entries):
    return "".join(json.dumps(e) + "\n" for e in entries)


def user(session, text):
    return {"type": "user", "sessionId": session, "uuid": "u-" + text, "message": {"role": "user", "content": text}}


def assistant(session, text):
    return {
        "type": "assistant",
        "sessionId": session,
        "uuid": "a-" + text,
        "message": {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hmm"},
                {"type": "text", "text": text},
                {"type": "tool_use", "name": "Bash", "input": {}},
            ],
        },
    }


def test_two_agents_without_the_app(tmp_path, run_pyz, empty_home):
    project = (tmp_path / "work" / "shop").resolve()
    project.mkdir(parents=True)
    config = tmp_path / "claude-config"
    store = config / "projects" / encode_project_dir(str(project))
    store.mkdir(parents=True)

    # 1. Install into the project from the built artifact.
    done = run_pyz(["init", "--hook", "--cwd", project])
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    installed = project / ".termsprawl" / "bin" / "termsprawl-context"
    settings = json.loads((project / ".claude" / "settings.local.json").read_text())
    (entry,) = settings["hooks"]["SessionStart"]
    command = entry["hooks"][0]["command"]
    from termsprawl_context.harness import get
    from termsprawl_context.workspace.project import hook_command

    assert command == hook_command(get("claude-code"))

    def env(node=None):
        values = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(empty_home),
            "LANG": "C",
            "CLAUDE_CONFIG_DIR": str(config),
            "CLAUDE_PROJECT_DIR": str(project),
        }
        if node:
            values["TERMSPRAWL_NODE_ID"] = node
        return values

    def session_start(node, payload):
        """What Claude Code does at SessionStart: the registered command, in a shell."""
        return subprocess.run(
            ["/bin/sh", "-c", command],
            input=json.dumps(payload).encode(),
            cwd=str(project),
            env=env(node),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=60,
        )

    def installed_command(*args, node=None):
        return subprocess.run(
            [str(installed)] + list(args),
            cwd=str(project),
            env=env(node),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=60,
        )

    # 2. Alice starts fresh: her record does not exist yet when the hook fires.
    alice_record = store / (SID_ALICE + ".jsonl")
    started = session_start(
        "alice",
        {
            "session_id": SID_ALICE,
            "transcript_path": str(alice_record),
            "cwd": str(project),
            "hook_event_name": "SessionStart",
            "source": "startup",
        },
    )
    assert (started.returncode, json.loads(started.stdout), started.stderr) == (
        0,
        {"hookSpecificOutput": {"hookEventName": "SessionStart", "sessionTitle": "alice"}},
        b"",
    )
    alice_record.write_text(
        jsonl(user(SID_ALICE, "Plan the cart refactor."), assistant(SID_ALICE, "Step one: move pricing into total()."))
    )

    # 3. Bob resumes a session begun in a worktree: Claude Code reports a path under the
    #    project's own folder where nothing was written; his record is in the worktree's.
    bob_record = (
        config / "projects" / (encode_project_dir(str(project)) + "--claude-worktrees-bob") / (SID_BOB + ".jsonl")
    )
    bob_record.parent.mkdir()
    bob_record.write_text(
        jsonl(
            user(SID_BOB, "Write the tests for total()."),
            assistant(SID_BOB, "Added three tests; one fails on rounding."),
        )
    )
    store_before = snapshot(config)
    resumed = session_start(
        "bob",
        {
            "session_id": SID_BOB,
            "transcript_path": str(store / (SID_BOB + ".jsonl")),
            "cwd": str(project),
            "hook_event_name": "SessionStart",
            "source": "resume",
        },
    )
    assert (resumed.returncode, resumed.stdout, resumed.stderr) == (0, b"", b"")
    assert snapshot(config) == store_before  # the store is only read

    got = installed_command("index", "get", "bob")
    assert got.stdout.decode() == str(bob_record) + "\n"

    # 4. Before any link, the dump is empty and doctor says why.
    assert installed_command("--cwd", ".", "--self", "alice").stdout == b""
    why = installed_command("doctor", "--self", "alice")
    assert b"verdict: the dump prints nothing: no link names alice" in why.stdout

    # 5. Link them; each agent's dump now prints the other's turns.
    linked = installed_command("links", "add", "alice", "bob")
    assert linked.returncode == 0, linked.stderr
    dump = installed_command("--cwd", ".", "--self", "alice", node="alice")
    assert (dump.returncode, dump.stderr) == (0, b"")
    assert dump.stdout.decode() == (
        "# linked context from bob (bob)\n"
        "## user\nWrite the tests for total().\n"
        "## assistant\nAdded three tests; one fails on rounding.\n"
    )
    dump = installed_command("--cwd", ".", "--self", "bob", node="bob")
    assert dump.stdout.decode() == (
        "# linked context from alice (alice)\n"
        "## user\nPlan the cart refactor.\n"
        "## assistant\nStep one: move pricing into total().\n"
    )
    report = json.loads(installed_command("doctor", "--self", "alice", "--json").stdout)
    assert report["verdict"] == "the dump prints 1 peer (2 turns): bob"

    # 6. The agents are told where the command is; personal state stays out of git.
    assert (
        "`.termsprawl/bin/termsprawl-context --format markdown`" in (project / ".termsprawl" / "AGENTS.md").read_text()
    )
    assert "transcripts/" in (project / ".termsprawl" / ".gitignore").read_text().splitlines()
    assert os.listdir(str(empty_home)) == []


def test_agent_without_a_node_id_records_nothing(tmp_path, run_pyz):
    project = tmp_path / "p"
    project.mkdir()
    config = tmp_path / "c"
    record = config / "projects" / "-p" / "s.jsonl"
    record.parent.mkdir(parents=True)
    assert run_pyz(["init", "--hook", "--cwd", project]).returncode == 0
    before = snapshot(project)
    done = subprocess.run(
        [str(project / ".termsprawl" / "bin" / "termsprawl-context"), "hook"],
        input=json.dumps({"session_id": "s", "transcript_path": str(record), "source": "startup"}).encode(),
        env={"PATH": os.environ.get("PATH", ""), "CLAUDE_CONFIG_DIR": str(config), "CLAUDE_PROJECT_DIR": str(project)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=60,
    )
    assert done.returncode == 0
    assert "TERMSPRAWL_NODE_ID is not set" in json.loads(done.stdout)["systemMessage"]
    assert done.stderr.startswith(b"termsprawl-context: hook: TERMSPRAWL_NODE_ID is not set")
    assert snapshot(project) == before
