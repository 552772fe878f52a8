"""Codex and Gemini peers read from the end (the hand-off, `show`): the same turns as the
forward reading, the file's first entry included, and Gemini's log rules resolved in time
linear in the log."""

import json

import pytest

from termsprawl_context import handoff, harness
from termsprawl_context.harness import gemini

from conftest import REPO

CODEX_DAY = REPO / "tests" / "fixtures" / "codex" / "sessions" / "2026" / "12" / "01"
CODEX_PARENT = CODEX_DAY / "rollout-2026-12-01T23-23-33-01a233eb-aec3-7ca3-ad52-6d382ed8cbfe.jsonl"
HEADER = {"sessionId": "5e55", "projectHash": "ab", "startTime": "t", "lastUpdated": "t", "kind": "main"}
PROMPT = "Refactor the billing module but DO NOT touch the refunds table"


def _user(mid, text):
    return {"id": mid, "timestamp": "t", "type": "user", "content": [{"text": text}]}


def _said(mid, text):
    return {"id": mid, "timestamp": "t", "type": "gemini", "content": text, "thoughts": []}


def _codex_rollout(path, texts):
    """A rollout of the real client's first line, then one message per ``(role, text)``."""
    meta = CODEX_PARENT.read_bytes().split(b"\n", 1)[0]
    lines = [meta]
    for role, text in texts:
        kind = "input_text" if role == "user" else "output_text"
        item = {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}
        lines.append(json.dumps({"timestamp": "t", "type": "response_item", "payload": item}).encode())
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def _chat(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.mark.parametrize("window,prompts,tools", [(40, 3, False), (2, 1, False), (1, 1, True)])
def test_the_oldest_entry_is_kept_when_reading_reaches_the_file_start(tmp_path, window, prompts, tools):
    """Issue 29, item 2: the hand-off's backward collector was never finished, so the file's
    first entry (a Gemini legacy chat's only prompt) was dropped."""
    legacy = tmp_path / "session-2026-01-01T00-00-5e55aaaa.json"
    legacy.write_text(json.dumps(dict(HEADER, messages=[_user("u1", PROMPT), _said("g1", "On it.")])))
    log = _chat(tmp_path / "session-2026-01-01T00-00-5e55bbbb.jsonl", [HEADER, _user("u1", PROMPT), _said("g1", "ok")])
    rollout = _codex_rollout(tmp_path / "rollout.jsonl", [("user", PROMPT), ("assistant", "On it.")])
    for path, name in ((legacy, gemini.NAME), (log, gemini.NAME), (rollout, harness.CODEX_CLI)):
        found = harness.get(name)
        backward = handoff.read_harness_turns(str(path), found, window, prompts, tools, lines=True)
        assert backward == handoff.select_from_entries(found.entries(str(path)), window, prompts, tools)
        assert [t.text for t in backward if t.role == "user"] == [PROMPT]


def test_show_prints_a_gemini_chat_s_first_prompt(tmp_path, run_pyz):
    home = tmp_path / "home"
    chats = home / ".gemini" / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    chat = _chat(chats / "session-2026-01-01T00-00-5e55cccc.jsonl", [HEADER, _user("u1", PROMPT), _said("g1", "ok")])
    done = run_pyz(["show", str(chat), "--format", "json"], env={"HOME": str(home)})
    assert done.returncode == 0, done.stderr
    turns = json.loads(done.stdout)["turns"]
    assert [(t["role"], t["text"]) for t in turns] == [("user", PROMPT), ("assistant", "ok")]
