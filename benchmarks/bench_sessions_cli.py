"""`sessions --json` and `find`, whole processes, on the issue's two store shapes.

Stores (kept in the scratch dir and reused when their marker file is there):

* ``tool``: 10,000 sessions (``quick``: 500) of large tool results, written by
  ``generate.write_transcript`` at log-normal sizes (median 242 KB, capped at 20 MB): 400
  distinct bodies (``quick``: 40), each hard-linked under many session names across 40
  folders, so the store costs the bodies' disk space. (Hard links share page-cache pages:
  every run reads warm pages, as the issue's figures were measured.)
* ``real``: 10,000 real-shaped sessions (``quick``: 500): ``bench_sessions.generate_store``
  (Claude Code 2.1 lines, sizes uniform 1 KB-50 MB, sparse, summaries naming other sessions).

Rows, each ours / anchor / floor, measured in alternating rounds (order flipped each round),
each ratio the median of the per-round ratios, of **CPU time** (user + system of the child,
from ``resource.getrusage(RUSAGE_CHILDREN)``, ours with ``TERMSPRAWL_JOBS=1``: what one core
does) or of **wall time** (what a user waits; ours as users run it, with default jobs), as each
row says. On a shared machine wall time mostly measures the neighbours: read it from a quiet run.

* ``sessions --json`` ours vs main as the issue was filed (``FILED_REV``, before issue 15's
  title rules: the issue's "today", in wall time with ours as users run it, both cores, the
  target row) and vs the previous implementation (``PREVIOUS_REV``, the same answers as ours),
  each exported with ``git archive`` into the scratch dir and run the same way, in wall time
  and in CPU time of one process; and vs the floor:
  a process that walks the store and reads each session's head (blocks up to its 50th
  newline within 1 MiB) and its last 64 KiB, parsing nothing.
* the same listing's answers: ours in one process, in two, and the previous one print the
  same bytes.
* ``sessions --json`` in two processes vs one (wall time), only when a second CPU is idle.
* ``find`` of an ambiguous prefix vs a unique one (a whole id), on the real-shaped store.
* the sharing threshold: one helper's fork + collect cost beside one session's CPU cost.
* the peers (``benchmarks/peers.py``: claude-conversation-extractor, claude-history, ccusage, each listing
  every session of the store) against ours, on both stores, in **wall time** of whole processes (wall time is
  what a user waits, and ours with default jobs works in two processes): ours as users run it (default jobs,
  both cores) and with ``TERMSPRAWL_JOBS=1``, medians of per-round ratios over alternating rounds. A peer whose
  first run takes over ``SLOW_PEER_FULL`` seconds (``quick``: ``SLOW_PEER_QUICK``) is run once; one killed at
  ``PEER_TIMEOUT_FULL`` (``quick``: ``PEER_TIMEOUT_QUICK``) gives a lower bound; one that fails is shown, with
  no verdict. They run from ``--peers DIR`` or ``$TERMSPRAWL_BENCH_PEERS`` (made by
  ``python3 benchmarks/peers.py setup DIR``); an absent one is an ERROR row saying how to install it.

Both sides run as ``python -m termsprawl_context`` from a source tree (``PYTHONPATH``), in
``PATH=/usr/bin:/bin HOME=<empty dir> LANG=C.UTF-8``.

    python3 benchmarks/bench_sessions_cli.py [--quick] [--scratch DIR] [--peers DIR] [--peers-only]
"""

import argparse
import os
import pathlib
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

REPO = pathlib.Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
if str(REPO / "src") not in sys.path:
    sys.path.insert(0, str(REPO / "src"))

from benchmarks import bench_sessions, peers  # noqa: E402
from benchmarks.bench_store import idle_cores  # noqa: E402
from benchmarks.generate import write_transcript  # noqa: E402

# The source the listing is compared with: main before the one-pass head and the shared listing
# (the same answers as ours), and main as it was when the issue was filed, before the title rules
# of issue 15 (the summary index, tail titles, the typed prompt) were added: "today" in its table.
# $TERMSPRAWL_BENCH_PREVIOUS_REV names another (a fast path's last commit, to measure what it bought).
PREVIOUS_REV = os.environ.get("TERMSPRAWL_BENCH_PREVIOUS_REV") or "15bc9c9310fd913c76b21187f685f56dff72aab6"
FILED_REV = "b747df7"
SESSIONS_FULL, SESSIONS_QUICK = 10000, 500
BODIES_FULL, BODIES_QUICK = 400, 40
TOOL_MEDIAN_BYTES = 242 * 1024
TOOL_MAX_BYTES = 20 << 20
FOLDERS = 40
ROUNDS_FULL, ROUNDS_QUICK = 5, 3
IDLE_CORE = 0.85
# The target for an ambiguous prefix: at most twice a unique one.
FIND_TARGET = 2.0
SESSIONS_TARGET = 2.0  # "at least 2x faster than today" (the real-shaped row)
# "Ahead of every peer on every store shape": peer / ours (wall) above this.
PEER_TARGET = 1.0
# On the real-shaped store (sparse files, 1 KB-50 MB) a whole-file reader reads ~250 GB: peers are stopped here.
PEER_TIMEOUT_FULL, PEER_TIMEOUT_QUICK = 120, 30
# A peer whose first run takes longer is not run again: one run is enough beside seconds of difference
# (``quick`` is a smoke test: a lower bar).
SLOW_PEER_FULL, SLOW_PEER_QUICK = 30, 5

# The floor: the same bytes read, nothing parsed. Kept in step with session_scan's bounds.
FLOOR = r"""
import os, sys
HEAD_LINES, HEAD_MAX, BLOCK, TAIL = 50, 1 << 20, 1 << 16, 1 << 16
head, tail = bytearray(HEAD_MAX), bytearray(TAIL)
stack = [sys.argv[1]]
while stack:
    d = stack.pop()
    for e in sorted(os.scandir(d), key=lambda e: e.name):
        if e.is_dir(follow_symlinks=False):
            stack.append(e.path)
            continue
        if not e.name.endswith(".jsonl") or len(e.name) != 42 or e.name.startswith("agent-"):
            continue
        with open(e.path, "rb", buffering=0) as f:
            size = os.fstat(f.fileno()).st_size
            total = lines = 0
            view = memoryview(head)
            while total < HEAD_MAX and lines < HEAD_LINES:
                got = f.readinto(view[total:total + BLOCK])
                if not got:
                    break
                lines += head.count(b"\n", total, total + got)
                total += got
            if size > total:
                f.seek(max(0, size - TAIL))
                f.readinto(tail)
"""


def progress(message):
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def tool_store(root, count, bodies):
    """The large-tool-results store (see the module); returns its projects dir."""
    projects = root / "projects"
    marker = root / ("done-%d-%d" % (count, bodies))
    if marker.exists():
        return projects
    shutil.rmtree(str(root), ignore_errors=True)
    rng = random.Random(14)
    made = root / "bodies"
    made.mkdir(parents=True)
    paths = []
    for i in range(bodies):
        size = int(min(TOOL_MAX_BYTES, max(4 << 10, rng.lognormvariate(0, 1.0) * TOOL_MEDIAN_BYTES)))
        path = made / ("%04d.jsonl" % i)
        write_transcript(str(path), size, seed=i)
        paths.append(path)
    for k in range(count):
        folder = projects / ("-home-dev-tool-%02d" % (k % FOLDERS))
        folder.mkdir(parents=True, exist_ok=True)
        os.link(str(paths[k % bodies]), str(folder / ("%s.jsonl" % uuid.UUID(int=rng.getrandbits(128)))))
    marker.write_text("ok\n")
    return projects


def real_store(root, count):
    """The real-shaped store (``bench_sessions.generate_store``); returns its projects dir."""
    marker = root / ("done-%d" % count)
    if not marker.exists():
        shutil.rmtree(str(root), ignore_errors=True)
        root.mkdir(parents=True)
        bench_sessions.generate_store(root, count)
        marker.write_text("ok\n")
    return root / "projects"


def previous_source(scratch, rev=PREVIOUS_REV):
    """The ``src`` dir of ``rev``, exported from git; None when it cannot be."""
    target = scratch / ("prev-" + rev)
    if (target / "src" / "termsprawl_context").is_dir():
        return target / "src"
    target.mkdir(parents=True, exist_ok=True)
    try:
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", rev, "src"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True
        )
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return target / "src"


# The listing's fast path, switched off: our source copied into the scratch dir with its switch
# (harness/claude/session_scan.py) on the plain scanners, never shipped. Beside ours it shows what the
# fast scanners buy, on the peer rows' target above all (benchmarks/FAST_PATHS.md).
PLAIN_SWITCH = ("harness/claude/session_scan.py", "scanner = FAST_SCANNER", "scanner = PLAIN_SCANNER")


def plain_source(scratch):
    """Our ``src`` copied into ``scratch`` with the listing on its plain scanners; None when
    the switch is not where ``PLAIN_SWITCH`` says."""
    target = scratch / "plain-scanners"
    shutil.rmtree(str(target), ignore_errors=True)
    shutil.copytree(str(REPO / "src"), str(target / "src"), ignore=shutil.ignore_patterns("__pycache__"))
    name, text, replacement = PLAIN_SWITCH
    path = target / "src" / "termsprawl_context" / name
    source = path.read_text()
    if source.count(text) != 1:
        return None
    path.write_text(source.replace(text, replacement))
    return target / "src"


def cpu_run(argv, env, ok_codes=(0,), timeout=3600):
    """(CPU seconds of the child, wall seconds, stdout) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=timeout)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in ok_codes:
        raise RuntimeError("%s exited %d" % (" ".join(argv[:4]), done.returncode))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.stdout


def alternate(commands, n, ok_codes=(0,), warmups=1, timeout=3600):
    """CPU and wall times of each command over ``n`` rounds, order flipped each round."""
    names = list(commands)
    cpu = {name: [] for name in names}
    wall = {name: [] for name in names}
    for i in range(warmups + n):
        for name in names if i % 2 == 0 else names[::-1]:
            argv, env = commands[name]
            c, w, _ = cpu_run(argv, env, ok_codes, timeout)
            if i >= warmups:
                cpu[name].append(c)
                wall[name].append(w)
    return cpu, wall


def ratio(times, slow, fast):
    return statistics.median(a / b for a, b in zip(times[slow], times[fast]))


def row(metric, measured, target="info", ok=True):
    return dict(metric=metric, measured=measured, target=target, ok=ok)


class Bench(object):
    def __init__(self, scratch, quick, homes, peers_root=None, previous=True):
        """``homes``: a dir of this run's own for the empty HOME and the peers' homes (so a shared
        ``scratch`` holding only stores is never written to); ``previous``: export ``PREVIOUS_REV``."""
        self.scratch = scratch
        self.quick = quick
        self.rounds = ROUNDS_QUICK if quick else ROUNDS_FULL
        self.py = os.path.realpath(sys.executable)
        self.homes = pathlib.Path(homes)
        home = self.homes / "empty"
        home.mkdir(parents=True, exist_ok=True)
        base = {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
        self.ours_default_env = dict(base, PYTHONPATH=str(REPO / "src"))  # as users run it: default jobs
        self.ours_env = dict(self.ours_default_env, TERMSPRAWL_JOBS="1")
        self.ours2_env = dict(self.ours_env, TERMSPRAWL_JOBS="2")
        filed = previous_source(scratch, FILED_REV) if previous else None
        previous = previous_source(scratch) if previous else None
        self.prev_env = dict(base, PYTHONPATH=str(previous), TERMSPRAWL_JOBS="1") if previous else None
        self.filed_env = dict(base, PYTHONPATH=str(filed)) if filed else None
        self.base_env = base
        plain = plain_source(self.homes)  # a copy of this run's own: the scratch dir is only read
        self.plain_env = dict(base, PYTHONPATH=str(plain)) if plain else None  # default jobs, as users run it
        self.peers = peers.peers_dir(peers_root)
        self.peer_timeout = PEER_TIMEOUT_QUICK if quick else PEER_TIMEOUT_FULL
        self.slow_peer = SLOW_PEER_QUICK if quick else SLOW_PEER_FULL

    def cli(self, *args):
        return [self.py, "-m", "termsprawl_context"] + [str(a) for a in args]

    def sessions_rows(self, shape, projects):
        listing = self.cli("sessions", "--json", "--projects-dir", projects)
        commands = {
            "ours": (listing, self.ours_env),
            "ours, default jobs": (listing, self.ours_default_env),
            "floor": ([self.py, "-c", FLOOR, str(projects)], self.base_env),
        }
        if self.prev_env:
            commands["previous"] = (listing, self.prev_env)
        if self.filed_env:
            commands["as filed"] = (listing, self.filed_env)
        if self.plain_env:
            commands["plain scanners"] = (listing, dict(self.plain_env, TERMSPRAWL_JOBS="1"))
        progress("sessions --json on the %s store, %d rounds ..." % (shape, self.rounds))
        outs = {
            name: cpu_run(argv, env)[2]
            for name, (argv, env) in commands.items()
            if name in ("ours", "previous", "plain scanners")
        }
        outs["ours, two processes"] = cpu_run(listing, self.ours2_env)[2]
        cpu, wall = alternate(commands, self.rounds)
        med = lambda name: statistics.median(cpu[name])  # noqa: E731
        medw = lambda name: statistics.median(wall[name])  # noqa: E731
        rows = [
            row(
                "sessions --json, %s store: answers identical" % shape,
                "%s (%d sessions)"
                % (
                    "yes"
                    if len(set(outs.values())) == 1
                    else "NO: " + ", ".join("%s %d lines" % (k, v.count(b"\n")) for k, v in outs.items()),
                    outs["ours"].count(b"\n"),
                ),
                "identical",
                len(set(outs.values())) == 1,
            )
        ]
        target = SESSIONS_TARGET if shape == "real-shaped" else None
        for name, rev in (("as filed", FILED_REV), ("previous", PREVIOUS_REV[:7])):
            if name not in cpu:
                rows.append(
                    row(
                        "sessions --json, %s store: %s (%s) / ours" % (shape, name, rev),
                        "not measured: git archive %s failed" % rev,
                    )
                )
                continue
            # The issue's own measure: wall time of whole processes, ours as users run it (both cores).
            speedup = ratio(wall, name, "ours, default jobs")
            rows.append(
                row(
                    "sessions --json, %s store: %s (%s) / ours, wall, default jobs" % (shape, name, rev),
                    "%.2fx (%.2f s vs %.2f s, median of %d alternating rounds)"
                    % (speedup, medw(name), medw("ours, default jobs"), self.rounds),
                    ">= %.1fx" % target if target and name == "as filed" else "info",
                    speedup >= target if target and name == "as filed" else True,
                )
            )
            rows.append(
                row(
                    "sessions --json, %s store: %s (%s) / ours, CPU, one process" % (shape, name, rev),
                    "%.2fx (%.2f s vs %.2f s CPU)" % (ratio(cpu, name, "ours"), med(name), med("ours")),
                )
            )
        if "plain scanners" in cpu:
            rows.append(
                row(
                    "sessions --json, %s store: ours with the plain scanners / ours, CPU, one process" % shape,
                    "%.2fx (%.2f s vs %.2f s CPU)"
                    % (ratio(cpu, "plain scanners", "ours"), med("plain scanners"), med("ours")),
                )
            )
        rows.append(
            row(
                "sessions --json, %s store: ours / head+tail floor (CPU)" % shape,
                "%.2fx (floor %.2f s CPU)" % (ratio(cpu, "ours", "floor"), med("floor")),
            )
        )
        idle = idle_cores()
        if (os.cpu_count() or 1) >= 2 and idle >= 1 + IDLE_CORE:
            _, pair = alternate({"one": (listing, self.ours_env), "two": (listing, self.ours2_env)}, self.rounds)
            rows.append(
                row(
                    "sessions --json, %s store: two processes / one (wall)" % shape, "%.2fx" % ratio(pair, "two", "one")
                )
            )
        else:
            rows.append(
                row(
                    "sessions --json, %s store: two processes / one (wall)" % shape,
                    "not measured: no idle second core (%.2f of %d CPUs idle)" % (idle, os.cpu_count() or 1),
                )
            )
        return rows

    def find_rows(self, projects):
        names = sorted(p.name[:-6] for p in projects.rglob("*.jsonl"))
        unique = names[len(names) // 2]
        ambiguous = unique[0]  # one hex digit: about a sixteenth of the store
        commands = {
            "ambiguous": (self.cli("find", ambiguous, "--projects-dir", projects), self.ours_env),
            "unique": (self.cli("find", unique, "--projects-dir", projects), self.ours_env),
        }
        progress("find, ambiguous vs unique prefix ...")
        cpu, wall = alternate(commands, self.rounds, ok_codes=(0, 1))
        r = ratio(cpu, "ambiguous", "unique")
        return [
            row(
                "find of an ambiguous prefix / a unique one (CPU), %d sessions" % len(names),
                "%.2fx (%.3f s vs %.3f s CPU; wall %.3f s vs %.3f s)"
                % (
                    r,
                    statistics.median(cpu["ambiguous"]),
                    statistics.median(cpu["unique"]),
                    statistics.median(wall["ambiguous"]),
                    statistics.median(wall["unique"]),
                ),
                "<= %.1fx" % FIND_TARGET,
                r <= FIND_TARGET,
            )
        ]

    def peer_rows(self, shape, key, projects):
        """Each peer's listing of the store against ours (wall, whole processes), or why it is not measured."""
        listing = self.cli("sessions", "--json", "--projects-dir", projects)
        ours = {"ours": (listing, self.ours_default_env), "ours, one process": (listing, self.ours_env)}
        if self.plain_env:  # what the fast scanners buy on this row's target
            ours["ours, plain scanners"] = (listing, self.plain_env)
        sessions = cpu_run(listing, self.ours_default_env)[2].count(b"\n")
        target = "> %.1fx" % PEER_TARGET
        rows = []
        for peer in peers.PEERS:
            metric = "sessions --json, %s store: %s / ours (wall)" % (shape, peer.name)
            if not peers.executable(peer, self.peers):
                rows.append(row(metric, peers.missing_text(peer, self.peers), target, "ERROR"))
                continue
            argv, env = peers.command(peer, self.peers, peers.home_for(self.homes / ("peer-" + key), projects))
            progress("%s on the %s store (timeout %d s) ..." % (peer.name, shape, self.peer_timeout))
            first = peers.timed(argv, env, self.peer_timeout)
            once = not (first.code == 0 and first.wall <= self.slow_peer)
            if not once:
                try:
                    _, wall = alternate(dict(ours, peer=(argv, env)), self.rounds, timeout=self.peer_timeout * 2)
                except (RuntimeError, subprocess.TimeoutExpired) as exc:  # its first run passed, a later one not
                    rows.append(row(metric, "error: %s in a later round: %s" % (peer.name, exc), target, "ERROR"))
                    continue
                runs = "medians of %d alternating rounds" % self.rounds
                speedup, single = ratio(wall, "peer", "ours"), ratio(wall, "peer", "ours, one process")
                theirs = statistics.median(wall["peer"])
            else:
                # One run is enough (or all there is): ours is measured right after it.
                _, wall = alternate(ours, self.rounds)
                runs = "ours: medians of %d alternating rounds" % self.rounds
                theirs = first.wall
                speedup = theirs / statistics.median(wall["ours"])
                single = theirs / statistics.median(wall["ours, one process"])
            times = "ours %.2f s, one process %.2f s" % (
                statistics.median(wall["ours"]),
                statistics.median(wall["ours, one process"]),
            )
            if "ours, plain scanners" in wall:
                plain = statistics.median(wall["ours, plain scanners"])
                times += ", with the plain scanners %.2f s (%s / that: %.2fx)" % (
                    plain,
                    peer.name,
                    (statistics.median(wall["peer"]) if "peer" in wall else first.wall) / plain,
                )
            if first.code is None:
                rows.append(
                    row(
                        metric,
                        "%s; %s did not finish in %d s: ours >= %.1fx faster (one process >= %.1fx; %s)"
                        % (times, peer.name, self.peer_timeout, speedup, single, runs),
                        target,
                        speedup > PEER_TARGET,
                    )
                )
            elif first.code != 0:
                rows.append(
                    row(
                        metric,
                        "%s; %s failed after %.1f s (%s)" % (times, peer.name, first.wall, peers.failure_text(first)),
                        target,
                        None,
                    )
                )
            else:
                rows.append(
                    row(
                        metric,
                        "%.2fx (one process %.2fx): %s %.2f s%s, %s (%s); %s"
                        % (
                            speedup,
                            single,
                            peer.name,
                            theirs,
                            " (one run: over %d s)" % self.slow_peer if once else "",
                            times,
                            runs,
                            self.listed_text(peer, first.stdout, sessions),
                        ),
                        target,
                        speedup > PEER_TARGET,
                    )
                )
        return rows

    @staticmethod
    def listed_text(peer, stdout, sessions):
        """What the peer's output listed, beside ours: a peer that lists less did less."""
        count = peers.listed(peer, stdout)
        if count is None:
            return "its count unread"
        if peer.counted == "projects":
            return "it lists %d project groups of our %d sessions" % (count, sessions)
        return "it lists %d sessions%s" % (count, "" if count == sessions else " (ours %d)" % sessions)

    def threshold_rows(self, projects):
        """One helper's cost against one session's, in this process (CPU of the parent)."""
        from termsprawl_context.harness.claude import session_scan
        from termsprawl_context.store import parallel
        from termsprawl_context.store import catalog
        from termsprawl_context.store import sessions as S

        paths = sorted(entry.path for entry in catalog.walk(str(projects)))[:400]
        buffers = session_scan.windows.ReadBuffers(session_scan.HEAD_BLOCK_BYTES, session_scan.TAIL_MAX_BYTES)
        start = time.process_time()
        for path in paths:
            session_scan.session_from_path(path, str(projects), buffers, [])
        per_session = (time.process_time() - start) / len(paths)
        start = time.perf_counter()
        for _ in range(20):
            parallel.map_shared(lambda i: i, [1, 2], [1, 1], 0, 2)
        helper = (time.perf_counter() - start) / 20
        return [
            row(
                "sharing a listing: one helper vs one session",
                "helper %.2f ms, session %.3f ms CPU: break-even near %d sessions (PARALLEL_MIN_SESSIONS = %d)"
                % (helper * 1e3, per_session * 1e3, int(2 * helper / per_session) + 1, S.PARALLEL_MIN_SESSIONS),
            )
        ]


def run(scratch, quick=False, peers_root=None, peers_only=False):
    """The module's rows; ``peers_root``: the peers' dir (default ``$TERMSPRAWL_BENCH_PEERS``);
    ``peers_only``: just the peer rows (the stores are then only read)."""
    scratch = pathlib.Path(scratch)
    count = SESSIONS_QUICK if quick else SESSIONS_FULL
    progress("stores in %s ..." % scratch)
    tool = tool_store(scratch / ("tool-%d" % count), count, BODIES_QUICK if quick else BODIES_FULL)
    real = real_store(scratch / ("real-%d" % count), count)
    homes = tempfile.mkdtemp(prefix="bench-sessions-homes-")
    try:
        bench = Bench(scratch, quick, homes, peers_root, previous=not peers_only)
        rows = []
        if not peers_only:
            rows += bench.sessions_rows("large tool results", tool)
            rows += bench.sessions_rows("real-shaped", real)
            rows += bench.find_rows(real)
            rows += bench.threshold_rows(real)
        rows += bench.peer_rows("large tool results", "tool", tool)
        rows += bench.peer_rows("real-shaped", "real", real)
    finally:
        shutil.rmtree(homes, ignore_errors=True)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="500 sessions a store instead of 10,000")
    parser.add_argument("--scratch", help="where to keep the stores (default: a temp dir, removed after)")
    parser.add_argument(
        "--peers", metavar="DIR", help="the peers' dir (default: $%s; see benchmarks/peers.py)" % peers.PEERS_ENV
    )
    parser.add_argument("--peers-only", action="store_true", help="only the peer rows")
    args = parser.parse_args(argv)
    scratch = args.scratch or tempfile.mkdtemp(prefix="bench-sessions-cli-")
    try:
        rows = run(pathlib.Path(scratch), quick=args.quick, peers_root=args.peers, peers_only=args.peers_only)
    finally:
        if not args.scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    width = max(len(r["metric"]) for r in rows)
    verdicts = {True: "ok  ", False: "FAIL", None: "info"}
    for r in rows:
        print(
            "%s  %-*s  %s  (target %s)"
            % (verdicts.get(r["ok"], r["ok"]), width, r["metric"], r["measured"], r["target"])
        )
    return 0 if all(r["ok"] in (True, None) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
