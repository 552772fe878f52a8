"""Codex CLI peers read as Claude Code's are (issue 29): text the CLI wrote is never the
person's, reading is bounded, fork chains cannot loop, identity answers from Codex's own
records; on real 0.169 rollouts (tests/fixtures/codex) and shapes made from Codex's source."""

import json

from test_codex import ABORTED, CX

from termsprawl_context import model
from termsprawl_context.transcript import entry as records, speakers, tool_blocks
from test_harness_readers import codex_entry, project

# codex-rs/core/src/context/user_shell_command.rs and skill_instructions.rs render these
# (START, body, "\n", END) as one user-role input_text message.
SHELL_BLOCK = (
    "<user_shell_command>\n<command>\ncat secrets.txt\n</command>\n<result>\nExit code: 0\n"
    "Duration: 0.0100 seconds\nOutput:\nSHELL-OUTPUT-LINE\n</result>\n\n</user_shell_command>"
)
SKILL_BLOCK = "<skill>\n<name>deploy</name>\n<path>/p/.codex/skills/deploy/SKILL.md</path>\nSKILL-BODY-LINE\n\n</skill>"


def _user_message(text, template):
    line = json.loads(template)
    line["payload"]["content"] = [{"type": "input_text", "text": text}]
    line["payload"].pop("id", None)
    return json.dumps(line) + "\n"


def older_rollout(tmp_path, *texts):
    """The real 0.169 rollout as an earlier release wrote it (no block kinds), with a
    user-role message for each of ``texts`` after the first prompt."""
    out = []
    for line in ABORTED.read_text().splitlines(True):
        record = json.loads(line)
        record.get("payload", {}).pop("internal_chat_message_metadata_passthrough", None)
        out.append(json.dumps(record) + "\n")
        if '"first prompt"' in line and record["type"] == "response_item":
            out.extend(_user_message(t, out[-1]) for t in texts)
    path = tmp_path / ABORTED.name
    path.write_text("".join(out))
    return path


def test_a_shell_command_and_a_skill_body_are_never_the_person_s(tmp_path, run_pyz):
    path = older_rollout(tmp_path, SHELL_BLOCK, SKILL_BLOCK)
    proj = project(tmp_path, {"cx": codex_entry(path)})
    people = ["first prompt", "please stall now", "after the abort"]
    dump = run_pyz(["--cwd", proj, "--self", "lead"]).stdout.decode()
    handoff = json.loads(run_pyz(["--cwd", proj, "--self", "lead", "--format", "json"]).stdout)
    shown = json.loads(run_pyz(["show", str(path), "--format", "json"], env={"HOME": str(tmp_path)}).stdout)
    for said in (dump, json.dumps(handoff), json.dumps(shown)):
        assert "SHELL-OUTPUT-LINE" not in said and "SKILL-BODY-LINE" not in said and "cat secrets" not in said
    assert [t["text"] for t in handoff["peers"][0]["turns"] if t["role"] == "user"] == people
    assert [t["text"] for t in shown["turns"] if t["role"] == "user"] == people
    assert dump.count("## user\n") == 3


def test_a_fragment_is_known_by_its_start_and_its_end_as_codex_knows_it():
    from termsprawl_context.harness import codex

    assert codex.context_kind("  <USER_SHELL_COMMAND>\nx\n</user_shell_command>\n") == "context"
    assert codex.context_kind("<skill> is the tag I mean, not a skill body") == ""
    assert codex.context_kind(SKILL_BLOCK, "user.text") == ""  # 0.169's kind decides where it names one


def _with_shell_call(tmp_path, output):
    """The real rollout with an exec_command call and its output (0.169's shape) added."""
    call = {"type": "function_call", "name": "exec_command", "arguments": '{"cmd":"ls"}', "call_id": "c1"}
    result = {"type": "function_call_output", "call_id": "c1", "output": output}
    lines = [
        json.dumps({"timestamp": "2026-12-02T00:33:46Z", "type": "response_item", "payload": p}) for p in (call, result)
    ]
    path = tmp_path / ABORTED.name
    path.write_text(ABORTED.read_text() + "\n".join(lines) + "\n")
    return path


def test_show_all_summarises_a_result_by_the_output_not_the_cli_s_wrapper(tmp_path, run_pyz):
    from test_gemini import FIXTURES as GEMINI_FIXTURES

    header = "Chunk ID: 9f1c2a\nWall time: 0.0010 seconds\nProcess exited with code 0\nOriginal token count: 6\n"
    codex = _with_shell_call(tmp_path, header + "Output:\nREADME.md\nsrc\n")
    gemini = sorted(GEMINI_FIXTURES.glob("session-*.jsonl"))[0]  # the real 0.61 chat: one shell call
    for path, first in ((codex, "README.md (3 lines)"), (gemini, "hello-from-shell")):
        shown = json.loads(
            run_pyz(["show", str(path), "--all", "--format", "json"], env={"HOME": str(tmp_path)}).stdout
        )
        assert [t["text"] for t in shown["turns"] if t["role"] == "tool_result"] == [first]
    (result,) = [r for e in CX.entries(str(codex)) for r in tool_blocks.tool_results(e)]
    assert result.content.startswith("Chunk ID: 9f1c2a")  # the result itself is kept as the CLI wrote it


def _two_stores(tmp_path, session_id, when):
    """A Claude Code store holding one session ``session_id`` last written at ``when``,
    beside the Codex fixtures' store."""
    from test_codex import FIXTURES

    folder = tmp_path / ".claude" / "projects" / "-proj"
    folder.mkdir(parents=True)
    record = {"type": "user", "uuid": "u1", "sessionId": session_id, "timestamp": "2020-01-01T00:00:00Z"}
    record["message"] = {"role": "user", "content": "the old claude question"}
    path = folder / (session_id + ".jsonl")
    path.write_text(json.dumps(record) + "\n")
    import os

    os.utime(str(path), (when, when))
    return {"HOME": str(tmp_path), "CODEX_HOME": str(FIXTURES)}, path


def test_a_prefix_of_ids_in_two_stores_is_ambiguous(tmp_path, run_pyz):
    env, path = _two_stores(tmp_path, "01a233eb-aec0-4000-8000-000000000000", 2e9)
    for command in (["find", "01a233eb-aec"], ["show", "01a233eb-aec"]):
        done = run_pyz(command, env=env)
        assert done.returncode == 1 and done.stdout == b""
        assert b"ambiguous session ID '01a233eb-aec' matches 2 sessions" in done.stderr
    # A prefix of one store's id alone still answers it, and a full id is exact.
    assert run_pyz(["find", "01a233eb-aec0"], env=env).stdout.decode().split("\t")[1] == str(path) + "\n"


def test_latest_is_the_newest_session_of_every_store(tmp_path, run_pyz):
    env, _ = _two_stores(tmp_path, "5e55e55e-0000-4000-8000-000000000000", 1e9)  # 2001: older than every rollout
    shown = run_pyz(["show", "latest", "--format", "json"], env=env)
    assert shown.returncode == 0, shown.stderr
    assert "the old claude question" not in shown.stdout.decode()
    assert json.loads(run_pyz(["find", "latest", "--json"], env=env).stdout)["harness"] == "codex-cli"


def test_root_and_belongs_answer_from_the_cli_s_own_records(tmp_path, run_pyz):
    from test_codex import CHILD, FIXTURES, SPAWNER

    env = {"HOME": str(tmp_path), "CODEX_HOME": str(FIXTURES)}
    root = json.loads(run_pyz(["root", "--json", str(CHILD)], env=env).stdout)
    assert (root["root"], root["is_subagent"]) == (str(SPAWNER), True)
    assert json.loads(run_pyz(["root", "--json", str(SPAWNER)], env=env).stdout)["is_subagent"] is False
    assert run_pyz(["parent", str(CHILD)], env=env).stdout.decode() == str(SPAWNER) + "\n"
    assert run_pyz(["parent", str(SPAWNER)], env=env).returncode == 1  # a main thread has no parent
    own, parent = "01a233ef-7c37-78d1-bef6-95de3480e947", "01a233ef-7ba9-7282-8c7e-283fead20bc5"
    for session in (own, parent):  # its thread, and the session its hook payload names
        assert run_pyz(["belongs", "--session", session, str(CHILD)], env=env).returncode == 0
    other = run_pyz(["belongs", "--session", "01a233eb-aec3-7ca3-ad52-6d382ed8cbfe", str(CHILD)], env=env)
    assert other.returncode == 5 and b"belongs to " + own.encode() in other.stderr
    assert run_pyz(["belongs", "--tree", "/tmp/cx3e68upbqs/proj/sub", str(CHILD)], env=env).returncode == 5
    assert run_pyz(["belongs", "--tree", "/tmp/cx3e68upbqs", str(CHILD)], env=env).returncode == 0
    # A rollout whose first line is not its session_meta says nothing: refused by name.
    home = tmp_path / "codex-home"
    bare = home / "sessions" / "2026" / "12" / "01" / CHILD.name
    bare.parent.mkdir(parents=True)
    bare.write_text("".join(CHILD.read_text().splitlines(True)[1:]))
    for command in (
        ["root", str(bare)],
        ["belongs", "--session", own, str(bare)],
        ["belongs", "--tree", "/", str(bare)],
    ):
        done = run_pyz(command, env={"HOME": str(tmp_path), "CODEX_HOME": str(home)})
        assert done.returncode == 1 and b"Codex CLI records do not hold" in done.stderr, command


def test_a_gemini_sub_agent_s_root_and_tree(tmp_path, run_pyz):
    from test_gemini import FIXTURES as GEMINI_FIXTURES

    main = GEMINI_FIXTURES / "session-2026-12-01T23-26-8f455c26.jsonl"
    project = tmp_path / ".gemini" / "tmp" / "proj"
    chats = project / "chats"
    (chats / "8f455c26-deef-46f3-bb75-17621b3a9608").mkdir(parents=True)
    (chats / main.name).write_text(main.read_text())
    child = chats / "8f455c26-deef-46f3-bb75-17621b3a9608" / "child-1.jsonl"
    child.write_text(
        json.dumps({"sessionId": "child-1", "projectHash": "x", "startTime": "t", "kind": "subagent"}) + "\n"
    )
    (project / ".project_root").write_text("/work/the-project\n")
    env = {"HOME": str(tmp_path)}
    root = json.loads(run_pyz(["root", "--json", str(child)], env=env).stdout)
    assert (root["root"], root["is_subagent"]) == (str(chats / main.name), True)
    assert run_pyz(["belongs", "--tree", "/work/the-project", str(child)], env=env).returncode == 0
    assert run_pyz(["belongs", "--tree", "/work/other", str(child)], env=env).returncode == 5
    assert run_pyz(["belongs", "--session", "child-1", str(child)], env=env).returncode == 0
    assert run_pyz(["belongs", "--session", "someone-else", str(chats / main.name)], env=env).returncode == 5


def _store_with(tmp_path, edits):
    """A copy of the fork fixtures' sessions day, each file's session_meta payload changed
    by ``edits[name](payload)``."""
    from test_codex import FORK, PARENT

    day = tmp_path / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    for source in (PARENT, FORK):
        lines = source.read_text().splitlines(True)
        meta = json.loads(lines[0])
        edits.get(source.name, lambda p: None)(meta["payload"])
        (day / source.name).write_text(json.dumps(meta) + "\n" + "".join(lines[1:]))
    return day / PARENT.name, day / FORK.name


def _people(entries):
    return [t for e in entries if records.speaker(e) == model.PERSON for t in speakers.typed_texts(e)]


def test_two_rollouts_naming_each_other_as_fork_parents_are_a_loop(tmp_path, run_pyz):
    from test_codex import FORK

    fork_id = FORK.name[-len("01a233eb-b2fb-7891-9b52-0f1dd18f15f7.jsonl") : -len(".jsonl")]

    def names_the_fork(payload):
        payload["history_base"] = {"thread_id": fork_id, "end_byte_offset": 5000}

    parent, fork = _store_with(
        tmp_path, {"rollout-2026-12-01T23-23-33-01a233eb-aec3-7ca3-ad52-6d382ed8cbfe.jsonl": names_the_fork}
    )
    for path, own in ((fork, ["fork prompt"]), (parent, ["first prompt", "second prompt"])):
        assert _people(CX.entries(str(path))) == own  # the loop is caught: only the rollout's own lines
        assert _people(CX.entries_reverse(str(path)))[::-1] == own
    proj = project(tmp_path, {"cx": codex_entry(fork)})
    dump = run_pyz(["--cwd", proj, "--self", "lead"]).stdout.decode()
    assert dump.count("## user\n") == 1 and dump.count("## assistant\n") == 1


def test_a_fork_point_past_the_parent_s_end_reads_the_same_both_ways(tmp_path):
    from test_codex import PARENT

    def past_the_end(payload):
        payload["history_base"]["end_byte_offset"] = PARENT.stat().st_size + 4096

    _, fork = _store_with(
        tmp_path, {"rollout-2026-12-01T23-23-34-01a233eb-b2fb-7891-9b52-0f1dd18f15f7.jsonl": past_the_end}
    )
    forward = _people(CX.entries(str(fork)))
    assert forward == ["first prompt", "second prompt", "fork prompt"]
    assert _people(CX.entries_reverse(str(fork)))[::-1] == forward


# Counts the opens of files under a folder while the command runs, in a child process.
_COUNT_OPENS = """
import sys
sys.path.insert(0, sys.argv[1])
root, opened = sys.argv[2], [0]
def hook(event, args):
    if event == "open" and isinstance(args[0], str) and args[0].startswith(root) and args[0].endswith(".jsonl"):
        opened[0] += 1
sys.addaudithook(hook)
from termsprawl_context.cli import main
code = main(sys.argv[3:])
sys.stdout.flush()
sys.stderr.write("opens=%d\\n" % opened[0])
"""


def test_subagents_tree_reads_the_store_once(tmp_path):
    import subprocess
    import sys

    from conftest import SRC
    from test_codex import CHILD, SPAWNER

    day = tmp_path / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    parent_id = "01a233ef-7ba9-7282-8c7e-283fead20bc5"
    (day / SPAWNER.name).write_text(SPAWNER.read_text())
    lines = CHILD.read_text().splitlines(True)
    made = []
    for i in range(12):  # twelve sub-agents of the spawner, each a rollout of its own
        child_id = "01a233ef-7c37-78d1-bef6-%012d" % i
        meta = json.loads(lines[0])
        meta["payload"].update(id=child_id, parent_thread_id=parent_id)
        path = day / ("rollout-2026-12-01T23-27-42-%s.jsonl" % child_id)
        path.write_text(json.dumps(meta) + "\n" + "".join(lines[1:]))
        made.append(str(path))
    done = subprocess.run(
        [sys.executable, "-c", _COUNT_OPENS, str(SRC), str(tmp_path), "subagents", "--tree", str(day / SPAWNER.name)],
        env={"HOME": str(tmp_path), "CODEX_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
    )
    assert done.stdout.decode().splitlines() == sorted(made)
    opens = int(done.stderr.decode().split("opens=")[1])
    assert opens <= 2 * (len(made) + 1)  # a first line per rollout (and the spawner's), not one walk per sub-agent


_ENTRIES_PROBE = r"""
import os, sys
sys.path.insert(0, sys.argv[1])
from conftest_rss import peak_rss_mb
from termsprawl_context.cli import main
out = os.open(os.devnull, os.O_WRONLY)
os.dup2(out, 1)
code = main(sys.argv[2:])
sys.stderr.write("exit=%d peak=%d\n" % (code, peak_rss_mb()))
"""


def _big_rollout(tmp_path, megabytes):
    """The real rollout's first line, then turns of 0.169's shape (a prompt, a shell call,
    its output, an answer) up to ``megabytes``."""
    from test_codex import PARENT

    path = tmp_path / PARENT.name
    with open(str(path), "w") as f:
        f.write(PARENT.read_text().splitlines(True)[0])
        size, i = 0, 0
        while size < megabytes << 20:
            items = [
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "prompt %d" % i}]},
                {"type": "function_call", "name": "exec_command", "arguments": '{"cmd":"ls"}', "call_id": "c%d" % i},
                {"type": "function_call_output", "call_id": "c%d" % i, "output": "Output:\n" + "line\n" * 200},
                {
                    "type": "message",
                    "id": "m%d" % i,
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "a"}],
                },
            ]
            for item in items:
                line = (
                    json.dumps({"timestamp": "2026-12-01T23:23:33Z", "type": "response_item", "payload": item}) + "\n"
                )
                f.write(line)
                size += len(line)
            i += 1
    return path


def test_entries_of_a_big_rollout_stay_under_64_mb(tmp_path):
    import subprocess
    import sys

    from conftest import SRC
    from conftest_rss import rss_env

    path = _big_rollout(tmp_path, 24)
    for options in ([], ["--calls", "--json"], ["--since", "m5"]):
        done = subprocess.run(
            [sys.executable, "-c", _ENTRIES_PROBE, str(SRC), "entries"] + options + [str(path)],
            env=dict(rss_env(), HOME=str(tmp_path)),
            stderr=subprocess.PIPE,
            timeout=300,
        )
        verdict = done.stderr.decode().split()
        assert verdict[-2] == "exit=0" and int(verdict[-1].split("=")[1]) < 64, (options, verdict)


def test_entries_since_a_mark_and_call_outcomes_stream_as_before(tmp_path, run_pyz):
    path = _big_rollout(tmp_path, 1)
    since = run_pyz(["entries", "--since", "m3", str(path)], env={"HOME": str(tmp_path)}).stdout.decode().splitlines()
    assert since[0].split("\t")[3] == "person" and since[3].split("\t")[1] == "m4"  # the turn after the mark's
    unknown = run_pyz(["entries", "--since", "nope", str(path)], env={"HOME": str(tmp_path)}).stdout
    assert unknown == run_pyz(["entries", str(path)], env={"HOME": str(tmp_path)}).stdout  # no such mark: everything
    calls = run_pyz(["entries", "--ran", "--json", str(path)], env={"HOME": str(tmp_path)}).stdout.splitlines()
    assert calls and all(json.loads(c)["outcome"] == "ran" for c in calls)
