"""sanitize_text, truncate_utf8 and first_text: the seed's tables plus the edges Go
and Python disagree on (which characters are whitespace, lone surrogates)."""

import pytest

from oracles import first_text
from termsprawl_context.transcript.text import (
    collapse_whitespace,
    sanitize_text,
    truncate_utf8,
)


@pytest.mark.parametrize(
    "given, expected",
    [
        # the seed's TestSanitizeText table
        ("Hello world", "Hello world"),
        ("<p>Hello</p> <strong>world</strong>", "Hello world"),
        ("&lt;div&gt; &amp; &quot;test&quot;", '<div> & "test"'),
        ("  multiple   spaces  ", "multiple spaces"),
        ("line1\nline2\r\nline3", "line1 line2 line3"),
        # the seed's TestExtractSessionMetadata sanitising cases
        ("Fix <code>auth</code> bug", "Fix auth bug"),
        ("Fix &lt;div&gt; rendering", "Fix <div> rendering"),
        ("Line one\nLine two\nLine three", "Line one Line two Line three"),
    ],
)
def test_sanitize_text_seed_table(given, expected):
    assert sanitize_text(given) == expected


def test_tags_are_stripped_before_entities_are_decoded():
    # Decoding first would turn the entity into a tag and strip it.
    assert sanitize_text("&lt;b&gt;bold&lt;/b&gt;") == "<b>bold</b>"
    assert sanitize_text("a <span\nclass='x'>b</span> c") == "a b c"


def test_entities_numeric_and_named():
    assert sanitize_text("&#39;q&#39; &#x41; &aacute;") == "'q' A \u00e1"


def test_whitespace_is_go_unicode_space():
    # strings.Fields splits on NEL, NBSP, ideographic space, line/paragraph separators...
    assert sanitize_text("a\x85b\xa0c\u3000d\u2028e\u2029f\u2003g\vh\fi") == "a b c d e f g h i"
    # ...but not on the ASCII information separators Python's str.split() would eat,
    # nor on zero-width space (not White_Space in Unicode).
    assert sanitize_text("a\x1cb\x1fc\u200bd") == "a\x1cb\x1fc\u200bd"
    assert collapse_whitespace("\u3000 x \t y\n") == "x y"


def test_empty_and_tag_only():
    assert sanitize_text("") == ""
    assert sanitize_text("<br/><hr>  ") == ""


@pytest.mark.parametrize(
    "text, max_bytes, expected",
    [
        # the seed's TestTruncateString table
        ("hello", 10, "hello"),
        ("hello", 5, "hello"),
        ("hello world", 8, "hello..."),
        ("hello \u4e16\u754c world", 12, "hello \u4e16..."),
        ("hello \u4e16\u754c", 10, "hello ..."),
        ("hello", 3, "..."),
        ("", 10, ""),
    ],
)
def test_truncate_utf8_seed_table(text, max_bytes, expected):
    assert truncate_utf8(text, max_bytes) == expected


def test_truncate_never_splits_a_sequence():
    text = "\U0001f600" * 10  # 4 bytes each
    for limit in range(4, 40):
        out = truncate_utf8(text, limit)
        data = out.encode("utf-8")
        assert len(data) <= max(limit, 3)
        data.decode("utf-8")  # valid UTF-8: no split character
        if limit < 40:
            assert out.endswith("...")


def test_truncate_counts_bytes_not_characters():
    out = truncate_utf8("\u00e9" * 5000, 4096)  # 2 bytes each
    assert len(out.encode("utf-8")) <= 4096
    assert out == "\u00e9" * 2046 + "..."


def test_truncate_tolerates_lone_surrogates():
    # JSON escapes can produce them; they count 3 bytes and are never split.
    text = "ab\ud83dcd" * 3
    assert truncate_utf8(text, 100) == text
    out = truncate_utf8(text, 8)
    assert out == "ab\ud83d..."


@pytest.mark.parametrize(
    "entry, expected",
    [
        ({"message": {"content": "plain"}}, "plain"),
        ({"message": {"content": [{"type": "text", "text": "multi"}]}}, "multi"),
        (
            {"message": {"content": [{"type": "image", "source": {}}, {"type": "text", "text": "after"}]}},
            "after",
        ),
        ({"message": {"content": [{"type": "image", "source": {}}]}}, ""),
        ({"message": {"content": [{"type": "text", "text": ""}, {"type": "text", "text": "2nd"}]}}, "2nd"),
        ({"message": {"content": [{"type": "tool_result", "content": "x"}]}}, ""),
        ({"message": {"content": None}}, ""),
        ({"message": "not a dict"}, ""),
        ({}, ""),
        ({"message": {"content": ["bare string", {"type": "text", "text": 5}]}}, ""),
    ],
)
def test_first_text(entry, expected):
    assert first_text(entry) == expected
