"""Issue 32: `doctor` names a node's newer, unrecorded session with the likely cause, and a
peer whose session has started but has no transcript yet is "no turns yet"."""

import json
import os
import time

from termsprawl_context.harness.claude.facts import encode_project_dir

THREAD_OLD = "0199a000-0000-7000-8000-000000000001"
THREAD_NEW = "0199a000-0000-7000-8000-000000000002"


def _claude_line(cwd, session, text):
    return json.dumps(
        {
            "type": "user",
            "cwd": cwd,
            "sessionId": session,
            "uuid": session + "-u",
            "timestamp": "2026-01-01T00:00:00.000Z",
            "message": {"role": "user", "content": text},
        }
    )


def _world(tmp_path, run_pyz):
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    (home / ".claude").mkdir(parents=True)
    assert run_pyz(["init", "--cwd", project, "--no-codex", "--no-gemini"], env={"HOME": str(home)}).returncode == 0
    return home, os.path.realpath(str(project))


def _aged(path, seconds_ago):
    at = time.time() - seconds_ago
    os.utime(str(path), (at, at))


def test_doctor_names_a_newer_claude_session_started_below_the_root(tmp_path, run_pyz):
    home, project = _world(tmp_path, run_pyz)
    store = home / ".claude" / "projects"
    own, sub = store / encode_project_dir(project), store / encode_project_dir(os.path.join(project, "src"))
    own.mkdir(parents=True)
    sub.mkdir(parents=True)
    old = own / "aaaaaaaa-0000-4000-8000-000000000001.jsonl"
    old.write_text(_claude_line(project, "aaaaaaaa-0000-4000-8000-000000000001", "first") + "\n")
    _aged(old, 3600)
    new = sub / "bbbbbbbb-0000-4000-8000-000000000002.jsonl"
    new.write_text(_claude_line(os.path.join(project, "src"), "bbbbbbbb-0000-4000-8000-000000000002", "x") + "\n")
    env = {"HOME": str(home)}
    assert run_pyz(["index", "set", "bob", str(old), "--cwd", project], env=env).returncode == 0
    assert run_pyz(["links", "add", "alice", "bob", "--cwd", project], env=env).returncode == 0
    done = run_pyz(["doctor", "--self", "alice", "--cwd", project], env=env)
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    note = [line for line in out.splitlines() if line.startswith("note: node bob:")]
    assert len(note) == 1, out
    assert str(new) in note[0] and "Claude Code" in note[0]
    assert "below the project root" in note[0] and "`TERMSPRAWL_NODE_ID=bob claude`" in note[0]
    # Recorded for a node (here alice), it is nobody's missing session.
    assert run_pyz(["index", "set", "alice", str(new), "--cwd", project], env=env).returncode == 0
    again = run_pyz(["doctor", "--self", "alice", "--cwd", project], env=env).stdout.decode()
    assert "note: node bob:" not in again


def test_doctor_names_a_newer_codex_session_at_the_root(tmp_path, run_pyz):
    home, project = _world(tmp_path, run_pyz)
    day = home / ".codex" / "sessions" / "2026" / "01" / "01"
    day.mkdir(parents=True)
    paths = []
    for thread in (THREAD_OLD, THREAD_NEW):
        path = day / ("rollout-2026-01-01T00-00-00-%s.jsonl" % thread)
        meta = {"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": thread, "cwd": project}}
        path.write_text(json.dumps(meta) + "\n")
        paths.append(path)
    _aged(paths[0], 3600)
    env = {"HOME": str(home)}
    assert run_pyz(["index", "set", "carol", str(paths[0]), "--cwd", project], env=env).returncode == 0
    assert run_pyz(["links", "add", "alice", "carol", "--cwd", project], env=env).returncode == 0
    out = run_pyz(["doctor", "--self", "alice", "--cwd", project], env=env).stdout.decode()
    note = [line for line in out.splitlines() if line.startswith("note: node carol:")]
    assert len(note) == 1 and str(paths[1]) in note[0], out
    assert "not trusted" in note[0] and "`TERMSPRAWL_NODE_ID=carol codex`" in note[0]


def test_doctor_says_a_started_peer_has_no_turns_yet(tmp_path, run_pyz):
    home, project = _world(tmp_path, run_pyz)
    folder = home / ".claude" / "projects" / encode_project_dir(project)
    folder.mkdir(parents=True)
    session = "cccccccc-0000-4000-8000-000000000003"
    payload = {
        "session_id": session,
        "transcript_path": str(folder / (session + ".jsonl")),
        "cwd": project,
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    env = {"HOME": str(home), "TERMSPRAWL_NODE_ID": "bob"}
    hook = run_pyz(["hook", "--cwd", project], stdin=json.dumps(payload).encode(), env=env)
    assert hook.returncode == 0 and b"systemMessage" not in hook.stdout, hook.stdout
    assert run_pyz(["links", "add", "alice", "bob", "--cwd", project], env=env).returncode == 0
    out = run_pyz(["doctor", "--self", "alice", "--cwd", project], env=env).stdout.decode()
    assert "no turns yet" in out and "does not exist" not in out.replace("file: does not exist", "")


def test_doctor_warns_of_the_import_prompt_below_the_root(tmp_path, run_pyz):
    """Claude Code 2.1.328 asks "Allow external CLAUDE.md file imports?" in a subdirectory
    (seen in its TUI); once a session of the project ran there, doctor says so for a project
    whose CLAUDE.md imports the block (as init wrote it before it wrote .claude/rules/)."""
    home, project = _world(tmp_path, run_pyz)
    env = {"HOME": str(home)}
    sub = home / ".claude" / "projects" / encode_project_dir(os.path.join(project, "src"))
    sub.mkdir(parents=True)
    session = "dddddddd-0000-4000-8000-000000000004"
    (sub / (session + ".jsonl")).write_text(_claude_line(os.path.join(project, "src"), session, "hi") + "\n")
    quiet = run_pyz(["doctor", "--self", "alice", "--cwd", project], env=env).stdout.decode()
    assert "Allow external CLAUDE.md file imports?" not in quiet  # init's rules file asks nothing
    with open(os.path.join(project, "CLAUDE.md"), "w") as older:
        older.write("@.termsprawl/AGENTS.md\n")
    out = run_pyz(["doctor", "--self", "alice", "--cwd", project], env=env).stdout.decode()
    note = [line for line in out.splitlines() if "Allow external CLAUDE.md file imports?" in line]
    assert len(note) == 1 and os.path.join(project, "src") in note[0] and "project root" in note[0]


def test_doctor_names_a_newer_gemini_session_at_the_root(tmp_path, run_pyz):
    """The third CLI of the bar: a Gemini chat of the project newer than dave's recorded
    one, recorded for no node, is named with the folder-trust cause."""
    home, project = _world(tmp_path, run_pyz)
    store = home / ".gemini" / "tmp" / "project"
    (store / "chats").mkdir(parents=True)
    (store / ".project_root").write_text(project)
    paths = []
    for n, session in enumerate(("gem-old", "gem-new")):
        path = store / "chats" / ("session-2026-01-01T00-0%d-%s.jsonl" % (n, session))
        header = {"sessionId": session, "projectHash": "p", "startTime": "2026-01-01T00:00:00Z", "kind": "main"}
        path.write_text(json.dumps(header) + "\n")
        paths.append(path)
    _aged(paths[0], 3600)
    env = {"HOME": str(home)}
    assert run_pyz(["index", "set", "dave", str(paths[0]), "--cwd", project], env=env).returncode == 0
    assert run_pyz(["links", "add", "alice", "dave", "--cwd", project], env=env).returncode == 0
    out = run_pyz(["doctor", "--self", "alice", "--cwd", project], env=env).stdout.decode()
    note = [line for line in out.splitlines() if line.startswith("note: node dave:")]
    assert len(note) == 1 and str(paths[1]) in note[0], out
    assert "not trusted" in note[0] and "`TERMSPRAWL_NODE_ID=dave gemini`" in note[0]
