"""The real Claude Code (pinned in package.json) in the loop, against a scripted model.

Each scenario runs the client in print mode, ``--permission-mode default``, no
``--allowedTools``: only the rules ``init --hook`` wrote decide what runs. It asserts on
what the client itself answered (``permission_denials``), wrote (its transcripts under the
scratch HOME, the project's .termsprawl state) and sent to the model (the requests the
scripted server recorded). Without the client the module skips with one line (a failure
with $TERMSPRAWL_REQUIRE_CLIENTS=1, as .ci/run sets it).
"""

import json
import os
import shlex
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import REPO, snapshot

from .anthropic_server import ScriptedServer, Text, ToolUse, bash, result_text, texts_of, tool_results
from .claude_run import records, run_claude, session_record, transcripts
from .clients import client_bin

COMMAND = ".termsprawl/bin/termsprawl-context"
RULES = ".claude/rules/termsprawl-context.md"
BLOCK_MARK = "Linked agent context: run"
ALICE_PROMPT = "Find out why the parser drops tabs."
ALICE_ANSWER = "The tokenizer splits on spaces only; tabs fall through. Fix: split on any whitespace."
CONTEXT_PREFIX = "SessionStart hook additional context: "
# Texts the harness writes as `type: "user"` that are not the person's words (2.1.328).
HARNESS_MARKS = (
    "<task-notification>",
    "<command-message>",
    "<command-name>",
    "<local-command",
    "<system-reminder>",
    "This session is being continued from a previous conversation",
    "[Request interrupted",
    "Caveat: The messages below",
)


@pytest.fixture(scope="module", autouse=True)
def claude():
    return client_bin("claude")


def readme_walkthrough():
    """The commands of the README's Claude Code quick start, verbatim."""
    text = (REPO / "README.md").read_text()
    section = text.split("### Claude Code\n", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip() and not line.startswith("#")]


class Project:
    """A project set up by the README's walk-through, and one scratch HOME per terminal."""

    def __init__(self, root: Path, pyz: Path, git: bool = False) -> None:
        self.root = root
        self.path = root / "project"
        self.path.mkdir(parents=True)
        (self.path / "parser.py").write_text("def tokenize(s):\n    return s.split(' ')\n")
        if git:
            subprocess.run(["git", "init", "-q", str(self.path)], check=True)
        self.aliases = {}
        cwd = None
        for line in readme_walkthrough():
            if line.startswith("alias "):
                name, value = line[len("alias ") :].split("=", 1)
                words = shlex.split(shlex.split(value)[0])
                assert words[-1] == "claude" and words[0].startswith("TERMSPRAWL_NODE_ID="), line
                self.aliases[name] = words[0].split("=", 1)[1]
                continue
            if line.startswith("cd /path/to/project && claude-"):
                continue  # the two terminals: run below, one client per node
            line = line.replace("/path/to/project", str(self.path))
            if line.startswith("cd "):
                cwd = line[3:].strip()
                continue
            line = line.replace("python3 dist/termsprawl-context.pyz", "%s %s" % (sys.executable, pyz))
            done = subprocess.run(
                line,
                shell=True,
                cwd=cwd,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={"PATH": os.environ.get("PATH", ""), "HOME": str(root)},
            )
            assert done.returncode == 0, (line, done.stderr)
        assert self.aliases == {"claude-alice": "alice", "claude-bob": "bob"}

    def home(self, name: str) -> Path:
        path = self.root / ("home-" + name)
        path.mkdir(exist_ok=True)
        return path

    def state(self):
        return snapshot(self.path / ".termsprawl" / "links", self.path / ".termsprawl" / "transcripts")

    def hand_off(self, node: str, *extra: str) -> dict:
        done = subprocess.run(
            [str(self.path / COMMAND), "--format", "json", "--self", node] + list(extra),
            cwd=str(self.path),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout or b'{"peers": []}')


def main_texts(server, index=0):
    return texts_of(server.main[index])


def context_line(server):
    (line,) = [t for t in main_texts(server) if t.startswith(CONTEXT_PREFIX)]
    return line[len(CONTEXT_PREFIX) :].split("\n", 1)[0]


def results(server):
    return [result_text(block) for request in server.main[1:] for block in tool_results(request)]


def skill_command(body):
    """The command the skill names, as the model read it after the Skill tool loaded it
    (${CLAUDE_SKILL_DIR} already replaced by the client): the first indented line."""
    for text in texts_of(body):
        if text.startswith("Base directory for this skill:"):
            return [line[4:] for line in text.splitlines() if line.startswith("    ")]
    raise AssertionError("the skill's text never reached the model")


def assert_no_harness_text_as_user(hand_off):
    for peer in hand_off["peers"]:
        for turn in peer["turns"]:
            if turn["role"] == "user":
                assert not any(mark in turn["text"] for mark in HARNESS_MARKS), turn


@pytest.fixture
def project(tmp_path, pyz):
    return Project(tmp_path, pyz)


def alice_speaks(project, prompt=ALICE_PROMPT, answer=ALICE_ANSWER, extra=None):
    with ScriptedServer([Text(answer)]) as server:
        run = run_claude(prompt, project.path, project.home("alice"), server.url, node_id="alice", extra_args=extra)
    assert run.returncode == 0 and run.denials == [], run.stdout + run.stderr
    return run, server


# --- the README's walk-through ----------------------------------------------------------------


def test_readme_walkthrough_bob_reads_alice_with_no_prompt(project):
    alice, alice_server = alice_speaks(project)
    # What reached alice's model: the hook's line, the rules file's block, the skill listing.
    texts = "\n".join(main_texts(alice_server))
    assert CONTEXT_PREFIX + "termsprawl: you are agent node alice; linked agents: bob." in texts
    assert "Contents of %s/%s" % (project.path, RULES) in texts
    assert "`%s --format markdown`" % COMMAND in texts
    assert "termsprawl-context: Read the recent conversation of the other agents linked to this one" in texts
    recorded = json.loads((project.path / ".termsprawl/transcripts/alice.json").read_text())["path"]
    assert recorded == str(session_record(project.home("alice"), alice.session_id))

    replies = [
        ToolUse("Skill", {"skill": "termsprawl-context"}),
        lambda body: bash(skill_command(body)[0]),
        lambda body: bash(context_line_of(body)),
        Text("Alice found it: the tokenizer."),
    ]
    with ScriptedServer(replies) as server:
        bob = run_claude("What did alice find?", project.path, project.home("bob"), server.url, node_id="bob")
    assert bob.returncode == 0, bob.stderr
    assert bob.denials == []  # the Skill tool and both commands ran with no prompt
    line = context_line(server)
    assert line.endswith("run: %s/%s --format markdown --cwd %s --self bob" % (project.path, COMMAND, project.path))
    skill_result, from_skill, from_context = results(server)
    assert skill_result == "Launching skill: termsprawl-context"
    for out in (from_skill, from_context):
        assert "# linked context from alice (alice)" in out
        assert ALICE_PROMPT in out and ALICE_ANSWER in out
    assert from_skill == from_context
    assert_no_harness_text_as_user(project.hand_off("bob"))


def context_line_of(body):
    (line,) = [t for t in texts_of(body) if t.startswith(CONTEXT_PREFIX)]
    return line.split("\n", 1)[0].rsplit("run: ", 1)[1]


def test_writes_through_the_same_prefix_are_denied_and_nothing_is_written(project):
    alice_speaks(project)
    absolute = project.path / COMMAND
    writes = [
        "%s links add bob eve" % COMMAND,
        "%s index set eve /tmp/eve.jsonl" % absolute,
        "%s init --hook" % COMMAND,
        "%s --format json links add bob eve" % COMMAND,
    ]
    with ScriptedServer([bash(w) for w in writes] + [Text("ok")]) as server:
        # bob's own start records bob (the hook) before the model runs anything: snapshot after it
        box = {}

        def at_first_request(body):
            box["state"] = project.state()
            return bash(writes[0])

        server.replies[0] = at_first_request
        bob = run_claude("Link eve.", project.path, project.home("bob"), server.url, node_id="bob")
    denied = [d["tool_input"]["command"] for d in bob.denials]
    assert denied == writes[:3]
    # The fourth matches a read rule; the dump's own parsing refuses it.
    assert results(server)[3] == "Exit code 2\ntermsprawl-context: unexpected argument: links"
    assert project.state() == box["state"]
    assert sorted(os.listdir(str(project.path / ".termsprawl/links"))) == ["alice--bob.json"]


def test_start_from_a_subdirectory(tmp_path, pyz):
    project = Project(tmp_path, pyz, git=True)  # 2.1.328 reads the root's settings from a subdirectory of a git repo
    alice_speaks(project)
    sub = project.path / "src"
    sub.mkdir()
    replies = [ToolUse("Skill", {"skill": "termsprawl-context"}), lambda body: bash(skill_command(body)[1]), Text("ok")]
    with ScriptedServer(replies) as server:
        bob = run_claude("What did alice find?", sub, project.home("bob"), server.url, node_id="bob")
    assert bob.denials == [] and bob.returncode == 0
    command = skill_command(server.main[1])[1]
    assert command == "%s/.claude/skills/termsprawl-context/../../../%s --format markdown" % (project.path, COMMAND)
    assert ALICE_ANSWER in results(server)[1]
    assert context_line(server).endswith("--cwd %s --self bob" % project.path)
    assert os.listdir(str(sub)) == []  # nothing nested


def test_the_instruction_block_reaches_a_subdirectory_with_no_import_to_approve(tmp_path, pyz):
    """Issue 32 item 5. 2.1.328 started below the root asks "Allow external CLAUDE.md file
    imports?" for CLAUDE.md's `@.termsprawl/AGENTS.md` (and print mode leaves the import
    out); the rules file init writes is loaded from there with no question, in print mode
    and in the TUI, git repository or not."""
    project = Project(tmp_path, pyz)
    sub = project.path / "src"
    sub.mkdir()
    with ScriptedServer([Text("ok")]) as server:
        run = run_claude("hello", sub, project.home("bob"), server.url, node_id="bob")
    assert run.returncode == 0, run.stderr
    texts = "\n".join(main_texts(server))
    assert "Contents of %s/%s" % (project.path, RULES) in texts and BLOCK_MARK in texts
    (project.path / "CLAUDE.md").write_text("@.termsprawl/AGENTS.md\n")  # the import init wrote before
    (project.path / RULES).unlink()
    with ScriptedServer([Text("ok")]) as server:
        run = run_claude("hello", sub, project.home("carol"), server.url, node_id="carol")
    assert run.returncode == 0 and BLOCK_MARK not in "\n".join(main_texts(server))
    assert tui_asks_for_external_imports(project, sub, "dave")
    assert run_pyz_init(project, pyz).returncode == 0
    (project.path / "CLAUDE.md").unlink()
    assert not tui_asks_for_external_imports(project, sub, "erin")


def run_pyz_init(project, pyz):
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(project.root)}
    argv = [sys.executable, str(pyz), "init", "--cwd", str(project.path), "--hook", "--claude-md"]
    return subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def tui_asks_for_external_imports(project, start, node):
    """Start the TUI in ``start`` (folder and API key already trusted) until it shows the
    import question or its prompt box; True when it asked."""
    from .claude_run import client_env
    from .gemini_pty import Tui

    home = project.home(node)
    trusted = {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}
    config = {
        "hasCompletedOnboarding": True,
        "theme": "dark",
        "customApiKeyResponses": {"approved": ["x"], "rejected": []},
        "projects": {str(start): dict(trusted), str(project.path): dict(trusted)},
    }
    (home / ".claude.json").write_text(json.dumps(config))
    with ScriptedServer([Text("ok")]) as server:
        env = dict(client_env(home, server.url, node), TERM="xterm-256color")
        tui = Tui([client_bin("claude")], str(start), env)
        try:
            # The TUI draws words apart by cursor moves: compare its text without spaces.
            def drawn():
                return tui.text().replace(" ", "")

            tui.pump(60, until=lambda: "AllowexternalCLAUDE.md" in drawn() or "\u276f\u2500" in drawn()[-4000:])
        finally:
            tui.close()
    flat = drawn()
    assert "AllowexternalCLAUDE.md" in flat or "\u276f" in flat, flat[-2000:]
    return "AllowexternalCLAUDE.mdfileimports?" in flat


def system_message(home):
    """The hook's systemMessage as the client logged it (what the person is shown): from
    the hook's output the client keeps in its transcript."""
    found = []

    def walk(value):
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str) and '"systemMessage"' in value:
            try:
                parsed = json.loads(value)
            except ValueError:
                return
            if isinstance(parsed, dict) and isinstance(parsed.get("systemMessage"), str):
                found.append(parsed["systemMessage"])

    for path in transcripts(home):
        for record in records(path):
            walk(record)
    return list(dict.fromkeys(found))


@pytest.mark.parametrize(
    "node, words",
    [
        (None, "termsprawl: TERMSPRAWL_NODE_ID is not set; nothing recorded"),
        ("../etc", "termsprawl: TERMSPRAWL_NODE_ID='../etc' is not a safe node id"),
    ],
)
def test_unset_or_unsafe_node_id_is_told_and_records_nothing(project, node, words):
    before = project.state()
    with ScriptedServer([Text("hi")]) as server:
        run = run_claude("hello", project.path, project.home("x"), server.url, node_id=node)
    assert run.returncode == 0
    messages = system_message(project.home("x"))
    assert messages and messages[0].startswith(words), messages
    assert project.state() == before
    assert not [t for t in main_texts(server) if t.startswith(CONTEXT_PREFIX)]


def test_duplicated_node_id_is_told(project):
    gate = threading.Event()
    first = {}

    def hold(body):
        gate.wait(60)  # alice's first session stays alive until the twin has started
        return Text("first")

    with ScriptedServer([hold]) as server_a:
        thread = threading.Thread(
            target=lambda: first.update(
                run=run_claude("one", project.path, project.home("alice"), server_a.url, node_id="alice")
            )
        )
        thread.start()
        try:
            for _ in range(600):
                if server_a.main:
                    break
                threading.Event().wait(0.1)
            with ScriptedServer([Text("second")]) as server_b:
                twin = run_claude("two", project.path, project.home("twin"), server_b.url, node_id="alice")
        finally:
            gate.set()
            thread.join(90)
    assert twin.returncode == 0
    messages = system_message(project.home("twin"))
    assert messages and messages[0].startswith(
        "termsprawl: node alice was already held by another live Claude " "Code session"
    ), messages
    holder = json.loads((project.path / ".termsprawl/transcripts/alice.holder.json").read_text())
    assert holder["session_id"] == twin.session_id and holder["displaced"]["session_id"] == first["run"].session_id


# --- resume, continue, fork, compact -----------------------------------------------------------


def index_of(project, node):
    return json.loads((project.path / (".termsprawl/transcripts/%s.json" % node)).read_text())["path"]


def test_resume_continue_fork_and_compact(project):
    first, _ = alice_speaks(project)
    record = str(session_record(project.home("alice"), first.session_id))
    resumed, _ = alice_speaks(project, "Also check CRLF.", "CRLF is fine.", ["--resume", first.session_id])
    assert resumed.session_id == first.session_id and index_of(project, "alice") == record
    continued, _ = alice_speaks(project, "And tabs in strings?", "Strings keep their tabs.", ["--continue"])
    assert continued.session_id == first.session_id and index_of(project, "alice") == record
    turns = [t["text"] for t in project.hand_off("bob")["peers"][0]["turns"]]
    assert turns == [
        ALICE_PROMPT,
        ALICE_ANSWER,
        "Also check CRLF.",
        "CRLF is fine.",
        "And tabs in strings?",
        "Strings keep their tabs.",
    ]
    forked, _ = alice_speaks(
        project, "Try another fix.", "Forked: use re.split.", ["--resume", first.session_id, "--fork-session"]
    )
    assert forked.session_id != first.session_id
    fork_record = str(session_record(project.home("alice"), forked.session_id))
    assert index_of(project, "alice") == fork_record
    turns = [t["text"] for t in project.hand_off("bob")["peers"][0]["turns"]]
    assert turns[-2:] == ["Try another fix.", "Forked: use re.split."] and turns[0] == ALICE_PROMPT

    with ScriptedServer([]) as server:
        compacted = run_claude(
            "/compact",
            project.path,
            project.home("alice"),
            server.url,
            node_id="alice",
            extra_args=["--resume", forked.session_id],
        )
    assert compacted.returncode == 0, compacted.stdout + compacted.stderr
    kinds = [(r.get("type"), r.get("subtype")) for r in records(Path(fork_record))]
    assert ("system", "compact_boundary") in kinds
    assert index_of(project, "alice") == fork_record
    hand_off = project.hand_off("bob")
    assert_no_harness_text_as_user(hand_off)
    assert "Forked: use re.split." in [t["text"] for t in hand_off["peers"][0]["turns"]]


# --- sub-agents and slash commands -------------------------------------------------------------

SUBTASK = "SUBTASK: list the parser's callers."


def test_async_sub_agent(project):
    step = {"main": 0}

    def reply(body):
        first = json.dumps(body.get("messages", [])[:1])
        if SUBTASK in first:
            return Text("Sub-agent report: two callers.")
        step["main"] += 1
        if step["main"] == 1:
            return ToolUse(
                "Agent", {"description": "find callers", "prompt": SUBTASK, "subagent_type": "general-purpose"}
            )
        return Text("Main: the sub-agent is on it." if step["main"] == 2 else "Main: two callers, noted.")

    with ScriptedServer([reply] * 8) as server:
        run = run_claude("Who calls the parser?", project.path, project.home("alice"), server.url, node_id="alice")
    assert run.returncode == 0 and run.denials == [], run.stdout
    home = project.home("alice")
    metas = list((home / ".claude" / "projects").rglob("agent-*.meta.json"))
    assert len(metas) == 1
    meta = json.loads(metas[0].read_text())
    assert meta.get("agentType") == "general-purpose"
    sub = [p for p in transcripts(home) if p.name.startswith("agent-")]
    assert len(sub) == 1 and "Sub-agent report: two callers." in sub[0].read_text()
    # The index names the main session, never the sub-agent's file.
    assert index_of(project, "alice") == str(session_record(home, run.session_id))
    hand_off = project.hand_off("bob")
    assert_no_harness_text_as_user(hand_off)
    texts = [t["text"] for t in hand_off["peers"][0]["turns"]]
    assert "Who calls the parser?" in texts and SUBTASK not in texts


def test_custom_slash_command(project):
    commands = project.path / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("Review the file $ARGUMENTS for bugs and say what you find.\n")
    with ScriptedServer([Text("Reviewed: split(' ') drops tabs.")]) as server:
        run = run_claude("/review parser.py", project.path, project.home("alice"), server.url, node_id="alice")
    assert run.returncode == 0 and run.denials == [], run.stdout
    sent = "\n".join(main_texts(server))
    assert "Review the file parser.py for bugs" in sent
    body = session_record(project.home("alice"), run.session_id).read_text()
    assert "<command-message>review</command-message>" in body
    hand_off = project.hand_off("bob")
    assert_no_harness_text_as_user(hand_off)
    texts = [t["text"] for t in hand_off["peers"][0]["turns"]]
    assert "Reviewed: split(' ') drops tabs." in texts
    assert not [t for t in texts if "Review the file parser.py" in t]  # the expansion is the harness's
