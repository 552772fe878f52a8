"""The hook: records a session's transcript for $TERMSPRAWL_NODE_ID; always exit 0; stdout is
one JSON object in Claude Code's hook output shape (or nothing); a refusal is a systemMessage
with the fix plus one stderr line, and nothing is written then."""

import io
import json
import os

import pytest

from conftest import snapshot
from termsprawl_context import hooks
from termsprawl_context.cli import main
from termsprawl_context.store.hook_input import HOOK_INPUT_MAX_BYTES

SID = "0f3c2a41-1111-4222-8333-444455556666"


class World(object):
    """A project and a Claude config dir holding one session's record."""

    def __init__(self, tmp_path):
        self.project = tmp_path / "project"
        self.project.mkdir()
        self.config = tmp_path / "claude"
        self.projects = self.config / "projects"
        self.record = self.projects / "-project" / (SID + ".jsonl")
        self.record.parent.mkdir(parents=True)
        self.record.write_text(json.dumps({"type": "user", "sessionId": SID, "message": {"content": "hi"}}) + "\n")

    def payload(self, **changes):
        body = {
            "session_id": SID,
            "transcript_path": str(self.record),
            "cwd": str(self.project),
            "hook_event_name": "SessionStart",
            "source": "startup",
        }
        body.update(changes)
        return json.dumps({k: v for k, v in body.items() if v is not None}).encode()

    def env(self, **changes):
        env = {
            "CLAUDE_CONFIG_DIR": str(self.config),
            "CLAUDE_PROJECT_DIR": str(self.project),
            "TERMSPRAWL_NODE_ID": "alice",
        }
        env.update(changes)
        return env

    def index(self, node="alice"):
        path = self.project / ".termsprawl" / "transcripts" / (node + ".json")
        return json.loads(path.read_text()) if path.exists() else None


@pytest.fixture
def world(tmp_path):
    return World(tmp_path)


def hook_json(done):
    """stdout as Claude Code reads it: one JSON object, or nothing."""
    return json.loads(done.stdout.decode("ascii")) if done.stdout else {}


def title_only(node="alice"):
    return {"hookSpecificOutput": {"hookEventName": "SessionStart", "sessionTitle": node}}


def assert_refused(done, words):
    assert done.returncode == 0
    out = hook_json(done)
    assert list(out) == ["systemMessage"] and "Fix: " in out["systemMessage"], out
    assert done.stdout.endswith(b"}\n") and done.stdout.count(b"\n") == 1
    err = done.stderr.decode()
    assert err.startswith("termsprawl-context: hook: ") and err.endswith("\n") and err.count("\n") == 1, err
    assert words in err, err


def test_records_silently_and_plants_discovery(world, run_pyz):
    done = run_pyz(["hook"], env=world.env(), stdin=world.payload())
    assert (done.returncode, hook_json(done), done.stderr) == (0, title_only(), b"")
    assert world.index() == {"version": 1, "path": str(world.record)}
    assert (world.project / ".termsprawl" / "AGENTS.md").is_file()
    assert (world.project / ".claude" / "skills" / "termsprawl-context" / "SKILL.md").is_file()
    before = snapshot(world.project)
    again = run_pyz(["hook"], env=world.env(), stdin=world.payload(source="resume"))
    # Resumed, with no links: nothing to say (the session keeps its title).
    assert (again.returncode, again.stdout, again.stderr) == (0, b"", b"")
    assert snapshot(world.project) == before  # the same path (and holder) is not rewritten


REFUSALS = [
    ("unsafe node id", dict(env={"TERMSPRAWL_NODE_ID": "../x"}), "is not a safe node id"),
    ("node id with a space", dict(env={"TERMSPRAWL_NODE_ID": "bad id"}), "is not a safe node id"),
    ("node id missing", dict(env={"TERMSPRAWL_NODE_ID": None}), "TERMSPRAWL_NODE_ID is not set"),
    ("node id empty", dict(env={"TERMSPRAWL_NODE_ID": ""}), "TERMSPRAWL_NODE_ID is set but empty"),
    ("traversal", dict(payload={"transcript_path": "{projects}/../../../etc/passwd"}), "must not contain '..'"),
    ("relative path", dict(payload={"transcript_path": "projects/-project/x.jsonl"}), "must be an absolute path"),
    ("outside the store", dict(payload={"transcript_path": "/tmp/evil.jsonl"}), "must be under Claude projects"),
    ("invalid JSON", dict(stdin=b"not json"), "failed to parse hook input"),
    ("empty stdin", dict(stdin=b""), "failed to parse hook input"),
    (
        "over the size limit",
        dict(stdin=b"{" + b" " * HOOK_INPUT_MAX_BYTES + b"}"),
        "larger than %d bytes (1 MiB)" % HOOK_INPUT_MAX_BYTES,
    ),
    ("not an object", dict(stdin=b"[1]"), "failed to parse hook input"),
    ("no session id", dict(payload={"session_id": None}), "session_id is required"),
    ("no transcript path", dict(payload={"transcript_path": ""}), "transcript_path is required"),
    ("usage error", dict(args=["--bogus"]), "hook: unrecognized arguments: --bogus"),
    ("project missing", dict(args=["--cwd", "{project}/absent"]), "is not a directory"),
    ("no project at all", dict(env={"CLAUDE_PROJECT_DIR": None}, payload={"cwd": None}), "no project directory"),
]


@pytest.mark.parametrize("name, case, words", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_refusals_exit_0_and_write_nothing(world, run_pyz, name, case, words):
    names = {"projects": str(world.projects), "project": str(world.project)}
    payload = {k: (v.format(**names) if isinstance(v, str) else v) for k, v in case.get("payload", {}).items()}
    stdin = case.get("stdin", world.payload(**payload))
    args = [a.format(**names) for a in case.get("args", [])]
    before = snapshot(world.project)
    store_before = snapshot(world.config)
    done = run_pyz(["hook"] + args, env=world.env(**case.get("env", {})), stdin=stdin)
    assert_refused(done, words)
    assert snapshot(world.project) == before
    assert snapshot(world.config) == store_before


def test_unwritable_index_is_reported_not_raised(world, run_pyz):
    (world.project / ".termsprawl").write_text("a file where the folder goes")
    before = snapshot(world.project)
    done = run_pyz(["hook"], env=world.env(), stdin=world.payload())
    assert_refused(done, "could not write .termsprawl/transcripts/alice.json")
    assert snapshot(world.project) == before


def test_project_precedence(world, run_pyz, tmp_path):
    explicit, env_dir, payload_dir = (tmp_path / n for n in ("explicit", "env", "payload"))
    for d in (explicit, env_dir, payload_dir):
        d.mkdir()
    env = world.env(CLAUDE_PROJECT_DIR=str(env_dir))
    assert run_pyz(["hook", "--cwd", explicit], env=env, stdin=world.payload(cwd=str(payload_dir))).stderr == b""
    assert (explicit / ".termsprawl" / "transcripts" / "alice.json").is_file()
    assert not (env_dir / ".termsprawl").exists() and not (payload_dir / ".termsprawl").exists()
    assert run_pyz(["hook"], env=env, stdin=world.payload(cwd=str(payload_dir))).stderr == b""
    assert (env_dir / ".termsprawl" / "transcripts" / "alice.json").is_file()
    env = world.env(CLAUDE_PROJECT_DIR=None)
    assert run_pyz(["hook"], env=env, stdin=world.payload(cwd=str(payload_dir))).stderr == b""
    assert (payload_dir / ".termsprawl" / "transcripts" / "alice.json").is_file()


def test_projects_dir_option(world, run_pyz, tmp_path):
    other = tmp_path / "elsewhere" / "projects"
    record = other / "-p" / (SID + ".jsonl")
    record.parent.mkdir(parents=True)
    record.write_text("{}\n")
    env = world.env(CLAUDE_CONFIG_DIR=None)
    done = run_pyz(["hook", "--projects-dir", other], env=env, stdin=world.payload(transcript_path=str(record)))
    assert (done.returncode, hook_json(done), done.stderr) == (0, title_only(), b"")
    assert world.index()["path"] == str(record)


def test_resumed_session_records_where_the_record_really_is(world, run_pyz):
    """Resumed from another directory, Claude Code names a file under the new directory's
    project folder that does not exist; the record is still in the original folder."""
    reported = world.projects / "-somewhere-else" / (SID + ".jsonl")
    done = run_pyz(["hook"], env=world.env(), stdin=world.payload(transcript_path=str(reported), source="resume"))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")  # resumed, no links: nothing to say
    assert world.index()["path"] == str(world.record)


def test_fresh_session_records_the_reported_path(world, run_pyz):
    reported = world.projects / "-somewhere-else" / (SID + ".jsonl")
    done = run_pyz(["hook"], env=world.env(), stdin=world.payload(transcript_path=str(reported), source="startup"))
    assert (done.returncode, hook_json(done), done.stderr) == (0, title_only(), b"")
    assert world.index()["path"] == str(reported)


def test_tty_stdin_is_refused_without_waiting(world, run_pyz, pyz):
    import pty
    import subprocess
    import sys

    master, slave = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, str(pyz), "hook"],
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(os.environ, **world.env()),
            timeout=60,
        )
    finally:
        os.close(slave)
        os.close(master)
    assert_refused(done, "expects an agent CLI's SessionStart hook payload (JSON) on stdin")
    assert not (world.project / ".termsprawl").exists()


class _Stdin(object):
    def __init__(self, data):
        self.buffer = io.BytesIO(data)

    def isatty(self):
        return False


def test_internal_failure_still_exits_0(world, monkeypatch, capsys):
    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(hooks, "record_from_hook", boom)
    monkeypatch.setattr("sys.stdin", _Stdin(world.payload()))
    assert main(["hook"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == {"systemMessage": "termsprawl: hook internal error: RuntimeError: boom."}
    assert err == "termsprawl-context: hook: internal error: RuntimeError: boom\n"


def test_help_is_the_only_output(run_pyz):
    done = run_pyz(["hook", "--help"])
    assert done.returncode == 0 and b"always exits 0" in done.stdout.lower() and done.stderr == b""


# --- what the hook tells the model and the user --------------------------------------------


def link(world, a="alice", b="bob"):
    from termsprawl_context.workspace.links import add_link

    add_link(str(world.project), a, b)


def test_linked_node_gets_a_context_line_with_the_exact_command(world, run_pyz):
    link(world)
    link(world, "alice", "carol")
    done = run_pyz(["hook"], env=world.env(), stdin=world.payload(source="compact"))
    out = hook_json(done)
    assert list(out) == ["hookSpecificOutput"] and done.stderr == b""
    specific = out["hookSpecificOutput"]
    assert list(specific) == ["hookEventName", "additionalContext"]  # no title after a compaction
    project = str(world.project)
    # The hand-off, absolute, with no shell variable: the allow rule init writes matches it.
    command = "%s/.termsprawl/bin/termsprawl-context --format markdown --cwd %s --self alice" % (project, project)
    assert specific["additionalContext"] == (
        "termsprawl: you are agent node alice; linked agents: bob, carol. To read their recent conversation "
        "(only when it helps the task), run: " + command
    )
    assert len(specific["additionalContext"]) < 500


def test_context_line_quotes_a_project_path_with_spaces(tmp_path):
    project = str(tmp_path / "my shop")
    line = hooks.context_line(project, "alice", ["bob"])
    assert (
        "run: '%s/.termsprawl/bin/termsprawl-context' --format markdown --cwd '%s' --self alice" % (project, project)
    ) in line
    assert hooks.context_line(project, "alice", []) is None


def test_title_on_startup_and_clear_only(world, run_pyz):
    for source, titled in (("startup", True), ("clear", True), ("resume", False), ("compact", False)):
        done = run_pyz(["hook"], env=world.env(), stdin=world.payload(source=source))
        assert (hook_json(done) == title_only()) is titled, (source, done.stdout)


def test_started_in_a_subdirectory_records_into_the_project(world, run_pyz):
    (world.project / ".termsprawl").mkdir()
    sub = world.project / "src" / "lib"
    sub.mkdir(parents=True)
    done = run_pyz(["hook"], env=world.env(CLAUDE_PROJECT_DIR=str(sub)), stdin=world.payload(cwd=str(sub)))
    assert (done.returncode, hook_json(done), done.stderr) == (0, title_only(), b"")
    assert world.index() == {"version": 1, "path": str(world.record)}
    assert os.listdir(str(world.project / "src")) == ["lib"] and os.listdir(str(sub)) == []


def test_the_installed_command_records_into_its_own_project(world, run_pyz):
    assert run_pyz(["init"], cwd=world.project).returncode == 0
    import subprocess

    elsewhere = world.project.parent / "elsewhere"
    elsewhere.mkdir()
    done = subprocess.run(
        [str(world.project / ".termsprawl" / "bin" / "termsprawl-context"), "hook"],
        input=world.payload(cwd=str(elsewhere)),
        cwd=str(elsewhere),
        env=dict(world.env(CLAUDE_PROJECT_DIR=str(elsewhere)), PATH=os.environ["PATH"]),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, b""), done.stderr
    assert world.index() == {"version": 1, "path": str(world.record)}
    assert os.listdir(str(elsewhere)) == []


# --- a node held by two live sessions -------------------------------------------------------

OTHER_SID = "9e9e9e9e-1111-4222-8333-444455556666"


def record(world, sid, pid, alive, source="startup"):
    body = world.payload(session_id=sid, source=source, transcript_path=str(world.record.parent / (sid + ".jsonl")))
    return hooks.record_from_hook(io.BytesIO(body), world.env(), pid=pid, alive=alive, own="")


def test_second_live_terminal_with_the_same_id_is_told(world):
    (world.record.parent / (OTHER_SID + ".jsonl")).write_text("{}\n")
    first = record(world, SID, pid=1111, alive=lambda pid: True)
    assert first.displaced is None
    second = record(world, OTHER_SID, pid=2222, alive=lambda pid: pid == 1111)
    assert second.displaced == hooks.Holder(SID, str(world.record.parent / (SID + ".jsonl")), 1111, second.displaced.at)
    answer = hooks.session_start(lambda: second)
    message = answer.output["systemMessage"]
    assert message.startswith(
        "termsprawl: node alice was already held by another live Claude Code session "
        "(process 1111, transcript %s)" % second.displaced.path
    )
    assert "Fix: give each terminal its own TERMSPRAWL_NODE_ID" in message
    assert answer.warning == "node alice taken over from process 1111"
    current, displaced = hooks.read_holder(str(world.project), "alice")
    assert (current.session_id, current.pid, displaced.session_id, displaced.pid) == (OTHER_SID, 2222, SID, 1111)
    assert world.index()["path"].endswith(OTHER_SID + ".jsonl")  # the newest session holds the node


@pytest.mark.parametrize("case", ["same process (/clear)", "previous process ended", "same session resumed"])
def test_no_warning_when_it_is_the_same_terminal(world, case):
    (world.record.parent / (OTHER_SID + ".jsonl")).write_text("{}\n")
    record(world, SID, pid=1111, alive=lambda pid: True)
    if case == "same process (/clear)":
        again = record(world, OTHER_SID, pid=1111, alive=lambda pid: True, source="clear")
    elif case == "previous process ended":
        again = record(world, OTHER_SID, pid=2222, alive=lambda pid: pid == 2222)
    else:
        again = record(world, SID, pid=2222, alive=lambda pid: True, source="resume")
    assert again.displaced is None
    assert "systemMessage" not in hooks.session_start(lambda: again).output


def test_holder_junk_is_no_holder(world):
    holder = world.project / ".termsprawl" / "transcripts" / "alice.holder.json"
    holder.parent.mkdir(parents=True)
    for junk in ("not json", "[]", '{"version": 2}', '{"version": 1, "session_id": 5}'):
        holder.write_text(junk)
        assert hooks.read_holder(str(world.project), "alice") == (None, None)
        assert record(world, SID, pid=1111, alive=lambda pid: True).displaced is None


def test_process_alive():
    assert hooks.process_alive(os.getpid())
    assert not hooks.process_alive(0) and not hooks.process_alive(1) and not hooks.process_alive(2**40)


def test_agent_pid_skips_the_shell_a_hook_runs_in(tmp_path):
    """Run the way Claude Code runs a hook command: through `sh -c`, from a live parent."""
    import subprocess
    import sys

    if not os.path.isdir("/proc/self"):
        pytest.skip("no /proc")
    script = "import sys; sys.path.insert(0, %r); from termsprawl_context.hooks import agent_pid; print(agent_pid())"
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    command = "%s -c %s; true" % (sys.executable, __import__("shlex").quote(script % src))
    done = subprocess.run(["/bin/sh", "-c", command], stdout=subprocess.PIPE, timeout=60)
    assert int(done.stdout) == os.getpid()


def test_context_line_names_each_peer_once(tmp_path):
    line = hooks.context_line(str(tmp_path), "alice", ["bob", "carol", "bob"])
    assert "linked agents: bob, carol." in line
