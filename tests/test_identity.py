"""Whose record is a file: belongs_to_session (permissive) and relocate_record (positive)."""

import json
import os
import re
from pathlib import Path

import pytest

from oracles import PlainSiblings

from termsprawl_context.errors import Refusal
from termsprawl_context.harness.claude.belongs import (
    belongs_to_session,
    carries_session,
    check_belongs_to_session,
    session_evidence,
)
from termsprawl_context.harness.claude.facts import SOURCE_STARTUP
from termsprawl_context.harness.claude.belongs import relocate_record


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
    (
        "forked: old id first",
        [dict(PREAMBLE, sessionId="old-session")] + [record(session="old-session")] * 12 + [record(session="forked")],
        "forked",
        True,
    ),
    (
        "only other sessions",
        [PREAMBLE, record(session="a-third-party"), record(session="someone-else")],
        "guessed",
        False,
    ),
    (
        "id in the middle",
        [record(session="older"), record(session="older"), record(session="middle"), record(session="newer")],
        "middle",
        True,
    ),
    ("first record no id, later foreign", [record(), record(session="someone-else")], "x", False),
    ("no id at all", [record()], "x", True),
    (
        "blank and non-string ids are skipped",
        [record(session=""), record(session=7), record(session=None), record(session="other")],
        "x",
        False,
    ),
]


@pytest.mark.parametrize("name, entries, ask, expected", BELONGS_TABLE, ids=[row[0] for row in BELONGS_TABLE])
def test_belongs_to_session_table(tmp_path, name, entries, ask, expected):
    path = write(tmp_path / "t.jsonl", entries)
    assert belongs_to_session(path, ask) is expected
    if expected:
        check_belongs_to_session(path, ask)
    else:
        with pytest.raises(WrongRecord) as info:
            check_belongs_to_session(path, ask)
        assert isinstance(info.value, Refusal)
        first_foreign = next(e["sessionId"] for e in entries if isinstance(e.get("sessionId"), str) and e["sessionId"])
        assert info.value.found == first_foreign
        assert info.value.message == (
            "the transcript at that path belongs to another session: %s says it belongs to %s, not %s"
            % (path, first_foreign, ask)
        )


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
    assert relocate_record(str(projects), reported, SOURCE_STARTUP) == reported


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


@pytest.mark.parametrize(
    "tail",
    [
        ("subagents", "agent-a1b2c3d.jsonl"),
        ("subagents", "workflows", "wf_1", "agent-a1b2c3d.jsonl"),
    ],
)
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


# --- belongs_to_tree ----------------------------------------------------------------------------

from record_fixtures import Project, boundary, preamble, record as rec, root as origin_line  # noqa: E402
from termsprawl_context.harness.claude.belongs import (  # noqa: E402
    belongs_to_tree,
    check_belongs_to_tree,
    current_session_path,
    start_cwd,
)
from termsprawl_context.harness.base import under  # noqa: E402
from termsprawl_context.harness.claude.continuation import (  # noqa: E402
    MAX_RESTART_HOPS,
    ByteSearchSiblings,
    resolve_stable_session_id,
)
from termsprawl_context.transcript.timestamps import parse_timestamp, start_time  # noqa: E402
from termsprawl_context.errors import (  # noqa: E402
    CHAIN_RUNAWAY,
    CONTINUATION_MISSING,
    ChainRunaway,
    ContinuationMissing,
    NoOriginRecord,
    NoProjectDir,
    RecordUnreadable,
    UsageError,
    WrongRecord,
)


@pytest.fixture
def tree(tmp_path):
    base = tmp_path / "work"
    for name in ("proj", "proj/pkg", "proj-pkg", "projX"):
        (base / name).mkdir(parents=True)
    return base


def tree_file(tmp_path, cwds):
    return write(
        tmp_path / "t.jsonl",
        [dict(record(uuid="u%d" % i), **({"cwd": c} if c is not None else {})) for i, c in enumerate(cwds)],
    )


@pytest.mark.parametrize(
    "cwds, ask, expected",
    [
        (["{b}/proj"], "{b}/proj", True),
        (["{b}/proj/pkg"], "{b}/proj", True),  # beneath it
        (["{b}/projX"], "{b}/proj", False),  # component-wise, not a string prefix
        (["{b}/proj-pkg"], "{b}/proj/pkg", False),  # the lossy encoding collides; the paths do not
        (["{b}/proj-pkg", "{b}/proj/pkg/deeper"], "{b}/proj/pkg", True),  # any record, not the first
        ([None, ""], "{b}/proj", True),  # no cwd anywhere: no evidence against
        (["{b}/proj"], "", True),
        (["{b}/proj/./pkg/.."], "{b}/proj", True),  # resolved before comparing
    ],
)
def test_belongs_to_tree_table(tmp_path, tree, cwds, ask, expected):
    cwds = [c.format(b=tree) if c else c for c in cwds]
    path = tree_file(tmp_path, cwds)
    ask = ask.format(b=tree)
    assert belongs_to_tree(path, ask) is expected
    if expected:
        check_belongs_to_tree(path, ask)
    else:
        with pytest.raises(WrongRecord) as info:
            check_belongs_to_tree(path, ask)
        assert info.value.message == (
            "the transcript at that path was written in another tree: %s was written in %s, which is not %s"
            % (path, cwds[0], ask)
        )


def test_belongs_to_tree_through_symlinks(tmp_path, tree):
    link = tmp_path / "link"
    link.symlink_to(tree / "proj", target_is_directory=True)
    path = tree_file(tmp_path, [str(link / "pkg")])
    assert belongs_to_tree(path, str(tree / "proj")) is True
    path = tree_file(tmp_path, [str(tree / "proj")])
    assert belongs_to_tree(path, str(link)) is True


def test_belongs_to_tree_unreadable_or_missing(tmp_path):
    assert belongs_to_tree(str(tmp_path / "absent.jsonl"), "/x") is True
    big = tmp_path / "big.jsonl"
    big.write_bytes(b"x" * (16 * 1024 * 1024) + b"\n" + json.dumps({"cwd": "/elsewhere"}).encode() + b"\n")
    assert belongs_to_tree(str(big), "/x") is True  # the scan stops at the giant line: the reference's gap


def test_under_is_component_wise():
    assert under("/a/b", "/a") and under("/a", "/a") and not under("/ab", "/a")
    assert under("/anything", "/")


def test_start_cwd_and_time(tmp_path):
    path = write(
        tmp_path / "t.jsonl",
        [
            {"type": "summary", "summary": "x", "timestamp": "not a time"},
            record(uuid="u1", timestamp="2026-08-13T09:00:00.123456789Z"),
            record(uuid="u2", cwd="/first", timestamp="2026-08-13T10:00:00Z"),
            record(uuid="u3", cwd="/second"),
        ],
    )
    assert start_cwd(path) == "/first"
    assert start_time(path).isoformat() == "2026-08-13T09:00:00.123456+00:00"
    empty = write(tmp_path / "e.jsonl", [record(uuid="u1")])
    assert start_cwd(empty) == "" and start_time(empty) is None
    with pytest.raises(RecordUnreadable):
        start_cwd(str(tmp_path / "absent.jsonl"))
    with pytest.raises(RecordUnreadable):
        start_time(str(tmp_path / "absent.jsonl"))


@pytest.mark.parametrize(
    "text, ok",
    [
        ("2026-08-13T09:00:00Z", True),
        ("2026-08-13T09:00:00.5+02:00", True),
        ("2026-08-13T09:00:00.1234567891Z", True),
        ("2026-08-13 09:00:00Z", False),
        ("2026-08-13T09:00:00", False),
        ("2026-02-30T09:00:00Z", False),
        ("2026-08-13T24:00:00Z", False),
        ("2026-08-13t09:00:00z", False),
        ("", False),
    ],
)
def test_parse_timestamp(text, ok):
    assert (parse_timestamp(text) is not None) is ok


def test_timestamp_order_keeps_nanoseconds():
    a = parse_timestamp("2026-08-13T09:00:00.000000001Z")[1]
    b = parse_timestamp("2026-08-13T09:00:00.000000002Z")[1]
    c = parse_timestamp("2026-08-13T11:00:00.000000001+02:00")[1]
    assert a < b and a == c


# --- the stable session id (identity_test.go) -----------------------------------------------------

SIBLING_READERS = [ByteSearchSiblings, PlainSiblings]


def resolve(project, path, reader=ByteSearchSiblings):
    """Both readers must agree; the fast one's answer is returned."""
    fast = resolve_stable_session_id(str(project.dir), path, ByteSearchSiblings())
    plain = resolve_stable_session_id(str(project.dir), path, PlainSiblings())
    assert (fast.id, type(fast.degraded), fast.unreadable_siblings) == (
        plain.id,
        type(plain.degraded),
        plain.unreadable_siblings,
    )
    return fast


@pytest.fixture
def proj(tmp_path):
    return Project(tmp_path / "projects" / "-p")


def test_resolves_origin(proj):
    path = proj.write("a", [preamble(), origin_line("origin-uuid"), rec("child", "origin-uuid")])
    assert resolve(proj, path) == ("origin-uuid", None, ())


def test_fork_pair_converges(proj):
    a = proj.write("a", [origin_line("shared-origin"), rec("x", "shared-origin")])
    b = proj.write("b", [origin_line("shared-origin"), rec("x", "shared-origin"), rec("y", "x")])
    assert resolve(proj, a).id == resolve(proj, b).id == "shared-origin"


def test_crosses_restart(proj):
    proj.write("1", [origin_line("true-origin"), rec("where-it-got-to", "true-origin")])
    second = proj.write("2", [boundary("restart-root", "where-it-got-to"), rec("more", "restart-root")])
    assert resolve(proj, second) == ("true-origin", None, ())


def test_crosses_several_restarts(proj):
    proj.write("first", [origin_line("true-origin"), rec("end-1", "true-origin")])
    proj.write("second", [boundary("root-2", "end-1"), rec("end-2", "root-2")])
    third = proj.write("third", [boundary("root-3", "end-2"), rec("end-3", "root-3")])
    assert resolve(proj, third).id == "true-origin"


def test_ignores_self_match(proj):
    proj.write("older", [origin_line("true-origin"), rec("target", "true-origin")])
    newer = proj.write(
        "newer", [boundary("restart-root", "target"), rec("target", "true-origin"), rec("next", "restart-root")]
    )
    assert resolve(proj, newer).id == "true-origin"


def test_self_match_only(proj):
    path = proj.write("only", [boundary("restart-root", "cp"), rec("cp", "gone")])
    identity = resolve(proj, path)
    assert identity.id == "restart-root"
    assert isinstance(identity.degraded, ContinuationMissing)
    assert identity.degraded.message.endswith("%s continues cp: %s" % (path, CONTINUATION_MISSING))
    assert identity.degraded.exit_code == 6


def test_bounds_runaway_ring(proj):
    names = ["link-a", "link-b", "link-c", "link-d", "link-e"]
    for i, name in enumerate(names):
        nxt = names[(i + 1) % len(names)]
        proj.write(name, [boundary("root-" + name, "rec-" + nxt), rec("rec-" + name, "root-" + name)])
    for name in names:
        identity = resolve(proj, str(proj.dir / (name + ".jsonl")))
        assert identity.id
        assert isinstance(identity.degraded, ChainRunaway)
        assert CHAIN_RUNAWAY in identity.degraded.message


def test_hop_bound(proj):
    """A straight chain longer than MAX_RESTART_HOPS stops degraded, never loops."""
    count = MAX_RESTART_HOPS + 3
    proj.write("c%03d" % 0, [origin_line("origin"), rec("end-0", "origin")])
    for i in range(1, count):
        proj.write("c%03d" % i, [boundary("root-%d" % i, "end-%d" % (i - 1)), rec("end-%d" % i, "root-%d" % i)])
    last = str(proj.dir / ("c%03d.jsonl" % (count - 1)))
    identity = resolve(proj, last)
    assert isinstance(identity.degraded, ChainRunaway) and identity.id.startswith("root-")
    short = str(proj.dir / ("c%03d.jsonl" % (MAX_RESTART_HOPS - 1)))
    assert resolve(proj, short) == ("origin", None, ())


def test_transcript_missing(proj):
    with pytest.raises(RecordUnreadable) as info:
        resolve_stable_session_id(str(proj.dir), str(proj.dir / "absent.jsonl"))
    assert info.value.missing is True


def test_no_origin(proj):
    path = proj.write("a", [preamble(), rec("child", "someone")])
    with pytest.raises(NoOriginRecord) as info:
        resolve_stable_session_id(str(proj.dir), path)
    assert info.value.message == (
        "transcript: stable session id: %s: transcript has no origin record: " "every entry in it has a parent" % path
    )


def test_logical_parent_nowhere(proj):
    path = proj.write("a", [boundary("restart-root", "lost")])
    identity = resolve(proj, path)
    assert identity.id == "restart-root" and isinstance(identity.degraded, ContinuationMissing)
    assert resolve_stable_session_id(str(proj.dir), path).id == "restart-root"


def test_independent_conversations(proj):
    a = proj.write("a", [origin_line("one"), rec("x", "one")])
    b = proj.write("b", [origin_line("two"), rec("x", "two")])
    assert resolve(proj, a).id != resolve(proj, b).id


def test_unreadable_sibling_skipped(proj):
    garbage = proj.write("0-garbage", ["this is not json at all", "{unterminated"])
    proj.write("older", [origin_line("true-origin"), rec("where", "true-origin")])
    newer = proj.write("newer", [boundary("restart-root", "where")])
    fifo = proj.dir / "1-fifo.jsonl"
    os.mkfifo(str(fifo))
    big = proj.dir / "2-big.jsonl"
    big.write_bytes(b"x" * (16 * 1024 * 1024) + b"\n")
    (proj.dir / "3-dir.jsonl").mkdir()  # a directory is not a transcript
    identity = resolve(proj, newer)
    assert identity.id == "true-origin" and identity.degraded is None
    assert identity.unreadable_siblings == (str(fifo), str(big))
    assert garbage not in identity.unreadable_siblings


def test_unreadable_only_holder_degrades_and_is_reported(proj):
    """The record continued from sits behind a giant line: not gone, not readable."""
    big = proj.dir / "a-big.jsonl"
    big.write_bytes(
        (json.dumps(origin_line("true-origin")) + "\n" + json.dumps(rec("where", "true-origin")) + "\n").encode()
        + b"y" * (16 * 1024 * 1024)
        + b"\n"
    )
    newer = proj.write("newer", [boundary("restart-root", "where")])
    identity = resolve(proj, newer)
    assert identity.id == "restart-root" and isinstance(identity.degraded, ContinuationMissing)
    assert identity.unreadable_siblings == (str(big),)


def test_later_predecessor_excluded_by_time(proj):
    proj.write("a", [origin_line("later-origin", timestamp="2026-08-13T11:00:00.000Z"), rec("where", "later-origin")])
    newer = proj.write("newer", [boundary("restart-root", "where")])
    assert isinstance(resolve(proj, newer).degraded, ContinuationMissing)
    proj.write("b", [origin_line("odd-time", timestamp="whenever"), rec("where", "odd-time")])
    assert resolve(proj, newer).id == "odd-time"  # an unparseable time excludes nothing


def test_first_resolving_candidate_wins_over_a_dead_end(proj):
    proj.write("a-dead", [boundary("dead-root", "nowhere"), rec("where", "dead-root")])
    proj.write("b-live", [origin_line("true-origin"), rec("where", "true-origin")])
    newer = proj.write("newer", [boundary("restart-root", "where")])
    assert resolve(proj, newer) == ("true-origin", None, ())
    (proj.dir / "b-live.jsonl").unlink()
    identity = resolve(proj, newer)
    assert identity.id == "dead-root" and isinstance(identity.degraded, ContinuationMissing)


def test_escaped_uuid_is_found(proj):
    """A uuid spelled with JSON escapes is still that uuid: the byte search must not miss it."""
    (proj.dir / "a.jsonl").write_text(
        json.dumps(origin_line("true-origin")) + "\n" + '{"type":"assistant","uuid":"\\u0077here","parentUuid":"x"}\n'
    )
    newer = proj.write("newer", [boundary("restart-root", "where")])
    assert resolve(proj, newer).id == "true-origin"


def test_no_project_dir(proj):
    plain = proj.write("plain", [origin_line("origin")])
    assert resolve_stable_session_id("", plain).id == "origin"
    restarted = proj.write("restarted", [boundary("restart-root", "where")])
    with pytest.raises(NoProjectDir) as info:
        resolve_stable_session_id("", restarted)
    assert info.value.message == (
        "transcript: stable session id: %s continues where: the harness's project " "directory is unknown" % restarted
    )
    missing = resolve_stable_session_id(str(proj.dir / "nope"), restarted)
    assert isinstance(missing.degraded, ContinuationMissing) and missing.unreadable_siblings == ()


def test_no_path():
    with pytest.raises(UsageError) as info:
        resolve_stable_session_id("/somewhere", "")
    assert info.value.message == "transcript: stable session id: no transcript path given"


def test_subagent_identity_is_its_own_root(proj):
    from record_fixtures import sidechain_root

    parent = proj.write("the-session", [origin_line("parent-origin")])
    a = proj.write_subagent("the-session", "a1", [sidechain_root("sub-origin", "a1"), rec("s1", "sub-origin")])
    fork = proj.write_subagent("the-session", "a1fork", [sidechain_root("sub-origin", "a1"), rec("s2", "sub-origin")])
    b = proj.write_subagent("the-session", "b2", [sidechain_root("other-sub", "b2")])
    ids = [resolve(proj, p).id for p in (parent, a, fork, b)]
    assert ids == ["parent-origin", "sub-origin", "sub-origin", "other-sub"]


def test_relocated_record_keeps_its_identity(tmp_path):
    projects = tmp_path / "config" / "projects"
    real = write(
        projects / "-repo--claude-worktrees-feature" / (SID + ".jsonl"), [dict(origin_line("origin"), sessionId=SID)]
    )
    (projects / "-repo").mkdir()
    found = relocate_record(str(projects), str(projects / "-repo" / (SID + ".jsonl")))
    assert found == real and resolve_stable_session_id(os.path.dirname(found), found).id == "origin"


# --- the current session's own record ---------------------------------------------------------

CURRENT_ID = "11111111-2222-3333-4444-555555555555"


def test_current_session_path(tmp_path):
    from termsprawl_context.harness.claude.facts import project_dir

    cfg = tmp_path / "cfg"
    start = tmp_path / "work" / "start"
    start.mkdir(parents=True)
    folder = project_dir(str(cfg), str(start))
    path = write(Path(folder) / (CURRENT_ID + ".jsonl"), [dict(origin_line("o"), sessionId=CURRENT_ID, cwd=str(start))])
    env = {"CLAUDE_CONFIG_DIR": str(cfg), "CLAUDE_CODE_SESSION_ID": " %s " % CURRENT_ID}
    assert current_session_path(env, str(start)) == path
    assert current_session_path(env, str(start / "sub")) == path  # walked up to it
    elsewhere = tmp_path / "unrelated"
    elsewhere.mkdir()
    assert current_session_path(env, str(elsewhere)) == path  # the sweep of every project dir
    write(Path(path), [dict(origin_line("o"), sessionId="someone-else", cwd=str(start))])
    assert current_session_path(env, str(start)) == ""
    assert current_session_path({"CLAUDE_CONFIG_DIR": str(cfg)}, str(start)) == ""
    assert (
        current_session_path(dict(env, TERMSPRAWL_TRANSCRIPT="/engine/located.jsonl"), str(start))
        == "/engine/located.jsonl"
    )
    for bad in ("../x", "a/b", "..", "."):
        assert current_session_path(dict(env, CLAUDE_CODE_SESSION_ID=bad), str(start)) == ""


def test_current_session_path_checks_the_tree(tmp_path):
    """A directory-derived guess written in a colliding sibling tree is passed over: the
    walk goes on to the ancestor whose folder holds this tree's record."""
    from termsprawl_context.harness.claude.facts import project_dir

    cfg = tmp_path / "cfg"
    (tmp_path / "proj" / "pkg").mkdir(parents=True)
    (tmp_path / "proj-pkg").mkdir()
    folder = project_dir(str(cfg), str(tmp_path / "proj" / "pkg"))
    assert folder == project_dir(str(cfg), str(tmp_path / "proj-pkg"))  # the lossy encoding collides
    write(
        Path(folder) / (CURRENT_ID + ".jsonl"),
        [dict(origin_line("o"), sessionId=CURRENT_ID, cwd=str(tmp_path / "proj-pkg"))],
    )
    ours = write(
        Path(project_dir(str(cfg), str(tmp_path / "proj"))) / (CURRENT_ID + ".jsonl"),
        [dict(origin_line("o"), sessionId=CURRENT_ID, cwd=str(tmp_path / "proj" / "pkg"))],
    )
    env = {"CLAUDE_CONFIG_DIR": str(cfg), "CLAUDE_CODE_SESSION_ID": CURRENT_ID}
    assert current_session_path(env, str(tmp_path / "proj" / "pkg")) == ours
    from termsprawl_context.harness.claude.facts import current_session_path as unchecked

    assert unchecked(env, str(tmp_path / "proj" / "pkg")) == str(Path(folder) / (CURRENT_ID + ".jsonl"))


# --- the real corpus ----------------------------------------------------------------------------


def _flattened_parts(path):
    """(project folder, stem) of a corpus file named ``<...>__<folder>__<stem>.jsonl``."""
    parts = path.name[: -len(".jsonl")].split("__")
    return (parts[-2] if len(parts) >= 2 else ""), parts[-1]


def _record_facts(path):
    """(distinct cwds in order, whether some uuid-carrying record has no parent), read
    with plain json: the independent view the library's answers are checked against."""
    cwds, has_origin = [], False
    with open(str(path), "rb") as f:
        for raw in f:
            try:
                value = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(value, dict):
                continue
            if isinstance(value.get("cwd"), str) and value["cwd"] and value["cwd"] not in cwds:
                cwds.append(value["cwd"])
            if isinstance(value.get("uuid"), str) and value["uuid"] and value.get("parentUuid") is None:
                has_origin = True
    return cwds, has_origin


def test_corpus_sessions_belong_to_their_stem_and_tree(corpus):
    """Each real session file belongs to the session its name carries, and to the tree
    its records name; where the project folder it was filed under encodes none of those
    directories (fixtures whose folders were renamed), the tree check says precisely
    which directory the file was written in."""
    from termsprawl_context.harness.claude.facts import encode_project_dir

    checked = refused = 0
    for path in corpus:
        folder, stem = _flattened_parts(path)
        if not _UUID.fullmatch(stem):
            continue
        evidence = session_evidence(str(path), stem)
        assert evidence.readable, path
        assert belongs_to_session(str(path), stem), "%s: names %s, never %s" % (path, evidence.first_foreign, stem)
        check_belongs_to_session(str(path), stem)
        cwds, _ = _record_facts(path)
        if not cwds:
            assert start_cwd(str(path)) == ""
            assert belongs_to_tree(str(path), "/anywhere") is True  # no cwd: no evidence against
            continue
        assert start_cwd(str(path)) == cwds[0]
        for cwd in cwds:
            assert belongs_to_tree(str(path), cwd), (path, cwd)
        checked += 1
        if not folder.startswith("-"):
            continue
        if not any(encode_project_dir(cwd) == folder for cwd in cwds):
            with pytest.raises(WrongRecord) as info:
                check_belongs_to_tree(str(path), "/nowhere/" + folder)
            assert info.value.found == cwds[0]
            refused += 1
    assert checked > 0


def test_corpus_identity_never_fails(corpus):
    """Identity answers on every real file, the same with either sibling reader; the one
    refusal allowed is the seed's, for a file that holds no parentless entry at all
    (an empty or title-only file, or a fragment whose every entry has a parent)."""
    answered = 0
    for path in corpus:
        _, has_origin = _record_facts(path)
        if not has_origin:
            with pytest.raises(NoOriginRecord):
                resolve_stable_session_id(str(path.parent), str(path))
            continue
        fast = resolve_stable_session_id(str(path.parent), str(path), ByteSearchSiblings())
        plain = resolve_stable_session_id(str(path.parent), str(path), PlainSiblings())
        assert fast.id, path
        assert (fast.id, type(fast.degraded), fast.unreadable_siblings) == (
            plain.id,
            type(plain.degraded),
            plain.unreadable_siblings,
        ), path
        if fast.degraded is not None:
            assert fast.degraded.message.startswith("transcript: stable session id: %s continues " % path)
        answered += 1
    assert answered > 0


def _random_dir(rng, folder):
    """A small project dir of forks, restarts, rings, copies, junk and escapes."""
    project = Project(folder)
    uuids = []
    stamps = ["2026-08-13T09:00:00.000Z", "2026-08-13T10:00:00.000Z", "2026-08-13T11:00:00.000Z", "garbled"]
    for index in range(rng.randint(3, 9)):
        lines = []
        if rng.random() < 0.2:
            lines.append(preamble())
        kind = rng.random()
        own = "u%d-%d" % (index, rng.randint(0, 9))
        if kind < 0.35 or not uuids:
            lines.append(origin_line(own, timestamp=rng.choice(stamps)))
        elif kind < 0.85:
            target = rng.choice(uuids) if rng.random() < 0.8 else "missing-%d" % index
            lines.append(boundary(own, target, timestamp=rng.choice(stamps)))
        else:
            lines.append(rec(own, "someone"))  # no origin at all
        parent = own
        for step in range(rng.randint(0, 4)):
            child = rng.choice(uuids) if uuids and rng.random() < 0.15 else "%s-c%d" % (own, step)
            lines.append(rec(child, parent))
            parent = child
        if rng.random() < 0.2:
            lines.append("{torn")
        uuids.extend([own, parent])
        text = "".join((ln if isinstance(ln, str) else json.dumps(ln, separators=(",", ":"))) + "\n" for ln in lines)
        if rng.random() < 0.15:
            text = text.replace('"uuid":"u', '"uuid":"\\u0075', 1)  # the same uuid, escaped
        (project.dir / ("f%02d.jsonl" % rng.randint(0, 30))).write_text(text)
    return project


def test_byte_search_agrees_with_parsing_everything(tmp_path):
    """The fast sibling reader answers exactly what the plain one does, file by file,
    on a few hundred random project dirs (the plain one is the oracle)."""
    import random

    rng = random.Random(20260813)
    compared = 0
    for case in range(250):
        project = _random_dir(rng, tmp_path / ("case%03d" % case))
        for path in sorted(project.dir.iterdir()):
            outcomes = []
            for reader in (ByteSearchSiblings, PlainSiblings):
                try:
                    got = resolve_stable_session_id(str(project.dir), str(path), reader())
                    outcomes.append((got.id, type(got.degraded), got.unreadable_siblings))
                except Exception as exc:  # noqa: BLE001  (the same refusal either way)
                    outcomes.append((type(exc), str(exc)))
            assert outcomes[0] == outcomes[1], (path, path.read_text())
            compared += 1
    assert compared > 500


@pytest.mark.parametrize("length, unreadable", [(16 * 1024 * 1024 - 1, False), (16 * 1024 * 1024, True)])
def test_line_bound_exact_in_both_readers(proj, length, unreadable):
    """A sibling whose long line spans several search chunks, ending just under or at the
    bound, is read (or reported) alike by both readers."""
    sibling = proj.dir / "a-long.jsonl"
    sibling.write_bytes(b"\n" * 3 + b"z" * length + b"\n" + json.dumps(origin_line("o")).encode() + b"\n")
    proj.write("old", [origin_line("true-origin"), rec("where", "true-origin")])
    newer = proj.write("newer", [boundary("restart-root", "where")])
    identity = resolve(proj, newer)
    assert identity.id == "true-origin"
    assert identity.unreadable_siblings == ((str(sibling),) if unreadable else ())


@pytest.mark.parametrize("needle", [b"3f2c9a1e-0b7d-4c55-9e21-7a6b5c4d3e2f", b"n" * 200])
@pytest.mark.parametrize("cut", [1, 17, 35])
def test_byte_search_finds_a_needle_across_a_chunk_edge(tmp_path, needle, cut):
    """A needle split by the edge of a read chunk is found on the first pass (which also
    checks escapes and the line bound) and on a later hop's pass over a clean file; one
    a byte short of the needle is not."""
    from termsprawl_context.harness.claude.continuation import _CHUNK, scan_bytes

    line = b"x" * 1000 + b"\n"
    head = line * (_CHUNK // len(line)) + b"y" * (
        _CHUNK % len(line) - cut
    )  # the needle starts `cut` bytes before the edge
    path = tmp_path / "edge.jsonl"
    path.write_bytes(head + needle + b"\n" + line * 3)
    assert len(head) == _CHUNK - cut
    clean = set()  # type: set
    assert scan_bytes(str(path), (b"absent-1", needle), clean)
    assert clean == {str(path)}
    assert scan_bytes(str(path), (needle,), clean)  # the clean pass
    assert not scan_bytes(str(path), (needle + b"z",), clean)
    assert not scan_bytes(str(path), (needle + b"z",), set())


@pytest.mark.parametrize("cut", [1, 3, 5])
def test_escape_across_a_chunk_edge_is_seen(tmp_path, cut):
    """An escape that could spell a needle, split by a chunk edge, still makes the file a
    candidate (and keeps it out of the clean set)."""
    from termsprawl_context.harness.claude.continuation import _CHUNK, scan_bytes

    line = b"x" * 1000 + b"\n"
    head = line * (_CHUNK // len(line)) + b"y" * (_CHUNK % len(line) - cut)
    path = tmp_path / "escape.jsonl"
    path.write_bytes(head + b"\\u0041" + b"\n" + line)
    clean = set()  # type: set
    assert scan_bytes(str(path), (b"never-written",), clean)
    assert clean == set()
