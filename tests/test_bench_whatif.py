"""The listing benchmark's what-if trees (benchmarks/bench_sessions_cli.py): our source with the rules
the real-shaped target would need relaxed. Their edits must still apply to the source as it is, and the
trees must do what their labels say: answer as we do on plain lines, miss a summary spelled with an
escape, and (the narrowed uuids) miss a summary naming any message of the tail but its last."""

import json
import subprocess
import sys

import pytest

from conftest import REPO

LEAF = "e" * 36


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO))
    from benchmarks import bench_sessions_cli

    return bench_sessions_cli


def titles(src, projects, home):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "PYTHONPATH": str(src), "TERMSPRAWL_JOBS": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "termsprawl_context", "sessions", "--json", "--projects-dir", str(projects)],
        env=env,
        stdout=subprocess.PIPE,
        check=True,
    )
    return {
        info["session_id"][0]: (info["title"], info["title_source"])
        for info in map(json.loads, done.stdout.splitlines())
    }


def user(text, uuid, second):
    return json.dumps(
        {"type": "user", "message": {"content": text}, "uuid": uuid, "timestamp": "2026-01-01T00:00:%02dZ" % second}
    )


def test_each_whatif_edit_applies_and_relaxes_what_its_label_says(bench, tmp_path):
    folder = tmp_path / "projects" / "-p"
    folder.mkdir(parents=True)
    sessions = {
        "1": [user("plain prompt", "u1", 1)],
        "2": ['{"type":"summ\\u0061ry","summary":"Escaped summary"}', user("escaped prompt", "u2", 2)],
        # a summary elsewhere names this session's first message, not its last
        "3": [user("named prompt", LEAF, 3), user("later", "u3", 4)],
        "4": [json.dumps({"type": "summary", "summary": "Names the first", "leafUuid": LEAF}), user("x", "u4", 5)],
    }
    for digit, lines in sessions.items():
        (folder / (digit * 36 + ".jsonl")).write_text("\n".join(lines) + "\n")
    ours = titles(REPO / "src", folder.parent, tmp_path)
    assert ours["2"] == ("Escaped summary", "summary") and ours["3"] == ("Names the first", "summary")
    expected = {  # what each what-if tree answers differently from ours
        "no-census": {"2": ("escaped prompt", "prompt")},
        "last-uuid": {"2": ("escaped prompt", "prompt"), "3": ("named prompt", "prompt")},
    }
    for label, key, edits in bench.WHATIFS:
        source, why = bench.whatif_source(tmp_path / "scratch", key, edits)
        assert source is not None, why
        assert titles(source, folder.parent, tmp_path) == dict(ours, **expected[key]), label
