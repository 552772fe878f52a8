"""bytescan, the one byte prefilter: over every caller migrated to it, the lines (and the
files) it selects are a superset of those the plain parse finds, whatever escapes,
junk or chunk edges the bytes hold."""

import io
import json

import pytest
from hypothesis import given, settings, strategies as st

from termsprawl_context import bytescan, cite
from termsprawl_context.cite.pools import file_may_contain, quote_needle
from termsprawl_context.bytescan import (
    Needles,
    ValueSpellings,
    escape_positions,
    file_holds_ascii_escape,
    file_may_hold,
    finds,
    has_ascii_escape,
    scan_buffer,
)
from termsprawl_context.jsonl import escaped_width, parse_object
from termsprawl_context.harness.claude import continuation
from termsprawl_context.harness.claude import session_scan, summary_index
from termsprawl_context.store import search

# Values a line may carry: the tokens callers seek, their near misses, odd characters.
WORDS = [
    "user",
    "assistant",
    "cwd",
    "timestamp",
    "u-1",
    "U-1",
    "a b",
    'q"t',
    "s/l",
    "b\\s",
    "é",
    "\u2028",
    "",
    "summary",
    "İk",
    "\u212aey",
    "日本",
    "\U0001f600x",
    "<a&b>",
    "tool_use",
    "<command-name>/x",
    "<local-command-caveat>",
    "toolu/1",
]
# Keys a line may carry, some in the other spellings a case-folding decoder accepts.
KEYS = [
    "type",
    "uuid",
    "cwd",
    "timestamp",
    "message",
    "x",
    "session_name",
    "sessionId",
    "SESSIONID",
    "se\u017f\u017fionId",
    "CWD",
    "cWd",
]


def spell(text, escape_at, upper):
    """``text`` as a JSON string literal, the characters at ``escape_at`` written as
    ``\\uXXXX`` (in upper-case hex when ``upper``; a surrogate pair beyond U+FFFF)."""
    out = []
    for i, char in enumerate(text):
        if i in escape_at:
            # beyond U+FFFF, a surrogate pair
            code = json.dumps(char)[1:-1] if ord(char) > 0xFFFF else "\\u%04x" % ord(char)
            out.append(code.upper().replace("\\U", "\\u") if upper else code)
        else:
            out.append(json.dumps(char, ensure_ascii=False)[1:-1])
    return '"' + "".join(out) + '"'


@st.composite
def lines(draw):
    """One line: a JSON object of some of the sought keys, keys and values spelled with
    random escapes; sometimes cut or spliced with junk."""
    keys = draw(st.lists(st.sampled_from(KEYS), max_size=4, unique=True))
    members = []
    for key in keys:
        value = draw(st.sampled_from(WORDS) | st.text(max_size=6))
        members.append(
            "%s:%s"
            % (
                spell(key, set(draw(st.lists(st.integers(0, 9), max_size=2))), draw(st.booleans())),
                spell(value, set(draw(st.lists(st.integers(0, 9), max_size=3))), draw(st.booleans())),
            )
        )
    raw = ("{" + ",".join(members) + "}").encode("utf-8", "surrogatepass")
    cut = draw(st.none() | st.integers(0, len(raw)))
    if cut is not None:
        raw = raw[:cut] + draw(st.binary(max_size=4)).replace(b"\n", b"")
    return raw


def parsed(raw):
    return parse_object(raw) or {}


# Each migrated caller: the needles it names, and what the plain parse of a line decides.
def session_meta_caller(raw):
    entry = parsed(raw)
    verdicts = []
    for token, holds in (
        (session_scan._TOKEN_USER, entry.get("type") == "user"),
        (session_scan._TOKEN_CWD, "cwd" in entry),
        (session_scan.TOKEN_TIMESTAMP, "timestamp" in entry),
    ):
        # the rule the fast scanner applies line by line: its token's bytes, or the escape rule
        verdicts.append((holds, token in raw or session_scan._has_ascii_escape(raw)))
    return verdicts


def identity_caller(raw, wanted):
    needles = Needles.for_values([wanted])
    return parsed(raw).get("uuid") == wanted, needles.in_line(raw)


def strings_in(value):
    """Every string of a parsed value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


def search_caller(raw, needle):
    """search's prefilter for a case-insensitive literal: a line holding the needle in
    any string must show the pattern, or an escape, in its lowercased bytes."""
    found = any(needle.lower() in text.lower() for text in strings_in(parse_object(raw)))
    pre = search.prefilter_for(needle)
    low = raw.lower()
    if pre.pattern is None:
        return found, True
    return found, pre.pattern in low or next(escape_positions(low, pre.escapes), None) is not None


def locate_caller(raw, wanted):
    return parsed(raw).get("uuid") == wanted, bool(ValueSpellings(wanted).hits(raw)) or not ValueSpellings(
        wanted
    ).usable


def cite_caller(raw, quote):
    """cite's prefilter of a quote: a line holding a string that holds the quote."""
    found = any(quote in text for text in strings_in(parse_object(raw)))
    needles = cite.pools.quote_needles(quote)
    return found, needles is None or needles.in_line(raw)


def cite_marker_callers(raw):
    """cite's lines that may hold a tool call (a block typed "tool_use"), a local
    command's marker, or a record's key (a transcript read back)."""
    value = parse_object(raw)
    texts = list(strings_in(value))
    markers = [m.decode() for m in cite.search.LOCAL_COMMAND_MARKERS]
    local = any(m in text for text in texts for m in markers)
    clean = not has_ascii_escape(raw)  # what cite tests in a record holding no escape: plain bytes alone
    return [
        ("tool_use" in texts, cite.search.TOOL_USE_LINES.in_line(raw)),
        ("tool_use" in texts and clean, cite.search.TOOL_USE_TOKEN in raw),
        (local, cite.search.may_be_local_command(raw)),
        (local and clean, cite.search.may_be_local_command(raw, escaped=False)),
        ("sessionId" in (value or {}), cite.pools._SESSION_ID_KEY.in_line(raw)),
    ]


def width_of(text):
    top = max(map(ord, text), default=0)
    return 4 if top > 0xFFFF else 2 if top > 0xFF else 1


def cost_caller(raw):
    """jsonl.decode_cost's rule: no string parsed out of a line is wider than
    ``escaped_width`` allows (given its bytes' own width)."""
    wide = raw.translate(None, bytes(range(0x80)))
    text_width = 4 if wide and max(wide) >= 0xF0 else 2 if wide else 1
    widest = max((width_of(text) for text in strings_in(parse_object(raw))), default=1)
    return widest, escaped_width(raw, text_width)


@settings(max_examples=800, deadline=None, derandomize=True)
@given(
    st.lists(lines(), min_size=1, max_size=6),
    st.sampled_from(WORDS[4:]) | st.text(min_size=1, max_size=4),
    st.integers(7, 40),
    st.data(),
)
def test_every_caller_selects_a_superset_of_the_plain_parse(raws, wanted, chunk, data):
    # one line surely holding the sought value, under a key spelled in any way, often escaped
    key = spell(data.draw(st.sampled_from(KEYS)), set(data.draw(st.lists(st.integers(0, 9), max_size=2))), False)
    value = spell(wanted, set(data.draw(st.lists(st.integers(0, 3), max_size=3))), data.draw(st.booleans()))
    raws = raws + [("{%s:%s}" % (key, value)).encode("utf-8", "surrogatepass")]
    for raw in raws:
        for found, selected in session_meta_caller(raw):
            assert selected or not found, raw
        found, selected = identity_caller(raw, wanted)
        assert selected or not found, (raw, wanted)
        for caller in (search_caller, locate_caller, cite_caller):
            found, selected = caller(raw, wanted)
            assert selected or not found, (caller.__name__, raw, wanted)
        for found, selected in cite_marker_callers(raw):
            assert selected or not found, raw
        widest, allowed = cost_caller(raw)
        assert widest <= allowed, raw
    # The lines candidate_lines keeps, and a file search in overlapped chunks (small ones
    # here, so tokens and escapes straddle their edges).
    needles = Needles.for_values([wanted])
    holding = [raw for raw in raws if parsed(raw).get("uuid") == wanted]
    assert set(holding) <= {raw for raw in raws if needles.in_line(raw)}
    data = b"\n".join(raws)
    for buffer in (scan_buffer(chunk), None):
        if holding:
            assert file_may_hold(io.BytesIO(data), needles, buffer=buffer)
        assert file_holds_ascii_escape(io.BytesIO(data), buffer) == has_ascii_escape(data)
    # summary_index's window rule: exactly the uuids the plain parse finds.
    assert summary_index.own_uuids(data, 0, len(data)) == summary_index.pack(summary_index.own_uuids_plain(raws))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(lines(), min_size=1, max_size=8), st.sampled_from(["u-1", "U-1", "a b", "user"]))
def test_identity_file_search_is_a_superset(tmp_path_factory, raws, wanted):
    path = tmp_path_factory.mktemp("scan") / "t.jsonl"
    path.write_bytes(b"\n".join(raws) + b"\n")
    needles = Needles.for_values([wanted])
    if any(parsed(raw).get("uuid") == wanted for raw in raws):
        assert continuation.scan_bytes(str(path), needles.plain)
        assert continuation.scan_bytes(str(path), needles.plain, set())


def test_the_escape_rule():
    assert has_ascii_escape(b'"\\u0075ser"') and has_ascii_escape(b"\\u007F") and has_ascii_escape(b"x\\u002Dy")
    assert (
        not has_ascii_escape(b"\\u001b[31m") and not has_ascii_escape(b"\\u00e9") and not has_ascii_escape(b"\\u2028")
    )
    assert not has_ascii_escape(b"\\u00", 0) and not has_ascii_escape(b"a\\u0075", 2)
    assert bytescan.ESCAPE_LENGTH == len(b"\\u0075")


@pytest.mark.parametrize(
    "token, plain",
    [(b'"user"', (b'"user"',)), ("u-1", (b"u-1",)), ("a/b", None), ("a\\b", None), ("é", None), ("", None)],
)
def test_needles_name_their_plain_spellings(token, plain):
    assert Needles.of([token]).plain == plain
    assert Needles.for_values(['q"t']).plain is None  # a value's own quote is written escaped
    assert Needles.of([]).plain == () and not Needles.of([]).in_line(b"\\u0075")


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    st.lists(lines(), min_size=1, max_size=8), st.sampled_from(["a b", "user", "u-1", "<a&b>"]) | st.text(max_size=8)
)
def test_cites_file_search_is_a_superset(tmp_path_factory, raws, quote):
    path = tmp_path_factory.mktemp("cite") / "t.jsonl"
    path.write_bytes(b"\n".join(raws) + b"\n")
    if any(quote in text for raw in raws for text in strings_in(parse_object(raw))):
        needle = quote_needle(quote)
        for buffer in (None, scan_buffer(7), scan_buffer(40)):  # small chunks: runs and escapes straddle them
            assert file_may_contain(str(path), needle, buffer)


def test_the_longest_run_is_the_plain_needle():
    assert Needles.longest_run("ab/cdef", 4).plain == (b"cdef",) and Needles.longest_run("ab/c", 4).plain is None


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.binary(max_size=300) | st.text("ab\\u0", max_size=300).map(str.encode),
    st.sampled_from([b"abcabc", b"aaaaaa", b"ab", b"\\u0075ser", b"b" * 99, b"b" * 100]),
    st.integers(0, 40),
    st.integers(0, 320),
    st.integers(1, 20),
)
def test_a_windowed_find_answers_as_one_find(data, needle, start, end, window):
    kept, bytescan.FIND_WINDOW = bytescan.FIND_WINDOW, window  # windows of a few bytes: needles straddle their edges
    try:
        for haystack in (data, data + needle + data, bytearray(needle[1:] + data + needle[:-1])):
            assert finds(haystack, needle, start, end) == (haystack.find(needle, start, end) >= 0)
            assert finds(haystack, needle) == (needle in haystack)
    finally:
        bytescan.FIND_WINDOW = kept


def test_a_torn_uuid_key_never_takes_the_next_line_s_bytes():
    # Found by the superset property above: a line torn right after `"uuid":"`.
    raws = [b'{"timestamp":"user","uuid":"', b'{"x":"u-1"}', b'{"uuid" :\t"u-2"}']
    data = b"\n".join(raws)
    assert summary_index.own_uuids(data, 0, len(data)) == summary_index.pack(summary_index.own_uuids_plain(raws))
    assert summary_index.own_uuids(data, 0, len(data)) == b"u-2"
