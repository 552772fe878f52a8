"""Untrusted text never breaks the grounding code: any string is a command line the
echo classifier judges, an envelope the extractor reads, an expression that compiles or
is refused by name, and a quote that resolves or is refused by name."""

import json

from hypothesis import given, settings, strategies as st

import cite_fixtures as fx
from termsprawl_context import cite, errors
from termsprawl_context.errors import CitationError
from termsprawl_context.transcript.shell import command_paths
from termsprawl_context.transcript import echo, query
from termsprawl_context.model import decode_entry

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200)
SHELLISH = st.text(alphabet=list("ab git log sh -c'\"\\|&;()<>`#=\n.$/"), max_size=80)
_PIECES = [
    "type",
    "uuid",
    "message",
    "toolUseResult",
    "?.",
    ".",
    "[",
    "]",
    "(",
    ")",
    "0",
    "1.5",
    '"a"',
    "'b'",
    "==",
    "!=",
    "<",
    ">=",
    "and",
    "or",
    "not",
    "in",
    "contains",
    "int",
    "len",
    ",",
    "+",
    "-",
    "/",
    "%",
    " ",
    "nil",
    "true",
    '"',
]
EXPRISH = st.lists(st.sampled_from(_PIECES), max_size=14).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(TEXT, SHELLISH))
def test_echo_classifier_answers_every_string(command):
    assert echo.echoes_record(command) in (True, False)
    assert isinstance(command_paths(command), list)


@settings(max_examples=300, deadline=None)
@given(st.one_of(TEXT, st.builds(lambda a, b: 'The user answered: "%s"="%s' % (a, b), TEXT, TEXT)))
def test_answers_are_substrings_of_the_envelope(body):
    for answer in cite.extract_answers(body):
        assert answer in body


ENTRY = decode_entry(json.loads(fx.user_msg("u1", "hello")), 1)


@settings(max_examples=400, deadline=None)
@given(st.one_of(TEXT, EXPRISH))
def test_expressions_compile_or_are_refused(source):
    try:
        query.compile_where(source)
    except query.QueryCompileError:
        return
    try:
        query.filter([ENTRY], source)
    except (query.ExpressionNeverRan, query.ExpressionNotBoolean):
        pass


@settings(max_examples=60, deadline=None)
@given(TEXT)
def test_any_quote_resolves_or_is_refused(tmp_path_factory, quote):
    path = fx.write(tmp_path_factory.mktemp("q") / "r.jsonl", [fx.user_msg("u1", "some words here ünïcode")])
    try:
        got = cite.resolve_citation(path, cite.CitationRequest(quote, [cite.SOURCE_USER]))
        assert got.line == 1
    except (CitationError, errors.UsageError):
        pass
