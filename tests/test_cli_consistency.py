"""Commands named consistently: sessions --limit/--newest-first, missing stores and empty
arguments refused alike, unknown commands answered with the nearest, help COMMAND, and
locate/assemble taking a session prefix or latest."""

import json
import os

import pytest

from termsprawl_context.cli import COMMANDS, main

IDS = [
    "aaaa1111-0000-4000-8000-000000000001",
    "aaaa2222-0000-4000-8000-000000000002",
    "bbbb3333-0000-4000-8000-000000000003",
]


@pytest.fixture
def store(tmp_path):
    projects = tmp_path / "projects"
    folder = projects / "-work"
    folder.mkdir(parents=True)
    for i, sid in enumerate(IDS):
        path = folder / (sid + ".jsonl")
        lines = [
            {
                "type": "user",
                "uuid": "m%d" % i,
                "sessionId": sid,
                "timestamp": "2026-01-0%dT00:00:00Z" % (i + 1),
                "message": {"role": "user", "content": "prompt %d" % i},
            }
        ]
        path.write_text("".join(json.dumps(ln) + "\n" for ln in lines))
        os.utime(str(path), (1000 + i, 1000 + i))
    return projects


def listed(capsys):
    return [json.loads(ln)["session_id"] for ln in capsys.readouterr().out.splitlines()]


def test_sessions_limit_and_newest_first(store, capsys):
    base = ["sessions", "--projects-dir", str(store), "--json"]
    assert main(base) == 0 and listed(capsys) == IDS
    assert main(base + ["--newest-first"]) == 0 and listed(capsys) == IDS[::-1]
    assert main(base + ["--limit", "2"]) == 0 and listed(capsys) == IDS[1:]
    assert main(base + ["--limit", "1", "--newest-first"]) == 0 and listed(capsys) == IDS[2:]
    assert main(base + ["--limit", "0"]) == 2
    assert (
        capsys.readouterr().err
        == "termsprawl-context: sessions: argument --limit: expected a positive integer, got '0'\n"
    )


@pytest.mark.parametrize(
    "argv",
    [["sessions"], ["find", "aaaa"], ["locate", "aaaa"], ["assemble", "aaaa"], ["show", "latest"], ["search", "x"]],
)
def test_a_missing_projects_dir_is_exit_1(tmp_path, argv, capsys):
    assert main(argv + ["--projects-dir", str(tmp_path / "nope")]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and str(tmp_path / "nope") in err


@pytest.mark.parametrize(
    "argv",
    [
        ["find", ""],
        ["locate", ""],
        ["assemble", ""],
        ["assemble-file", ""],
        ["fresh", ""],
        ["show", ""],
        ["search", ""],
    ],
)
def test_empty_arguments_are_usage_errors(store, argv, capsys):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("termsprawl-context: %s: " % argv[0]) and err.count("\n") == 1


@pytest.mark.parametrize(
    "word, message",
    [
        ("sesions", "unknown command 'sesions' (did you mean sessions?)"),
        ("serach", "unknown command 'serach' (did you mean search?)"),
        ("hepl", "unknown command 'hepl' (did you mean help?)"),
        ("xyzzy", "unknown command 'xyzzy'"),
    ],
)
def test_unknown_command_suggests_the_nearest(word, message, capsys):
    assert main([word, "--cwd", "."]) == 2
    assert capsys.readouterr() == ("", "termsprawl-context: %s\n" % message)


def test_unknown_options_keep_the_dumps_text(capsys):
    assert main(["--sesions"]) == 2
    assert capsys.readouterr().err == "termsprawl-context: unexpected argument: --sesions\n"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_help_command_is_command_help(command, capsys):
    assert main(["help", command]) == 0
    by_help = capsys.readouterr().out
    assert main([command, "--help"]) == 0
    assert by_help == capsys.readouterr().out and by_help.startswith("usage: termsprawl-context %s" % command)


def test_help_alone_and_help_of_nothing(capsys):
    assert main(["help"]) == 0
    assert "help COMMAND" in capsys.readouterr().out
    assert main(["help", "sesions"]) == 2
    assert capsys.readouterr().err == "termsprawl-context: unknown command 'sesions' (did you mean sessions?)\n"


def test_locate_and_assemble_take_a_prefix_or_latest(store, capsys):
    newest = str(store / "-work" / (IDS[2] + ".jsonl"))
    for name in ("latest", "bbbb", IDS[2]):
        assert main(["locate", name, "--projects-dir", str(store)]) == 0
        assert capsys.readouterr().out == newest + "\n"
    assert main(["assemble", "bbbb3", "--projects-dir", str(store)]) == 0
    assert "prompt 2" in capsys.readouterr().out
    assert main(["locate", "aaaa", "--projects-dir", str(store)]) == 1
    assert capsys.readouterr().err == (
        "termsprawl-context: ambiguous session ID 'aaaa' matches 2 sessions: %s, %s\n" % (IDS[0], IDS[1])
    )
    assert main(["locate", "m1", "--projects-dir", str(store)]) == 0  # a message uuid is still a uuid
    assert capsys.readouterr().out == str(store / "-work" / (IDS[1] + ".jsonl")) + "\n"
