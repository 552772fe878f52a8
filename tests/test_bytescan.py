"""bytescan, the one byte prefilter: over every caller migrated to it, the lines (and the
files) it selects are a superset of those the plain parse finds, whatever escapes,
junk or chunk edges the bytes hold."""

import io
import json

import pytest
from hypothesis import given, settings, strategies as st

from termsprawl_context import bytescan
from termsprawl_context.bytescan import Needles, candidate_lines, file_may_hold, has_ascii_escape, scan_buffer
from termsprawl_context.jsonl import parse_object
from termsprawl_context.store import head_prompt, identity, session_meta

# Values a line may carry: the tokens callers seek, their near misses, odd characters.
WORDS = ["user", "assistant", "cwd", "timestamp", "u-1", "U-1", "a b", 'q"t', "s/l", "b\\s", "é", "\u2028", ""]


def spell(text, escape_at, upper):
    """``text`` as a JSON string literal, the characters at ``escape_at`` written as
    ``\\uXXXX`` (in upper-case hex when ``upper``)."""
    out = []
    for i, char in enumerate(text):
        if i in escape_at and ord(char) < 0x10000:
            code = "%04x" % ord(char)
            out.append("\\u" + (code.upper() if upper else code))
        else:
            out.append(json.dumps(char, ensure_ascii=False)[1:-1])
    return '"' + "".join(out) + '"'


@st.composite
def lines(draw):
    """One line: a JSON object of some of the sought keys, keys and values spelled with
    random escapes; sometimes cut or spliced with junk."""
    keys = draw(st.lists(st.sampled_from(["type", "uuid", "cwd", "timestamp", "message", "x"]), max_size=4,
                         unique=True))
    members = []
    for key in keys:
        value = draw(st.sampled_from(WORDS) | st.text(max_size=6))
        members.append("%s:%s" % (
            spell(key, set(draw(st.lists(st.integers(0, 9), max_size=2))), draw(st.booleans())),
            spell(value, set(draw(st.lists(st.integers(0, 9), max_size=3))), draw(st.booleans()))))
    raw = ("{" + ",".join(members) + "}").encode("utf-8", "surrogatepass")
    cut = draw(st.none() | st.integers(0, len(raw)))
    if cut is not None:
        raw = raw[:cut] + draw(st.binary(max_size=4)).replace(b"\n", b"")
    return raw


def parsed(raw):
    return parse_object(raw) or {}


# Each migrated caller: the needles it names, and what the plain parse of a line decides.
def head_prompt_caller(raw):
    return parsed(raw).get("type") == "user", head_prompt._USER_LINES.in_line(raw)


def session_meta_caller(raw):
    entry = parsed(raw)
    verdicts = []
    for token, holds in ((session_meta._TOKEN_USER, entry.get("type") == "user"),
                         (session_meta._TOKEN_CWD, "cwd" in entry),
                         (session_meta._TOKEN_TIMESTAMP, "timestamp" in entry)):
        # the rule session_meta applies line by line: its token's bytes, or the escape rule
        verdicts.append((holds, token in raw or session_meta._has_ascii_escape(raw)))
    return verdicts


def identity_caller(raw, wanted):
    needles = Needles.for_values([wanted])
    return parsed(raw).get("uuid") == wanted, needles.in_line(raw)


@settings(max_examples=800, deadline=None, derandomize=True)
@given(st.lists(lines(), min_size=1, max_size=6), st.sampled_from(WORDS[4:]) | st.text(min_size=1, max_size=4),
       st.integers(7, 40))
def test_every_caller_selects_a_superset_of_the_plain_parse(raws, wanted, chunk):
    for raw in raws:
        found, selected = head_prompt_caller(raw)
        assert selected or not found, raw
        for found, selected in session_meta_caller(raw):
            assert selected or not found, raw
        found, selected = identity_caller(raw, wanted)
        assert selected or not found, (raw, wanted)
    # The lines candidate_lines keeps, and a file search in overlapped chunks (small ones
    # here, so tokens and escapes straddle their edges).
    needles = Needles.for_values([wanted])
    holding = [raw for raw in raws if parsed(raw).get("uuid") == wanted]
    assert set(holding) <= set(candidate_lines(raws, needles))
    data = b"\n".join(raws)
    for buffer in (scan_buffer(chunk), None):
        if holding:
            assert file_may_hold(io.BytesIO(data), needles, buffer=buffer)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(lines(), min_size=1, max_size=8), st.sampled_from(["u-1", "U-1", "a b", "user"]))
def test_identity_file_search_is_a_superset(tmp_path_factory, raws, wanted):
    path = tmp_path_factory.mktemp("scan") / "t.jsonl"
    path.write_bytes(b"\n".join(raws) + b"\n")
    needles = Needles.for_values([wanted])
    if any(parsed(raw).get("uuid") == wanted for raw in raws):
        assert identity.scan_bytes(str(path), needles.plain)
        assert identity.scan_bytes(str(path), needles.plain, set())


def test_the_escape_rule():
    assert has_ascii_escape(b'"\\u0075ser"') and has_ascii_escape(b"\\u007F") and has_ascii_escape(b"x\\u002Dy")
    assert not has_ascii_escape(b"\\u001b[31m") and not has_ascii_escape(b"\\u00e9") and not has_ascii_escape(b"\\u2028")
    assert not has_ascii_escape(b"\\u00", 0) and not has_ascii_escape(b"a\\u0075", 2)
    assert bytescan.ESCAPE_LENGTH == len(b"\\u0075")


@pytest.mark.parametrize("token, plain", [
    (b'"user"', (b'"user"',)), ("u-1", (b"u-1",)), ("a/b", None), ("a\\b", None), ("é", None), ("", None)])
def test_needles_name_their_plain_spellings(token, plain):
    assert Needles.of([token]).plain == plain
    assert Needles.for_values(['q"t']).plain is None  # a value's own quote is written escaped
    assert Needles.of([]).plain == () and not Needles.of([]).in_line(b"\\u0075")
