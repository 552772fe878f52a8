"""The readers across harnesses, through the built artifact: a Codex CLI peer in the dump
and the hand-off, show / sessions / find / search over its store, entries, subagents and
identity, the hook taking Codex's payload, and init's Codex options."""

import json
import shutil

from test_codex import CHILD, FIXTURES, FORK, LEGACY, PARENT, SPAWNER


def project(tmp_path, peers):
    """A project whose node ``lead`` is linked to each of ``peers`` ({node: index entry})."""
    proj = tmp_path / "proj"
    (proj / ".termsprawl" / "transcripts").mkdir(parents=True)
    (proj / ".termsprawl" / "links").mkdir()
    for node, entry in peers.items():
        (proj / ".termsprawl" / "transcripts" / (node + ".json")).write_text(json.dumps(entry))
        lo, hi = sorted(["lead", node])
        (proj / ".termsprawl" / "links" / ("%s--%s.json" % (lo, hi))).write_text(
            json.dumps({"version": 1, "a": lo, "b": hi})
        )
    return proj


def codex_entry(path):
    return {"version": 1, "path": str(path), "harness": "codex-cli"}


def claude_record(tmp_path):
    path = tmp_path / "claude-peer.jsonl"
    lines = [
        {
            "type": "user",
            "uuid": "u1",
            "sessionId": "s1",
            "timestamp": "t1",
            "message": {"role": "user", "content": "the claude peer's own question"},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "sessionId": "s1",
            "timestamp": "t2",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "the claude peer's answer"}]},
        },
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_dump_reads_a_codex_peer_in_the_dump_s_shape(tmp_path, run_pyz):
    proj = project(tmp_path, {"cx": codex_entry(FORK)})
    done = run_pyz(["--cwd", proj, "--self", "lead"])
    assert done.returncode == 0, done.stderr
    assert (
        done.stdout.decode()
        == "\n".join(
            [
                "# linked context from cx (cx)",
                "## user",
                "first prompt",
                "## assistant",
                "answer 0 to: first prompt",
                "## user",
                "second prompt",
                "## assistant",
                "answer 1 to: second prompt",
                "## user",
                "fork prompt",
                "## assistant",
                "answer 2 to: fork prompt",
            ]
        )
        + "\n"
    )


def test_dump_of_a_claude_peer_beside_a_codex_one_is_the_seed_s(tmp_path, run_pyz):
    record = claude_record(tmp_path)
    alone = run_pyz(
        ["--cwd", project(tmp_path / "a", {"cc": {"version": 1, "path": str(record)}}), "--self", "lead"]
    ).stdout.decode()
    both = run_pyz(
        [
            "--cwd",
            project(tmp_path / "b", {"cc": {"version": 1, "path": str(record)}, "cx": codex_entry(PARENT)}),
            "--self",
            "lead",
        ]
    ).stdout.decode()
    assert both.startswith(alone.rstrip("\n") + "\n---\n# linked context from cx (cx)\n")


def test_handoff_holds_typed_prompts_and_answers_and_no_harness_text(tmp_path, run_pyz):
    proj = project(tmp_path, {"cx": codex_entry(SPAWNER), "old": codex_entry(LEGACY)})
    done = run_pyz(["--cwd", proj, "--self", "lead", "--format", "json"])
    assert done.returncode == 0, done.stderr
    peers = {p["id"]: p for p in json.loads(done.stdout)["peers"]}
    texts = [t["text"] for t in peers["cx"]["turns"]]
    assert texts == [
        "spawn please",
        "noted the notification",
        "big prompt one",
        "answer to big prompt one",
        "after compaction prompt",
        "answer to after compaction prompt",
    ]
    lines = SPAWNER.read_text().splitlines()
    for turn in peers["cx"]["turns"]:  # each line number names the line the text is on
        assert json.dumps(turn["text"])[1:-1] in lines[turn["line"] - 1]
    assert [t["role"] for t in peers["old"]["turns"]] == ["user", "assistant", "user", "assistant"]
    markdown = run_pyz(["--cwd", proj, "--self", "lead", "--format", "markdown"]).stdout.decode()
    for harness_text in (
        "<environment_context>",
        "skills_instructions",
        "SUMMARY-OF-WORK",
        "<subagent_notification>",
        "Another language model",
        "<user_instructions>",
    ):
        assert harness_text not in markdown


def store_env(tmp_path):
    return {"CODEX_HOME": str(FIXTURES), "HOME": str(tmp_path)}


def test_show_sessions_find_search_over_the_codex_store(tmp_path, run_pyz):
    env = store_env(tmp_path)
    listed = run_pyz(["sessions", "--json"], env=env)
    assert listed.returncode == 0, listed.stderr
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    assert {r["session_id"] for r in rows} >= {
        "01a233eb-aec3-7ca3-ad52-6d382ed8cbfe",
        "0199fe39-c07c-71d0-9ceb-9315a0946d34",
    }
    assert all(r["harness"] == "codex-cli" for r in rows)
    found = run_pyz(["find", "0199fe39"], env=env)
    assert found.stdout.decode() == "0199fe39-c07c-71d0-9ceb-9315a0946d34\t%s\n" % LEGACY
    shown = run_pyz(["show", "01a233ef-7ba9", "--format", "json"], env=env)
    assert [t["text"] for t in json.loads(shown.stdout)["turns"]][0] == "spawn please"
    by_path = run_pyz(["show", str(PARENT)], env={"HOME": str(tmp_path)})  # known by its first record
    assert "second prompt" in by_path.stdout.decode() and "<environment_context>" not in by_path.stdout.decode()
    hits = run_pyz(["search", "fork prompt", "--json"], env=env)
    hits = [json.loads(line) for line in hits.stdout.splitlines()]
    assert [(h["path"], h["line"], h["kind"]) for h in hits] == [(str(FORK), 6, "person"), (str(FORK), 9, "assistant")]
    none = run_pyz(["search", "environment_context"], env=env)  # harness text is not searched
    assert (none.returncode, none.stdout) == (0, b"")  # no results: exit 0, nothing on stdout
    only_claude = run_pyz(["sessions", "--harness", "claude-code"], env=env)
    assert b"codex" not in only_claude.stdout
    assert run_pyz(["sessions", "--harness", "nope"], env=env).returncode == 1


def test_entries_subagents_identity(tmp_path, run_pyz):
    env = store_env(tmp_path)
    calls = run_pyz(["entries", "--calls", "--json", SPAWNER], env=env)
    assert [json.loads(x)["name"] for x in calls.stdout.splitlines()] == ["spawn_agent", "wait_agent"]
    assert run_pyz(["subagents", SPAWNER], env=env).stdout.decode() == str(CHILD) + "\n"
    assert run_pyz(["identity", FORK], env=env).stdout.decode() == "01a233eb-b2fb-7891-9b52-0f1dd18f15f7\n"
    copy = tmp_path / "renamed.jsonl"
    shutil.copy(str(FORK), str(copy))
    refused = run_pyz(["identity", copy], env=env)
    assert refused.returncode == 1 and b"Codex CLI records do not hold" in refused.stderr


def codex_payload(path, source="startup", **extra):
    body = {
        "session_id": path.name[-42:-6],
        "transcript_path": str(path),
        "cwd": "/x",
        "hook_event_name": "SessionStart",
        "model": "mock-model",
        "permission_mode": "default",
        "source": source,
    }
    body.update(extra)
    return json.dumps(body).encode()


def test_hook_records_a_codex_node_and_answers_in_its_shape(tmp_path, run_pyz):
    proj = project(tmp_path, {"cc": {"version": 1, "path": str(claude_record(tmp_path))}})
    env = dict(store_env(tmp_path), TERMSPRAWL_NODE_ID="lead")
    done = run_pyz(["hook", "--cwd", proj], env=env, stdin=codex_payload(PARENT))
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer == {
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": answer["hookSpecificOutput"]["additionalContext"],
        }
    }
    assert "linked agents: cc" in answer["hookSpecificOutput"]["additionalContext"]
    entry = json.loads((proj / ".termsprawl" / "transcripts" / "lead.json").read_text())
    assert entry == {"version": 1, "path": str(PARENT), "harness": "codex-cli"}
    # A sub-agent's hook leaves the node where it is.
    child = run_pyz(["hook", "--cwd", proj], env=env, stdin=codex_payload(CHILD, agent_id="c"))
    assert child.returncode == 0 and child.stdout == b"" and b"sub-agent" in child.stderr
    assert json.loads((proj / ".termsprawl" / "transcripts" / "lead.json").read_text())["path"] == str(PARENT)
    # Named explicitly, a payload outside that harness's store is refused in its words.
    outside = run_pyz(
        ["hook", "--cwd", proj, "--harness", "codex-cli"],
        env=dict(env, CODEX_HOME=str(tmp_path)),
        stdin=codex_payload(PARENT),
    )
    assert b"must be under Codex CLI sessions directory" in outside.stderr
    unknown = run_pyz(["hook", "--cwd", proj, "--harness", "nope"], env=env, stdin=codex_payload(PARENT))
    assert unknown.returncode == 0 and b"--harness nope" in unknown.stderr


def test_init_codex_hook_and_agents_md(tmp_path, run_pyz):
    proj = tmp_path / "p"
    proj.mkdir()
    (proj / ".codex").mkdir()
    (proj / ".codex" / "hooks.json").write_text(json.dumps({"hooks": {"Stop": [{"hooks": []}]}, "x": 1}))
    (proj / "AGENTS.md").write_text("# Mine\n\nkeep this\n")
    plain = run_pyz(["init", "--cwd", proj])
    assert plain.returncode == 0, plain.stderr
    assert (proj / "AGENTS.md").read_text() == "# Mine\n\nkeep this\n"  # never without the option
    done = run_pyz(["init", "--cwd", proj, "--codex-hook", "--agents-md"])
    assert done.returncode == 0, done.stderr
    hooks = json.loads((proj / ".codex" / "hooks.json").read_text())
    assert hooks["x"] == 1 and hooks["hooks"]["Stop"] == [{"hooks": []}]
    (ours,) = hooks["hooks"]["SessionStart"]
    assert ours["matcher"] == "*" and ours["hooks"][0]["command"].endswith("hook --harness codex-cli")
    assert (proj / ".codex" / ".gitignore").read_text().splitlines()[-1] == "hooks.json"
    agents = (proj / "AGENTS.md").read_text()
    assert agents.startswith("# Mine\n\nkeep this\n\n<!-- termsprawl:context-links -->")
    again = run_pyz(["init", "--cwd", proj, "--codex-hook", "--agents-md"])
    assert json.loads((proj / ".codex" / "hooks.json").read_text()) == hooks
    assert (proj / "AGENTS.md").read_text() == agents
    assert b"unchanged  .codex/hooks.json" in again.stdout
    (proj / ".codex" / "hooks.json").write_text("[1]")
    bad = run_pyz(["init", "--cwd", proj, "--codex-hook"])
    assert bad.returncode == 1 and b".codex/hooks.json" in bad.stderr


def test_init_codex_hook_never_writes_the_home_s_codex_folder(tmp_path, run_pyz):
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    before = sorted(p.name for p in (home / ".codex").iterdir())
    done = run_pyz(["init", "--cwd", home, "--codex-hook"], env={"HOME": str(home)})
    assert done.returncode == 1
    assert b"refusing to write into the home directory's .codex" in done.stderr
    assert sorted(p.name for p in (home / ".codex").iterdir()) == before
    assert not (home / ".termsprawl").exists()  # refused before anything was written


def test_claude_only_commands_refuse_a_codex_rollout_by_name(tmp_path, run_pyz):
    for args in (
        ["cite", PARENT, "first prompt"],
        ["result-at", PARENT, "13"],
        ["envelope-at", PARENT, "9"],
        ["agents", PARENT],
        ["query", PARENT, "--where", "type=user"],
        ["assemble-file", PARENT],
    ):
        done = run_pyz(args, env={"HOME": str(tmp_path)})
        assert done.returncode == 1, (args, done.stderr)
        assert (
            done.stderr.decode()
            == "termsprawl-context: %s: Codex CLI records do not hold what this needs (%s)\n" % (args[0], PARENT)
        )


def test_doctor_counts_the_handoff_turns_of_codex_and_gemini_peers(tmp_path):
    """doctor's "hand-off turns" is what the hand-off prints for each peer, through the
    peer's own harness (it read every peer as Claude Code: 0 for a Codex or Gemini node)."""
    from pathlib import Path

    from termsprawl_context import doctor, handoff

    gemini_chat = (
        Path(__file__).resolve().parent / "fixtures" / "gemini-0.61" / "session-2026-12-01T23-26-8f455c26.jsonl"
    )
    peers = {
        "cx": codex_entry(SPAWNER),
        "gm": {"version": 1, "path": str(gemini_chat), "harness": "gemini-cli"},
        "cc": {"version": 1, "path": str(claude_record(tmp_path))},
    }
    report = {p.peer: p for p in doctor.diagnose(str(project(tmp_path, peers)), "lead").peers}
    for node, harness in (("cx", "codex-cli"), ("gm", "gemini-cli"), ("cc", None)):
        shown = len(handoff.read_harness_turns(peers[node]["path"], harness))
        assert shown >= 2 and report[node].handoff_turns == shown, node
        assert report[node].harness_turns == 0, node
