"""locate, assemble and assemble-file on hostile stores, through the built artifact:
a newline-less file anywhere is read past, never held (issue 13, item 4); junk nested
deeply is junk (item 5); the answers match a run in one process."""

import json
import os
import subprocess
import sys

import pytest

from conftest import SRC

U1 = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
U2 = "fe5e1c67-53e7-4862-81ae-d0e013e3270b"
# The bound of issue 13: peak RSS under 64 MB on any input.
RSS_LIMIT_KIB = 64 * 1024
GIANT = 300 << 20  # a sparse, newline-less file: zeros, costing no disk

# Runs the artifact, reporting its exit code and peak RSS (KiB); a fresh small wrapper,
# so the child's ru_maxrss does not start from pytest's own size.
_WRAPPER = """\
import os, sys
null = os.open(os.devnull, os.O_WRONLY)
r, w = os.pipe()
pid = os.posix_spawn(sys.argv[1], sys.argv[1:], dict(os.environ),
                     file_actions=[(os.POSIX_SPAWN_DUP2, w, 1), (os.POSIX_SPAWN_DUP2, null, 2)])
os.close(w)
out = b""
while True:
    piece = os.read(r, 1 << 16)
    if not piece:
        break
    out += piece
_, status, usage = os.wait4(pid, 0)
sys.stdout.write("%d %d %d\\n" % (usage.ru_maxrss, os.WEXITSTATUS(status), len(out)))
sys.stdout.write(out.decode("utf-8", "replace"))
"""

needs_posix = pytest.mark.skipif(not hasattr(os, "wait4") or not hasattr(os, "posix_spawn"), reason="posix only")


def line(uuid, ts, **extra):
    obj = {"type": "user", "uuid": uuid, "timestamp": ts, "sessionId": "s", "message": {"content": "x"}}
    obj.update(extra)
    return json.dumps(obj)


@pytest.fixture
def hostile_store(tmp_path):
    store = tmp_path / "projects"
    (store / "p").mkdir(parents=True)
    (store / "q").mkdir()
    holder = store / "p" / (U1 + ".jsonl")
    holder.write_text(line("m1", "2026-01-01") + "\n" + line("m2", "2026-01-02") + "\n")
    with open(str(store / "q" / (U2 + ".jsonl")), "wb") as f:
        f.write(line("m1", "2025-01-01").encode() + b"\n")  # a fork: holds m1 too, earlier
        f.write(b'{"type":"user","uuid":' + b"[" * 450 + b"]" * 450 + b',"timestamp":"2024"}\n')
        f.truncate(GIANT)  # then 300 MB without a newline, torn mid-line
    return store, holder


def run(pyz, args, jobs):
    env = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8", "TERMSPRAWL_JOBS": str(jobs)}
    done = subprocess.run(
        [sys.executable, "-c", _WRAPPER, sys.executable, str(pyz)] + [str(a) for a in args],
        env=env,
        stdout=subprocess.PIPE,
        timeout=300,
    )
    head, _, out = done.stdout.decode().partition("\n")
    rss, code, _size = map(int, head.split())
    return rss, code, out


@needs_posix
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_newline_less_file_in_the_store_is_not_held(pyz, hostile_store, jobs):
    store, holder = hostile_store
    rss, code, out = run(pyz, ["locate", "m1", "--projects-dir", store], jobs)
    assert (code, out) == (0, str(holder) + "\n")
    assert rss < RSS_LIMIT_KIB
    rss, code, out = run(pyz, ["assemble", "m2", "--projects-dir", store], jobs)
    assert code == 0 and [json.loads(ln)["uuid"] for ln in out.splitlines()] == ["m1", "m2"]
    assert rss < RSS_LIMIT_KIB
    fork = store / "q" / (U2 + ".jsonl")
    rss, code, out = run(pyz, ["assemble-file", fork], jobs)
    uuids = [json.loads(ln)["uuid"] for ln in out.splitlines()]
    assert code == 0 and isinstance(uuids[0], list) and uuids[1:] == ["m1"]
    assert rss < RSS_LIMIT_KIB


def test_one_line_bound_for_every_reader():
    code = (
        "import sys; sys.path.insert(0, %r); from termsprawl_context import jsonl; "
        "from termsprawl_context.store import parallel, chunks; "
        "print(chunks.MAX_LINE_BYTES == jsonl.MAX_LINE_BYTES, parallel.available_jobs() >= 1)"
    ) % str(SRC)
    assert subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE).stdout.split() == [b"True", b"True"]


# --- issue 31, item 5: assemble-file's memory does not grow with the messages' uuids ----------

# Runs the artifact with its stdout in a file, reporting the peak RSS (KiB) of it and of the
# helper processes it forks (wait4 counts reaped descendants) and its exit code.
_TO_FILE = """\
import os, sys
out = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
null = os.open(os.devnull, os.O_WRONLY)
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], dict(os.environ),
                     file_actions=[(os.POSIX_SPAWN_DUP2, out, 1), (os.POSIX_SPAWN_DUP2, null, 2)])
_, status, usage = os.wait4(pid, 0)
print(usage.ru_maxrss, os.WEXITSTATUS(status))
"""

MANY = 600000


@pytest.fixture(scope="module")
def many_short_entries(tmp_path_factory):
    """The red team's file: 600k short messages (about 55 MB) whose uuids are not in the
    36-character form (32 hex digits, and short ids), in time order, all distinct."""
    path = tmp_path_factory.mktemp("many") / "t.jsonl"
    with open(str(path), "wb") as f:
        for low in range(0, MANY, 10000):
            f.write(
                "".join(
                    '{"type":"user","uuid":"%s","timestamp":"2025-01-01T%02d:%02d:%02d.%03dZ","message":{"content":"x"}}\n'
                    % (
                        "%032x" % (i * 2654435761) if i % 2 else "m%d" % i,
                        i // 360000,
                        i // 6000 % 60,
                        i // 100 % 60,
                        i % 100,
                    )
                    for i in range(low, low + 10000)
                ).encode()
            )
    return path


@needs_posix
@pytest.mark.parametrize("jobs", [1, 4])
def test_assemble_file_of_600k_short_entries_stays_bounded(pyz, many_short_entries, tmp_path, jobs):
    out = tmp_path / "out.jsonl"
    env = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8", "TERMSPRAWL_JOBS": str(jobs)}
    argv = [
        sys.executable,
        "-c",
        _TO_FILE,
        str(out),
        sys.executable,
        str(pyz),
        "assemble-file",
        str(many_short_entries),
    ]
    done = subprocess.run(argv, env=env, stdout=subprocess.PIPE, timeout=600)
    rss, code = map(int, done.stdout.split())
    assert code == 0
    # Every uuid distinct and the timestamps increasing: the timeline is the file itself.
    assert out.read_bytes() == many_short_entries.read_bytes()
    assert rss <= RSS_LIMIT_KIB, "peak RSS %.1f MB with %d job(s)" % (rss / 1024, jobs)
