"""Citations across a project's sessions, and the background-agent cursor.

1. ``cite --across``: a project directory of 2,000 generated transcripts (1 GB;
   ``quick``: 200, 50 MB), newest first by mtime. A user quote and a tool-output quote
   are planted in the OLDEST one, so every session is a candidate before the answer. Side
   by side in this process: ``resolve_across_sessions`` with the byte prefilter (the
   quote's longest plain word searched in each session's bytes before any line is
   parsed) against the same call with ``cite.pools.PREFILTER`` off (every file parsed and
   searched), the plain oracle. Answers must be identical; target: at least 10x.
3. Many matches (issue 24): a quote held by 10k/20k/40k/143k entries, resolved (an
   ambiguity) by this tree and by the seed's cite.py loaded from git, side by side.
2. The cursor: a 500 MB generated record (``quick``: 50 MB) read whole once by
   ``background_agent_signals_since``, then 1 KB appended (a notification of a launched
   agent) and read again. Bytes read are counted by wrapping the file the reader opens:
   the second call must read the appended bytes plus the fingerprint's window (256 +
   4096 bytes), nothing in proportion to the file.

    python3 benchmarks/bench_cite.py [--quick] [--scratch DIR]
"""

import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
for entry in (str(REPO / "src"), str(REPO)):
    if entry not in sys.path:
        sys.path.insert(0, entry)

from benchmarks.generate import write_transcript  # noqa: E402
from termsprawl_context import cite  # noqa: E402
from termsprawl_context.cite.resolution import Citation  # noqa: E402
from termsprawl_context.errors import CitationAmbiguous, CitationError  # noqa: E402
from termsprawl_context.cite import pools  # noqa: E402
from termsprawl_context.jsonl import open_regular  # noqa: E402
from termsprawl_context.store import background  # noqa: E402

MB = 1 << 20
FULL = {"sessions": 2000, "session_bytes": 512 << 10, "record": 500 * MB, "runs": 3}
QUICK = {"sessions": 200, "session_bytes": 256 << 10, "record": 50 * MB, "runs": 3}
DISTINCT = 24  # generated transcripts; the rest are copies under their own names
SPEEDUP_TARGET = 10.0
APPEND_BYTES = 1024
CURSOR_BYTES_TARGET = APPEND_BYTES + background.FINGERPRINT_HEAD + background.FINGERPRINT_TAIL
USER_QUOTE = "keep the PLANTEDQUOTE7731 exactly as I wrote it"
TOOL_QUOTE = "TOOLMARK8842 passed in 3.1s"


def _line(obj):
    return json.dumps(obj, ensure_ascii=False) + "\n"


def _plant(path):
    with open(path, "a", encoding="utf-8") as f:
        f.write(
            _line(
                {
                    "type": "user",
                    "uuid": "planted-u",
                    "parentUuid": None,
                    "isSidechain": False,
                    "message": {"role": "user", "content": "please %s, thanks" % USER_QUOTE},
                }
            )
        )
        f.write(
            _line(
                {
                    "type": "assistant",
                    "uuid": "planted-a",
                    "parentUuid": "planted-u",
                    "isSidechain": False,
                    "message": {
                        "content": [
                            {
                                "type": "tool_use",
                                "id": "toolu_planted",
                                "name": "Bash",
                                "input": {"command": "make test"},
                            }
                        ]
                    },
                }
            )
        )
        f.write(
            _line(
                {
                    "type": "user",
                    "uuid": "planted-r",
                    "parentUuid": "planted-a",
                    "isSidechain": False,
                    "message": {
                        "content": [
                            {"type": "tool_result", "tool_use_id": "toolu_planted", "content": "ok\n%s\n" % TOOL_QUOTE}
                        ]
                    },
                }
            )
        )


def project(scratch, sizes):
    """The project directory (reused when complete): sessions newest first by mtime."""
    folder = scratch / ("cite-project-%d-%dk" % (sizes["sessions"], sizes["session_bytes"] >> 10))
    done = folder / ".complete"
    names = ["%08d-0000-4000-8000-%012d.jsonl" % (i, i) for i in range(sizes["sessions"])]
    if not done.exists():
        if folder.exists():
            shutil.rmtree(str(folder))
        folder.mkdir(parents=True)
        bases = []
        for i in range(DISTINCT):
            base = scratch / ("cite-base-%d-%d.jsonl" % (sizes["session_bytes"], i))
            write_transcript(base, sizes["session_bytes"], seed=1000 + i)
            bases.append(base)
        for i, name in enumerate(names):
            shutil.copyfile(str(bases[i % DISTINCT]), str(folder / name))
        _plant(str(folder / names[-1]))
        for base in bases:
            base.unlink()
        done.write_text("ok")
    now = time.time()
    for i, name in enumerate(names):
        os.utime(str(folder / name), (now - 60 * i, now - 60 * i))
    return folder, str(folder / names[0]), str(folder / names[-1])


def _answer(current, folder, request, prefilter):
    pools.PREFILTER = prefilter  # the fast path's one switch
    try:
        return cite.resolve_across_sessions(current, str(folder), request)
    except CitationError as exc:
        return (type(exc).__name__, str(exc))
    finally:
        pools.PREFILTER = True


def bench_across(scratch, sizes):
    folder, current, oldest = project(scratch, sizes)
    total = sum(os.path.getsize(str(p)) for p in folder.glob("*.jsonl"))
    requests = [
        cite.CitationRequest(USER_QUOTE, [cite.SOURCE_USER]),
        cite.CitationRequest(TOOL_QUOTE, [cite.SOURCE_TOOL_RESULT]),
    ]
    # The plain path runs once (it is the slow one); the fast one before and after it.
    fast_t, plain_t = [], []
    answers = {True: [], False: []}
    for prefilter in [True, False] + [True] * (sizes["runs"] - 1):
        started = time.perf_counter()
        answers[prefilter] = [_answer(current, folder, r, prefilter) for r in requests]
        (fast_t if prefilter else plain_t).append(time.perf_counter() - started)
    same = answers[True] == answers[False]
    found = answers[True]
    resolved = all(isinstance(a, Citation) and a.path == oldest for a in found)
    # The command itself, once, for the record (start-up included).
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "termsprawl_context", "cite", current, USER_QUOTE, "--across", str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ, PYTHONPATH=str(REPO / "src")),
    )
    cli_t = time.perf_counter() - started
    cli_ok = done.returncode == 0 and done.stdout.decode().strip().startswith(oldest + ":")
    fast, plain = statistics.median(fast_t), statistics.median(plain_t)
    ratio = plain / fast if fast else float("inf")
    label = "%d transcripts (%.0f MB)" % (sizes["sessions"], total / MB)
    return [
        {
            "metric": "cite --across, %s: parse every file vs needle prefilter (time ratio)" % label,
            "measured": "%.1fx (%.2f s vs %.3f s, 2 quotes)" % (ratio, plain, fast),
            "target": ">= %.0fx" % SPEEDUP_TARGET,
            "ok": ratio >= SPEEDUP_TARGET and same and resolved,
        },
        {
            "metric": "  answers identical with and without the prefilter, resolved in the oldest session",
            "measured": "yes" if same and resolved else "NO",
            "target": "yes",
            "ok": same and resolved,
        },
        {
            "metric": "  the command (cite --across, one quote, start-up included)",
            "measured": "%.2f s, %s" % (cli_t, "ok" if cli_ok else "FAILED: " + done.stderr.decode()[-120:]),
            "target": "info",
            "ok": None if cli_ok else False,
        },
    ]


class CountingFile(object):
    """A reader's file, counting the bytes its reads return into ``counter[0]`` (shared
    with tests/test_background.py)."""

    def __init__(self, f, counter):
        self._f, self._counter = f, counter

    def read(self, size=-1):
        data = self._f.read(size)
        self._counter[0] += len(data)
        return data

    def readline(self, size=-1):
        data = self._f.readline(size)
        self._counter[0] += len(data)
        return data

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()


def bench_cursor(scratch, sizes):
    base = scratch / ("cursor-base-%dM.jsonl" % (sizes["record"] // MB))
    if not base.exists() or base.stat().st_size < sizes["record"] - MB:
        write_transcript(base, sizes["record"], seed=77)
        with open(str(base), "a") as f:  # a background agent still running at the end
            f.write(
                _line(
                    {
                        "type": "assistant",
                        "uuid": "bg-a",
                        "parentUuid": None,
                        "message": {
                            "content": [
                                {
                                    "type": "tool_use",
                                    "id": "toolu_bg",
                                    "name": "Agent",
                                    "input": {"prompt": "go", "run_in_background": True},
                                }
                            ]
                        },
                    }
                )
            )
            f.write(
                _line(
                    {
                        "type": "user",
                        "uuid": "bg-r",
                        "parentUuid": "bg-a",
                        "message": {
                            "content": [
                                {
                                    "type": "tool_result",
                                    "tool_use_id": "toolu_bg",
                                    "content": "Async agent launched successfully.\nagentId: abg1 (internal ID)",
                                }
                            ]
                        },
                    }
                )
            )
    record = scratch / "cursor-record.jsonl"
    shutil.copyfile(str(base), str(record))
    counter = [0]

    def opener(path):
        return CountingFile(open_regular(path), counter)

    started = time.perf_counter()
    first, cur = background.background_agent_signals_since(str(record), None, opener)
    first_t, first_bytes = time.perf_counter() - started, counter[0]
    note = _line(
        {
            "type": "attachment",
            "uuid": "n-abg1",
            "parentUuid": None,
            "attachment": {
                "type": "queued_command",
                "commandMode": "task-notification",
                "prompt": "<task-notification>\n<task-id>abg1</task-id>\n<status>completed</status>\n</task-notification>",
            },
        }
    )
    pad = _line({"type": "user", "uuid": "pad", "parentUuid": None, "message": {"content": ""}})
    filler = APPEND_BYTES - len(note.encode()) - len(pad.encode())
    pad = _line({"type": "user", "uuid": "pad", "parentUuid": None, "message": {"content": "p" * filler}})
    with open(str(record), "a") as f:
        f.write(note + pad)
    counter[0] = 0
    started = time.perf_counter()
    second, nxt = background.background_agent_signals_since(str(record), cur, opener)
    second_t, second_bytes = time.perf_counter() - started, counter[0]
    ok = (
        second_bytes <= CURSOR_BYTES_TARGET
        and [s.agent_id for s in second] == ["abg1"]
        and "abg1" in background.running(first)
        and nxt.offset == os.path.getsize(str(record))
    )
    record.unlink()
    return [
        {
            "metric": "cursor: bytes read by the second call after a 1 KB append to a %d MB record"
            % (sizes["record"] // MB),
            "measured": "%d B (%d appended + %d fingerprint)"
            % (second_bytes, APPEND_BYTES, second_bytes - APPEND_BYTES),
            "target": "<= %d B" % CURSOR_BYTES_TARGET,
            "ok": ok,
        },
        {
            "metric": "  first call (whole record) vs second call (time ratio)",
            "measured": "%.0fx (%.2f s, %d MB vs %.4f s)"
            % (first_t / max(second_t, 1e-9), first_t, first_bytes // MB, second_t),
            "target": "info",
            "ok": None,
        },
    ]


# --- 3. many matches: duplicates removed with a set, not a list lookup (issue 24 item 5) --------
# The red team's figures for the seed: 10k/20k/40k matching entries took 2.2/8.3/26 s and
# 143k ran past 300 s, the quadratic "if match not in hits". The seed's cite.py (the commit
# before issue 24) is loaded beside this tree's and both resolve the same ambiguous quote,
# alternating; the seed is not run past SEED_MAX_MATCHES (it would take minutes).
MATCHES_FULL = (10000, 20000, 40000, 143000)
MATCHES_QUICK = (10000, 20000)
SEED_COMMIT = "09a2d99"
SEED_MAX_MATCHES = 40000


def seed_cite():
    """The seed's cite module, from git (None without git or the commit)."""
    import importlib.util

    try:
        source = subprocess.run(
            ["git", "-C", str(REPO), "show", "%s:src/termsprawl_context/cite.py" % SEED_COMMIT],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    path = pathlib.Path(tempfile.mkdtemp(prefix="seed-cite-")) / "seed_cite.py"
    path.write_bytes(source)
    spec = importlib.util.spec_from_file_location("seed_cite", str(path))
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ImportError:  # the seed imports modules of its day that have since moved: no seed row
        return None
    return module


def _many_matches(scratch, n):
    path = scratch / ("matches-%d.jsonl" % n)
    if not path.exists():
        with open(str(path), "w") as f:
            for i in range(n):
                f.write(_line({"type": "user", "uuid": "m%d" % i, "message": {"content": "same words %d" % i}}))
    return path


def _ambiguity_time(module, path):
    started = time.perf_counter()
    try:
        module.resolve_in_record(
            str(path), module.CitationRequest("same words", [module.SOURCE_USER, module.SOURCE_TOOL_RESULT])
        )
    except getattr(module, "CitationAmbiguous", CitationAmbiguous) as exc:  # the package's names: errors.py's
        found = len(exc.matches)
    return time.perf_counter() - started, found


def bench_matches(scratch, quick):
    seed = seed_cite()
    rows = []
    for n in MATCHES_QUICK if quick else MATCHES_FULL:
        path = _many_matches(scratch, n)
        runs = []
        for _ in range(2 if n <= SEED_MAX_MATCHES else 1):
            runs.append(("now",) + _ambiguity_time(cite, path))
            if seed is not None and n <= SEED_MAX_MATCHES:
                runs.append(("seed",) + _ambiguity_time(seed, path))
        now = min(t for who, t, _ in runs if who == "now")
        counts = {found for _, _, found in runs}
        seeds = [t for who, t, _ in runs if who == "seed"]
        if seeds:
            measured = "%.0fx (seed %.1f s, now %.2f s)" % (min(seeds) / now, min(seeds), now)
        else:
            measured = "now %.2f s (seed not run: quadratic, minutes)" % now
        rows.append(
            {
                "metric": "cite, %dk entries holding the quote (ambiguous, both pools): seed vs now" % (n // 1000),
                "measured": measured,
                "target": "info",
                "ok": None if counts == {n} else False,
            }
        )
    return rows


def run(scratch, quick=False):
    scratch = pathlib.Path(scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    sizes = QUICK if quick else FULL
    return bench_across(scratch, sizes) + bench_cursor(scratch, sizes) + bench_matches(scratch, quick)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--scratch")
    args = parser.parse_args(argv)
    scratch = pathlib.Path(args.scratch or tempfile.mkdtemp(prefix="bench-cite-"))
    rows = run(scratch, args.quick)
    for row in rows:
        print(
            "%-95s %-40s %-10s %s"
            % (row["metric"], row["measured"], row["target"], {True: "yes", None: "info"}.get(row["ok"], "NO"))
        )
    return 0 if all(row["ok"] is not False for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
