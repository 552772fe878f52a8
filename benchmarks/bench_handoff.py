#!/usr/bin/env python3
"""Benchmark the hand-off, ``search`` and ``show latest`` against their baselines.

    python3 benchmarks/bench_handoff.py [--quick] [--scratch DIR]

Every command runs from src/ in a fresh interpreter (``python3 -c`` calling the CLI's
``main``), timed as medians of interleaved runs in this one run, so the machine's
speed cancels out of each ratio.

Rows (full size; ``--quick`` shrinks every input):
- the dump's hand-off (``--format markdown``) with a 1 GB peer transcript vs a 1 MB one:
  it reads backwards and stops once the window, the person's last prompts and the last
  answer are found, so the ratio must stay <= 1.3x. The JSON form counts line numbers
  with one forward pass over the file: shown, no target.
- ``search`` over a store of 2,000 sessions (1 GB), a needle in 10 of them, vs
  ``grep -rliF`` over the same files (<= 2x), and vs ``claude-history search`` (PyPI)
  when it is installed in a benchmark-only venv (``$CLAUDE_HISTORY``, the peers' dir
  ``$TERMSPRAWL_BENCH_PEERS`` of ``benchmarks/peers.py``, or ``/tmp/venv-ch/bin/claude-history``): >= 3x faster.
- ``show latest`` on a store of 10,000 sessions vs our ``find`` of a unique prefix on the same store (and, for scale, ``find STORE -name '*.jsonl'``)
  (<= 1.5x).
"""

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "src"
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.generate import write_transcript  # noqa: E402
from benchmarks import peers  # noqa: E402
from benchmarks.run import BenchError, error_rows, interleaved, interpreter, row  # noqa: E402

MB = 1 << 20
FULL = {
    "small": 1 * MB,
    "large": 1024 * MB,
    "search_sessions": 2000,
    "search_bytes": 1024 * MB,
    "show_sessions": 10000,
    "runs": 11,
    "warmups": 2,
    "slow_runs": 3,
}
QUICK = {
    "small": 1 * MB,
    "large": 50 * MB,
    "search_sessions": 100,
    "search_bytes": 40 * MB,
    "show_sessions": 1000,
    "runs": 5,
    "warmups": 1,
    "slow_runs": 1,
}
HANDOFF_TARGET = 1.3
GREP_TARGET = 2.0
CLAUDE_HISTORY_TARGET = 3.0
FIND_TARGET = 1.5
NEEDLE = "quokka-zanzibar"
NEEDLE_SESSIONS = 10
BASES = 20  # distinct generated transcripts the search store's sessions are copies of
CLI = "import sys; sys.path.insert(0, %r); from termsprawl_context.cli import main; sys.exit(main(sys.argv[1:]))"


def cli(py, *args):
    # -I -S: no site .pth files (this interpreter's installed packages), our own cost only
    return [py, "-I", "-S", "-c", CLI % str(SRC)] + [str(a) for a in args]


def env_for(home: Path):
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}


def check(argv, env, expect_rc=0):
    import subprocess

    done = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=900)
    if done.returncode != expect_rc:
        raise BenchError(
            "%s exited %d: %s"
            % (os.path.basename(argv[0]), done.returncode, done.stderr.decode("utf-8", "replace").strip()[:150])
        )
    return done.stdout


def transcript(folder: Path, size: int, seed: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ("t-%d-%d.jsonl" % (size, seed))
    if not path.exists() or path.stat().st_size < size * 0.9:
        write_transcript(path, size, seed=seed)
    return path


def project(root: Path, peer_transcript: Path) -> Path:
    (root / ".termsprawl" / "links").mkdir(parents=True, exist_ok=True)
    (root / ".termsprawl" / "transcripts").mkdir(parents=True, exist_ok=True)
    (root / ".termsprawl" / "links" / "a--b.json").write_text(json.dumps({"version": 1, "a": "a", "b": "b"}))
    (root / ".termsprawl" / "transcripts" / "b.json").write_text(
        json.dumps({"version": 1, "path": str(peer_transcript)})
    )
    return root


def fake_id(n: int) -> str:
    return "%08x-0000-4000-8000-%012x" % (n, n)


def search_store(scratch: Path, sessions: int, total: int) -> Path:
    """``sessions`` copies of ``BASES`` generated transcripts under 40 project folders,
    the needle typed into ``NEEDLE_SESSIONS`` of them; mtimes one minute apart."""
    projects = scratch / ("search-%d" % sessions) / "projects"
    done = projects.parent / "done"
    if done.exists():
        return projects
    bases = [transcript(scratch / "bases", total // sessions, seed=100 + i) for i in range(BASES)]
    rng = random.Random(7)
    with_needle = set(rng.sample(range(sessions), NEEDLE_SESSIONS))
    prompt = json.dumps(
        {
            "type": "user",
            "uuid": "needle",
            "timestamp": "2026-01-05T10:00:00.000Z",
            "message": {"role": "user", "content": "where is the %s config?" % NEEDLE.upper()},
        }
    )
    for i in range(sessions):
        folder = projects / ("-home-dev-project-%02d" % (i % 40))
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / (fake_id(i + 1) + ".jsonl")
        data = bases[i % BASES].read_bytes()
        if i in with_needle:
            cut = data.find(b"\n", len(data) // 2) + 1
            data = data[:cut] + prompt.encode() + b"\n" + data[cut:]
        path.write_bytes(data)
        os.utime(str(path), (1767225600 + 60 * i,) * 2)
    done.write_text("ok")
    return projects


def show_store(scratch: Path, sessions: int) -> Path:
    projects = scratch / ("show-%d" % sessions) / "projects"
    done = projects.parent / "done"
    if done.exists():
        return projects
    for i in range(sessions):
        folder = projects / ("-home-dev-project-%02d" % (i % 40))
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / (fake_id(i + 1) + ".jsonl")
        lines = [
            {"type": "user", "uuid": "u%d" % i, "message": {"content": "prompt %d" % i}},
            {"type": "assistant", "uuid": "a%d" % i, "message": {"content": [{"type": "text", "text": "ok"}]}},
        ]
        path.write_text("".join(json.dumps(ln) + "\n" for ln in lines))
        os.utime(str(path), (1767225600 + 60 * ((i * 7919) % sessions),) * 2)
    done.write_text("ok")
    return projects


def claude_history_bin():
    # $CLAUDE_HISTORY, else the peers' dir (benchmarks/peers.py), else the venv this row was first measured with.
    in_peers = peers.executable(peers.by_name("claude-history"), peers.peers_dir())
    for candidate in (os.environ.get("CLAUDE_HISTORY"), in_peers, "/tmp/venv-ch/bin/claude-history"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def ratio_row(metric, times, names, target, ok):
    return row(
        metric,
        "%.2fx (%s)" % (times[0] / times[1], " / ".join("%s %.1f ms" % (n, t * 1e3) for n, t in zip(names, times))),
        target,
        ok,
    )


def run(scratch: Path, quick: bool = False):
    sizes = QUICK if quick else FULL
    py = interpreter()
    home = scratch / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = env_for(home)
    rows = []
    mb = lambda n: "%d MB" % (n // MB) if n < 1024 * MB else "%d GB" % (n // (1024 * MB))  # noqa: E731

    m_md = "hand-off (markdown), %s vs %s peer (time ratio)" % (mb(sizes["large"]), mb(sizes["small"]))
    m_js = "hand-off (json, line numbers counted), %s vs %s peer" % (mb(sizes["large"]), mb(sizes["small"]))
    m_grep = "search, %d sessions (%s) vs grep -rliF (time ratio)" % (
        sizes["search_sessions"],
        mb(sizes["search_bytes"]),
    )
    m_ch = "claude-history search vs search, same store (speed-up)"
    m_show = "show latest, %d sessions vs our find of a unique prefix (time ratio)" % sizes["show_sessions"]
    m_showp = "the same vs find -name '*.jsonl' (the walk alone, no interpreter)"
    targets = {
        m_md: "<= %.1fx" % HANDOFF_TARGET,
        m_js: "info",
        m_grep: "<= %.1fx" % GREP_TARGET,
        m_ch: ">= %.1fx" % CLAUDE_HISTORY_TARGET,
        m_show: "<= %.1fx" % FIND_TARGET,
        m_showp: "info",
    }

    def attempt(metrics, how):
        try:
            rows.extend(how())
        except (BenchError, OSError) as exc:
            rows.extend(error_rows(metrics, targets, str(exc)[:150]))

    def handoff_rows():
        small = project(scratch / "p-small", transcript(scratch / "transcripts", sizes["small"], 1))
        large = project(scratch / "p-large", transcript(scratch / "transcripts", sizes["large"], 2))
        out = []
        for fmt, metric in (("markdown", m_md), ("json", m_js)):
            commands = [cli(py, "--cwd", p, "--self", "a", "--format", fmt) for p in (large, small)]
            for c in commands:
                if not check(c, env).strip():
                    raise BenchError("the hand-off printed nothing")
            times = interleaved(commands, env, sizes["runs"], sizes["warmups"])
            ratio = times[0] / times[1]
            out.append(
                ratio_row(
                    metric,
                    times,
                    ("large", "small"),
                    targets[metric],
                    ratio <= HANDOFF_TARGET if targets[metric] != "info" else None,
                )
            )
        return out

    def search_rows():
        store = search_store(scratch, sizes["search_sessions"], sizes["search_bytes"])
        ours = cli(py, "search", NEEDLE, "--projects-dir", store, "--limit", "1000")
        grep = ["/usr/bin/grep" if os.path.exists("/usr/bin/grep") else "/bin/grep", "-rliF", NEEDLE, str(store)]
        hits = check(ours, env).decode().splitlines()
        files = check(grep, env).decode().splitlines()
        if len(hits) != NEEDLE_SESSIONS or sorted(h.split(":")[0] for h in hits) != sorted(files):
            raise BenchError("search found %d hits, grep %d files" % (len(hits), len(files)))
        times = interleaved([ours, grep], env, sizes["runs"], sizes["warmups"])
        out = [ratio_row(m_grep, times, ("search", "grep"), targets[m_grep], times[0] / times[1] <= GREP_TARGET)]
        tool = claude_history_bin()
        if tool is None:
            out.extend(
                error_rows([m_ch], targets, "claude-history not installed (%s; or set $CLAUDE_HISTORY)" % peers.SETUP)
            )
            return out
        ch_home = scratch / "ch-home"
        (ch_home / ".claude").mkdir(parents=True, exist_ok=True)
        link = ch_home / ".claude" / "projects"
        if not link.exists():
            os.symlink(str(store), str(link))
        theirs = [tool, "search", NEEDLE, "--limit", "1000"]
        ch_env = env_for(ch_home)
        check(theirs, ch_env)
        t_theirs = interleaved([theirs], ch_env, sizes["slow_runs"], 0)[0]
        t_ours = interleaved([ours], env, sizes["slow_runs"], 1)[0]
        speedup = t_theirs / t_ours
        out.append(
            row(
                m_ch,
                "%.2fx (claude-history %.0f ms / search %.0f ms)" % (speedup, t_theirs * 1e3, t_ours * 1e3),
                targets[m_ch],
                speedup >= CLAUDE_HISTORY_TARGET,
            )
        )
        return out

    def show_rows():
        store = show_store(scratch, sizes["show_sessions"])
        ours = cli(py, "show", "latest", "--projects-dir", store)
        # The anchor is our own `find` on the same store (a walk, then one
        # session described); /usr/bin/find is the bare walk, shown for scale.
        find = cli(py, "find", fake_id(sizes["show_sessions"] // 2)[:8], "--projects-dir", store)
        walk = ["/usr/bin/find", str(store), "-name", "*.jsonl"]
        if b"prompt" not in check(ours, env):
            raise BenchError("show latest printed no turn")
        times = interleaved([ours, find, walk], env, sizes["runs"], sizes["warmups"])
        return [
            ratio_row(m_show, times[:2], ("show", "find"), targets[m_show], times[0] / times[1] <= FIND_TARGET),
            ratio_row(m_showp, [times[0], times[2]], ("show", "/usr/bin/find"), targets[m_showp], None),
        ]

    attempt([m_md, m_js], handoff_rows)
    attempt([m_grep, m_ch], search_rows)
    attempt([m_show, m_showp], show_rows)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--scratch", type=Path)
    args = parser.parse_args(argv)
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="bench-handoff-"))
    try:
        from benchmarks.run import table

        rows = run(scratch.resolve(), args.quick)
        sys.stdout.write(table(rows))
    finally:
        if args.scratch is None:
            shutil.rmtree(str(scratch), ignore_errors=True)
    return 0 if all(r["ok"] in (True, None) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
