"""locate: the byte-searching fast path answers exactly what the seed's scan answers."""

import io
import json
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import SRC
from termsprawl_context import jsonl
from termsprawl_context.store import locate as locate_mod
from termsprawl_context.transcript import parse as parse_mod
from termsprawl_context.store.locate import (
    SessionNotFound,
    UuidSpellings,
    iter_store_files,
    locate,
    locate_or_refuse,
)

U1 = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
U2 = "fe5e1c67-53e7-4862-81ae-d0e013e3270b"
U3 = "a7da6a22-facc-4fcd-8bab-f83c87862004"


# --- the oracle: the seed's locate, every line of every file parsed ------------------------


def oracle(uuid, projects_dir):
    if not projects_dir or not os.path.isdir(projects_dir):
        return None
    best_path, best_ts = None, None
    for name in os.listdir(projects_dir):
        sub = os.path.join(projects_dir, name)
        if not os.path.isdir(sub):
            continue
        try:
            entries = os.listdir(sub)
        except OSError:
            continue
        for entry in entries:
            if not entry.endswith(".jsonl"):
                continue
            path = os.path.join(sub, entry)
            contains = os.path.splitext(entry)[0] == uuid
            max_ts = ""
            try:
                f = jsonl.open_regular(path)
            except OSError:
                continue
            with f:
                data = f.read()
            for raw in data.split(b"\n"):
                text = raw.decode("utf-8", "replace").strip()
                try:
                    obj = json.loads(text)
                except (ValueError, RecursionError):
                    continue
                if not isinstance(obj, dict):
                    continue
                if obj.get("uuid") is not None and obj.get("uuid") == uuid:
                    contains = True
                ts = obj.get("timestamp")
                if isinstance(ts, str) and ts > max_ts:
                    max_ts = ts
            if contains and (best_path is None or max_ts > best_ts or (max_ts == best_ts and path < best_path)):
                best_path, best_ts = path, max_ts
    return best_path


def both(uuid, store):
    """The fast path in one process and in two, and the seed's scan, against the oracle;
    the two fast runs must also warn alike."""
    runs = []
    for jobs in (1, 2):
        parse_mod._drift_warned.clear()
        err = io.StringIO()
        saved = locate_mod.PARALLEL_MIN_BYTES
        locate_mod.PARALLEL_MIN_BYTES = 0  # a helper process even for a tiny store
        try:
            runs.append((locate(uuid, str(store), err, jobs=jobs), err.getvalue()))
        finally:
            locate_mod.PARALLEL_MIN_BYTES = saved
    plain = locate(uuid, str(store), io.StringIO(), byte_filter=False)
    expected = oracle(uuid, str(store))
    fast = runs[0][0]
    assert fast == expected, (uuid, fast, expected)
    assert runs[1] == runs[0]
    assert plain == expected
    return fast


def line(uuid, ts, **extra):
    obj = {"type": "user", "uuid": uuid, "timestamp": ts, "sessionId": "s", "message": {"content": "x"}}
    obj.update(extra)
    return json.dumps(obj)


def put(store, project, name, lines, tail=""):
    path = store / project / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(("".join(ln + "\n" for ln in lines) + tail).encode("utf-8", "surrogatepass"))
    return str(path)


@pytest.fixture
def store(tmp_path):
    return tmp_path / "projects"


# --- the rules -------------------------------------------------------------------------------


def test_stem_or_inner_uuid_and_latest_descendant_wins(store):
    parent = put(store, "p", U1 + ".jsonl", [line("m1", "2026-01-01T00:00:00Z"), line("m2", "2026-01-01T00:00:01Z")])
    child = put(store, "q", U2 + ".jsonl", [line("m1", "2026-01-01T00:00:00Z"), line("m3", "2026-01-02T00:00:00Z")])
    assert both(U1, store) == parent  # the stem: the only holder
    assert both("m2", store) == parent
    assert both("m1", store) == child  # held by both: the later content wins
    assert both(U2, store) == child
    assert both("absent", store) is None


def test_max_timestamp_counts_every_line_of_a_holder(store):
    a = put(
        store, "a", "one.jsonl", [line("m1", "2026-01-01T00:00:00Z"), json.dumps({"type": "x", "timestamp": "2026-09"})]
    )
    put(store, "b", "two.jsonl", [line("m1", "2026-05-01T00:00:00Z")])
    assert both("m1", store) == a


def test_ties_go_to_the_smaller_path(store):
    same = [line("m1", "2026-01-01T00:00:00Z")]
    put(store, "zz", "x.jsonl", same)
    smaller = put(store, "aa", "y.jsonl", same)
    put(store, "mm", "a.jsonl", same)
    assert both("m1", store) == smaller
    no_timestamps = store.parent / "other-store"
    put(no_timestamps, "b", "k.jsonl", [json.dumps({"uuid": "n"})])
    first = put(no_timestamps, "a", "k.jsonl", [json.dumps({"uuid": "n"})])
    assert both("n", no_timestamps) == first


def test_only_one_level_and_only_jsonl(store):
    put(store, "p/" + U1 + "/subagents", "agent-a1.jsonl", [line("deep", "2026")])
    put(store, "p", "notes.txt", [line("txt", "2026")])
    (store / ("top.jsonl")).write_text(line("top", "2026") + "\n")
    put(store, "p", U1 + ".jsonl.bak", [line("bak", "2026")])
    for uuid in ("deep", "txt", "top", "bak", "agent-a1"):
        assert both(uuid, store) is None


def test_sessionid_is_not_consulted_and_null_uuid_never_matches(store):
    put(store, "p", "f.jsonl", [line("m", "1", sessionId="sess"), json.dumps({"uuid": None, "timestamp": "9"})])
    assert both("sess", store) is None
    assert both("None", store) is None


def test_junk_and_torn_lines_are_skipped(store):
    path = put(
        store, "p", "f.jsonl", ["junk", "", "[1]", line("m", "2026-01-01")], tail='{"uuid":"torn","timestamp":"2027'
    )
    assert both("m", store) == path
    assert both("torn", store) is None


@pytest.mark.parametrize(
    "spelled",
    [
        lambda u: "".join("\\u%04x" % ord(c) for c in u),
        lambda u: "".join("\\u%04X" % ord(c) for c in u),
        lambda u: u[:3] + "\\u%04x" % ord(u[3]) + u[4:],
        lambda u: u[:-1] + "\\u%04X" % ord(u[-1]),
    ],
)
def test_an_escaped_uuid_is_still_found(store, spelled):
    raw = '{"type":"user","\\u0075uid":"%s","timestamp":"2026-01-01"}' % spelled(U3)
    assert json.loads(raw)["uuid"] == U3
    path = put(store, "p", "esc.jsonl", [raw])
    put(store, "p", "other.jsonl", [line("zzz", "2025")])
    assert both(U3, store) == path


@pytest.mark.parametrize(
    "target",
    ['say "hi"', "back\\slash", "a/b", "tab\there", "emoji \U0001f600 x", "\udcff", "caf\u00e9", "\ufffd", "", "\x00"],
)
def test_targets_json_must_escape_or_can_spell_two_ways(store, target):
    for i, ensure_ascii in enumerate((True, False)):
        obj = {"type": "user", "uuid": target, "timestamp": "2026-0%d" % (i + 1)}
        put(store, "p%d" % i, "f.jsonl", [json.dumps(obj, ensure_ascii=ensure_ascii)])
    put(store, "z", "bad-utf8.jsonl", [])
    (store / "z" / "bad-utf8.jsonl").write_bytes(
        b'{"uuid":"\xef\xbf","timestamp":"2027"}\n{"uuid":"\xff","timestamp":"2028"}\n'
    )
    both(target, store)


def test_spellings_are_found_where_they_are_and_nowhere_else():
    spellings = UuidSpellings(U3)
    plain = b'{"uuid":"' + U3.encode() + b'"}\n'
    assert spellings.hits(plain) == [plain.index(b'"' + U3.encode())]
    assert U3[8] == "-"
    for escaped in ("\\u002d", "\\u002D"):  # any hex case
        text = b'{"uuid":"' + U3[:8].encode() + escaped.encode() + U3[9:].encode() + b'"}'
        assert spellings.hits(text) == [text.index(b"\\u")]
    # Terminal colours and other escapes of characters a uuid does not hold are no hit,
    # nor is the uuid without its quotes (a substring of a longer string).
    noise = b'{"out":"\\u001b[32mok\\u001b[0m \\n\\\\ x' + U3.encode() + b'y"}'
    assert spellings.hits(noise) == []
    assert UuidSpellings('q"t').hits(b'{"uuid":"q\\"t"}') == [10]
    assert UuidSpellings("\U0001f600").hits(b'"\\ud83d\\ude00"') == [1]


def test_bytes_that_cannot_spell_the_uuid_are_not_parsed(store, monkeypatch):
    put(store, "p", "a.jsonl", [line("m%d" % i, "2026") for i in range(20)])
    holder = put(store, "p", "b.jsonl", [line("m%d" % i, "2026") for i in range(20, 25)])
    parsed = []
    real = jsonl.parse_object

    def counting(raw):
        parsed.append(raw)
        return real(raw)

    monkeypatch.setattr(jsonl, "parse_object", counting)
    assert locate("m22", str(store), io.StringIO()) == holder
    # Each file's first line for the drift probe, then only b.jsonl's line holding "m22".
    assert len(parsed) == 3
    assert b'"m22"' in parsed[-1]


# --- the store misbehaving ---------------------------------------------------------------------


def test_missing_or_unset_store_finds_nothing(tmp_path):
    err = io.StringIO()
    assert locate(U1, str(tmp_path / "none"), err) is None
    assert locate(U1, "", err) is None
    (tmp_path / "file").write_text("x")
    assert locate(U1, str(tmp_path / "file"), err) is None
    assert err.getvalue() == ""
    with pytest.raises(SessionNotFound) as caught:
        locate_or_refuse(U1, str(tmp_path / "none"), err)
    assert caught.value.exit_code == 1
    assert caught.value.message == "uuid not found in any transcript: " + U1


def test_a_file_vanishing_mid_scan_is_not_a_holder(store, monkeypatch):
    keep = put(store, "p", "keep.jsonl", [line("m", "2026-01-01")])
    put(store, "p", "gone.jsonl", [line("m", "2026-12-31")])
    real_listdir = os.listdir

    def listdir_then_delete(path):
        names = real_listdir(path)
        if os.path.basename(path) == "p":
            os.unlink(os.path.join(path, "gone.jsonl"))
            names = names + ["phantom.jsonl"]
        return names

    monkeypatch.setattr(locate_mod.os, "listdir", listdir_then_delete)
    err = io.StringIO()
    assert locate("m", str(store), err) == keep
    assert err.getvalue() == ""


def test_unlistable_directories(store, monkeypatch):
    keep = put(store, "good", "a.jsonl", [line("m", "2026-01-01")])
    put(store, "locked", "b.jsonl", [line("m", "2026-12-31")])
    real_listdir = os.listdir

    def deny(path):
        if os.path.basename(path) == "locked":
            raise PermissionError(13, "Permission denied", path)
        return real_listdir(path)

    monkeypatch.setattr(locate_mod.os, "listdir", deny)
    err = io.StringIO()
    assert locate("m", str(store), err) == keep
    assert err.getvalue() == ""

    def deny_store(path):
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(locate_mod.os, "listdir", deny_store)
    err = io.StringIO()
    assert locate("m", str(store), err) is None
    assert err.getvalue() == "termsprawl-context: cannot list %s: [Errno 13] Permission denied: '%s'\n" % (store, store)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads through chmod 000")
def test_chmod_000_directory_is_skipped(store):
    keep = put(store, "good", "a.jsonl", [line("m", "2026-01-01")])
    put(store, "locked", "b.jsonl", [line("m", "2026-12-31")])
    (store / "locked").chmod(0)
    try:
        assert locate("m", str(store), io.StringIO()) == keep
    finally:
        (store / "locked").chmod(0o755)


def test_unreadable_file_is_one_warning(store, monkeypatch):
    keep = put(store, "p", "a.jsonl", [line("m", "2026-01-01")])
    locked = put(store, "p", "b.jsonl", [line("m", "2026-12-31")])
    real_open = jsonl.open_regular

    def deny(path):
        if path == locked:
            raise PermissionError(13, "Permission denied", path)
        return real_open(path)

    monkeypatch.setattr(jsonl, "open_regular", deny)
    err = io.StringIO()
    assert locate("m", str(store), err) == keep
    assert err.getvalue() == "termsprawl-context: cannot read %s: [Errno 13] Permission denied: '%s'\n" % (
        locked,
        locked,
    )


def test_fifo_and_directory_named_jsonl_do_not_hang_or_match(store):
    keep = put(store, "p", "a.jsonl", [line("m", "2026-01-01")])
    os.mkfifo(str(store / "p" / (U1 + ".jsonl")))
    (store / "p" / (U2 + ".jsonl")).mkdir()
    code = (
        "import io, sys; sys.path.insert(0, %r)\n"
        "from termsprawl_context.store.locate import locate\n"
        "err = io.StringIO()\n"
        "print(locate(%r, %r, err)); print(locate(%r, %r, err)); print(locate('m', %r, err))\n"
        "sys.stdout.write(err.getvalue())\n"
    ) % (str(SRC), U1, str(store), U2, str(store), str(store))
    done = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, timeout=30)
    out = done.stdout.decode().splitlines()
    assert out[:3] == ["None", "None", keep]
    # One warning per unreadable entry per scan: two entries, three scans.
    assert all("cannot read" in w and "not a regular file" in w for w in out[3:]) and len(out) == 9


def test_drift_warning_for_every_scanned_file(store):
    foreign = put(store, "p", "foreign.jsonl", [json.dumps({"id": i}) for i in range(3)])
    put(store, "p", "fine.jsonl", [line("m", "1")])
    err = io.StringIO()
    assert locate("zzz", str(store), err) is None
    assert err.getvalue() == (
        "termsprawl-context: WARNING \u2014 no known JSONL fields seen in first 3 lines of %s; "
        "possible schema drift.\n" % foreign
    )


def test_iter_store_files_lists_exactly_one_level_in_order(store):
    put(store, "b", "2.jsonl", [])
    put(store, "a", "1.jsonl", [])
    put(store, "a", "0.txt", [])
    put(store, "a/deeper", "3.jsonl", [])
    assert list(iter_store_files(str(store))) == [str(store / "a" / "1.jsonl"), str(store / "b" / "2.jsonl")]


# --- property: random small stores ---------------------------------------------------------------

uuids = st.sampled_from([U1, U2, U3, "m1", "m2", "caf\u00e9", 'q"t'])
timestamps = st.sampled_from(["", "2026-01-01", "2026-01-02", "2026-01-02T00:00:00Z"])


def spell(value, escape_at):
    """``value`` as a JSON string literal, the characters at ``escape_at`` as \\uXXXX
    (upper case hex on odd positions), the rest as json.dumps writes them."""
    out = []
    for i, char in enumerate(value):
        if i in escape_at:
            out.append(("\\u%04X" if i % 2 else "\\u%04x") % ord(char))
        else:
            out.append(json.dumps(char, ensure_ascii=False)[1:-1])
    return '"' + "".join(out) + '"'


@st.composite
def spelled_line(draw):
    fields = []
    if draw(st.booleans()):
        value = draw(uuids)
        escape_at = set(draw(st.lists(st.integers(0, len(value) - 1), max_size=3)))
        fields.append('"uuid":' + spell(value, escape_at))
        assert json.loads("{" + fields[-1] + "}")["uuid"] == value
    if draw(st.booleans()):
        fields.append('"timestamp":' + json.dumps(draw(timestamps)))
    draw(st.randoms()).shuffle(fields)
    text = "{" + ",".join(fields) + "}"
    if draw(st.integers(0, 9)) == 0:
        text = text[: draw(st.integers(0, len(text)))]
    return text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(st.sampled_from(["p", "q"]), st.sampled_from([U1, U2, "x"]), st.lists(spelled_line(), max_size=5)),
        max_size=5,
    ),
    uuids,
)
def test_random_stores_agree_with_the_oracle(tmp_path_factory, files, target):
    store = tmp_path_factory.mktemp("store")
    for project, stem, lines in files:
        put(store, project, stem + ".jsonl", lines)
    both(target, store)


@pytest.mark.parametrize("block", [1, 5, 16, 37, 64, 200])
def test_lines_spanning_many_blocks_answer_alike(store, monkeypatch, block):
    from termsprawl_context.store import chunks

    monkeypatch.setattr(chunks, "BLOCK_SIZE", block)
    lines = [line("m%d" % i, "2026-01-%02d" % (i + 1), pad="x" * (i * 7)) for i in range(12)]
    lines[5] = '{"type":"user","uuid":%s,"timestamp":"2026-02-01"}' % spell(U3, {0, 9, 35})
    lines[8] = '{"type":"user","parentUuid":"%s","uuid":"n","timestamp":"2026-03-01"}' % U3
    holder = put(store, "p", "a.jsonl", lines)
    put(store, "q", "b.jsonl", lines[6:], tail='{"uuid":"%s"' % U3)
    for uuid in (U3, "m3", "m9", "n", "zz"):
        both(uuid, store)
    assert both(U3, store) == holder
