#!/usr/bin/env python3
"""locate and assemble-file: ours, the seed (the anchor) and the floor, side by side.

    python3 benchmarks/bench_store.py [--quick] [--scratch DIR]

Every figure is a whole process (the artifact, built fresh from src/ into the scratch
dir, run by the real interpreter in a clean environment), timed in interleaved rounds
(the order flipped every round) after the inputs were read once into the page cache;
each ratio is the median of the per-round ratios, so the machine's drift cancels out.

Rows (full sizes; ``--quick`` divides them by about ten):
* ``locate``, a store of 300 sessions of 1 MB (``benchmarks/generate.py``, 20 project
  directories, one fork holding a copy of its parent's first half): ours in one
  process, against the seed's algorithm (``benchmarks/seed_reference.py``: every line
  of every file parsed) and the floor (``grep -rlF``; a Python loop that only
  ``readinto``s and ``find``s every file). Probes: a session by its id, a message in
  the middle of a session, a message held by a parent and its fork, an absent uuid;
  the answers must equal the seed's.
* ``locate`` of a 1 GB session by its own id (in a store with a few small sessions).
* ``assemble-file`` of a 300 MB transcript: against the seed and against the floor,
  a loop that only ``json.loads`` every line; the output must equal the seed's.
* The same locate and assemble-file rows in two processes (``TERMSPRAWL_JOBS=2``),
  only when a second core is idle (measured from /proc/stat over a second); otherwise
  the row says it was not measured and why.
* Sharing costs, always: the wall time to fork a helper and collect its answer,
  assemble-file's parse and merge costs per MB and locate's per MB, and the break-even
  sizes they imply, beside ``PARALLEL_MIN_BYTES`` of assemble.py and locate.py.
* The threshold probe: assemble-file in one and two processes on files of 2, 8 and
  32 MB, and locate on stores of 16, 48 and 128 MB, for information, when a second
  core is idle: the same break-even, seen from whole runs.
"""

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.generate import write_transcript  # noqa: E402
from benchmarks.run import clean_env, interpreter, measure  # noqa: E402

MiB = 1 << 20
SEED_REFERENCE = REPO / "benchmarks" / "seed_reference.py"
FULL = {
    "files": 300,
    "file_size": 1 * MiB,
    "big": 1024 * MiB,
    "transcript": 300 * MiB,
    "rounds": 5,
    "warmups": 1,
    "probe_sizes": [2, 8, 32],
    "probe_stores": [16, 48, 128],
}
QUICK = {
    "files": 40,
    "file_size": 1 * MiB,
    "big": 100 * MiB,
    "transcript": 30 * MiB,
    "rounds": 3,
    "warmups": 1,
    "probe_sizes": [2, 8],
    "probe_stores": [8, 32],
}
LOCATE_TARGET = 5.0  # at least 5x the seed
ASSEMBLE_TARGET = 1.0  # at least as fast as the bare json.loads loop, with both cores
IDLE_CORE = 0.85  # a second core counts as idle when this much of one CPU sat idle

# The floor of a byte search: read every store file into one buffer and find the uuid.
_FIND_FLOOR = r"""
import glob, os, sys
needle = sys.argv[2].encode()
buf = bytearray(1 << 20)
found = []
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*", "*.jsonl"))):
    with open(path, "rb", buffering=0) as f:
        while True:
            got = f.readinto(buf)
            if not got:
                break
            if buf.find(needle, 0, got) >= 0:
                found.append(path)
                break
print(len(found))
"""

# What sharing a scan costs and saves, measured in one process importing src/: the wall
# time to fork a helper and collect its (empty) answer, assemble-file's parse and merge
# costs per MB, and locate's phase 1 per MB; then the break-even sizes they imply.
_SHARING_COSTS = r"""
import glob, marshal, sys, time
sys.path.insert(0, sys.argv[1])
from termsprawl_context.store import assemble as A, locate as L, parallel
walls = []
for _ in range(40):
    start = time.perf_counter()
    parallel.map_shared(lambda x: x, [1, 2], [1, 1], 0, 2)
    walls.append(time.perf_counter() - start)
fork = sorted(walls)[len(walls) // 2]
mb = 1 << 20
with open(sys.argv[2], "rb") as f:
    size = min(32 * mb, len(f.read()))
    start = time.perf_counter()
    records = A._range_records(f, (0, size))
    parse = (time.perf_counter() - start) / (size / mb)
data = marshal.dumps(records)
start = time.perf_counter()
A.replay(A.Timeline(lambda offset, length, flags: b""), [marshal.loads(data)])
merge = (time.perf_counter() - start) / (size / mb)
files = sorted(glob.glob(sys.argv[3] + "/*/*.jsonl"))[:32]
spellings = L.UuidSpellings("0badc0de-0000-4000-8000-000000000000")
start = time.perf_counter()
for path in files:
    L._phase_one(path, "0badc0de-0000-4000-8000-000000000000", spellings)
scan = (time.perf_counter() - start) / (sum(__import__("os").path.getsize(p) for p in files) / mb)
print("fork+collect %.2f ms; assemble-file parse %.1f ms/MB, merge %.2f ms/MB: break-even %.2f MB "
      "(threshold %d MB); locate %.2f ms/MB: break-even %.1f MB (threshold %d MB)" % (
      fork * 1e3, parse * 1e3, merge * 1e3, 2 * fork / (parse - merge), A.PARALLEL_MIN_BYTES // mb,
      scan * 1e3, 2 * fork / scan, L.PARALLEL_MIN_BYTES // mb))
"""

# The floor of a full parse: json.loads every line, nothing kept.
_PARSE_FLOOR = r"""
import json, sys
with open(sys.argv[1], "rb") as f:
    for line in f:
        try:
            json.loads(line)
        except ValueError:
            pass
"""


# --- inputs --------------------------------------------------------------------------------


def _session_id(i: int) -> str:
    return "%08x-5e55-4000-8000-%012x" % (i, i)


def _write(path: Path, size: int, seed: int, session_id: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_transcript(path, size, seed=seed, session_id=session_id)


def _message_uuids(path: Path, where: float) -> str:
    """The uuid of the message line nearest ``where`` (0..1) of the file's lines."""
    with open(str(path), "rb") as f:
        lines = f.read().splitlines()
    for raw in lines[int(len(lines) * where) :]:
        try:
            uuid = json.loads(raw).get("uuid")
        except ValueError:
            continue
        if isinstance(uuid, str):
            return uuid
    raise RuntimeError("no message in %s" % path)


def ensure_inputs(scratch: Path, sizes: Dict) -> Dict:
    """Generate (or reuse) the stores and the transcript; the manifest names the probes."""
    manifest_path = scratch / "manifest.json"
    params = {k: sizes[k] for k in ("files", "file_size", "big", "transcript")}
    params["version"] = 5
    try:
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("params") == params:
            return manifest
    except (OSError, ValueError):
        pass
    if scratch.exists():
        shutil.rmtree(str(scratch))
    scratch.mkdir(parents=True)
    progress("generating the %d-session store ..." % sizes["files"])
    store = scratch / "store"
    paths = []
    for i in range(sizes["files"]):
        path = store / ("-work-proj-%02d" % (i % 20)) / (_session_id(i) + ".jsonl")
        _write(path, sizes["file_size"], 1000 + i, _session_id(i))
        paths.append(path)
    # A fork: a new session whose first half is a copy of session 7's.
    with open(str(paths[7]), "rb") as f:
        parent = f.read()
    half = parent[: parent.rfind(b"\n", 0, len(parent) // 2) + 1]
    fork = store / "-work-proj-19" / (_session_id(10**6) + ".jsonl")
    fork.write_bytes(
        half + b'{"type":"user","uuid":"f0f0f0f0-0000-4000-8000-000000000001",'
        b'"timestamp":"2099-01-01T00:00:00.000Z","sessionId":"fork","message":{"content":"x"}}\n'
    )
    probes = [
        ("session id", _session_id(sizes["files"] // 2)),
        ("message", _message_uuids(paths[sizes["files"] // 3], 0.5)),
        ("fork", _message_uuids(paths[7], 0.25)),
        ("absent", "0badc0de-0000-4000-8000-000000000000"),
    ]
    progress("generating the %d MB session ..." % (sizes["big"] // MiB))
    big_store = scratch / "big-store"
    big_id = _session_id(777777)
    _write(big_store / "-work-big" / (big_id + ".jsonl"), sizes["big"], 7, big_id)
    for i in range(5):
        _write(big_store / "-work-small" / (_session_id(800000 + i) + ".jsonl"), MiB, 2000 + i, _session_id(800000 + i))
    progress("generating the %d MB transcript ..." % (sizes["transcript"] // MiB))
    transcript = scratch / "transcript.jsonl"
    _write(transcript, sizes["transcript"], 3, None)
    manifest = {
        "params": params,
        "store": str(store),
        "probes": probes,
        "big_store": str(big_store),
        "big_id": big_id,
        "transcript": str(transcript),
    }
    manifest_path.write_text(json.dumps(manifest))
    return manifest


def warm(root: Path) -> None:
    """Read every file once so the timed runs read from the page cache."""
    for path in [root] if root.is_file() else sorted(root.rglob("*.jsonl")):
        with open(str(path), "rb", buffering=0) as f:
            buf = bytearray(1 << 20)
            while f.readinto(buf):
                pass


# --- measuring -----------------------------------------------------------------------------


def idle_cores(seconds: float = 1.0) -> float:
    """How many CPUs sat idle over ``seconds`` (from /proc/stat); the CPU count where
    there is no /proc."""

    def sample():
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
        return fields[3] + fields[4], sum(fields)  # idle + iowait, total

    try:
        idle0, total0 = sample()
        time.sleep(seconds)
        idle1, total1 = sample()
    except (OSError, ValueError, IndexError):
        return float(os.cpu_count() or 1)
    cpus = os.cpu_count() or 1
    return cpus * (idle1 - idle0) / max(1, total1 - total0)


def rounds(
    commands: Dict[str, List[str]], env: Dict[str, str], n: int, warmups: int, ok_codes=(0,)
) -> Dict[str, List[float]]:
    """Wall times of each command over ``n`` interleaved rounds (order flipped every round)."""
    names = list(commands)
    times = {name: [] for name in names}  # type: Dict[str, List[float]]
    for i in range(warmups + n):
        for name in names if i % 2 == 0 else names[::-1]:
            elapsed, code = measure(commands[name], env)
            if code not in ok_codes:
                raise RuntimeError("%s exited %d" % (name, code))
            if i >= warmups:
                times[name].append(elapsed)
    return times


def ratio(times: Dict[str, List[float]], slow: str, fast: str) -> float:
    """The median over rounds of slow/fast."""
    return statistics.median(a / b for a, b in zip(times[slow], times[fast]))


def med(times: Dict[str, List[float]], name: str) -> float:
    return statistics.median(times[name])


def output(argv: List[str], env: Dict[str, str]) -> Tuple[int, bytes]:
    done = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=3600)
    return done.returncode, done.stdout


def progress(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


# --- the rows ---------------------------------------------------------------------------------


class Bench(object):
    def __init__(self, scratch: Path, quick: bool, python: Optional[str] = None) -> None:
        self.sizes = QUICK if quick else FULL
        self.scratch = scratch
        self.py = interpreter(python)
        home = scratch / "home"
        home.mkdir(parents=True, exist_ok=True)
        self.env = clean_env(home)
        self.env1 = dict(self.env, TERMSPRAWL_JOBS="1")
        self.env2 = dict(self.env, TERMSPRAWL_JOBS="2")
        self.artifact = scratch / "termsprawl-context.pyz"
        import build_zipapp

        progress("building %s ..." % self.artifact)
        build_zipapp.build(self.artifact)

    def ours(self, *args: str) -> List[str]:
        return [self.py, str(self.artifact)] + list(args)

    def seed(self, *args: str) -> List[str]:
        return [self.py, str(SEED_REFERENCE)] + list(args)

    def second_core(self) -> Tuple[bool, str]:
        idle = idle_cores()
        if (os.cpu_count() or 1) < 2:
            return False, "one CPU"
        return idle >= 1 + IDLE_CORE, "%.2f of %d CPUs idle" % (idle, os.cpu_count() or 1)

    def locate_rows(self, manifest: Dict) -> List[Dict]:
        store = manifest["store"]
        warm(Path(store))
        rows = []
        agree = []
        for kind, uuid in manifest["probes"]:
            code, ours = output(self.ours("locate", uuid, "--projects-dir", store), self.env1)
            code2, ours2 = output(self.ours("locate", uuid, "--projects-dir", store), self.env2)
            _, seed = output(self.seed("locate", uuid, store), self.env)
            agree.append((kind, ours == seed == ours2 and code == code2))
        rows.append(
            dict(
                metric="locate answers identical to the seed's (one and two processes)",
                measured="%d/%d probes (%s)" % (sum(ok for _, ok in agree), len(agree), ", ".join(k for k, _ in agree)),
                target="all",
                ok=all(ok for _, ok in agree),
            )
        )
        files = len(list(Path(store).glob("*/*.jsonl")))
        size = sum(p.stat().st_size for p in Path(store).glob("*/*.jsonl"))
        for kind, uuid in manifest["probes"]:
            if kind not in ("session id", "message"):
                continue
            commands = {
                "ours": self.ours("locate", uuid, "--projects-dir", store),
                "seed": self.seed("locate", uuid, store),
                "grep": ["/bin/grep", "-rlF", uuid, store],
                "find": [self.py, "-c", _FIND_FLOOR, store, uuid],
            }
            progress("timing locate of a %s (%d rounds) ..." % (kind, self.sizes["rounds"]))
            t = rounds(commands, self.env1, self.sizes["rounds"], self.sizes["warmups"], ok_codes=(0, 1))
            speedup = ratio(t, "seed", "ours")
            rows.append(
                dict(
                    metric="locate of a %s, %d x %d MB" % (kind, files, size // files // MiB or 1),
                    measured="ours %.3f s | seed %.3f s (%.1fx) | floor: grep -rlF %.3f s, readinto+find %.3f s (ours %.1fx find)"
                    % (
                        med(t, "ours"),
                        med(t, "seed"),
                        speedup,
                        med(t, "grep"),
                        med(t, "find"),
                        ratio(t, "ours", "find"),
                    ),
                    target=">= %.0fx the seed" % LOCATE_TARGET,
                    ok=speedup >= LOCATE_TARGET,
                )
            )
        big_store, big_id = manifest["big_store"], manifest["big_id"]
        warm(Path(big_store))
        commands = {
            "ours": self.ours("locate", big_id, "--projects-dir", big_store),
            "seed": self.seed("locate", big_id, big_store),
            "find": [self.py, "-c", _FIND_FLOOR, big_store, big_id],
        }
        progress("timing locate of the big session by its id ...")
        t = rounds(commands, self.env1, max(2, self.sizes["rounds"] - 2), self.sizes["warmups"])
        speedup = ratio(t, "seed", "ours")
        rows.append(
            dict(
                metric="locate of a %d MB session by its own id" % (self.sizes["big"] // MiB),
                measured="ours %.3f s | seed %.2f s (%.0fx) | floor readinto+find %.3f s"
                % (med(t, "ours"), med(t, "seed"), speedup, med(t, "find")),
                target=">= %.0fx the seed" % LOCATE_TARGET,
                ok=speedup >= LOCATE_TARGET,
            )
        )
        idle, why = self.second_core()
        metric = "locate of a message, %d x 1 MB, two processes vs one" % files
        uuid = dict(manifest["probes"])["message"]
        if not idle:
            rows.append(
                dict(metric=metric, measured="not measured: no idle second core (%s)" % why, target="info", ok=None)
            )
        else:
            commands = {
                "one": self.ours("locate", uuid, "--projects-dir", store),
                "find": [self.py, "-c", _FIND_FLOOR, store, uuid],
            }
            two = {"two": self.ours("locate", uuid, "--projects-dir", store)}
            t = rounds(commands, self.env1, self.sizes["rounds"], self.sizes["warmups"], ok_codes=(0, 1))
            t.update(rounds(two, self.env2, self.sizes["rounds"], self.sizes["warmups"]))
            rows.append(
                dict(
                    metric=metric,
                    measured="two %.3f s | one %.3f s (%.2fx) | floor readinto+find %.3f s (%s)"
                    % (med(t, "two"), med(t, "one"), med(t, "one") / med(t, "two"), med(t, "find"), why),
                    target="info",
                    ok=None,
                )
            )
        return rows

    def assemble_rows(self, manifest: Dict) -> List[Dict]:
        path = manifest["transcript"]
        warm(Path(path))
        size_mb = os.path.getsize(path) // MiB
        digests = []
        for argv, env in (
            (self.ours("assemble-file", path), self.env1),
            (self.ours("assemble-file", path), self.env2),
            (self.seed("assemble-file", path), self.env),
        ):
            code, out = output(argv, env)
            digests.append((code, hashlib.sha256(out).hexdigest(), out.count(b"\n")))
        rows = [
            dict(
                metric="assemble-file output identical to the seed's (one and two processes)",
                measured="%d lines, %s"
                % (digests[0][2], "identical" if len(set(digests)) == 1 else "DIFFERENT: %r" % (digests,)),
                target="identical",
                ok=len(set(digests)) == 1,
            )
        ]
        commands = {
            "ours": self.ours("assemble-file", path),
            "seed": self.seed("assemble-file", path),
            "floor": [self.py, "-c", _PARSE_FLOOR, path],
        }
        progress("timing assemble-file of %d MB (%d rounds) ..." % (size_mb, self.sizes["rounds"]))
        t = rounds(commands, self.env1, self.sizes["rounds"], self.sizes["warmups"])
        rows.append(
            dict(
                metric="assemble-file %d MB, one process" % size_mb,
                measured="ours %.2f s | seed %.2f s (%.2fx) | floor json.loads loop %.2f s (floor/ours %.2f)"
                % (
                    med(t, "ours"),
                    med(t, "seed"),
                    ratio(t, "seed", "ours"),
                    med(t, "floor"),
                    ratio(t, "floor", "ours"),
                ),
                target="info",
                ok=None,
            )
        )
        idle, why = self.second_core()
        metric = "assemble-file %d MB, two processes: floor / ours" % size_mb
        if not idle:
            rows.append(
                dict(
                    metric=metric,
                    measured="not measured: no idle second core (%s)" % why,
                    target=">= %.1f" % ASSEMBLE_TARGET,
                    ok=None,
                )
            )
        else:
            one = {"floor": [self.py, "-c", _PARSE_FLOOR, path], "seed": self.seed("assemble-file", path)}
            two = {"ours": self.ours("assemble-file", path)}
            t = {}
            for _ in range(self.sizes["rounds"]):  # interleave the two environments round by round
                for name, got in list(rounds(one, self.env, 1, 0).items()) + list(rounds(two, self.env2, 1, 0).items()):
                    t.setdefault(name, []).extend(got)
            r = ratio(t, "floor", "ours")
            rows.append(
                dict(
                    metric=metric,
                    measured="ours %.2f s | seed %.2f s (%.2fx) | floor %.2f s = %.2f (%s)"
                    % (med(t, "ours"), med(t, "seed"), ratio(t, "seed", "ours"), med(t, "floor"), r, why),
                    target=">= %.1f" % ASSEMBLE_TARGET,
                    ok=r >= ASSEMBLE_TARGET,
                )
            )
        return rows

    def threshold_rows(self, manifest: Dict) -> List[Dict]:
        """Where sharing starts to pay: its measured costs (always), then one vs two
        processes on growing inputs (only with an idle second core)."""
        code, out = output(
            [self.py, "-c", _SHARING_COSTS, str(REPO / "src"), manifest["transcript"], manifest["store"]], self.env
        )
        rows = [
            dict(
                metric="sharing costs and the break-even they imply",
                measured=out.decode().strip() if code == 0 else "error: exit %d" % code,
                target="info",
                ok=None if code == 0 else "ERROR",
            )
        ]
        idle, why = self.second_core()
        metric = "threshold probe: two processes / one, by size"
        if not idle:
            return rows + [
                dict(metric=metric, measured="not measured: no idle second core (%s)" % why, target="info", ok=None)
            ]
        found = []
        folder = self.scratch / "threshold"
        for mb in self.sizes["probe_sizes"]:
            path = folder / ("t%d.jsonl" % mb)
            if not path.exists():
                _write(path, mb * MiB, 50 + mb, None)
            t = {}
            for _ in range(self.sizes["rounds"] + 2):
                for name, env in (("one", self.env1), ("two", self.env2)):
                    t.setdefault(name, []).extend(
                        rounds({name: self.ours("assemble-file", str(path))}, env, 1, 0)[name]
                    )
            found.append("assemble-file %d MB %.2f" % (mb, ratio(t, "two", "one")))
        for mb in self.sizes["probe_stores"]:
            store = folder / ("s%d" % mb)
            if not store.exists():
                for i in range(mb):
                    _write(store / "p" / (_session_id(900000 + i) + ".jsonl"), MiB, 90 + i, _session_id(900000 + i))
            t = {}
            argv = self.ours("locate", "0badc0de-0000-4000-8000-000000000000", "--projects-dir", str(store))
            for _ in range(self.sizes["rounds"] + 2):
                for name, env in (("one", self.env1), ("two", self.env2)):
                    t.setdefault(name, []).extend(rounds({name: argv}, env, 1, 0, ok_codes=(1,))[name])
            found.append("locate %d MB %.2f" % (mb, ratio(t, "two", "one")))
        return rows + [dict(metric=metric, measured="; ".join(found) + " (%s)" % why, target="info", ok=None)]


def run(scratch: Path, quick: bool = False, python: Optional[str] = None) -> List[Dict]:
    """Generate inputs under ``scratch`` (reused when present) and measure; one row per
    metric: dict(metric, measured, target, ok)."""
    scratch = Path(scratch)
    bench = Bench(scratch, quick, python)
    manifest = ensure_inputs(scratch / ("quick" if quick else "full"), bench.sizes)
    rows = bench.locate_rows(manifest)
    rows += bench.assemble_rows(manifest)
    rows += bench.threshold_rows(manifest)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small inputs, a few rounds")
    parser.add_argument(
        "--scratch",
        default=os.path.join(tempfile.gettempdir(), "termsprawl-bench-store"),
        help="where inputs are generated and kept (default: %(default)s)",
    )
    parser.add_argument("--python", help="interpreter for the runs (default: this one, resolved)")
    args = parser.parse_args(argv)
    rows = run(Path(args.scratch), quick=args.quick, python=args.python)
    width = max(len(row["metric"]) for row in rows)
    for row in rows:
        verdict = {True: "ok", False: "FAIL", None: "info"}[row["ok"]]
        print("%-4s %-*s  %s  (target %s)" % (verdict, width, row["metric"], row["measured"], row["target"]))
    return 0 if all(row["ok"] is not False for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
