"""The harness registry and interface (harness/__init__.py, harness/base.py)."""

import json
import os

from termsprawl_context import harness
from termsprawl_context.harness import base
from termsprawl_context.model import entry_of
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


def test_in_store_counts_the_root_itself_and_what_lies_below_it(tmp_path):
    # Two providers' stores, one rule (the interface's: paths compared resolve_dir-ed).
    env = {"HOME": str(tmp_path / "home")}
    for provider in (harness.get(harness.CLAUDE_CODE), harness.get(harness.CODEX_CLI)):
        root = provider.store_roots(env)[0]
        below = os.path.join(root, "folder", "missing.jsonl")
        assert not provider.in_store(root, env)  # a store that is not there holds nothing
        os.makedirs(root)
        assert provider.in_store(root, env) and provider.in_store(below, env)
        assert provider.owns_path(below, env) and not provider.owns_path(root, env)
        assert not provider.in_store(os.path.dirname(root), env) and not provider.in_store(root + "x", env)
        link = str(tmp_path / ("link-" + provider.name))
        os.symlink(root, link)
        assert provider.in_store(os.path.join(link, "a.jsonl"), env)
