"""The parse primitives: the seed's contracts, exact texts, and never a raise on junk."""

import io

import pytest
from hypothesis import given, settings, strategies as st

from termsprawl_context import jsonl
from termsprawl_context.transcript import parse
from termsprawl_context.transcript.parse import (
    KNOWN_TOP_FIELDS,
    SIDECHAIN_SIGNAL_CUES,
    edit_file_path,
    is_edit_tool,
    is_meta,
    is_sidechain,
    is_tool_result,
    iter_objects,
    msg_text,
    parse_line,
    schema_drift_warn,
    sidechain_cue_hit,
    sidechain_is_signal,
    warn_schema_drift,
)


def drift_text(n, path):
    return (
        "termsprawl-context: WARNING \u2014 no known JSONL fields seen in first %d lines of %s; "
        "possible schema drift.\n" % (n, path)
    )


# --- parse_line ----------------------------------------------------------------------


def test_parse_line_is_the_one_jsonl_parser():
    assert parse_line is jsonl.parse_object


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("", None),
        ("   \t", None),
        ("[1, 2]", None),
        ("3", None),
        ('"s"', None),
        ("{bad", None),
        ('{"a": 1}', {"a": 1}),
        ('  {"a": 1}\r\n', {"a": 1}),
        (b'{"a": "\xff"}', {"a": "\ufffd"}),
    ],
)
def test_parse_line(raw, expected):
    assert parse_line(raw) == expected


# --- msg_text ------------------------------------------------------------------------


def test_thinking_gate():
    assert (
        msg_text([{"type": "thinking", "text": "x"}, {"type": "text", "text": "y"}]) == "<thinking>\nx\n</thinking>\ny"
    )


def test_msg_text_prefers_the_thinking_field():
    blocks = [{"type": "thinking", "thinking": "t", "text": "ignored"}, {"type": "thinking", "thinking": ""}]
    assert msg_text(blocks) == "<thinking>\nt\n</thinking>"


def test_msg_text_skips_other_blocks():
    blocks = [
        {"type": "text", "text": "a"},
        {"type": "tool_use", "name": "Bash", "input": {}},
        {"type": "tool_result", "content": "out"},
        {"type": "image", "source": {}},
        "stray",
        None,
        {"type": "text", "text": ""},
        {"type": "text", "text": "b"},
    ]
    assert msg_text(blocks) == "a\nb"


@pytest.mark.parametrize("content, expected", [("plain", "plain"), ("", ""), (None, ""), (5, ""), ({}, "")])
def test_msg_text_non_lists(content, expected):
    assert msg_text(content) == expected


# --- tool and line predicates --------------------------------------------------------


@pytest.mark.parametrize("name", ["Edit", "Write", "MultiEdit", "NotebookEdit"])
def test_edit_tools(name):
    assert is_edit_tool(name)


@pytest.mark.parametrize("name", ["edit", "Read", "Bash", "", None, ["Edit"]])
def test_not_edit_tools(name):
    assert not is_edit_tool(name)


@pytest.mark.parametrize(
    "tool_input, expected",
    [
        ({"file_path": "/a", "path": "/c"}, "/a"),
        ({"file_path": "", "notebook_path": "/b.ipynb"}, "/b.ipynb"),
        ({"file_path": 3, "path": "/c"}, "/c"),
        ({"command": "ls"}, None),
        ("file_path", None),
        (None, None),
    ],
)
def test_edit_file_path(tool_input, expected):
    assert edit_file_path(tool_input) == expected


def test_meta_and_sidechain_are_truthy_tests_tolerant_of_absence():
    assert is_meta({"isMeta": True}) and not is_meta({"isMeta": False}) and not is_meta({})
    assert is_sidechain({"isSidechain": True}) and is_sidechain({"isSidechain": 1})
    assert not is_sidechain({"isSidechain": False}) and not is_sidechain({})
    assert not is_sidechain(None) and not is_meta([])


def test_is_tool_result_takes_a_whole_line():
    line = {"type": "user", "message": {"content": [{"type": "text"}, {"type": "tool_result"}]}}
    assert is_tool_result(line)
    assert not is_tool_result(line["message"]["content"])
    assert not is_tool_result({"message": {"content": "tool_result"}})
    assert not is_tool_result({"message": "x"})
    assert not is_tool_result({"message": {"content": [["tool_result"]]}})
    assert not is_tool_result(None)


# --- sidechain cues ------------------------------------------------------------------


def test_the_fourteen_cues_in_order():
    assert SIDECHAIN_SIGNAL_CUES == (
        "actually,",
        "wait,",
        "never mind",
        "that didn't work",
        "that did not work",
        "wrong approach",
        "i was wrong",
        "scratch that",
        "on second thought",
        "doesn't work",
        "does not work",
        "abandoned",
        "dead end",
        "hypothesis",
    )
    assert isinstance(SIDECHAIN_SIGNAL_CUES, tuple)


def test_sidechain_seed_checks():
    assert len(SIDECHAIN_SIGNAL_CUES) >= 10
    assert sidechain_cue_hit("Actually, that didn't work") is not None
    assert sidechain_is_signal(["clean status summary"]) is False
    assert sidechain_is_signal(["this is a dead end"]) is True


def test_cue_hit_returns_first_cue_in_list_order_and_its_line():
    text = "ok\n  That did not work either, actually, hmm  \nmore"
    assert sidechain_cue_hit(text) == ("actually,", "That did not work either, actually, hmm")


def test_a_cue_broken_by_a_line_break_is_no_hit():
    assert sidechain_cue_hit("we hit a dead\nend here") is None
    assert sidechain_cue_hit("never\nmind  the   rest") is None
    assert sidechain_cue_hit("so on second\u2028thought") is None
    # "scratch that" is broken by CRLF; the later cue "dead end" is on one line.
    text = "scratch\r\nthat? no: dead end"
    assert sidechain_cue_hit(text) == ("dead end", "that? no: dead end")


@pytest.mark.parametrize("text", ["", None, 3, ["dead end"]])
def test_cue_hit_non_text(text):
    assert sidechain_cue_hit(text) is None


# --- schema drift --------------------------------------------------------------------


def test_known_fields():
    assert KNOWN_TOP_FIELDS == frozenset({"type", "uuid", "message", "parentUuid", "sessionId", "timestamp"})


def test_warn_schema_drift_exact_text_and_once_per_path(tmp_path):
    err = io.StringIO()
    path = str(tmp_path / "a.jsonl")
    warn_schema_drift(path, 7, True, err)
    warn_schema_drift(path, 0, False, err)
    assert err.getvalue() == ""
    warn_schema_drift(path, 7, False, err)
    warn_schema_drift(path, 9, False, err)
    assert err.getvalue() == drift_text(7, path)


def test_warning_goes_to_stderr_by_default(tmp_path, capsys):
    path = str(tmp_path / "b.jsonl")
    warn_schema_drift(path, 3, False)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == drift_text(3, path)


def test_schema_drift_warn_counts_raw_lines(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('\njunk\n{"other": 1}\n[1]\n')
    err = io.StringIO()
    schema_drift_warn(str(path), stream=err)
    assert err.getvalue() == drift_text(4, str(path))


def test_schema_drift_warn_caps_at_n_and_stops_at_a_known_field(tmp_path):
    foreign = tmp_path / "d.jsonl"
    foreign.write_text('{"x": 1}\n' * 80)
    err = io.StringIO()
    schema_drift_warn(str(foreign), n=50, stream=err)
    assert err.getvalue() == drift_text(50, str(foreign))
    fine = tmp_path / "e.jsonl"
    fine.write_text('{"x": 1}\n' * 10 + '{"type": "user"}\n')
    err = io.StringIO()
    schema_drift_warn(str(fine), stream=err)
    assert err.getvalue() == ""


def test_schema_drift_warn_is_silent_on_missing_empty_and_fifo(tmp_path):
    import os

    err = io.StringIO()
    schema_drift_warn(str(tmp_path / "missing.jsonl"), stream=err)
    (tmp_path / "empty.jsonl").write_bytes(b"")
    schema_drift_warn(str(tmp_path / "empty.jsonl"), stream=err)
    os.mkfifo(str(tmp_path / "fifo.jsonl"))
    schema_drift_warn(str(tmp_path / "fifo.jsonl"), stream=err)
    assert err.getvalue() == ""


# --- iter_objects ----------------------------------------------------------------------


def test_iter_objects_uses_zero_based_physical_numbers(tmp_path):
    path = tmp_path / "f.jsonl"
    path.write_bytes(b'{"type":"a"}\n\njunk\n{"type":"b"}\r\n[2]\n{"type":"c"}')
    assert list(iter_objects(str(path))) == [(0, {"type": "a"}), (3, {"type": "b"}), (5, {"type": "c"})]


def test_iter_objects_warns_short_files_at_the_end(tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_text('{"x": 1}\n\n{"y": 2}\n')
    err = io.StringIO()
    assert [n for n, _ in iter_objects(str(path), stream=err)] == [0, 2]
    assert err.getvalue() == drift_text(3, str(path))


def test_iter_objects_warns_before_yielding_line_n(tmp_path):
    path = tmp_path / "h.jsonl"
    path.write_text('{"x": 1}\n' * 3 + '{"type": "late"}\n')
    err = io.StringIO()
    lines = iter_objects(str(path), schema_drift_check_n=3, stream=err)
    assert [next(lines)[0] for _ in range(3)] == [0, 1, 2]
    assert err.getvalue() == ""
    assert next(lines) == (3, {"type": "late"})
    assert err.getvalue() == drift_text(3, str(path))
    assert list(lines) == []
    assert err.getvalue() == drift_text(3, str(path))


def test_iter_objects_known_field_anywhere_before_n_silences(tmp_path):
    path = tmp_path / "i.jsonl"
    path.write_text('{"x": 1}\n{"sessionId": "s"}\n' + '{"x": 1}\n' * 60)
    err = io.StringIO()
    assert len(list(iter_objects(str(path), stream=err))) == 62
    assert err.getvalue() == ""


def test_iter_objects_empty_file_is_silent_and_missing_file_raises(tmp_path):
    path = tmp_path / "j.jsonl"
    path.write_bytes(b"")
    err = io.StringIO()
    assert list(iter_objects(str(path), stream=err)) == []
    assert err.getvalue() == ""
    with pytest.raises(OSError):
        list(iter_objects(str(tmp_path / "nope.jsonl")))


def test_iter_objects_refuses_a_fifo(tmp_path):
    import os

    fifo = tmp_path / "k.jsonl"
    os.mkfifo(str(fifo))
    from termsprawl_context.errors import NotARegularFile

    with pytest.raises(NotARegularFile):
        list(iter_objects(str(fifo)))


# --- fuzz: nothing raises ------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_primitives_never_raise_on_any_json(value):
    msg_text(value)
    msg_text([value])
    is_tool_result(value)
    is_meta(value)
    is_sidechain(value)
    edit_file_path(value)
    sidechain_cue_hit(value)
    sidechain_is_signal([value])
    if isinstance(value, dict):
        is_tool_result({"message": {"content": [value]}})
        msg_text([dict(value, type="text")])
        msg_text([dict(value, type="thinking")])


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_iter_objects_never_raises_on_any_bytes(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "f.jsonl"
    path.write_bytes(data)
    err = io.StringIO()
    for number, obj in iter_objects(str(path), stream=err):
        assert isinstance(number, int) and isinstance(obj, dict)
    schema_drift_warn(str(path), stream=err)


def test_module_exports_every_named_primitive():
    for name in (
        "parse_line",
        "msg_text",
        "KNOWN_TOP_FIELDS",
        "is_edit_tool",
        "edit_file_path",
        "is_meta",
        "is_sidechain",
        "is_tool_result",
        "SIDECHAIN_SIGNAL_CUES",
        "sidechain_cue_hit",
        "sidechain_is_signal",
        "iter_objects",
        "schema_drift_warn",
        "warn_schema_drift",
    ):
        assert hasattr(parse, name), name
