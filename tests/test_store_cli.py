"""locate / assemble / assemble-file / fresh as commands: argv, stdout, stderr, exit codes.

In-process runs check the exact texts; runs of the built artifact check the same
contract end to end (environment, pipes, a FIFO in the store, a closed stdout).
"""

import json
import os
import subprocess
import sys
import time

import pytest

from termsprawl_context.cli import main

SID = "0d3b22c1-ba90-4fd3-b8d2-056ffc626725"
NOT_FOUND = "termsprawl-context: uuid not found in any transcript: %s\n"


def msg(uuid, ts, **extra):
    obj = {"type": "user", "uuid": uuid, "timestamp": ts, "sessionId": SID, "message": {"content": uuid}}
    obj.update(extra)
    return json.dumps(obj, separators=(",", ":"))


@pytest.fixture
def store(tmp_path):
    """A store with one session: b before a in the file, a earlier in time, b twice."""
    projects = tmp_path / "config" / "projects"
    project = projects / "-work-demo"
    project.mkdir(parents=True)
    lines = [
        msg("b", "2026-01-01T00:00:02Z", v=1),
        json.dumps({"type": "summary", "summary": "s", "leafUuid": "b"}),
        msg("a", "2026-01-01T00:00:01Z"),
        msg("b", "2026-01-01T00:00:02Z", v=2),
    ]
    path = project / (SID + ".jsonl")
    path.write_text("\n".join(lines) + "\n")
    old = time.time() - 600
    os.utime(str(path), (old, old))
    return projects


def expected_timeline():
    return msg("a", "2026-01-01T00:00:01Z") + "\n" + msg("b", "2026-01-01T00:00:02Z", v=2) + "\n"


# --- usage -----------------------------------------------------------------------------

USAGE_ERRORS = [
    (["locate"], "locate: the following arguments are required: UUID"),
    (["locate", "a", "b"], "locate: unrecognized arguments: b"),
    (["locate", ""], "locate: UUID must not be empty"),
    (["locate", "--bogus", "x"], "locate: unrecognized arguments: --bogus"),
    (["locate", "x", "--projects-dir"], "locate: argument --projects-dir: expected one argument"),
    (["assemble"], "assemble: the following arguments are required: UUID"),
    (["assemble", ""], "assemble: UUID must not be empty"),
    (["assemble-file"], "assemble-file: the following arguments are required: PATH"),
    (["assemble-file", ""], "assemble-file: PATH must not be empty"),
    (["assemble-file", "a", "b"], "assemble-file: unrecognized arguments: b"),
    (["fresh"], "fresh: the following arguments are required: PATH"),
    (["fresh", ""], "fresh: PATH must not be empty"),
    (["fresh", "a", "--allow"], "fresh: unrecognized arguments: --allow"),
    (["locate", "x", "--projects", "d"], "locate: unrecognized arguments: --projects d"),
]


@pytest.mark.parametrize("argv, message", USAGE_ERRORS)
def test_usage_errors_are_one_line_exit_2(argv, message, capsys):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "termsprawl-context: %s\n" % message


@pytest.mark.parametrize("command", ["locate", "assemble", "assemble-file", "fresh"])
def test_help(command, capsys):
    assert main([command, "--help"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("usage: termsprawl-context %s " % command)
    assert err == ""
    if command in ("locate", "assemble"):
        assert "--projects-dir DIR" in out
    if command == "fresh":
        assert "--allow-in-progress" in out


# --- in process ------------------------------------------------------------------------


def test_locate(store, capsys):
    assert main(["locate", SID, "--projects-dir", str(store)]) == 0
    assert capsys.readouterr() == (str(store / "-work-demo" / (SID + ".jsonl")) + "\n", "")
    assert main(["locate", "a", "--projects-dir", str(store)]) == 0
    assert capsys.readouterr().out == str(store / "-work-demo" / (SID + ".jsonl")) + "\n"


def test_locate_not_found(store, capsys):
    assert main(["locate", "nope", "--projects-dir", str(store)]) == 1
    assert capsys.readouterr() == ("", NOT_FOUND % "nope")


def test_assemble(store, capsys):
    assert main(["assemble", SID, "--projects-dir", str(store)]) == 0
    assert capsys.readouterr() == (expected_timeline(), "")
    assert main(["assemble", "zz", "--projects-dir", str(store)]) == 1
    assert capsys.readouterr() == ("", NOT_FOUND % "zz")


def test_assemble_file(store, tmp_path, capsys):
    path = store / "-work-demo" / (SID + ".jsonl")
    assert main(["assemble-file", str(path)]) == 0
    assert capsys.readouterr() == (expected_timeline(), "")
    missing = str(tmp_path / "missing.jsonl")
    assert main(["assemble-file", missing]) == 1
    assert capsys.readouterr() == ("", "termsprawl-context: transcript file not found: %s\n" % missing)


def test_fresh(store, tmp_path, capsys):
    old = store / "-work-demo" / (SID + ".jsonl")
    assert main(["fresh", str(old)]) == 0
    assert capsys.readouterr() == ("", "")
    new = tmp_path / "new.jsonl"
    new.write_text("{}\n")
    assert main(["fresh", str(new)]) == 9
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("termsprawl-context: WARNING \u2014 %s was modified " % new)
    assert err.endswith("s ago (< 60 s threshold); skipping in-progress transcript.\n")
    assert main(["fresh", str(new), "--allow-in-progress"]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("termsprawl-context: NOTE \u2014 %s modified " % new)
    assert err.endswith("s ago (< 60 s); proceeding anyway (--allow-in-progress, PreCompact capture path).\n")
    assert main(["fresh", str(tmp_path / "nope")]) == 1
    assert capsys.readouterr() == ("", "termsprawl-context: file not found: %s\n" % (tmp_path / "nope"))


# --- the built artifact --------------------------------------------------------------


def test_artifact_store_from_each_source(run_pyz, store, tmp_path):
    path = str(store / "-work-demo" / (SID + ".jsonl"))
    config = str(store.parent)
    by_flag = run_pyz(["locate", SID, "--projects-dir", str(store)])
    by_env = run_pyz(["locate", SID], env={"CLAUDE_CONFIG_DIR": config})
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    os.symlink(str(store), str(home / ".claude" / "projects"))
    by_home = run_pyz(["locate", SID], env={"HOME": str(home)})
    assert (by_flag.returncode, by_flag.stdout, by_flag.stderr) == (0, (path + "\n").encode(), b"")
    assert (by_env.returncode, by_env.stdout, by_env.stderr) == (0, (path + "\n").encode(), b"")
    assert by_home.stdout == (str(home / ".claude" / "projects" / "-work-demo" / (SID + ".jsonl")) + "\n").encode()
    done = run_pyz(["assemble", SID], env={"CLAUDE_CONFIG_DIR": config})
    assert (done.returncode, done.stdout, done.stderr) == (0, expected_timeline().encode(), b"")


def test_artifact_not_found_and_usage(run_pyz, store):
    done = run_pyz(["locate", "nope", "--projects-dir", str(store)])
    assert (done.returncode, done.stdout, done.stderr) == (1, b"", (NOT_FOUND % "nope").encode())
    done = run_pyz(["assemble"])
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr == b"termsprawl-context: assemble: the following arguments are required: UUID\n"
    done = run_pyz(["fresh", "--help"])
    assert done.returncode == 0 and done.stdout.startswith(b"usage: termsprawl-context fresh ")


def test_artifact_truncated_final_line(run_pyz, tmp_path):
    lines = [msg("u%d" % i, "2026-07-03T10:00:0%dZ" % i) for i in range(1, 5)]
    path = tmp_path / (SID + ".jsonl")
    path.write_text("\n".join(lines) + '\n{"uuid":"u5","timestamp":"2026-07-03T10:00:2')
    done = run_pyz(["assemble-file", str(path)])
    assert done.returncode == 0 and done.stderr == b""
    assert done.stdout.count(b"\n") == 4 and b'"u1"' in done.stdout and b"u5" not in done.stdout
    done = run_pyz(["assemble-file", str(tmp_path / "missing.jsonl")])
    assert done.returncode == 1 and done.stdout == b""


def test_artifact_freshness(run_pyz, tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text("{}\n")
    assert run_pyz(["fresh", str(path)]).returncode == 9
    with_flag = run_pyz(["fresh", str(path), "--allow-in-progress"])
    assert with_flag.returncode == 0 and b"NOTE" in with_flag.stderr and with_flag.stdout == b""
    old = time.time() - 120
    os.utime(str(path), (old, old))
    done = run_pyz(["fresh", str(path)])
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_artifact_fifo_in_the_store_does_not_hang(run_pyz, store):
    fifo = store / "-work-demo" / "x.jsonl"
    os.mkfifo(str(fifo))
    done = run_pyz(["locate", "a", "--projects-dir", str(store)], timeout=30)
    assert done.returncode == 0
    assert done.stdout == (str(store / "-work-demo" / (SID + ".jsonl")) + "\n").encode()
    assert done.stderr == ("termsprawl-context: cannot read %s: not a regular file: %s\n" % (fifo, fifo)).encode()
    done = run_pyz(["assemble-file", str(fifo)], timeout=30)
    assert done.returncode == 1
    done = run_pyz(["fresh", str(fifo)], timeout=30)
    assert done.returncode == 1


def test_artifact_closed_stdout_ends_quietly(pyz, tmp_path):
    path = tmp_path / "big.jsonl"
    with open(str(path), "w") as f:
        for i in range(20000):
            f.write(msg("m%05d" % i, "2026-01-01T00:00:%02dZ" % (i % 60), pad="x" * 200) + "\n")
    done = subprocess.run(
        "%s %s assemble-file %s | head -n 1" % (sys.executable, pyz, path),
        shell=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=60,
    )
    assert done.stdout.count(b"\n") == 1
    assert done.stderr == b""
