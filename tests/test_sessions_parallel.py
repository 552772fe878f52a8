"""`sessions` shared between processes: the same listing in one process and in two."""

import json
import os
import random
import uuid

import pytest

from termsprawl_context.store import parallel
from termsprawl_context.store import sessions as S

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")

# Enough sessions that the listing is shared (PARALLEL_MIN_SESSIONS), across folders.
COUNT = S.PARALLEL_MIN_SESSIONS * 2 + 7
FOLDERS = 5


def _line(obj):
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


def generated_store(root, count=COUNT, seed=14):
    """A seeded store: prompts, titles, summaries naming other sessions' last messages,
    torn lines, an escaped key, an empty file and a FIFO; returns the projects dir."""
    rng = random.Random(seed)
    projects = root / "projects"
    leaves = []
    for i in range(count):
        folder = projects / ("-home-dev-p%d" % (i % FOLDERS))
        folder.mkdir(parents=True, exist_ok=True)
        sid = str(uuid.UUID(int=rng.getrandbits(128)))
        lines = []
        if leaves and rng.random() < 0.2:
            named = rng.choice(leaves)
            lines.append(_line({"type": "summary", "summary": "About %s" % named[:8], "leafUuid": named}))
        parent = None
        for turn in range(rng.randint(1, 12)):
            me = str(uuid.UUID(int=rng.getrandbits(128)))
            kind = "user" if turn % 2 == 0 else "assistant"
            content = "prompt %d of %s" % (turn, sid[:8]) if kind == "user" else [{"type": "text", "text": "ok"}]
            lines.append(
                _line(
                    {
                        "type": kind,
                        "uuid": me,
                        "parentUuid": parent,
                        "sessionId": sid,
                        "cwd": "/home/dev/p%d" % (i % FOLDERS),
                        "gitBranch": "main",
                        "timestamp": "2026-01-01T00:%02d:%02d.000Z" % (i % 60, turn),
                        "message": {"role": kind, "content": content},
                    }
                )
            )
            parent = me
        leaves.append(parent)
        roll = rng.random()
        if roll < 0.2:
            lines.append(_line({"type": "custom-title", "customTitle": "Named %d" % i, "sessionId": sid}))
        elif roll < 0.3:
            lines.append(_line({"type": "ai-title", "aiTitle": "AI %d" % i, "sessionId": sid}))
        elif roll < 0.35:
            lines.append(b'{"\\u0074ype":"custom-title","customTitle":"Escaped %d"}\n' % i)
        elif roll < 0.4:
            lines.append(b'{"type":"user","mess')  # torn last line
        path = folder / (sid + ".jsonl")
        path.write_bytes(b"".join(lines) if i % 50 else b"")
        os.utime(str(path), (1767225600 + i, 1767225600 + i))
    os.mkfifo(str(projects / "-home-dev-p0" / ("f" * 36 + ".jsonl")))
    return projects


def _listing(projects, monkeypatch, jobs, summaries=True):
    monkeypatch.setenv(parallel.JOBS_ENV, str(jobs))
    result = S.scan_sessions(str(projects), summaries=summaries)
    return [info.to_dict() for info in result.sessions], result.skipped


@needs_fork
@pytest.mark.parametrize("summaries", [True, False])
def test_two_processes_list_exactly_what_one_does(tmp_path, monkeypatch, summaries):
    projects = generated_store(tmp_path)
    forks = []
    real_fork = os.fork

    def counting_fork():
        pid = real_fork()
        if pid:
            forks.append(pid)
        return pid

    one = _listing(projects, monkeypatch, 1, summaries)
    assert not forks
    monkeypatch.setattr(os, "fork", counting_fork)
    two = _listing(projects, monkeypatch, 2, summaries)
    assert forks, "the listing was not shared"
    assert two == one
    assert len(one[0]) == COUNT  # every regular session file, the FIFO left out
    sources = {info["title_source"] for info in one[0]}
    assert {"custom-title", "ai-title", "prompt"} <= sources
    assert ("summary" in sources) == summaries


@needs_fork
def test_a_small_listing_is_not_shared(tmp_path, monkeypatch):
    projects = generated_store(tmp_path, count=S.PARALLEL_MIN_SESSIONS - 2)  # and the FIFO
    forks = []
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or -1)
    _listing(projects, monkeypatch, 2)
    assert not forks


@needs_fork
def test_a_failing_helper_changes_nothing(tmp_path, monkeypatch):
    projects = generated_store(tmp_path)
    one = _listing(projects, monkeypatch, 1)

    def failing_fork():
        raise OSError("no more processes")

    monkeypatch.setattr(os, "fork", failing_fork)
    assert _listing(projects, monkeypatch, 2) == one


@needs_fork
def test_the_command_prints_the_same_bytes_in_one_process_and_two(run_pyz, tmp_path):
    projects = generated_store(tmp_path)
    outs = [
        run_pyz(["sessions", "--json", "--projects-dir", projects], env={parallel.JOBS_ENV: jobs})
        for jobs in ("1", "2")
    ]
    assert [o.returncode for o in outs] == [0, 0]
    assert outs[0].stdout == outs[1].stdout
    assert len([json.loads(line) for line in outs[0].stdout.splitlines()]) == COUNT


@needs_fork
@pytest.mark.parametrize("jobs", [1, 2])
def test_rendered_lines_are_the_listed_sessions_rendered_after_retitling(tmp_path, monkeypatch, jobs):
    """A renderer runs where each session is described (in the helpers too); a session
    the summary index retitles afterwards is rendered again, so every rendered item is
    the renderer's output for the session listed beside it, in the listing's order."""
    projects = generated_store(tmp_path)
    monkeypatch.setenv(parallel.JOBS_ENV, str(jobs))
    render = lambda info: "%s|%s|%s" % (info.session_id, info.title_source, info.title)  # noqa: E731
    result = S.scan_sessions(str(projects), render=render)
    assert result.rendered == [render(info) for info in result.sessions]
    assert "summary" in {info.title_source for info in result.sessions}  # some were retitled
    assert [info.session_id for info in result.sessions] == [
        info.session_id for info in S.scan_sessions(str(projects)).sessions
    ]
    assert S.scan_sessions(str(projects)).rendered is None
    assert S.scan_sessions(str(tmp_path / "missing"), render=render).rendered == []
