"""transcript.record: canonical entries with physical lines, the cycle mark, calls that ran."""

import json
import os

import pytest

from record_fixtures import (
    dumps,
    lines_text,
    preamble,
    record,
    root,
    tool_answer,
    tool_call,
    user_msg,
)
from termsprawl_context.errors import RecordUnreadable, Refusal, UsageError
from termsprawl_context import model as cc
from termsprawl_context.model import ToolResult
from termsprawl_context.transcript.tool_blocks import (
    assistant_text,
    is_hook_refusal,
    not_run_kind,
    tool_calls,
    tool_use_ids,
)
from termsprawl_context.transcript.record import (
    MAX_RECORD_BYTES,
    RAN,
    call_outcomes,
    go_quote,
    iter_entries,
    mark,
    ran_tool_ids,
    read_entries,
    since,
)


def write(tmp_path, text, name="t.jsonl"):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return str(path)


# --- lines (line_test.go) -------------------------------------------------------------------


def test_skipped_lines_still_counted(tmp_path):
    path = write(
        tmp_path,
        lines_text(
            [
                preamble(),
                {"type": "mode", "mode": "default"},
                root("u1"),
                record("u2", "u1"),
                {"type": "queue-operation", "sessionId": "s"},
                record("u3", "u2"),
            ]
        ),
    )
    entries = read_entries(path)
    assert [(e.uuid, e.line) for e in entries] == [("u1", 3), ("u2", 4), ("u3", 6)]


def test_unparseable_line_counted(tmp_path):
    path = write(tmp_path, lines_text([root("u1"), "{ not json at all", record("u2", "u1")]))
    assert [e.line for e in read_entries(path)] == [1, 3]


def test_offsets_are_line_starts(tmp_path):
    text = lines_text([preamble(), root("u1"), record("u2", "u1")])
    path = write(tmp_path, text)
    data = text.encode()
    for entry in read_entries(path):
        assert data[entry.offset :].startswith(b'{"type"')
        assert json.loads(data[entry.offset :].split(b"\n", 1)[0])["uuid"] == entry.uuid


def test_scanlines_semantics(tmp_path):
    """Split on \\n only, one trailing \\r dropped, last line without newline counts; blank
    lines count; \\v, \\f, \\x1c, U+0085, U+2028 inside a line are data."""
    weird = dumps(user_msg("u2", "a\x0bb\x0cc\x1cd\x85e\u2028f"))
    text = dumps(root("u1")) + "\r\n" + "\n" + weird + "\n" + "   \n" + dumps(record("u3", "u2"))
    path = write(tmp_path, text)
    entries = read_entries(path)
    assert [(e.uuid, e.line) for e in entries] == [("u1", 1), ("u2", 3), ("u3", 5)]
    assert entries[1].content == "a\x0bb\x0cc\x1cd\x85e\u2028f"


def test_go_decoding_rules(tmp_path):
    lines = [
        '{"type":"user","UUID":"upper","parentUuid":null}',  # keys case-insensitive
        '{"type":"user","uuid":"bad-ts","timestamp":123}',  # a kept field of the wrong type
        '{"type":"user","uuid":"bad-flag","isSidechain":"true"}',
        '{"type":"user","uuid":"nan","x":NaN}',  # not JSON
        '{"type":"user","uuid":"","parentUuid":null}',  # empty uuid: no entry
        '{"type":"user","uuid":null}',
        "null",
        "[1,2]",
        '{"type":"user","uuid":"dup","uuid":"last"}',  # last of two wins
        '{"type":"user","uuid":"nulls","isSidechain":null,"cwd":null}',
    ]
    path = write(tmp_path, "\n".join(lines) + "\n")
    entries = read_entries(path)
    assert [(e.uuid, e.line) for e in entries] == [("upper", 1), ("last", 9), ("nulls", 10)]
    assert entries[2].is_sidechain is False and entries[2].cwd == ""


def test_invalid_utf8_replaced(tmp_path):
    path = write(tmp_path, b'{"type":"user","uuid":"u1","message":{"content":"a\xffb"}}\n')
    assert read_entries(path)[0].content == "a\ufffdb"


def test_line_bound(tmp_path):
    """A line of MAX_RECORD_BYTES - 1 bytes is within the reference's bound (read,
    counted); one of MAX_RECORD_BYTES is the read error. The long line that fits is
    one that parsing would not build (junk), so the decode budget below is not what
    is tested here."""
    head = b'{"type":"user","uuid":"big","message":{"content":"'
    tail = b'"}}'
    fits = b"x" * (MAX_RECORD_BYTES - 1)
    ok = write(tmp_path, fits + b"\n" + dumps(record("u2", "big")).encode() + b"\n", "ok.jsonl")
    assert [(e.uuid, e.line) for e in read_entries(ok)] == [("u2", 2)]
    too_long = head + b"x" * (MAX_RECORD_BYTES - len(head) - len(tail)) + tail
    for name, data in (("nl.jsonl", too_long + b"\n"), ("eof.jsonl", too_long)):
        bad = write(tmp_path, dumps(root("u1")).encode() + b"\n" + data, name)
        with pytest.raises(RecordUnreadable) as info:
            read_entries(bad)
        assert info.value.message.startswith("transcript: read %s: " % bad)
        assert "line 2" in info.value.message
        assert isinstance(info.value, Refusal) and not info.value.missing


def test_decode_budget(tmp_path):
    """Within the bound, a record whose decoding would pass DECODE_BUDGET_BYTES (the
    64 MB peak RSS promise) is a named read error, never parsed nor skipped; one that
    fits is read. Wide text and dense values cost more than their length."""
    from termsprawl_context.jsonl import DECODE_BUDGET_BYTES, decode_cost

    head = b'{"type":"user","uuid":"big","message":{"content":"'
    tail = b'"}}'
    readable = head + b"x" * (DECODE_BUDGET_BYTES // 3 - 4096) + tail
    ok = write(tmp_path, readable + b"\n", "fits.jsonl")
    assert [e.uuid for e in read_entries(ok)] == ["big"]
    plain = head + b"x" * (MAX_RECORD_BYTES - 1 - len(head) - len(tail)) + tail
    wide = head + "\U0001f600".encode() + b"x" * (4 * 1024 * 1024) + tail
    dense = b'{"type":"user","uuid":"big","message":{"content":[' + b"1," * (700 * 1024) + b"1]}}"
    for name, data in (("plain.jsonl", plain), ("wide.jsonl", wide), ("dense.jsonl", dense)):
        assert decode_cost(data) > DECODE_BUDGET_BYTES, name
        bad = write(tmp_path, dumps(root("u1")).encode() + b"\n" + data + b"\n", name)
        with pytest.raises(RecordUnreadable) as info:
            read_entries(bad)
        assert "line 2 would take more than %d bytes to decode" % DECODE_BUDGET_BYTES in info.value.message
    assert decode_cost(b'{"a":"' + b"x" * 1000 + b'"}') < 4000


def test_open_errors(tmp_path):
    missing = str(tmp_path / "absent.jsonl")
    with pytest.raises(RecordUnreadable) as info:
        read_entries(missing)
    assert info.value.missing is True
    assert info.value.message == "transcript: open %s: No such file or directory" % missing
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(str(fifo))
    folder = tmp_path / "dir.jsonl"
    folder.mkdir()
    for path in (str(fifo), str(folder)):
        with pytest.raises(RecordUnreadable) as info:
            read_entries(path)
        assert info.value.missing is False
        assert info.value.message.startswith("transcript: open %s: " % path)
    with pytest.raises(UsageError) as info:
        read_entries("")
    assert info.value.message == "transcript: no transcript path given"


def test_unreadable_file(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root reads everything")
    path = write(tmp_path, lines_text([root("u1")]))
    os.chmod(path, 0)
    try:
        with pytest.raises(RecordUnreadable):
            read_entries(path)
    finally:
        os.chmod(path, 0o644)


def test_iter_entries_streams(tmp_path):
    path = write(tmp_path, lines_text([root("u1"), record("u2", "u1")]) + "x" * 10)
    stream = iter_entries(path)
    assert next(stream).uuid == "u1"
    assert [e.uuid for e in stream] == ["u2"]


# --- since / mark (cycle.go) ----------------------------------------------------------------


def _entries(tmp_path):
    return read_entries(write(tmp_path, lines_text([root("a"), record("b", "a"), record("c", "b")])))


@pytest.mark.parametrize(
    "given, expected",
    [
        ("", ["a", "b", "c"]),
        ("a", ["b", "c"]),
        ("b", ["c"]),
        ("c", []),
        ("unknown", ["a", "b", "c"]),
    ],
)
def test_since(tmp_path, given, expected):
    assert [e.uuid for e in since(_entries(tmp_path), given)] == expected


def test_mark(tmp_path):
    assert mark(_entries(tmp_path)) == "c"
    assert mark([]) == ""


# --- tool calls (toolcall_test.go, line_test.go) ---------------------------------------------


def _one(tmp_path, line):
    return read_entries(write(tmp_path, lines_text([line])))[0]


def test_tool_calls_in_order_inputs_raw(tmp_path):
    entry = _one(
        tmp_path,
        {
            "type": "assistant",
            "uuid": "a1",
            "message": {
                "content": [
                    {"type": "text", "text": "doing it"},
                    {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls -la"}},
                    {"type": "tool_use", "id": "t2", "name": "Write", "input": {"file_path": "a.md", "content": "hi"}},
                ]
            },
        },
    )
    calls = tool_calls(entry)
    assert [(c.name, c.id) for c in calls] == [("Bash", "t1"), ("Write", "t2")]
    assert calls[0].input == {"command": "ls -la"}
    assert calls[1].input == {"file_path": "a.md", "content": "hi"}


@pytest.mark.parametrize(
    "line",
    [
        user_msg("u", "a string"),
        tool_answer("u", "", "t1", "output"),
        {"type": "assistant", "uuid": "u", "message": {"content": [{"type": "text", "text": "plain"}]}},
        {"type": "assistant", "uuid": "u", "message": {"content": "bare string"}},
        {"type": "assistant", "uuid": "u"},
    ],
)
def test_no_tool_calls(tmp_path, line):
    assert tool_calls(_one(tmp_path, line)) == []


def test_assistant_text(tmp_path):
    entry = _one(
        tmp_path,
        {
            "type": "assistant",
            "uuid": "a",
            "message": {
                "content": [
                    {"type": "text", "text": "Recording this as #update"},
                    {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "echo #notatag"}},
                    {"type": "text", "text": "and #decision for later"},
                ]
            },
        },
    )
    assert assistant_text(entry) == "Recording this as #update\nand #decision for later"
    assert (
        assistant_text(_one(tmp_path, {"type": "assistant", "uuid": "a", "message": {"content": "a #plain reply"}}))
        == "a #plain reply"
    )
    assert assistant_text(_one(tmp_path, user_msg("u", "typed"))) == ""
    assert assistant_text(_one(tmp_path, {"type": "assistant", "uuid": "a"})) == ""


def test_tool_use_ids(tmp_path):
    entry = _one(
        tmp_path,
        {
            "type": "assistant",
            "uuid": "a",
            "message": {
                "content": [
                    {"type": "text", "text": "x"},
                    {"type": "tool_use", "id": "toolu_abc"},
                    {"type": "tool_use", "id": "toolu_def"},
                    {"type": "tool_use", "id": ""},
                ]
            },
        },
    )
    assert tool_use_ids(entry) == ["toolu_abc", "toolu_def"]
    assert tool_use_ids(_one(tmp_path, user_msg("u", "string"))) == []
    assert tool_use_ids(_one(tmp_path, {"type": "user", "uuid": "u"})) == []


# --- calls that ran ---------------------------------------------------------------------------

NOT_RUN_BODIES = [
    (cc.NOT_RUN_HOOK, "PreToolUse:Bash hook error: [rm -rf /]: refused"),
    (cc.NOT_RUN_HOOK, "Tool call blocked by a PreToolUse hook: no"),
    (cc.NOT_RUN_PERMISSION, "The user doesn't want to proceed with this tool use."),
    (cc.NOT_RUN_PERMISSION, "Permission to use Bash has been denied."),
    (cc.NOT_RUN_PERMISSION, "Claude requested permissions to use Write, but you haven't granted it yet."),
    (cc.NOT_RUN_PERMISSION, "This command requires approval"),
    (
        cc.NOT_RUN_PERMISSION,
        "This Bash command contains multiple operations. The following part requires approval: rm x",
    ),
    (cc.NOT_RUN_PERMISSION, "Tool permission request failed"),
    (cc.NOT_RUN_INTERRUPTED, "[Request interrupted by user for tool use]"),
    (cc.NOT_RUN_TOOL_ERROR, "<tool_use_error>Cancelled: parallel tool call Bash errored</tool_use_error>"),
    (cc.NOT_RUN_SAFETY, "Contains brace with quote character (expansion obfuscation)"),
]


@pytest.mark.parametrize("kind, body", NOT_RUN_BODIES)
def test_not_run_kinds_count_only_on_is_error(tmp_path, kind, body):
    assert not_run_kind(ToolResult("t", body, True)) == kind
    assert not_run_kind(ToolResult("t", [{"type": "text", "text": body}], True)) == kind
    assert not_run_kind(ToolResult("t", body, False)) == ""  # a tool's output may say anything
    lines = [
        tool_call("a1", "", "t-run", "Bash", "ls"),
        tool_answer("r1", "a1", "t-run", "file.txt"),
        tool_call("a2", "r1", "t-refused", "Bash", "rm"),
        tool_answer("r2", "a2", "t-refused", body, True),
        tool_call("a3", "r2", "t-echo", "Bash", "cat"),
        tool_answer("r3", "a3", "t-echo", body, False),
        tool_call("a4", "r3", "t-pending", "Bash", "sleep 9"),
    ]
    entries = read_entries(write(tmp_path, lines_text(lines)))
    assert ran_tool_ids(entries) == {"t-run", "t-echo"}
    assert {use_id for use_id, outcome in call_outcomes(entries).items() if outcome != RAN} == {"t-refused"}


def test_ordinary_error_still_ran(tmp_path):
    entries = read_entries(
        write(
            tmp_path,
            lines_text(
                [
                    tool_call("a1", "", "t1", "Bash", "false"),
                    tool_answer("r1", "a1", "t1", "Exit code 1", True),
                    tool_answer("r2", "r1", "", "no id", False),
                ]
            ),
        )
    )
    assert ran_tool_ids(entries) == {"t1"}


def test_permission_opening_needs_denied():
    assert not_run_kind(ToolResult("t", "Permission to use this API key is fine", True)) == ""


def test_hook_refusal():
    body = "PreToolUse:Bash hook error: [cmd]: blocked by policy"
    assert is_hook_refusal(body)
    assert not is_hook_refusal("PreToolUse:Bash said no")
    assert not is_hook_refusal("all fine")


# --- messages ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, quoted",
    [
        ("../sibling", '"../sibling"'),
        ('a"b\\c', '"a\\"b\\\\c"'),
        ("tab\there\n", '"tab\\there\\n"'),
        ("\x00\x7f", '"\\x00\\x7f"'),
        ("café ✓", '"café ✓"'),
        ("\u200b", '"\\u200b"'),
        ("\ud83d", '"\\ufffd"'),
    ],
)
def test_go_quote(text, quoted):
    assert go_quote(text) == quoted


@pytest.mark.parametrize("spelled", ["u2", "\\u0075\\u0032", "u\\u0032", "\\u00752"])
def test_entries_since_finds_a_uuid_spelled_with_escapes(tmp_path, spelled, capsys):
    """``entries --since`` finds its mark by bytescan's rule: a line that spells the uuid
    only through ``\\u00XX`` escapes is decoded, not passed over by the byte test."""
    from termsprawl_context.cli import main

    path = tmp_path / "s.jsonl"
    lines = [
        '{"type":"user","uuid":"u1","message":{"role":"user","content":"one"}}',
        '{"type":"user","uuid":"%s","message":{"role":"user","content":"two"}}' % spelled,
        '{"type":"user","uuid":"u3","message":{"role":"user","content":"three"}}',
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for wanted, shown in (("u2", [["3", "u3"]]), ("u9", [["1", "u1"], ["2", "u2"], ["3", "u3"]])):
        assert main(["entries", str(path), "--since", wanted]) == 0
        assert [row.split("\t")[:2] for row in capsys.readouterr().out.splitlines()] == shown
