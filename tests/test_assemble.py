"""assemble / assemble-file: the seed's pipeline, checked against an in-memory oracle."""

import io
import json
import os
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import corpus_files, corpus_params
from termsprawl_context.store import assemble as assemble_mod
from termsprawl_context.store.assemble import (
    SIDECHAIN_BEGINS,
    SIDECHAIN_ENDS,
    assemble,
    assemble_file,
)
from termsprawl_context.store import chunks
from termsprawl_context.store.chunks import MAX_LINE_BYTES
from termsprawl_context.errors import NotFound, RecordUnreadable, SessionNotFound
from termsprawl_context.transcript import parse as parse_mod

PREFIX = "termsprawl-context: "


# --- the oracle: the seed's algorithm, whole file in memory ------------------------------


def _freeze(value):
    # The seed keyed a dict by the raw uuid value (and crashed on arrays and objects);
    # compare those by value instead, and a boolean never as the number it equals in
    # Python (issue 13, item 11: `true` and `1` are two messages).
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, list):
        return ("[]", tuple(_freeze(v) for v in value))
    if isinstance(value, dict):
        return ("{}", frozenset((k, _freeze(v)) for k, v in value.items()))
    return value


def oracle(data):
    """(lines printed, stderr sidechain notes) exactly as the seed's assemble: lines end
    at b"\\n", text is UTF-8 with U+FFFD, each line stripped and json-parsed."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    by_uuid = {}
    idx = -1
    for raw in lines:
        text = raw.decode("utf-8", "replace").strip()
        if not text:
            continue
        if len(raw) > MAX_LINE_BYTES:
            continue  # over the bound: unreadable, like junk
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError):
            continue
        if not isinstance(obj, dict):
            continue
        uuid = obj.get("uuid")
        if uuid is None:
            continue
        try:
            key = _freeze(uuid)
        except RecursionError:
            continue  # too deep to key: junk
        idx += 1
        ts = obj.get("timestamp")
        if not isinstance(ts, str):
            ts = ""
        if key in by_uuid:
            by_uuid[key][0] = ts
            by_uuid[key][2] = text
            by_uuid[key][3] = bool(obj.get("isSidechain"))
        else:
            by_uuid[key] = [ts, idx, text, bool(obj.get("isSidechain"))]
    ordered = sorted(by_uuid.values(), key=lambda rec: (rec[0], rec[1]))
    notes = []
    inside = False
    for rec in ordered:
        if rec[3] and not inside:
            inside = True
            notes.append(PREFIX + SIDECHAIN_BEGINS + "\n")
        elif not rec[3] and inside:
            inside = False
            notes.append(PREFIX + SIDECHAIN_ENDS + "\n")
    return [rec[2].encode("utf-8") for rec in ordered], notes


def run_file(path):
    out, err = io.BytesIO(), io.StringIO()
    count = assemble_file(str(path), out, err)
    printed = out.getvalue().split(b"\n")
    assert printed.pop() == b""
    assert count == len(printed)
    return printed, err.getvalue()


def write_lines(path, objs, tail=b""):
    path.write_bytes(b"".join(json.dumps(o).encode() + b"\n" for o in objs) + tail)
    return path


def msg(uuid, ts, **extra):
    obj = {"type": "user", "uuid": uuid, "timestamp": ts, "sessionId": "s"}
    obj.update(extra)
    return obj


# --- the reference's table -----------------------------------------------------------------


def test_truncated_final_line_is_dropped(tmp_path):
    sid = "3f1c2d4e-0000-4000-8000-000000000001"
    objs = [
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "sessionId": sid,
            "timestamp": "2026-07-03T10:00:00.000Z",
            "message": {"role": "user", "content": "hi"},
        },
        {
            "type": "assistant",
            "uuid": "u2",
            "parentUuid": "u1",
            "sessionId": sid,
            "timestamp": "2026-07-03T10:00:05.000Z",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "reading"},
                    {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/a"}},
                ],
            },
        },
        {
            "type": "user",
            "uuid": "u3",
            "parentUuid": "u2",
            "sessionId": sid,
            "timestamp": "2026-07-03T10:00:10.000Z",
            "toolUseResult": "x" * 2048,
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
        },
        {
            "type": "assistant",
            "uuid": "u4",
            "parentUuid": "u3",
            "sessionId": sid,
            "timestamp": "2026-07-03T10:00:15.000Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
        },
    ]
    path = write_lines(tmp_path / (sid + ".jsonl"), objs, b'{"uuid":"u5","timestamp":"2026-07-03T10:00:2')
    printed, err = run_file(path)
    assert len(printed) == 4
    assert any(b'"u1"' in line for line in printed)
    assert not any(b"u5" in line for line in printed)
    assert err == ""


def test_missing_file_is_not_found(tmp_path):
    with pytest.raises(NotFound) as caught:
        assemble_file(str(tmp_path / "missing.jsonl"), io.BytesIO(), io.StringIO())
    assert caught.value.exit_code == 1
    assert caught.value.message == "transcript file not found: %s" % (tmp_path / "missing.jsonl")


def test_a_directory_or_fifo_is_not_a_transcript(tmp_path):
    os.mkfifo(str(tmp_path / "fifo.jsonl"))  # would block forever if opened plainly
    (tmp_path / "dir.jsonl").mkdir()
    for name in ("fifo.jsonl", "dir.jsonl"):
        with pytest.raises(NotFound):
            assemble_file(str(tmp_path / name), io.BytesIO(), io.StringIO())


# --- the pipeline, rule by rule ------------------------------------------------------------


def test_dedup_keeps_the_last_copy_at_the_first_position(tmp_path):
    path = write_lines(
        tmp_path / "t.jsonl",
        [
            msg("a", "2026-01-01T00:00:01Z", v=1),
            msg("b", "2026-01-01T00:00:01Z"),
            msg("c", "2026-01-01T00:00:00Z"),
            msg("a", "2026-01-01T00:00:01Z", v=2),  # same ts: stays before b (first seen)
            msg("c", "2026-01-01T00:00:05Z", v=2),  # later ts: moves to the end
        ],
    )
    printed, _ = run_file(path)
    assert [json.loads(line)["uuid"] for line in printed] == ["a", "b", "c"]
    assert json.loads(printed[0])["v"] == 2
    assert json.loads(printed[2])["v"] == 2


def test_missing_and_odd_timestamps_sort_first_and_bookkeeping_drops(tmp_path):
    path = write_lines(
        tmp_path / "t.jsonl",
        [
            {"type": "summary", "summary": "s", "leafUuid": "x"},
            {"type": "file-history-snapshot", "messageId": "m", "snapshot": {"timestamp": "0"}},
            {"type": "permission-mode", "uuid": None, "timestamp": "0"},
            msg("late", "2026-01-02T00:00:00Z"),
            {"type": "user", "uuid": "nots"},
            msg("numts", 5),
            msg("", "2026-01-01T00:00:00Z"),
            msg(0, "2026-01-01T00:00:00Z"),
        ],
    )
    printed, _ = run_file(path)
    uuids = [json.loads(line)["uuid"] for line in printed]
    assert uuids == ["nots", "numts", "", 0, "late"]


def test_lines_are_printed_as_they_were_only_trimmed(tmp_path):
    lines = [
        b'  {"uuid": "a",   "timestamp": "1", "k": [1, 2.50, "\\u00e9"]}\t\r',
        b'\x1c\xc2\xa0{"uuid":"b","timestamp":"2"}\xc2\xa0',
        b'{"uuid":"c","timestamp":"3","bad":"\xff\xfe"}',
        b'\xef\xbb\xbf{"uuid":"bom","timestamp":"0"}',
        b'{"uuid":"d","timestamp":"4"} ',
    ]
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    printed, _ = run_file(path)
    assert printed == [
        b'{"uuid": "a",   "timestamp": "1", "k": [1, 2.50, "\\u00e9"]}',
        b'{"uuid":"b","timestamp":"2"}',
        '{"uuid":"c","timestamp":"3","bad":"\ufffd\ufffd"}'.encode("utf-8"),
        b'{"uuid":"d","timestamp":"4"}',
    ]
    assert printed == oracle(path.read_bytes())[0]


def test_sidechain_spans_are_announced_and_passed_through(tmp_path):
    path = write_lines(
        tmp_path / "t.jsonl",
        [
            msg("a", "1"),
            msg("b", "2", isSidechain=True),
            msg("c", "3", isSidechain=1),
            msg("d", "4", isSidechain=False),
            msg("e", "5", isSidechain=True),
        ],
    )
    printed, err = run_file(path)
    assert len(printed) == 5
    assert err == (
        "termsprawl-context: isSidechain span begins (passthrough; collapse is prepass)\n"
        "termsprawl-context: isSidechain span ends\n"
        "termsprawl-context: isSidechain span begins (passthrough; collapse is prepass)\n"
    )


def test_sidechain_flag_follows_the_kept_copy(tmp_path):
    path = write_lines(tmp_path / "t.jsonl", [msg("a", "1", isSidechain=True), msg("a", "1")])
    assert run_file(path)[1] == ""


def test_schema_drift_warning(tmp_path):
    foreign = write_lines(tmp_path / "foreign.jsonl", [{"id": i} for i in range(60)])
    printed, err = run_file(foreign)
    assert printed == []
    assert err == (
        "termsprawl-context: WARNING \u2014 no known JSONL fields seen in first 50 lines of %s; "
        "possible schema drift.\n" % foreign
    )
    assert run_file(foreign)[1] == ""  # once per path per process
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"not json\n\n[1]\n")
    assert run_file(junk) == ([], "")  # nothing parsed: nothing to warn about


def test_zero_messages_is_success(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert run_file(empty) == ([], "")


def test_unhashable_uuids_do_not_raise(tmp_path):
    path = write_lines(
        tmp_path / "t.jsonl",
        [
            msg([1, {"a": 2}], "2"),
            msg({"k": [1]}, "1"),
            msg([1, {"a": 2}], "3", v=2),
            msg(1, "0"),
            msg(True, "0"),
        ],
    )
    printed, _ = run_file(path)
    assert printed == oracle(path.read_bytes())[0]
    assert [json.loads(line)["uuid"] for line in printed] == [1, True, {"k": [1]}, [1, {"a": 2}]]


@pytest.mark.parametrize(
    "pair, messages",
    [((True, 1), 2), ((False, 0), 2), (([True], [1]), 2), (({"a": False}, {"a": 0}), 2), ((1, 1.0), 1)],
)
def test_true_and_1_are_two_messages_but_1_and_1_0_are_one(tmp_path, pair, messages):
    path = write_lines(tmp_path / "t.jsonl", [msg(pair[0], "1"), msg(pair[1], "2")])
    printed, _ = run_file(path)
    assert printed == oracle(path.read_bytes())[0]
    # JSON has one number type (1 and 1.0 are one value, kept last); booleans are not numbers.
    assert len(printed) == messages


@pytest.mark.parametrize("depth", [450, 2000, 100000])
def test_a_deeply_nested_uuid_is_a_key_or_junk_never_a_crash(tmp_path, monkeypatch, depth):
    # 450 levels parse on every version (issue 13, item 5: they were a RecursionError when
    # keyed); deeper than the JSON parser's own guard (which differs between versions)
    # is junk.
    monkeypatch.setattr(assemble_mod, "PARALLEL_MIN_BYTES", 0)  # the helper process too
    deep = b'{"type":"user","uuid":' + b"[" * depth + b"]" * depth + b',"timestamp":"0"}'
    try:
        json.loads(deep)
        messages = ["deep", "a", "b"]
    except RecursionError:
        messages = ["a", "b"]
    if depth == 450:
        assert messages == ["deep", "a", "b"]
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        json.dumps(msg("a", "1")).encode() + b"\n" + deep + b"\n" + json.dumps(msg("b", "2")).encode() + b"\n"
    )
    for jobs in (1, 2):
        out = io.BytesIO()
        assert assemble_file(str(path), out, io.StringIO(), jobs=jobs) == len(messages)
        uuids = [json.loads(line)["uuid"] for line in out.getvalue().splitlines()]
        assert ["deep" if isinstance(u, list) else u for u in uuids] == messages


def test_a_line_over_the_bound_is_skipped_and_never_held(tmp_path, monkeypatch):
    monkeypatch.setattr(chunks, "MAX_LINE_BYTES", 1000)
    monkeypatch.setattr(chunks, "BLOCK_SIZE", 256)
    big = json.dumps(msg("big", "0", pad="x" * 2000)).encode()
    path = tmp_path / "t.jsonl"
    path.write_bytes(json.dumps(msg("a", "1")).encode() + b"\n" + big + b"\n" + json.dumps(msg("b", "2")).encode())
    printed, _ = run_file(path)
    assert [json.loads(line)["uuid"] for line in printed] == ["a", "b"]


def test_canonical_uuids_and_their_variants_stay_distinct(tmp_path):
    path = write_lines(
        tmp_path / "t.jsonl",
        [
            msg(CANONICAL, "3"),
            msg(CANONICAL.upper(), "2"),
            msg(CANONICAL, "1", v=2),
            msg(CANONICAL[:-1] + "g", "0"),
        ],
    )
    printed, _ = run_file(path)
    assert printed == oracle(path.read_bytes())[0]
    assert [json.loads(line)["uuid"] for line in printed] == [CANONICAL[:-1] + "g", CANONICAL, CANONICAL.upper()]


def test_timestamps_sort_as_strings_whatever_they_hold(tmp_path):
    stamps = ["\ue000", "\ud800", "\U0001f600", "\u00e9", "z", "", "2026", "\udfff\ud800"]
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(msg("u%d" % i, ts)) + "\n" for i, ts in enumerate(stamps)))
    printed, _ = run_file(path)
    assert [json.loads(line)["timestamp"] for line in printed] == sorted(stamps)


def test_a_file_changed_between_the_passes_is_unreadable(tmp_path, monkeypatch):
    path = write_lines(tmp_path / "t.jsonl", [msg("a", "1"), msg("b", "2")])
    real_order = assemble_mod.Timeline.order

    def truncate_then_order(self):
        with open(str(path), "r+b") as f:
            f.truncate(10)
        return real_order(self)

    monkeypatch.setattr(assemble_mod.Timeline, "order", truncate_then_order)
    with pytest.raises(RecordUnreadable) as caught:
        assemble_file(str(path), io.BytesIO(), io.StringIO())
    assert caught.value.exit_code == 1
    assert caught.value.message.startswith("cannot read %s: " % path)


def test_bytes_appended_during_the_read_are_not_mixed_in(tmp_path, monkeypatch):
    path = write_lines(tmp_path / "t.jsonl", [msg("a", "2"), msg("b", "1")])
    real_order = assemble_mod.Timeline.order

    def append_then_order(self):
        with open(str(path), "ab") as f:
            f.write(json.dumps(msg("a", "0", v="new")).encode() + b"\n")
        return real_order(self)

    monkeypatch.setattr(assemble_mod.Timeline, "order", append_then_order)
    out = io.BytesIO()
    assert assemble_file(str(path), out, io.StringIO()) == 2
    assert b"new" not in out.getvalue()


def test_a_read_error_is_unreadable(tmp_path, monkeypatch):
    path = write_lines(tmp_path / "t.jsonl", [msg("a", "1")])

    def failing(*args, **kwargs):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(assemble_mod, "_read_at", failing)
    with pytest.raises(RecordUnreadable) as caught:
        assemble_file(str(path), io.BytesIO(), io.StringIO())
    assert caught.value.message == "cannot read %s: [Errno 5] Input/output error" % path


def test_a_write_error_is_not_reported_as_a_read_error(tmp_path):
    path = write_lines(tmp_path / "t.jsonl", [msg("a", "1")])

    class Closed(io.BytesIO):
        def write(self, data):
            raise BrokenPipeError(32, "Broken pipe")

    with pytest.raises(BrokenPipeError):
        assemble_file(str(path), Closed(), io.StringIO())


# --- assemble <uuid> ---------------------------------------------------------------------


def test_assemble_locates_then_prints(tmp_path):
    store = tmp_path / "projects"
    (store / "p").mkdir(parents=True)
    sid = "0d3b22c1-ba90-4fd3-b8d2-056ffc626725"
    path = write_lines(store / "p" / (sid + ".jsonl"), [msg("b", "2"), msg("a", "1")])
    out = io.BytesIO()
    assert assemble(sid, str(store), out, io.StringIO()) == 2
    assert out.getvalue() == b"".join(line + b"\n" for line in oracle(path.read_bytes())[0])
    with pytest.raises(SessionNotFound) as caught:
        assemble("absent", str(store), io.BytesIO(), io.StringIO())
    assert caught.value.message == "uuid not found in any transcript: absent"


def test_assemble_reports_a_located_file_that_vanished(tmp_path, monkeypatch):
    gone = str(tmp_path / "gone.jsonl")
    monkeypatch.setattr(assemble_mod, "locate_or_refuse", lambda uuid, projects, err=None, jobs=None: gone)
    with pytest.raises(NotFound) as caught:
        assemble("x", str(tmp_path), io.BytesIO(), io.StringIO())
    assert caught.value.exit_code == 1
    assert caught.value.message == "canonical file disappeared during read: %s" % gone


# --- the corpus and fuzzing: identical to the oracle ----------------------------------------


@pytest.mark.parametrize("path", corpus_params(corpus_files()))
def test_corpus_file_matches_the_oracle(path):
    data = path.read_bytes()
    printed, err = run_file(path)
    expected, notes = oracle(data)
    assert printed == expected
    for note in notes:
        assert note in err
    keys = []
    for line in printed:
        obj = json.loads(line)
        assert obj.get("uuid") is not None
        ts = obj.get("timestamp")
        keys.append(ts if isinstance(ts, str) else "")
    uuids = [json.loads(line)["uuid"] for line in printed]
    assert len(set(uuids)) == len(uuids)
    assert keys == sorted(keys)


def test_corpus_is_strictly_ordered_by_timestamp_then_first_seen(corpus):
    for path in corpus:
        first_seen = {}
        for raw in path.read_bytes().split(b"\n"):
            try:
                obj = json.loads(raw.decode("utf-8", "replace").strip())
            except ValueError:
                continue
            if isinstance(obj, dict) and obj.get("uuid") is not None:
                first_seen.setdefault(obj["uuid"], len(first_seen))
        printed, _ = run_file(path)
        order = []
        for line in printed:
            obj = json.loads(line)
            ts = obj.get("timestamp")
            order.append((ts if isinstance(ts, str) else "", first_seen[obj["uuid"]]))
        assert all(a < b for a, b in zip(order, order[1:])), path


CANONICAL = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
json_leaf = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from(
        [
            "a",
            "b",
            "",
            "1",
            "2",
            CANONICAL,
            CANONICAL.upper(),
            CANONICAL + " ",
            "\ud800",
            "\ue000",
            "\U0001f600",
            "\u00e9",
        ]
    )
)
line_objects = st.fixed_dictionaries(
    {},
    optional={
        "uuid": json_leaf | st.lists(json_leaf, max_size=2),
        "timestamp": json_leaf | st.sampled_from(["2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z"]),
        "isSidechain": json_leaf,
        "type": st.sampled_from(["user", "assistant", "summary"]),
        "x": st.text(max_size=5),
    },
)


def encoded_line(obj, pad):
    # A surrogate written raw is invalid UTF-8: that path is fuzzed too.
    return pad[0] + json.dumps(obj, ensure_ascii=pad[2]).encode("utf-8", "surrogatepass") + pad[1]


pads = st.tuples(
    st.sampled_from([b"", b" ", b"\t", b"\xc2\xa0", b"\x1c", b"\xef\xbb\xbf"]),
    st.sampled_from([b"", b" ", b"\r", b"\xc2\xa0", b"\xff"]),
    st.booleans(),
)
# Deeper than any recursion limit hypothesis sets (about 2,000 frames free), so parsing it
# raises RecursionError, which every reader takes as junk. Not on CPython 3.8: there a
# RecursionError caught while hypothesis moves the limit can leave the interpreter's
# overflow flag set, and the next deep parse aborts the whole process ("Fatal Python
# error: Cannot recover from stack overflow", bpo-42500, fixed in 3.9; seen in CI, at
# about 1 run in 3). On 3.8 the line stays deep but under the limit; test_fuzz feeds
# 3,000 levels to every command in a subprocess, at the default limit, on each version.
DEEP_LINE = b"[" * (3000 if sys.version_info >= (3, 9) else 1500)
raw_lines = st.one_of(
    st.builds(encoded_line, line_objects, pads),
    st.builds(lambda obj, cut: json.dumps(obj).encode()[:cut], line_objects, st.integers(0, 30)),
    st.binary(max_size=40),
    st.sampled_from([b"", b"[1]", b"null", b"{", b'{"uuid":"a"', b"// comment", DEEP_LINE]),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(raw_lines, max_size=12), st.booleans())
def test_fuzzed_files_match_the_oracle_and_never_raise(tmp_path, lines, final_newline):
    data = b"\n".join(line.replace(b"\n", b" ") for line in lines) + (b"\n" if final_newline else b"")
    data = data.replace(b"\\ud800", b"\\uD800")  # JSON escapes stand for surrogates either case
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(data)
    printed, err = run_file(path)
    expected, notes = oracle(data)
    assert printed == expected
    assert "".join(notes) == "".join(line + "\n" for line in err.splitlines() if "isSidechain" in line)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(raw_lines, max_size=30), st.booleans(), st.integers(2, 3))
def test_two_or_three_processes_print_what_one_prints(tmp_path, monkeypatch, lines, final_newline, jobs):
    monkeypatch.setattr(assemble_mod, "PARALLEL_MIN_BYTES", 0)
    data = b"\n".join(line.replace(b"\n", b" ") for line in lines) + (b"\n" if final_newline else b"")
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(data)
    runs = []
    for n in (1, jobs):
        parse_mod._drift_warned.clear()
        out, err = io.BytesIO(), io.StringIO()
        count = assemble_file(str(path), out, err, jobs=n)
        runs.append((count, out.getvalue(), err.getvalue()))
    assert runs[1] == runs[0]


@pytest.mark.parametrize("path", corpus_params(sorted(corpus_files(), key=lambda p: p.stat().st_size)[-4:]))
def test_corpus_files_in_two_processes(path, monkeypatch):
    monkeypatch.setattr(assemble_mod, "PARALLEL_MIN_BYTES", 0)
    one, two = io.BytesIO(), io.BytesIO()
    assert assemble_file(str(path), one, io.StringIO(), jobs=1) == assemble_file(str(path), two, io.StringIO(), jobs=2)
    assert one.getvalue() == two.getvalue()


def test_uuid_keys_compare_as_json_values_and_stay_flat():
    """Array and object uuids key as their JSON value (member order aside, 1 and 1.0
    one number, true and 1 two values), as a flat tuple, so equal deep keys compare
    without recursion."""
    from termsprawl_context.store.assemble import uuid_key as _uuid_key

    assert _uuid_key({"a": 1, "b": [True]}) == _uuid_key({"b": [True], "a": 1.0})
    for a, b in [
        ([True], [1]),
        (True, 1),
        ([["x"]], ["x"]),
        ({"a": "b"}, ["a", "b"]),
        ([{"a": 1}], [{"a": 2}]),
        (["k"], [{}]),
        ([], {}),
        ("x", ["x"]),
    ]:
        assert _uuid_key(a) != _uuid_key(b), (a, b)
    deep = [[[[1]]]]
    assert isinstance(_uuid_key(deep), bytes)  # flat: equal deep keys compare as bytes do
    assert _uuid_key([[[[1.0]]]]) == _uuid_key(deep)


def _json_equal(a, b):
    """The seed's key equality (Python's ==), booleans told apart from numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, dict, str)) or isinstance(b, (list, dict, str)):
        return type(a) is type(b) and a == b
    return a == b or (a != a and b != b)  # the JSON parser's NaN is one object


def test_uuid_keys_are_equal_exactly_when_the_values_are():
    """Issue 31, item 5: every uuid is a flat bytes key; two keys are equal exactly when
    the values are (the token string spells one value only)."""
    from termsprawl_context.store.assemble import uuid_key as _uuid_key

    pool = [
        "a", "s1:a", "j", "", "\ud800", "\U0001f600", "\ud83d\ude00", 0, -0.0, 0.0, 1, 1.0, True, False, None,
        1e22, 10**22, 10**22 + 1, 1.5, float("inf"), float("-inf"), json.loads("NaN"), 2**63, -(2**63),
        [], {}, [1], [True], ["a"], [["a"]], ["a", "b"], ["ab"], {"a": "b"}, {"a": ["b"]}, {"ab": ""},
        {"a": 1, "b": 2}, {"b": 2, "a": 1.0}, {"s1:a": 1}, [None], [[]], [{}], ["s1:a"], [1, [2]], [[1], 2],
    ]  # fmt: skip
    for a in pool:
        for b in pool:
            assert (_uuid_key(a) == _uuid_key(b)) == _json_equal(a, b), (a, b)


# --- issue 24 item 4: the timeline in flat buffers ---------------------------------------------


def _many_messages(rnd, count):
    """Canonical uuids (some repeated), canonical and sometimes odd timestamps (equal
    ones too), a few non-canonical uuids: what the packed timeline must order as the
    seed's dict and sort do."""
    import random  # noqa: F401  (rnd is a random.Random)

    lines = []
    for i in range(count):
        n = rnd.randrange(count // 2 + 1)  # about a third of the lines repeat a uuid
        uuid = "%08x-0000-4000-8000-%012x" % (n, n) if rnd.random() < 0.95 else rnd.choice(["x%d" % n, n, [n]])
        ts = "2025-%02d-%02dT%02d:%02d:%02d.%03dZ" % (
            rnd.randrange(1, 13),
            rnd.randrange(1, 29),
            rnd.randrange(24),
            rnd.randrange(60),
            rnd.randrange(3),
            rnd.randrange(3),
        )
        lines.append(msg(uuid, ts, n=i))
    return lines


@pytest.mark.parametrize("odd", ["", "2025-01-01T00:00:00Z", 7, "9999"])
@pytest.mark.parametrize("seed", range(4))
def test_the_packed_timeline_orders_as_the_seed(tmp_path, monkeypatch, seed, odd):
    """Runs of the sort smaller than the file (merged), a slot table that grows many
    times, timestamps packed as integers until an odd one (``odd``) switches the
    timeline to strings, in one process and in two: the seed's order exactly."""
    import random

    monkeypatch.setattr(assemble_mod, "SORT_RUN", 7)
    monkeypatch.setattr(assemble_mod, "PARALLEL_MIN_BYTES", 0)
    rnd = random.Random(seed)
    lines = _many_messages(rnd, 3000)
    if odd != "":
        lines.insert(rnd.randrange(len(lines)), msg("%08x-0000-4000-8000-%012x" % (1, 1), odd))
    path = write_lines(tmp_path / "many.jsonl", lines)
    expected = oracle(path.read_bytes())[0]
    for jobs in (1, 2):
        out = io.BytesIO()
        assemble_file(str(path), out, io.StringIO(), jobs=jobs)
        assert out.getvalue().split(b"\n")[:-1] == expected, jobs


def test_timestamp_codes_keep_the_order_of_the_strings():
    from termsprawl_context.store.assemble import ts_code as _ts_code, ts_text as _ts_text

    stamps = [
        b"",
        b"0000-00-00T00:00:00.000Z",
        b"2025-01-01T00:00:00.000Z",
        b"2025-01-01T00:00:00.001Z",
        b"2025-12-31T23:59:59.999Z",
        b"9999-99-99T99:99:99.999Z",
    ]
    codes = [_ts_code(ts) for ts in stamps]
    assert codes == sorted(codes) and len(set(codes)) == len(codes)
    assert [_ts_text(code) for code in codes] == stamps
    for odd in (
        b"2025-01-01T00:00:00Z",
        b"2025-01-01T00:00:00.000+00:00",
        b"\xd9\xa0025-01-01T00:00:00.000Z",
        b"2025-01-01 00:00:00.000Z",
        b"x" * 24,
    ):
        assert _ts_code(odd) is None


@pytest.mark.parametrize("seed", range(2))
def test_keys_whose_hashes_meet_are_read_back_and_told_apart(tmp_path, monkeypatch, seed):
    """Issue 31, item 5: the timeline keeps each key's hash, not the key; where two
    hashes are equal both keys are read back from the file and compared exactly. With
    every key hashing to one of three values, the seed's order still comes out, in one
    process and in two (whose helpers send hashes only)."""
    import random

    monkeypatch.setattr(assemble_mod, "hash", lambda key: len(key) % 3, raising=False)
    monkeypatch.setattr(assemble_mod, "PARALLEL_MIN_BYTES", 0)
    rnd = random.Random(seed)
    lines = _many_messages(rnd, 300)
    lines.insert(100, msg("%08x-0000-4000-8000-%012x" % (1, 1), "2025-01-01T00:00:00Z"))  # an odd timestamp
    path = write_lines(tmp_path / "many.jsonl", lines)
    expected = oracle(path.read_bytes())[0]
    for jobs in (1, 2):
        out = io.BytesIO()
        assemble_file(str(path), out, io.StringIO(), jobs=jobs)
        assert out.getvalue().split(b"\n")[:-1] == expected, jobs


def test_a_long_line_of_invalid_utf8_is_judged_by_its_bytes_once(tmp_path):
    """The cost budget is checked on a line's bytes; its decoded text (each invalid byte a
    three-byte U+FFFD) is not checked again, so the line is kept as the seed keeps it."""
    first = json.dumps({"type": "user", "uuid": "u1", "timestamp": "2026-07-03T10:00:00.000Z"}).encode()
    body = json.dumps({"type": "assistant", "uuid": "u2", "timestamp": "2026-07-03T10:00:01.000Z", "text": "X"})
    second = body.encode().replace(b'"X"', b'"' + b"\x80" * 4000000 + b'"')
    data = first + b"\n" + second + b"\n"
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    out = io.BytesIO()
    assemble_file(str(path), out, io.StringIO())
    assert out.getvalue() == b"".join(line + b"\n" for line in oracle(data)[0])
    assert len(out.getvalue().splitlines()) == 2
