"""Resolving a session id or prefix (store/catalog.py's resolve): copies of one id answer
with the latest descendant, a prefix shared by different ids is refused from the names
alone (no file opened), FIFOs and directories named like sessions are not candidates."""

import json
import os

import pytest

from termsprawl_context.store import catalog as C
from termsprawl_context.store import sessions as S
from termsprawl_context.store.locate import locate


def write(path, entries, mtime=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    if mtime is not None:
        os.utime(str(path), (mtime, mtime))
    return path


def turn(text, ts, session_id):
    return {"type": "user", "sessionId": session_id, "timestamp": ts, "uuid": "u-" + ts, "message": {"content": text}}


def find_session(partial, projects_dir):
    """What ``find`` answers (cli/commands/): the session ``catalog.resolve`` finds, described."""
    return S.describe_resolved(C.resolve(partial, projects_dir), projects_dir)[0]


def sid(n):
    return "%08x-1111-4222-8333-%012x" % (0xC0FFEE00 + n, n)


FOLDERS = ("-home-dev-app", "projects.bak-2025-06-01/-home-dev-app", "-home-dev-app-resumed")


def copies_store(tmp_path, count=17):
    """``count`` ids, each held by two or three folders (a backup tree, a resumed
    copy); the copy with the latest timestamp varies by id."""
    projects = tmp_path / "projects"
    expected = {}
    for n in range(count):
        session_id = sid(n)
        holders = FOLDERS[: 2 + n % 2]
        latest = holders[n % len(holders)]
        for folder in holders:
            # The latest descendant ends later; every copy shares the first turn, and
            # the older copies' mtimes are newer on purpose (mtime does not decide).
            ts = "2026-02-%02dT10:00:00.000Z" % (20 if folder == latest else 10 + FOLDERS.index(folder))
            turns = [turn("start", "2026-02-01T00:00:00.000Z", session_id), turn("more", ts, session_id)]
            mtime = 1_000 if folder == latest else 2_000
            write(projects / folder / (session_id + ".jsonl"), turns, mtime)
        expected[session_id] = (str(projects / latest / (session_id + ".jsonl")), len(holders))
    return projects, expected


def test_seventeen_ids_held_by_several_folders(tmp_path):
    projects, expected = copies_store(tmp_path)
    for session_id, (latest, holders) in expected.items():
        for asked in (session_id, session_id[:13]):
            info, copies = S.describe_resolved(C.resolve(asked, str(projects)), str(projects))
            assert info.session_id == session_id
            assert info.transcript_path == latest
            assert len(copies) == holders - 1 and latest not in copies
            assert all(os.path.basename(c) == session_id + ".jsonl" for c in copies)
        lines = C.copies_message(session_id, copies)
        assert lines == [
            "session %s has another copy (not the latest descendant): %s" % (session_id, c) for c in copies
        ]


def test_the_pick_is_locates_pick(tmp_path):
    """Among one level of folders (where locate looks), the same file as locate."""
    projects = tmp_path / "projects"
    session_id = sid(1)
    write(projects / "a" / (session_id + ".jsonl"), [turn("x", "2026-01-02T00:00:00.000Z", session_id)])
    write(projects / "b" / (session_id + ".jsonl"), [turn("x", "2026-01-03T00:00:00.000Z", session_id)])
    write(projects / "c" / (session_id + ".jsonl"), [turn("x", "2026-01-03T00:00:00.000Z", session_id)])
    resolved = C.resolve(session_id, str(projects))
    assert resolved.path == locate(session_id, str(projects)) == str(projects / "b" / (session_id + ".jsonl"))
    assert resolved.copies == (
        str(projects / "c" / (session_id + ".jsonl")),
        str(projects / "a" / (session_id + ".jsonl")),
    )


def test_one_copy_is_not_read_to_rank_it(tmp_path, monkeypatch):
    projects = tmp_path / "projects"
    write(projects / "a" / (sid(2) + ".jsonl"), [turn("x", "T", sid(2))])
    from termsprawl_context.store import locate as store_locate

    monkeypatch.setattr(store_locate, "scan_file", lambda *a, **k: pytest.fail("a lone holder was scanned"))
    assert C.resolve(sid(2)[:8], str(projects)).copies == ()


def test_a_prefix_of_different_ids_is_refused_from_the_names(tmp_path, monkeypatch):
    projects, expected = copies_store(tmp_path, count=3)
    real_open = os.open

    def no_transcript_opens(path, *args, **kwargs):
        if str(path).endswith(".jsonl"):
            pytest.fail("a file was opened: %s" % path)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", no_transcript_opens)
    with pytest.raises(C.AmbiguousSession) as caught:
        find_session("c0ffee0", str(projects))
    refusal = caught.value
    ids = sorted(expected)
    assert str(refusal) == "ambiguous session ID 'c0ffee0' matches 3 sessions: %s" % ", ".join(ids)  # ids, not files
    assert refusal.exit_code == 1
    assert [c.session_id for c in refusal.candidates] == sorted(
        sid(n) for n in range(3) for _ in range(expected[sid(n)][1])
    )
    assert all(os.path.basename(c.path) == c.session_id + ".jsonl" for c in refusal.candidates)
    assert C.candidates_message(refusal.candidates)[0] == "  %s\t%s" % refusal.candidates[0][:2]
    with pytest.raises(C.AmbiguousSession):
        C.resolve("", str(projects))  # the empty prefix matches every id


def test_not_found_fifos_and_directories(tmp_path):
    projects = tmp_path / "projects"
    write(projects / "a" / (sid(1) + ".jsonl"), [turn("x", "T", sid(1))])
    os.mkfifo(str(projects / "a" / (sid(3) + ".jsonl")))
    (projects / "b" / (sid(4) + ".jsonl")).mkdir(parents=True)
    assert find_session("c0ffee0", str(projects)).session_id == sid(1)
    for missing in (sid(3), sid(4), "zzz"):
        with pytest.raises(C.SessionIdNotFound) as caught:
            find_session(missing, str(projects))
        assert str(caught.value) == "session not found: %s" % missing
    with pytest.raises(C.SessionIdNotFound):
        find_session("c0", str(tmp_path / "no-store"))


def test_a_copy_gone_since_the_walk_gives_way(tmp_path, monkeypatch):
    projects, expected = copies_store(tmp_path, count=1)
    session_id = sid(0)
    latest, _ = expected[session_id]
    resolved = C.resolve(session_id, str(projects))
    os.remove(latest)
    info, copies = S.describe_resolved(resolved, str(projects))
    assert info.transcript_path != latest and copies == (latest,)
