"""Issue 32 item 6: when a peer starts a new session, the hand-off fills its window from the
session the hook recorded before it, labelled as earlier."""

import json
import os

from termsprawl_context.harness.claude.facts import encode_project_dir

OLD = "aaaaaaaa-0000-4000-8000-00000000000a"
NEW = "bbbbbbbb-0000-4000-8000-00000000000b"


def _turn(session, n, role, text):
    message = {"role": role, "content": text if role == "user" else [{"type": "text", "text": text}]}
    return json.dumps(
        {
            "type": role,
            "sessionId": session,
            "uuid": "%s-%d" % (session, n),
            "timestamp": "2026-01-01T00:00:%02d.000Z" % n,
            "message": message,
        }
    )


def _start(run_pyz, home, project, folder, session):
    payload = {
        "session_id": session,
        "transcript_path": str(folder / (session + ".jsonl")),
        "cwd": project,
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    env = {"HOME": str(home), "TERMSPRAWL_NODE_ID": "bob"}
    done = run_pyz(["hook", "--cwd", project], stdin=json.dumps(payload).encode(), env=env)
    assert done.returncode == 0 and b"systemMessage" not in done.stdout, done.stdout


def test_new_session_is_filled_from_the_earlier_one(tmp_path, run_pyz):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    (home / ".claude").mkdir(parents=True)
    env = {"HOME": str(home)}
    assert run_pyz(["init", "--cwd", project, "--claude"], env=env).returncode == 0
    project = os.path.realpath(str(project))
    folder = home / ".claude" / "projects" / encode_project_dir(project)
    folder.mkdir(parents=True)
    _start(run_pyz, home, project, folder, OLD)
    lines = [_turn(OLD, 1, "user", "find the parser bug"), _turn(OLD, 2, "assistant", "it is in lexer.py line 40")]
    (folder / (OLD + ".jsonl")).write_text("\n".join(lines) + "\n")
    _start(run_pyz, home, project, folder, NEW)
    (folder / (NEW + ".jsonl")).write_text(_turn(NEW, 3, "user", "now write the test") + "\n")
    assert run_pyz(["links", "add", "alice", "bob", "--cwd", project], env=env).returncode == 0

    md = run_pyz(["--cwd", project, "--self", "alice", "--format", "markdown"], env=env)
    text = md.stdout.decode()
    assert md.returncode == 0 and "# linked context from bob, earlier session (bob)" in text, text
    assert text.index("lexer.py line 40") < text.index("# linked context from bob (bob)") < text.index("write the test")
    data = json.loads(run_pyz(["--cwd", project, "--self", "alice", "--format", "json"], env=env).stdout)
    assert [p.get("earlier", False) for p in data["peers"]] == [True, False]
    assert data["peers"][0]["transcript"].endswith(OLD + ".jsonl")
    # A window the current session fills alone needs no earlier session.
    one = json.loads(run_pyz(["--cwd", project, "--self", "alice", "--format", "json", "--turns", "1"], env=env).stdout)
    assert [p.get("earlier", False) for p in one["peers"]] == [False]
    # The bare dump (the seed's contract) is unchanged: the current session only.
    bare = run_pyz(["--cwd", project, "--self", "alice"], env=env).stdout.decode()
    assert "write the test" in bare and "lexer.py" not in bare


def test_a_session_holding_the_earlier_turns_is_not_filled_twice(tmp_path, run_pyz):
    """A fork or a resumed copy carries the earlier session's turns: the hand-off shows them once."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    (home / ".claude").mkdir(parents=True)
    env = {"HOME": str(home)}
    assert run_pyz(["init", "--cwd", project, "--claude"], env=env).returncode == 0
    project = os.path.realpath(str(project))
    folder = home / ".claude" / "projects" / encode_project_dir(project)
    folder.mkdir(parents=True)
    lines = [_turn(OLD, 1, "user", "find the parser bug"), _turn(OLD, 2, "assistant", "it is in lexer.py line 40")]
    _start(run_pyz, home, project, folder, OLD)
    (folder / (OLD + ".jsonl")).write_text("\n".join(lines) + "\n")
    _start(run_pyz, home, project, folder, NEW)
    copied = [line.replace(OLD, NEW) for line in lines] + [_turn(NEW, 3, "user", "now write the test")]
    (folder / (NEW + ".jsonl")).write_text("\n".join(copied) + "\n")
    assert run_pyz(["links", "add", "alice", "bob", "--cwd", project], env=env).returncode == 0
    data = json.loads(run_pyz(["--cwd", project, "--self", "alice", "--format", "json"], env=env).stdout)
    assert [p.get("earlier", False) for p in data["peers"]] == [False]
    assert [t["text"] for t in data["peers"][0]["turns"]][0] == "find the parser bug"
