"""Broken standard streams (issue 13 item 6), with a real interpreter and the built
artifact: stdout on /dev/full or closed, stderr closed or full, a pipe closed early.

The child's descriptors are closed after the fork (``preexec_fn``), so the interpreter
starts with them really closed; a pyenv shim would reopen them, so the interpreter run
is this one (``sys.executable``, a real binary), never a shim on PATH.
"""

import json
import os
import subprocess
import sys

import pytest

from termsprawl_context.errors import EXIT_OUTPUT_FAILED

FULL = "/dev/full"
needs_dev_full = pytest.mark.skipif(not os.path.exists(FULL), reason="no /dev/full here")
PREFIX = b"termsprawl-context: "


@pytest.fixture
def project(tmp_path):
    """A project whose node aaa has one linked peer with a printable turn."""
    path = tmp_path / "project"
    (path / ".termsprawl" / "links").mkdir(parents=True)
    (path / ".termsprawl" / "transcripts").mkdir()
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        '{"type":"user","uuid":"u1","sessionId":"s","timestamp":"2024-01-01T00:00:00Z",'
        '"message":{"content":"hello"}}\n'
    )
    (path / ".termsprawl" / "links" / "aaa--bbb.json").write_text('{"version": 1, "a": "aaa", "b": "bbb"}')
    (path / ".termsprawl" / "transcripts" / "bbb.json").write_text('{"version": 1, "path": "%s"}' % transcript)
    return path, transcript


def run(pyz, args, stdout=None, stderr=subprocess.PIPE, close=()):
    """Run the artifact; ``close`` names descriptors closed in the child before exec."""

    def closer():
        for fd in close:
            os.close(fd)

    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/nonexistent", "LANG": "C"}
    proc = subprocess.Popen(
        [sys.executable, str(pyz)] + [str(a) for a in args],
        stdout=stdout,
        stderr=stderr,
        stdin=subprocess.DEVNULL,
        preexec_fn=closer if close else None,
        env=env,
    )
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err or b""


def commands(project):
    path, transcript = project
    return {
        "dump": (["--cwd", path, "--self", "aaa"], 0),
        "links list": (["links", "list", "--cwd", path], EXIT_OUTPUT_FAILED),
        "links peers": (["links", "peers", "aaa", "--cwd", path], EXIT_OUTPUT_FAILED),
        "index get": (["index", "get", "bbb", "--cwd", path], EXIT_OUTPUT_FAILED),
        "assemble-file": (["assemble-file", transcript], EXIT_OUTPUT_FAILED),
        "doctor": (["doctor", "--cwd", path, "--self", "aaa"], EXIT_OUTPUT_FAILED),
        "--version": (["--version"], EXIT_OUTPUT_FAILED),
    }


@needs_dev_full
@pytest.mark.parametrize(
    "name", ["dump", "links list", "links peers", "index get", "assemble-file", "doctor", "--version"]
)
def test_stdout_on_dev_full_is_one_line_and_a_documented_code(pyz, project, name):
    args, code = commands(project)[name]
    with open(FULL, "wb") as full:
        rc, err = run(pyz, args, stdout=full)
    assert rc == code
    assert err == PREFIX + b"cannot write to stdout: No space left on device\n"


@pytest.mark.parametrize("name", ["dump", "links list", "index get", "assemble-file", "--version"])
def test_stdout_closed_is_one_line_and_a_documented_code(pyz, project, name):
    args, code = commands(project)[name]
    rc, err = run(pyz, args, close=(1,))
    assert rc == code
    assert err == PREFIX + b"cannot write to stdout: it is closed\n"


@pytest.mark.parametrize(
    "args", [["locate", "no-such-uuid"], ["index", "get", "zzz", "--cwd", "."], ["links", "add", "a", "a"]]
)
def test_stderr_closed_never_reaches_stdout(pyz, tmp_path, args):
    """A refusal's line goes to stderr or nowhere: with stderr closed, stdout is empty
    (a hook's stdout reaches the model) and the exit code is the refusal's."""
    proc = subprocess.Popen(
        [sys.executable, str(pyz)] + args,
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        preexec_fn=lambda: os.close(2),
        cwd=str(tmp_path),
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "LANG": "C"},
    )
    out, _ = proc.communicate(timeout=60)
    assert out == b""
    assert proc.returncode in (1, 2)


def test_hook_with_stderr_closed_never_spills_its_line_onto_stdout(pyz, tmp_path):
    proc = subprocess.Popen(
        [sys.executable, str(pyz), "hook", "--cwd", str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        preexec_fn=lambda: os.close(2),
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "LANG": "C"},
    )
    out, _ = proc.communicate(b"not json", timeout=60)
    assert proc.returncode == 0
    # stdout holds only the hook's own answer (one JSON object for Claude Code), never
    # the stderr line that would have said the same
    assert b"termsprawl-context: " not in out
    assert out == b"" or isinstance(json.loads(out.decode("utf-8")), dict)


@needs_dev_full
def test_stderr_full_keeps_the_exit_code(pyz):
    with open(FULL, "wb") as full:
        rc, _ = run(pyz, ["locate", "no-such-uuid"], stdout=subprocess.DEVNULL, stderr=full)
    assert rc == 1


def test_closed_descriptors_are_not_reused_for_state_files(pyz, project):
    """With stdout closed, ``links add`` still writes its file whole and the would-be
    fd 1 is /dev/null: the link file never receives the answer's text."""
    path, _ = project
    rc, err = run(pyz, ["links", "add", "aaa", "ccc", "--cwd", path], close=(1,))
    assert rc == EXIT_OUTPUT_FAILED and err.startswith(PREFIX + b"cannot write to stdout")
    body = (path / ".termsprawl" / "links" / "aaa--ccc.json").read_bytes()
    assert body.startswith(b"{") and b"linked" not in body


def test_a_pipe_closed_early_is_quiet(pyz, project):
    path, transcript = project
    big = transcript.parent / "big.jsonl"
    with open(str(big), "w") as f:
        for i in range(20000):
            f.write(
                '{"type":"user","uuid":"u%d","sessionId":"s","timestamp":"2024-01-01T00:00:%02dZ",'
                '"message":{"content":"%s"}}\n' % (i, i % 60, "x" * 200)
            )
    proc = subprocess.Popen(
        [sys.executable, str(pyz), "assemble-file", str(big)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read()
    proc.wait(timeout=60)
    assert proc.returncode == 0 and err == b""


def test_untrusted_text_in_a_diagnostic_cannot_split_or_forge_its_line(pyz, tmp_path):
    """Found by the long fuzz: a payload's cwd holding a carriage return or newline
    made the hook's one stderr line two, the second unprefixed (or forged)."""
    from termsprawl_context._output import one_line

    assert one_line("a\rb\nc\td\x1b[2J\x7f é") == "a\\rb\\nc\td\\x1b[2J\\x7f é"
    assert one_line("plain é \u2028") == "plain é \u2028"
    payload = json.dumps(
        {
            "session_id": "s1",
            "transcript_path": str(tmp_path / "store" / "x.jsonl"),
            "cwd": "/no\r\ntermsprawl-context: forged",
        }
    ).encode()
    (tmp_path / "store").mkdir()
    proc = subprocess.run(
        [sys.executable, str(pyz), "hook", "--projects-dir", str(tmp_path / "store")],
        input=payload,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=60,
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "LANG": "C", "TERMSPRAWL_NODE_ID": "n1"},
    )
    assert proc.returncode == 0
    assert proc.stderr.count(b"\n") == 1 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert b"\\r\\n" in proc.stderr


def _hook_with_stdout(pyz, tmp_path, stdout=None, close=()):
    """The hook run on a payload it answers (no node id set: the answer says how to
    set one), with its stdout as given; (exit code, stderr)."""
    payload = json.dumps(
        {
            "session_id": "s1",
            "transcript_path": str(tmp_path / "x.jsonl"),
            "cwd": str(tmp_path),
            "hook_event_name": "SessionStart",
            "source": "startup",
        }
    ).encode()

    def closer():
        for fd in close:
            os.close(fd)

    proc = subprocess.Popen(
        [sys.executable, str(pyz), "hook", "--cwd", str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=stdout,
        stderr=subprocess.PIPE,
        preexec_fn=closer if close else None,
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "LANG": "C"},
    )
    _, err = proc.communicate(payload, timeout=60)
    return proc.returncode, err


def test_the_hook_answers_when_its_stdout_works(pyz, tmp_path):
    """The control: the same run with a working stdout prints its one JSON answer."""
    payload_out = subprocess.run(
        [sys.executable, str(pyz), "hook", "--cwd", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        input=json.dumps(
            {
                "session_id": "s1",
                "transcript_path": str(tmp_path / "x.jsonl"),
                "cwd": str(tmp_path),
                "hook_event_name": "SessionStart",
                "source": "startup",
            }
        ).encode(),
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "LANG": "C"},
        timeout=60,
    )
    assert payload_out.returncode == 0
    assert isinstance(json.loads(payload_out.stdout.decode("utf-8")), dict)


@needs_dev_full
def test_the_hook_exits_0_with_stdout_on_dev_full(pyz, tmp_path):
    """Issue 24 item 6: the hook exited 74 when its answer could not be written."""
    with open(FULL, "wb") as full:
        rc, err = _hook_with_stdout(pyz, tmp_path, stdout=full)
    assert rc == 0
    assert err.startswith(PREFIX + b"hook: cannot write to stdout: No space left on device\n")


def test_the_hook_exits_0_with_stdout_closed(pyz, tmp_path):
    rc, err = _hook_with_stdout(pyz, tmp_path, close=(1,))
    assert rc == 0
    assert err.startswith(PREFIX + b"hook: cannot write to stdout: it is closed\n")


def test_the_hook_exits_0_with_its_pipe_closed(pyz, tmp_path):
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody reads: the answer's write is EPIPE
    try:
        with os.fdopen(write_end, "wb") as pipe:
            rc, err = _hook_with_stdout(pyz, tmp_path, stdout=pipe)
    except BrokenPipeError:
        pass
    assert rc == 0
    assert b"Traceback" not in err and b"cannot write" not in err
