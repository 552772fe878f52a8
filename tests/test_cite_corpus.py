"""Citations, background agents and queries on the real transcripts of ../shared/corpus:
every quote taken from a record resolves to the entry it was taken from (or is refused as
ambiguous naming it), and the byte prefilter never changes an answer."""

import os

import pytest

import cite_fixtures as fx
import oracles
from cite_fixtures import both_searches  # noqa: F401 (a fixture, used by name)

from conftest import corpus_files
from termsprawl_context import cite
from termsprawl_context.transcript.text import collapse_whitespace
from termsprawl_context.cite.pools import tool_bodies
from termsprawl_context.cite.search import Match
from termsprawl_context.errors import CitationAmbiguous
from termsprawl_context.store import background
from termsprawl_context.transcript import query
from termsprawl_context.transcript.record import read_entries

U, T = cite.SOURCE_USER, cite.SOURCE_TOOL_RESULT
FILES = corpus_files()
if os.environ.get("TERMSPRAWL_REQUIRE_CORPUS") == "1" and not FILES:
    raise RuntimeError("TERMSPRAWL_REQUIRE_CORPUS=1 but ../shared/corpus is absent")
pytestmark = [
    pytest.mark.skipif(not FILES, reason="no ../shared/corpus beside this checkout"),
    pytest.mark.usefixtures("both_searches"),  # the byte prefilter and the plain search
]


def _quote_of(text):
    """A quote from the middle of ``text``: up to 8 words."""
    words = collapse_whitespace(text).split(" ")
    if len(words) < 3:
        return ""
    start = len(words) // 3
    return " ".join(words[start : start + 8])


def _samples(path):
    record = oracles.load_record(str(path))
    users, tools = [], []
    for entry in record.entries:
        for text in oracles.user_texts(record, entry):
            quote = _quote_of(text)
            if quote:
                users.append((quote, entry.line))
        for _, body in tool_bodies(record, entry):
            quote = _quote_of(body)
            if quote:
                tools.append((quote, entry.line))
    return users, tools


@pytest.mark.parametrize("path", FILES, ids=[p.name[-60:] for p in FILES])
def test_quotes_resolve_where_they_were_taken(path):
    users, tools = _samples(path)
    for pool, samples in ((U, users[:6]), (T, tools[:6])):
        for quote, line in samples:
            try:
                got = cite.resolve_in_record(str(path), cite.CitationRequest(quote, [pool]))
                assert got.line == line and got.path == str(path) and got.source_types == [pool]
                assert got.message
            except CitationAmbiguous as exc:
                assert Match(str(path), line) in exc.matches
            with fx.plain_search():
                plain = cite.cite(str(path), quote, [pool])
            assert cite.cite(str(path), quote, [pool]) == plain


def test_the_corpus_holds_citable_words():
    users = tools = 0
    for path in FILES:
        u, t = _samples(path)
        users += len(u)
        tools += len(t)
    assert users > 50 and tools > 50


@pytest.mark.parametrize("path", FILES, ids=[p.name[-60:] for p in FILES])
def test_background_and_queries_read_every_real_file(path):
    try:
        signals = background.background_agent_signals(str(path))
        assert background.running(signals) <= {s.agent_id for s in signals}
        whole, cur = background.background_agent_signals_since(str(path))
        assert whole == signals and cur.offset == os.path.getsize(str(path))
    except background.SignalsUnknown:
        pass  # a torn or unparseable line: unknown, as it must be
    entries = read_entries(str(path))
    assert len(query.filter(entries, 'type == "user" or type != "user"', include_sidechains=True)) == len(entries)
