"""GitHub Copilot CLI 1.0.102 and pi 0.73.1 as providers (issue 30), on records the real
clients wrote (tests/fixtures/copilot-1.0.102, tests/fixtures/pi-0.73.1): the person's words
and nothing else as theirs, the same entries read forward and from the end, the logged
Copilot ``sessionStart`` payload recording a node a lead reads, and the files ``init`` owns."""

import json
import os
import shutil
from pathlib import Path

import pytest

from termsprawl_context.harness import get
from termsprawl_context.transcript.speakers import typed_texts
from termsprawl_context.workspace import init_steps
from termsprawl_context.workspace.harness_install import write_owned_files
from termsprawl_context.workspace.layout import INSTALLED_COMMAND

FIXTURES = Path(__file__).parent / "fixtures"
COPILOT_ID = "66928374-6e51-4abd-9b55-f07ffa8207af"
COPILOT = FIXTURES / "copilot-1.0.102" / COPILOT_ID / "events.jsonl"
(PI,) = sorted((FIXTURES / "pi-0.73.1").glob("*.jsonl"))


def typed(harness, path):
    return [t for e in get(harness).entries(str(path)) for t in typed_texts(e)]


def same_both_ways(harness, path):
    h = get(harness)
    forward = [(e.type, e.offset, e.content) for e in h.entries(str(path))]
    backward = [(e.type, e.offset, e.content) for e in h.entries_reverse(str(path))]
    return forward == list(reversed(backward)) and forward


def test_copilot_typed_prompts_are_the_person_s_and_nothing_else():
    assert typed("copilot-cli", COPILOT) == ["CP-PROMPT-1 hello", "CP-PROMPT-2 RUNSHELL", "CP-PROMPT-3 SPAWN"]
    entries = list(get("copilot-cli").entries(str(COPILOT)))
    hook = [e for e in entries if any("MARKER-HOOK-CTX" in str(b) for b in e.content)]
    assert len(hook) == 3 and all(e.is_meta for e in hook)
    (child,) = [e for e in entries if e.type == "user" and e.agent_id and "CHILD-TASK" in str(e.content)]
    assert child.is_sidechain and child.agent_id == "d1df797a-5dca-4fc6-b607-f22f820358aa"
    assert all(e.is_meta for e in entries if e.type == "system")
    assert same_both_ways("copilot-cli", COPILOT)


def test_pi_custom_messages_are_never_the_person_s():
    assert typed("pi", PI) == ["PI-PROMPT-1 hello", "PI-PROMPT-2 RUNSHELL"]
    assert same_both_ways("pi", PI)
    assert get("pi").stable_id(str(PI)) == "01a24637-4fcc-737d-aa1f-6ec62e75d401"


def test_the_owned_files_run_the_installed_command():
    # harness/ may not import workspace: each provider restates the path, held equal here.
    for name in ("copilot-cli", "pi"):
        ((relative, data, mode),) = get(name).owned_files("/p")
        assert INSTALLED_COMMAND.encode() in data and mode == 0o644


def test_the_logged_copilot_payload_records_a_node_a_lead_reads(tmp_path, run_pyz):
    home = tmp_path / "home"
    events = home / ".copilot" / "session-state" / COPILOT_ID / "events.jsonl"
    events.parent.mkdir(parents=True)
    shutil.copyfile(str(COPILOT), str(events))
    project = tmp_path / "proj"
    project.mkdir()
    logged = next(json.loads(x)["data"]["input"] for x in COPILOT.open() if '"type":"hook.start"' in x)
    payload = dict(logged, cwd=str(project))
    assert "transcript_path" not in payload
    env = {"HOME": str(home), "TERMSPRAWL_NODE_ID": "cp"}
    assert run_pyz(["init", "--cwd", str(project), "--copilot"], cwd=str(project), env=env).returncode == 0
    assert run_pyz(["links", "add", "cp", "lead", "--cwd", str(project)], cwd=str(project)).returncode == 0
    done = run_pyz(
        ["hook", "--harness", "copilot-cli", "--cwd", str(project)], env=env, stdin=json.dumps(payload).encode()
    )
    assert done.returncode == 0 and json.loads(done.stdout)["additionalContext"].startswith(
        "termsprawl: you are agent node cp; linked agents: lead."
    ), done.stderr
    entry = json.loads((project / ".termsprawl" / "transcripts" / "cp.json").read_text())
    assert entry == {"version": 1, "path": str(events), "harness": "copilot-cli"}
    dump = run_pyz(["--cwd", str(project), "--self", "lead"], cwd=str(project)).stdout.decode()
    assert "CP-PROMPT-3 SPAWN" in dump and "MARKER-HOOK-CTX" not in dump and "CHILD-TASK" not in dump
    bad = dict(payload, sessionId="../../etc")
    refused = run_pyz(
        ["hook", "--harness", "copilot-cli", "--cwd", str(project)], env=env, stdin=json.dumps(bad).encode()
    )
    assert refused.returncode == 0 and b"invalid session_id" in refused.stderr


def test_write_owned_files_rewrites_ours_and_refuses_the_rest(tmp_path):
    project = tmp_path / "p"
    (project / ".termsprawl").mkdir(parents=True)
    pi = get("pi")
    ((relative, data, _mode),) = pi.owned_files(str(project))
    target = project / relative
    target.parent.mkdir(parents=True)
    older = data.split(b"\n", 1)[0] + b"\n// an older release of ours\n"
    target.write_bytes(older)
    assert [s.outcome for s in write_owned_files(str(project), pi)] == [init_steps.WRITTEN]
    assert target.read_bytes() == data
    assert [s.outcome for s in write_owned_files(str(project), pi)] == [init_steps.UNCHANGED]
    target.unlink()
    (tmp_path / "elsewhere.ts").write_bytes(data)
    target.symlink_to(tmp_path / "elsewhere.ts")
    assert [s.outcome for s in write_owned_files(str(project), pi)] == [init_steps.FAILED]
    assert target.is_symlink()


def _big_store(home, harness, lines):
    """A ~25 MB record of ``lines`` short prompt/answer pairs, behind the real client's own
    first lines, where the harness keeps it; a project whose node ``peer`` is it."""
    if harness == "copilot-cli":
        path = home / ".copilot" / "session-state" / COPILOT_ID / "events.jsonl"
        head = COPILOT.read_bytes().split(b"\n", 1)[0]

        def pair(i):
            said = {"type": "user.message", "data": {"content": "prompt %d" % i}, "id": "u%d" % i}
            answer = {"type": "assistant.message", "data": {"content": "answer %d" % i}, "id": "a%d" % i}
            return json.dumps(said) + "\n" + json.dumps(answer) + "\n"

    else:
        path = home / ".pi" / "agent" / "sessions" / "--proj--" / PI.name
        head = PI.read_bytes().split(b"\n", 1)[0]

        def pair(i):
            said = {"type": "message", "id": "u%d" % i, "message": {"role": "user", "content": "prompt %d" % i}}
            answer = {"role": "assistant", "content": [{"type": "text", "text": "answer %d" % i}]}
            return json.dumps(said) + "\n" + json.dumps({"type": "message", "id": "a%d" % i, "message": answer}) + "\n"

    path.parent.mkdir(parents=True)
    with open(str(path), "w") as out:
        out.write(head.decode() + "\n")
        for i in range(lines):
            out.write(pair(i))
    return path


@pytest.mark.parametrize("harness", ["copilot-cli", "pi"])
def test_a_big_record_is_read_under_64_mb(tmp_path, harness):
    """The dump and `show` of a 25 MB record of 300,000 short lines stay under 64 MB; the
    dump's turns are the file's last ones (read from the end)."""
    import os
    import subprocess
    import sys

    from conftest import SRC
    from conftest_rss import HERE, rss_env
    from test_peer_tails import _RSS_PROBE

    home = tmp_path / "home"
    path = _big_store(home, harness, 150000)
    project = tmp_path / "proj"
    (project / ".termsprawl" / "transcripts").mkdir(parents=True)
    (project / ".termsprawl" / "links").mkdir()
    entry = {"version": 1, "path": str(path), "harness": harness}
    (project / ".termsprawl" / "transcripts" / "peer.json").write_text(json.dumps(entry))
    (project / ".termsprawl" / "links" / "lead--peer.json").write_text(
        json.dumps({"version": 1, "a": "lead", "b": "peer"})
    )
    env = dict(rss_env(), HOME=str(home))
    assert os.path.getsize(str(path)) > 10_000_000
    for args in (["--cwd", str(project), "--self", "lead"], ["show", str(path)]):
        probe = [sys.executable, "-c", _RSS_PROBE, HERE, str(SRC)] + args
        done = subprocess.run(probe, env=env, stdout=subprocess.PIPE, timeout=300)
        code, peak = done.stdout.split()
        assert code == b"0" and int(peak) < 64, (args, peak)
    dump = subprocess.run(
        [sys.executable, "-m", "termsprawl_context", "--cwd", str(project), "--self", "lead"],
        env=dict(env, PYTHONPATH=str(SRC)),
        stdout=subprocess.PIPE,
        timeout=300,
    ).stdout.decode()
    assert dump.rstrip().endswith("## user\nprompt 149999\n## assistant\nanswer 149999")


def test_copilot_notifications_reasoning_and_compaction_are_not_the_person_s(tmp_path):
    """Kinds read in the 1.0.102 bundle (not yet seen in a record): only the typed prompt
    and the answer are turns."""
    from termsprawl_context.transcript.turns import entries_turns

    lines = [
        {"type": "user.message", "data": {"content": "typed"}},
        {"type": "assistant.reasoning", "data": {"content": "thinking"}},
        {"type": "assistant.message", "data": {"content": "answered"}},
        {"type": "system.notification", "data": {"content": "a note to the model"}},
        {"type": "session.compaction_complete", "data": {"summaryContent": "the summary"}},
        {"type": "user.message", "data": {"content": "from a skill", "source": "skill-x"}},
    ]
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    entries = list(get("copilot-cli").entries(str(path)))
    assert [t for e in entries for t in typed_texts(e)] == ["typed"]
    assert [(t.role, t.text) for t in entries_turns(iter(entries))] == [("user", "typed"), ("assistant", "answered")]
    assert same_both_ways("copilot-cli", path)


@pytest.mark.parametrize("harness", ["copilot-cli", "pi"])
def test_the_dump_and_hand_off_read_the_tail_of_an_8_gb_record(tmp_path, run_pyz, harness):
    """A record whose first line is the client's own, then an 8 GB hole (a sparse file), then
    60 prompt/answer pairs: the dump, the hand-off and doctor read only what their turns
    need, from the end (a forward reader would scan the 8 GB)."""
    home = tmp_path / "home"
    path = _big_store(home, harness, 0)
    with open(str(path), "r+b") as f:
        f.truncate(os.path.getsize(str(path)) + (8 << 30))
    if os.stat(str(path)).st_blocks * 512 > (64 << 20):
        pytest.skip("this filesystem does not keep sparse files")
    with open(str(path), "ab") as f:
        f.write(b"\n")
    tail = tmp_path / "tail.jsonl"
    _big_store(tmp_path / "tail-home", harness, 60).replace(tail)
    with open(str(path), "ab") as f, open(str(tail), "rb") as lines:
        f.write(lines.read().split(b"\n", 1)[1])
    project = tmp_path / "proj"
    (project / ".termsprawl" / "transcripts").mkdir(parents=True)
    (project / ".termsprawl" / "links").mkdir()
    entry = {"version": 1, "path": str(path), "harness": harness}
    (project / ".termsprawl" / "transcripts" / "peer.json").write_text(json.dumps(entry))
    (project / ".termsprawl" / "links" / "lead--peer.json").write_text(
        json.dumps({"version": 1, "a": "lead", "b": "peer"})
    )
    env = {"HOME": str(home)}
    dump = run_pyz(["--cwd", str(project), "--self", "lead"], env=env)
    assert dump.returncode == 0 and dump.stdout.decode().endswith("## user\nprompt 59\n## assistant\nanswer 59\n")
    handoff = run_pyz(["--cwd", str(project), "--self", "lead", "--format", "markdown"], env=env)
    assert handoff.returncode == 0 and b"answer 59" in handoff.stdout
    doctor = run_pyz(["doctor", "--cwd", str(project), "--self", "lead"], env=env)
    assert doctor.returncode == 0 and b"40 turns" in doctor.stdout
