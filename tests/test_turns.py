"""The dump's transcript rules, the reverse reader against the forward oracle, under both
line filters (``turns.line_filter``: the fast ``may_print`` and the plain ``every_line``)."""

import json
import os
import random

import pytest
from hypothesis import given, settings, strategies as st

from conftest import corpus_files, corpus_params
from termsprawl_context.jsonl import MAX_LINE_BYTES, parse_object, readable
from termsprawl_context.transcript import turns as turns_module
from termsprawl_context.transcript.turns import (
    LINKED_TURN_MAX_CHARS,
    MAX_LINKED_TURNS,
    SKELETON_FROM,
    Turn,
    content_to_text,
    entry_turn,
    every_line,
    format_linked_context,
    may_print,
    read_turns,
)


@pytest.fixture(scope="module", params=["fast", "plain"], autouse=True)
def both_line_filters(request):
    """Every test here runs under the switch's two settings (module scope: hypothesis
    refuses function-scoped fixtures)."""
    saved = turns_module.line_filter
    turns_module.line_filter = may_print if request.param == "fast" else every_line
    yield
    turns_module.line_filter = saved


def oracle_turns(path):
    """``oracle_turns_of`` the file's bytes; [] when it cannot be read."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return []
    return oracle_turns_of(data)


def oracle_turns_of(data):
    """The context layer's algorithm, literally: split on \n, keep user/assistant
    entries with printable text, cut each, keep the last 40. A line longer than the
    readers' documented bound (MAX_LINE_BYTES), or past their parse budget, is
    unreadable."""
    turns = []
    for raw in data.split(b"\n"):
        if len(raw) > MAX_LINE_BYTES:
            continue
        line = raw.decode("utf-8", "replace").strip()
        if not line or not readable(raw):
            continue
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(entry, dict) or entry.get("type") not in ("user", "assistant"):
            continue
        if not isinstance(entry.get("type"), str):
            continue
        message = entry.get("message")
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if isinstance(content, str):
            body = content
        elif isinstance(content, list):
            parts = [
                b["text"]
                for b in content
                if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
            ]
            if not parts:
                continue
            body = "\n".join(parts)
        else:
            continue
        turns.append(Turn(entry["type"], body[:LINKED_TURN_MAX_CHARS]))
    return turns[-MAX_LINKED_TURNS:]


def write_lines(path, entries):
    with open(str(path), "w", encoding="utf-8") as f:
        for e in entries:
            f.write((e if isinstance(e, str) else json.dumps(e)) + "\n")
    return str(path)


def user(content, **extra):
    return dict(type="user", message={"role": "user", "content": content}, **extra)


def assistant(content, **extra):
    return dict(type="assistant", message={"role": "assistant", "content": content}, **extra)


# --- the reference's own cases -------------------------------------------------------


def test_user_string_and_assistant_text_blocks(tmp_path):
    p = write_lines(tmp_path / "t.jsonl", [user("hello"), assistant([{"type": "text", "text": "hi there"}])])
    assert read_turns(p) == [Turn("user", "hello"), Turn("assistant", "hi there")]


def test_tool_use_tool_result_thinking_dropped(tmp_path):
    p = write_lines(
        tmp_path / "t.jsonl",
        [
            assistant(
                [
                    {"type": "thinking", "thinking": "hmm"},
                    {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}},
                    {"type": "text", "text": "done"},
                ]
            ),
            user([{"type": "tool_result", "tool_use_id": "t1", "content": "output"}]),
        ],
    )
    assert read_turns(p) == [Turn("assistant", "done")]


def test_last_40_turns(tmp_path):
    p = write_lines(tmp_path / "t.jsonl", [user("turn-%d" % i) for i in range(50)])
    turns = read_turns(p)
    assert len(turns) == MAX_LINKED_TURNS == 40
    assert turns[0].text == "turn-10" and turns[-1].text == "turn-49"


def test_truncation_to_2000_characters(tmp_path):
    p = write_lines(tmp_path / "t.jsonl", [assistant("x" * 3000)])
    assert [len(t.text) for t in read_turns(p)] == [LINKED_TURN_MAX_CHARS] == [2000]


def test_truncation_counts_characters_not_bytes_or_utf16_units(tmp_path):
    text = "\U0001f600" * 2500  # astral: two UTF-16 units, four UTF-8 bytes each
    p = write_lines(tmp_path / "t.jsonl", [user(text)])
    (turn,) = read_turns(p)
    assert turn.text == "\U0001f600" * 2000


def test_fail_open(tmp_path):
    assert read_turns(str(tmp_path / "missing.jsonl")) == []
    junk = tmp_path / "junk.jsonl"
    junk.write_text("not json\n{also broken\n")
    assert read_turns(str(junk)) == []


def test_format():
    assert format_linked_context("node-2", "Claude A", [Turn("user", "refactor this"), Turn("assistant", "sure")]) == (
        "# linked context from Claude A (node-2)\n## user\nrefactor this\n## assistant\nsure"
    )


# --- beyond the reference -------------------------------------------------------------


@pytest.mark.parametrize(
    "content, expected",
    [
        ("", ""),
        ("plain", "plain"),
        ([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "a\nb"),
        ([{"type": "text", "text": ""}], ""),
        ([{"type": "text", "text": 5}], None),
        ([{"type": "text"}], None),
        (["text", None, 3], None),
        ([], None),
        (None, None),
        (42, None),
        ({"type": "text", "text": "x"}, None),
    ],
)
def test_content_to_text(content, expected):
    assert content_to_text(content) == expected


def test_role_is_the_top_level_type_not_message_role(tmp_path):
    p = write_lines(
        tmp_path / "t.jsonl",
        [
            {"type": "user", "message": {"role": "assistant", "content": "typed"}},
            {"type": "system", "message": {"role": "user", "content": "not a turn"}},
            {"type": ["user"], "message": {"content": "list type"}},
            {"type": "User", "message": {"content": "case"}},
            {"type": "user", "message": "string message"},
            {"type": "user", "message": None},
        ],
    )
    assert read_turns(p) == [Turn("user", "typed")]


def test_fifo_and_directory_are_unreadable_not_hangs(tmp_path):
    fifo = tmp_path / "x.jsonl"
    os.mkfifo(str(fifo))
    assert read_turns(str(fifo)) == []
    assert read_turns(str(tmp_path)) == []


ADVERSARIAL_LINES = [
    '{"type":"user","message":{"content":"lone \\ud83d surrogate"}}',
    '{"type":"assistant","message":{"content":[{"type":"text","text":"pair \\ud83d\\ude00 ok"}]}}',
    '{"type":"user","message":{"content":"raw \u2028 line sep \u0085 nel"}}',
    '{"type":"user","message":{"content":"crlf"}}\r',
    '\ufeff{"type":"user","message":{"content":"bom first"}}',
    '{"type":"user","message":{"content":"nul \\u0000 inside"}}',
    "null",
    "[]",
    '"string"',
    "12",
    '{"type":"user","message":{"content":NaN}}',
    '{"type":"user","message":{"content":"after nan"},"x":NaN}',
    '{"type":"assistant","message":{"content":[{"type":"text","text":"deep"}]},"n":'
    + "[" * 100000
    + "]" * 100000
    + "}",
    '{"type":1,"message":{"content":"wrong type"}}',
    '{"type":"user","message":{"content":{"text":"obj"}}}',
    '{"type":"user","message":{"content":[{"type":"text","text":["x"]}]}}',
    '{"type":"user","message":{"content":"torn',
]


def test_adversarial_transcript_matches_oracle(tmp_path):
    p = tmp_path / "adv.jsonl"
    with open(str(p), "wb") as f:
        for line in ADVERSARIAL_LINES:
            f.write(line.encode("utf-8", "surrogatepass") + b"\n")
        f.write(b'{"type":"user","message":{"content":"bad utf8 \xff\xfe end"}}\n')
        f.write(b'{"type":"user","message":{"content":"nul byte \x00 raw"}}\n')
        f.write(b'{"type":"assistant","message":{"content":"' + b"g" * (7 * 1024 * 1024) + b'"}}\n')
        f.write(b'{"type":"assistant","message":{"content":"' + b"h" * (20 * 1024 * 1024) + b'"}}\n')
        f.write(b'{"type":"user","message":{"content":"torn last')
    got = read_turns(str(p))
    assert got == oracle_turns(str(p))
    texts = [t.text for t in got]
    assert "lone \ud83d surrogate" in texts and "pair \U0001f600 ok" in texts
    assert "raw \u2028 line sep \u0085 nel" in texts and "crlf" in texts
    assert "bad utf8 \ufffd\ufffd end" in texts
    assert texts[-1] == "g" * 2000


def random_entry(rnd):
    kind = rnd.random()
    if kind < 0.3:
        return json.dumps(
            user(
                rnd.choice(
                    ["hi", "", "é" * rnd.randint(0, 3000), [{"type": "text", "text": "t%d" % rnd.randint(0, 9)}]]
                )
            )
        )
    if kind < 0.6:
        blocks = [
            rnd.choice(
                [
                    {"type": "text", "text": "a" * rnd.randint(0, 2500)},
                    {"type": "tool_use", "name": "X"},
                    {"type": "thinking", "thinking": "z"},
                    "junk",
                    None,
                ]
            )
            for _ in range(rnd.randint(0, 3))
        ]
        return json.dumps(assistant(blocks))
    if kind < 0.7:
        return json.dumps(user([{"type": "tool_result", "content": "r" * rnd.randint(0, 10000)}]))
    if kind < 0.8:
        return rnd.choice(["", "   ", "garbage", "{", "null", '{"type":"summary","summary":"s"}'])
    if kind < 0.9:
        return json.dumps(
            {
                "type": rnd.choice(["user", "assistant", "system", None, 3]),
                "message": rnd.choice([None, 1, "s", {}, {"content": None}]),
            }
        )
    return json.dumps(user("x"))[: rnd.randint(1, 20)]


@pytest.mark.parametrize("seed", range(12))
def test_generated_files_match_oracle(tmp_path, seed):
    rnd = random.Random(seed)
    p = tmp_path / "gen.jsonl"
    lines = [random_entry(rnd) for _ in range(rnd.randint(0, 400))]
    data = "\n".join(lines)
    if rnd.random() < 0.5:
        data += "\n"
    p.write_text(data, encoding="utf-8")
    assert read_turns(str(p)) == oracle_turns(str(p))


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.binary(max_size=60),
            st.sampled_from(
                [
                    json.dumps(user("u")).encode(),
                    json.dumps(assistant([{"type": "text", "text": "a"}])).encode(),
                    b'{"type":"user","message":{"content":"\xc3"}}',
                    b"\r",
                    b"\xef\xbb\xbf",
                ]
            ),
        ),
        max_size=60,
    )
)
def test_fuzzed_bytes_match_oracle(tmp_path_factory, chunks):
    p = tmp_path_factory.mktemp("fz") / "f.jsonl"
    p.write_bytes(b"\n".join(chunks))
    assert read_turns(str(p)) == oracle_turns(str(p))


@pytest.mark.parametrize("path", corpus_params(corpus_files()))
def test_corpus_file_matches_oracle(path):
    assert read_turns(str(path)) == oracle_turns(str(path))


def test_corpus_present_or_skipped(corpus):
    assert len(corpus) > 10


# --- the fast path's own rule: it never drops a line that prints -----------------------------


def prints(raw):
    entry = parse_object(raw)
    return entry is not None and entry_turn(entry) is not None


def spell(value, draw):
    """``value`` as JSON text spelled as any writer may: whitespace around the syntax,
    characters as escapes; an object is a list of pairs, so keys may repeat."""
    space = draw(st.sampled_from(["", "", " ", "\t", "\r\n", " " * 300]))
    if isinstance(value, tuple):  # an object, as its pairs
        members = ",".join(space + spell(k, draw) + space + ":" + space + spell(v, draw) for k, v in value)
        return "{" + members + space + "}"
    if isinstance(value, list):
        return "[" + ",".join(space + spell(v, draw) for v in value) + "]"
    if not isinstance(value, str):
        return json.dumps(value)
    escaped = draw(st.booleans())
    out = []
    for ch in value:
        if ch in '"\\' or ord(ch) < 0x20 or (escaped and ch.isalpha()):
            out.append("\\u%04x" % ord(ch) if ord(ch) < 0x20 or ch.isalpha() else "\\" + ch)
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


_LONG = st.sampled_from(["", "x", 'say "hi" \\ there', "C:\\dir\\", "\u00e9\U0001f600", "o" * (SKELETON_FROM + 1)])
_BLOCK = st.one_of(
    st.tuples(st.just(("type", "text")), st.tuples(st.just("text"), st.one_of(_LONG, st.just(5)))),
    st.tuples(st.just(("type", "tool_result")), st.tuples(st.just("content"), _LONG)),
    st.tuples(st.just(("type", "thinking")), st.tuples(st.just("thinking"), _LONG)),
    st.tuples(st.just(("type", "tool_use")), st.tuples(st.just("input"), st.tuples(st.tuples(st.just("text"), _LONG)))),
)
_CONTENT = st.one_of(_LONG, st.lists(_BLOCK, max_size=3), st.none())
_MESSAGE = st.one_of(st.tuples(st.tuples(st.just("content"), _CONTENT)), st.just("s"))
_MEMBER = st.one_of(
    st.tuples(st.just("type"), st.sampled_from(["user", "assistant", "system", "text"])),
    st.tuples(st.just("message"), _MESSAGE),
    st.tuples(st.just("toolUseResult"), _LONG),
    st.tuples(st.just("content"), _LONG),
)


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_may_print_keeps_every_line_that_prints(data):
    members = data.draw(st.lists(_MEMBER, max_size=5))
    raw = spell(tuple(members), data.draw).encode("utf-8", "surrogatepass")
    if prints(raw):
        assert may_print(raw)


@pytest.mark.parametrize(
    "line",
    [
        '{"type":"user","message":{"con\\u0074ent":"escaped key"}}',
        '{"type":"assistant","message":{"content":[{"type":"te\\u0078t","text":"escaped value"}]}}',
        '{"type":"user","message":{"content"' + " " * 300 + ':\t"far colon"}}',
        '{"type":"user","message":{"content":[]},"message":{"content":"the last one wins"}}',
        '{"x":"' + '\\\\\\"' * SKELETON_FROM + '","type":"user","message":{"content":"after escapes"}}',
        '{"x":"' + "o" * SKELETON_FROM + '\\\\","type":"user","message":{"content":"after a backslash"}}',
        '{"type":"user","message":{"content":[{"type":"text","text":"' + "t" * SKELETON_FROM + '"}]}}',
        '{"type":"user","message":{"x":[{"content":"four deep"}],"content":"then two deep"}}',
        '{"\\"content":"a key with a quote","type":"user","message":{"content":"after it"}}',
        '{"x":"\\\\","type":"user","message":{"content":"after an escaped backslash"}}',
    ],
)
def test_may_print_keeps_the_spellings_that_print(line):
    raw = line.encode()
    assert prints(raw) and may_print(raw)


@pytest.mark.parametrize(
    "entry",
    [
        user(
            [{"type": "tool_result", "tool_use_id": "t", "content": "out " * 2000}],
            toolUseResult={"stdout": "o" * 9000},
        ),
        user([{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "image"}]}]),
        user([{"type": "tool_result", "tool_use_id": "t", "content": "a short string result"}]),
        assistant([{"type": "thinking", "thinking": "hmm", "signature": "s"}]),
        assistant([{"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "ls"}}]),
        {"type": "progress", "data": {"message": {"type": "user"}}},
    ],
)
def test_may_print_drops_what_never_prints(entry):
    raw = json.dumps(entry).encode()
    assert not prints(raw) and not may_print(raw)
