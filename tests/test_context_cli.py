"""The dump command: argv contract, run loop over an injected IO, the built artifact."""

import json
import os
import subprocess
import sys

import pytest

from termsprawl_context.cli import main
from termsprawl_context.cli.context import ContextArgs, ContextIO, RealContextIO, parse_dump_argv, run_context
from termsprawl_context.dump import LinkedPeer
from termsprawl_context.errors import UsageError
from termsprawl_context.transcript.turns import Turn
from termsprawl_context.workspace import index, links
from conftest import snapshot


def parse_context_args(argv):
    """The dump's two arguments from ``argv``, or UsageError with the context layer's texts."""
    return parse_dump_argv(argv)[0]


# --- argv contract ----------------------------------------------------------------------

ARGV_ERRORS = [
    ([], "expected --cwd and --self"),
    (["--cwd", "."], "expected --cwd and --self"),
    (["--self", "a"], "expected --cwd and --self"),
    (["--cwd"], "missing value for --cwd"),
    (["--cwd", ".", "--self"], "missing value for --self"),
    (["--cwd", ".", "--self", "a", "extra"], "unexpected argument: extra"),
    (["--bogus", "--cwd", "."], "unexpected argument: --bogus"),
    (["--cwd=.", "--self", "a"], "unexpected argument: --cwd=."),
    (["-h", "x"], "unexpected argument: -h"),
    (["--cwd", "", "--self", "a"], "expected --cwd and --self"),
]


@pytest.fixture(autouse=True)
def no_defaults(monkeypatch, tmp_path):
    """No $TERMSPRAWL_NODE_ID and no project at or above the working directory, so an
    absent flag has no default: the context layer's own answers."""
    monkeypatch.delenv("TERMSPRAWL_NODE_ID", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(str(tmp_path))


@pytest.mark.parametrize("argv, message", ARGV_ERRORS)
def test_argv_errors(argv, message):
    with pytest.raises(UsageError) as info:
        parse_context_args(argv)
    assert info.value.message == message and info.value.exit_code == 2


def test_argv_later_occurrence_wins_and_values_taken_verbatim():
    assert parse_context_args(["--cwd", "a", "--self", "x", "--cwd", "b"]) == ContextArgs("b", "x")
    assert parse_context_args(["--cwd", "--self", "--self", "n"]) == ContextArgs("--self", "n")


@pytest.mark.parametrize("argv, message", ARGV_ERRORS)
def test_argv_errors_in_process_exit_2_one_line(argv, message, capsys):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == "termsprawl-context: %s\n" % message


# --- defaults for absent flags ------------------------------------------------------------


def test_self_defaults_to_the_variable(monkeypatch):
    monkeypatch.setenv("TERMSPRAWL_NODE_ID", "alice")
    assert parse_context_args(["--cwd", "p"]) == ContextArgs("p", "alice")
    assert parse_context_args(["--cwd", "p", "--self", "bob"]) == ContextArgs("p", "bob")


def test_explicit_empty_self_is_still_the_context_layers_error(monkeypatch):
    monkeypatch.setenv("TERMSPRAWL_NODE_ID", "alice")
    with pytest.raises(UsageError) as info:
        parse_context_args(["--cwd", "p", "--self", ""])
    assert info.value.message == "expected --cwd and --self"


def test_empty_variable_has_its_own_error(monkeypatch, capsys):
    monkeypatch.setenv("TERMSPRAWL_NODE_ID", "")
    assert main(["--cwd", "."]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (
        "termsprawl-context: $TERMSPRAWL_NODE_ID is set but empty; give --self NODE or "
        "set it to this agent's node id\n"
    )


def test_cwd_defaults_to_the_project_found_from_a_subdirectory(monkeypatch, tmp_path):
    project = tmp_path / "shop"
    (project / ".termsprawl").mkdir(parents=True)
    (project / "src" / "deep").mkdir(parents=True)
    monkeypatch.chdir(str(project / "src" / "deep"))
    assert parse_context_args(["--self", "a"]) == ContextArgs(str(project), "a")
    monkeypatch.setenv("TERMSPRAWL_NODE_ID", "alice")
    assert parse_context_args([]) == ContextArgs(str(project), "alice")


# --- run loop with an injected IO -------------------------------------------------------


class FakeIO(ContextIO):
    def __init__(self, peers, paths, turns, titles):
        self._peers, self._paths, self._turns, self._titles = peers, paths, turns, titles
        self.printed = []

    def linked_peers(self, self_id):
        return [LinkedPeer(peer, peer + ".json") for peer in self._peers]

    def recorded_path(self, peer_id):
        return self._paths.get(peer_id)

    def turns(self, path, limit=None):
        return self._turns.get(path, [])

    def node_title(self, peer_id):
        return self._titles.get(peer_id)

    def print(self, text):
        self.printed.append(text)


ARGS = ContextArgs("/p", "node-a")


def test_no_peers_prints_nothing():
    io = FakeIO([], {}, {}, {})
    assert run_context(ARGS, io) == 0 and io.printed == []


def test_peer_without_transcript_prints_nothing():
    io = FakeIO(["node-b"], {}, {}, {})
    assert run_context(ARGS, io) == 0 and io.printed == []


def test_one_peer():
    io = FakeIO(["node-b"], {"node-b": "/t"}, {"/t": [Turn("user", "hi")]}, {"node-b": "Claude B"})
    assert run_context(ARGS, io) == 0
    assert io.printed == ["# linked context from Claude B (node-b)\n## user\nhi"]


def test_peers_without_turns_skipped_and_titles_fall_back_to_id():
    ok = [Turn("assistant", "ok")]
    io = FakeIO(
        ["node-b", "node-c", "node-d"],
        {"node-b": "/b", "node-c": "/c", "node-d": "/d"},
        {"/b": ok, "/c": [], "/d": ok},
        {},
    )
    run_context(ARGS, io)
    assert io.printed == [
        "# linked context from node-b (node-b)\n## assistant\nok\n---\n"
        "# linked context from node-d (node-d)\n## assistant\nok"
    ]


def make_project(root, turns_lines, title="Claude B", peer="node-b", me="node-a"):
    root.mkdir(parents=True, exist_ok=True)
    transcript = root / "session.jsonl"
    transcript.write_text("".join(json.dumps(ln) + "\n" for ln in turns_lines), encoding="utf-8")
    links.add_link(str(root), me, peer)
    index.record_transcript_path(str(root), peer, str(transcript))
    if title is not None:
        (root / ".termsprawl" / "project.json").write_text(
            json.dumps({"nodes": [{"id": peer, "data": {"title": title}}]})
        )
    return transcript


STANDARD = [
    {"type": "user", "message": {"role": "user", "content": "do the thing"}},
    {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "done"}]}},
]
EXPECTED = "# linked context from Claude B (node-b)\n## user\ndo the thing\n## assistant\ndone"


def test_real_io_end_to_end_in_process(tmp_path):
    make_project(tmp_path, STANDARD)
    printed = []
    assert run_context(ContextArgs(str(tmp_path), "node-a"), RealContextIO(str(tmp_path), printed.append)) == 0
    assert printed == [EXPECTED + "\n"]


def test_real_io_peer_without_index_entry(tmp_path):
    links.add_link(str(tmp_path), "node-a", "node-b")
    printed = []
    run_context(ContextArgs(str(tmp_path), "node-a"), RealContextIO(str(tmp_path), printed.append))
    assert printed == []


# --- the built artifact -----------------------------------------------------------------


def test_artifact_dump(run_pyz, tmp_path, empty_home):
    project = tmp_path / "project"
    make_project(project, STANDARD)
    before = snapshot(tmp_path), snapshot(empty_home)
    r = run_pyz(["--cwd", project, "--self", "node-a"])
    assert (r.returncode, r.stdout, r.stderr) == (0, (EXPECTED + "\n").encode(), b"")
    assert (snapshot(tmp_path), snapshot(empty_home)) == before


def test_artifact_only_state_dir_prints_nothing(run_pyz, tmp_path):
    (tmp_path / ".termsprawl").mkdir()
    r = run_pyz(["--cwd", tmp_path, "--self", "node-a"])
    assert (r.returncode, r.stdout, r.stderr) == (0, b"", b"")


def test_artifact_missing_project_dir_prints_nothing(run_pyz, tmp_path):
    r = run_pyz(["--cwd", tmp_path / "nowhere", "--self", "x"])
    assert (r.returncode, r.stdout, r.stderr) == (0, b"", b"")


@pytest.mark.parametrize("argv, message", ARGV_ERRORS)
def test_artifact_argv_errors(run_pyz, argv, message):
    r = run_pyz(argv)
    assert (r.returncode, r.stdout, r.stderr) == (2, b"", ("termsprawl-context: %s\n" % message).encode())


def test_artifact_help_and_version(run_pyz):
    from termsprawl_context import __version__

    for flag in ("--help", "-h"):
        r = run_pyz([flag])
        assert r.returncode == 0 and r.stdout.startswith(b"usage: termsprawl-context --cwd DIR --self NODE")
    r = run_pyz(["--version"])
    assert (r.returncode, r.stdout) == (0, ("termsprawl-context %s\n" % __version__).encode())


def test_artifact_writes_utf8_whatever_the_locale(run_pyz, tmp_path):
    lines = ['{"type":"user","message":{"content":"caf\\u00e9 \\ud83d lone \\ud83d\\ude00 pair"}}']
    make_project(tmp_path, [], title="T\u00eftle")
    (tmp_path / "session.jsonl").write_text("\n".join(lines) + "\n")
    for lang in ("C", "POSIX", "en_US.ISO-8859-1"):
        r = run_pyz(
            ["--cwd", tmp_path, "--self", "node-a"], env={"LANG": lang, "LC_ALL": lang, "PYTHONIOENCODING": None}
        )
        assert r.returncode == 0 and r.stderr == b""
        assert (
            r.stdout
            == "# linked context from T\u00eftle (node-b)\n## user\ncaf\u00e9 \ufffd lone \U0001f600 pair\n".encode()
        )


def test_artifact_closed_stdout_ends_quietly(pyz, tmp_path):
    make_project(tmp_path, [{"type": "user", "message": {"content": "x" * 1500}}] * 40)
    for i in range(2, 6):
        links.add_link(str(tmp_path), "node-a", "peer%d" % i)
        index.record_transcript_path(str(tmp_path), "peer%d" % i, str(tmp_path / "session.jsonl"))
    cmd = "%s %s --cwd %s --self node-a | head -c 10 >/dev/null; exit ${PIPESTATUS[0]}" % (
        sys.executable,
        pyz,
        tmp_path,
    )
    r = subprocess.run(["bash", "-c", cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    assert r.stderr == b"" and r.returncode == 0


def test_artifact_non_regular_transcripts_are_skipped(run_pyz, tmp_path):
    make_project(tmp_path, STANDARD)
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(str(fifo))
    links.add_link(str(tmp_path), "node-a", "node-c")
    index.record_transcript_path(str(tmp_path), "node-c", str(fifo))
    links.add_link(str(tmp_path), "node-a", "node-d")
    index.record_transcript_path(str(tmp_path), "node-d", str(tmp_path))
    r = run_pyz(["--cwd", tmp_path, "--self", "node-a"], timeout=20)
    assert (r.returncode, r.stdout, r.stderr) == (0, (EXPECTED + "\n").encode(), b"")


def test_artifact_relative_index_path_is_from_the_project(run_pyz, tmp_path):
    make_project(tmp_path, STANDARD)
    index.record_transcript_path(str(tmp_path), "node-b", "session.jsonl")
    r = run_pyz(["--cwd", tmp_path, "--self", "node-a"], cwd="/")
    assert r.stdout == (EXPECTED + "\n").encode()


def test_artifact_multiple_peers_sorted_by_link_file_name(run_pyz, tmp_path):
    make_project(tmp_path, STANDARD, peer="zed", me="mid")
    (tmp_path / "other.jsonl").write_text(json.dumps({"type": "user", "message": {"content": "from alpha"}}) + "\n")
    links.add_link(str(tmp_path), "mid", "alpha")
    index.record_transcript_path(str(tmp_path), "alpha", str(tmp_path / "other.jsonl"))
    r = run_pyz(["--cwd", tmp_path, "--self", "mid"])
    assert r.stdout == (
        b"# linked context from alpha (alpha)\n## user\nfrom alpha\n---\n"
        b"# linked context from Claude B (zed)\n## user\ndo the thing\n## assistant\ndone\n"
    )


def test_the_dump_turns_the_collector_back_on(tmp_path):
    # The artifact's launcher turns the cyclic collector off while modules load; the CLI
    # turns it back on (what is loaded frozen out of its sight) before the command's work.
    import gc

    from termsprawl_context.cli import main

    gc.disable()
    try:
        assert main(["--cwd", str(tmp_path), "--self", "node-a"]) == 0
        assert gc.isenabled()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.enable()


def test_the_cli_leaves_an_enabled_collector_alone(tmp_path):
    import gc

    from termsprawl_context.cli import main

    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    assert main(["--cwd", str(tmp_path), "--self", "node-a"]) == 0
    assert gc.isenabled() and gc.get_freeze_count() == frozen
