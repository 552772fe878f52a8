"""The whole product under hostile input, faults and concurrency (issue 13's proof).

Every reader and every command that takes a transcript, a project's state or a hook
payload is fed mutated real lines (``../shared/corpus``), truncations of real files,
random bytes, invalid UTF-8, lone surrogates, deep nesting, giant lines and wrong JSON
types in every field. Properties: no exit 70 and no traceback, ever; exit codes only
from docs/cli.md's table; the fail-open dump answers exactly what a plain oracle answers
on the parseable lines. Then partial writes (a writer appending in pieces while readers
loop), concurrency (writers of links, index, hook against readers) and containment
(nothing outside ``<cwd>/.termsprawl`` and ``<cwd>/.claude`` changes; no ``fcntl``).

Deterministic (derandomized, no example database) and bounded for CI; set
``TERMSPRAWL_LONG_FUZZ=1`` for the long run (random seeds, 25 times the examples).
``FUZZ_COUNTS`` tallies the cases each test ran; ``docs/RELIABILITY.md`` reports them.
"""

import io
import json
import mmap
import os
import random
import re
import subprocess
import sys
import threading
import time

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

import cite_fixtures as fx
from conftest import REPO, SRC, corpus_files, snapshot
from test_turns import oracle_turns_of
from termsprawl_context import jsonl
from termsprawl_context._output import encode_text
from termsprawl_context.cli import COMMANDS, main
from termsprawl_context.errors import EXIT_INTERNAL

LONG = os.environ.get("TERMSPRAWL_LONG_FUZZ") == "1"
# The long run's multiple of the examples; ``TERMSPRAWL_FUZZ_SCALE`` sets another.
SCALE = int(os.environ.get("TERMSPRAWL_FUZZ_SCALE", "25" if LONG else "1"))
FUZZ_COUNTS = {}


def fuzz_settings(examples):
    return settings(
        max_examples=examples * SCALE,
        deadline=None,
        derandomize=not LONG,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )


def count(name, n=1):
    FUZZ_COUNTS[name] = FUZZ_COUNTS.get(name, 0) + n


def documented_exit_codes():
    """The codes of docs/cli.md's exit code table, 70 excluded: a bug is never an answer."""
    text = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    return {int(code) for code in re.findall(r"^\| (\d+) \|", section, re.M)} - {EXIT_INTERNAL}


DOCUMENTED = documented_exit_codes()


# --- inputs ----------------------------------------------------------------------------------


def _corpus_lines():
    lines = []
    for path in corpus_files():
        with open(str(path), "rb") as f:
            lines.extend(raw.rstrip(b"\n") for raw in f if raw.strip())
    return lines


CORPUS_FILES = corpus_files()
CORPUS_LINES = _corpus_lines()
if os.environ.get("TERMSPRAWL_REQUIRE_CORPUS") == "1":
    assert CORPUS_LINES, "TERMSPRAWL_REQUIRE_CORPUS=1 but ../shared/corpus has no transcript"

# Lines of the shapes the readers look at, for when the corpus is absent, and to be sure
# every kind is mutated whatever the corpus holds.
SYNTHETIC_LINES = [
    line.encode("utf-8")
    for line in [
        fx.user_msg("u1", "hello"),
        fx.assistant_text("u2", "u1", "an answer"),
        fx.tool_call("u3", "u2", "toolu_1", "Bash", "ls"),
        fx.tool_answer("u4", "u3", "toolu_1", "a.txt"),
        fx.preamble(),
        fx.queued_command_msg("u5", "u4", "do it"),
        json.dumps({"type": "summary", "summary": "a summary", "leafUuid": "u2"}),
        json.dumps(
            {
                "type": "user",
                "uuid": "u6",
                "sessionId": "s1",
                "timestamp": "2024-01-01T00:00:00Z",
                "cwd": "/p",
                "message": {"role": "user", "content": [{"type": "text", "text": "typed"}]},
            }
        ),
        json.dumps({"type": "ai-title", "aiTitle": "t", "sessionId": "s1"}),
    ]
] + [line.encode("utf-8") for line in fx.launch(1, "toolu_9", "bg1") + [fx.notification("bg1", "completed")]]
SEED_LINES = SYNTHETIC_LINES + CORPUS_LINES

# Values of every JSON type, and hostile ones, to put in any field.
WRONG_VALUES = [
    None,
    True,
    False,
    0,
    1,
    -1,
    1.5,
    1e308,
    "",
    "x",
    "\ud800",
    "\udfff\ud83d",
    [],
    [1],
    {},
    {"a": 1},
    "u1",
    "s1",
    [[[[[[]]]]]],
    "é" * 3,
    "\u2028",
    "\x00",
    12345678901234567890123,
]


def _paths(value, prefix=()):
    """Every path to a value inside a decoded JSON value."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, prefix + (i,))


def _replace(value, path, new):
    if not path:
        return new
    head, rest = path[0], path[1:]
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = _replace(value[head], rest, new)
    return copy


def _dump(value, ascii_only):
    return json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")


@st.composite
def wrong_type_line(draw):
    """A real line with one field (any depth) replaced by a value of another type."""
    raw = draw(st.sampled_from(SEED_LINES))
    value = jsonl.parse_object(raw)
    if value is None:
        return raw
    paths = list(_paths(value))
    path = paths[draw(st.integers(0, len(paths) - 1))]
    return _dump(_replace(value, path, draw(st.sampled_from(WRONG_VALUES))), draw(st.booleans()))


@st.composite
def byte_mutated_line(draw):
    """A real line with bytes flipped, cut, or hostile bytes spliced in."""
    raw = bytearray(draw(st.sampled_from(SEED_LINES)))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(raw)))
        action = draw(st.sampled_from(["flip", "cut", "splice", "drop"]))
        if action == "flip" and at < len(raw):
            raw[at] ^= draw(st.integers(1, 255))
        elif action == "cut":
            del raw[at:]
        elif action == "drop" and at < len(raw):
            del raw[at : at + draw(st.integers(1, 8))]
        else:
            raw[at:at] = draw(
                st.sampled_from(
                    [
                        b"\xff",
                        b"\xed\xa0\x80",
                        b"\\ud800",
                        b"\x00",
                        b"\xc0\xaf",
                        b"\r",
                        b'"',
                        b"{",
                        b"]",
                        b"\\",
                        b"\xe2\x80\xa8",
                        b"\xef\xbb\xbf",
                    ]
                )
            )
    return bytes(raw)


# Nesting depths of deep_line. On CPython 3.8 only depths under the recursion limit: a
# RecursionError caught in process while hypothesis moves the limit can leave 3.8's overflow
# flag set, and the next deep parse aborts the run (bpo-42500; test_assemble.DEEP_LINE says
# more; seen again on the in-process hand-off window test). Deeper lines reach 3.8 through
# the subprocess tests, at the default limit.
DEEP_LINE_DEPTHS = [50, 450, 1000, 5000, 20000] if sys.version_info >= (3, 9) else [50, 450]


@st.composite
def deep_line(draw):
    """A record whose uuid, message or content is nested hundreds to thousands deep."""
    depth = draw(st.sampled_from(DEEP_LINE_DEPTHS))
    opener, closer = draw(st.sampled_from([(b"[", b"]"), (b'{"a":', b"}")]))
    nested = opener * depth + b"1" + closer * depth
    field = draw(st.sampled_from([b"uuid", b"parentUuid", b"message", b"sessionId", b"timestamp", b"content"]))
    if field == b"content":
        return b'{"type":"user","uuid":"d1","message":{"content":' + nested + b"}}"
    return b'{"type":"user","' + field + b'":' + nested + b',"message":{"content":"deep"}}'


junk_line = st.one_of(
    st.binary(max_size=80),
    st.text(max_size=40).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.sampled_from(
        [
            b"",
            b" ",
            b"null",
            b"[]",
            b"1",
            b'"s"',
            b"{",
            b"}",
            b'{"type":"user"}',
            b"\x00" * 10,
            b'{"type":"user","message":{"content":"\\ud83d"}}',
            b'{"a":NaN}',
            b'{"a":1e400}',
        ]
    ),
)

any_line = st.one_of(st.sampled_from(SEED_LINES), wrong_type_line(), byte_mutated_line(), deep_line(), junk_line)


@st.composite
def transcript(draw):
    """A transcript's bytes: hostile lines, any line ending, maybe a torn last line."""
    lines = draw(st.lists(any_line, min_size=0, max_size=12))
    ending = draw(st.sampled_from([b"\n", b"\r\n"]))
    data = b"".join(line + ending for line in lines)
    if draw(st.booleans()) and data:
        data = data[: draw(st.integers(0, len(data)))]  # a torn write
    return data


# --- running the command in-process ----------------------------------------------------------


class _Kept(io.BytesIO):
    """A byte buffer that outlives the text wrapper around it."""

    def close(self):
        pass


def run_cli(argv, stdin=b"", env=None):
    """``main(argv)`` with byte-backed standard streams; (code, stdout, stderr)."""
    saved = sys.stdin, sys.stdout, sys.stderr
    saved_env = dict(os.environ)
    out, err = _Kept(), _Kept()
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    sys.stderr = io.TextIOWrapper(err, encoding="utf-8", write_through=True)
    os.environ.update(env or {})
    try:
        code = main([str(a) for a in argv])
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        os.environ.clear()
        os.environ.update(saved_env)
    return code, out.getvalue(), err.getvalue()


def check_outcome(code, out, err, argv):
    assert code != EXIT_INTERNAL, (argv, err)
    assert code in DOCUMENTED, (argv, code, err)
    assert b"Traceback" not in err and b"internal error" not in err, (argv, err)
    # Every diagnostic is the command's own: prefixed, or the store scan's listing of
    # unreadable folders (a warning sign, then indented paths).
    for line in err.splitlines():
        assert line.startswith((b"termsprawl-context: ", b"  ", "\u26a0".encode("utf-8"))), (argv, err)


# --- the plain oracle for the fail-open dump -------------------------------------------------


def oracle_turns(data):
    """The plain oracle (test_turns') on the parseable lines, as (role, text) pairs."""
    return [(turn.role, turn.text) for turn in oracle_turns_of(data)]


def oracle_dump(peer, title, data):
    turns = oracle_turns(data)
    if not turns:
        return b""
    lines = ["# linked context from %s (%s)" % (title, peer)]
    for role, text in turns:
        lines += ["## " + role, text]
    text = "\n".join(lines) + "\n"
    return re.sub("[\ud800-\udfff]", "\ufffd", text).encode("utf-8")


# --- a project and a store around one transcript ---------------------------------------------


class World(object):
    """A project (node aaa linked to bbb, bbb's transcript recorded) and a store that
    holds the same transcript, under one temp dir, rebuilt per example."""

    def __init__(self, root):
        self.root = root
        self.project = os.path.join(root, "project")
        self.store = os.path.join(root, "home", ".claude", "projects")
        self.session = os.path.join(self.store, "-project", "s1.jsonl")
        for d in (
            os.path.join(self.project, ".termsprawl", "links"),
            os.path.join(self.project, ".termsprawl", "transcripts"),
            os.path.dirname(self.session),
        ):
            os.makedirs(d, exist_ok=True)
        self.write_state("links/aaa--bbb.json", b'{"version": 1, "a": "aaa", "b": "bbb"}')
        self.write_state("transcripts/bbb.json", json.dumps({"version": 1, "path": self.session}).encode())

    def write_state(self, relative, data):
        path = os.path.join(self.project, ".termsprawl", relative)
        with open(path, "wb") as f:
            f.write(data)

    def transcript(self, data):
        with open(self.session, "wb") as f:
            f.write(data)

    def env(self):
        return {
            "HOME": os.path.dirname(os.path.dirname(os.path.dirname(self.store))),
            "CLAUDE_CONFIG_DIR": os.path.dirname(self.store),
        }

    def transcript_commands(self, uuid):
        store = ["--projects-dir", self.store]
        return [
            ["--cwd", self.project, "--self", "aaa"],
            ["doctor", "--cwd", self.project, "--self", "aaa"],
            ["doctor", "--cwd", self.project, "--self", "aaa", "--json"],
            ["assemble-file", self.session],
            ["fresh", self.session, "--allow-in-progress"],
            ["locate", uuid] + store,
            ["assemble", uuid] + store,
            ["sessions"] + store,
            ["sessions", "--json"] + store,
            ["find", "s"] + store,
            ["show", self.session, "--all", "--format", "json"],
            ["show", "latest", "--turns", "3"] + store,
            ["search", "e", "--in", "human,assistant,tool"] + store,
        ] + record_commands(self.session, uuid, store)


def record_commands(path, uuid, store):
    """The commands that read one named record (a transcript path), as this package
    registers them; ``test_every_registered_command_is_fuzzed`` keeps the list whole."""
    return [
        ["subagents", path, "--tree"] + store,
        ["root", path] + store,
        ["parent", path] + store,
        ["identity", path] + store,
        ["belongs", path, "--session", "s1"] + store,
        ["relocate", path] + store,
        ["entries", path, "--calls", "--ran"],
        ["cite", path, "hello", "--source", "user,tool_result", "--json"],
        ["result-at", path, "2"],
        ["envelope-at", path, "1"],
        ["agents", path, "--json"],
        ["query", path, "--where", 'type == "user" and uuid != nil', "--sidechains"],
        ["query", path, "--where", 'message.content[0].name startsWith "B" or len(uuid) > 3'],
    ]


@pytest.fixture(scope="module")
def world_root(tmp_path_factory):
    return str(tmp_path_factory.mktemp("fuzzworld"))


def _fresh_world(root):
    import shutil

    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    return World(root)


def _a_uuid(data):
    match = re.search(rb'"uuid"\s*:\s*"([A-Za-z0-9-]{1,40})"', data)
    return match.group(1).decode() if match else "u1"


# --- 1. transcripts: every command that reads one --------------------------------------------


def test_every_transcript_command_on_hostile_transcripts(world_root):
    @fuzz_settings(150)
    @given(transcript())
    def check(data):
        world = _fresh_world(world_root)
        world.transcript(data)
        for argv in world.transcript_commands(_a_uuid(data)):
            code, out, err = run_cli(argv, env=world.env())
            check_outcome(code, out, err, argv)
            count("transcript command runs")
            if argv[0] == "--cwd":
                assert code == 0
                assert out == oracle_dump("bbb", "bbb", data), data
        count("transcripts")

    check()


def _deep_uuid_lines(depth, copies=2):
    nested = b"[" * depth + b"1" + b"]" * depth
    return b"".join(
        b'{"type":"user","uuid":' + nested + b',"message":{"content":"deep %d"}}\n' % i for i in range(copies)
    )


@pytest.mark.parametrize("depth", [450, 900, 975])
def test_deep_uuids_never_exit_70_in_the_readers_that_hold_them(world_root, depth):
    """Two records whose uuid is the same list nested just below the parser's limit
    (found by the long fuzz): every transcript command answers."""
    world = _fresh_world(world_root)
    world.transcript(_deep_uuid_lines(depth))
    for argv in world.transcript_commands("u1"):
        code, out, err = run_cli(argv, env=world.env())
        check_outcome(code, out, err, argv)


@pytest.mark.parametrize("depth", [450, 900, 975])
def test_deep_uuids_never_exit_70_in_assemble(pyz, tmp_path, depth):
    """Issue 13 item 5: equal deep uuids are one message (their keys are flat, so
    comparing them does not recurse)."""
    path = tmp_path / "deep.jsonl"
    path.write_bytes(_deep_uuid_lines(depth))
    done = subprocess.run(
        [sys.executable, str(pyz), "assemble-file", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=60,
    )
    check_outcome(done.returncode, done.stdout, done.stderr, ["assemble-file", depth])
    assert done.returncode == 0 and done.stdout.count(b"\n") == 1, done.stdout[-200:]


def test_uuids_true_and_1_are_two_messages(tmp_path):
    """Issue 13 item 11 (fixed in store/assemble.py by the issue-14 engineer): JSON's
    true and 1 are different uuids, though Python says True == 1."""
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        b'{"type":"user","uuid":true,"timestamp":"2024-01-01T00:00:00Z","message":{"content":"a"}}\n'
        b'{"type":"user","uuid":1,"timestamp":"2024-01-01T00:00:01Z","message":{"content":"b"}}\n'
    )
    code, out, err = run_cli(["assemble-file", path])
    check_outcome(code, out, err, ["assemble-file"])
    assert out.count(b"\n") == 2, out


def test_readers_on_truncations_of_real_files_at_every_offset():
    """The dump's reverse reader against the oracle on every prefix of the smallest
    corpus files (every offset), and on hypothesis-chosen offsets of the others."""
    from termsprawl_context.transcript.turns import read_turns

    files = sorted(CORPUS_FILES, key=lambda p: p.stat().st_size) or []
    if not files:
        pytest.skip("no ../shared/corpus beside this checkout")
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.jsonl")
        small = [p for p in files if 0 < p.stat().st_size <= 6000][: 3 * SCALE]
        for source in small:
            data = source.read_bytes()
            for cut in range(len(data) + 1):
                with open(path, "wb") as f:
                    f.write(data[:cut])
                assert [(t.role, t.text) for t in read_turns(path)] == oracle_turns(data[:cut]), (source, cut)
                count("truncation offsets")

        @fuzz_settings(120)
        @given(st.sampled_from(files), st.floats(0, 1))
        def check(source, fraction):
            data = source.read_bytes()
            cut = int(len(data) * fraction)
            with open(path, "wb") as f:
                f.write(data[:cut])
            assert [(t.role, t.text) for t in read_turns(path)] == oracle_turns(data[:cut])
            code, out, err = run_cli(["assemble-file", path])
            check_outcome(code, out, err, ["assemble-file", source.name, cut])
            count("truncation offsets")

        check()


def test_giant_lines_and_sparse_files_through_every_transcript_command(world_root):
    """Lines past the bound (a 9 MiB line at the tail, in the middle; a 64 MiB sparse
    file with no newline): every command answers, the dump as the oracle does."""
    big = jsonl.MAX_LINE_BYTES + 1024 * 1024
    head = fx.user_msg("u1", "before").encode() + b"\n"
    giant = b'{"type":"user","uuid":"g1","message":{"content":"' + b"x" * big + b'"}}'
    shapes = {
        "giant tail": head + giant,
        "giant middle": head + giant + b"\n" + fx.assistant_text("u2", "u1", "after").encode() + b"\n",
    }
    for name, data in list(shapes.items()) + [("sparse", None)]:
        world = _fresh_world(world_root)
        if data is None:
            with open(world.session, "wb") as f:
                f.truncate(64 * 1024 * 1024)
        else:
            world.transcript(data)
        for argv in world.transcript_commands("u1"):
            code, out, err = run_cli(argv, env=world.env())
            check_outcome(code, out, err, argv)
            count("giant-line command runs")
            if argv[0] == "--cwd":
                expected = oracle_dump("bbb", "bbb", data) if data is not None else b""
                assert out == expected, name


# --- 2. a project's state ----------------------------------------------------------------------

json_doc = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


def _state_value(kind):
    """Strategies for one state file's bytes: a valid one with a wrong type somewhere,
    random JSON, junk, deep nesting."""
    valid = {
        "link": {"version": 1, "a": "aaa", "b": "bbb"},
        "index": {"version": 1, "path": "/nowhere/x.jsonl"},
        "project": {"nodes": [{"id": "bbb", "data": {"title": "Bee"}}, {"id": "aaa", "data": {}}]},
        "settings": {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "x"}]}]}, "n": 1},
    }[kind]

    @st.composite
    def wrong(draw):
        paths = list(_paths(valid))
        path = paths[draw(st.integers(0, len(paths) - 1))]
        return _dump(_replace(valid, path, draw(st.sampled_from(WRONG_VALUES) | json_doc)), draw(st.booleans()))

    return st.one_of(
        st.just(_dump(valid, True)),
        wrong(),
        json_doc.map(lambda v: _dump(v, False)),
        st.binary(max_size=60),
        st.sampled_from(
            [
                b'{"n": 1e400}',
                b"[" * 3000 + b"]" * 3000,
                b'{"a":' * 500 + b"1" + b"}" * 500,
                b'{"version": true, "a": "aaa", "b": "bbb"}',
                b'{"version": 1.0, "a": "aaa", "b": "bbb"}',
                b"\xef\xbb\xbf{}",
                b'{"nodes": {"id": "bbb"}}',
                b'{"path": ["x"], "version": 1}',
            ]
        ),
    )


def test_every_state_command_on_hostile_state(world_root):
    @fuzz_settings(120)
    @given(
        _state_value("link"),
        _state_value("index"),
        _state_value("project"),
        _state_value("settings"),
        st.binary(max_size=40),
        transcript(),
    )
    def check(link, index, project, settings_file, agents, data):
        world = _fresh_world(world_root)
        world.transcript(data)
        world.write_state("links/aaa--bbb.json", link)
        world.write_state("links/zzz.json", link)
        world.write_state("transcripts/bbb.json", index)
        world.write_state("project.json", project)
        world.write_state("AGENTS.md", agents)
        os.makedirs(os.path.join(world.project, ".claude"), exist_ok=True)
        with open(os.path.join(world.project, ".claude", "settings.local.json"), "wb") as f:
            f.write(settings_file)
        p = world.project
        for argv in (
            ["--cwd", p, "--self", "aaa"],
            ["doctor", "--cwd", p, "--self", "aaa"],
            ["links", "list", "--cwd", p],
            ["links", "list", "--cwd", p, "--json"],
            ["links", "peers", "aaa", "--cwd", p],
            ["index", "get", "bbb", "--cwd", p],
            ["links", "add", "aaa", "ccc", "--cwd", p],
            ["links", "remove", "aaa", "ccc", "--cwd", p],
            ["index", "set", "ccc", "/x/y.jsonl", "--cwd", p],
            ["init", "--hook", "--cwd", p],
        ):
            code, out, err = run_cli(argv, env=world.env())
            check_outcome(code, out, err, argv)
            if argv[0] == "--cwd":
                assert code == 0
            count("state command runs")
        count("project states")

    check()


# --- 3. hook payloads ------------------------------------------------------------------------------


@st.composite
def payload(draw):
    base = {
        "session_id": "s1",
        "transcript_path": "<store>/-project/s1.jsonl",
        "cwd": "<project>",
        "hook_event_name": "SessionStart",
        "source": draw(st.sampled_from(["startup", "resume", "clear"])),
    }
    kind = draw(st.sampled_from(["valid", "wrong", "junk", "deep", "mutated"]))
    if kind == "valid":
        return _dump(base, draw(st.booleans()))
    if kind == "wrong":
        key = draw(st.sampled_from(sorted(base)))
        return _dump(dict(base, **{key: draw(st.sampled_from(WRONG_VALUES) | json_doc)}), draw(st.booleans()))
    if kind == "deep":
        return b'{"session_id": "s1", "x": ' + b"[" * 100000 + b"]" * 100000 + b"}"
    raw = bytearray(_dump(base, True))
    if kind == "junk":
        return draw(st.binary(max_size=100))
    at = draw(st.integers(0, len(raw)))
    raw[at:at] = draw(st.sampled_from([b"\xff", b"\\ud800", b"\x00", b"..", b"/../", b"\\", b",", b"}"]))
    return bytes(raw)


def test_hook_on_hostile_payloads(world_root):
    """The hook always exits 0, prints on stdout at most its one JSON answer (stdout
    reaches Claude Code), says why in at most one stderr line, and records only a
    payload that names a transcript inside the store."""

    @fuzz_settings(150)
    @given(payload(), transcript())
    def check(data, transcript_data):
        world = _fresh_world(world_root)
        world.transcript(transcript_data)
        data = data.replace(b"<store>", world.store.encode()).replace(b"<project>", world.project.encode())
        env = dict(world.env(), TERMSPRAWL_NODE_ID="ccc")
        code, out, err = run_cli(["hook", "--projects-dir", world.store], stdin=data, env=env)
        check_outcome(code, out, err, ["hook", data[:60]])
        assert code == 0
        # stdout is the hook's answer to Claude Code: nothing, or one JSON object in its
        # hook output shape; never a diagnostic line
        assert out == b"" or (out.count(b"\n") == 1 and isinstance(json.loads(out.decode("utf-8")), dict)), out
        assert err.count(b"\n") <= 1
        recorded = os.path.join(world.project, ".termsprawl", "transcripts", "ccc.json")
        if os.path.exists(recorded):
            path = json.loads(open(recorded, "rb").read().decode("utf-8"))["path"]
            assert os.path.realpath(path).startswith(os.path.realpath(world.store) + os.sep)
        count("hook payloads")

    check()


# --- 4. the built artifact at the command line -----------------------------------------------------


def test_the_artifact_never_shows_a_traceback(pyz, tmp_path_factory):
    """A sample of the above through the real command line (python3 on the one-file
    artifact): stderr carries no traceback on any of them."""
    root = str(tmp_path_factory.mktemp("artifactfuzz"))

    @fuzz_settings(12)
    @given(transcript(), payload())
    def check(data, hook_payload):
        world = _fresh_world(root)
        world.transcript(data)
        env = dict(os.environ, **world.env())
        env["TERMSPRAWL_NODE_ID"] = "ddd"
        runs = [(argv, b"") for argv in world.transcript_commands(_a_uuid(data))[:6]]
        runs.append(
            (
                ["hook", "--projects-dir", world.store, "--cwd", world.project],
                hook_payload.replace(b"<store>", world.store.encode()),
            )
        )
        for argv, stdin in runs:
            done = subprocess.run(
                [sys.executable, str(pyz)] + [str(a) for a in argv],
                input=stdin,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                timeout=120,
            )
            check_outcome(done.returncode, done.stdout, done.stderr, argv)
            count("artifact runs")

    check()


# --- 5. partial writes: a writer appending in pieces while readers loop ------------------------


def _record_lines(n):
    lines = [fx.preamble()]
    for i in range(n):
        lines.append(
            json.dumps(
                {
                    "type": "user" if i % 2 == 0 else "assistant",
                    "uuid": "p%03d" % i,
                    "parentUuid": "p%03d" % (i - 1) if i else None,
                    "sessionId": "grow",
                    "timestamp": "2024-01-01T00:%02d:%02dZ" % (i // 60, i % 60),
                    "message": {"content": "turn %d " % i + "é" * (i % 7) + "x" * (i * 37 % 300)},
                }
            )
        )
    lines[5:5] = fx.launch(1, "toolu_1", "bg1")
    lines.append(fx.notification("bg1", "completed"))
    return [line.encode("utf-8") + b"\n" for line in lines]


def _pieces(lines, rnd):
    """The file's bytes cut at random points (inside lines, between them)."""
    data = b"".join(lines)
    cuts = sorted(set(rnd.randrange(1, len(data)) for _ in range(len(lines) * 3)))
    bounds = [0] + cuts + [len(data)]
    return data, [data[a:b] for a, b in zip(bounds, bounds[1:])]


def test_partial_writes_while_readers_loop(tmp_path):
    """One writer appends a transcript in pieces (cut inside lines); the dump's reader,
    assemble-file, the session listing and the background-agent cursor read in a loop.
    Each answer equals the answer on some prefix the writer had written (never a record
    from a half-written line) and, once the writer is done, the answer on the whole file
    (none skipped once whole); the cursor's signals add up to the whole read's."""
    from termsprawl_context.store import background as bg
    from termsprawl_context.harness.claude.session_scan import session_metadata
    from termsprawl_context.transcript.turns import read_turns

    rnd = random.Random(13)
    for trial in range(2 * SCALE):
        data, pieces = _pieces(_record_lines(120), rnd)
        static = str(tmp_path / ("static%d.jsonl" % trial))
        live = str(tmp_path / ("live%d.jsonl" % trial))
        # Every answer a reader may give: its answer on each prefix the writer can leave.
        # The prefixes a reader can see: where each piece ends and, within a piece, at each page
        # boundary (the kernel extends a file's size page by page as one write copies it in).
        ends, written = {0}, 0
        for piece in pieces:
            written += len(piece)
            ends.add(written)
        ends.update(range(0, len(data), mmap.PAGESIZE))
        allowed_turns, allowed_titles = set(), set()
        for end in sorted(ends):
            with open(static, "wb") as f:
                f.write(data[:end])
            allowed_turns.add(tuple(read_turns(static)))
            allowed_titles.add(session_metadata(static).title)
        whole_lines = set(data.split(b"\n"))
        open(live, "wb").close()
        done = threading.Event()

        def writer():
            with open(live, "ab", buffering=0) as f:
                for piece in pieces:
                    f.write(piece)
                    time.sleep(0.0005)
            done.set()

        thread = threading.Thread(target=writer)
        thread.start()
        cursor, signals, reads = None, [], 0
        while True:
            finished = done.is_set()
            assert tuple(read_turns(live)) in allowed_turns
            assert session_metadata(live).title in allowed_titles
            code, out, err = run_cli(["assemble-file", live])
            check_outcome(code, out, err, ["assemble-file", live])
            assert all(line in whole_lines for line in out.splitlines()), "a record from a half-written line"
            try:
                more, cursor = bg.background_agent_signals_since(live, cursor)
                signals += more
            except bg.SignalsUnknown as exc:  # a torn last line: the cursor stays put
                assert exc.cursor == (cursor if cursor is not None else bg.start_cursor(live))
            reads += 1
            if finished:
                break
        thread.join()
        with open(static, "wb") as f:
            f.write(data)
        assert read_turns(live) == read_turns(static)
        assert session_metadata(live).title == session_metadata(static).title
        whole = bg.background_agent_signals(static)
        assert len(whole) == 2 and signals == whole
        count("partial-write reader loops", reads)


# --- 6. concurrency: writers of links, index, hook against readers ----------------------------------

_WRITER = r"""
import io, json, os, sys
sys.path.insert(0, sys.argv[1])
from termsprawl_context.cli import main
project, store, me, rounds = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
os.environ["TERMSPRAWL_NODE_ID"] = me
payload = json.dumps({"session_id": "s1", "transcript_path": os.path.join(store, "-project", "s1.jsonl"),
                      "hook_event_name": "SessionStart", "source": "startup"}).encode()
for i in range(rounds):
    for argv in (["links", "add", "aaa", me, "--cwd", project], ["index", "set", me, "/t/%s/%d" % (me, i), "--cwd", project],
                 ["links", "remove", "aaa", me, "--cwd", project], ["links", "add", me, "zzz", "--cwd", project]):
        sys.stdout = io.StringIO()
        code = main(argv)
        sys.stdout = sys.__stdout__
        if code != 0:
            sys.exit("%s -> %d" % (argv, code))
    sys.stdin = io.TextIOWrapper(io.BytesIO(payload))
    sys.stdout = io.StringIO()
    assert main(["hook", "--cwd", project, "--projects-dir", store]) == 0
    sys.stdout = sys.__stdout__
"""


def test_writers_against_readers(tmp_path):
    """Four processes add, remove and re-add links, set index entries and run the hook
    in one fresh project while this one lists links, reads peers and dumps: every read
    is whole (no file named invalid, no torn index), every write succeeds."""
    project, store = str(tmp_path / "project"), str(tmp_path / "store")
    os.makedirs(project)
    os.makedirs(os.path.join(store, "-project"))
    with open(os.path.join(store, "-project", "s1.jsonl"), "w") as f:
        f.write(fx.user_msg("u1", "hi") + "\n")
    rounds = 15 * SCALE
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(SRC), project, store, "w%d" % i, str(rounds)], stderr=subprocess.PIPE
        )
        for i in range(4)
    ]
    reads = 0
    while any(w.poll() is None for w in writers):
        for argv in (
            ["links", "list", "--cwd", project],
            ["links", "peers", "aaa", "--cwd", project],
            ["--cwd", project, "--self", "zzz"],
            ["doctor", "--cwd", project, "--self", "zzz"],
        ):
            code, out, err = run_cli(argv)
            check_outcome(code, out, err, argv)
            assert code == 0, (argv, err)
            assert b"ignored (not valid link files)" not in err, err
            reads += 1
    errors = [w.stderr.read() for w in writers]
    assert [w.returncode for w in writers] == [0, 0, 0, 0], errors
    leftovers = [n for base, _, names in os.walk(project) for n in names if n.endswith(".tmp")]
    assert leftovers == []
    assert sorted(os.listdir(os.path.join(project, ".termsprawl", "links"))) == ["w%d--zzz.json" % i for i in range(4)]
    count("concurrent reads", reads)
    count("concurrent writes", 4 * rounds * 5)


# --- 7. containment ------------------------------------------------------------------------------------


def _outside_snapshot(parent, project):
    keep = (os.path.join(project, ".termsprawl"), os.path.join(project, ".claude"))
    found = {
        path: state
        for path, state in snapshot(parent).items()
        if not any(path == k or path.startswith(k + os.sep) for k in keep)
    }
    # The project folder's own mtime moves when .claude/ is created in it: that is inside.
    found[project] = found[project][:3]
    return found


def test_every_command_leaves_everything_outside_the_project_state_alone(pyz, tmp_path, empty_home):
    """Every command, run by the artifact with HOME read-only (and empty) and the
    project's parent read-only, with hostile symlinks inside the project's state: the
    tree outside ``<cwd>/.termsprawl`` and ``<cwd>/.claude`` is byte-identical after."""
    parent = tmp_path / "parent"
    outside = tmp_path / "parent" / "outside"
    project = parent / "project"
    (project / ".termsprawl").mkdir(parents=True)
    outside.mkdir()
    (outside / "aaa--bbb.json").write_text('{"version": 1, "a": "aaa", "b": "bbb"}')
    (outside / "theirs.md").write_text("their prose\n")
    (project / "README.md").write_text("the user's own file\n")
    os.symlink(str(outside), str(project / ".termsprawl" / "links"))
    os.symlink(str(outside / "theirs.md"), str(project / ".termsprawl" / "AGENTS.md"))
    os.symlink(str(outside), str(project / ".termsprawl" / "transcripts"))
    store = tmp_path / "store"
    (store / "-p").mkdir(parents=True)
    (store / "-p" / "s1.jsonl").write_text(fx.user_msg("u1", "hi") + "\n")
    payload = json.dumps(
        {
            "session_id": "s1",
            "transcript_path": str(store / "-p" / "s1.jsonl"),
            "hook_event_name": "SessionStart",
            "source": "startup",
        }
    ).encode()
    commands = [
        ["--cwd", project, "--self", "aaa"],
        ["doctor", "--cwd", project, "--self", "aaa"],
        ["links", "list", "--cwd", project],
        ["links", "add", "aaa", "bbb", "--cwd", project],
        ["links", "remove", "aaa", "bbb", "--cwd", project],
        ["links", "peers", "aaa", "--cwd", project],
        ["index", "set", "aaa", "/x.jsonl", "--cwd", project],
        ["index", "get", "aaa", "--cwd", project],
        # A bare init wires every CLI found, with its instruction file at the root (issue 32): named out here.
        ["init", "--cwd", project, "--no-claude", "--no-codex", "--no-gemini"],
        ["init", "--hook", "--cwd", project],
        ["hook", "--cwd", project, "--projects-dir", store],
        ["sessions", "--projects-dir", store],
        ["find", "s1", "--projects-dir", store],
        ["locate", "u1", "--projects-dir", store],
        ["assemble", "u1", "--projects-dir", store],
        ["assemble-file", store / "-p" / "s1.jsonl"],
        ["fresh", store / "-p" / "s1.jsonl"],
        ["show", "latest", "--all", "--projects-dir", store],
        ["search", "hi", "--projects-dir", store],
        ["--cwd", project, "--self", "aaa", "--format", "json"],
        ["mcp", "--cwd", project],
    ]
    commands += record_commands(store / "-p" / "s1.jsonl", "u1", ["--projects-dir", store])
    assert {c[0] for c in commands} >= set(COMMANDS)
    before = _outside_snapshot(str(parent), str(project))
    store_before = snapshot(str(store))
    parent.chmod(0o555)
    try:
        for argv in commands:
            env = {
                "PATH": os.environ.get("PATH", ""),
                "HOME": str(empty_home),
                "LANG": "C",
                "TERMSPRAWL_NODE_ID": "aaa",
                "CLAUDE_CONFIG_DIR": str(tmp_path),
            }
            done = subprocess.run(
                [sys.executable, str(pyz)] + [str(a) for a in argv],
                env=env,
                cwd=str(project),
                input=payload if argv[0] == "hook" else b"",
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                timeout=120,
            )
            check_outcome(done.returncode, done.stdout, done.stderr, argv)
            count("containment runs")
    finally:
        parent.chmod(0o755)
    assert _outside_snapshot(str(parent), str(project)) == before
    assert snapshot(str(store)) == store_before
    assert list(empty_home.iterdir()) == []
    assert os.path.islink(str(project / ".termsprawl" / "AGENTS.md"))


_NO_FCNTL = r"""
import runpy, sys
sys.modules["fcntl"] = None  # any `import fcntl` now raises ImportError
sys.argv = [sys.argv[1]] + sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def test_no_command_needs_fcntl(pyz, tmp_path):
    """Writers are atomic renames, never locks: with ``import fcntl`` blocked, every
    writing command still succeeds."""
    project = tmp_path / "p"
    project.mkdir()
    store = tmp_path / "store"
    (store / "-p").mkdir(parents=True)
    (store / "-p" / "s1.jsonl").write_text(fx.user_msg("u1", "hi") + "\n")
    payload = json.dumps({"session_id": "s1", "transcript_path": str(store / "-p" / "s1.jsonl")}).encode()
    env = dict(os.environ, TERMSPRAWL_NODE_ID="aaa", HOME=str(tmp_path))
    for argv, stdin in (
        (["init", "--hook", "--cwd", project], b""),
        (["links", "add", "aaa", "bbb", "--cwd", project], b""),
        (["index", "set", "bbb", str(store / "-p" / "s1.jsonl"), "--cwd", project], b""),
        (["hook", "--cwd", project, "--projects-dir", store], payload),
        (["--cwd", project, "--self", "aaa"], b""),
        (["links", "remove", "aaa", "bbb", "--cwd", project], b""),
    ):
        done = subprocess.run(
            [sys.executable, "-c", _NO_FCNTL, str(pyz)] + [str(a) for a in argv],
            input=stdin,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=120,
        )
        assert done.returncode == 0, (argv, done.stderr)
        assert b"fcntl" not in done.stderr and b"Traceback" not in done.stderr
        count("no-fcntl runs")
    assert (project / ".termsprawl" / "transcripts" / "aaa.json").is_file()
    assert b"hello" not in (project / ".termsprawl" / "AGENTS.md").read_bytes()


# --- 8. query: the expression grammar against hostile numbers and strings (issue 24) ---------
# Records holding what made the evaluator exit 70: a 4,000-digit number (json.loads reads up
# to 4,300), a 5,000-digit string (int() of it raised past Python's digit limit), a number
# past 2**53 (``%`` went through floats), nested values.
QUERY_RECORD_LINES = [
    '{"type":"user","uuid":"q1","message":{"n":9007199254740993,"big":%s,"s":"%s","f":1e308,'
    '"content":[1,"a",{"x":-1}],"neg":-%s}}' % ("9" * 4000, "9" * 5000, "8" * 4000),
    '{"type":"assistant","uuid":"q2","message":{"content":[{"type":"text","text":"ok"}],"n":-7}}',
    '{"type":"user","uuid":"q3","isSidechain":true,"message":{"content":"%s","n":0}}' % ("1" * 4400),
]
_Q_ATOMS = st.sampled_from(
    [
        "type",
        "uuid",
        "isSidechain",
        "message",
        "message.n",
        "message.big",
        "message.neg",
        "message.s",
        "message.f",
        "message.content",
        "toolUseResult",
        "0",
        "1",
        "2",
        "-1",
        "0.5",
        "1e308",
        "1e999",
        "9007199254740993",
        "9223372036854775807",
        "9223372036854775808",
        "9" * 30,
        "'9%s'" % ("9" * 4400),
        '"x"',
        '"="',
        "nil",
        "true",
        "false",
        "[1, 2]",
        "[]",
        # Sub-expressions of the shapes that broke, for the search to combine.
        "int(message.s)",
        "message.big * message.big",
        "(1/0)",
        "(0/0)",
        "message.content[message.big]",
    ]
)


def _q_grow(inner):
    binary = st.tuples(
        inner,
        st.sampled_from(["+", "-", "*", "/", "%", "==", "!=", "<", ">=", "and", "or", "in", "contains", "startsWith"]),
        inner,
    )
    return st.one_of(
        binary.map(lambda t: "%s %s %s" % t),
        inner.map(lambda e: "(%s)" % e),
        inner.map(lambda e: "-%s" % e),
        inner.map(lambda e: "not %s" % e),
        inner.map(lambda e: "int(%s)" % e),
        inner.map(lambda e: "len(%s)" % e),
        st.tuples(inner, inner).map(lambda t: "%s[%s]" % t),
        st.tuples(inner, st.sampled_from([".x", "?.n", ".content", "?.big"])).map(lambda t: t[0] + t[1]),
    )


_Q_TERMS = st.recursive(_Q_ATOMS, _q_grow, max_leaves=8)
# Most random trees are not booleans (refused at compile time): half are made comparisons.
QUERY_EXPRESSIONS = st.one_of(
    _Q_TERMS, st.tuples(_Q_TERMS, st.sampled_from(["==", "!=", "<", ">="]), _Q_TERMS).map(lambda t: "%s %s %s" % t)
)
# The red team's reproducers (issue 24 item 3), run through the artifact too.
QUERY_REPRODUCERS = [
    "message.content[1/0] == 1",
    "message.content[0/0] == 1",
    "int(message.s) == 1",
    "message.big / 3 > 1",
    "message.big % 7 == 1",
    "message.content[message.big * message.big] == 1",
    "9007199254740993 % 2 == 1",
    "int(message.content) == 1 or message.content[9223372036854775807 * 2] == 1",
]


def test_query_grammar_never_exits_70(tmp_path):
    """Random expressions over the grammar, evaluated against records of hostile numbers:
    every outcome is an answer or a documented refusal (QueryCompileError exit 2,
    ExpressionNotBoolean exit 1, ExpressionNeverRan exit 13), in process and through
    ``main``."""
    from termsprawl_context.transcript import query
    from termsprawl_context.model import decode_entry

    path = tmp_path / "numbers.jsonl"
    path.write_text("\n".join(QUERY_RECORD_LINES) + "\n")
    entries = [decode_entry(json.loads(text), n) for n, text in enumerate(QUERY_RECORD_LINES, 1)]
    refusals = (query.QueryCompileError, query.ExpressionNotBoolean, query.ExpressionNeverRan)

    @fuzz_settings(500)
    @given(QUERY_EXPRESSIONS, st.booleans())
    def check(source, sidechains):
        try:
            query.filter(entries, source, include_sidechains=sidechains)
        except refusals:
            pass
        count("query expressions (in process)")
        if len(source) % 4 == 0:  # a quarter through the whole command line as well
            argv = ["query", str(path), "--where", source] + (["--sidechains"] if sidechains else [])
            code, out, err = run_cli(argv)
            check_outcome(code, out, err, argv)
            assert len(err.splitlines()) <= 1, (argv, err)
            count("query command runs (in process)")

    check()
    assert len(query.filter(entries, "9007199254740993 % 2 == 1")) == 2


def test_query_reproducers_through_the_artifact(run_pyz, tmp_path):
    """The red team's expressions, each one refusal line or an answer, never exit 70."""
    path = tmp_path / "numbers.jsonl"
    path.write_text("\n".join(QUERY_RECORD_LINES) + "\n")
    for source in QUERY_REPRODUCERS:
        done = run_pyz(["query", str(path), "--where", source])
        check_outcome(done.returncode, done.stdout, done.stderr, source)
        assert len(done.stderr.splitlines()) <= 1, (source, done.stderr)
        count("query artifact runs")
    done = run_pyz(["query", str(path), "--where", "message.n % 2 == 1"])
    assert done.returncode == 0 and done.stdout.decode().split("\t")[0] == "%s:1" % path


# --- 9. cite: AskUserQuestion envelopes whose questions the model wrote (issue 24) --------------
_ENVELOPE_TEXT = st.text(alphabet='ab =",.?xyQ', min_size=1, max_size=14)
_ENVELOPE_FORMS = [
    (
        "The user answered: ",
        ". Read the answers carefully \u2014 they may request clarification, changes, or that you "
        "not proceed \u2014 and follow what they actually say.",
    ),
    ("Your questions have been answered: ", ". You can now continue with these answers in mind."),
    ("User has answered your questions: ", ". You can now continue with the user's answers in mind."),
]


def test_no_question_cites_as_the_persons_answer(tmp_path):
    """Random questions (holding ``"``, ``=``, ``,``) and answers, enveloped as Claude Code
    does (questions copied unescaped, skipped ones left out): a question's words never
    resolve as the person's unless the person's own answer holds them; an answer resolves
    at its entry or is refused by name; an envelope of no quote characters reads one way."""
    from termsprawl_context import cite
    from termsprawl_context.transcript.text import collapse_whitespace
    from termsprawl_context.errors import AnswerUnmatched, CitationNotFound

    counter = [0]

    @fuzz_settings(250)
    @given(
        st.lists(st.tuples(_ENVELOPE_TEXT, st.one_of(st.none(), _ENVELOPE_TEXT)), min_size=1, max_size=4),
        st.sampled_from(_ENVELOPE_FORMS),
    )
    def check(pairs, form):
        answered = [(q, a) for q, a in pairs if a is not None]
        if not answered:
            return
        counter[0] += 1
        body = form[0] + ", ".join('"%s"="%s"' % pair for pair in answered) + form[1]
        path = fx.write(
            tmp_path / ("e%d.jsonl" % counter[0]),
            [
                fx.user_msg("u1", "hello there"),
                fx.named_call("a1", "u1", "t1", "AskUserQuestion", {"questions": [{"question": q} for q, _ in pairs]}),
                fx.tool_answer("r1", "a1", "t1", body),
            ],
        )
        answers = [collapse_whitespace(a) for _, a in answered]
        plain = not any('"' in q or '"' in (a or "") for q, a in pairs)
        for probe, is_answer in [(q, False) for q, _ in pairs] + [(a, True) for _, a in answered]:
            words = collapse_whitespace(probe)
            if not words or words in "hello there":
                continue
            try:
                got = cite.resolve_in_record(path, cite.CitationRequest(probe, [cite.SOURCE_USER]))
            except (CitationNotFound, AnswerUnmatched):
                assert not (plain and is_answer), (body, probe)
                count("cite envelope probes (refused)")
                continue
            assert got.line == 3 and any(words in a for a in answers), (body, probe)
            count("cite envelope probes (resolved)")


# --- issue 24: bounded readers, the hook's streams, long link ids, terminal-safe text -------------


def _collected_entries(path, argv):
    """What ``entries`` printed when it read the whole record first (the plain
    algorithm: ``read_entries``, ``since``, outcomes over every entry), or the refusal."""
    from termsprawl_context.cli.commands import entries as record_cmds
    from termsprawl_context.errors import Refusal
    from termsprawl_context.transcript import record

    class Rows(list):
        add = list.append

    try:
        everything = record.read_entries(path)
    except Refusal as exc:
        return exc.exit_code, b""
    mark = argv[argv.index("--since") + 1] if "--since" in argv else ""
    rows = Rows()
    outcomes = record.call_outcomes(everything)
    for item in record.since(everything, mark):
        if "--calls" in argv:
            record_cmds._print_calls(rows, item, outcomes, False, "--json" in argv)
        else:
            record_cmds._print_entry(rows, item, "--json" in argv)
    from termsprawl_context._output import encode_text

    return 0, encode_text("".join(rows))


def _tool_output_up_to(path, line):
    """``result-at``'s answer from the plain algorithm: every entry up to ``line``
    parsed into one Record, the entry at ``line`` judged against it."""
    from termsprawl_context.cite.pools import tool_bodies
    from termsprawl_context.cite.records import Record
    from termsprawl_context.transcript.record import decode_line, entry_at, iter_raw_lines

    entries = []
    for found in iter_raw_lines(path):
        if found.number > line:
            break
        entry = entry_at(found, decode_line(found.raw))
        if entry is not None:
            entries.append(entry)
    record = Record(path, entries)
    target = record.entry_at(line)
    if target is None or target.type != "user":
        return None
    bodies = [body for _, body in tool_bodies(record, target)]
    return "\n".join(bodies) if bodies else None


def test_streaming_record_readers_print_what_reading_everything_printed(world_root):
    """``entries`` (with and without a mark, --calls, --json) and ``query`` stream now;
    ``result-at`` reads up to its line: on hostile transcripts each prints exactly what
    the plain algorithm (the whole record read first) prints, a refusal prints nothing,
    and the one-line lookups answer as the plain algorithm does on the lines up to them."""
    from termsprawl_context.errors import Refusal
    from termsprawl_context.transcript import query, record

    @fuzz_settings(40)
    @given(transcript(), st.integers(1, 14))
    def check(data, line):
        world = _fresh_world(world_root)
        world.transcript(data)
        path = world.session
        uuid = _a_uuid(data)
        for argv in (
            ["entries", path],
            ["entries", path, "--since", uuid],
            ["entries", path, "--calls", "--json"],
            ["entries", path, "--json", "--since", "no-such-uuid"],
        ):
            code, out, err = run_cli(argv)
            check_outcome(code, out, err, argv)
            expected_code, expected = _collected_entries(path, argv)
            assert (code, out) == (expected_code, expected if code == 0 else b""), argv
            count("issue 24: streamed entries runs")
        for where in ('type == "user"', ""):
            for json_flag in ([], ["--json"]):
                argv = ["query", path, "--where", where] + json_flag
                code, out, err = run_cli(argv)
                check_outcome(code, out, err, argv)
                try:
                    found = query.filter(record.read_entries(path), where)
                except Refusal as exc:
                    assert (code, out) == (exc.exit_code, b""), argv
                    continue
                if json_flag:
                    # Printed text turns a lone surrogate (a "\ud800" escape in a record) into U+FFFD.
                    rows = [
                        json.dumps({"path": path, "line": e.line, "record": e.record}, ensure_ascii=False)
                        for e in found
                    ]
                    got = [json.loads(line) for line in out.decode("utf-8").splitlines()]  # JSON Lines
                    assert got == [json.loads(encode_text(row).decode("utf-8")) for row in rows], argv
                else:
                    assert out.decode("utf-8", "replace").count("\n") == len(found), argv
                count("issue 24: streamed query runs")
        argv = ["result-at", path, str(line)]
        code, out, err = run_cli(argv)
        check_outcome(code, out, err, argv)
        try:
            expected_text = _tool_output_up_to(path, line)
        except Refusal as exc:
            assert code == exc.exit_code and out == b"", argv
        else:
            if expected_text is None:
                assert code == 1 and out == b"", (argv, err)
            else:
                assert code == 0 and out.decode("utf-8").rstrip("\n") == expected_text.rstrip("\n"), argv
        count("issue 24: result-at up to its line")

    check()


def test_the_bounded_handoff_window_matches_the_oracle_on_hostile_transcripts(world_root, monkeypatch):
    """The hand-off's collector with a uuid set of 0 or 2 (so every later copy is looked
    up in the file) picks what the forward oracle picks, on hostile transcripts."""
    from termsprawl_context import handoff
    from oracles import read_turns_forward_oracle

    @fuzz_settings(60)
    @given(transcript(), st.sampled_from([0, 2]), st.sampled_from([1, 40]), st.booleans())
    def check(data, held, window, tools):
        world = _fresh_world(world_root)
        world.transcript(data)
        monkeypatch.setattr(handoff, "SEEN_UUIDS_HELD", held)
        back = handoff.read_harness_turns(world.session, None, window, 3, tools)
        forward = read_turns_forward_oracle(world.session, window, 3, tools)
        key = [(t.role, t.text, t.timestamp, t.uuid, t.offset) for t in back]
        assert key == [(t.role, t.text, t.timestamp, t.uuid, t.offset) for t in forward]
        count("issue 24: bounded hand-off windows")

    check()


def test_the_packed_assemble_timeline_matches_the_seed_on_hostile_transcripts(world_root, monkeypatch):
    """assemble-file's flat timeline (sort runs of 3, merged; two processes) prints what
    the seed's whole-file algorithm prints."""
    from test_assemble import oracle
    from termsprawl_context.store import assemble, timeline

    monkeypatch.setattr(timeline, "SORT_RUN", 3)
    monkeypatch.setattr(assemble, "PARALLEL_MIN_BYTES", 0)

    @fuzz_settings(60)
    @given(transcript(), st.sampled_from([1, 2]))
    def check(data, jobs):
        # The oracle keys a uuid recursively: one nested hundreds deep is junk to it, a flat
        # key to assemble (test_deep_uuids_never_exit_70_in_assemble covers those).
        assume(not re.search(rb'"uuid":\s*[\[{]', data))
        world = _fresh_world(world_root)
        world.transcript(data)
        out = io.BytesIO()
        assemble.assemble_file(world.session, out, io.StringIO(), jobs=jobs)
        assert out.getvalue().split(b"\n")[:-1] == oracle(data)[0]
        count("issue 24: packed assemble timelines")

    check()


def test_terminal_safe_text_holds_nothing_a_terminal_acts_on():
    """Whatever the text, the one terminal-safe rule leaves no C0 (but what is kept),
    DEL or C1 control, and a lone CR never survives; JSON escaping keeps the value."""
    from termsprawl_context import _output

    controls = [chr(c) for c in list(range(0x20)) + list(range(0x7F, 0xA0))]
    pieces = st.one_of(st.sampled_from(controls + ["\u2028", "\u2029", "\r\n", "`"]), st.text(max_size=6))

    @fuzz_settings(300)
    @given(st.lists(pieces, max_size=20).map("".join))
    def check(text):
        shown = _output.for_terminal(text)
        assert not any(ch in shown for ch in controls if ch not in "\n\t\r")
        assert "\r" not in shown.replace("\r\n", "")
        assert shown.replace("\r\n", "\n").count("\n") == text.replace("\r\n", "\n").count("\n")
        line = _output.terminal_safe(text, stand_in=" ", line_breaks=True)
        assert not any(ch in line for ch in controls + ["\u2028", "\u2029"]) and len(line) == len(text)
        document = json.dumps({"t": text}, ensure_ascii=False)
        safe = _output.terminal_safe_json(document)
        assert json.loads(safe) == {"t": text} and not any(ch in safe for ch in controls)
        count("issue 24: terminal-safe texts")

    check()


def test_every_pair_of_long_ids_links_on_a_real_filesystem(tmp_path):
    """Ids of 100 to 128 characters, any mix: the link file and its temp name fit
    NAME_MAX, so add, list, peers and remove all work (no "File name too long")."""
    from termsprawl_context.workspace import links

    project = str(tmp_path / "p")
    os.makedirs(os.path.join(project, ".termsprawl"))
    ids = st.from_regex(r"\A[A-Za-z0-9][A-Za-z0-9_-]{99,127}\Z")

    @fuzz_settings(30)
    @given(ids, ids)
    def check(a, b):
        if a == b:
            return
        path = links.add_link(project, a, b)
        assert os.path.exists(path)
        assert links.peers_of(project, a) == [b]
        assert links.remove_link(project, b, a)
        assert os.listdir(links.links_dir(project)) == []
        count("issue 24: long id pairs linked")

    check()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_the_hook_exits_0_whatever_happens_to_its_stdout(pyz, tmp_path_factory):
    """Hostile payloads through the artifact with stdout on /dev/full, closed, or a pipe
    nobody reads: exit 0 every time, and at most one stderr line that is the hook's."""
    root = str(tmp_path_factory.mktemp("hookstreams"))

    @fuzz_settings(4)
    @given(payload())
    def check(hook_payload):
        world = _fresh_world(root)
        env = dict(os.environ, **world.env())
        env["TERMSPRAWL_NODE_ID"] = "ddd"
        argv = [sys.executable, str(pyz), "hook", "--projects-dir", world.store, "--cwd", world.project]
        data = hook_payload.replace(b"<store>", world.store.encode())
        for how in ("full", "closed", "pipe"):
            read_end = None
            if how == "full":
                stdout = open("/dev/full", "wb")
            elif how == "pipe":
                read_end, write_end = os.pipe()
                os.close(read_end)
                stdout = os.fdopen(write_end, "wb")
            else:
                stdout = None
            try:
                proc = subprocess.Popen(
                    argv,
                    stdin=subprocess.PIPE,
                    stdout=stdout,
                    stderr=subprocess.PIPE,
                    env=env,
                    preexec_fn=(lambda: os.close(1)) if how == "closed" else None,
                )
                _, err = proc.communicate(data, timeout=120)
            finally:
                if stdout is not None:
                    stdout.close()
            assert proc.returncode == 0, (how, err)
            check_outcome(proc.returncode, b"", err, argv)
            assert len(err.splitlines()) <= 2, err  # the failed answer, and the hook's own line
            count("issue 24: hook runs with a broken stdout")

    check()


def test_every_registered_command_is_fuzzed(tmp_path):
    """A command added to the registry must be added here: the fuzz runs every one."""
    world = World(str(tmp_path))
    fuzzed = {argv[0] for argv in world.transcript_commands("u1")} | {"links", "index", "init", "hook"}
    fuzzed |= {"mcp"}  # its stdin is fuzzed in test_gemini_wiring.py
    assert set(COMMANDS) <= fuzzed, sorted(set(COMMANDS) - fuzzed)


def test_zz_report_the_counts(capsys):
    """Prints what this module ran (the figures docs/RELIABILITY.md quotes)."""
    with capsys.disabled():
        print("\nfuzz cases run:", json.dumps(FUZZ_COUNTS, sort_keys=True))
    assert FUZZ_COUNTS or not LONG
