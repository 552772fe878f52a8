"""doctor: each way the dump comes out empty is named, and its verdict is the dump's."""

import json
import os

import pytest

from termsprawl_context.transcript.turns import MAX_LINKED_TURNS
from termsprawl_context import doctor
from termsprawl_context.workspace import index, links
from termsprawl_context.doctor import diagnose, verdict


def turn(role, text):
    return json.dumps({"type": role, "message": {"content": text}}) + "\n"


TOOL_ONLY = json.dumps({"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Bash"}]}}) + "\n"


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "project"
    path.mkdir()
    return path


def peer_with(project, tmp_path, peer, body=None, recorded=None):
    """Link ``me`` to ``peer``; write ``body`` as its transcript and record it."""
    links.add_link(str(project), "me", peer)
    if body is not None:
        path = tmp_path / (peer + ".jsonl")
        path.write_text(body)
        recorded = str(path) if recorded is None else recorded
    if recorded is not None:
        assert index.record_transcript_path(str(project), peer, recorded)


def only_peer(report):
    assert len(report.peers) == 1
    return report.peers[0]


def test_printed_peer_with_title_and_turns(project, tmp_path):
    peer_with(project, tmp_path, "bob", turn("user", "do it") + TOOL_ONLY + turn("assistant", "done"))
    (project / ".termsprawl" / "project.json").write_text(
        json.dumps({"nodes": [{"id": "bob", "data": {"title": "Bob the builder"}}]})
    )
    report = diagnose(str(project), "me")
    p = only_peer(report)
    assert p.outcome == doctor.PRINTED and p.printed
    assert (p.exists, p.regular, p.readable, p.turns, p.more_turns) == (True, True, True, 2, False)
    assert (p.title, p.title_from_project, p.link_file) == ("Bob the builder", True, "bob--me.json")
    assert p.index_file == os.path.join(".termsprawl", "transcripts", "bob.json")
    assert verdict(report) == "the dump prints 1 peer (2 turns): bob"


def test_turn_count_is_what_the_dump_prints(project, tmp_path):
    peer_with(project, tmp_path, "many", "".join(turn("user", "t%d" % i) for i in range(MAX_LINKED_TURNS + 5)))
    peer_with(project, tmp_path, "exact", "".join(turn("user", "t%d" % i) for i in range(MAX_LINKED_TURNS)))
    by_peer = {p.peer: p for p in diagnose(str(project), "me").peers}
    assert (by_peer["many"].turns, by_peer["many"].more_turns) == (MAX_LINKED_TURNS, True)
    assert (by_peer["exact"].turns, by_peer["exact"].more_turns) == (MAX_LINKED_TURNS, False)


def test_no_link(project):
    (project / ".termsprawl").mkdir()
    links.add_link(str(project), "x", "y")
    report = diagnose(str(project), "me")
    assert report.peers == [] and report.link_files == 1
    assert verdict(report) == (
        "the dump prints nothing: no link names me " "(add one with `termsprawl-context links add me OTHER`)"
    )


def test_no_state_folder(project):
    report = diagnose(str(project), "me")
    assert not report.state_dir and "has no .termsprawl folder" in verdict(report)


def test_unsafe_self(project, tmp_path):
    peer_with(project, tmp_path, "bob", turn("user", "hi"))
    report = diagnose(str(project), "../me")
    assert not report.self_safe and report.peers == []
    assert "'../me' is not a safe node id" in verdict(report)


@pytest.mark.parametrize(
    "setup, outcome",
    [
        ("no index entry", doctor.NO_INDEX_ENTRY),
        ("junk index entry", doctor.INVALID_INDEX_ENTRY),
        ("missing file", doctor.MISSING_FILE),
        ("directory", doctor.NOT_A_FILE),
        ("fifo", doctor.NOT_A_FILE),
        ("no printable turns", doctor.NO_TURNS),
        ("empty file", doctor.NO_TURNS),
    ],
)
def test_each_empty_cause_is_named(project, tmp_path, setup, outcome):
    if setup == "no index entry":
        peer_with(project, tmp_path, "bob")
    elif setup == "junk index entry":
        peer_with(project, tmp_path, "bob")
        (project / ".termsprawl" / "transcripts").mkdir()
        (project / ".termsprawl" / "transcripts" / "bob.json").write_text('{"version": 2, "path": "/x"}')
    elif setup == "missing file":
        peer_with(project, tmp_path, "bob", recorded=str(tmp_path / "gone.jsonl"))
    elif setup == "directory":
        (tmp_path / "dir.jsonl").mkdir()
        peer_with(project, tmp_path, "bob", recorded=str(tmp_path / "dir.jsonl"))
    elif setup == "fifo":
        os.mkfifo(str(tmp_path / "pipe.jsonl"))  # must be reported, never opened for reading
        peer_with(project, tmp_path, "bob", recorded=str(tmp_path / "pipe.jsonl"))
    elif setup == "no printable turns":
        peer_with(project, tmp_path, "bob", TOOL_ONLY + "not json\n")
    else:
        peer_with(project, tmp_path, "bob", "")
    report = diagnose(str(project), "me")
    p = only_peer(report)
    assert p.outcome == outcome and not p.printed and p.turns == 0
    assert p.exists == (outcome not in (doctor.NO_INDEX_ENTRY, doctor.INVALID_INDEX_ENTRY, doctor.MISSING_FILE))
    assert p.regular == (outcome == doctor.NO_TURNS)
    assert verdict(report) == "the dump prints nothing: every linked peer is skipped"
    assert doctor.REASONS[outcome].startswith("skipped: ")


def test_relative_recorded_path_resolves_against_the_project(project, tmp_path):
    (project / "logs").mkdir()
    (project / "logs" / "b.jsonl").write_text(turn("assistant", "ok"))
    peer_with(project, tmp_path, "bob", recorded="logs/b.jsonl")
    p = only_peer(diagnose(str(project), "me"))
    assert (p.recorded, p.path, p.outcome) == ("logs/b.jsonl", str(project / "logs" / "b.jsonl"), doctor.PRINTED)


def test_invalid_link_files_named_and_self_index_reported(project, tmp_path):
    peer_with(project, tmp_path, "bob", turn("user", "hi"))
    folder = project / ".termsprawl" / "links"
    (folder / "junk.json").write_text("not json")
    (folder / "self.json").write_text('{"version": 1, "a": "me", "b": "me"}')
    (folder / "notes.txt").write_text("not a .json name: not even looked at")
    index.record_transcript_path(str(project), "me", "/my/own.jsonl")
    report = diagnose(str(project), "me")
    assert report.invalid_link_files == ["junk.json", "self.json"]
    assert report.self_recorded == "/my/own.jsonl" and report.link_files == 1


def build_mixed(project, tmp_path):
    """One peer per outcome, plus a duplicate link file for one printed peer."""
    peer_with(project, tmp_path, "a-printed", turn("user", "alpha"))
    peer_with(project, tmp_path, "b-noindex")
    peer_with(project, tmp_path, "c-missing", recorded=str(tmp_path / "gone.jsonl"))
    (tmp_path / "d.jsonl").mkdir()
    peer_with(project, tmp_path, "d-dir", recorded=str(tmp_path / "d.jsonl"))
    peer_with(project, tmp_path, "e-noturns", TOOL_ONLY)
    peer_with(project, tmp_path, "f-printed", turn("assistant", "phi") + turn("user", "more"))
    (project / ".termsprawl" / "links" / "zz-dup.json").write_text('{"version": 1, "a": "me", "b": "f-printed"}')


def test_verdict_matches_the_dump(project, tmp_path, run_pyz):
    """The oracle: the peers doctor says are printed are the dump's headers, in order."""
    build_mixed(project, tmp_path)
    report = diagnose(str(project), "me")
    dump = run_pyz(["--cwd", project, "--self", "me"])
    assert dump.returncode == 0
    headers = [
        line.split("(")[-1].rstrip(")")
        for line in dump.stdout.decode().splitlines()
        if line.startswith("# linked context from ")
    ]
    assert [p.peer for p in report.printed] == headers == ["a-printed", "f-printed", "f-printed"]
    assert verdict(report) == "the dump prints 3 peers (5 turns): a-printed, f-printed, f-printed"


def test_cli_human_and_json(project, tmp_path, run_pyz):
    build_mixed(project, tmp_path)
    done = run_pyz(["doctor", "--cwd", project, "--self", "me"])
    assert done.returncode == 0 and done.stderr == b""
    out = done.stdout.decode()
    assert 'self: "me" (a safe node id)' in out
    assert "peer b-noindex (via b-noindex--me.json)" in out
    assert "=> skipped: no transcript path is recorded for it" in out
    assert "=> skipped: the recorded transcript does not exist" in out
    assert "=> skipped: the recorded transcript is not a regular file" in out
    assert "=> skipped: the transcript holds no printable user/assistant turns" in out
    assert "file: exists, regular file, readable" in out and "printable turns: 2" in out
    assert out.endswith("verdict: the dump prints 3 peers (5 turns): a-printed, f-printed, f-printed\n")
    data = json.loads(run_pyz(["doctor", "--cwd", project, "--self", "me", "--json"]).stdout)
    assert data["printed_peers"] == 3 and data["self"] == "me" and data["self_safe"] is True
    assert [(p["peer"], p["outcome"]) for p in data["peers"]] == [
        ("a-printed", "printed"),
        ("b-noindex", "no-index-entry"),
        ("c-missing", "missing-file"),
        ("d-dir", "not-a-regular-file"),
        ("e-noturns", "no-printable-turns"),
        ("f-printed", "printed"),
        ("f-printed", "printed"),
    ]
    assert data["verdict"] == verdict(diagnose(str(project), "me"))


def test_cli_self_from_environment_and_required(project, run_pyz):
    done = run_pyz(["doctor", "--cwd", project], env={"TERMSPRAWL_NODE_ID": "me"})
    assert done.returncode == 0 and b'self: "me"' in done.stdout and b"has no .termsprawl folder" in done.stdout
    done = run_pyz(["doctor", "--cwd", project], env={"TERMSPRAWL_NODE_ID": None})
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr == b"termsprawl-context: doctor: give --self NODE (or set $TERMSPRAWL_NODE_ID)\n"


def test_cli_unsafe_self_is_explained_not_refused(project, run_pyz):
    done = run_pyz(["doctor", "--cwd", project, "--self", "a b", "--json"])
    assert done.returncode == 0
    data = json.loads(done.stdout)
    assert data["self_safe"] is False and "is not a safe node id" in data["verdict"]


def test_human_report_names_the_cap(project, tmp_path):
    from termsprawl_context.doctor import format_doctor

    peer_with(project, tmp_path, "many", "".join(turn("user", "t%d" % i) for i in range(MAX_LINKED_TURNS + 1)))
    text = format_doctor(diagnose(str(project), "me"))
    assert "printable turns: %d (the cap: older turns are not printed)" % MAX_LINKED_TURNS in text
    assert text.endswith("verdict: the dump prints 1 peer (%d turns): many\n" % MAX_LINKED_TURNS)
