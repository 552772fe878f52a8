"""`sessions` and `find`, run as users run them: the built one-file artifact in a clean
environment (read-only HOME), plus in-process runs where a fault must be injected."""

import json
import os

import pytest
from conftest import snapshot

from termsprawl_context import cli
from termsprawl_context.store import catalog as C
from termsprawl_context.store import sessions as S
from termsprawl_context.harness.claude.facts import encode_project_dir

ID1 = "11111111-aaaa-bbbb-cccc-000000000001"
ID2 = "22222222-aaaa-bbbb-cccc-000000000002"
ID3 = "22223333-aaaa-bbbb-cccc-000000000003"
FIELDS = set(S.SessionInfo._fields) | {"modified"}


def write(path, entries, mtime):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    os.utime(str(path), (mtime, mtime))
    return path


def user(text, **extra):
    entry = {"type": "user", "message": {"role": "user", "content": text}}
    entry.update(extra)
    return entry


@pytest.fixture
def store(tmp_path):
    """A store with three sessions in two projects, plus things that are not sessions."""
    work = tmp_path / "work"
    work.mkdir()
    projects = tmp_path / "config" / "projects"
    mine = projects / encode_project_dir(str(work.resolve()))
    write(mine / (ID1 + ".jsonl"), [user("First prompt", cwd=str(work), gitBranch="main", timestamp="T1")], 2000)
    write(
        mine / (ID2 + ".jsonl"),
        [user("Second prompt"), {"type": "custom-title", "customTitle": "Named \x1b[31mred\x1b[0m"}],
        1000,
    )
    write(projects / "-elsewhere" / (ID3 + ".jsonl"), [user("x" * 300)], 3000)
    write(projects / "-elsewhere" / "agent-a0074ac.jsonl", [user("agent")], 4000)
    (projects / "-elsewhere" / "x.jsonl").mkdir()
    return tmp_path, work, projects


def out(result):
    return result.stdout.decode("utf-8"), result.stderr.decode("utf-8")


def test_sessions_table(run_pyz, store):
    _, _, projects = store
    result = run_pyz(["sessions", "--projects-dir", projects])
    stdout, stderr = out(result)
    assert (result.returncode, stderr) == (0, "")
    lines = stdout.splitlines()
    assert lines[0].split() == ["ID", "MODIFIED", "SIZE", "TITLE"]
    assert [line.split()[0] for line in lines[1:]] == [ID2, ID1, ID3]  # oldest first
    assert lines[1].endswith("Named \ufffd[31mred\ufffd[0m")  # no raw escape reaches the terminal
    assert lines[2].endswith("First prompt")
    assert lines[3].endswith("x" * 69 + "...")  # cut to the column width
    assert "\x1b" not in stdout


def test_sessions_json_has_every_field(run_pyz, store):
    _, work, projects = store
    result = run_pyz(["sessions", "--projects-dir", projects, "--json"])
    stdout, stderr = out(result)
    assert (result.returncode, stderr) == (0, "")
    rows = [json.loads(line) for line in stdout.splitlines()]
    assert [r["session_id"] for r in rows] == [ID2, ID1, ID3]
    assert all(set(r) == FIELDS for r in rows)
    first = rows[1]
    assert first["title"] == "First prompt" and first["title_source"] == "prompt"
    assert (first["cwd"], first["git_branch"], first["first_timestamp"]) == (str(work), "main", "T1")
    assert first["transcript_path"].endswith(ID1 + ".jsonl")
    assert first["mtime"] == 2000 and first["modified"] == "1970-01-01T00:33:20.000Z"
    assert rows[0]["title"] == "Named \x1b[31mred\x1b[0m" and rows[0]["title_source"] == "custom-title"


def test_sessions_of_one_project(run_pyz, store):
    tmp, work, projects = store
    result = run_pyz(["sessions", "--projects-dir", projects, "--project", work, "--json"])
    assert result.returncode == 0
    assert [json.loads(ln)["session_id"] for ln in result.stdout.splitlines()] == [ID2, ID1]
    result = run_pyz(["sessions", "--projects-dir", projects, "--project", "."], cwd=work)
    assert [ln.split()[0] for ln in out(result)[0].splitlines()[1:]] == [ID2, ID1]


def test_store_from_claude_config_dir(run_pyz, store):
    tmp, _, _ = store
    result = run_pyz(["sessions", "--json"], env={"CLAUDE_CONFIG_DIR": str(tmp / "config")})
    assert result.returncode == 0
    assert len(result.stdout.splitlines()) == 3


def test_empty_store(run_pyz, tmp_path):
    result = run_pyz(["sessions", "--projects-dir", tmp_path / "nothing"])
    stdout, stderr = out(result)
    assert (result.returncode, stdout) == (1, "")  # a store named but missing: exit 1, as every command says it
    assert stderr == "termsprawl-context: projects directory not found: %s\n" % (tmp_path / "nothing")
    # HOME is an empty read-only dir: the default store is missing, not an error
    result = run_pyz(["sessions"])
    assert (result.returncode, result.stdout) == (0, b"")


def test_find(run_pyz, store):
    _, _, projects = store
    for partial in (ID1, ID1[:8], "1111"):
        result = run_pyz(["find", partial, "--projects-dir", projects])
        stdout, stderr = out(result)
        assert (result.returncode, stderr) == (0, "")
        assert stdout == "%s\t%s\n" % (ID1, projects / encode_project_dir(str(store[1].resolve())) / (ID1 + ".jsonl"))
    result = run_pyz(["find", "2222", "--projects-dir", projects])
    assert (result.returncode, result.stdout) == (1, b"")
    # The issue-15 rule: the refusal, then each candidate file (the seed printed the refusal alone); the
    # refusal names the ids, as every command's does (issue 23: one ambiguity refusal).
    mine = projects / encode_project_dir(str(store[1].resolve()))
    assert out(result)[1] == (
        "termsprawl-context: ambiguous session ID '2222' matches 2 sessions: %s, %s\n" % (ID2, ID3)
        + "termsprawl-context:   %s\t%s\n" % (ID2, mine / (ID2 + ".jsonl"))
        + "termsprawl-context:   %s\t%s\n" % (ID3, projects / "-elsewhere" / (ID3 + ".jsonl"))
    )
    result = run_pyz(["find", "zzz", "--projects-dir", projects])
    assert (result.returncode, result.stdout) == (1, b"")
    assert out(result)[1] == "termsprawl-context: session not found: zzz\n"


def test_find_json(run_pyz, store):
    _, _, projects = store
    result = run_pyz(["find", "22223", "--json", "--projects-dir", projects])
    assert result.returncode == 0
    row = json.loads(result.stdout)
    assert set(row) == FIELDS
    assert row["session_id"] == ID3 and row["project_path"] == "-elsewhere"


@pytest.mark.parametrize(
    "args",
    [["sessions", "--bogus"], ["sessions", "extra"], ["find"], ["find", "a", "b"], ["sessions", "--projects-dir"]],
)
def test_usage_errors(run_pyz, args):
    result = run_pyz(args)
    stdout, stderr = out(result)
    assert (result.returncode, stdout) == (2, "")
    assert stderr.startswith("termsprawl-context: ") and stderr.count("\n") == 1


@pytest.mark.parametrize("command", ["sessions", "find"])
def test_help(run_pyz, command):
    result = run_pyz([command, "--help"])
    assert result.returncode == 0
    assert b"--projects-dir" in result.stdout and b"--json" in result.stdout


def test_fifo_in_the_store_does_not_hang(run_pyz, store):
    _, _, projects = store
    fifo_id = "33333333-aaaa-bbbb-cccc-000000000003"
    os.mkfifo(str(projects / "-elsewhere" / (fifo_id + ".jsonl")))
    result = run_pyz(["sessions", "--projects-dir", projects, "--json"], timeout=30)
    assert result.returncode == 0
    assert fifo_id not in result.stdout.decode()
    assert len(result.stdout.splitlines()) == 3
    result = run_pyz(["find", "3333", "--projects-dir", projects], timeout=30)
    assert result.returncode == 1
    assert out(result)[1] == "termsprawl-context: session not found: 3333\n"


def test_unreadable_directory_reported_once(store, monkeypatch, capsys):
    """Root cannot be denied a listing by chmod, so the listing itself is made to fail."""
    _, _, projects = store
    blocked = str(projects / "-elsewhere")
    real = C.list_directory

    def listing(path, *ordered):
        if path == blocked:
            raise PermissionError(13, "Permission denied", path)
        return real(path, *ordered)

    monkeypatch.setattr(C, "list_directory", listing)
    code = cli.main(["sessions", "--projects-dir", str(projects), "--json"])
    captured = capsys.readouterr()
    assert code == 0
    assert [json.loads(ln)["session_id"] for ln in captured.out.splitlines()] == [ID2, ID1]
    assert captured.err.count(blocked) == 1
    assert "Could not access 1 path(s) during scan:" in captured.err
    code = cli.main(["find", "zzz", "--projects-dir", str(projects)])
    captured = capsys.readouterr()
    assert code == 1
    assert captured.err.count(blocked) == 1
    assert captured.err.endswith("termsprawl-context: session not found: zzz\n")


def test_odd_text_is_printed_as_valid_utf8(run_pyz, tmp_path):
    projects = tmp_path / "projects"
    path = projects / "p" / (ID1 + ".jsonl")
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"type":"user","message":{"content":"lone \\ud83d surrogate and bad \xff byte"}}\n')
    for args in (["sessions"], ["sessions", "--json"], ["find", ID1[:4], "--json"]):
        result = run_pyz(args + ["--projects-dir", projects])
        assert result.returncode == 0
        text = result.stdout.decode("utf-8")  # strict: raises on anything invalid
        assert "surrogate and bad" in text


def test_relative_projects_dir_prints_absolute_paths(run_pyz, store):
    tmp, work, projects = store
    result = run_pyz(["find", ID1[:8], "--projects-dir", "config/projects"], cwd=tmp)
    assert result.returncode == 0
    session_id, path = out(result)[0].rstrip("\n").split("\t")
    assert session_id == ID1
    assert os.path.isabs(path) and os.path.samefile(
        path, str(projects / encode_project_dir(str(work.resolve())) / (ID1 + ".jsonl"))
    )


def test_listing_writes_nothing(run_pyz, store, empty_home):
    """The store is only ever read, and nothing lands in HOME."""
    tmp, _, projects = store
    before = snapshot(projects, empty_home)
    for args in (["sessions"], ["sessions", "--json"], ["find", "1111"], ["find", "zzz"]):
        run_pyz(args + ["--projects-dir", projects])
        run_pyz(args, env={"CLAUDE_CONFIG_DIR": str(tmp / "config")})
    assert snapshot(projects, empty_home) == before
