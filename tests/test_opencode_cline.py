"""OpenCode's and Cline CLI's stores read through the built artifact: a database built with
OpenCode 1.18.33's tables (the rows' shapes as it wrote them), Cline CLI 3.0.65's files, and
what must never break a reader: no sqlite3 in this Python, a database that is not one, torn
or giant JSON, and a hook script of the person's own where init would write one."""

import json
import sqlite3

SID = "ses_1a2b3c4d5e6fAbCdEfGhIjKlMn"
CLINE_ID = "1796475259945_mzsps"


def opencode_db(home, project, synthetic=True):
    folder = home / ".local" / "share" / "opencode"
    folder.mkdir(parents=True)
    db = sqlite3.connect(str(folder / "opencode.db"))
    db.executescript(
        "CREATE TABLE session (id text PRIMARY KEY, project_id text, parent_id text, slug text, directory text,"
        " title text, version text, time_created integer, time_updated integer);"
        "CREATE TABLE message (id text PRIMARY KEY, session_id text, time_created integer, time_updated integer,"
        " data text);"
        "CREATE TABLE part (id text PRIMARY KEY, message_id text, session_id text, time_created integer,"
        " time_updated integer, data text);"
    )
    db.execute(
        "INSERT INTO session VALUES (?, 'global', NULL, 's', ?, 'T', '1.18.33', 1000, 2000)", (SID, str(project))
    )
    rows = [
        (
            "msg_1",
            {"role": "user", "time": {"created": 1000}},
            [{"type": "text", "text": "OC-TYPED one"}]
            + ([{"type": "text", "text": "Called the Read tool", "synthetic": True}] if synthetic else []),
        ),
        ("msg_2", {"role": "assistant", "time": {"created": 1100}}, [{"type": "text", "text": "OC-SAID one"}]),
    ]
    for message_id, data, parts in rows:
        db.execute(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
            (message_id, SID, data["time"]["created"], 0, json.dumps(data)),
        )
        for n, part in enumerate(parts):
            db.execute(
                "INSERT INTO part VALUES (?, ?, ?, 0, 0, ?)",
                ("prt_%s_%d" % (message_id, n), message_id, SID, json.dumps(part)),
            )
    db.commit()
    db.close()
    return folder / "opencode.db"


def test_opencode_sessions_and_show_keep_the_typed_words_only(run_pyz, tmp_path):
    home, project = tmp_path / "home", tmp_path / "p"
    opencode_db(home, project)
    done = run_pyz(["sessions", "--json", "--harness", "opencode"], env={"HOME": str(home)})
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout.decode().splitlines()[0])
    assert listed["session_id"] == SID and listed["first_user_message"] == "OC-TYPED one"
    shown = run_pyz(["show", SID, "--all", "--format", "json"], env={"HOME": str(home)})
    turns = [(t["role"], t["text"]) for t in json.loads(shown.stdout.decode())["turns"]]
    assert ("user", "OC-TYPED one") in turns and ("assistant", "OC-SAID one") in turns
    assert all("Called the Read tool" not in t for _r, t in turns)


def test_a_python_without_sqlite3_refuses_opencode_by_name_and_reads_the_rest(run_pyz, tmp_path):
    home, project = tmp_path / "home", tmp_path / "p"
    db = opencode_db(home, project)
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sqlite3.py").write_text("raise ImportError('no sqlite3 here')\n")
    env = {"HOME": str(home), "PYTHONPATH": str(hide)}
    done = run_pyz(["sessions", "--json"], env=env)
    assert done.returncode == 0 and b"Traceback" not in done.stderr
    shown = run_pyz(["show", "%s#%s" % (db, SID)], env=env)
    assert shown.returncode != 0 and b"Traceback" not in shown.stderr
    assert b"built without the sqlite3 module" in shown.stderr


def test_a_database_that_is_not_one_is_refused_by_name(run_pyz, tmp_path):
    folder = tmp_path / "home" / ".local" / "share" / "opencode"
    folder.mkdir(parents=True)
    (folder / "opencode.db").write_bytes(b"SQLite format 3\0" + b"\xff" * 5000)  # torn
    env = {"HOME": str(tmp_path / "home")}
    assert run_pyz(["sessions", "--json"], env=env).returncode == 0
    shown = run_pyz(["show", "%s#%s" % (folder / "opencode.db", SID)], env=env)
    assert shown.returncode != 0 and b"Traceback" not in shown.stderr and b"cannot read the database" in shown.stderr
    assert not (folder / "opencode.db-wal").exists()  # read-only: nothing created


def cline_session(home, text):
    folder = home / ".cline" / "data" / "sessions" / CLINE_ID
    folder.mkdir(parents=True)
    (folder / (CLINE_ID + ".json")).write_text(json.dumps({"session_id": CLINE_ID, "cwd": "/p"}))
    path = folder / (CLINE_ID + ".messages.json")
    path.write_text(text)
    return path


def test_cline_strips_the_user_input_wrapping_and_keeps_cli_text_out(run_pyz, tmp_path):
    home = tmp_path / "home"
    messages = [
        {"role": "user", "content": [{"type": "text", "text": '<user_input mode="act">CL-TYPED one</user_input>'}]},
        {"role": "user", "content": [{"type": "text", "text": "<environment_details>cwd</environment_details>"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "CL-SAID one"}]},
    ]
    cline_session(home, json.dumps({"sessionId": CLINE_ID, "messages": messages}))
    shown = run_pyz(["show", CLINE_ID, "--all", "--format", "json"], env={"HOME": str(home)})
    assert shown.returncode == 0, shown.stderr
    turns = [(t["role"], t["text"]) for t in json.loads(shown.stdout.decode())["turns"]]
    assert [t for r, t in turns if r == "user"] == ["CL-TYPED one"]
    assert ("assistant", "CL-SAID one") in turns


def test_cline_torn_and_giant_files_read_as_empty(run_pyz, tmp_path):
    home = tmp_path / "home"
    path = cline_session(home, '{"sessionId": "%s", "messages": [{"role": "user", "con' % CLINE_ID)
    env = {"HOME": str(home)}
    assert run_pyz(["sessions", "--json", "--harness", "cline"], env=env).returncode == 0
    shown = run_pyz(["show", str(path)], env=env)
    assert b"Traceback" not in shown.stderr
    with open(str(path), "wb") as f:
        f.write(b'{"messages": [' + b'{"role": "user", "content": "x"},' * (1 << 20) + b"{}]}")  # > 16 MiB
    shown = run_pyz(["show", str(path)], env=env)
    assert b"Traceback" not in shown.stderr


def test_init_refuses_a_hook_script_of_the_persons_own(run_pyz, pyz, tmp_path):
    project = tmp_path / "p"
    hooks = project / ".clinerules" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "TaskStart").write_text("#!/bin/sh\necho mine\n")
    done = run_pyz(["init", "--cwd", str(project), "--cline"], env={"HOME": str(tmp_path)})
    assert (hooks / "TaskStart").read_text() == "#!/bin/sh\necho mine\n"
    assert b"failed" in done.stdout and b"TaskStart" in done.stdout
    assert (hooks / "TaskResume").stat().st_mode & 0o777 == 0o755


def test_opencode_sub_agents_are_its_child_sessions_and_cline_refuses_by_name(run_pyz, tmp_path):
    home, project = tmp_path / "home", tmp_path / "p"
    db = opencode_db(home, project)
    child = "ses_9z8y7x6w5v4uChildSessionAb"
    with sqlite3.connect(str(db)) as conn:
        conn.execute(
            "INSERT INTO session VALUES (?, 'global', ?, 's', ?, 'Inspect (@general subagent)', '1.18.33', 1500, 1600)",
            (child, SID, str(project)),
        )
    env = {"HOME": str(home)}
    done = run_pyz(["subagents", "%s#%s" % (db, SID)], env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().split() == ["%s#%s" % (db, child)]
    up = run_pyz(["parent", "%s#%s" % (db, child)], env=env)
    assert up.returncode == 0 and up.stdout.decode().split() == ["%s#%s" % (db, SID)], up.stderr
    cline = cline_session(home, json.dumps({"sessionId": CLINE_ID, "messages": []}))
    refused = run_pyz(["subagents", str(cline)], env=env)
    assert refused.returncode != 0 and b"Cline CLI records do not hold" in refused.stderr


def test_a_long_cline_session_is_read_to_its_last_prompt_message_by_message(run_pyz, tmp_path):
    # ~9 MB: over what one document may cost to parse at once, under the 16 MiB file bound.
    home = tmp_path / "home"
    messages = []
    for i in range(7000):
        text = '<user_input mode="act">CL-TYPED %d</user_input>' % i if i % 2 == 0 else "said %d %s" % (i, "x" * 1200)
        messages.append({"role": "user" if i % 2 == 0 else "assistant", "content": [{"type": "text", "text": text}]})
    cline_session(home, json.dumps({"sessionId": CLINE_ID, "messages": messages}))
    env = {"HOME": str(home)}
    listed = run_pyz(["sessions", "--json", "--harness", "cline"], env=env)
    assert json.loads(listed.stdout.decode())["first_user_message"] == "CL-TYPED 0"
    done = run_pyz(["--cwd", str(tmp_path), "--self", "x"], env=env)  # a dump with nothing linked: fail open
    assert done.returncode == 0
    shown = run_pyz(["show", CLINE_ID, "--format", "json"], env=env)
    turns = [(t["role"], t["text"]) for t in json.loads(shown.stdout.decode())["turns"]]
    assert ("user", "CL-TYPED 6998") in turns


def test_a_locked_database_is_refused_by_name(run_pyz, tmp_path):
    home, project = tmp_path / "home", tmp_path / "p"
    db = opencode_db(home, project)
    holder = sqlite3.connect(str(db), isolation_level=None)
    holder.execute("PRAGMA journal_mode=DELETE")
    holder.execute("BEGIN EXCLUSIVE")  # a writer mid-transaction, in rollback-journal mode
    try:
        shown = run_pyz(["show", "%s#%s" % (db, SID)], env={"HOME": str(home)})
        listed = run_pyz(["sessions", "--json"], env={"HOME": str(home)})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert shown.returncode != 0 and b"Traceback" not in shown.stderr
    assert b"cannot read the database" in shown.stderr and b"locked" in shown.stderr
    assert listed.returncode == 0  # a listing fails open
