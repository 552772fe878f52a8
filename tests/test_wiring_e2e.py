"""The whole loop without the desktop app, as a new user runs it: one project set up with
`init --hook --claude-md` from the built artifact; agents in their own terminals, each a
long-lived stand-in for Claude Code that runs the registered hook command line through
`sh -c` with the terminal's environment and the payload on stdin, as Claude Code does
(one started in a subdirectory, one without TERMSPRAWL_NODE_ID, one reusing another's id);
every hook stdout parsed as Claude Code parses it and checked against the documented
SessionStart output schema; then the reading agent runs the skill's command the way its
Bash tool would, and the hand-off it reads is asserted byte for byte."""

import base64
import json
import os
import shlex
import subprocess
import sys

import pytest

from termsprawl_context.harness.claude.facts import HOOK_EVENT_SESSION_START
from termsprawl_context.harness.claude.facts import (
    HOOK_OUTPUT_COMMON_FIELDS,
    HOOK_OUTPUT_EVENT_NAME,
    HOOK_OUTPUT_SPECIFIC,
    HOOK_SOURCES,
    SESSION_START_SPECIFIC_FIELDS,
)
from termsprawl_context.harness.claude.facts import encode_project_dir

SID_ALICE = "a11ce000-0000-4000-8000-000000000001"
SID_ALICE_CLEARED = "a11ce000-0000-4000-8000-00000000000c"
SID_BOB = "b0b00000-0000-4000-8000-000000000002"
SID_NOBODY = "0000dead-0000-4000-8000-000000000003"
SID_ALICE_TWIN = "a11ce000-0000-4000-8000-0000000000aa"

# A stand-in for one Claude Code process in one terminal: it runs each hook or Bash-tool
# command line it is sent through `sh -c`, in its own environment, and answers with the
# exit code and both streams. Being a live process, it is what a second terminal is.
FAKE_CLAUDE = r"""
import base64, json, subprocess, sys
for line in sys.stdin:
    request = json.loads(line)
    done = subprocess.run(["/bin/sh", "-c", request["command"]], input=base64.b64decode(request["stdin"]),
                          cwd=request["cwd"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    sys.stdout.write(json.dumps({"rc": done.returncode, "out": base64.b64encode(done.stdout).decode(),
                                 "err": base64.b64encode(done.stderr).decode()}) + "\n")
    sys.stdout.flush()
"""


class Terminal(object):
    """One terminal running one Claude Code (stand-in), started in ``start``."""

    def __init__(self, env, start):
        self.env, self.start = env, str(start)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", FAKE_CLAUDE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=self.start
        )

    @property
    def pid(self):
        return self.proc.pid

    def run(self, command, stdin=b"", cwd=None):
        request = {"command": command, "stdin": base64.b64encode(stdin).decode(), "cwd": str(cwd or self.start)}
        self.proc.stdin.write((json.dumps(request) + "\n").encode())
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        return subprocess.CompletedProcess(
            command, answer["rc"], base64.b64decode(answer["out"]), base64.b64decode(answer["err"])
        )

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def claude_reads_hook_output(done):
    """What Claude Code takes from a command hook's run: exit 0, and stdout either empty
    or exactly one JSON object of the documented SessionStart output shape."""
    assert done.returncode == 0, done
    if not done.stdout.strip():
        return {}
    text = done.stdout.decode("utf-8")
    value = json.loads(text)  # the whole of stdout is one JSON document
    assert isinstance(value, dict) and text.count("\n") == 1 and text.endswith("}\n")
    for key, item in value.items():
        assert key in HOOK_OUTPUT_COMMON_FIELDS and isinstance(item, HOOK_OUTPUT_COMMON_FIELDS[key]), (key, value)
    specific = value.get(HOOK_OUTPUT_SPECIFIC)
    if specific is not None:
        assert specific[HOOK_OUTPUT_EVENT_NAME] == HOOK_EVENT_SESSION_START
        for key, item in specific.items():
            assert key in SESSION_START_SPECIFIC_FIELDS and isinstance(item, SESSION_START_SPECIFIC_FIELDS[key])
        assert len(specific) > 1  # an event name alone says nothing
    return value


def jsonl(*entries):
    return "".join(json.dumps(e) + "\n" for e in entries)


def turn(kind, session, text, n):
    content = text if kind == "user" else [{"type": "text", "text": text}]
    return {
        "type": kind,
        "sessionId": session,
        "uuid": "%s-%d" % (session[:8], n),
        "message": {"role": kind, "content": content},
    }


@pytest.fixture
def world(tmp_path, run_pyz, empty_home):
    project = (tmp_path / "work" / "shop").resolve()
    (project / "src" / "cart").mkdir(parents=True)
    (project / "CLAUDE.md").write_text("# Shop\n\nRun `make test` before you commit.\n")
    config = tmp_path / "claude-config"
    store = config / "projects" / encode_project_dir(str(project))
    store.mkdir(parents=True)
    terminals = []

    class World(object):
        pass

    w = World()
    w.project, w.config, w.store, w.home = project, config, store, empty_home

    def terminal(node, start, project_dir=None):
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(empty_home),
            "LANG": "C",
            "CLAUDE_CONFIG_DIR": str(config),
            "CLAUDE_PROJECT_DIR": str(project_dir or start),
        }
        if node is not None:
            env["TERMSPRAWL_NODE_ID"] = node
        t = Terminal(env, start)
        terminals.append(t)
        return t

    w.terminal = terminal
    yield w
    for t in terminals:
        if t.proc.poll() is None:
            t.close()


def payload(world, session, source, cwd):
    """A SessionStart payload with the fields Claude Code documents for it."""
    return json.dumps(
        {
            "session_id": session,
            "transcript_path": str(world.store / (session + ".jsonl")),
            "cwd": str(cwd),
            "permission_mode": "default",
            "hook_event_name": "SessionStart",
            "source": source,
        }
    ).encode()


def test_two_agents_from_start_to_hand_off(world, run_pyz):
    project = world.project
    installed = project / ".termsprawl" / "bin" / "termsprawl-context"

    # 1. Set-up, once per project: the command, markers, the rules file, hook.
    done = run_pyz(["init", "--hook", "--claude-md"], cwd=project)
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    assert (project / "CLAUDE.md").read_text() == "# Shop\n\nRun `make test` before you commit.\n"
    assert "Linked agent context" in (project / ".claude/rules/termsprawl-context.md").read_text()
    settings = json.loads((project / ".claude" / "settings.local.json").read_text())
    (entry,) = settings["hooks"]["SessionStart"]
    hook_command = entry["hooks"][0]["command"]
    skill_file = project / ".claude" / "skills" / "termsprawl-context" / "SKILL.md"
    skill = skill_file.read_text()
    skill_command, skill_dir_command = [line[4:] for line in skill.splitlines() if line.startswith("    ")]
    # Pre-approved: only the reads, in the command's two spellings (never links/index/init).
    from termsprawl_context.workspace.discovery import read_rules

    bases = [c.rsplit(" --format ", 1)[0] for c in (skill_command, skill_dir_command)]
    assert "allowed-tools: %s\n" % ", ".join(read_rules(bases[0]) + read_rules(bases[1])) in skill
    # What Claude Code makes of the second spelling when it loads the skill.
    skill_dir_command = skill_dir_command.replace("${CLAUDE_SKILL_DIR}", str(skill_file.parent))

    # The link is made from a subdirectory: it lands in the project, nothing nested.
    linked = subprocess.run(
        [str(installed), "links", "add", "alice", "bob"],
        cwd=str(project / "src"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert linked.returncode == 0, linked.stderr
    assert (project / ".termsprawl" / "links" / "alice--bob.json").is_file()
    assert sorted(os.listdir(str(project / "src"))) == ["cart"]

    # 2. Alice's terminal, at the project root.
    alice = world.terminal("alice", project)
    out = claude_reads_hook_output(alice.run(hook_command, payload(world, SID_ALICE, "startup", project)))
    command = "%s --format markdown --cwd %s --self alice" % (installed, project)
    assert out == {
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": "termsprawl: you are agent node alice; linked agents: bob. To read their recent "
            "conversation (only when it helps the task), run: " + command,
            "sessionTitle": "alice",
        }
    }
    (world.store / (SID_ALICE + ".jsonl")).write_text(
        jsonl(
            turn("user", SID_ALICE, "Plan the cart refactor.", 1),
            turn("assistant", SID_ALICE, "Step one: move pricing into total().", 2),
        )
    )

    # 3. Bob's terminal, Claude Code started in a subdirectory of the project, which it
    #    names as its project directory.
    bob = world.terminal("bob", project / "src" / "cart")
    started = bob.run(hook_command, payload(world, SID_BOB, "startup", project / "src" / "cart"))
    out = claude_reads_hook_output(started)
    bob_context = out["hookSpecificOutput"]["additionalContext"]
    assert bob_context.endswith(
        "linked agents: alice. To read their recent conversation (only when it helps the "
        "task), run: %s --format markdown --cwd %s --self bob" % (installed, project)
    )
    assert out["hookSpecificOutput"]["sessionTitle"] == "bob" and "systemMessage" not in out
    assert json.loads((project / ".termsprawl" / "transcripts" / "bob.json").read_text())["path"].endswith(
        SID_BOB + ".jsonl"
    )
    assert sorted(os.listdir(str(project / "src" / "cart"))) == []  # no nested .termsprawl/
    (world.store / (SID_BOB + ".jsonl")).write_text(
        jsonl(
            turn("user", SID_BOB, "Write the tests for total().", 1),
            turn("assistant", SID_BOB, "Added three tests; one fails on rounding.", 2),
        )
    )

    # 4. A third terminal without the variable: told, with the fix; nothing recorded.
    before = sorted(os.listdir(str(project / ".termsprawl" / "transcripts")))
    nobody = world.terminal(None, project)
    out = claude_reads_hook_output(nobody.run(hook_command, payload(world, SID_NOBODY, "startup", project)))
    assert list(out) == ["systemMessage"]
    assert out["systemMessage"].startswith("termsprawl: TERMSPRAWL_NODE_ID is not set; nothing recorded")
    assert "Fix: quit, then start Claude Code as `TERMSPRAWL_NODE_ID=<node> claude`" in out["systemMessage"]
    assert sorted(os.listdir(str(project / ".termsprawl" / "transcripts"))) == before
    # Its agent, running the skill's command, is told the variable is missing and how to set it (issue 32).
    tried = nobody.run(skill_command)
    assert (tried.returncode, tried.stdout) == (2, b"")
    assert tried.stderr.startswith(b"termsprawl-context: expected --cwd and --self: $TERMSPRAWL_NODE_ID is not set")
    assert b"TERMSPRAWL_NODE_ID=<node>" in tried.stderr and tried.stderr.count(b"\n") == 1

    # 5. A fourth terminal reusing alice's id while alice's Claude Code still runs (the
    #    hook finds its Claude Code process above the shell through /proc).
    twin = world.terminal("alice", project)
    if not os.path.isdir("/proc/self"):
        pytest.skip("no /proc: a second live session is not detected here")
    out = claude_reads_hook_output(twin.run(hook_command, payload(world, SID_ALICE_TWIN, "startup", project)))
    assert out["systemMessage"].startswith(
        "termsprawl: node alice was already held by another live Claude Code session (process %d, transcript %s)"
        % (alice.pid, world.store / (SID_ALICE + ".jsonl"))
    )
    assert "Fix: give each terminal its own TERMSPRAWL_NODE_ID" in out["systemMessage"]
    doctor = json.loads(
        subprocess.run(
            [str(installed), "doctor", "--self", "alice", "--json"], cwd=str(project), stdout=subprocess.PIPE
        ).stdout
    )
    assert any(
        note.startswith(
            "node alice is displaced: session %s (process %d) took it from session %s "
            "(process %d" % (SID_ALICE_TWIN, twin.pid, SID_ALICE, alice.pid)
        )
        for note in doctor["notes"]
    ), doctor["notes"]
    twin.close()  # the user closes the wrong terminal

    # 6. Alice's session goes on: compacted (same session), then cleared (a new one).
    out = claude_reads_hook_output(alice.run(hook_command, payload(world, SID_ALICE, "compact", project)))
    assert out == {
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": (
                "termsprawl: you are agent node alice; linked agents: bob. To read their recent conversation (only when "
                "it helps the task), run: " + command
            ),
        }
    }  # no warning: the twin has ended; no title after a compaction
    out = claude_reads_hook_output(alice.run(hook_command, payload(world, SID_ALICE_CLEARED, "clear", project)))
    assert out["hookSpecificOutput"]["sessionTitle"] == "alice" and "systemMessage" not in out
    (world.store / (SID_ALICE_CLEARED + ".jsonl")).write_text(
        jsonl(
            turn("user", SID_ALICE_CLEARED, "Now fix the rounding bug bob found; use Decimal.", 1),
            turn("assistant", SID_ALICE_CLEARED, "Switched total() to Decimal; bob's three tests pass.", 2),
        )
    )

    # 7. Bob resumes, then reads alice: through the skill's command as his Bash tool runs
    #    it (his working directory deep in the project), and through the context line's.
    out = claude_reads_hook_output(bob.run(hook_command, payload(world, SID_BOB, "resume", project / "src" / "cart")))
    assert set(out) == {"hookSpecificOutput"} and "sessionTitle" not in out["hookSpecificOutput"]
    # Every marker names the hand-off: the same answer as the explicit call.
    hand_off = subprocess.run(
        [str(installed), "--cwd", str(project), "--self", "bob", "--format", "markdown"], stdout=subprocess.PIPE
    ).stdout
    for words in (
        b"# linked context from alice (alice)\n",
        b"Now fix the rounding bug bob found; use Decimal.\n",
        b"Switched total() to Decimal; bob's three tests pass.\n",
        b"````peer",
    ):
        assert words in hand_off
    read = bob.run(skill_command)  # $CLAUDE_PROJECT_DIR is his subdirectory: not found there
    assert read.returncode == 127 and read.stdout == b""
    read = bob.run(skill_dir_command)  # so, as the skill says, from the skill's folder
    assert (read.returncode, read.stdout, read.stderr) == (0, hand_off, b"")
    from_context_line = bob.run(bob_context.rsplit("run: ", 1)[1], cwd="/")
    assert (from_context_line.returncode, from_context_line.stdout, from_context_line.stderr) == (0, hand_off, b"")
    # A Bash tool without $CLAUDE_PROJECT_DIR, at the project root: the same answer.
    bare = subprocess.run(
        ["/bin/sh", "-c", skill_command],
        cwd=str(project),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"PATH": os.environ.get("PATH", ""), "TERMSPRAWL_NODE_ID": "bob"},
    )
    assert (bare.returncode, bare.stdout, bare.stderr) == (0, hand_off, b"")
    # Alice reads bob the same way.
    read = alice.run(skill_command)
    assert read.stdout.decode().startswith("# linked context from bob (bob)\n") and (
        "Write the tests for total()." in read.stdout.decode()
    )

    # 8. Every source Claude Code sends was exercised; home was never written.
    assert set(HOOK_SOURCES) == {"startup", "resume", "clear", "compact"}
    assert os.listdir(str(world.home)) == []


def test_hook_from_a_subdirectory_without_the_project_in_the_environment(world, run_pyz):
    """Claude Code started in a subdirectory may name that subdirectory as its project:
    the installed command still records into its own project."""
    assert run_pyz(["init", "--hook"], cwd=world.project).returncode == 0
    sub = world.project / "src" / "cart"
    alice = world.terminal("alice", sub)  # CLAUDE_PROJECT_DIR is the subdirectory
    command = shlex.quote(str(world.project / ".termsprawl" / "bin" / "termsprawl-context")) + " hook"
    out = claude_reads_hook_output(alice.run(command, payload(world, SID_ALICE, "startup", sub)))
    assert out == {"hookSpecificOutput": {"hookEventName": "SessionStart", "sessionTitle": "alice"}}
    assert (world.project / ".termsprawl" / "transcripts" / "alice.json").is_file()
    assert os.listdir(str(sub)) == []


@pytest.mark.parametrize(
    "value, words",
    [
        ("", "TERMSPRAWL_NODE_ID is set but empty"),
        ("../alice", "TERMSPRAWL_NODE_ID='../alice' is not a safe node id"),
        ("alice bob", "TERMSPRAWL_NODE_ID='alice bob' is not a safe node id"),
    ],
)
def test_unusable_node_id_is_shown_to_the_user(world, run_pyz, value, words):
    assert run_pyz(["init", "--hook"], cwd=world.project).returncode == 0
    hook_command = json.loads((world.project / ".claude" / "settings.local.json").read_text())["hooks"]["SessionStart"][
        0
    ]["hooks"][0]["command"]
    agent = world.terminal(value, world.project)
    for source in HOOK_SOURCES:
        done = agent.run(hook_command, payload(world, SID_ALICE, source, world.project))
        out = claude_reads_hook_output(done)
        assert list(out) == ["systemMessage"] and words in out["systemMessage"] and "Fix: " in out["systemMessage"]
        assert done.stderr.decode().startswith("termsprawl-context: hook: ")
    assert not (world.project / ".termsprawl" / "transcripts").exists()
