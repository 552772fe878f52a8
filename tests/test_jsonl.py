"""The byte layer: forward and reverse line readers agree, parse_object fails open."""

import io
import json
import os
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from termsprawl_context.errors import NotARegularFile
from termsprawl_context.jsonl import (
    iter_lines,
    iter_lines_reverse,
    open_regular,
    parse_object,
    try_open_regular,
)


def forward(data):
    return [(line.offset, line.raw) for line in iter_lines(io.BytesIO(data))]


def backward(data, block_size):
    return list(iter_lines_reverse(io.BytesIO(data), len(data), block_size))[::-1]


@pytest.mark.parametrize(
    "data",
    [b"", b"\n", b"\n\n", b"a", b"a\n", b"a\nb", b"a\nb\n", b"\na", b"ab\r\ncd\r\n", b"x" * 100 + b"\n" + b"y" * 7],
)
@pytest.mark.parametrize("block_size", [1, 2, 3, 7, 64, 1 << 16])
def test_reverse_yields_the_forward_lines(data, block_size):
    assert backward(data, block_size) == forward(data)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.integers(min_value=1, max_value=17))
def test_reverse_matches_forward_on_any_bytes(data, block_size):
    assert backward(data, block_size) == forward(data)


def test_forward_numbers_physical_lines_from_one():
    lines = list(iter_lines(io.BytesIO(b"a\n\nb")))
    assert [(ln.number, ln.offset, ln.raw) for ln in lines] == [(1, 0, b"a"), (2, 2, b""), (3, 3, b"b")]


def test_unicode_line_separators_are_data_not_line_ends():
    data = '{"t":"a\u2028b\u0085c"}\n'.encode("utf-8")
    assert len(forward(data)) == 1
    assert parse_object(forward(data)[0][1]) == {"t": "a\u2028b\u0085c"}


def test_reverse_sees_the_file_as_it_was_when_it_started(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"one\ntwo\n")
    with open(str(path), "rb") as f, open(str(path), "ab") as w:
        lines = iter_lines_reverse(f, block_size=2)
        first = next(lines)
        w.write(b"three\n")
        w.flush()
        rest = list(lines)
    assert [first] + rest == [(4, b"two"), (0, b"one")]


def test_reverse_stops_quietly_when_the_file_shrinks(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"a" * 100 + b"\n" + b"b" * 100)
    with open(str(path), "rb") as f:
        lines = iter_lines_reverse(f, block_size=10)
        next(lines, None)
        os.truncate(str(path), 5)
        assert list(lines) == []


def test_giant_line_is_joined_once(tmp_path):
    big = b"x" * (3 * 1024 * 1024 + 17)
    data = b'{"a":1}\n' + big + b'\n{"b":2}'
    assert backward(data, 4096) == forward(data)


@pytest.mark.parametrize(
    "raw, expected",
    [
        (b'{"a": 1}', {"a": 1}),
        (b'  {"a": 1}\r', {"a": 1}),
        (b"", None),
        (b"   ", None),
        (b"not json", None),
        (b'{"a": ', None),
        (b"null", None),
        (b"[1, 2]", None),
        (b'"text"', None),
        (b"42", None),
        (b'{"a": "\xff\xfe"}', {"a": "\ufffd\ufffd"}),
        (b'\xef\xbb\xbf{"a": 1}', None),  # a BOM is not JSON whitespace
        (b"[" * 100000 + b"]" * 100000, None),
        (b'{"a": ' + b"[" * 100000 + b"]" * 100000 + b"}", None),
        (b'{"a": NaN}', "nan"),
        ('{"s": "\\ud83d"}', {"s": "\ud83d"}),
    ],
)
def test_parse_object(raw, expected):
    value = parse_object(raw)
    if expected == "nan":
        assert value is not None and value["a"] != value["a"]
    else:
        assert value == expected


def parse_object_oracle(raw):
    """The reference rule ``parse_object`` calls the C scanner to implement: the text
    (UTF-8 with U+FFFD), stripped, read by ``json.loads``; its value if an object."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    try:
        value = json.loads(text.strip())
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)
# Whitespace JSON allows, str.strip's other whitespace, and junk, around and after a value.
_PADDING = st.sampled_from(["", " ", "\t", "\r", "\n ", "\x0b", "\x0c", "\u2028", "\ufeff", "x", "}", ",", " 1"])


@settings(max_examples=600, deadline=None, derandomize=True)
@given(_JSON_VALUES, _PADDING, _PADDING, st.integers(min_value=0, max_value=6), st.booleans())
def test_parse_object_is_json_loads_of_the_stripped_text(value, before, after, cut, as_bytes):
    text = before + json.dumps(value, separators=(",", ":") if cut % 2 else (", ", ": ")) + after
    if cut > 3:
        text = text[: len(text) - cut]  # a torn line
    raw = text.encode("utf-8", "surrogatepass") if as_bytes else text
    assert parse_object(raw) == parse_object_oracle(raw)


def test_open_regular_refuses_fifo_and_directory_without_blocking(tmp_path):
    fifo = tmp_path / "x.jsonl"
    os.mkfifo(str(fifo))
    with pytest.raises(NotARegularFile):
        open_regular(str(fifo))
    with pytest.raises(NotARegularFile):
        open_regular(str(tmp_path))
    with pytest.raises(FileNotFoundError):
        open_regular(str(tmp_path / "missing"))
    assert try_open_regular(str(fifo)) is None
    assert try_open_regular("bad\0path") is None


def test_random_files_round_trip(tmp_path):
    rnd = random.Random(7)
    for i in range(30):
        data = bytes(rnd.choice(b'{}"a:1\n\r\xff ') for _ in range(rnd.randint(0, 5000)))
        path = tmp_path / ("f%d" % i)
        path.write_bytes(data)
        with open_regular(str(path)) as f:
            back = list(iter_lines_reverse(f, block_size=rnd.randint(1, 300)))[::-1]
        assert back == forward(data)


# --- bounded lines: a line longer than the bound is never held ----------------------------


def bounded_oracle(data, max_line):
    """The plain splitting: every line as is, an oversized one as b""."""
    out, offset = [], 0
    pieces = data.split(b"\n")
    if pieces and pieces[-1] == b"":
        pieces.pop()
    for piece in pieces:
        out.append((offset, piece if len(piece) <= max_line else b""))
        offset += len(piece) + 1
    return out


@settings(max_examples=400, deadline=None, derandomize=True)
@given(
    st.lists(st.sampled_from([b"", b"a", b"\n", b"xyz", b"\r", b"0123456789"]), max_size=40).map(b"".join),
    st.integers(min_value=1, max_value=17),
    st.integers(min_value=0, max_value=12),
)
def test_bounded_readers_agree_with_the_oracle(data, block_size, max_line):
    expected = bounded_oracle(data, max_line)
    fwd = [(line.offset, line.raw) for line in iter_lines(io.BytesIO(data), max_line)]
    rev = list(iter_lines_reverse(io.BytesIO(data), len(data), block_size, max_line))[::-1]
    assert fwd == expected
    assert rev == expected
    assert [line.number for line in iter_lines(io.BytesIO(data), max_line)] == list(range(1, len(expected) + 1))


def test_oversized_line_is_skipped_and_its_neighbours_kept():
    data = b'{"a":1}\n' + b"x" * 5000 + b'\n{"b":2}'
    fwd = [(line.offset, line.raw) for line in iter_lines(io.BytesIO(data), 4096)]
    assert fwd == [(0, b'{"a":1}'), (8, b""), (5009, b'{"b":2}')]
    assert list(iter_lines_reverse(io.BytesIO(data), len(data), 1024, 4096))[::-1] == fwd


def test_parse_object_declines_what_it_cannot_afford():
    from termsprawl_context.jsonl import DECODE_BUDGET_BYTES, decode_cost, readable

    dense = '{"a":[' + '"ab",' * 2_000_000 + '""]}'
    assert not readable(dense) and not readable(dense.encode())
    assert parse_object(dense) is None and parse_object(dense.encode()) is None
    # Prose: a comma every dozen bytes or so (the model counts every comma as a value).
    real_like = '{"type":"user","message":{"content":"' + "a word or two, " * 200_000 + '"}}'
    assert decode_cost(real_like.encode()) <= DECODE_BUDGET_BYTES
    assert parse_object(real_like)["type"] == "user"
    assert parse_object(real_like.encode())["type"] == "user"


_RSS_PROBE = r"""
import sys
sys.path.insert(0, sys.argv[1])
from conftest_rss import peak_rss_mb
from termsprawl_context.jsonl import iter_lines, iter_lines_reverse, open_regular, parse_object
with open_regular(sys.argv[2]) as f:
    fwd = sum(1 for line in iter_lines(f) if parse_object(line.raw) is not None)
with open_regular(sys.argv[2]) as f:
    rev = sum(1 for _, raw in iter_lines_reverse(f) if parse_object(raw) is not None)
print(fwd, rev, peak_rss_mb())
"""


@pytest.mark.parametrize("shape", ["sparse", "giant_tail", "giant_middle"])
def test_giant_lines_cost_a_bounded_amount_of_memory(tmp_path, shape):
    """A 300 MB line (a sparse file with no newline, a giant last or middle line) is read
    past by both readers in a process whose peak RSS stays under 64 MB."""
    import subprocess
    import sys

    from conftest import SRC
    from conftest_rss import rss_env

    path = tmp_path / "giant.jsonl"
    giant = 300 * 1024 * 1024
    with open(str(path), "wb") as f:
        if shape == "sparse":
            f.truncate(giant)
        else:
            f.write(b'{"a":1}\n')
            f.seek(8 + giant)
            f.write(b"x" if shape == "giant_tail" else b'\n{"b":2}\n')
    out = subprocess.run(
        [sys.executable, "-c", _RSS_PROBE, str(SRC), str(path)], env=rss_env(), stdout=subprocess.PIPE, check=True
    ).stdout.split()
    expected = {"sparse": 0, "giant_tail": 1, "giant_middle": 2}[shape]
    assert int(out[0]) == int(out[1]) == expected
    assert int(out[2]) < 64, "peak RSS %s MB" % out[2]


# A torn or malformed object that opens with "{" and ends with "}" (a record cut mid-write just
# after a nested object closes). Before json.decoder is imported, CPython 3.8-3.11's C scanner
# answers it with a SystemError (its error path looks the module up without importing it).
TORN_OBJECTS = ('{"a":{"b":1}', '{"a":1,}', '{"a" 1}', '{"a":[1,2}', '{"a":1 "b":2}')


def test_a_torn_object_is_junk_before_the_json_package_is_imported():
    probe = (
        "import sys\nfrom termsprawl_context.jsonl import parse_object\n"
        "assert 'json.decoder' not in sys.modules\n"
        "print([parse_object(t) for t in %r])\n" % (TORN_OBJECTS,)
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "%r\n" % ([None] * len(TORN_OBJECTS),)


def test_the_dump_reads_a_peer_whose_last_line_is_torn_after_a_nested_object(tmp_path, run_pyz):
    peer = tmp_path / "peer.jsonl"
    peer.write_text(
        '{"type":"user","uuid":"u1","sessionId":"s","timestamp":"t","message":{"role":"user","content":"hello there"}}\n'
        '{"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}'
    )
    project = tmp_path / "proj"
    project.mkdir()
    for args in (["index", "set", "peer", peer], ["links", "add", "me", "peer"]):
        assert run_pyz(args + ["--cwd", project]).returncode == 0
    for extra in ([], ["--format", "markdown"], ["--format", "json"]):
        done = run_pyz(["--cwd", project, "--self", "me"] + extra)
        assert done.returncode == 0 and done.stderr == b"", (extra, done.stderr)
        assert b"hello there" in done.stdout
