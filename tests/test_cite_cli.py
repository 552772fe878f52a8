"""The grounding commands, run as the built artifact: cite (exit codes 10/11/12),
result-at, envelope-at, agents and query."""

import json
import os

import pytest

import cite_fixtures as fx


@pytest.fixture
def session(tmp_path):
    project = tmp_path / "proj"
    rootp = fx.write(
        project / "s1.jsonl",
        [
            fx.user_msg("u1", "please REFACTOR the auth module"),
            fx.tool_call("a1", "u1", "c1", "Bash", "go test ./..."),
            fx.tool_answer("r1", "a1", "c1", "ok  pkg  0.4s\nPASS"),
            # The call asks its question (issue 24: the seed's {"questions": []} reads as no answer).
            fx.named_call("a2", "r1", "t1", "AskUserQuestion", {"questions": [{"question": "which?", "options": []}]}),
            fx.tool_answer(
                "r2", "a2", "t1", 'The user answered: "which?"="the second option". Read the answers carefully.'
            ),
            fx.user_msg("u2", "DUP one"),
            fx.user_msg("u3", "DUP two"),
        ],
    )
    sub = fx.write_subagent(
        project,
        "s1",
        "a1b2",
        [
            fx.user_msg("s0", "DISPATCHED words", isSidechain=True),
            fx.tool_call("s1", "s0", "cs", "Bash", "cat retry.yaml", sidechain=True),
            fx.tool_answer("s2", "s1", "cs", "SUBOUT backoff", sidechain=True),
        ],
    )
    orphan = fx.write_subagent(project, "gone", "a9", [fx.user_msg("o0", "ORPHAN words", isSidechain=True)])
    return project, rootp, sub, orphan


def out(done):
    return done.stdout.decode("utf-8"), done.stderr.decode("utf-8")


def test_cite_prints_path_and_line(run_pyz, session):
    project, rootp, sub, _ = session
    done = run_pyz(["cite", rootp, "auth module"])
    assert (done.returncode, out(done)) == (0, ("%s:1\n" % rootp, ""))
    done = run_pyz(["cite", rootp, "PASS", "--source", "tool_result"])
    assert out(done)[0] == "%s:3\n" % rootp
    done = run_pyz(["cite", rootp, "second option", "--json"])
    cited = json.loads(done.stdout)
    assert cited["line"] == 5 and cited["sourceTypes"] == ["user"] and "which?" in cited["message"]
    done = run_pyz(["cite", rootp, "PASS", "--source", "user,tool_result", "--json"])
    assert json.loads(done.stdout)["call"] == "Bash: go test ./..."


def test_cite_scopes(run_pyz, session):
    project, rootp, sub, _ = session
    assert run_pyz(["cite", rootp, "SUBOUT", "--source", "tool_result"]).returncode == 10
    done = run_pyz(["cite", rootp, "SUBOUT", "--source", "tool_result", "--session"])
    assert out(done)[0] == "%s:3\n" % sub
    done = run_pyz(["cite", sub, "auth module", "--session"])
    assert out(done)[0] == "%s:1\n" % rootp
    other = fx.write(project / "s0.jsonl", [fx.user_msg("x1", "OLDER quote")])
    os.utime(other, (1, 1))
    done = run_pyz(["cite", rootp, "OLDER quote", "--across", str(project)])
    assert out(done)[0] == "%s:1\n" % other


def test_cite_exit_codes(run_pyz, session):
    project, rootp, sub, orphan = session
    done = run_pyz(["cite", rootp, "never said"])
    assert done.returncode == 10 and done.stdout == b""
    assert out(done)[1] == (
        'termsprawl-context: citation user "never said" does not resolve in %s: the quote is not '
        "there word for word in that pool (only whitespace may differ)\n" % rootp
    )
    done = run_pyz(["cite", rootp, "DUP"])
    assert done.returncode == 11 and "%s:6, %s:7" % (rootp, rootp) in out(done)[1]
    done = run_pyz(["cite", orphan, "ORPHAN", "--session"])
    assert done.returncode == 12 and "sub-agent" in out(done)[1]
    done = run_pyz(["cite", rootp, "DISPATCHED", "--session"])
    assert done.returncode == 10 and "dispatch prompt" in out(done)[1]
    for argv in (
        ["cite", rootp, ""],
        ["cite", rootp, "x", "--source", "assistant"],
        ["cite", "", "x"],
        ["cite", rootp, "x", "--session", "--across", str(project)],
    ):
        done = run_pyz(argv)
        assert done.returncode == 2 and out(done)[1].startswith("termsprawl-context: "), argv
    done = run_pyz(["cite", str(project / "absent.jsonl"), "x"])
    assert done.returncode == 1 and "transcript: open " in out(done)[1]
    assert len(out(done)[1].splitlines()) == 1


def test_result_and_envelope_at(run_pyz, session):
    _, rootp, _, _ = session
    done = run_pyz(["result-at", rootp, "3"])
    assert (done.returncode, out(done)[0]) == (0, "ok  pkg  0.4s\nPASS\n")
    for line in ("1", "5", "99"):
        done = run_pyz(["result-at", rootp, line])
        assert done.returncode == 1 and "is not a tool result" in out(done)[1]
    assert run_pyz(["result-at", rootp, "x"]).returncode == 2
    done = run_pyz(["envelope-at", rootp, "5"])
    assert out(done)[0] == 'The user answered: "which?"="the second option". Read the answers carefully.\n'
    # --json on a list answer: JSON Lines, one object per envelope.
    lines = run_pyz(["envelope-at", rootp, "5", "--json"]).stdout.splitlines()
    assert [json.loads(line) for line in lines] == [
        {
            "path": rootp,
            "line": 5,
            "envelope": 'The user answered: "which?"="the second option". Read the answers carefully.',
        }
    ]
    done = run_pyz(["envelope-at", rootp, "1"])
    assert (done.returncode, done.stdout) == (0, b"")
    done = run_pyz(["envelope-at", rootp, "99"])
    assert done.returncode == 1 and "no entry at the given line" in out(done)[1]


def test_agents(run_pyz, tmp_path):
    path = fx.write(
        tmp_path / "bg.jsonl",
        fx.launch(1, "toolu_1", "bg1") + fx.launch(2, "toolu_2", "bg2") + [fx.notification("bg1", "completed")],
    )
    done = run_pyz(["agents", path])
    assert (done.returncode, out(done)[0]) == (0, "bg2\n")
    data = json.loads(run_pyz(["agents", path, "--json"]).stdout)
    assert data["running"] == ["bg2"] and [s["kind"] for s in data["signals"]] == ["launched", "launched", "ended"]
    with open(path, "a") as f:
        f.write("{torn")
    done = run_pyz(["agents", path])
    assert done.returncode == 1 and "not a JSON record" in out(done)[1]


def test_query(run_pyz, session):
    _, rootp, _, _ = session
    done = run_pyz(["query", rootp, "--where", 'message?.content[0]?.name == "Bash"'])
    assert out(done)[0] == "%s:2\tassistant\ta1\n" % rootp
    # --json on a list answer: JSON Lines, none for no match.
    assert run_pyz(["query", rootp, "--where", 'type == "nothing"', "--json"]).stdout == b""
    rows = [json.loads(line) for line in run_pyz(["query", rootp, "--where", "", "--json"]).stdout.splitlines()]
    assert len(rows) == 7 and rows[1]["line"] == 2 and rows[1]["record"]["uuid"] == "a1"
    done = run_pyz(["query", rootp, "--where", 'int("x") == 1'])
    assert done.returncode == 13 and "without having looked" in out(done)[1]
    done = run_pyz(["query", rootp, "--where", "uuid"])
    assert done.returncode == 2 and "expected bool" in out(done)[1]
    done = run_pyz(["query", "/absent.jsonl", "--where", "true"])
    assert done.returncode == 1
