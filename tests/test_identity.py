"""Whose record is a file: belongs_to_session (permissive) and relocate_record (positive)."""

import json
import os
import re

import pytest

from termsprawl_context.errors import Refusal
from termsprawl_context.store.identity import (
    STARTUP_SOURCE,
    WrongSession,
    belongs_to_session,
    carries_session,
    check_belongs_to_session,
    relocate_record,
    session_evidence,
)


def record(kind="user", session=None, **extra):
    entry = {"type": kind, "uuid": extra.pop("uuid", "u-%s" % kind)}
    if session is not None:
        entry["sessionId"] = session
    entry.update(extra)
    return entry


def write(path, entries):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return str(path)


# --- belongs_to_session: the reference's table ----------------------------------------------

PREAMBLE = {"type": "summary", "summary": "s", "sessionId": "someone-else"}  # no uuid

BELONGS_TABLE = [
    ("file names another session", [record(session="someone-else")], "guessed", False),
    ("names this session", [record(session="mine")], "mine", True),
    ("preamble without uuid decides", [PREAMBLE, record(session="someone-else")], "x", False),
    ("forked: old id first",
     [dict(PREAMBLE, sessionId="old-session")] + [record(session="old-session")] * 12 + [record(session="forked")],
     "forked", True),
    ("only other sessions",
     [PREAMBLE, record(session="a-third-party"), record(session="someone-else")], "guessed", False),
    ("id in the middle",
     [record(session="older"), record(session="older"), record(session="middle"), record(session="newer")],
     "middle", True),
    ("first record no id, later foreign", [record(), record(session="someone-else")], "x", False),
    ("no id at all", [record()], "x", True),
    ("blank and non-string ids are skipped",
     [record(session=""), record(session=7), record(session=None), record(session="other")], "x", False),
]


@pytest.mark.parametrize("name, entries, ask, expected", BELONGS_TABLE, ids=[row[0] for row in BELONGS_TABLE])
def test_belongs_to_session_table(tmp_path, name, entries, ask, expected):
    path = write(tmp_path / "t.jsonl", entries)
    assert belongs_to_session(path, ask) is expected
    if expected:
        check_belongs_to_session(path, ask)
    else:
        with pytest.raises(WrongSession) as info:
            check_belongs_to_session(path, ask)
        assert isinstance(info.value, Refusal)
        first_foreign = next(e["sessionId"] for e in entries if isinstance(e.get("sessionId"), str) and e["sessionId"])
        assert info.value.found == first_foreign
        assert info.value.message == (
            "the transcript at that path belongs to another session: %s says it belongs to %s, not %s"
            % (path, first_foreign, ask))


def test_missing_file_and_empty_id_belong(tmp_path):
    assert belongs_to_session(str(tmp_path / "absent.jsonl"), "absent") is True
    check_belongs_to_session(str(tmp_path / "absent.jsonl"), "absent")
    path = write(tmp_path / "t.jsonl", [record(session="other")])
    assert belongs_to_session(path, "") is True


def test_unreadable_non_regular_belongs_but_is_not_carried(tmp_path):
    fifo = tmp_path / "x.jsonl"
    os.mkfifo(str(fifo))  # would block a plain open() forever
    folder = tmp_path / "d.jsonl"
    folder.mkdir()
    for path in (str(fifo), str(folder)):
        assert belongs_to_session(path, "x") is True
        assert carries_session(path, "x") is False
        assert session_evidence(path, "x").readable is False


def test_junk_lines_and_escaped_key(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"not json\n{torn\n\xff\xfe\n" + b'{"type":"user","\\u0073essionId":"mine"}\n')
    assert carries_session(str(path), "mine") is True
    assert belongs_to_session(str(path), "other") is False
    assert session_evidence(str(path), "other").first_foreign == "mine"


def test_wrong_session_is_refused_when_foreign(tmp_path):
    path = write(tmp_path / "t.jsonl", [record(session="mine")])
    assert belongs_to_session(path, "other") is False


def test_carries_is_positive(tmp_path):
    assert carries_session(write(tmp_path / "a.jsonl", [record(session="s")]), "s") is True
    assert carries_session(write(tmp_path / "b.jsonl", [record()]), "s") is False
    assert carries_session(write(tmp_path / "c.jsonl", [record(session="t")]), "s") is False
    assert carries_session(str(tmp_path / "missing.jsonl"), "s") is False
    assert carries_session(write(tmp_path / "d.jsonl", [record(session="")]), "") is False


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def test_real_transcripts_belong_to_their_own_session(corpus):
    """Every real transcript whose (flattened) name carries its session's uuid says so."""
    checked = 0
    for path in corpus:
        ids = _UUID.findall(path.name)
        if not ids:
            continue
        session = ids[-1]
        evidence = session_evidence(str(path), session)
        if evidence.first_foreign is None and not evidence.carries:
            continue  # a file naming no session at all (allowed, not evidence)
        assert belongs_to_session(str(path), session), path
        checked += 1
    assert checked > 0


# --- relocate_record ------------------------------------------------------------------------

SID = "7b0c5a2e-0000-4000-8000-000000000001"


@pytest.fixture
def projects(tmp_path):
    root = tmp_path / "config" / "projects"
    (root / "-repo").mkdir(parents=True)
    return root


def test_resumed_from_another_directory_is_found(projects):
    real = write(projects / "-repo--claude-worktrees-feature" / (SID + ".jsonl"), [record(session=SID)])
    reported = str(projects / "-repo" / (SID + ".jsonl"))
    assert relocate_record(str(projects), reported) == real
    assert relocate_record(str(projects), reported, "resume") == real


def test_fresh_session_is_never_relocated(projects):
    write(projects / "-elsewhere" / (SID + ".jsonl"), [record(session=SID)])
    reported = str(projects / "-repo" / (SID + ".jsonl"))
    assert relocate_record(str(projects), reported, STARTUP_SOURCE) == reported


def test_unwritten_fresh_session_unchanged(projects):
    write(projects / "-other" / "other.jsonl", [record(session="other")])
    reported = str(projects / "-repo" / (SID + ".jsonl"))
    assert relocate_record(str(projects), reported) == reported


def test_same_name_other_session_unchanged(projects):
    write(projects / "-other" / (SID + ".jsonl"), [record(session="a-different-session")])
    reported = str(projects / "-repo" / (SID + ".jsonl"))
    assert relocate_record(str(projects), reported) == reported


def test_same_name_naming_no_session_is_not_taken(projects):
    """The positive reading: belongs_to_session would let it through, relocation may not."""
    candidate = write(projects / "-other" / (SID + ".jsonl"), [record(), record(kind="assistant")])
    assert belongs_to_session(candidate, SID) is True
    reported = str(projects / "-repo" / (SID + ".jsonl"))
    assert relocate_record(str(projects), reported) == reported


def test_existing_path_kept(projects):
    reported = write(projects / "-repo" / (SID + ".jsonl"), [record(session=SID)])
    write(projects / "-aaa" / (SID + ".jsonl"), [record(session=SID)])
    assert relocate_record(str(projects), reported) == reported


def test_first_match_in_name_order_and_unreadable_skipped(projects):
    (projects / "-a" / (SID + ".jsonl")).mkdir(parents=True)  # a folder of that name: not a record
    (projects / "-b").mkdir()
    os.mkfifo(str(projects / "-b" / (SID + ".jsonl")))
    write(projects / "-c" / (SID + ".jsonl"), [record(session="someone-else")])
    first = write(projects / "-d" / (SID + ".jsonl"), [record(session=SID)])
    write(projects / "-e" / (SID + ".jsonl"), [record(session=SID)])
    (projects / "not-a-folder").write_text("x")
    reported = str(projects / "-repo" / (SID + ".jsonl"))
    assert relocate_record(str(projects), reported) == first


@pytest.mark.parametrize("tail", [
    ("subagents", "agent-a1b2c3d.jsonl"),
    ("subagents", "workflows", "wf_1", "agent-a1b2c3d.jsonl"),
])
def test_subagent_record_moves_with_its_session(projects, tail):
    real = write(projects.joinpath("-wt", SID, *tail), [record(session=SID, agentId="a1b2c3d")])
    reported = str(projects.joinpath("-repo", SID, *tail))
    assert relocate_record(str(projects), reported) == real


def test_subagent_of_another_session_not_taken(projects):
    tail = (SID, "subagents", "agent-a1.jsonl")
    write(projects.joinpath("-wt", *tail), [record(session="other")])
    reported = str(projects.joinpath("-repo", *tail))
    assert relocate_record(str(projects), reported) == reported


@pytest.mark.parametrize("name", ["notes.txt", ".jsonl", "x/other/agent-a.jsonl", "x/subagents/not-agent.jsonl"])
def test_names_that_are_no_record_unchanged(projects, name):
    write(projects.joinpath("-wt", *name.split("/")), [record(session="x")])
    reported = str(projects.joinpath("-repo", *name.split("/")))
    assert relocate_record(str(projects), reported) == reported


def test_outside_projects_or_no_projects_unchanged(projects, tmp_path):
    write(projects / "-wt" / (SID + ".jsonl"), [record(session=SID)])
    outside = str(tmp_path / "elsewhere" / "-repo" / (SID + ".jsonl"))
    assert relocate_record(str(projects), outside) == outside
    reported = str(projects / "-repo" / (SID + ".jsonl"))
    assert relocate_record("", reported) == reported
    assert relocate_record(str(tmp_path / "no-such-projects"), reported) == reported
    assert relocate_record(str(projects), "") == ""


def test_projects_spelled_through_a_symlink(projects, tmp_path):
    """The root is climbed to from the path itself, so a symlinked spelling of either
    side still matches (a symlinked CLAUDE_CONFIG_DIR, macOS /var -> /private/var)."""
    real = write(projects / "-wt" / (SID + ".jsonl"), [record(session=SID)])
    link = tmp_path / "linked-projects"
    link.symlink_to(projects, target_is_directory=True)
    reported = str(projects / "-repo" / (SID + ".jsonl"))
    assert relocate_record(str(link), reported) == real
    via_link = str(link / "-repo" / (SID + ".jsonl"))
    assert relocate_record(str(projects), via_link) == str(link / "-wt" / (SID + ".jsonl"))
