"""Gemini CLI chats normalised into the record model (harness/gemini.py).

The fixtures are real: tests/fixtures/gemini-0.61/ holds the two files one scripted run of
Gemini CLI 0.61.0 wrote (a first prompt behind a SessionStart hook's context and a shell
call, then ``gemini -r latest`` with a second prompt: the resumed conversation goes on in
the first file; the second is the stub the resume's hook payload named). The rest are
lines built the way the CLI writes them, for what one run does not show (rewinds, a
second copy of a message, the older single-JSON chat, torn and junk lines)."""

import json
import os
from pathlib import Path

import pytest

from termsprawl_context import harness
from termsprawl_context.harness import gemini
from termsprawl_context.harness.gemini import facts
from termsprawl_context.model import ASSISTANT, META, PERSON, SIDECHAIN, SYSTEM, TOOL_RESULT
from termsprawl_context.transcript.entry import speaker
from termsprawl_context.transcript.speakers import typed_texts
from termsprawl_context.transcript.tool_blocks import assistant_text, tool_calls, tool_results

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "gemini-0.61"
MAIN = FIXTURES / "session-2026-12-01T23-26-8f455c26.jsonl"
STUB = FIXTURES / "session-2026-12-01T23-27-8f455c26.jsonl"
SESSION_ID = "8f455c26-deef-46f3-bb75-17621b3a9608"
HEADER = {
    "sessionId": "5e55",
    "projectHash": "ab",
    "startTime": "2026-12-01T00:00:00.000Z",
    "lastUpdated": "2026-12-01T00:00:00.000Z",
    "kind": "main",
}


def prompts(path):
    return [text for e in gemini.entries(str(path)) for text in typed_texts(e)]


def answers(path):
    return [assistant_text(e) for e in gemini.entries(str(path)) if assistant_text(e)]


def user(mid, text):
    return {"id": mid, "timestamp": "2026-12-01T00:00:01.000Z", "type": "user", "content": [{"text": text}]}


def said(mid, text, **extra):
    return dict(
        {"id": mid, "timestamp": "2026-12-01T00:00:02.000Z", "type": "gemini", "content": text, "thoughts": []}, **extra
    )


def write_chat(tmp_path, records, name="session-2026-12-01T00-00-5e55.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


# --- the real run -------------------------------------------------------------------------------
def test_real_chat_typed_prompts_and_answers_without_harness_text():
    found = list(gemini.entries(str(MAIN)))
    assert prompts(MAIN) == ["first prompt please", "second prompt"]
    assert answers(MAIN) == ["first answer", "second answer"]
    kinds = [speaker(e) for e in found]
    assert kinds.count(PERSON) == 2 and kinds.count(ASSISTANT) == 3 and kinds.count(TOOL_RESULT) == 1
    metas = [e.content[0]["text"] for e in found if speaker(e) == META]
    # The session context, and each process's hook block split off its first prompt.
    assert metas[0].startswith(facts.SESSION_CONTEXT_OPEN)
    assert metas[1:] == ["<hook_context>hook says hi</hook_context>"] * 2
    for e in found:
        if speaker(e) in (PERSON, ASSISTANT):
            for block in e.content:
                text = block.get("text") or ""
                assert facts.HOOK_CONTEXT_OPEN not in text and facts.SESSION_CONTEXT_OPEN not in text
    assert {e.session_id for e in found} == {SESSION_ID}


def test_real_chat_tool_call_and_its_result_once_despite_the_resume_copies():
    found = list(gemini.entries(str(MAIN)))
    calls = [c for e in found for c in tool_calls(e)]
    results = [r for e in found for r in tool_results(e)]
    assert [(c.name, c.input) for c in calls] == [("run_shell_command", {"command": "echo hello-from-shell"})]
    assert [r.tool_use_id for r in results] == [calls[0].id]
    assert "Output: hello-from-shell" in results[0].content and results[0].is_error is False
    # The file itself holds the result three times (the call's own result, the user
    # message, and the resume's rebuilt list); the entries give it once, after the call.
    assert MAIN.read_text().count("Output: hello-from-shell") >= 3
    order = [speaker(e) for e in found if speaker(e) != META]
    assert order == [PERSON, ASSISTANT, TOOL_RESULT, ASSISTANT, PERSON, ASSISTANT]


def test_the_resume_list_that_lacks_the_first_prompt_does_not_lose_it():
    """0.61's rebuilt list skips the prompt that opens with <hook_context>; applying it
    literally (the client's own loader) would drop the person's first words."""
    lines = [json.loads(line) for line in MAIN.read_text().splitlines() if line.strip()]
    rebuilt = [r["$set"]["messages"] for r in lines if isinstance(r.get("$set", {}).get("messages"), list)][-1]
    rebuilt_texts = json.dumps(rebuilt)
    assert "first prompt please" not in rebuilt_texts
    assert prompts(MAIN)[0] == "first prompt please"


def test_resume_stub_is_relocated_to_the_conversation(tmp_path):
    chats = tmp_path / "chats"
    chats.mkdir()
    for source in (MAIN, STUB):
        (chats / source.name).write_bytes(source.read_bytes())
    stub = str(chats / STUB.name)
    assert prompts(stub) == []  # the stub holds the header and the session context only
    assert gemini.resumed_chat(stub, SESSION_ID) == str(chats / MAIN.name)
    assert gemini.HARNESS.hook_transcript(stub, SESSION_ID, "resume") == str(chats / MAIN.name)
    assert gemini.HARNESS.hook_transcript(stub, SESSION_ID, "startup") == stub
    # Another session's file with the same 8 characters is not taken.
    assert gemini.resumed_chat(stub, SESSION_ID[:8] + "-0000-4000-8000-000000000000") == stub


def test_harness_registry_finds_gemini_files_by_store_and_by_content(tmp_path):
    home = tmp_path / "home"
    chats = home / ".gemini" / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    (chats / MAIN.name).write_bytes(MAIN.read_bytes())
    (chats / STUB.name).write_bytes(STUB.read_bytes())  # a resume's stub: not a session of its own
    env = {"HOME": str(home)}
    assert harness.get(facts.NAME) is gemini.HARNESS
    assert harness.for_path(str(chats / MAIN.name), env) is gemini.HARNESS
    assert harness.for_path(str(MAIN), env) is gemini.HARNESS  # outside the store: its header says so
    sessions = list(gemini.HARNESS.sessions(env))
    assert [(s.session_id, s.path) for s in sessions] == [(SESSION_ID, str(chats / MAIN.name))]
    assert gemini.HARNESS.store_roots({"GEMINI_CLI_HOME": str(tmp_path / "x"), "HOME": str(home)}) == [
        str(tmp_path / "x" / ".gemini" / "tmp")
    ]


# --- the log's rules ------------------------------------------------------------------------------
def test_last_copy_of_a_message_wins_in_its_place(tmp_path):
    """A message sits where its last copy is, so a reader from the end knows it at the first
    copy it meets (issue 29, item 5). Gemini CLI 0.61's loader keeps a message at its first
    copy (bundle/chunk-JDPZ4CE3.js, packages/core/dist/src/services/chatRecordingService.js:
    ``loadConversationRecord``, ``messagesMap.set(id, record)`` on a JS Map), but its writer
    only ever writes a message again while it is the conversation's last
    (``ChatRecordingService.recordMessageTokens`` and ``recordToolCalls`` update
    ``getLastMessage``; ``pushMessage`` appends the copy; no caller passes an existing id to
    ``recordMessage``), so on every log 0.61 writes the two places are one. Only a log no
    client wrote, like this one, tells them apart."""
    path = write_chat(
        tmp_path,
        [
            HEADER,
            user("u1", "one"),
            said("g1", ""),
            user("u2", "two"),
            said("g1", "answer one, filled in later"),
            {"$set": {"lastUpdated": "x"}},
        ],
    )
    assert prompts(path) == ["one", "two"]
    assert answers(path) == ["answer one, filled in later"]
    assert [e.uuid for e in gemini.entries(str(path))] == ["u1", "u2", "g1"]
    assert [e.uuid for e in gemini.entries_reverse(str(path))] == ["g1", "u2", "u1"]
    assert [t.text for t in gemini.HARNESS.last_turns(str(path), 2)] == ["two", "answer one, filled in later"]


def test_rewind_drops_the_message_and_everything_after_it(tmp_path):
    path = write_chat(
        tmp_path,
        [
            HEADER,
            user("u1", "one"),
            said("g1", "a1"),
            user("u2", "two"),
            said("g2", "a2"),
            {"$rewindTo": "u2"},
            user("u3", "three"),
            said("g3", "a3"),
        ],
    )
    assert prompts(path) == ["one", "three"]
    assert answers(path) == ["a1", "a3"]
    # An id the log never held clears it (the client's rule).
    path = write_chat(tmp_path, [HEADER, user("u1", "one"), {"$rewindTo": "nope"}, user("u2", "two")])
    assert prompts(path) == ["two"]


def test_set_messages_updates_and_adds_but_never_drops(tmp_path):
    path = write_chat(
        tmp_path,
        [
            HEADER,
            user("u1", "one"),
            said("g1", "a1"),
            {"$set": {"messages": [said("g1", "a1 rebuilt"), user("u2", "two")], "summary": "The title"}},
        ],
    )
    found = list(gemini.entries(str(path)))
    assert [text for e in found for text in typed_texts(e)] == ["one", "two"]
    assert [assistant_text(e) for e in found if assistant_text(e)] == ["a1 rebuilt"]
    assert {e.session_id for e in found} == {"5e55"}


def test_gemini_message_with_parts_thoughts_and_calls(tmp_path):
    call = {
        "id": "c1",
        "name": "read_file",
        "args": {"path": "x"},
        "status": "error",
        "result": [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"error": "no such file"}}}],
    }
    message = said(
        "g1",
        [
            {"text": "thinking it over", "thought": True},
            {"text": "visible"},
            {"functionCall": {"id": "c1", "name": "read_file", "args": {"path": "x"}}},
        ],
        thoughts=[{"subject": "Plan", "description": "read x"}],
        toolCalls=[call],
    )
    path = write_chat(
        tmp_path,
        [
            HEADER,
            user("u1", "go"),
            message,
            {"id": "u2", "type": "user", "content": [call["result"][0]]},
            {"id": "i1", "type": "info", "content": "Request cancelled."},
        ],
    )
    found = list(gemini.entries(str(path)))
    reply = [e for e in found if speaker(e) == ASSISTANT][0]
    assert [b["type"] for b in reply.content] == ["thinking", "thinking", "text", "tool_use"]
    assert reply.content[0]["thinking"] == "**Plan** read x" and assistant_text(reply) == "visible"
    results = [r for e in found for r in tool_results(e)]
    assert [(r.tool_use_id, r.content, r.is_error) for r in results] == [("c1", "no such file", True)]
    assert speaker(found[-1]) == SYSTEM and typed_texts(found[-1]) == []


def test_subagent_chat_names_its_agent(tmp_path):
    header = dict(HEADER, kind="subagent", sessionId="child-1")
    path = write_chat(tmp_path, [header, user("u1", "task for the child"), said("g1", "done")], "child-1.jsonl")
    found = list(gemini.entries(str(path)))
    assert {e.agent_id for e in found} == {"child-1"}
    # The child's "user" text is the parent model's prompt, never the person's.
    assert {speaker(e) for e in found} == {SIDECHAIN} and prompts(path) == []
    assert facts.subagent_dir(str(MAIN), SESSION_ID) == str(FIXTURES / SESSION_ID)
    assert facts.subagent_dir(str(MAIN), "../x") == ""


def test_legacy_single_json_chat(tmp_path):
    legacy = {
        "sessionId": "old",
        "projectHash": "p",
        "startTime": "t",
        "lastUpdated": "t",
        "messages": [
            {"id": "a", "type": "user", "content": "an old prompt"},
            {"id": "b", "type": "gemini", "content": "an old answer"},
            {"id": "a", "type": "user", "content": "an old prompt, edited"},
        ],
    }
    path = tmp_path / "session-2025-01-01T00-00-old.json"
    path.write_text(json.dumps(legacy, indent=2))
    assert prompts(path) == ["an old prompt, edited"]
    assert answers(path) == ["an old answer"]
    path.write_text("{not json")
    assert prompts(path) == []


# --- odd input ------------------------------------------------------------------------------------
def test_every_truncated_copy_reads_and_keeps_only_what_the_whole_has(tmp_path):
    data = MAIN.read_bytes()
    whole_prompts, whole_answers = set(prompts(MAIN)), set(answers(MAIN))
    copy = tmp_path / MAIN.name
    seen = set()
    for cut in sorted(set(range(0, len(data), 97)) | {i + 1 for i, b in enumerate(data) if b == 10}):
        copy.write_bytes(data[:cut])
        got = prompts(copy)
        assert set(got) <= whole_prompts and set(answers(copy)) <= whole_answers
        seen.update(got)
    assert seen == whole_prompts


def test_junk_torn_and_giant_lines_shrink_the_answer_only(tmp_path):
    from termsprawl_context.jsonl import MAX_LINE_BYTES

    records = [
        json.dumps(HEADER),
        json.dumps(user("u1", "one")),
        "not json",
        "[1, 2]",
        '{"id": 5}',
        json.dumps({"$rewindTo": 7}),
        json.dumps({"$set": "x"}),
        json.dumps({"$set": {"messages": "x"}}),
        '{"id": "big", "type": "user", "content": "' + "x" * (MAX_LINE_BYTES + 10) + '"}',
        json.dumps(said("g1", "a1")),
        "\xff\xfe",
        json.dumps(user("u2", "two"))[:-5],
    ]
    path = tmp_path / "session-x.jsonl"
    path.write_bytes("\n".join(records).encode("utf-8", "surrogateescape"))
    assert prompts(path) == ["one"]
    assert answers(path) == ["a1"]


def test_missing_file_and_fifo_raise_oserror(tmp_path):
    with pytest.raises(OSError):
        list(gemini.entries(str(tmp_path / "missing.jsonl")))
    fifo = tmp_path / "session-fifo.jsonl"
    os.mkfifo(str(fifo))
    with pytest.raises(OSError):
        list(gemini.entries(str(fifo)))


def test_subagent_hook_payload_is_recognised_by_its_folder():
    parent = "/h/.gemini/tmp/p/chats/"
    assert gemini.HARNESS.hook_subagent({"transcript_path": parent + "session-2026-x-abcd.jsonl"}) == ""
    assert gemini.HARNESS.hook_subagent({"transcript_path": parent + SESSION_ID + "/child-1.jsonl"}) == "child-1"
    assert gemini.HARNESS.hook_subagent({}) == ""


# --- the dump's tail read equals the forward reading (the oracle) ---------------------------------
def _oracle_turns(path, limit):
    from termsprawl_context.transcript.turns import entries_turns

    try:
        return entries_turns(gemini.entries(str(path)), limit)
    except OSError:
        return []


def _mutated_copies(seed, count):
    """The real chat with lines mutated, torn, replaced by rewinds or junk (seeded)."""
    import random

    rnd = random.Random(seed)
    lines = MAIN.read_bytes().split(b"\n")
    ids = [json.loads(line)["id"] for line in lines if line.startswith(b'{"id"')]
    junk = [None, 1, "", [], {}, [{"text": 3}], {"text": "t"}, [{"functionResponse": 5}], [{"text": "typed"}]]
    for _ in range(count):
        out = []
        for line in lines:
            roll = rnd.random()
            if roll < 0.1 and line.startswith(b"{"):
                record = json.loads(line)
                key = rnd.choice(sorted(record))
                record[key] = rnd.choice(junk)
                line = json.dumps(record).encode()
            elif roll < 0.13:
                line = line[: rnd.randrange(len(line) + 1)]
            elif roll < 0.16:
                line = json.dumps({"$rewindTo": rnd.choice(ids + ["unknown"])}).encode()
            elif roll < 0.19 and ids:
                line = json.dumps(user(rnd.choice(ids), "again %d" % rnd.randrange(9))).encode()
            out.append(line)
        yield b"\n".join(out)


@pytest.mark.parametrize("limit", [1, 2, 3, 40])
def test_last_turns_equal_the_forward_reading(tmp_path, limit):
    copy = tmp_path / MAIN.name
    for data in [MAIN.read_bytes(), STUB.read_bytes(), b"", b"junk\n"] + list(_mutated_copies(limit, 60)):
        copy.write_bytes(data)
        assert gemini.HARNESS.last_turns(str(copy), limit) == _oracle_turns(copy, limit)
    assert [t.text for t in gemini.HARNESS.last_turns(str(MAIN), 40)] == [
        "first prompt please",
        "first answer",
        "second prompt",
        "second answer",
    ]
    assert gemini.HARNESS.last_turns(str(tmp_path / "missing.jsonl"), limit) == []


def test_last_turns_of_a_legacy_chat_equal_the_forward_reading(tmp_path):
    legacy = {
        "sessionId": "old",
        "projectHash": "p",
        "messages": [
            {"id": str(i), "type": "user" if i % 2 == 0 else "gemini", "content": "m%d" % i} for i in range(9)
        ],
    }
    path = tmp_path / "session-old.json"
    path.write_text(json.dumps(legacy))
    for limit in (1, 4, 40):
        assert gemini.HARNESS.last_turns(str(path), limit) == _oracle_turns(path, limit)


def test_compression_summary_and_its_reply_are_the_harness(tmp_path):
    """0.61's chat compression (read in its bundle): the history becomes the session
    context, the model's summary as a user message, a fixed reply, then the kept tail;
    the new two are appended at the log's end."""
    from termsprawl_context.model import COMPACTION

    summary = "scratchpad first\n<state_snapshot>\n<overall_goal>ship it</overall_goal>\n</state_snapshot>"
    path = write_chat(
        tmp_path,
        [
            HEADER,
            user("u1", "one"),
            said("g1", "a1"),
            user("u2", "two"),
            said("g2", "a2"),
            {"$set": {"messages": [user("u2", "two"), said("g2", "a2")]}},
            user("s1", summary),
            said("k1", facts.COMPRESSION_ACK),
            user("u3", "three"),
            said("g3", "a3"),
        ],
    )
    found = list(gemini.entries(str(path)))
    assert prompts(path) == ["one", "two", "three"]
    assert [assistant_text(e) for e in found if speaker(e) == ASSISTANT] == ["a1", "a2", "a3"]
    assert [speaker(e) for e in found if e.uuid in ("s1", "k1")] == [COMPACTION, SYSTEM]
    assert [t.text for t in gemini.HARNESS.last_turns(str(path), 40)] == ["one", "a1", "two", "a2", "three", "a3"]
    # Quoting one tag in a prompt is still the person's prompt.
    path = write_chat(tmp_path, [HEADER, user("u1", "what is a <state_snapshot> for?")])
    assert prompts(path) == ["what is a <state_snapshot> for?"]


def test_entries_reverse_equal_the_forward_reading_reversed(tmp_path):
    """The newest-first reading (the hand-off's, the listings') gives each tool call and
    result where the forward reading does, across the resume's copies."""
    copy = tmp_path / MAIN.name
    extra = [
        json.dumps(r).encode()
        for r in (
            said(
                "g9",
                "",
                toolCalls=[
                    {
                        "id": "x1",
                        "name": "n",
                        "args": {},
                        "result": [{"functionResponse": {"id": "x1", "name": "n", "response": {"output": "o"}}}],
                    }
                ],
            ),
            {"id": "u9", "type": "user", "content": [{"functionResponse": {"id": "x1", "response": {"output": "o"}}}]},
            said("g8", [{"functionCall": {"id": "x1", "name": "n", "args": {}}}, {"text": "again"}]),
        )
    ]
    datas = [MAIN.read_bytes(), MAIN.read_bytes() + b"\n".join(extra) + b"\n", STUB.read_bytes(), b"", b"junk"]
    for data in datas + list(_mutated_copies(7, 80)):
        copy.write_bytes(data)
        forward = [e._replace(line=0) for e in gemini.entries(str(copy))]  # no line numbers from the end
        assert list(gemini.entries_reverse(str(copy))) == forward[::-1]
        assert gemini.HARNESS.entries_reverse(str(copy)) is not None
    legacy = tmp_path / "session-old.json"
    legacy.write_text(json.dumps({"sessionId": "o", "messages": [user("a", "p"), said("b", "q")]}))
    assert list(gemini.entries_reverse(str(legacy))) == list(gemini.entries(str(legacy)))[::-1]
    with pytest.raises(OSError):
        gemini.entries_reverse(str(tmp_path / "missing.jsonl"))


# Written by the real Gemini CLI 0.61 (`gemini -p "explain @parser.py please"` against
# tests/e2e/gemini_server.py, scratch HOME, no hook): the client expands the @ reference into the
# message's `content` (the file's text between "--- Content from referenced files ---" and "--- End
# of content ---") and keeps what the person typed in `displayContent`.
AT_REFERENCE = FIXTURES / "at-reference" / "session-2026-12-02T00-36-ed1c6ebc.jsonl"


def test_an_at_reference_s_expansion_is_not_the_person_s_words():
    from termsprawl_context import handoff

    assert "--- Content from referenced files ---" in AT_REFERENCE.read_text()
    found = list(gemini.entries(str(AT_REFERENCE)))
    assert [t for e in found for t in typed_texts(e)] == ["explain @parser.py please"]
    turns = [(t.role, t.text) for t in handoff.read_harness_turns(str(AT_REFERENCE), facts.NAME)]
    assert turns == [("user", "explain @parser.py please"), ("assistant", "gm answer about the file")]
    backwards = list(gemini.entries_reverse(str(AT_REFERENCE)))
    assert [t for e in reversed(backwards) for t in typed_texts(e)] == ["explain @parser.py please"]
