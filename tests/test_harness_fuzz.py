"""The fuzz over every harness's reader and every merge ``init`` makes (issue 31): Codex
CLI rollouts, Gemini CLI chats (JSONL and the older single-JSON ``session-*.json``), the
hook payload of each harness, the settings files ``init`` merges its hooks into and the
AGENTS.md block. Each case runs the commands in this process (``test_fuzz.run_cli``) and
holds the promises ``docs/RELIABILITY.md`` states: no traceback, no exit 70, every
diagnostic one of ours, nothing written outside the project, and a refused merge leaves
the person's file byte for byte. ``TERMSPRAWL_LONG_FUZZ=1`` scales the examples as in
``test_fuzz``; the last test prints the counts."""

import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from test_fuzz import check_outcome, fuzz_settings, run_cli

FIXTURES = Path(__file__).parent / "fixtures"
CODEX_ROLLOUTS = sorted((FIXTURES / "codex").rglob("rollout-*.jsonl"))
GEMINI_CHATS = sorted((FIXTURES / "gemini-0.61").rglob("session-*.jsonl"))
COPILOT_EVENTS = sorted((FIXTURES / "copilot-1.0.102").rglob("events.jsonl"))
PI_SESSIONS = sorted((FIXTURES / "pi-0.73.1").rglob("*.jsonl"))
# Written by the real clients against the scripted model (tests/e2e's drives, issue 30).
QWEN_CHATS = sorted((FIXTURES / "qwen-0.24.4").glob("*.jsonl"))
DROID_SESSIONS = sorted((FIXTURES / "droid-0.225.2").glob("*.jsonl"))
HARNESS_COUNTS = {}


def count(name, n=1):
    HARNESS_COUNTS[name] = HARNESS_COUNTS.get(name, 0) + n


_JUNK = [
    b"\xff\xfe",
    b"\x00",
    b"{",
    b"}",
    b"[",
    b'"',
    b"\\ud800",
    b"\n",
    b"\r\n",
    b"null",
    b"1e999",
    b'{"type":',
    b"\t",
]


@st.composite
def mangled(draw, sources):
    """A real file cut, spliced with junk and with its lines shuffled a little."""
    data = bytearray(draw(st.sampled_from(sources)).read_bytes())
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(data)))
        what = draw(st.one_of(st.sampled_from(_JUNK), st.binary(max_size=40)))
        if draw(st.booleans()):
            data[at:at] = what
        else:
            del data[at : at + draw(st.integers(0, 200))]
    lines = bytes(data).split(b"\n")
    if len(lines) > 2 and draw(st.booleans()):
        i = draw(st.integers(0, len(lines) - 2))
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
    return b"\n".join(lines)[: draw(st.integers(0, len(data) + 1))]


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@st.composite
def legacy_chat(draw):
    """Gemini CLI's older single-JSON chat: one object with a ``messages`` list, or not."""
    messages = draw(
        st.lists(
            st.fixed_dictionaries(
                {"id": st.text(max_size=4), "type": st.sampled_from(["user", "gemini", "info", "error", "x"])},
                optional={"content": JSON_VALUES, "toolCalls": JSON_VALUES, "timestamp": JSON_VALUES},
            ),
            max_size=6,
        )
    )
    obj = {"sessionId": "s", "projectHash": "p", "startTime": "t", "lastUpdated": "t", "messages": messages}
    raw = json.dumps(obj, indent=draw(st.sampled_from([None, 2]))).encode()
    cut = draw(st.one_of(st.just(len(raw)), st.integers(0, len(raw))))
    return raw[:cut]


class Place(object):
    """A project (node ``lead`` linked to ``peer``), a home, and the peer's chat or
    rollout written where its harness keeps it; rebuilt for each example."""

    def __init__(self, root, harness, name, data):
        shutil.rmtree(root, ignore_errors=True)
        self.root = Path(root)
        self.project = self.root / "proj"
        self.home = self.root / "home"
        self.codex_home = self.home / ".codex"
        if harness == "codex-cli":
            self.chat = self.codex_home / "sessions" / "2026" / "12" / "01" / name
        elif harness == "copilot-cli":
            self.chat = self.home / ".copilot" / "session-state" / "66928374-6e51-4abd-9b55-f07ffa8207af" / name
        elif harness == "pi":
            self.chat = self.home / ".pi" / "agent" / "sessions" / "--proj--" / name
        elif harness == "qwen-code":
            self.chat = self.home / ".qwen" / "projects" / "-p" / "chats" / name
        elif harness == "factory-droid":
            self.chat = self.home / ".factory" / "sessions" / "-p" / name
        else:
            self.chat = self.home / ".gemini" / "tmp" / "p" / "chats" / name
        self.chat.parent.mkdir(parents=True)
        self.chat.write_bytes(data)
        (self.project / ".termsprawl" / "transcripts").mkdir(parents=True)
        (self.project / ".termsprawl" / "links").mkdir()
        entry = {"version": 1, "path": str(self.chat), "harness": harness}
        (self.project / ".termsprawl" / "transcripts" / "peer.json").write_text(json.dumps(entry))
        (self.project / ".termsprawl" / "links" / "lead--peer.json").write_text(
            json.dumps({"version": 1, "a": "lead", "b": "peer"})
        )

    def env(self):
        return {"HOME": str(self.home), "CODEX_HOME": str(self.codex_home), "TERMSPRAWL_NODE_ID": "lead"}

    def outside(self):
        """Every file outside the project, with its size and modification time."""
        seen = {}
        for folder, _dirs, files in os.walk(str(self.root)):
            if folder.startswith(str(self.project)):
                continue
            for name in files:
                st_ = os.lstat(os.path.join(folder, name))
                seen[os.path.join(folder, name)] = (st_.st_size, st_.st_mtime_ns)
        return seen


def _reader_commands(place):
    p, chat = str(place.project), str(place.chat)
    return [
        ["--cwd", p, "--self", "lead"],
        ["--cwd", p, "--self", "lead", "--format", "markdown"],
        ["--cwd", p, "--self", "lead", "--format", "json"],
        ["doctor", "--cwd", p, "--self", "lead"],
        ["show", chat],
        ["show", chat, "--format", "json"],
        ["entries", chat],
        ["sessions"],
        ["search", "the"],
        ["identity", chat],
    ]


def _run_readers(place, label):
    before = place.outside()
    for argv in _reader_commands(place):
        code, out, err = run_cli(argv, env=place.env())
        check_outcome(code, out, err, argv)
        count("%s: command runs" % label)
    assert place.outside() == before  # nothing written outside the project
    count("%s: files" % label)


@pytest.fixture
def root(tmp_path_factory):
    return str(tmp_path_factory.mktemp("harnessfuzz"))


def test_codex_rollouts(root):
    @fuzz_settings(150)
    @given(mangled(CODEX_ROLLOUTS))
    def check(data):
        _run_readers(Place(root, "codex-cli", CODEX_ROLLOUTS[0].name, data), "Codex CLI rollouts")

    check()


def test_gemini_jsonl_chats(root):
    @fuzz_settings(150)
    @given(mangled(GEMINI_CHATS))
    def check(data):
        _run_readers(Place(root, "gemini-cli", GEMINI_CHATS[0].name, data), "Gemini CLI JSONL chats")

    check()


def test_gemini_single_json_chats(root):
    @fuzz_settings(150)
    @given(legacy_chat())
    def check(data):
        _run_readers(Place(root, "gemini-cli", "session-2025-01-01T00-00-old.json", data), "Gemini CLI session-*.json")

    check()


def test_copilot_events(root):
    @fuzz_settings(150)
    @given(mangled(COPILOT_EVENTS))
    def check(data):
        _run_readers(Place(root, "copilot-cli", "events.jsonl", data), "Copilot CLI events.jsonl")

    check()


def test_qwen_code_chats(root):
    @fuzz_settings(100)
    @given(mangled(QWEN_CHATS))
    def check(data):
        _run_readers(Place(root, "qwen-code", QWEN_CHATS[0].name, data), "Qwen Code chats")

    check()


def test_pi_sessions(root):
    @fuzz_settings(150)
    @given(mangled(PI_SESSIONS))
    def check(data):
        _run_readers(Place(root, "pi", PI_SESSIONS[0].name, data), "pi sessions")

    check()


def test_factory_droid_sessions(root):
    @fuzz_settings(100)
    @given(mangled(DROID_SESSIONS))
    def check(data):
        _run_readers(Place(root, "factory-droid", DROID_SESSIONS[0].name, data), "Factory Droid sessions")

    check()


@st.composite
def hook_payload(draw):
    body = {
        "session_id": draw(st.one_of(st.just("01a233eb-aec3-7ca3-ad52-6d382ed8cbfe"), st.text(max_size=40))),
        # Copilot CLI 1.0.102's sessionStart names its session this way (no transcript path).
        "sessionId": draw(st.sampled_from(["66928374-6e51-4abd-9b55-f07ffa8207af", "../x", "", 7, None])),
        "transcript_path": draw(st.sampled_from(["<chat>", "<home>/x.jsonl", "/etc/passwd", "", "<chat>/..", 7])),
        "cwd": draw(st.sampled_from(["<project>", "/", "", None])),
        "hook_event_name": draw(st.sampled_from(["SessionStart", "Stop", "", None])),
        "source": draw(st.sampled_from(["startup", "resume", "clear", "compact", 1])),
    }
    for _ in range(draw(st.integers(0, 2))):
        body[draw(st.text(max_size=10))] = draw(JSON_VALUES)
    raw = json.dumps(body).encode()
    if draw(st.booleans()):
        at = draw(st.integers(0, len(raw)))
        raw = raw[:at] + draw(st.sampled_from(_JUNK)) + raw[at:]
    return raw


def test_each_harness_s_hook_payload(root):
    @fuzz_settings(150)
    @given(st.sampled_from(["codex-cli", "gemini-cli", "copilot-cli", "pi"]), hook_payload())
    def check(harness, raw):
        sources = {"codex-cli": CODEX_ROLLOUTS, "copilot-cli": COPILOT_EVENTS, "pi": PI_SESSIONS}
        source = sources.get(harness, GEMINI_CHATS)[0]
        place = Place(root, harness, source.name, source.read_bytes())
        raw = raw.replace(b"<chat>", str(place.chat).encode()).replace(b"<home>", str(place.home).encode())
        raw = raw.replace(b"<project>", str(place.project).encode())
        before = place.outside()
        argv = ["hook", "--cwd", str(place.project), "--harness", harness]
        code, out, err = run_cli(argv, stdin=raw, env=place.env())
        check_outcome(code, out, err, argv)
        assert code == 0 and err.count(b"\n") <= 1
        assert out == b"" or isinstance(json.loads(out.decode("utf-8")), dict)
        assert place.outside() == before
        count("hook payloads (%s)" % harness)

    check()


SETTINGS_TEXT = st.one_of(
    JSON_VALUES.map(lambda v: json.dumps({"hooks": v, "n": 1})),
    JSON_VALUES.map(json.dumps),
    st.sampled_from(
        [
            '{"n": 1e-400, "m": 0.30000000000000000001, "z": -0}',
            '{"hooks": {}, "hooks": {"Stop": []}}',
            '{"a": 1} // a comment',
            '{\n  // jsonc\n  "hooks": {}\n}',
            '{"hooks": []}',
            "[]",
            "",
            '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "x"}]}]}}',
        ]
    ),
).map(lambda text: text.encode("utf-8", "surrogatepass"))

AGENTS_TEXT = st.lists(
    st.sampled_from(
        [
            "# Mine",
            "keep this",
            "<!-- termsprawl-context:begin -->",
            "<!-- termsprawl-context:end -->",
            "see `<!-- termsprawl-context:begin -->` in prose",
            "1. Never run migrations on prod.",
            "",
            "\ufeff",
        ]
    ),
    max_size=8,
).map(lambda lines: "\n".join(lines).encode("utf-8"))

_MERGED = {
    "--hook": ".claude/settings.local.json",
    "--codex-hook": ".codex/hooks.json",
    "--gemini-hook": ".gemini/settings.json",
    "--agents-md": "AGENTS.md",
    "--copilot-hook": ".github/hooks/termsprawl.json",
    "--pi-extension": ".pi/extensions/termsprawl.ts",
}


def test_init_s_merges_into_a_person_s_files(root):
    """``init`` with each merging option on hostile settings files and AGENTS.md: no
    traceback, no exit 70, nothing written outside the project; a refusal (exit 1)
    leaves every file of the person's byte for byte. (That a merge keeps every value it
    does not own exactly is held by the merge tests of issue 31 items 2 and 3.)"""

    @fuzz_settings(150)
    @given(st.sampled_from(sorted(_MERGED)), SETTINGS_TEXT, AGENTS_TEXT)
    def check(option, settings_text, agents_text):
        place = Place(root, "codex-cli", CODEX_ROLLOUTS[0].name, b"")
        mine = {}
        for path in _MERGED.values():
            target = place.project / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(agents_text if path == "AGENTS.md" else settings_text)
            mine[path] = target.read_bytes()
        before = place.outside()
        argv = ["init", "--cwd", str(place.project), option]
        code, out, err = run_cli(argv, env=place.env())
        check_outcome(code, out, err, argv)
        assert place.outside() == before
        if code != 0:
            assert {path: (place.project / path).read_bytes() for path in mine} == mine, err
        others = [path for opt, path in _MERGED.items() if opt != option]
        assert {path: (place.project / path).read_bytes() for path in others} == {path: mine[path] for path in others}
        count("init %s merges" % option)

    check()


def test_zz_report_the_counts(capsys):
    """Prints what this module ran (the figures docs/RELIABILITY.md quotes)."""
    with capsys.disabled():
        print("\nharness fuzz cases run:", json.dumps(HARNESS_COUNTS, sort_keys=True))
