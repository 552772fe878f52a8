"""Session titles end to end: each title source in a listed store, the summary index
across files (which summary wins, what it may name), the typed prompt past the head,
the same title for one session (store.sessions.session_title, Claude Code's
session_scan.describe_alone) and from the command
line (``sessions --json``, ``find --json``, copies and candidates on stderr), and every
corpus session: no title starts with harness text."""

import json
import os
import re
import uuid

import pytest

from termsprawl_context import model as cc
from termsprawl_context.jsonl import iter_lines, open_regular, parse_object
from termsprawl_context.harness.claude import session_scan as M
from termsprawl_context.store import sessions as S
from termsprawl_context.harness.claude.summary_index import SummaryIndex
from termsprawl_context.transcript import titles as T
from termsprawl_context.model import entry_of
from termsprawl_context.transcript.speakers import content_texts, typed_texts
from termsprawl_context.transcript.text import sanitize_text
from oracles import folder_index_oracle
from scanner_fixtures import both_scanners  # noqa: F401 (a fixture, used by name)

# The listing runs under both scanners: the fast one and the plain one.
pytestmark = pytest.mark.usefixtures("both_scanners")


def alone(path, session_id="", index=None, folders=None):
    """The title of the session at ``path`` described alone (Claude Code's rule)."""
    info = M.describe_alone(path, session_id=session_id, index=index, folders=folders)
    return T.Title(info.title, info.title_source)


def sid(n):
    return "%08x-aaaa-4bbb-8ccc-%012x" % (0x5E55_0000 + n, n)


def mid(n):
    return "%08x-1111-4222-8333-%012x" % (0xA5_0000 + n, n)


def write(path, entries, mtime):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((e if isinstance(e, str) else json.dumps(e)) + "\n" for e in entries), encoding="utf-8")
    os.utime(str(path), (mtime, mtime))
    return str(path)


def user(text, uid, parent=None, **extra):
    record = {
        "parentUuid": parent,
        "type": "user",
        "uuid": uid,
        "timestamp": "2026-01-01T00:00:%02d.000Z" % (int(uid[-2:], 16) % 60),
        "message": {"role": "user", "content": text},
    }
    record.update(extra)
    return record


def assistant(text, uid, parent):
    return {
        "parentUuid": parent,
        "type": "assistant",
        "uuid": uid,
        "timestamp": "2026-01-01T00:01:00.000Z",
        "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
    }


def summary(text, leaf):
    return {"type": "summary", "summary": text, "leafUuid": leaf}


def listed(projects, **kwargs):
    return {info.session_id: info for info in S.scan_sessions(str(projects), **kwargs).sessions}


@pytest.fixture
def store(tmp_path):
    """Sessions of one project folder, each titled by a different source, and the
    summary lines (1.x style: at the top of later files) that name some of them."""
    projects = tmp_path / "projects"
    folder = projects / "-home-dev-app"

    def conversation(n, text):
        return [user(text, mid(n * 10 + 1)), assistant("ok", mid(n * 10 + 2), mid(n * 10 + 1))]

    write(
        folder / (sid(1) + ".jsonl"),
        conversation(1, "first typed") + [{"type": "custom-title", "customTitle": "Mine", "sessionId": sid(1)}],
        100,
    )
    write(
        folder / (sid(2) + ".jsonl"),
        conversation(2, "second typed") + [{"type": "ai-title", "aiTitle": "AI named", "sessionId": sid(2)}],
        110,
    )
    write(folder / (sid(3) + ".jsonl"), conversation(3, "third typed"), 120)  # named by summaries below
    write(folder / (sid(4) + ".jsonl"), conversation(4, "fourth typed"), 130)  # named by nothing: its prompt
    write(
        folder / (sid(5) + ".jsonl"),
        [user("<command-name>/model</command-name>\n<command-args></command-args>", mid(51))],
        140,
    )
    write(folder / (sid(6) + ".jsonl"), [user(cc.COMPACTION_PREFIX + " ...", mid(61), isCompactSummary=True)], 150)
    # Summary-only files resuming earlier sessions: they name sid(1), sid(2) (outranked) and sid(3).
    write(
        folder / (sid(7) + ".jsonl"),
        [summary("Old summary of 3", mid(32)), summary("Summary of 1", mid(12)), summary("Summary of 2", mid(22))],
        200,
    )
    write(folder / (sid(8) + ".jsonl"), [summary("Newer summary of 3", mid(31)), summary("Nested only", mid(99))], 300)
    return projects, folder


def test_each_title_source(store):
    projects, folder = store
    sessions = listed(projects)
    expected = {
        sid(1): ("Mine", "custom-title"),  # a custom title outranks a summary naming the session
        sid(2): ("AI named", "ai-title"),
        sid(3): ("Newer summary of 3", "summary"),  # the summary written last (later mtime) wins
        sid(4): ("fourth typed", "prompt"),
        sid(5): ("/model", "command"),
        sid(6): ("", ""),  # its first message is the harness's compaction summary: never a title (issue 21)
        sid(7): ("", ""),  # a summary-only file names others, not itself
        sid(8): ("", ""),
    }
    assert {k: (v.title, v.title_source) for k, v in sessions.items()} == expected
    # the seed's own fields stay as they were
    assert sessions[sid(3)].summary == "" and sessions[sid(3)].first_user_message == "third typed"
    assert [link.summary for link in sessions[sid(8)].summary_links] == ["Newer summary of 3", "Nested only"]
    # without the index, each file alone
    alone = listed(projects, summaries=False)
    assert (alone[sid(3)].title, alone[sid(3)].title_source) == ("third typed", "prompt")
    assert {k: v for k, v in alone.items() if k != sid(3)} == {k: v for k, v in sessions.items() if k != sid(3)}


def test_which_summary_wins(store):
    projects, folder = store
    # Same mtime as sid(8)'s file: the smaller path wins (sid(7) < sid(8)).
    os.utime(str(folder / (sid(7) + ".jsonl")), (300, 300))
    assert listed(projects)[sid(3)].title == "Old summary of 3"
    # Within one file, the later line.
    write(folder / (sid(9) + ".jsonl"), [summary("Early line", mid(31)), summary("Late line", mid(32))], 400)
    assert listed(projects)[sid(3)].title == "Late line"


def test_a_summary_naming_a_record_a_line_carries(store):
    """A record carried inside a line (a sub-agent's message in a progress line) is
    the session's own: a summary naming it names the session."""
    projects, folder = store
    write(
        folder / (sid(4) + ".jsonl"),
        [user("fourth typed", mid(41)), {"type": "progress", "data": {"uuid": mid(99)}}],
        130,
    )
    info = listed(projects)[sid(4)]
    assert (info.title, info.title_source) == ("Nested only", "summary")


def test_a_message_outside_the_tail_window_is_not_seen(store):
    """The documented bound: a session's own uuids are those of its last 64 KiB."""
    projects, folder = store
    padding = [assistant("x" * 1000, mid(500 + i), mid(499 + i)) for i in range(M.TAIL_MAX_BYTES // 1000 + 5)]
    write(folder / (sid(4) + ".jsonl"), [user("fourth typed", mid(41))] + padding, 130)
    write(
        folder / (sid(10) + ".jsonl"),
        [summary("Names the first line", mid(41)), summary("Names the last", mid(499 + len(padding)))],
        500,
    )
    info = listed(projects)[sid(4)]
    assert (info.title, info.title_source) == ("Names the last", "summary")
    write(folder / (sid(10) + ".jsonl"), [summary("Names the first line", mid(41))], 500)
    assert listed(projects)[sid(4)].title_source == "prompt"


def test_summaries_anywhere_in_the_listed_store(store):
    projects, folder = store
    write(
        projects / "projects.bak-2025-06-01" / "-home-dev-app" / (sid(11) + ".jsonl"),
        [summary("From the backup", mid(42))],
        900,
    )
    assert listed(projects)[sid(4)].title == "From the backup"
    # --project lists (and indexes) one folder only
    scoped = S.scan_sessions(str(projects), project="/home/dev/app").sessions
    assert [s.title for s in scoped if s.session_id == sid(4)] == ["fourth typed"]


def test_the_typed_prompt_past_the_head(tmp_path):
    projects = tmp_path / "projects"
    notices = [
        user(
            [{"type": "text", "text": "<ide_opened_file>The user opened the file a.py in the IDE.</ide_opened_file>"}],
            mid(1),
        )
    ]
    compaction = [user(cc.COMPACTION_PREFIX + ". Summary: ...", mid(2), isCompactSummary=True)]
    replies = [assistant("working " * 20, mid(100 + i), mid(99 + i)) for i in range(M.HEAD_MAX_LINES + 10)]
    typed = [
        user(
            [
                {"type": "text", "text": "<ide_selection>lines 1-2</ide_selection>"},
                {"type": "text", "text": "now fix the bug"},
            ],
            mid(3),
        )
    ]
    path = write(projects / "p" / (sid(1) + ".jsonl"), notices + compaction + replies + typed + replies[:3], 100)
    info = listed(projects)[sid(1)]
    assert (info.title, info.title_source) == ("now fix the bug", "prompt")
    assert info.first_user_message == "The user opened the file a.py in the IDE."  # the seed's field, unchanged
    assert S.session_title(path) == T.Title("now fix the bug", "prompt")
    # Beyond the head's byte bound, the prompt is not sought.
    big = [assistant("y" * 50_000, mid(300 + i), mid(299 + i)) for i in range(M.HEAD_MAX_BYTES // 50_000 + 2)]
    write(projects / "p" / (sid(2) + ".jsonl"), compaction + big + typed, 100)
    info = listed(projects)[sid(2)]
    assert (info.title, info.title_source) == ("", "")  # its first message is the compaction summary (issue 21)


def test_session_title_is_the_listings_title(store):
    projects, folder = store
    sessions = listed(projects)
    for session_id, info in sessions.items():
        assert S.session_title(info.transcript_path) == (info.title, info.title_source), session_id
    # an index given is used instead of the folder's
    path = sessions[sid(4)].transcript_path
    index = SummaryIndex()
    index.add_file("/elsewhere.jsonl", 1.0, [("Given", mid(42))])
    assert alone(path, sid(4), index) == T.Title("Given", "summary")
    assert S.session_title(str(folder / "missing.jsonl")) == T.NO_TITLE
    assert S.with_session_title(M.session_from_path(path, str(projects))).title == "fourth typed"


# --- the command line ----------------------------------------------------------------------


def test_cli_titles_and_copies(run_pyz, store):
    projects, folder = store
    result = run_pyz(["sessions", "--json", "--projects-dir", projects])
    assert result.returncode == 0
    rows = {r["session_id"]: r for r in map(json.loads, result.stdout.splitlines())}
    assert (rows[sid(3)]["title"], rows[sid(3)]["title_source"]) == ("Newer summary of 3", "summary")
    result = run_pyz(["find", sid(3)[:10], "--json", "--projects-dir", projects])
    assert (result.returncode, result.stderr) == (0, b"")
    assert json.loads(result.stdout)["title"] == "Newer summary of 3"
    # a copy of sid(4) in a backup tree, with a later timestamp: the latest descendant
    backup = projects / "projects.bak-2025-06-01" / "-home-dev-app" / (sid(4) + ".jsonl")
    write(backup, [user("fourth typed", mid(41)), assistant("more", mid(43), mid(41))], 50)
    with open(str(backup), "a") as f:
        f.write(json.dumps(user("later", mid(44), mid(43), timestamp="2027-01-01T00:00:00.000Z")) + "\n")
    result = run_pyz(["find", sid(4), "--projects-dir", projects])
    assert result.returncode == 0
    assert result.stdout.decode() == "%s\t%s\n" % (sid(4), backup)
    assert (
        result.stderr.decode()
        == "termsprawl-context: session %s has another copy (not the latest descendant): %s\n"
        % (sid(4), folder / (sid(4) + ".jsonl"))
    )
    result = run_pyz(["find", sid(0)[:7], "--projects-dir", projects])
    assert result.returncode == 1 and result.stdout == b""
    lines = result.stderr.decode().splitlines()
    assert lines[0] == "termsprawl-context: ambiguous session ID '%s' matches 8 sessions: %s" % (
        sid(0)[:7],
        ", ".join(sid(n) for n in range(1, 9)),
    )  # ids, not files
    assert len(lines) == 1 + 9 and lines[1] == "termsprawl-context:   %s\t%s" % (sid(1), folder / (sid(1) + ".jsonl"))


# --- every corpus session: no title starts with harness text -----------------------------------

_UUID_NAME = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$")


def _harness_texts(path):
    """Sanitised user-role texts of the file that the person did not type."""
    found = []
    with open_regular(str(path)) as f:
        for line in iter_lines(f):
            record = parse_object(line.raw)
            if record is None:
                continue
            entry = entry_of(record)
            if entry.type == cc.TYPE_USER:
                typed = typed_texts(entry)
                found.extend(sanitize_text(t) for t in content_texts(entry.content) if t not in typed)
    return [h for h in found if len(h) >= 8]


def test_no_corpus_title_starts_with_harness_text(corpus, tmp_path):
    """Every corpus session, listed as a store (each file linked under a session's
    name): its title is never the start of a text the harness wrote."""
    folder = tmp_path / "projects" / "-corpus"
    folder.mkdir(parents=True)
    origin = {}
    for path in corpus:
        if "agent-" in path.name:
            continue  # sub-agent transcripts are not sessions
        match = _UUID_NAME.search(path.name)
        name = match.group(1) if match else str(uuid.uuid5(uuid.NAMESPACE_URL, path.name))
        link = folder / (name + ".jsonl")
        if not link.exists():
            os.symlink(str(path.resolve()), str(link))
            origin[name] = path
    sessions = S.scan_sessions(str(tmp_path / "projects")).sessions
    assert len(sessions) == len(origin) >= 30
    titled = 0
    for info in sessions:
        if not info.title:
            continue
        titled += 1
        for text in _harness_texts(origin[info.session_id]):
            assert not info.title.startswith(text[:40]), (
                origin[info.session_id].name,
                info.title_source,
                info.title[:80],
            )
        assert S.session_title(info.transcript_path) == (info.title, info.title_source)
    assert titled >= 25


def test_a_folders_leaves_title_a_session_as_its_whole_index_does(tmp_path):
    """``index_naming`` (only the files whose bytes may name the session's own uuids are
    parsed) titles every session as the whole folder's index does: summaries in heads and
    tails, the key spaced or spelled with an escape, values holding escapes."""
    import random

    rng = random.Random(2323)
    for trial in range(12):
        folder = tmp_path / ("f%d" % trial)
        folder.mkdir()
        ids = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(6)]
        leaves = ["m-%d-%d" % (trial, n) for n in range(len(ids))]
        for number, sid in enumerate(ids):
            lines = [json.dumps({"type": "user", "uuid": leaves[number], "message": {"content": "typed %d" % number}})]
            for _ in range(rng.randint(0, 3)):
                link = json.dumps(
                    {"type": "summary", "summary": "S%d" % rng.randint(0, 99), "leafUuid": rng.choice(leaves)}
                )
                link = rng.choice(
                    [link, link.replace('"leafUuid": ', '"leafUuid" :  '), link.replace("leafUuid", "leaf\\u0055uid")]
                )
                if rng.random() < 0.2:
                    link = link.replace("m-", "\\u006d-")  # the value spelled with an escape
                lines.insert(rng.choice([0, len(lines)]), link)
            if rng.random() < 0.5:  # a long middle: the tail window is not the head's
                lines[1:1] = [
                    json.dumps({"type": "assistant", "uuid": "x%d" % k, "pad": "p" * 3000}) for k in range(60)
                ]
            path = folder / (sid + ".jsonl")
            path.write_text("\n".join(lines) + "\n")
            os.utime(str(path), (1000 + rng.randint(0, 3),) * 2)
        whole = folder_index_oracle(str(folder))
        folders = {}
        for sid in ids:
            path = str(folder / (sid + ".jsonl"))
            expected = alone(path, sid, whole)
            assert S.session_title(path, sid) == expected
            assert alone(path, sid, folders=folders) == expected
