"""Issue 24 item 8: transcript text printed to a terminal cannot drive it. ``show``, the
hand-off and the dump printed ESC, OSC 0 (window title), OSC 52 (clipboard) and the
8-bit CSI (U+009B) from a transcript raw to a terminal. Every sanitiser is now
``_output.terminal_safe``; text printed to a terminal goes through it, and a pipe keeps
the exact bytes (the bare dump stays seed-exact there). Run on a real pseudo-terminal."""

import json
import os
import pty
import subprocess
import sys
import tty

import pytest

from termsprawl_context import _output, handoff_render
from termsprawl_context.cli import main

# Every attack the red team used, and the 8-bit forms a UTF-8 terminal may act on.
HOSTILE = (
    "plain \x1b[31mred\x1b[0m \x1b]0;pwned title\x07 \x1b]52;c;cm0gLXJmIH4K\x07 \x9b2J \x9d0;t\x9c "
    "\x90q\x9c back\x08\x08 over\rwrite \x7f end"
)
CONTROLS = [chr(c) for c in list(range(0x20)) + list(range(0x7F, 0xA0)) if chr(c) not in "\n\t"]


def _record(tmp_path):
    projects = tmp_path / "projects"
    folder = projects / "-work-demo"
    folder.mkdir(parents=True)
    path = folder / "11111111-1111-4111-8111-111111111111.jsonl"
    lines = [
        {
            "type": "user",
            "uuid": "u1",
            "timestamp": "2025-01-01T00:00:00Z\x1b]0;t\x07",
            "message": {"role": "user", "content": "do it " + HOSTILE},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "timestamp": "2025-01-01T00:00:01Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "done\r\n" + HOSTILE}]},
        },
    ]
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    return projects, path


def _project(tmp_path, transcript):
    project = tmp_path / "project"
    (project / ".termsprawl" / "links").mkdir(parents=True)
    (project / ".termsprawl" / "transcripts").mkdir()
    (project / ".termsprawl" / "links" / "aaa--bbb.json").write_text('{"version": 1, "a": "aaa", "b": "bbb"}')
    (project / ".termsprawl" / "transcripts" / "bbb.json").write_text(
        json.dumps({"version": 1, "path": str(transcript)})
    )
    return project


def _on_a_terminal(pyz, args):
    """The artifact's stdout when it is a real (raw-mode) pseudo-terminal."""
    master, slave = pty.openpty()
    tty.setraw(slave)  # no CRLF translation: the bytes as written
    proc = subprocess.Popen(
        [sys.executable, str(pyz)] + [str(a) for a in args],
        stdout=slave,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env={"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent", "LANG": "C"},
    )
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed its end
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    proc.wait(timeout=60)
    assert proc.returncode == 0, proc.stderr.read()
    return out


def _through_a_pipe(run_pyz, args):
    proc = run_pyz(args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _assert_inert(out: bytes):
    text = out.decode("utf-8")
    for ch in CONTROLS:
        if ch == "\r":
            assert "\r" not in text.replace("\r\n", ""), "a lone CR reached the terminal"
            continue
        assert ch not in text, "%r reached the terminal" % ch


def _commands(tmp_path):
    projects, path = _record(tmp_path)
    project = _project(tmp_path, path)
    return {
        "show": ["show", path, "--projects-dir", projects],
        "show --all": ["show", path, "--projects-dir", projects, "--all"],
        "show json": ["show", path, "--projects-dir", projects, "--format", "json"],
        "hand-off": ["--cwd", project, "--self", "aaa", "--turns", "5"],
        "hand-off json": ["--cwd", project, "--self", "aaa", "--format", "json"],
        "dump": ["--cwd", project, "--self", "aaa"],
    }


@pytest.mark.parametrize("name", ["show", "show --all", "show json", "hand-off", "hand-off json", "dump"])
def test_nothing_a_terminal_acts_on_reaches_a_terminal(pyz, run_pyz, tmp_path, name):
    args = _commands(tmp_path)[name]
    out = _on_a_terminal(pyz, args)
    assert b"red" in out and b"pwned title" in out and b"end" in out  # the words stay, spelled out
    _assert_inert(out)
    if not name.endswith("json"):
        assert b"\\x1b]52;c;" in out and b"\\x9b2J" in out  # shown, not acted on
        assert b"done\r\n" in out  # a CRLF ending moves nothing: kept
    else:
        document = json.loads(out.decode("utf-8"))  # the same values as through a pipe
        assert document == json.loads(_through_a_pipe(run_pyz, args).decode("utf-8"))


@pytest.mark.parametrize("name", ["show", "hand-off", "dump"])
def test_a_pipe_gets_the_exact_text(run_pyz, tmp_path, name):
    """Only a terminal gets the spelled-out text: a pipe (an agent's tool, a file) gets
    the transcript's own characters, so the dump stays byte-exact with the seed's."""
    out = _through_a_pipe(run_pyz, _commands(tmp_path)[name]).decode("utf-8")
    assert HOSTILE in out


def test_the_json_forms_escape_what_json_leaves_raw_even_in_a_pipe(run_pyz, tmp_path):
    """JSON escapes C0 itself; DEL, the C1 controls and U+2028/U+2029 are written as
    ``\\u`` escapes whatever stdout is: the same values, so no contract changes."""
    commands = _commands(tmp_path)
    for name in ("show json", "hand-off json"):
        out = _through_a_pipe(run_pyz, commands[name])
        _assert_inert(out.rstrip(b"\n"))
        assert any(HOSTILE in text for text in _strings(json.loads(out.decode("utf-8"))))


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def test_one_function_decides_for_every_sanitiser():
    """The cells of ``entries``, ``search``, ``sessions`` and ``query`` (one ``cell``, the
    command base's), the hand-off's headings and the diagnostics all call
    ``terminal_safe``: an 8-bit CSI is caught in each (it got through three of the four
    rules before)."""
    from termsprawl_context.cli.command import cell

    attack = "a\x9b2Jb\x1b]52;c;x\x07c\u2028d\te\nf"
    for out in (cell(attack), handoff_render.one_line(attack), _output.one_line(attack)):
        assert not any(ch in out for ch in CONTROLS), repr(out)
    assert handoff_render.one_line(attack) == "a 2Jb ]52;c;x c d e f"
    # A cell keeps its row one row (line breaks and tabs are spaces) and marks any other control.
    assert cell(attack) == "a\ufffd2Jb\ufffd]52;c;x\ufffdc d e f"
    assert _output.one_line(attack) == "a\\x9b2Jb\\x1b]52;c;x\\x07c\u2028d\te\\nf"
    assert _output.for_terminal("x\r\ny\rz\tw") == "x\r\ny\\rz\tw"


def test_show_in_process_to_a_stream_is_exact(tmp_path, capsys):
    """A test's stream is no terminal: the text is exact."""
    projects, path = _record(tmp_path)
    assert main(["show", str(path), "--projects-dir", str(projects)]) == 0
    assert HOSTILE in capsys.readouterr().out
