#!/usr/bin/env python3
"""Run the benchmarks and print one table: metric | measured | target | ok.

    python3 benchmarks/run.py [--quick] [--scratch DIR] [--only NAME]...

First the dump benchmarks (below), against an artifact built fresh from src/ into the
scratch dir; then every ``benchmarks/bench_*.py`` exposing ``run(scratch, quick)`` that
returns rows ``dict(metric, measured, target, ok)``. Times are ratios of medians of
interleaved runs made in this one run, so the machine's speed cancels out. Exit status 0
when every row is ok, 1 otherwise. See benchmarks/README.md.
"""

import argparse
import importlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

REPO = Path(__file__).resolve().parent.parent
BENCH_DIR = REPO / "benchmarks"
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.generate import write_transcript  # noqa: E402

MB = 1 << 20
DUMP_RATIO_TARGET = 1.3  # dump with a 500 MB transcript vs with a 1 MB one
STARTUP_RATIO_TARGET = 1.5  # no-peer run vs the system's `python3 -I -c pass` (issue 28)
PEER_STARTUP_TARGET = 2.0  # the dump of a 1 MB peer vs the system's `python3 -I -c pass` (issue 28)
# The start-up rows run the artifact with the system's own optimised interpreter (Debian's
# is a PGO/LTO build: its bare start is about 9 ms, a plain source build's 50): a ratio
# against a slow build's start would flatter us. Another interpreter when this one is absent.
SYSTEM_PYTHON = "/usr/bin/python3"
STARTUP_ROUNDS = 60  # per-round ratios: the median of many rounds on a loaded machine
RSS_TARGET_MB = 30  # peak RSS of the dump of a 1 GB transcript
FULL = {"small": 1 * MB, "large": 500 * MB, "huge": 1024 * MB, "runs": 21, "warmups": 3, "rss_runs": 3}
QUICK = {"small": 1 * MB, "large": 50 * MB, "huge": 100 * MB, "runs": 7, "warmups": 2, "rss_runs": 2}
DUMP_HEADER = b"# linked context from "


class BenchError(Exception):
    """A benchmark could not be measured; its rows say why instead of a number."""


def row(metric: str, measured: str, target: str, ok) -> Dict:
    return {"metric": metric, "measured": measured, "target": target, "ok": ok}


def error_rows(metrics: Sequence[str], target_of: Dict[str, str], reason: str) -> List[Dict]:
    return [row(m, "error: " + reason, target_of.get(m, ""), "ERROR") for m in metrics]


# --- running the artifact ------------------------------------------------------------


def interpreter(chosen: Optional[str] = None) -> str:
    """The real interpreter binary: not a pyenv shim (a bash script adding ~70 ms) and
    not a venv's symlink (whose site-packages .pth files would run on every start)."""
    return os.path.realpath(chosen or sys.executable)


def clean_env(home: Path) -> Dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}


def measure(argv: List[str], env: Dict[str, str]):
    """One run with stdout/stderr to /dev/null: (wall seconds, exit code)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
        started = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)
        _, status = os.waitpid(pid, 0)
        elapsed = time.perf_counter() - started
    finally:
        os.close(devnull)
    return elapsed, _exit_code(status)


def _exit_code(status: int) -> int:
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status)


# Spawned by a fresh `python -I -S` per measurement: a child's ru_maxrss starts from the
# memory of the process that spawned it (posix_spawn shares it until exec), so spawning
# from this runner, grown by generating transcripts, would report the runner's size.
_RSS_WRAPPER = """\
import os, sys
null = os.open(os.devnull, os.O_WRONLY)
pid = os.posix_spawn(sys.argv[1], sys.argv[1:], dict(os.environ),
                     file_actions=[(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)])
_, status, usage = os.wait4(pid, 0)
print(usage.ru_maxrss, os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1)
"""


def peak_rss(argv: List[str], env: Dict[str, str]):
    """(peak RSS in MB, exit code) of one run of ``argv``."""
    done = subprocess.run(
        [argv[0], "-I", "-S", "-c", _RSS_WRAPPER] + argv,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=600,
    )
    try:
        maxrss, code = map(int, done.stdout.split())
    except ValueError:
        raise BenchError("RSS wrapper failed: %s" % done.stderr.decode("utf-8", "replace").strip()[-150:])
    # ru_maxrss is KiB on Linux, bytes on macOS.
    return maxrss / (MB if sys.platform == "darwin" else 1024), code


def validate(argv: List[str], env: Dict[str, str], expect_output: bool) -> None:
    """Run once capturing output; raise BenchError unless it behaves as the contract says."""
    done = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    if done.returncode != 0 or done.stderr:
        first = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["no stderr"])[0]
        raise BenchError("exit %d: %s" % (done.returncode, first[:120]))
    if expect_output and not done.stdout.startswith(DUMP_HEADER):
        raise BenchError("printed no dump (%d bytes of stdout)" % len(done.stdout))
    if not expect_output and done.stdout:
        raise BenchError("printed %d bytes; expected nothing" % len(done.stdout))


def rounds(commands: List[List[str]], env: Dict[str, str], runs: int, warmups: int) -> List[List[float]]:
    """Each command's wall times over ``runs`` rounds after ``warmups``, running them in
    turns (order flipped every round) so drift in the machine's load hits all alike."""
    times = [[] for _ in commands]  # type: List[List[float]]
    for i in range(warmups + runs):
        order = list(range(len(commands)))
        if i % 2:
            order.reverse()
        for j in order:
            elapsed, code = measure(commands[j], env)
            if code != 0:
                raise BenchError("%s exited %d" % (os.path.basename(commands[j][-1]), code))
            if i >= warmups:
                times[j].append(elapsed)
    return times


def interleaved(commands: List[List[str]], env: Dict[str, str], runs: int, warmups: int) -> List[float]:
    """Median wall time of each command, measured in alternating rounds."""
    return [statistics.median(t) for t in rounds(commands, env, runs, warmups)]


def round_ratios(commands: List[List[str]], env: Dict[str, str], runs: int, warmups: int):
    """Run ``commands`` in alternating rounds and return, for each command after the
    first, its per-round time ratios to the first, sorted, and the median wall time of
    every command."""
    times = rounds(commands, env, runs, warmups)
    ratios = [sorted(t / b for t, b in zip(times[j], times[0])) for j in range(1, len(commands))]
    return ratios, [statistics.median(t) for t in times]


def spread(ratios: List[float]) -> str:
    """The median of sorted per-round ratios with their quartiles and range."""
    q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
    return "%.2fx (quartiles %.2f-%.2f, range %.2f-%.2f, %d rounds)" % (
        statistics.median(ratios),
        q[0],
        q[2],
        ratios[0],
        ratios[-1],
        len(ratios),
    )


def instructions(argv: List[str], env: Dict[str, str]) -> Optional[int]:
    """Instructions one run of ``argv`` executes, counted by valgrind's callgrind (None
    without valgrind): a start-up figure the machine's load does not move."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    done = subprocess.run(
        [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null"] + argv,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        timeout=600,
    )
    found = [line for line in done.stderr.decode("ascii", "replace").splitlines() if "Collected :" in line]
    return int(found[-1].split()[-1]) if done.returncode == 0 and found else None


def startup_interpreter(chosen: Optional[str] = None) -> str:
    if chosen:
        return interpreter(chosen)
    return SYSTEM_PYTHON if os.access(SYSTEM_PYTHON, os.X_OK) else interpreter()


# --- inputs ----------------------------------------------------------------------------


def transcript(scratch: Path, size: int, seed: int) -> Path:
    """A generated transcript, reused when a previous run left a complete one here."""
    folder = scratch / "transcripts"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ("generated-%dM-seed%d.jsonl" % (size // MB, seed))
    done = path.with_suffix(".json")
    try:
        stats = json.loads(done.read_text())
        if path.stat().st_size == stats["bytes"]:
            return path
    except (OSError, ValueError, KeyError):
        pass
    progress("generating %s (%d MB) ..." % (path.name, size // MB))
    started = time.perf_counter()
    stats = write_transcript(path, size, seed=seed)
    done.write_text(json.dumps(stats))
    progress(
        "  %d lines, %d printable turns in %.1f s"
        % (stats["lines"], stats["user_turns"] + stats["assistant_turns"], time.perf_counter() - started)
    )
    return path


def project(root: Path, transcript_path: Path) -> Path:
    """A project where node a is linked to node b, whose transcript is ``transcript_path``."""
    links = root / ".termsprawl" / "links"
    index = root / ".termsprawl" / "transcripts"
    links.mkdir(parents=True, exist_ok=True)
    index.mkdir(parents=True, exist_ok=True)
    (links / "a--b.json").write_text(json.dumps({"version": 1, "a": "a", "b": "b"}))
    (index / "b.json").write_text(json.dumps({"version": 1, "path": str(transcript_path.resolve())}))
    return root


# --- the dump benchmarks -----------------------------------------------------------------


def dump_benchmarks(scratch: Path, quick: bool, python: Optional[str] = None, startup_only: bool = False) -> List[Dict]:
    sizes = QUICK if quick else FULL
    scratch.mkdir(parents=True, exist_ok=True)
    mb = lambda n: "%d MB" % (n // MB) if n < 1024 * MB else "%d GB" % (n // (1024 * MB))  # noqa: E731
    m_dump = "dump, %s vs %s transcript (time ratio)" % (mb(sizes["large"]), mb(sizes["small"]))
    m_start = "no-peer run vs python3 -I -c pass (median per-round ratio)"
    m_start_s = "the same, both with -S (no site .pth files)"
    m_peer = "one-peer dump (%s transcript) vs python3 -I -c pass (median per-round ratio)" % mb(sizes["small"])
    m_source = "the same two runs, artifact without bytecode (before)"
    m_instr = "the same two runs, instructions executed vs pass (callgrind)"
    m_rss = "peak RSS, dump of a %s transcript" % mb(sizes["huge"])
    targets = {
        m_dump: "<= %.1fx" % DUMP_RATIO_TARGET,
        m_start: "<= %.1fx" % STARTUP_RATIO_TARGET,
        m_start_s: "info",
        m_peer: "<= %.1fx" % PEER_STARTUP_TARGET,
        m_source: "info",
        m_instr: "info",
        m_rss: "<= %d MB" % RSS_TARGET_MB,
    }
    try:
        import build_zipapp

        artifact = scratch / "termsprawl-context.pyz"
        progress("building %s ..." % artifact)
        build_zipapp.build(artifact)
    except Exception as exc:  # shiv missing, or a build bug: report it in the table
        return error_rows(list(targets), targets, "build failed: %s" % exc)
    py = interpreter(python)
    spy = startup_interpreter(python)  # the start-up rows' interpreter
    rounds = STARTUP_ROUNDS if not quick else sizes["runs"] * 2
    home = scratch / "home"
    home.mkdir(exist_ok=True)
    env = clean_env(home)
    rows = []

    def attempt(metric: str, how) -> None:
        try:
            rows.append(how())
        except BenchError as exc:
            rows.extend(error_rows([metric], targets, str(exc)))
        except (OSError, subprocess.SubprocessError) as exc:
            rows.extend(error_rows([metric], targets, "%s: %s" % (type(exc).__name__, exc)))

    def dump_ratio():
        small = project(scratch / "project-small", transcript(scratch, sizes["small"], seed=1))
        large = project(scratch / "project-large", transcript(scratch, sizes["large"], seed=2))
        commands = [[py, str(artifact), "--cwd", str(p), "--self", "a"] for p in (large, small)]
        for command in commands:
            validate(command, env, expect_output=True)
        progress("timing the dumps (%d interleaved runs) ..." % sizes["runs"])
        t_large, t_small = interleaved(commands, env, sizes["runs"], sizes["warmups"])
        ratio = t_large / t_small
        return row(
            m_dump,
            "%.2fx (%.1f / %.1f ms)" % (ratio, t_large * 1e3, t_small * 1e3),
            targets[m_dump],
            ratio <= DUMP_RATIO_TARGET,
        )

    def startup_ratio(flags: List[str], metric: str):
        empty = scratch / "empty-project"
        empty.mkdir(exist_ok=True)
        run = [spy] + flags + [str(artifact), "--cwd", str(empty), "--self", "x"]
        validate(run, env, expect_output=False)
        progress("timing the no-peer run %s(%d alternating rounds) ..." % (" ".join(flags + [""]), rounds))
        base = [spy, "-I"] + flags + ["-c", "pass"]
        (ratios,), medians = round_ratios([base, run], env, rounds, sizes["warmups"])
        # The -S row has no target of its own (the target is the plain run):
        # it shows our share once site's .pth files stop inflating both sides.
        return row(
            metric, "%s; %.1f / %.1f ms" % (spread(ratios), medians[1] * 1e3, medians[0] * 1e3), targets[metric], None
        )

    def instruction_row(commands: List[List[str]]):
        counts = [instructions(command, env) for command in commands]
        if None in counts:
            return row(m_instr, "not measured (no valgrind)", targets[m_instr], None)
        return row(
            m_instr,
            "no-peer %.2fx, 1 MB peer %.2fx (%.1fM, %.1fM / %.1fM)"
            % (counts[1] / counts[0], counts[2] / counts[0], counts[1] / 1e6, counts[2] / 1e6, counts[0] / 1e6),
            targets[m_instr],
            None,
        )

    def startup_rows():
        """No-peer and 1 MB-peer runs against the system interpreter's bare start, with
        and without the artifact's bytecode, all in one set of alternating rounds; each
        figure is the median of per-round ratios."""
        source_only = scratch / "termsprawl-context-source-only.pyz"
        build_zipapp.build(source_only, pythons=[])
        empty = scratch / "empty-project"
        empty.mkdir(exist_ok=True)
        small = project(scratch / "project-small", transcript(scratch, sizes["small"], seed=1))
        names = ["pass", "no-peer", "peer", "no-peer (source)", "peer (source)"]
        commands = [[spy, "-I", "-c", "pass"]]
        for art in (artifact, source_only):
            commands.append([spy, str(art), "--cwd", str(empty), "--self", "x"])
            commands.append([spy, str(art), "--cwd", str(small), "--self", "a"])
        for i, command in enumerate(commands[1:]):
            validate(command, env, expect_output=i % 2 == 1)
        progress("timing start-up with %s, with and without bytecode (%d alternating rounds) ..." % (spy, rounds))
        ratios, medians = round_ratios(commands, env, rounds, sizes["warmups"])
        x = dict(zip(names[1:], ratios))
        ms = dict((name, "%.1f" % (t * 1e3)) for name, t in zip(names, medians))
        return [
            row(
                m_start,
                "%s; %s / %s ms" % (spread(x["no-peer"]), ms["no-peer"], ms["pass"]),
                targets[m_start],
                statistics.median(x["no-peer"]) <= STARTUP_RATIO_TARGET,
            ),
            row(
                m_peer,
                "%s; %s / %s ms" % (spread(x["peer"]), ms["peer"], ms["pass"]),
                targets[m_peer],
                statistics.median(x["peer"]) <= PEER_STARTUP_TARGET,
            ),
            instruction_row(commands[:3]),
            row(
                m_source,
                "no-peer %.2fx (%s ms), 1 MB peer %.2fx (%s ms)"
                % (
                    statistics.median(x["no-peer (source)"]),
                    ms["no-peer (source)"],
                    statistics.median(x["peer (source)"]),
                    ms["peer (source)"],
                ),
                targets[m_source],
                None,
            ),
        ]

    def attempt_rows(metrics: List[str], how) -> None:
        try:
            rows.extend(how())
        except BenchError as exc:
            rows.extend(error_rows(metrics, targets, str(exc)))
        except (OSError, subprocess.SubprocessError, build_zipapp.BuildError) as exc:
            rows.extend(error_rows(metrics, targets, "%s: %s" % (type(exc).__name__, exc)))

    def huge_dump_rss():
        huge = project(scratch / "project-huge", transcript(scratch, sizes["huge"], seed=3))
        command = [py, str(artifact), "--cwd", str(huge), "--self", "a"]
        validate(command, env, expect_output=True)
        progress("measuring peak RSS (%d runs) ..." % sizes["rss_runs"])
        peaks = []
        for _ in range(sizes["rss_runs"]):
            rss, code = peak_rss(command, env)
            if code != 0:
                raise BenchError("exited %d" % code)
            peaks.append(rss)
        base = max(peak_rss([py, "-I", "-c", "pass"], env)[0] for _ in range(sizes["rss_runs"]))
        return row(
            m_rss,
            "%.1f MB (python3 -I -c pass: %.1f MB)" % (max(peaks), base),
            targets[m_rss],
            max(peaks) <= RSS_TARGET_MB,
        )

    if not startup_only:
        attempt(m_dump, dump_ratio)
    attempt_rows([m_start, m_peer, m_instr, m_source], startup_rows)
    # site's .pth files (an interpreter's installed packages) can cost more than the
    # whole run and shrink the ratio above; -S shows the artifact's own share.
    attempt(m_start_s, lambda: startup_ratio(["-S"], m_start_s))
    if not startup_only:
        attempt(m_rss, huge_dump_rss)
    return rows


# --- other benchmark modules -------------------------------------------------------------


def bench_modules() -> List[str]:
    return sorted(p.stem for p in BENCH_DIR.glob("bench_*.py"))


def module_rows(name: str, scratch: Path, quick: bool) -> List[Dict]:
    try:
        module = importlib.import_module("benchmarks." + name)
        run = getattr(module, "run", None)
        if run is None:
            return []  # a helper module, not a benchmark
        folder = scratch / name
        folder.mkdir(parents=True, exist_ok=True)
        rows = list(run(folder, quick))
        for r in rows:
            missing = {"metric", "measured", "target", "ok"} - set(r)
            if missing:
                raise BenchError("row without %s: %r" % (", ".join(sorted(missing)), r))
        return rows
    except Exception as exc:  # one broken module must not hide the others' rows
        return [row(name, "error: %s: %s" % (type(exc).__name__, str(exc)[:150]), "", "ERROR")]


# --- output --------------------------------------------------------------------------------


def progress(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def verdict(ok) -> str:
    if ok is True:
        return "yes"
    if ok is False:
        return "NO"
    return "info" if ok is None else str(ok)


def table(rows: List[Dict]) -> str:
    cells = [["metric", "measured", "target", "ok"]]
    cells += [[str(r["metric"]), str(r["measured"]), str(r["target"]), verdict(r["ok"])] for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(4)]
    lines = [" | ".join(c[i].ljust(widths[i]) for i in range(4)).rstrip() for c in cells]
    lines.insert(1, "-|-".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"


def selected(only: Optional[List[str]], name: str) -> bool:
    if not only:
        return True
    short = name[len("bench_") :] if name.startswith("bench_") else name
    return name in only or short in only


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Run termsprawl-context's benchmarks; print one table.")
    parser.add_argument("--quick", action="store_true", help="small sizes and fewer runs (a smoke test)")
    parser.add_argument("--scratch", type=Path, help="work dir, kept afterwards (default: a temp dir, removed)")
    parser.add_argument("--python", help="interpreter for the artifact's runs (default: this one, resolved)")
    parser.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help="run only 'dump' or a bench module (store or bench_store); repeatable",
    )
    parser.add_argument(
        "--startup-only",
        action="store_true",
        help="of the dump benchmarks, only the start-up rows (no 500 MB or 1 GB transcripts)",
    )
    args = parser.parse_args(argv)
    known = ["dump"] + bench_modules()
    for name in args.only or []:
        if not any(selected([name], k) for k in known):
            parser.error("unknown benchmark %r (known: %s)" % (name, ", ".join(known)))
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="termsprawl-bench-"))
    scratch.mkdir(parents=True, exist_ok=True)
    scratch = scratch.resolve()
    rows = []  # type: List[Dict]
    try:
        if selected(args.only, "dump"):
            rows += dump_benchmarks(scratch / "dump", args.quick, args.python, args.startup_only)
        for name in bench_modules():
            if selected(args.only, name):
                progress("running %s ..." % name)
                rows += module_rows(name, scratch, args.quick)
    finally:
        if args.scratch is None:
            shutil.rmtree(str(scratch), ignore_errors=True)
    print("# artifact run with %s; %s sizes" % (interpreter(args.python), "quick" if args.quick else "full"))
    sys.stdout.write(table(rows))
    return 0 if all(r["ok"] is True or r["ok"] is None for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
