"""Issue 32's messages: each names the CLI it is for, the missing variable, or the fix."""

import json


def test_unset_id_messages_name_their_own_cli(run_pyz, tmp_path):
    for harness, label, command in (("codex-cli", "Codex CLI", "codex"), ("gemini-cli", "Gemini CLI", "gemini")):
        home = tmp_path / harness
        roots = {"codex-cli": home / ".codex" / "sessions", "gemini-cli": home / ".gemini" / "tmp" / "p" / "chats"}
        roots[harness].mkdir(parents=True)
        transcript = roots[harness] / ("rollout-x-s1.jsonl" if harness == "codex-cli" else "session-x-s1.jsonl")
        transcript.write_text("")
        payload = {"session_id": "s1", "transcript_path": str(transcript), "cwd": str(tmp_path), "source": "startup"}
        done = run_pyz(
            ["hook", "--harness", harness],
            stdin=json.dumps(payload).encode(),
            env={"HOME": str(home), "TERMSPRAWL_NODE_ID": None},
        )
        assert done.returncode == 0
        out = json.loads(done.stdout)
        shown = out["systemMessage"]
        assert "start %s as `TERMSPRAWL_NODE_ID=<node> %s`" % (label, command) in shown, shown
        assert "claude" not in shown.lower()
        if harness == "codex-cli":  # Codex's TUI may not show it: the model is asked to pass it on
            assert shown in out["hookSpecificOutput"]["additionalContext"]


def test_dump_says_the_variable_is_missing_or_unsafe(run_pyz, tmp_path):
    (tmp_path / ".termsprawl").mkdir()
    unset = run_pyz(["--format", "markdown"], cwd=tmp_path, env={"TERMSPRAWL_NODE_ID": None})
    assert unset.returncode == 2 and unset.stdout == b""
    assert b"$TERMSPRAWL_NODE_ID is not set" in unset.stderr and unset.stderr.count(b"\n") == 1
    unsafe = run_pyz([], cwd=tmp_path, env={"TERMSPRAWL_NODE_ID": "../x"})
    assert unsafe.returncode == 0 and unsafe.stdout == b""
    assert b"not a safe node id" in unsafe.stderr and unsafe.stderr.count(b"\n") == 1


def test_help_lists_the_handoff_options_and_hook_help_is_cli_neutral(run_pyz):
    usage = run_pyz(["--help"]).stdout.decode()
    assert "--format" in usage and "--turns" in usage and "--max-chars" in usage
    hook_help = run_pyz(["hook", "--help"]).stdout.decode()
    assert "from a Claude Code hook payload" not in hook_help and "Claude Code SessionStart payload" not in hook_help


def test_links_list_outside_a_project_says_so(run_pyz, tmp_path):
    done = run_pyz(["links", "list"], cwd=tmp_path)
    assert done.returncode == 0 and done.stdout == b""
    assert b"no project found" in done.stderr and done.stderr.count(b"\n") == 1
