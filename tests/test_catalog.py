"""Every command that names a session names and titles it alike (store/catalog.py's one
resolve, the providers' one title rule, Harness.describe): ``show``, ``find``, ``locate`` and
``assemble`` resolve the same names to the same session with the same refusals, and
``sessions``, ``find --json``, ``show`` and ``search`` give each session the same title,
on one real store (Claude Code's and Codex CLI's) run through the built artifact."""

import json
import os
import shutil

import pytest

from termsprawl_context.cli import COMMANDS
from termsprawl_context.store.catalog import LATEST

CODEX_DAY = os.path.join(os.path.dirname(__file__), "fixtures", "codex", "sessions", "2026", "12", "01")
# Two rollouts of one thread family: their ids share the prefix "01a233eb-".
PARENT_ROLLOUT = "rollout-2026-12-01T23-23-33-01a233eb-aec3-7ca3-ad52-6d382ed8cbfe.jsonl"
FORK_ROLLOUT = "rollout-2026-12-01T23-23-34-01a233eb-b2fb-7891-9b52-0f1dd18f15f7.jsonl"
CODEX_ID = "01a233eb-aec3-7ca3-ad52-6d382ed8cbfe"
CODEX_SHARED = "01a233eb"

S1 = "aaaa1111-0000-4000-8000-000000000001"  # titled by a summary written in S2's file
S2 = "aaaa2222-0000-4000-8000-000000000002"  # an AI title; shares the prefix "aaaa" with S1
S3 = "bbbb3333-0000-4000-8000-000000000003"  # the newest (latest): its prompt titles it; has a sub-agent
TITLES = {S1: "Alpha summarised", S2: "Beta AI title", S3: "gamma needle prompt"}
NEEDLE = "needle"
# The commands that take a session's name (the others take a transcript's path, or none).
NAMING = ("show", "find", "locate", "assemble")


def user(uuid, sid, text, ts):
    return {"type": "user", "uuid": uuid, "sessionId": sid, "timestamp": ts, "message": {"content": text}}


def assistant(uuid, sid, text, ts, parent):
    content = [{"type": "text", "text": text}]
    return {
        "type": "assistant",
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": sid,
        "timestamp": ts,
        "message": {"role": "assistant", "content": content},
    }


def write(path, records, mtime):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    os.utime(str(path), (mtime, mtime))
    return path


@pytest.fixture
def stores(tmp_path):
    """Claude Code's store (three sessions, a summary naming S1 from S2's file, a
    sub-agent record of S3) and Codex CLI's (two rollouts), under one scratch home."""
    projects = tmp_path / "claude" / "projects"
    folder = projects / "-work-app"
    paths = {
        S1: write(
            folder / (S1 + ".jsonl"),
            [
                user("s1-u", S1, "alpha needle prompt", "2026-01-01T00:00:00.000Z"),
                assistant("s1-a", S1, "alpha answer", "2026-01-01T00:00:01.000Z", "s1-u"),
            ],
            1_000_000,
        ),
        S2: write(
            folder / (S2 + ".jsonl"),
            [
                user("s2-u", S2, "beta needle prompt", "2026-01-02T00:00:00.000Z"),
                {"type": "summary", "summary": TITLES[S1], "leafUuid": "s1-a"},
                {"type": "ai-title", "aiTitle": TITLES[S2], "sessionId": S2},
            ],
            2_000_000,
        ),
        S3: write(
            folder / (S3 + ".jsonl"),
            [
                user("s3-u", S3, TITLES[S3], "2026-01-03T00:00:00.000Z"),
                assistant("s3-a", S3, "gamma answer", "2026-01-03T00:00:01.000Z", "s3-u"),
            ],
            3_000_000,
        ),
    }
    agent = dict(user("s3-x", S3, "the sub-agent's needle task", "2026-01-03T00:00:02.000Z"), isSidechain=True)
    write(folder / S3 / "subagents" / "agent-a1b2c3d.jsonl", [agent], 3_000_001)
    codex = tmp_path / "codex"
    day = codex / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    for number, name in enumerate((PARENT_ROLLOUT, FORK_ROLLOUT)):
        shutil.copyfile(os.path.join(CODEX_DAY, name), str(day / name))
        os.utime(str(day / name), (500_001 - number,) * 2)  # the parent newest; older than every Claude session
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "CODEX_HOME": str(codex)}
    return env, {sid: str(path) for sid, path in paths.items()}, str(day / PARENT_ROLLOUT)


def lines(done):
    return done.stdout.decode("utf-8").splitlines()


def first_error(done):
    return done.stderr.decode("utf-8").splitlines()[0]


def named(run, name, harness=()):
    """What show, find, find --json say ``name`` names: (id, path) each, and the titles."""
    shown = run(["show", name, "--format", "json"] + list(harness))
    found = run(["find", name] + list(harness))
    described = run(["find", name, "--json"] + list(harness))
    assert (shown.returncode, found.returncode, described.returncode) == (0, 0, 0), (shown.stderr, found.stderr)
    peer = json.loads(shown.stdout)
    row = json.loads(described.stdout)
    session_id, path = lines(found)[0].split("\t")
    assert (peer["id"], peer["transcript"]) == (session_id, path) == (row["session_id"], row["transcript_path"])
    assert peer["title"] == row["title"]
    return session_id, path, row["title"]


def test_the_naming_commands_are_the_registrys(stores):
    """Every registered command whose argument is a session's name is checked here."""
    synopses = {name: synopsis.split() for name, (synopsis, _) in COMMANDS.items()}
    takes_a_name = {name for name, words in synopses.items() if {"SESSION", "UUID"} & set(words[1:2])}
    assert takes_a_name == set(NAMING)


def test_every_command_names_a_session_alike(run_pyz, stores):
    env, paths, codex_path = stores

    def run(args):
        return run_pyz(args, env=env)

    for name, sid in ((S3, S3), ("bbbb", S3), (paths[S3], S3), (LATEST, S3), ("aaaa1", S1), (S2[:6], S2)):
        assert named(run, name)[:2] == (sid, paths[sid]), name
        if name != paths[sid]:  # locate and assemble take ids, prefixes and latest
            assert lines(run(["locate", name])) == [paths[sid]]
            assembled = run(["assemble", name])
            assert assembled.returncode == 0 and ('"sessionId": "%s"' % sid).encode() in assembled.stdout
    # Another harness's session: the same names, the same answer, by --harness or by falling through.
    for name, harness in ((CODEX_ID, ()), (CODEX_ID[:13], ()), (codex_path, ()), (LATEST, ("--harness", "codex-cli"))):
        assert named(run, name, harness)[:2] == (CODEX_ID, codex_path), name


def test_every_command_refuses_a_name_alike(run_pyz, stores, tmp_path):
    env, paths, _ = stores

    def run(args, environ=env):
        return run_pyz(args, env=environ)

    # A prefix of two ids: one refusal, the same first line, from every naming command.
    refusals = {command: run([command, "aaaa"]) for command in NAMING}
    expected = "termsprawl-context: ambiguous session ID 'aaaa' matches 2 sessions: %s, %s" % (S1, S2)
    assert {c: (d.returncode, first_error(d)) for c, d in refusals.items()} == {c: (1, expected) for c in NAMING}
    assert lines(refusals["find"]) == [] and refusals["find"].stderr.decode().splitlines()[1:] == [
        "termsprawl-context:   %s\t%s" % (S1, paths[S1]),
        "termsprawl-context:   %s\t%s" % (S2, paths[S2]),
    ]
    # The same refusal when the ids are another harness's.
    both = [run([command, CODEX_SHARED]) for command in ("show", "find")]
    assert {(d.returncode, first_error(d)) for d in both} == {
        (
            1,
            "termsprawl-context: ambiguous session ID '%s' matches 2 sessions: %s, %s"
            % (CODEX_SHARED, CODEX_ID, "01a233eb-b2fb-7891-9b52-0f1dd18f15f7"),
        )
    }
    # No such session: one not-found refusal (locate and assemble look a word no id starts with up as a uuid).
    for command in ("show", "find"):
        done = run([command, "ffff"])
        assert (done.returncode, done.stderr) == (1, b"termsprawl-context: session not found: ffff\n")
    for command in ("locate", "assemble"):
        done = run([command, "ffff"])
        assert (done.returncode, first_error(done)) == (1, "termsprawl-context: uuid not found in any transcript: ffff")
    # No session at all: `latest` names none, alike everywhere.
    empty = {
        "HOME": str(tmp_path / "nobody"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "none"),
        "CODEX_HOME": "/nonexistent",
    }
    for command in NAMING:
        done = run([command, LATEST], empty)
        assert (done.returncode, done.stderr) == (1, b"termsprawl-context: session not found: latest\n"), command
    # An empty name is a usage error; a path that is no file is not found.
    for command in NAMING:
        assert run([command, ""]).returncode == 2, command
    for command in ("show", "find"):
        done = run([command, paths[S1] + ".gone.jsonl"])
        assert (done.returncode, done.stderr) == (
            1,
            ("termsprawl-context: transcript file not found: %s.gone.jsonl\n" % paths[S1]).encode(),
        )


def test_every_command_titles_a_session_alike(run_pyz, stores):
    env, paths, codex_path = stores

    def run(args):
        return run_pyz(args, env=env)

    listed = {row["session_id"]: row for row in map(json.loads, lines(run(["sessions", "--json"])))}
    assert set(listed) == {S1, S2, S3, CODEX_ID, "01a233eb-b2fb-7891-9b52-0f1dd18f15f7"}  # no sub-agent record
    assert {sid: listed[sid]["title"] for sid in TITLES} == TITLES
    assert listed[S1]["title_source"] == "summary"
    for sid in list(TITLES) + [CODEX_ID]:
        assert named(run, sid)[2] == listed[sid]["title"] != "", sid
    hits = [json.loads(line) for line in lines(run(["search", NEEDLE, "--json", "--in", "human,assistant,tool"]))]
    by_session = {}
    for hit in hits:
        by_session.setdefault((hit["session_id"], hit["agent_id"]), set()).add(hit["title"])
    # Each session's hits, and its sub-agent record's, carry the listing's title.
    assert by_session == {
        (S1, ""): {TITLES[S1]},
        (S2, ""): {TITLES[S2]},
        (S3, ""): {TITLES[S3]},
        (S3, "a1b2c3d"): {TITLES[S3]},
    }
    codex_title = listed[CODEX_ID]["title"]
    word = max(codex_title.split(), key=len)
    codex_hits = [json.loads(line) for line in lines(run(["search", word, "--json", "--harness", "codex-cli"]))]
    assert codex_hits and {h["title"] for h in codex_hits if h["path"] == codex_path} == {codex_title}


GEMINI_CHAT = os.path.join(
    os.path.dirname(__file__), "fixtures", "gemini-0.61", "session-2026-12-01T23-26-8f455c26.jsonl"
)


def test_sessions_json_prints_one_shape_for_every_cli(run_pyz, stores, tmp_path):
    """A Claude Code, a Codex CLI and a Gemini CLI session are described alike: one key
    set (``model.SessionInfo``'s), each naming its provider, its title's source and its
    first and last time."""
    env, paths, codex_path = stores
    chats = tmp_path / "home" / ".gemini" / "tmp" / "app" / "chats"
    chats.mkdir(parents=True)
    shutil.copyfile(GEMINI_CHAT, str(chats / os.path.basename(GEMINI_CHAT)))
    listed = [json.loads(line) for line in lines(run_pyz(["sessions", "--json"], env=env))]
    by_cli = {}
    for row in listed:
        by_cli.setdefault(row["harness"], []).append(row)
    assert set(by_cli) == {"claude-code", "codex-cli", "gemini-cli"}
    assert len({frozenset(row) for row in listed}) == 1  # one key set
    for rows in by_cli.values():
        for row in rows:
            assert row["title"] and row["title_source"] and row["first_timestamp"] and row["last_timestamp"], row
            assert row["size"] == os.path.getsize(row["transcript_path"])
    found = json.loads(run_pyz(["find", CODEX_ID, "--json"], env=env).stdout)
    assert set(found) == set(listed[0]) and found["harness"] == "codex-cli"
