"""The real Codex CLI (pinned in package.json) in the loop, against a scripted Responses API.

Each scenario runs ``codex exec --json`` in a scratch HOME whose ``CODEX_HOME`` points the
client at ``responses_server`` (``[features] hooks = true``), in a project set up with
``init --codex-hook``; it asserts on what the client wrote (its rollouts), what our hook
recorded (the project's index) and what reached the model (the requests the server kept).
The Claude Code side is our artifact run directly against the index (no Claude Code
needed). Without the client the module skips with one line (a failure with
$TERMSPRAWL_REQUIRE_CLIENTS=1).
"""

import json
import re
import shutil
import subprocess
import sys

import pytest

from .clients import client_bin
from .codex_run import CodexSandbox
from .responses_server import ResponsesServer, function_call, input_items, input_texts, message, shell_call

COMMAND = ".termsprawl/bin/termsprawl-context"
CLAUDE_QUESTION = "Why does the parser drop tabs?"
CLAUDE_ANSWER = "The tokenizer splits on spaces only; tabs fall through."
HARNESS_MARKS = (
    "<environment_context>",
    "<skills_instructions>",
    "<permissions instructions>",
    "<subagent_notification>",
    "Another language model started",
    "termsprawl: you are agent node",
)
CONTEXT_LINE = re.compile(r"termsprawl: you are agent node (\S+);.*? run: (.+)$", re.M)


@pytest.fixture(scope="module", autouse=True)
def codex():
    return client_bin("codex")


def last_user_text(body):
    for item in reversed(input_items(body)):
        if isinstance(item, dict) and item.get("type") == "message" and item.get("role") == "user":
            return " ".join(b.get("text", "") for b in item.get("content") or [] if isinstance(b, dict))
    return ""


def developer_texts(body):
    return [
        b.get("text", "")
        for item in input_items(body)
        if isinstance(item, dict) and item.get("role") == "developer"
        for b in item.get("content") or []
        if isinstance(b, dict)
    ]


class Scenario(object):
    """The scripted model: reads the peers when the hook told it how, spawns a sub-agent
    when asked, answers a compaction with a summary, else answers the prompt."""

    def __init__(self):
        self.read_outputs = []

    def __call__(self, body, n):
        items = input_items(body)
        last = items[-1] if items else {}
        texts = input_texts(body)
        if any("CONTEXT CHECKPOINT COMPACTION" in t for t in texts[-2:]):
            return [message("SUMMARY-OF-WORK: the person asked about tabs")]
        if isinstance(last, dict) and last.get("type") == "function_call_output":
            output = last.get("output") or ""
            if last.get("call_id") == "call_read":
                self.read_outputs.append(output)
                return [message("I read my peer.")]
            if '"agent_id"' in output:
                child = json.loads(output)["agent_id"]
                return [
                    function_call(
                        "call_wait", "wait_agent", {"targets": [child], "timeout_ms": 30000}, "multi_agent_v1"
                    )
                ]
            return [message("The sub-agent is done.")]
        prompt = last_user_text(body)
        if prompt.startswith("child task"):
            return [message("child result words")]
        if prompt.startswith("spawn please"):
            return [function_call("call_spawn", "spawn_agent", {"message": "child task"}, "multi_agent_v1")]
        if prompt.startswith("<subagent_notification>"):
            return [message("Noted.")]
        if prompt.startswith("read your peer"):
            found = [m for t in developer_texts(body) for m in CONTEXT_LINE.finditer(t)]
            if found:
                return [shell_call("call_read", found[-1].group(2))]
            return [message("no context line reached me")]
        if prompt.startswith("big"):
            return {"items": [message("answer to " + prompt)], "total_tokens": 300000}
        return [message("answer to " + prompt)]


def run_pyz(pyz, args, cwd, env=None, stdin=None):
    return subprocess.run(
        [sys.executable, str(pyz)] + [str(a) for a in args],
        cwd=str(cwd),
        env=env,
        input=stdin,
        capture_output=True,
        timeout=60,
    )


def claude_record(path):
    lines = [
        {
            "type": "user",
            "uuid": "u1",
            "sessionId": "s1",
            "timestamp": "2026-12-01T00:00:00Z",
            "message": {"role": "user", "content": CLAUDE_QUESTION},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "sessionId": "s1",
            "timestamp": "2026-12-01T00:00:01Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": CLAUDE_ANSWER}]},
        },
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


@pytest.fixture
def sandbox(tmp_path, pyz):
    scenario = Scenario()
    with ResponsesServer(scenario) as server:
        box = CodexSandbox(tmp_path, server, extra_config="model_auto_compact_token_limit = 100000\n")
        box.scenario = scenario
        done = run_pyz(pyz, ["init", "--cwd", box.project, "--codex-hook"], box.project)
        assert done.returncode == 0, done.stderr
        record = claude_record(tmp_path / "claude-peer.jsonl")
        for args in (["index", "set", "cc", record], ["links", "add", "cx", "cc"]):
            done = run_pyz(pyz, args + ["--cwd", box.project], box.project)
            assert done.returncode == 0, done.stderr
        yield box


def test_the_hook_runs_without_a_features_entry(tmp_path, pyz):
    """Codex 0.169.0 runs a trusted project's hook with no `[features] hooks = true` in its
    config: the README's Codex quick start asks for none."""
    with ResponsesServer(lambda body, n: [message("hi")]) as server:
        box = CodexSandbox(tmp_path, server, features=False)
        assert "[features]" not in (box.codex_home / "config.toml").read_text()
        done = run_pyz(pyz, ["init", "--cwd", box.project, "--codex-hook"], box.project)
        assert done.returncode == 0, done.stderr
        thread, _, _ = box.exec("hello", node="cx")
        assert index_entry(box, "cx") == {"version": 1, "path": str(box.rollout(thread)), "harness": "codex-cli"}


def test_the_unset_id_message_reaches_the_person(tmp_path, pyz):
    """Issue 32: where the hook's message for the person shows. Codex 0.169.0's TUI draws a
    SessionStart hook's systemMessage under the first prompt (`↳ Hook · ...`: the session,
    and its hook, start with the first turn); `codex exec --json` carries it in no event and
    not on stderr, so the same words also reach the model, asked to pass them on."""
    import fcntl
    import struct
    import termios

    from .gemini_pty import Tui

    with ResponsesServer(lambda body, n: [message("hi there")]) as server:
        box = CodexSandbox(tmp_path, server)
        done = run_pyz(pyz, ["init", "--cwd", box.project, "--codex-hook"], box.project)
        assert done.returncode == 0, done.stderr
        thread, events, run = box.exec("hello")  # no TERMSPRAWL_NODE_ID
        words = "termsprawl: TERMSPRAWL_NODE_ID is not set; nothing recorded"
        assert words not in json.dumps(events) and words not in run.stderr
        assert any(words in text for body in server.responses() for text in input_texts(body))
        tui = Tui([box.bin, "--dangerously-bypass-hook-trust"], str(box.project), box.env(TERM="xterm-256color"))
        fcntl.ioctl(tui.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))  # a 0x0 terminal quits
        try:
            tui.pump(20)
            tui.type("say hi")
            # The TUI draws words apart by cursor moves: compare its text without spaces.
            drawn = tui.pump(40, until=lambda: "hithere" in tui.text().replace(" ", ""))
            flat = tui.text().replace(" ", "")
        finally:
            tui.close()
    assert drawn, flat[-2000:]
    assert ("Hook\u00b7" + words.replace(" ", "")) in flat, flat[-2000:]


def index_entry(box, node):
    return json.loads((box.project / ".termsprawl" / "transcripts" / (node + ".json")).read_text())


def conversation_of(text):
    """The markdown hand-off's turn texts."""
    return re.findall(r"```text\n(.*?)\n```", text, re.S)


def test_codex_node_is_recorded_and_reads_its_claude_peer_and_is_read(sandbox, pyz):
    thread, events, done = sandbox.exec("read your peer please", node="cx")
    rollout = sandbox.rollout(thread)
    # The hook recorded the node from Codex's own SessionStart payload.
    assert index_entry(sandbox, "cx") == {"version": 1, "path": str(rollout), "harness": "codex-cli"}
    # Its answer reached the model as a developer message, and the model ran the command it named.
    first = sandbox.server.responses()[0]
    assert any("linked agents: cc" in t for t in developer_texts(first))
    (output,) = sandbox.scenario.read_outputs
    assert "Process exited with code 0" in output
    assert CLAUDE_QUESTION in output and CLAUDE_ANSWER in output
    # The Claude Code node reads the Codex node: the person's prompt and the answers, no harness text.
    dump = run_pyz(pyz, ["--cwd", sandbox.project, "--self", "cc"], sandbox.project)
    assert dump.returncode == 0, dump.stderr
    assert dump.stdout.decode() == (
        "# linked context from cx (cx)\n## user\nread your peer please\n" "## assistant\nI read my peer.\n"
    )
    handoff = run_pyz(pyz, ["--cwd", sandbox.project, "--self", "cc", "--format", "markdown"], sandbox.project)
    assert conversation_of(handoff.stdout.decode()) == ["read your peer please", "I read my peer."]
    shown = run_pyz(pyz, ["show", rollout, "--all"], sandbox.project, env=sandbox.env())
    text = shown.stdout.decode()
    assert "exec_command" in text and not any(mark in text for mark in HARNESS_MARKS)
    # The result is summarised by the command's own first line, not Codex's `Chunk ID: ...` header.
    assert "Chunk ID" not in text and "```text\n# linked context from cc (cc) (" in text


def test_resume_fork_subagent_and_compaction(sandbox, pyz):
    thread, _, _ = sandbox.exec("first prompt", node="cx")
    rollout = sandbox.rollout(thread)
    sandbox.exec("resume", thread, "second prompt", node="cx")
    assert sandbox.rollouts() == [rollout]  # a resume appends to the same rollout
    assert index_entry(sandbox, "cx")["path"] == str(rollout)
    # Sub-agent: its own rollout, linked by parent_thread_id; its hook leaves the node alone.
    sandbox.exec("resume", thread, "spawn please", node="cx")
    (child,) = [p for p in sandbox.rollouts() if p != rollout]
    assert index_entry(sandbox, "cx")["path"] == str(rollout)
    subagents = run_pyz(pyz, ["subagents", rollout], sandbox.project, env=sandbox.env())
    assert subagents.stdout.decode() == "%s\n" % child
    # Compaction: the summary and the bridge are the harness's, never the peer's words.
    sandbox.exec("resume", thread, "big prompt", node="cx")
    sandbox.exec("resume", thread, "after compaction", node="cx")
    raw = rollout.read_text()
    assert '"type":"compacted"' in raw and "SUMMARY-OF-WORK" in raw
    handoff = run_pyz(pyz, ["--cwd", sandbox.project, "--self", "cc", "--format", "markdown"], sandbox.project)
    turns = conversation_of(handoff.stdout.decode())
    # (Whether the model answered the wait_agent result, the sub-agent's notification or both is the
    # client's timing; the person's prompts and every other answer are fixed.)
    assert [t for t in turns if t not in ("Noted.", "The sub-agent is done.")] == [
        "first prompt",
        "answer to first prompt",
        "second prompt",
        "answer to second prompt",
        "spawn please",
        "big prompt",
        "answer to big prompt",
        "after compaction",
        "answer to after compaction",
    ]
    assert "Noted." in turns or "The sub-agent is done." in turns
    # Fork: a new rollout holding only its own turn; read with its parent's history first.
    fork_thread, _, _ = sandbox.exec("fork", thread, "fork prompt", node="fx")
    fork = sandbox.rollout(fork_thread)
    assert "first prompt" not in fork.read_text()
    # The fork's SessionStart (source "fork") recorded its node.
    assert index_entry(sandbox, "fx") == {"version": 1, "path": str(fork), "harness": "codex-cli"}
    run_pyz(pyz, ["links", "add", "fx", "cc", "--cwd", sandbox.project], sandbox.project)
    dump = run_pyz(pyz, ["--cwd", sandbox.project, "--self", "cc"], sandbox.project).stdout.decode()
    fork_block = dump.split("# linked context from fx (fx)\n", 1)[1]
    assert fork_block.startswith("## user\nfirst prompt\n") and fork_block.endswith(
        "## user\nfork prompt\n" "## assistant\nanswer to fork prompt\n"
    )
    assert not any(mark in dump for mark in HARNESS_MARKS) and "SUMMARY-OF-WORK" not in dump


def test_readers_hold_on_truncated_and_torn_copies(sandbox, pyz, tmp_path):
    thread, _, _ = sandbox.exec("first prompt", node="cx")
    sandbox.exec("resume", thread, "second prompt", node="cx")
    rollout = sandbox.rollout(thread)
    whole = run_pyz(pyz, ["--cwd", sandbox.project, "--self", "cc"], sandbox.project).stdout.decode()
    data = rollout.read_bytes()
    copy = sandbox.codex_home / "sessions" / "copy" / "x" / "y" / rollout.name.replace("rollout-", "rollout-copy-")
    copy.parent.mkdir(parents=True)
    run_pyz(pyz, ["index", "set", "cx", copy, "--cwd", sandbox.project], sandbox.project)
    cuts = sorted(set([len(data) * k // 8 for k in range(8)] + [len(data) - 1, len(data) - 2]))
    for cut in cuts:
        copy.write_bytes(
            data[:cut] + (b'{"timestamp":"2026-12-01T00:00:00Z","type":"response_item","pay' if cut % 2 else b"")
        )
        for args in (
            ["--cwd", sandbox.project, "--self", "cc"],
            ["--cwd", sandbox.project, "--self", "cc", "--format", "json"],
            ["show", copy, "--format", "json"],
            ["entries", copy],
        ):
            done = run_pyz(pyz, args, sandbox.project, env=sandbox.env())
            assert done.returncode == 0 and b"Traceback" not in done.stderr, (cut, args, done.stderr)
        dump = run_pyz(pyz, ["--cwd", sandbox.project, "--self", "cc"], sandbox.project).stdout.decode()
        part = dump_turns(dump)
        assert part == dump_turns(whole)[: len(part)], cut
    assert dump_turns(whole) == [
        ("user", "first prompt"),
        ("assistant", "answer to first prompt"),
        ("user", "second prompt"),
        ("assistant", "answer to second prompt"),
    ]
    shutil.rmtree(str(copy.parent.parent.parent))


def dump_turns(text):
    """The dump's (role, text) turns."""
    parts = re.split(r"^## (user|assistant)\n", text, flags=re.M)[1:]
    return [(parts[i], parts[i + 1].rstrip("\n")) for i in range(0, len(parts), 2)]
