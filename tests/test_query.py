"""Queries: the reference's query_test table, then the expression language itself."""

import json

import pytest

import cite_fixtures as fx
from termsprawl_context.transcript import query
from termsprawl_context.model import decode_entry
from termsprawl_context.errors import EXIT_QUERY_NEVER_RAN, ExpressionNeverRan, ExpressionNotBoolean, QueryCompileError


def entries(*lines):
    return [decode_entry(json.loads(text), n) for n, text in enumerate(lines, 1)]


def uuids(found):
    return [e.uuid for e in found]


ROOT_RECORD = (fx.root("u1"), fx.record("u2", "u1"))
SHAPES = (
    fx.user_msg("u1", "plain string"),
    fx.tool_call("u2", "u1", "t1", "Bash", "rm -rf /"),
    fx.line(
        {
            "type": "user",
            "uuid": "u3",
            "parentUuid": "u2",
            "isSidechain": False,
            "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": "gone"}]},
            "toolUseResult": {"stdout": "deleted everything", "stderr": ""},
        }
    ),
)


# --- query_test.go -------------------------------------------------------------------------------
def test_excludes_sidechains_by_default():
    found = entries(
        fx.root("main-1"),
        fx.line({"type": "assistant", "uuid": "sub-1", "isSidechain": True, "message": {"content": "x"}}),
        fx.record("main-2", "main-1"),
    )
    assert uuids(query.filter(found, "")) == ["main-1", "main-2"]
    assert len(query.filter(found, "", include_sidechains=True)) == 3
    assert uuids(query.filter(found, "isSidechain", include_sidechains=True)) == ["sub-1"]


def test_where_reads_the_entry():
    found = entries(fx.root("u1"), fx.record("u2", "u1"), fx.record("u3", "u2"))
    assert len(query.filter(found, 'type == "assistant"')) == 2
    assert uuids(query.filter(found, 'uuid == "u1"')) == ["u1"]
    assert uuids(query.filter(found, 'type == "user"')) == ["u1"]


def test_where_reaches_into_a_message():
    found = entries(*SHAPES)
    assert uuids(query.filter(found, 'message?.content[0]?.name == "Bash"')) == ["u2"]
    assert uuids(query.filter(found, 'toolUseResult?.stdout contains "deleted"')) == ["u3"]


def test_entries_of_another_shape_are_not_matches():
    assert uuids(query.filter(entries(*SHAPES[:2]), 'message?.content[0]?.name == "Bash"')) == ["u2"]


def test_errors_when_the_expression_never_ran():
    with pytest.raises(ExpressionNeverRan) as caught:
        query.filter(entries(*ROOT_RECORD), 'int("notanumber") == 1')
    assert "without having looked" in str(caught.value)
    assert str(caught.value) == (
        'transcript: where "int(\\"notanumber\\") == 1": expression could not be evaluated against any entry: not one '
        "of the 2 entries could be evaluated against it, so the answer would report no violations without having "
        "looked"
    )
    assert caught.value.exit_code == EXIT_QUERY_NEVER_RAN


def test_an_expression_that_ran_and_said_no():
    assert query.filter(entries(*ROOT_RECORD), "1/0 == 1") == []


def test_an_empty_session_is_not_a_vacuous_rule():
    assert query.filter([], 'int("notanumber") == 1') == []


def test_absence_is_an_answer():
    found = query.filter(entries(*ROOT_RECORD), 'type == "nothing-like-this"')
    assert found == [] and json.dumps(found) == "[]"


@pytest.mark.parametrize(
    "source",
    [
        "type ==",
        "uuid",
        'toolName == "Bash"',
        "uuid and true",
        "type.x",
        "isSidechain < 1",
        "1 +",
        "(type",
        '"a" contains 1',
        "len(1, 2)",
        "eval(uuid)",
        "__import__",
        "type == 'x' x",
        "1 in 2",
        "message ? 1 : 2",
        "not uuid",
        "- type",
        "'unterminated",
        "'\\q'",
        "type[true]",
    ],
)
def test_refuses_an_expression_that_will_not_compile(source):
    with pytest.raises(QueryCompileError) as caught:
        query.compile_where(source)
    assert str(caught.value).startswith("transcript: where ")
    assert caught.value.exit_code == 2


def test_a_non_boolean_result_at_run_time():
    with pytest.raises(ExpressionNotBoolean) as caught:
        query.filter(entries(*SHAPES), "message")
    assert "produced map[string]interface {}, not a boolean" in str(caught.value)


# --- the language ----------------------------------------------------------------------------------
ENV_ENTRY = entries(
    fx.line(
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": "p0",
            "timestamp": "2026-08-13T09:00:00Z",
            "isSidechain": False,
            "message": {
                "role": "user",
                "content": [{"type": "text", "text": "Hello World"}, {"type": "image"}],
                "n": 3,
                "f": 2.5,
                "flag": True,
                "empty": None,
                "tags": ["a", "b"],
            },
            "toolUseResult": "text result",
        }
    )
)


@pytest.mark.parametrize(
    "source, expected",
    [
        ('type == "user" and uuid == "u1"', True),
        ('type == "user" && not (uuid == "u2")', True),
        ('type == "assistant" || parentUuid == "p0"', True),
        ("!isSidechain", True),
        ('not type == "assistant"', True),
        ('logicalParentUuid == ""', True),
        ('timestamp startsWith "2026-08" and timestamp endsWith "Z"', True),
        ('message.content[0].text contains "World"', True),
        ('message.content[-1].type == "image"', True),
        ('message["role"] == "user"', True),
        ("message.missing == nil", True),
        ("message.missing?.deeper.still == nil", True),
        ("message.n + 1 == 4", True),
        ("message.n * 2 - 1 == 5", True),
        ("message.n / 2 == 1.5", True),
        ("message.n % 2 == 1", True),
        ("-message.n == -3", True),
        ("message.f > 2 and message.f <= 2.5", True),
        ("message.n == 3.0", True),
        ("message.flag == true", True),
        ("message.flag == 1", False),
        ('"b" in message.tags', True),
        ('"c" not in message.tags', True),
        ('"role" in message', True),
        ('message.tags == ["a", "b"]', True),
        ("len(message.tags) == 2 and len(uuid) == 2", True),
        ('int("42") == 42 and int(message.f) == 2', True),
        ('"a" + "b" == "ab"', True),
        ('"abc" < "abd"', True),
        ("'single' == \"single\"", True),
        ('"\\u00e9" == "é"', True),
        ('toolUseResult contains "text"', True),
        ('uuid[0] == "u"', True),
        ("1_000 == 1000 and 1e3 == 1000", True),
        ("(1 + 2) * 3 == 9", True),
    ],
)
def test_language(source, expected):
    assert bool(query.filter(ENV_ENTRY, source)) is expected


@pytest.mark.parametrize(
    "source",
    [
        "message.content[5].type == 'x'",  # out of range
        "message.empty.x == 1",  # nil without ?.
        "toolUseResult.x == 1",  # a string has no fields
        "message.n % 0 == 1",
        "message.tags < 1",
        "message.content contains 'x'",
        "message.flag and message.n",
        'int("1.5") == 1',
    ],
)
def test_run_time_errors_are_not_matches(source):
    with pytest.raises(ExpressionNeverRan):
        query.filter(ENV_ENTRY, source)


def test_never_eval():
    # Names outside the environment are refused before anything runs.
    for source in ("__class__ == 1", "message.__class__ == 1"):
        try:
            found = query.filter(ENV_ENTRY, source)
        except (QueryCompileError, ExpressionNeverRan):
            continue
        assert found == []


def test_deep_nesting_is_a_compile_error():
    with pytest.raises(QueryCompileError):
        query.compile_where("(" * 5000 + "true" + ")" * 5000)
