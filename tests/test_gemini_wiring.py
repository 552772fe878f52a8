"""`init --gemini-hook` and `init --gemini-md`, run from the built artifact: what Gemini CLI
reads in a project (its .gemini/settings.json hooks, its GEMINI.md imports) planted inside
the project only, merged into what is there."""

import json
import os
import threading

import pytest

from termsprawl_context.harness import gemini
from termsprawl_context.harness.gemini import facts
from termsprawl_context.workspace import discovery, install
from termsprawl_context.workspace.project import hook_command

CLAUDE_SETTINGS = install.hook_harness().hook_settings_file
# The line GEMINI.md imports the managed block with.
GEMINI_IMPORT = gemini.HARNESS.instruction_import_prefix + discovery.AGENTS_FILE.replace(os.sep, "/")
OUR_ENTRY = gemini.HARNESS.hook_entry(hook_command(gemini.HARNESS))


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "project"
    path.mkdir()
    return path


def settings(project):
    return json.loads((project / facts.SETTINGS_FILE).read_text())


def test_gemini_hook_from_scratch_then_again(project, run_pyz):
    done = run_pyz(["init", "--cwd", project, "--gemini-hook"])
    assert done.returncode == 0, done.stderr
    group = settings(project)["hooks"][facts.HOOK_EVENT_SESSION_START]
    assert group == [OUR_ENTRY]
    assert group[0]["hooks"][0]["timeout"] == facts.HOOK_TIMEOUT_MS  # milliseconds in Gemini CLI
    assert "--harness gemini-cli" in group[0]["hooks"][0]["command"]
    assert (project / ".gemini" / ".gitignore").read_text().splitlines()[-1] == "settings.json"
    assert b"Gemini CLI" in done.stdout and b"trust" in done.stdout
    assert not (project / CLAUDE_SETTINGS).exists()  # Claude Code's file only with --hook
    before = (project / facts.SETTINGS_FILE).read_bytes()
    again = run_pyz(["init", "--cwd", project, "--gemini-hook"])
    assert again.returncode == 0 and b"already registered" in again.stdout
    assert (project / facts.SETTINGS_FILE).read_bytes() == before


def test_gemini_hook_merges_into_the_settings_there(project, run_pyz):
    (project / ".gemini").mkdir()
    theirs = {
        "model": {"name": "x"},
        "hooks": {
            "SessionStart": [
                {"matcher": "startup", "hooks": [{"type": "command", "command": "echo theirs", "timeout": 5000}]}
            ],
            "BeforeTool": [],
        },
    }
    (project / facts.SETTINGS_FILE).write_text(json.dumps(theirs))
    done = run_pyz(["init", "--cwd", project, "--gemini-hook", "--hook"])
    assert done.returncode == 0, done.stderr
    merged = settings(project)
    assert merged["model"] == theirs["model"] and merged["hooks"]["BeforeTool"] == []
    assert merged["hooks"]["SessionStart"][0] == theirs["hooks"]["SessionStart"][0]
    assert merged["hooks"]["SessionStart"][1] == OUR_ENTRY
    assert (project / CLAUDE_SETTINGS).exists()  # both harnesses' hooks when both are asked for


def test_unusable_gemini_settings_are_left_untouched(project, run_pyz):
    (project / ".gemini").mkdir()
    (project / facts.SETTINGS_FILE).write_text('{"hooks": [')
    done = run_pyz(["init", "--cwd", project, "--gemini-hook"])
    assert done.returncode == 1
    assert done.stderr.count(b"\n") == 1 and facts.SETTINGS_FILE.encode() in done.stderr
    assert (project / facts.SETTINGS_FILE).read_text() == '{"hooks": ['
    assert not (project / ".termsprawl").exists()  # refused before anything was written


def test_gemini_md_import_keeps_the_text_byte_for_byte(project, run_pyz):
    mine = "# Notes\r\n\nkeep `@./.termsprawl/AGENTS.md` in a code span\n```\n%s\n```\nlast line" % (GEMINI_IMPORT)
    (project / "GEMINI.md").write_bytes(mine.encode())
    done = run_pyz(["init", "--cwd", project, "--gemini-md"])
    assert done.returncode == 0, done.stderr
    written = (project / "GEMINI.md").read_bytes()
    assert written == (mine + "\n\n" + GEMINI_IMPORT + "\n").encode()
    assert GEMINI_IMPORT == "@./.termsprawl/AGENTS.md"
    again = run_pyz(["init", "--cwd", project, "--gemini-md"])
    assert again.returncode == 0 and (project / "GEMINI.md").read_bytes() == written
    assert not (project / "CLAUDE.md").exists()


def test_gemini_md_created_when_absent(project, run_pyz):
    done = run_pyz(["init", "--cwd", project, "--gemini-md"])
    assert done.returncode == 0, done.stderr
    assert (project / "GEMINI.md").read_text() == GEMINI_IMPORT + "\n"


# --- the read tool and the kept chats (Gemini CLI 0.61; proved with the real client in
# tests/e2e/test_gemini_read_tool.py) ----------------------------------------------------------
def test_gemini_hook_registers_the_read_server_and_keeps_the_chats(project, run_pyz):
    done = run_pyz(["init", "--cwd", project, "--gemini-hook"])
    assert done.returncode == 0, done.stderr
    written = settings(project)
    server = written["mcpServers"]["termsprawl"]
    assert server["trust"] is True and server["command"] == "sh" and server["args"][1].endswith('" mcp')
    assert written["general"] == {"sessionRetention": {"enabled": False}}
    # The server it names answers the protocol with the one read tool, and nothing writes.
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "read_peers", "arguments": {"x": 1}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "links", "arguments": {}}},
    ]
    stdin = ("\n".join(json.dumps(m) for m in messages) + "\nnot json\n").encode()
    served = run_pyz(["mcp", "--cwd", project, "--self", "carol"], stdin=stdin)
    answers = [json.loads(line) for line in served.stdout.decode().splitlines()]
    assert [a["id"] for a in answers] == [1, 2, 3, 4, None]
    assert [t["name"] for t in answers[1]["result"]["tools"]] == ["read_peers"]
    assert (
        answers[2]["result"]["isError"] is True
        and "unexpected argument: x" in answers[2]["result"]["content"][0]["text"]
    )
    assert answers[3]["error"]["code"] == -32602 and answers[4]["error"]["code"] == -32700
    assert not (project / ".termsprawl" / "links").exists() or not list((project / ".termsprawl" / "links").iterdir())


def test_gemini_hook_keeps_the_person_s_values_at_those_keys(project, run_pyz):
    (project / ".gemini").mkdir()
    theirs = {"mcpServers": {"termsprawl": {"command": "mine"}}, "general": {"sessionRetention": {"maxAge": "7d"}}}
    (project / facts.SETTINGS_FILE).write_text(json.dumps(theirs))
    done = run_pyz(["init", "--cwd", project, "--gemini-hook"])
    assert done.returncode == 0, done.stderr
    written = settings(project)
    assert written["mcpServers"] == theirs["mcpServers"]
    assert written["general"] == {"sessionRetention": {"maxAge": "7d", "enabled": False}}
    assert b"kept" in done.stdout and b"mcpServers.termsprawl is yours" in done.stdout


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_at_the_project_settings_is_not_opened(project):
    (project / ".gemini").mkdir()
    os.mkfifo(str(project / facts.SETTINGS_FILE))  # open() of a FIFO waits for a writer forever
    found = []
    reader = threading.Thread(target=lambda: found.append(gemini.HARNESS.read_tool(str(project))), daemon=True)
    reader.start()
    reader.join(10)
    assert found == [""]


def test_a_peer_whose_gemini_chat_was_deleted_is_named_with_the_cause_and_fix(project, run_pyz, tmp_path):
    gone = tmp_path / "home" / ".gemini" / "tmp" / "proj" / "chats" / "session-2026-12-01T00-00-5e55aaaa.jsonl"
    gone.parent.mkdir(parents=True)
    gone.write_text(json.dumps({"sessionId": "5e55aaaa-0000", "projectHash": "ab", "kind": "main"}) + "\n")
    assert run_pyz(["init", "--cwd", project], env={}).returncode in (0, 1)
    (project / ".termsprawl").mkdir(exist_ok=True)
    assert run_pyz(["index", "set", "carol", gone], cwd=project).returncode == 0
    assert json.loads((project / ".termsprawl" / "transcripts" / "carol.json").read_text())["harness"] == facts.NAME
    assert run_pyz(["links", "add", "alice", "carol"], cwd=project).returncode == 0
    gone.unlink()  # what Gemini CLI's start-up cleanup does to a resumed session's files
    handed = run_pyz(["--cwd", project, "--self", "alice", "--format", "markdown"])
    assert handed.returncode == 0 and handed.stdout == b""
    assert b"carol's Gemini CLI chat" in handed.stderr and b"init --gemini-hook" in handed.stderr
    assert handed.stderr.count(b"\n") == 1
    doctor = run_pyz(["doctor", "--cwd", project, "--self", "alice"])
    assert b"general.sessionRetention" in doctor.stdout and b"init --gemini-hook" in doctor.stdout
    plain = run_pyz(["--cwd", project, "--self", "alice"])
    assert (plain.returncode, plain.stdout, plain.stderr) == (0, b"", b"")  # the dump's contract is unchanged


def test_the_read_server_holds_on_any_input(project, run_pyz):
    """Junk, torn, giant, nested, binary and non-object lines: one answer per line it can
    answer, never a traceback, exit 0 at the end of input."""
    import random

    rng = random.Random(29)
    lines = [
        b"",
        b"\xff\xfe\x00garbage",
        b"[" * 100000,
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": "x"}',
        b'{"jsonrpc": "2.0", "id": [], "method": 5}',
        b"x" * (3 << 20),
        b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "read_peers", "arguments": {"turns": true}}}',
        b"null",
        b'"just a string"',
    ] + [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))) for _ in range(50)]
    done = run_pyz(["mcp", "--cwd", project, "--self", "carol"], stdin=b"\n".join(lines))
    assert done.returncode == 0 and b"Traceback" not in done.stderr
    for line in done.stdout.decode().splitlines():
        answer = json.loads(line)
        assert answer["jsonrpc"] == "2.0" and ("result" in answer or "error" in answer)
    assert b'"invalid value for turns' in done.stdout
    torn = run_pyz(["mcp", "--cwd", project], stdin=b'{"jsonrpc": "2.0", "id": 1, "method": "initialize"')
    assert torn.returncode == 0 and b"Traceback" not in torn.stderr
