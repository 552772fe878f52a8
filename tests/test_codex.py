"""Codex CLI rollouts through the harness interface (harness/codex.py), on real files.

The 0.169 fixtures are rollouts the real Codex CLI 0.169.0 wrote when driven against
tests/e2e/responses_server.py (``tests/e2e/test_codex_e2e.py`` drives the same
scenarios): a session resumed once and forked (aec3 -> b2fb), and a session that spawned
a sub-agent (7ba9 -> 7c37) and was compacted. The 0.47 fixture is built by hand from the
shape public 0.47 files and docs show (no public 0.47 rollout was found to commit).
"""

import json
import shutil

import pytest

from termsprawl_context import harness
from termsprawl_context.harness.codex import facts
from termsprawl_context import model
from termsprawl_context.transcript import entry as records, speakers, tool_blocks

from conftest import REPO

FIXTURES = REPO / "tests" / "fixtures" / "codex"
DAY = FIXTURES / "sessions" / "2026" / "12" / "01"
PARENT = DAY / "rollout-2026-12-01T23-23-33-01a233eb-aec3-7ca3-ad52-6d382ed8cbfe.jsonl"
FORK = DAY / "rollout-2026-12-01T23-23-34-01a233eb-b2fb-7891-9b52-0f1dd18f15f7.jsonl"
SPAWNER = DAY / "rollout-2026-12-01T23-27-42-01a233ef-7ba9-7282-8c7e-283fead20bc5.jsonl"
CHILD = DAY / "rollout-2026-12-01T23-27-42-01a233ef-7c37-78d1-bef6-95de3480e947.jsonl"
LEGACY = (
    FIXTURES
    / "sessions"
    / "2025"
    / "10"
    / "19"
    / "rollout-2025-10-19T20-47-01-0199fe39-c07c-71d0-9ceb-9315a0946d34.jsonl"
)
CX = harness.get(harness.CODEX_CLI)


def conversation(path):
    """(speaker, text) of every entry the person or the assistant speaks in."""
    found = []
    for entry in CX.entries(str(path)):
        who = records.speaker(entry)
        if who == model.PERSON:
            found.append((who, "\n".join(speakers.typed_texts(entry))))
        elif who == model.ASSISTANT and tool_blocks.assistant_text(entry):
            found.append((who, tool_blocks.assistant_text(entry)))
    return found


def raw_lines(path):
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def test_the_person_and_the_assistant_and_nothing_of_the_harness():
    talk = conversation(PARENT)
    assert talk == [
        ("person", "first prompt"),
        ("assistant", "answer 0 to: first prompt"),
        ("person", "second prompt"),
        ("assistant", "answer 1 to: second prompt"),
    ]
    kinds = [records.speaker(e) for e in CX.entries(str(PARENT))]
    # The skills list and the hook's context (developer), the environment block (user role).
    assert kinds.count(model.META) == 4
    texts = [t for e in CX.entries(str(PARENT)) for t in speakers.content_texts(e.content)]
    assert any(t.startswith("<environment_context>") for t in texts)
    assert not any(t.startswith("<environment_context>") for _, t in talk)


def test_event_duplicates_are_not_counted():
    # Every typed prompt is in the file twice (response_item and event_msg item_completed).
    raw = PARENT.read_text()
    assert raw.count('"text":"first prompt"') == 2
    assert [t for w, t in conversation(PARENT) if w == "person"].count("first prompt") == 1


def test_calls_and_results_pair_by_call_id():
    calls = [c for e in CX.entries(str(SPAWNER)) for c in tool_blocks.tool_calls(e)]
    results = [r for e in CX.entries(str(SPAWNER)) for r in tool_blocks.tool_results(e)]
    assert [c.name for c in calls] == ["spawn_agent", "wait_agent"]
    assert calls[0].input == {"message": "child task"}
    assert [r.tool_use_id for r in results] == [c.id for c in calls]
    assert json.loads(results[0].content)["agent_id"] == "01a233ef-7c37-78d1-bef6-95de3480e947"


def test_compaction_summary_and_bridge_are_the_harness_s():
    entries = list(CX.entries(str(SPAWNER)))
    compaction = [e for e in entries if records.speaker(e) == model.COMPACTION]
    assert len(compaction) == 2
    assert speakers.content_texts(compaction[0].content) == ["SUMMARY-OF-WORK: the user asked for things"]
    assert speakers.content_texts(compaction[1].content)[0].startswith(facts.COMPACTION_PREFIX)
    talk = conversation(SPAWNER)
    assert ("person", "after compaction prompt") in talk
    assert not any("SUMMARY-OF-WORK" in t for _, t in talk)
    assert not any(t.startswith("<subagent_notification>") for _, t in talk)


def test_fork_reads_its_parent_up_to_the_byte_offset_first():
    meta = raw_lines(FORK)[0]["payload"]
    end = meta["history_base"]["end_byte_offset"]
    assert end == PARENT.stat().st_size  # this fork was taken at the parent's end
    talk = conversation(FORK)
    assert talk == conversation(PARENT) + [("person", "fork prompt"), ("assistant", "answer 2 to: fork prompt")]
    inherited = [e for e in CX.entries(str(FORK)) if e.session_id == meta["forked_from_id"]]
    assert inherited and all(e.line == 0 and e.offset == -1 for e in inherited)


def test_fork_offset_cuts_the_parent(tmp_path):
    day = tmp_path / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    # The parent grew after the fork (a later resume): only its first turn is the fork's past.
    lines = PARENT.read_bytes().splitlines(True)
    cut = next(i for i, line in enumerate(lines) if b'"text":"second prompt"' in line and b"response_item" in line)
    first_turn = b"".join(lines[: cut - 3])
    (day / PARENT.name).write_bytes(PARENT.read_bytes())
    fork_lines = FORK.read_bytes().splitlines(True)
    meta = json.loads(fork_lines[0])
    meta["payload"]["history_base"]["end_byte_offset"] = len(first_turn)
    (day / FORK.name).write_bytes(json.dumps(meta).encode() + b"\n" + b"".join(fork_lines[1:]))
    talk = conversation(day / FORK.name)
    assert [t for w, t in talk if w == "person"] == ["first prompt", "fork prompt"]


def test_fork_without_its_parent_reads_its_own_lines(tmp_path):
    day = tmp_path / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    shutil.copy(str(FORK), str(day / FORK.name))
    assert conversation(day / FORK.name) == [("person", "fork prompt"), ("assistant", "answer 2 to: fork prompt")]


def test_fork_loop_stops(tmp_path):
    day = tmp_path / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    lines = FORK.read_bytes().splitlines(True)
    meta = json.loads(lines[0])
    me = meta["payload"]["id"]
    meta["payload"]["history_base"]["thread_id"] = me  # a fork of itself
    (day / FORK.name).write_bytes(json.dumps(meta).encode() + b"\n" + b"".join(lines[1:]))
    assert [t for w, t in conversation(day / FORK.name) if w == "person"] == ["fork prompt"]


def test_sub_agent_thread_is_a_sidechain():
    entries = list(CX.entries(str(CHILD)))
    assert entries and all(e.is_sidechain and e.agent_id == "01a233ef-7c37-78d1-bef6-95de3480e947" for e in entries)
    assert conversation(CHILD) == []
    assert CX.subagent_paths(str(SPAWNER)) == [str(CHILD)]
    assert CX.subagent_paths(str(CHILD)) == []


def test_legacy_0_47_shape():
    talk = conversation(LEGACY)
    assert talk == [
        ("person", "list the files and tell me what the parser does"),
        ("assistant", "There are two files; parser.py reads JSON Lines."),
        ("person", "thanks, now run the tests"),
        ("assistant", "One test fails."),
    ]
    calls = [c for e in CX.entries(str(LEGACY)) for c in tool_blocks.tool_calls(e)]
    assert [c.name for c in calls] == ["shell", "apply_patch", "shell"]
    results = [r for e in CX.entries(str(LEGACY)) for r in tool_blocks.tool_results(e)]
    assert results[0].content == "README.md\nparser.py\n" and not results[0].is_error
    assert results[2].is_error  # exit code 1


def test_store_recognition(tmp_path):
    env = {"CODEX_HOME": str(FIXTURES), "HOME": str(tmp_path)}
    assert CX.owns_path(str(PARENT), env)
    assert harness.for_path(str(PARENT), env) is CX
    assert {s.session_id for s in CX.sessions(env)} == {
        "01a233eb-aec3-7ca3-ad52-6d382ed8cbfe",
        "01a233eb-b2fb-7891-9b52-0f1dd18f15f7",
        "01a233ef-7ba9-7282-8c7e-283fead20bc5",
        "01a233ef-7c37-78d1-bef6-95de3480e947",
        "0199fe39-c07c-71d0-9ceb-9315a0946d34",
    }
    # Outside its store a rollout is still known by its first record.
    copy = tmp_path / "somewhere.jsonl"
    shutil.copy(str(PARENT), str(copy))
    assert harness.for_path(str(copy), {"HOME": str(tmp_path)}) is CX
    assert CX.stable_id(str(PARENT)) == "01a233eb-aec3-7ca3-ad52-6d382ed8cbfe"
    assert CX.stable_id(str(copy)) is None  # the file name no longer proves it
    payload = {"session_id": "x", "transcript_path": str(PARENT)}
    assert harness.for_payload(payload, env) is CX
    assert harness.for_payload(payload, {"HOME": str(tmp_path)}).name == harness.CLAUDE_CODE
    assert CX.hook_subagent({"agent_id": "c"}) == "c" and CX.hook_subagent({}) == ""


@pytest.mark.parametrize("path", [PARENT, FORK, SPAWNER, LEGACY])
def test_truncated_and_torn_copies_read_a_prefix(tmp_path, path):
    """Every cut of the file reads without raising, and what it gives is the whole
    file's conversation up to that point (a torn last line only loses that line)."""
    whole = conversation(path)
    data = path.read_bytes()
    step = max(1, len(data) // 60)
    for cut in list(range(0, len(data), step)) + [len(data) - 1]:
        copy = tmp_path / path.name
        copy.write_bytes(data[:cut])
        part = conversation(copy) if path != FORK else [t for t in conversation(copy)]
        if path == FORK:
            continue  # (its parent is not beside the copy: its own prefix is checked below)
        assert part == whole[: len(part)], cut
    # In a store's own layout, so a fork finds its parent there (never elsewhere on the machine).
    day = tmp_path / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    shutil.copy(str(PARENT), str(day / PARENT.name))
    torn = day / path.name
    torn.write_bytes(data + b'{"timestamp":"x","type":"response_item","payload":{"type":"mess')
    assert conversation(torn) == whole


def test_giant_and_junk_lines(tmp_path):
    copy = tmp_path / PARENT.name
    lines = PARENT.read_bytes().splitlines(True)
    copy.write_bytes(
        b"".join(lines[:5])
        + b"\x00\xff junk\n"
        + b"[1,2]\n"
        + b'{"type":"response_item","payload":7}\n'
        + b'{"type":"response_item","payload":{"type":"message","role":"user","content":5}}\n'
        + b"".join(lines[5:])
    )
    assert conversation(copy) == conversation(PARENT)


def _comparable(entry):
    return entry._replace(line=0, cwd="")


def backwards_oracle(path):
    """The reverse reader equals the forward one reversed (line numbers and per-turn cwd
    aside: from the end only offsets and the session's cwd are known)."""
    forward = [_comparable(e) for e in CX.entries(str(path))]
    backward = [_comparable(e) for e in CX.entries_reverse(str(path))]
    assert backward == forward[::-1]
    return forward


@pytest.mark.parametrize("path", [PARENT, FORK, SPAWNER, CHILD, LEGACY])
def test_reading_backwards_equals_reading_forward(tmp_path, path):
    backwards_oracle(path)
    data = path.read_bytes()
    step = max(1, len(data) // 40)
    day = tmp_path / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    if path == FORK:
        shutil.copy(str(PARENT), str(day / PARENT.name))
    for cut in range(0, len(data), step):
        copy = day / path.name
        copy.write_bytes(data[:cut])
        backwards_oracle(copy)


def test_reading_backwards_without_announcements(tmp_path):
    """A 0.47-shaped file with a compaction: the summary is told by the `compacted` after it."""
    lines = LEGACY.read_bytes().splitlines(True)
    summary = {
        "timestamp": "t",
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "the summary"}],
        },
    }
    compacted = {
        "timestamp": "t",
        "type": "compacted",
        "payload": {"message": facts.COMPACTION_PREFIX + " ... the summary", "replacement_history": []},
    }
    copy = tmp_path / LEGACY.name
    body = [json.dumps(summary).encode() + b"\n", json.dumps(compacted).encode() + b"\n"]
    copy.write_bytes(b"".join(lines[:13] + body + lines[13:]))
    forward = backwards_oracle(copy)
    assert [records.speaker(e) for e in forward].count(model.COMPACTION) == 2
    assert "the summary" not in [t for _, t in conversation(copy)]


@pytest.mark.parametrize("path", [PARENT, FORK, SPAWNER, LEGACY])
@pytest.mark.parametrize("window,prompts,tools", [(40, 3, False), (2, 1, False), (3, 3, True), (1, 0, True)])
def test_hand_off_and_dump_from_the_end_equal_the_forward_oracle(path, window, prompts, tools):
    from termsprawl_context import handoff
    from termsprawl_context.transcript.turns import entries_turns

    forward = handoff.select_from_entries(CX.entries(str(path)), window, prompts, tools)
    backward = handoff.read_harness_turns(str(path), CX, window, prompts, tools, lines=True)
    assert backward == forward
    for limit in (1, 3, 40):
        assert entries_turns(CX.entries_reverse(str(path)), limit, newest_first=True) == entries_turns(
            CX.entries(str(path)), limit
        )


# Written by the real Codex CLI 0.169 (`codex exec` against tests/e2e/responses_server.py, scratch
# CODEX_HOME): "first prompt"; `resume` with "please stall now" while the server stalled, ended by
# SIGINT (the client then writes a user-role `<turn_aborted>` message, kind generic.turn_aborted);
# `resume` with "after the abort". Kept outside sessions/ so the store tests' counts stay as they are.
ABORTED = FIXTURES / "aborted" / "rollout-2026-12-02T00-33-45-01a2342b-f323-71c1-bdb9-75972bddfa7d.jsonl"


def test_an_interrupted_turn_s_notice_is_the_harness_s(tmp_path):
    from termsprawl_context import handoff

    found = list(CX.entries(str(ABORTED)))
    assert "<turn_aborted>" in ABORTED.read_text()
    assert [t for e in found for t in speakers.typed_texts(e)] == [
        "first prompt",
        "please stall now",
        "after the abort",
    ]
    users = [t.text for t in handoff.read_harness_turns(str(ABORTED), facts.NAME) if t.role == "user"]
    assert users == ["first prompt", "please stall now", "after the abort"]
    # Without 0.169's kinds the marker decides; with them the kind does, whatever the text.
    lines = ABORTED.read_text().splitlines(True)
    bare = tmp_path / ABORTED.name
    bare.write_text("".join(line.replace('"content_item_kinds"', '"x"') for line in lines))
    assert [t for e in CX.entries(str(bare)) for t in speakers.typed_texts(e)] == users
    marked = tmp_path / ("m-" + ABORTED.name)
    marked.write_text("".join(line.replace("<turn_aborted>", "turn was aborted") for line in lines))
    assert [t for e in CX.entries(str(marked)) for t in speakers.typed_texts(e)] == users


def test_a_fork_outside_a_store_layout_never_finds_a_parent_elsewhere(tmp_path):
    # Four folders up from a copy is no sessions root: a parent lying three levels below
    # that folder (as another test's copy may) is not the fork's parent.
    stray = tmp_path / "a" / "b" / "c"
    stray.mkdir(parents=True)
    shutil.copy(str(PARENT), str(stray / PARENT.name))
    copy = tmp_path / "x" / "y" / "z" / FORK.name
    copy.parent.mkdir(parents=True)
    shutil.copy(str(FORK), str(copy))
    assert conversation(copy) == [("person", "fork prompt"), ("assistant", "answer 2 to: fork prompt")]
