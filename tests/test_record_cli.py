"""The record commands, run from the built artifact: stdout, stderr, exit codes."""

import json

import pytest

from record_fixtures import Project, boundary, named_call, record, root, sidechain_root, tool_answer, tool_call

PREFIX = b"termsprawl-context: "


@pytest.fixture
def layout(tmp_path):
    project = Project(tmp_path / "projects" / "-p")
    parent = project.write(
        "the-session",
        [
            dict(root("origin"), sessionId="the-session", cwd=str(tmp_path)),
            named_call("a1", "origin", "toolu_dispatch", "Task", {"prompt": "go"}),
            tool_call("a2", "a1", "t-ran", "Bash", "ls"),
            tool_answer("r2", "a2", "t-ran", "x"),
            tool_call("a3", "r2", "t-blocked", "Bash", "rm"),
            tool_answer("r3", "a3", "t-blocked", "PreToolUse:Bash hook error: no", True),
        ],
    )
    sub = project.write_subagent("the-session", "a1b2", [sidechain_root("sub-origin", "a1b2")])
    project.write_meta(
        sub, {"agentType": "Explore", "description": "d", "toolUseId": "toolu_dispatch", "spawnDepth": 1}
    )
    wf = project.write_subagent(
        "the-session", "w1", [sidechain_root("wf-origin", "w1")], under=("subagents", "workflows", "wf_1")
    )
    return project, parent, sub, wf


def test_subagents_and_tree(run_pyz, layout):
    _, parent, sub, wf = layout
    done = run_pyz(["subagents", parent])
    assert done.returncode == 0 and done.stdout.decode() == sub + "\n"
    done = run_pyz(["subagents", parent, "--tree", "--json"])
    rows = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert [r["path"] for r in rows] == [sub, wf]
    assert rows[0]["meta"]["tool_use_id"] == "toolu_dispatch" and rows[1]["meta"] is None


def test_root_and_parent(run_pyz, layout, tmp_path):
    _, parent, sub, wf = layout
    for path in (parent, sub, wf):
        done = run_pyz(["root", path])
        assert (done.returncode, done.stdout.decode()) == (0, parent + "\n")
    done = run_pyz(["parent", sub, "--json"])
    assert json.loads(done.stdout) == {"path": sub, "parent": parent, "tool_use_id": "toolu_dispatch"}
    done = run_pyz(["parent", parent])
    assert done.returncode == 1 and done.stdout == b""
    assert done.stderr.startswith(PREFIX + b"transcript: parent: ") and b"no sub-agent meta file" in done.stderr
    orphan = Project(tmp_path / "orphans").write_subagent("gone", "a", [sidechain_root("s", "a")])
    done = run_pyz(["root", orphan])
    assert done.returncode == 1 and b"no dispatching record is on disk" in done.stderr


def test_identity(run_pyz, layout):
    project, parent, _, _ = layout
    done = run_pyz(["identity", parent])
    assert (done.returncode, done.stdout, done.stderr) == (0, b"origin\n", b"")
    restarted = project.write("later", [boundary("restart-root", "a3")])
    done = run_pyz(["identity", restarted, "--json"])
    assert done.returncode == 0 and json.loads(done.stdout)["id"] == "origin"
    lost = project.write("lost", [boundary("lost-root", "nowhere")])
    done = run_pyz(["identity", lost])
    assert done.returncode == 6 and done.stdout == b"lost-root\n"
    assert done.stderr.decode() == (
        "termsprawl-context: degraded identity: transcript: stable session id: %s continues nowhere: "
        "the record this transcript continues is in no other transcript\n" % lost
    )
    headless = project.write("headless", [record("x", "y")])
    done = run_pyz(["identity", headless])
    assert done.returncode == 1 and b"transcript has no origin record" in done.stderr
    done = run_pyz(["identity", str(project.dir / "absent.jsonl")])
    assert done.returncode == 1 and done.stderr.startswith(PREFIX + b"transcript: open ")


def test_identity_projects_dir_follows_the_start_directory(run_pyz, tmp_path):
    from termsprawl_context.harness.base import resolve_dir
    from termsprawl_context.harness.claude.facts import encode_project_dir

    work = tmp_path / "work"
    work.mkdir()
    store = tmp_path / "store"
    folder = Project(store / encode_project_dir(resolve_dir(str(work))))
    folder.write("old", [dict(root("true-origin"), cwd=str(work)), record("end", "true-origin")])
    copied = Project(tmp_path / "copies").write("new", [dict(boundary("restart", "end"), cwd=str(work))])
    assert run_pyz(["identity", copied]).returncode == 6  # its own folder holds no predecessor
    done = run_pyz(["identity", copied, "--projects-dir", str(store)])
    assert (done.returncode, done.stdout) == (0, b"true-origin\n")


def test_belongs(run_pyz, layout, tmp_path):
    _, parent, _, _ = layout
    assert run_pyz(["belongs", parent, "--session", "the-session"]).returncode == 0
    done = run_pyz(["belongs", parent, "--session", "another"])
    assert done.returncode == 5 and b"says it belongs to the-session, not another" in done.stderr
    assert run_pyz(["belongs", parent, "--tree", str(tmp_path)]).returncode == 0
    done = run_pyz(["belongs", parent, "--tree", str(tmp_path / "elsewhere")])
    assert done.returncode == 5 and b"was written in another tree" in done.stderr
    assert run_pyz(["belongs", parent]).returncode == 2
    assert run_pyz(["belongs", parent, "--session", "a", "--tree", "/"]).returncode == 2


def test_relocate(run_pyz, tmp_path):
    projects = tmp_path / "cfg" / "projects"
    real = Project(projects / "-wt").write("sid", [dict(root("o"), sessionId="sid")])
    (projects / "-repo").mkdir()
    reported = str(projects / "-repo" / "sid.jsonl")
    done = run_pyz(["relocate", reported], env={"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")})
    assert (done.returncode, done.stdout.decode()) == (0, real + "\n")
    done = run_pyz(["relocate", reported, "--projects-dir", str(projects), "--source", "startup", "--json"])
    assert json.loads(done.stdout) == {"path": reported, "reported": reported, "relocated": False}


def test_entries(run_pyz, layout):
    _, parent, _, _ = layout
    done = run_pyz(["entries", parent])
    rows = [line.split("\t") for line in done.stdout.decode().splitlines()]
    assert [r[:3] for r in rows[:2]] == [["1", "origin", "user"], ["2", "a1", "assistant"]]
    done = run_pyz(["entries", parent, "--calls"])
    calls = [line.split("\t")[:4] for line in done.stdout.decode().splitlines()]
    assert calls == [
        ["2", "toolu_dispatch", "Task", "no-result"],
        ["3", "t-ran", "Bash", "ran"],
        ["5", "t-blocked", "Bash", "hook"],
    ]
    done = run_pyz(["entries", parent, "--ran", "--json"])
    assert [json.loads(line)["id"] for line in done.stdout.decode().splitlines()] == ["t-ran"]
    done = run_pyz(["entries", parent, "--since", "a2", "--json"])
    assert [json.loads(line)["uuid"] for line in done.stdout.decode().splitlines()] == ["r2", "a3", "r3"]


def test_refusals_are_one_line(run_pyz, tmp_path):
    for command in ("subagents", "root", "parent", "identity", "entries"):
        done = run_pyz([command, str(tmp_path / "absent.jsonl")])
        assert done.returncode == 1, command
        assert done.stderr.count(b"\n") == 1 and done.stderr.startswith(PREFIX + b"transcript: open "), command
        assert run_pyz([command, ""]).returncode == 2


# --- issue 24 item 4: streamed readers ------------------------------------------------------------


def _over_the_bound(path):
    """A record line of 16 MiB (the fail-closed readers' bound), sparse: no disk used."""
    from termsprawl_context.transcript.record import MAX_RECORD_BYTES

    with open(str(path), "ab") as f:
        f.write(b'{"type":"user","uuid":"huge","message":{"content":"')
        f.truncate(f.tell() + MAX_RECORD_BYTES)
        f.seek(0, 2)
        f.write(b'"}}\n')


def test_a_streamed_reader_still_refuses_before_its_first_row(run_pyz, layout):
    """entries and query print as they go, yet a line past the bound at the end of the
    record is still a refusal with nothing printed (their first pass reads every line)."""
    _, parent, _, _ = layout
    _over_the_bound(parent)
    for argv in (
        ["entries", parent],
        ["entries", parent, "--since", "a2"],
        ["entries", parent, "--calls"],
        ["query", parent, "--where", 'type == "user"'],
        ["query", parent, "--where", "", "--json"],
    ):
        done = run_pyz(argv)
        assert done.returncode == 1 and done.stdout == b"", argv
        assert done.stderr.startswith(PREFIX + b"transcript: read "), argv


def test_the_mark_is_found_however_json_spells_it(run_pyz, tmp_path):
    """--since finds its uuid through a \\u escape too (the byte prefilter decodes such lines)."""
    path = tmp_path / "r.jsonl"
    lines = [
        json.dumps(root("origin")),
        json.dumps(dict(root("x1"), parentUuid="origin")).replace('"x1"', '"\\u00781"'),
        json.dumps(dict(root("x2"), parentUuid="x1")),
    ]
    path.write_text("\n".join(lines) + "\n")
    done = run_pyz(["entries", str(path), "--since", "x1"])
    assert [line.split("\t")[1] for line in done.stdout.decode().splitlines()] == ["x2"]


def test_one_line_lookups_read_no_further_than_their_line(run_pyz, layout):
    """result-at and envelope-at answer from the lines up to theirs: an unreadable line
    after it (past the bound) no longer makes them refuse."""
    _, parent, _, _ = layout
    before = run_pyz(["result-at", parent, "4"])
    assert before.returncode == 0 and before.stdout == b"x\n"
    _over_the_bound(parent)
    after = run_pyz(["result-at", parent, "4"])
    assert (after.returncode, after.stdout) == (0, b"x\n"), after.stderr
    assert run_pyz(["envelope-at", parent, "4"]).returncode == 0
    beyond = run_pyz(["result-at", parent, "7"])
    assert beyond.returncode == 1 and beyond.stderr.startswith(PREFIX + b"transcript: read ")
