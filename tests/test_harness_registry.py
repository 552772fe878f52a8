"""The harness registry and interface (harness/__init__.py, harness/base.py)."""

import json

from termsprawl_context import harness
from termsprawl_context.harness import base
from termsprawl_context.transcript.entry import entry_of
from termsprawl_context.workspace import index


def test_claude_code_is_the_default_and_implements_the_interface(tmp_path):
    cc = harness.get(None)
    assert cc is harness.get(harness.CLAUDE_CODE)
    assert isinstance(cc, base.Harness) and cc.name == harness.CLAUDE_CODE
    env = {"HOME": str(tmp_path)}
    assert cc.store_roots(env) == [str(tmp_path / ".claude" / "projects")]
    folder = tmp_path / ".claude" / "projects" / "-p"
    folder.mkdir(parents=True)
    record = {"type": "user", "uuid": "u1", "sessionId": "s", "message": {"role": "user", "content": "hi"}}
    path = folder / "s.jsonl"
    path.write_text("junk\n" + json.dumps(record) + "\n")
    assert cc.owns_path(str(path), env)
    assert [s.session_id for s in cc.sessions(env)] == ["s"]
    got = list(cc.entries(str(path)))
    assert got == [entry_of(record, 2, 5)]
    assert harness.for_path(str(path), env) is cc
    assert cc.session_start_output(additional_context="x") == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "x"}
    }


def test_unknown_names_are_no_harness():
    assert harness.get("no-such-cli") is None
    assert all(h.name in harness.KNOWN_HARNESSES for h in harness.available())


def test_index_entry_names_its_harness(tmp_path):
    (tmp_path / ".termsprawl").mkdir()
    assert index.record_transcript_path(str(tmp_path), "a", "/x/a.jsonl")
    written = json.loads((tmp_path / ".termsprawl" / "transcripts" / "a.json").read_text())
    assert written == {"version": 1, "path": "/x/a.jsonl"}  # Claude Code's entry: unchanged
    assert index.read_transcript_source(str(tmp_path), "a") == ("/x/a.jsonl", harness.CLAUDE_CODE)
    (tmp_path / ".termsprawl" / "transcripts" / "b.json").write_text(
        json.dumps({"version": 1, "path": "/x/b.jsonl", "harness": "no-such-cli"})
    )
    assert index.read_transcript_source(str(tmp_path), "b") is None
    assert index.read_transcript_path(str(tmp_path), "b") is None
