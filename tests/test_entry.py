"""The record model: decoding a parsed line into an Entry, and who is speaking in it."""

import pytest

from termsprawl_context import model as cc
from termsprawl_context.jsonl import iter_lines, open_regular, parse_object
from termsprawl_context.transcript import content, tool_blocks
from termsprawl_context.model import (
    ASSISTANT,
    COMPACTION,
    INJECTED,
    META,
    NOTICE,
    OTHER,
    PERSON,
    SIDECHAIN,
    SPEAKERS,
    SYSTEM,
    TOOL_RESULT,
    decode_entry,
    entry_of,
)
from termsprawl_context.transcript.entry import speaker
from termsprawl_context.transcript.speakers import text_kind, typed_texts


def user(content, **flags):
    record = {"type": "user", "uuid": "u1", "message": {"role": "user", "content": content}}
    record.update(flags)
    return record


# --- decoding ---------------------------------------------------------------------------
def test_entry_of_reads_every_named_field():
    record = {
        "type": "user",
        "uuid": "u",
        "parentUuid": "p",
        "logicalParentUuid": "lp",
        "sessionId": "s",
        "timestamp": "2026-01-01T00:00:00Z",
        "cwd": "/w",
        "gitBranch": "main",
        "isSidechain": True,
        "isMeta": True,
        "isCompactSummary": True,
        "isVisibleInTranscriptOnly": True,
        "agentId": "a123456",
        "message": {"content": "hi"},
        "toolUseResult": {"x": 1},
        "attachment": {"type": "t"},
    }
    e = entry_of(record, line=7, offset=99)
    assert (e.type, e.uuid, e.parent_uuid, e.logical_parent_uuid, e.session_id) == ("user", "u", "p", "lp", "s")
    assert (e.timestamp, e.cwd, e.git_branch, e.agent_id) == ("2026-01-01T00:00:00Z", "/w", "main", "a123456")
    assert e.is_sidechain and e.is_meta and e.is_compact_summary and e.is_transcript_only
    assert e.content == "hi" and e.tool_use_result == {"x": 1} and e.attachment == {"type": "t"}
    assert (e.line, e.offset, e.record) == (7, 99, record)


def test_entry_of_reads_wrong_types_as_absent():
    e = entry_of({"type": 3, "uuid": None, "timestamp": 12, "isSidechain": "true", "message": "text"})
    assert (e.type, e.uuid, e.timestamp, e.is_sidechain, e.message, e.content) == ("", "", "", False, None, None)


@pytest.mark.parametrize(
    "record",
    [
        {"type": "user", "uuid": "u", "timestamp": 123},
        {"type": "user", "uuid": "u", "isSidechain": "true"},
        {"type": ["user"], "uuid": "u"},
        {"type": "user", "uuid": 5},
        {"type": "user", "uuid": "u", "parentUuid": {}},
    ],
)
def test_decode_entry_refuses_a_mistyped_kept_field(record):
    assert decode_entry(record) is None


def test_decode_entry_matches_keys_case_insensitively_and_nulls_are_zero():
    e = decode_entry({"TYPE": "user", "UUID": "u", "parentUuid": None, "IsSideChain": None, "extra": 1})
    assert (e.type, e.uuid, e.parent_uuid, e.is_sidechain) == ("user", "u", "", False)
    assert decode_entry([1, 2]) is None and decode_entry("x") is None


def test_decode_entry_keeps_unknown_kinds_verbatim():
    assert decode_entry({"type": "file-history-snapshot", "uuid": "x"}).type == "file-history-snapshot"


# --- who is speaking ----------------------------------------------------------------------
@pytest.mark.parametrize("prefix", cc.INJECTED_PREFIXES)
def test_every_injected_marker_is_the_harness(prefix):
    assert text_kind("  \n" + prefix + " body") == INJECTED
    assert speaker(entry_of(user(prefix + "x"))) == INJECTED
    assert text_kind("I typed " + prefix) == PERSON  # a marker counts only at the start


@pytest.mark.parametrize("prefix", cc.NOTICE_PREFIXES)
def test_notices_are_not_the_person(prefix):
    assert text_kind(prefix + " something") == NOTICE


@pytest.mark.parametrize(
    "record, expected",
    [
        (user("fix the bug"), PERSON),
        (
            user([{"type": "text", "text": "<ide_opened_file>x</ide_opened_file>"}, {"type": "text", "text": "go"}]),
            PERSON,
        ),
        (user([{"type": "text", "text": "<ide_selection>x</ide_selection>"}]), NOTICE),
        (user("<command-message>init</command-message>"), INJECTED),
        (user("summary", isCompactSummary=True), COMPACTION),
        (user(cc.COMPACTION_PREFIX + " that ran out of context."), COMPACTION),
        (user("body of a command", isMeta=True), META),
        (user("shown only", isVisibleInTranscriptOnly=True), META),
        (user("a sub-agent's prompt", isSidechain=True), SIDECHAIN),
        (user([{"type": "tool_result", "tool_use_id": "t", "content": "out"}]), TOOL_RESULT),
        (user([{"type": "image", "source": {}}]), OTHER),
        ({"type": "assistant", "uuid": "a", "message": {"content": [{"type": "text", "text": "ok"}]}}, ASSISTANT),
        ({"type": "assistant", "uuid": "a", "isSidechain": True, "message": {"content": "x"}}, SIDECHAIN),
        ({"type": "system", "uuid": "s", "content": "x"}, SYSTEM),
        ({"type": "summary", "summary": "x", "leafUuid": "u"}, OTHER),
        (
            {
                "type": "attachment",
                "uuid": "q",
                "attachment": {"type": "queued_command", "commandMode": "prompt", "prompt": "also do y"},
            },
            PERSON,
        ),
        (
            {
                "type": "attachment",
                "uuid": "q",
                "attachment": {"type": "queued_command", "commandMode": "task-notification", "prompt": "x"},
            },
            INJECTED,
        ),
    ],
)
def test_speaker(record, expected):
    assert speaker(entry_of(record)) == expected


def test_typed_texts_keep_only_the_persons_blocks():
    record = user(
        [
            {"type": "text", "text": "<ide_opened_file>The user opened a.py</ide_opened_file>"},
            "bare string typed",
            {"type": "text", "text": "<system-reminder>be nice</system-reminder>"},
            {"type": "text", "text": "please fix a.py"},
            {"type": "tool_result", "tool_use_id": "t", "content": "out"},
        ]
    )
    assert typed_texts(entry_of(record)) == ["bare string typed", "please fix a.py"]
    assert typed_texts(entry_of(user("x", isMeta=True))) == []
    queued = {
        "type": "attachment",
        "attachment": {
            "type": "queued_command",
            "commandMode": "prompt",
            "prompt": [{"type": "text", "text": "one"}, {"type": "image"}, {"type": "text", "text": "two"}],
        },
    }
    assert typed_texts(entry_of(queued)) == ["one\n\ntwo"]


def test_display_text_is_the_dumps_rule():
    assert content.display_text("") == ""
    assert (
        content.display_text(
            [{"type": "text", "text": "a"}, {"type": "thinking", "thinking": "t"}, {"type": "text", "text": "b"}]
        )
        == "a\nb"
    )
    assert content.display_text(["bare"]) is None
    assert content.display_text(None) is None


def test_tool_calls_and_results():
    call = entry_of(
        {
            "type": "assistant",
            "message": {
                "content": [
                    {"type": "text", "text": "running"},
                    {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}},
                    {"type": "tool_use", "id": 5, "name": None},
                ]
            },
        }
    )
    assert tool_blocks.tool_calls(call) == [("t1", "Bash", {"command": "ls"}), ("", "", None)]
    assert tool_blocks.assistant_text(call) == "running"
    result = entry_of(
        user(
            [{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "a"}], "is_error": True}]
        )
    )
    assert tool_blocks.tool_results(result) == [("t1", [{"type": "text", "text": "a"}], True)]
    assert tool_blocks.result_texts([{"type": "text", "text": "a"}, {"type": "image"}, {"text": "b"}]) == ["a", "b"]
    assert tool_blocks.tool_calls(result) == [] and tool_blocks.tool_results(call) == []


def test_every_corpus_line_has_exactly_one_speaker(corpus):
    seen = set()
    for path in corpus:
        with open_regular(str(path)) as f:
            for line in iter_lines(f):
                record = parse_object(line.raw)
                if record is None:
                    continue
                lenient = entry_of(record, line.number, line.offset)
                who = speaker(lenient)
                assert who in SPEAKERS
                seen.add(who)
                canonical = decode_entry(record)
                if canonical is not None and lenient.type in ("user", "assistant"):
                    assert speaker(canonical) == who, (str(path), line.number)
    # The real data holds every kind of speaker the model names but a bare notice.
    assert {PERSON, ASSISTANT, INJECTED, META, COMPACTION, TOOL_RESULT, SIDECHAIN, SYSTEM} <= seen


def test_speaker_names_are_unique():
    assert len(set(SPEAKERS)) == len(SPEAKERS)
