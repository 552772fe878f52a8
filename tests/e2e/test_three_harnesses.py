"""One project, three real clients, one lead: the bar of issues 21 and 22 end to end.

The project is set up with the built artifact's ``init --hook --codex-hook --gemini-hook
--claude-md --gemini-md``; one scratch HOME holds the three stores. Each node is driven for a
few turns with the harness text its client writes on its own:

- ``cc``, Claude Code 2.1.328 against make_cc_fixtures' scripted server: a custom slash command
  (``/review parser.py``), ``/context`` (a local command), an async sub-agent that ends in a task
  notification, ``/compact`` (a compaction summary), then a typed prompt on ``--continue``.
- ``cx``, Codex CLI 0.169 against responses_server: the project's ``AGENTS.md`` (the client's
  ``# AGENTS.md instructions`` message), its ``<environment_context>``, our hook's developer
  message, an interrupted turn (``<turn_aborted>``), a sub-agent (``<subagent_notification>``)
  and an automatic compaction.
- ``gm``, Gemini CLI 0.61 against gemini_server: its ``<session_context>``, our hook's
  ``<hook_context>`` on the first prompt, an ``@parser.py`` reference (the client expands the
  file's text into the message), and a resume (``-r latest``).

Each client's own SessionStart payload records its node (the hook). The lead is linked to all
three; its hand-off (markdown and JSON) and ``show`` of each peer hold every typed prompt once,
under a user heading, each answer, and no harness text; the bare dump prints, fail-open.
"""

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from .clients import client_bin
from .codex_run import EXEC_FLAGS, CodexSandbox
from .gemini_server import GeminiServer, Say
from .anthropic_server import ScriptedServer as ClaudeServer
from .make_cc_fixtures import TITLE, decide
from .responses_server import ResponsesServer, message
from .test_codex_cli import Scenario, last_user_text

# What each harness writes that is not the person's words (markers seen in the real clients).
HARNESS_MARKERS = (
    "<command-",
    "<local-command",
    "<task-notification",
    "<system-reminder>",
    "This session is being continued",
    "# AGENTS.md instructions",
    "<environment_context>",
    "<subagent_notification>",
    "<session_context>",
    "<hook_context>",
    "Another language model started",
    "[Request interrupted",
    "Caveat:",
    "termsprawl: you are agent node",
    "<turn_aborted>",
    "--- Content from referenced files ---",
    "FILE-BODY-77",
)
CLAUDE_TYPED = ["/review parser.py", "please delegate the marker search", "cc-typed: after the compaction"]
STALL = "please stall now"  # the Codex turn the person interrupts
CODEX_TYPED = ["cx-typed: what does the parser do", STALL, "spawn please", "big prompt", "after compaction"]
GEMINI_TYPED = ["gm-typed: explain @parser.py please", "gm-typed: second question"]
GEMINI_ANSWERS = ["gm-answer: first", "gm-answer: second"]
AGENTS_MD = "Project rule from AGENTS.md: keep answers short.\n"
TIMEOUT = 240


def claude(world, server, *args):
    env = {
        "HOME": str(world.home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "ANTHROPIC_BASE_URL": server.url,
        "ANTHROPIC_API_KEY": "x",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "TERM": "dumb",
        "IS_SANDBOX": "1",
        "TERMSPRAWL_NODE_ID": "cc",
    }
    argv = [client_bin("claude")] + list(args) + ["--output-format", "json", "--permission-mode", "bypassPermissions"]
    done = subprocess.run(
        argv, cwd=str(world.project), env=env, capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 0, (args, done.stdout[-1500:], done.stderr[-1500:])
    return json.loads(done.stdout.strip().splitlines()[-1])["session_id"]


def gemini(world, server, *args):
    env = world.codex.env(
        GEMINI_API_KEY="x",
        GOOGLE_GEMINI_BASE_URL=server.url,
        GEMINI_CLI_TRUST_WORKSPACE="true",
        TERMSPRAWL_NODE_ID="gm",
        NO_COLOR="1",
    )
    env = {k: v for k, v in env.items() if not k.startswith(("GOOGLE_CLOUD", "CLAUDE_"))}
    done = subprocess.run(
        [client_bin("gemini")] + list(args) + ["--yolo", "-o", "json"],
        cwd=str(world.project),
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])


class CodexScript(Scenario):
    """test_codex_cli's model, and one turn that never answers (the person interrupts it)."""

    def __call__(self, body, n):
        if last_user_text(body).startswith(STALL):
            time.sleep(20)
            return [message("too late")]
        return Scenario.__call__(self, body, n)


def interrupt_codex(box, server, thread):
    """``codex exec resume THREAD STALL``, interrupted (SIGINT) once its request reached the model:
    the client then writes a user-role ``<turn_aborted>`` message."""
    argv = [box.bin, *EXEC_FLAGS, "resume", thread, STALL]
    proc = subprocess.Popen(
        argv,
        cwd=str(box.project),
        env=box.env(TERMSPRAWL_NODE_ID="cx"),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 60
    while time.time() < deadline and not any(last_user_text(b).startswith(STALL) for b in server.responses()):
        time.sleep(0.1)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class World(object):
    def __init__(self, root, pyz):
        self.pyz = str(pyz)
        self.root = root

    def tool(self, *args):
        done = subprocess.run(
            [sys.executable, self.pyz] + [str(a) for a in args],
            cwd=str(self.project),
            env=self.codex.env(),
            capture_output=True,
            timeout=60,
        )
        assert b"Traceback" not in done.stderr, done.stderr
        return done

    def entry(self, node):
        return json.loads((self.project / ".termsprawl" / "transcripts" / (node + ".json")).read_text())


@pytest.fixture(scope="module")
def world(tmp_path_factory, pyz):
    for name in ("claude", "codex", "gemini"):
        client_bin(name)
    world = World(tmp_path_factory.mktemp("three-harnesses"), pyz)
    codex_script = CodexScript()
    with ClaudeServer(default=decide, side_answer=TITLE) as claude_server:
        with ResponsesServer(codex_script) as codex_server:
            box = CodexSandbox(world.root, codex_server, extra_config="model_auto_compact_token_limit = 100000\n")
            world.codex, world.home, world.project = box, box.home, box.project
            subprocess.run(["git", "init", "-q", str(box.project)], check=True)
            (box.project / "AGENTS.md").write_text(AGENTS_MD)
            (box.project / "parser.py").write_text("def parse(x):\n    return x  # FILE-BODY-77\n")
            commands = box.project / ".claude" / "commands"
            commands.mkdir(parents=True)
            (commands / "review.md").write_text(
                "---\ndescription: Review a file\n---\n" "Review the file $ARGUMENTS for bugs and report them.\n"
            )
            (world.home / ".gemini").mkdir()
            (world.home / ".gemini" / "settings.json").write_text(
                json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}})
            )
            done = world.tool(
                "init", "--cwd", box.project, "--hook", "--codex-hook", "--gemini-hook", "--claude-md", "--gemini-md"
            )
            assert done.returncode == 0, done.stderr
            for peer in ("cc", "cx", "gm"):
                assert world.tool("links", "add", "lead", peer).returncode == 0
            # Codex: AGENTS.md, environment context and the hook's developer message come with each
            # start; a sub-agent's notification; a compaction over the token limit.
            thread, _, _ = box.exec(CODEX_TYPED[0], node="cx")
            interrupt_codex(box, codex_server, thread)
            for prompt in CODEX_TYPED[2:]:
                box.exec("resume", thread, prompt, node="cx")
            world.codex_rollout = box.rollout(thread)
            world.codex_requests = codex_server.responses()
        # Claude Code: a custom command, a local command, an async sub-agent, /compact, --continue.
        session = claude(world, claude_server, "-p", CLAUDE_TYPED[0])
        claude(world, claude_server, "--resume", session, "-p", "/context")
        claude(world, claude_server, "--resume", session, "-p", CLAUDE_TYPED[1])
        claude(world, claude_server, "--resume", session, "-p", "/compact")
        claude(world, claude_server, "--continue", "-p", CLAUDE_TYPED[2])
        world.claude_session = session
    # Gemini: session context and the hook's context on the first prompt, then a resume.
    with GeminiServer([Say(GEMINI_ANSWERS[0])]) as first:
        gemini(world, first, "-p", GEMINI_TYPED[0])
    with GeminiServer([Say(GEMINI_ANSWERS[1])]) as second:
        gemini(world, second, "-r", "latest", "-p", GEMINI_TYPED[1])
    return world


def raw_text(path):
    return open(str(path), encoding="utf-8", errors="replace").read()


def test_each_clients_own_payload_recorded_its_node_and_wrote_harness_text(world):
    """The hook recorded each node from its client's SessionStart payload, and each record
    really holds the harness text the rest of the module says is left out."""
    cc, cx, gm = world.entry("cc"), world.entry("cx"), world.entry("gm")
    assert cc.get("harness", "claude-code") == "claude-code" and cc["path"].endswith(world.claude_session + ".jsonl")
    assert cx == {"version": 1, "path": str(world.codex_rollout), "harness": "codex-cli"}
    assert gm["harness"] == "gemini-cli" and "/.gemini/tmp/" in gm["path"]
    claude_raw, codex_raw, gemini_raw = raw_text(cc["path"]), raw_text(cx["path"]), raw_text(gm["path"])
    for marker in (
        "<command-name>/review</command-name>",
        "<local-command-stdout>",
        "<task-notification>",
        "This session is being continued",
    ):
        assert marker in claude_raw, marker
    for marker in (
        "# AGENTS.md instructions",
        "<environment_context>",
        "<subagent_notification>",
        "<turn_aborted>",
        '"type":"compacted"',
        "termsprawl: you are agent node cx",
    ):
        assert marker in codex_raw, marker
    for marker in ("<session_context>", "<hook_context>", "--- Content from referenced files ---", "FILE-BODY-77"):
        assert marker in gemini_raw, marker


EXPECTED = {"cc": CLAUDE_TYPED, "cx": CODEX_TYPED, "gm": GEMINI_TYPED}


def assert_clean(turns, node):
    """Every typed prompt once, in order, under a user heading; no harness text anywhere."""
    users = [text for role, text in turns if role == "user"]
    assert users == EXPECTED[node], (node, users)
    for role, text in turns:
        for marker in HARNESS_MARKERS:
            assert marker not in text, (node, role, marker, text[:300])
    assert [text for role, text in turns if role == "assistant"], node


def markdown_turns(block):
    """(role, text) of a markdown hand-off or ``show`` block: ``## role · time`` then a fence."""
    return [
        (m.group("role"), m.group("text"))
        for m in re.finditer(
            r"^## (?P<role>\w+)[^\n]*\n(?P<fence>`{3,})text\n(?P<text>.*?)\n(?P=fence)$", block, re.M | re.S
        )
    ]


def test_handoff_json_holds_each_peers_typed_prompts_and_no_harness_text(world):
    done = world.tool("--cwd", world.project, "--self", "lead", "--format", "json", "--max-chars", "1000000")
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    peers = {p["id"]: p for p in json.loads(done.stdout.decode())["peers"]}
    assert sorted(peers) == ["cc", "cx", "gm"]
    for node, peer in peers.items():
        assert_clean([(t["role"], t["text"]) for t in peer["turns"]], node)
    gm = [t["text"] for t in peers["gm"]["turns"] if t["role"] == "assistant"]
    assert gm == GEMINI_ANSWERS


def test_handoff_markdown_holds_each_peers_typed_prompts_and_no_harness_text(world):
    done = world.tool("--cwd", world.project, "--self", "lead", "--format", "markdown", "--max-chars", "1000000")
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    blocks = re.split(r"^# linked context from ", done.stdout.decode(), flags=re.M)[1:]
    assert sorted(b.split(" ", 1)[0] for b in blocks) == ["cc", "cx", "gm"]
    for block in blocks:
        assert_clean(markdown_turns(block), block.split(" ", 1)[0])


def test_show_of_each_peer_holds_its_typed_prompts_and_no_harness_text(world):
    for node in ("cc", "cx", "gm"):
        path = world.entry(node)["path"]
        done = world.tool("show", path, "--all")
        assert done.returncode == 0 and done.stderr == b"", (node, done.stderr)
        assert_clean(markdown_turns(done.stdout.decode()), node)
        shown = world.tool("show", path, "--format", "json", "--all")
        assert shown.returncode == 0, shown.stderr
        assert_clean([(t["role"], t["text"]) for t in json.loads(shown.stdout.decode())["turns"]], node)


def test_bare_dump_prints_every_peer_fail_open(world):
    done = world.tool("--cwd", world.project, "--self", "lead")
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    out = done.stdout.decode()
    for node, typed in EXPECTED.items():
        assert "# linked context from %s (%s)\n" % (node, node) in out
        assert typed[-1] in out
