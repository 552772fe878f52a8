#!/usr/bin/env python3
"""Benchmark locate and assemble-file on generated Claude Code transcripts.

    python3 benchmarks/bench_store.py [--quick] [--scratch DIR]

Inputs are generated under ``scratch`` (deterministic, seeded, reused when already
there): one long transcript for assemble-file and a store of many session files for
locate. Every measured job runs in its own subprocess (``python3 -c``, importing from
src/) under a small wrapper that reports the job's peak RSS from
``getrusage(RUSAGE_CHILDREN).ru_maxrss`` (KiB on Linux) and its wall time, so the
figures are per job and baselines run side by side in the same run.

Targets (full size): assemble-file peak RSS <= 20 % of a 500 MB file and its
throughput >= 60 % of a bare loop that only json.loads every line; locate >= 5x
faster than the seed's scan (parse every line of every file) on a 1 GB store of 2,000
files, with identical answers on every probe.
"""

import argparse
import datetime
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Tuple

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "src"
SEED = 20260703
MB = 1000 * 1000

FULL = {"transcript_bytes": 500 * MB, "store_bytes": 1000 * MB, "store_files": 2000}
QUICK = {"transcript_bytes": 20 * MB, "store_bytes": 40 * MB, "store_files": 80}

RSS_TARGET = 0.20
THROUGHPUT_TARGET = 0.60
LOCATE_SPEEDUP_TARGET = 5.0

# Runs a job (argv[1], python source) in a child and prints its wall time, exit code,
# stdout and peak RSS: RUSAGE_CHILDREN of this wrapper covers that one job only.
_WRAPPER = r"""
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run([sys.executable, "-c", sys.argv[1]], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
wall = time.perf_counter() - start
print(json.dumps({"wall": wall, "rc": done.returncode,
                  "maxrss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
                  "stdout": done.stdout.decode("utf-8", "replace")}))
"""


def measure(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; {wall, rc, maxrss_kib, stdout}."""
    done = subprocess.run([sys.executable, "-c", _WRAPPER, code], stdout=subprocess.PIPE, check=True)
    result = json.loads(done.stdout.decode())
    if result["rc"] != 0:
        raise RuntimeError("benchmark job failed (exit %d): %s" % (result["rc"], code[:200]))
    return result


# --- generating realistic transcripts ----------------------------------------------------------

_WORDS = (
    "the of and to in is that for it with as was on be at by this had not are but from or have an they "
    "which one you were her all she there would their we him been has when who will more no if out so "
    "said what up its about into than them can only other new some could time these two may then do "
    "first any my now such like our over man me even most made after also did many before must through "
    "function return const let import export class def self None True False async await yield lambda "
    "error warning test build deploy config server client request response status cache index query "
    "caf\u00e9 na\u00efve r\u00e9sum\u00e9 \u2014 \u2192 \u2713 \U0001F600 \u4e2d\u6587 \"quoted\" back\\slash path/to/file"
).split(" ")


class Generator:
    """Deterministic Claude Code (2.x) transcript lines: prompts, split assistant
    messages (thinking / text / tool_use), tool results with toolUseResult, progress
    and system lines, file-history-snapshots, summaries and queue operations."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        rng = self.rng
        words = [rng.choice(_WORDS) for _ in range(400000)]
        for i in range(0, len(words), 17):
            words[i] += rng.choice([".", ",", ".\n", "\n\n", ":", "\n- "])
        self.prose = " ".join(words)
        out_lines = []
        for i in range(30000):
            kind = rng.random()
            if kind < 0.1:
                out_lines.append("\x1b[32m\u2713\x1b[0m test_%d passed in %.2fs" % (i, rng.random()))
            elif kind < 0.2:
                out_lines.append('    %d\t    return {"key": value_%d, "path": "/tmp/x\\\\y"}' % (i, i))
            else:
                out_lines.append(" ".join(rng.choice(_WORDS[:120]) for _ in range(rng.randint(3, 14))))
        self.output = "\n".join(out_lines)
        self.clock = datetime.datetime(2026, 1, 5, 9, 0, 0, tzinfo=datetime.timezone.utc)

    def uuid(self) -> str:
        bits = self.rng.getrandbits(128)
        h = "%032x" % bits
        return "%s-%s-4%s-8%s-%s" % (h[:8], h[8:12], h[13:16], h[17:20], h[20:32])

    def text(self, low: int, high: int, pool: str = "") -> str:
        pool = pool or self.prose
        n = self.rng.randint(low, high)
        start = self.rng.randrange(0, len(pool) - n - 1)
        return pool[start:start + n]

    def tick(self, max_ms: int = 20000) -> str:
        self.clock += datetime.timedelta(milliseconds=self.rng.randint(5, max_ms))
        return self.stamp(self.clock)

    @staticmethod
    def stamp(moment: datetime.datetime) -> str:
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (moment.microsecond // 1000)

    def session(self, session_id: str, cwd: str, start: datetime.datetime, sidechains: bool = False):
        """Yield (uuid or None, JSON line) for one session, forever."""
        rng = self.rng
        self.clock = start
        slug = "-".join(rng.choice(_WORDS[:60]) for _ in range(3))
        base = {"isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": session_id,
                "version": "2.1.29", "gitBranch": "main", "slug": slug}
        parent = None

        def envelope(kind: str, uuid: str, ts: str, **extra) -> dict:
            obj = {"parentUuid": parent}
            obj.update(base)
            obj.update({"type": kind, "uuid": uuid, "timestamp": ts})
            obj.update(extra)
            return obj

        def dump(obj: dict) -> str:
            return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))

        if rng.random() < 0.3:
            for _ in range(rng.randint(1, 3)):
                yield None, dump({"type": "summary", "summary": self.text(20, 80), "leafUuid": self.uuid()})
        while True:
            prompt_uuid = self.uuid()
            yield None, dump({"type": "file-history-snapshot", "messageId": prompt_uuid, "isSnapshotUpdate": False,
                              "snapshot": {"messageId": prompt_uuid, "trackedFileBackups": {}, "timestamp": self.tick()}})
            if rng.random() < 0.1:
                yield None, dump({"type": "queue-operation", "operation": "enqueue", "sessionId": session_id,
                                  "timestamp": self.tick(), "content": self.text(10, 60)})
            obj = envelope("user", prompt_uuid, self.tick(), message={"role": "user", "content": self.text(20, 600)})
            yield prompt_uuid, dump(obj)
            parent = prompt_uuid
            side = sidechains and rng.random() < 0.05
            if side:
                base["isSidechain"] = True
            for _round in range(rng.randint(1, 6)):
                request = "req_%024x" % rng.getrandbits(96)
                message_id = "msg_%024x" % rng.getrandbits(96)
                usage = {"input_tokens": rng.randint(1, 9000), "cache_creation_input_tokens": rng.randint(0, 5000),
                         "cache_read_input_tokens": rng.randint(0, 90000), "output_tokens": rng.randint(1, 3000),
                         "service_tier": "standard"}
                blocks = []
                if rng.random() < 0.5:
                    blocks.append({"type": "thinking", "thinking": self.text(100, 3000),
                                   "signature": "%x" % rng.getrandbits(512)})
                if rng.random() < 0.7:
                    blocks.append({"type": "text", "text": self.text(40, 1500)})
                tool_id = "toolu_%022x" % rng.getrandbits(88)
                tool = rng.choice(["Bash", "Read", "Edit", "Grep", "Write"])
                blocks.append({"type": "tool_use", "id": tool_id, "name": tool,
                               "input": {"command": self.text(10, 120)} if tool == "Bash"
                               else {"file_path": "/work/src/mod_%d.py" % rng.randint(0, 300)}})
                for block in blocks:  # one line per content block, chained
                    uuid = self.uuid()
                    obj = envelope("assistant", uuid, self.tick(3000), requestId=request, message={
                        "model": "claude-opus-4-1", "id": message_id, "type": "message", "role": "assistant",
                        "content": [block], "stop_reason": None, "stop_sequence": None, "usage": usage})
                    yield uuid, dump(obj)
                    parent = uuid
                if rng.random() < 0.3:  # hook progress, stamped a little in the past
                    uuid = self.uuid()
                    past = self.stamp(self.clock - datetime.timedelta(milliseconds=rng.randint(1, 900)))
                    obj = envelope("progress", uuid, past, toolUseID=tool_id, parentToolUseID=tool_id,
                                   data={"type": "hook_progress", "hookEvent": "PreToolUse", "hookName": "PreToolUse:" + tool,
                                         "command": "check.sh"})
                    yield uuid, dump(obj)
                output = self.text(50, 3000 if rng.random() < 0.95 else 30000, self.output)
                uuid = self.uuid()
                obj = envelope("user", uuid, self.tick(), message={"role": "user", "content": [
                    {"tool_use_id": tool_id, "type": "tool_result", "content": output, "is_error": False}]},
                    toolUseResult={"stdout": output, "stderr": "", "interrupted": False, "isImage": False},
                    sourceToolAssistantUUID=parent)
                yield uuid, dump(obj)
                parent = uuid
            base["isSidechain"] = False
            if rng.random() < 0.3:
                uuid = self.uuid()
                obj = envelope("system", uuid, self.tick(), subtype="turn_duration", durationMs=rng.randint(1000, 900000),
                               isMeta=False)
                yield uuid, dump(obj)


def write_transcript(path: Path, size: int, seed: int) -> int:
    """A single long session of about ``size`` bytes: a resumed session that replays an
    earlier stretch (duplicate uuids), a few inline sidechains, a torn last line."""
    gen = Generator(seed)
    session = gen.uuid()
    lines_written = 0
    replay: List[str] = []
    replayed = False
    written = 0
    with open(str(path), "w", encoding="utf-8") as f:
        for uuid, line in gen.session(session, "/work/demo", gen.clock, sidechains=True):
            if uuid is not None and written > size // 3 and len(replay) < 400:
                replay.append(line)
            if not replayed and written > size // 2 and replay:
                for old in replay:  # the resume copies those lines again, uuids and all
                    f.write(old + "\n")
                    written += len(old.encode("utf-8")) + 1
                replayed = True
            f.write(line + "\n")
            written += len(line.encode("utf-8")) + 1
            lines_written += 1
            if written >= size:
                break
        f.write('{"parentUuid":"x","type":"assistant","uuid":"%s","timestamp":"2026-' % gen.uuid())
    return lines_written


def write_store(root: Path, total: int, files: int, seed: int) -> List[Tuple[str, str]]:
    """A store of ``files`` session files (about ``total`` bytes) in 40 project dirs,
    with forks (a child copying its parent's prefix), verbatim copies (ties), an
    escaped uuid, agent files and deeper subagent files. Returns the probes (kind, uuid)."""
    gen = Generator(seed)
    rng = gen.rng
    projects = ["-work-proj-%02d" % i for i in range(40)]
    weights = [rng.lognormvariate(0, 1.2) for _ in range(files)]
    scale = total / sum(weights)
    sizes = [max(2000, int(w * scale)) for w in weights]
    made: List[Tuple[Path, List[str]]] = []  # path, a sample of its message uuids
    forks: List[Tuple[str, Path, Path]] = []
    escaped_probe = ""
    start = datetime.datetime(2025, 6, 1, tzinfo=datetime.timezone.utc)
    for i, size in enumerate(sizes):
        project = root / projects[i % len(projects)]
        project.mkdir(parents=True, exist_ok=True)
        stem = gen.uuid() if i % 25 else "agent-%07x" % rng.getrandbits(28)
        path = project / (stem + ".jsonl")
        sample: List[str] = []
        written = 0
        with open(str(path), "w", encoding="utf-8") as f:
            if made and rng.random() < 0.05:  # a fork: the parent's first half, byte for byte
                parent_path, parent_sample = made[rng.randrange(len(made))]
                with open(str(parent_path), "r", encoding="utf-8") as p:
                    parent_lines = p.read().splitlines()
                prefix = parent_lines[: max(1, len(parent_lines) // 2)]
                for line in prefix:
                    f.write(line + "\n")
                    written += len(line.encode("utf-8")) + 1
                copied = [json.loads(l).get("uuid") for l in prefix]
                copied = [u for u in copied if u]
                if copied:
                    forks.append((copied[len(copied) // 2], parent_path, path))
            moment = start + datetime.timedelta(minutes=rng.randint(0, 300000))
            for uuid, line in gen.session(stem, "/work/proj", moment):
                if uuid is not None and rng.random() < 0.02:
                    sample.append(uuid)
                if not escaped_probe and uuid is not None and i == files // 2:
                    escaped_probe = uuid
                    line = line.replace('"uuid":"%s"' % uuid,
                                        '"uuid":"%s"' % "".join("\\u%04x" % ord(c) for c in uuid), 1)
                f.write(line + "\n")
                written += len(line.encode("utf-8")) + 1
                if written >= size:
                    break
        made.append((path, sample or [stem]))
    # Verbatim copies into other project dirs: equal max timestamps, the smaller path wins.
    ties = []
    for path, sample in rng.sample(made, 3):
        other = root / projects[(projects.index(path.parent.name) + 7) % len(projects)] / ("%s.jsonl" % gen.uuid())
        shutil.copyfile(str(path), str(other))
        ties.append(sample[0])
    # Sub-agent files one level deeper: not part of the store's one-level scan.
    deep = made[0][0].parent / made[0][0].stem / "subagents"
    deep.mkdir(parents=True)
    shutil.copyfile(str(made[1][0]), str(deep / "agent-a1b2c3d.jsonl"))
    probes = [("stem", made[3][0].stem), ("stem", made[len(made) // 3][0].stem),
              ("inner", made[len(made) // 4][1][0]), ("inner", made[-2][1][-1]),
              ("tie", ties[0]), ("escaped", escaped_probe),
              ("absent", gen.uuid()), ("absent", gen.uuid())]
    if forks:
        probes.append(("fork", forks[0][0]))
    return probes


def ensure_inputs(scratch: Path, sizes: Dict[str, int]) -> dict:
    """Generate the inputs unless the same parameters were generated before."""
    manifest_path = scratch / "manifest.json"
    params = dict(sizes, seed=SEED, version=4)
    if manifest_path.is_file():
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("params") == params:
            return manifest
    if scratch.exists():
        shutil.rmtree(str(scratch))
    scratch.mkdir(parents=True)
    transcript = scratch / "transcript.jsonl"
    lines = write_transcript(transcript, sizes["transcript_bytes"], SEED)
    store = scratch / "projects"
    probes = write_store(store, sizes["store_bytes"], sizes["store_files"], SEED + 1)
    manifest = {"params": params, "transcript": str(transcript), "transcript_lines": lines,
                "store": str(store), "probes": probes}
    manifest_path.write_text(json.dumps(manifest))
    return manifest


def _warm(paths: List[Path]) -> int:
    """Read files once so every timed job sees them in the page cache."""
    total = 0
    for path in paths:
        with open(str(path), "rb") as f:
            while True:
                block = f.read(1 << 20)
                if not block:
                    break
                total += len(block)
    return total


# --- the measured jobs ---------------------------------------------------------------------------

_BARE_LOOP = r"""
import json
with open(%(path)r, "rb") as f:
    for line in f:
        try:
            json.loads(line)
        except ValueError:
            pass
"""

_ASSEMBLE_FILE = r"""
import os, sys
sys.path.insert(0, %(src)r)
from termsprawl_context.store.assemble import assemble_file
with open(os.devnull, "wb") as out, open(os.devnull, "w") as err:
    count = assemble_file(%(path)r, out, err)
print(count)
"""

_LOCATE = r"""
import io, json, sys
sys.path.insert(0, %(src)r)
from termsprawl_context.store.locate import locate
answers = [locate(uuid, %(store)r, io.StringIO(), byte_filter=%(byte_filter)r) for uuid in %(probes)r]
print(json.dumps(answers))
"""


_IMPORT_ONLY = r"""
import sys
sys.path.insert(0, %(src)r)
import termsprawl_context.store.assemble
"""


def bench_assemble(path: str, rounds: int, quick: bool) -> List[dict]:
    size = os.path.getsize(path)
    baseline = measure(_IMPORT_ONLY % {"src": str(SRC)})["maxrss_kib"] * 1024
    bare_times, assemble_times, rss = [], [], []
    count = None
    for _ in range(rounds):  # alternate, so both see the same machine state
        bare_times.append(measure(_BARE_LOOP % {"path": path})["wall"])
        result = measure(_ASSEMBLE_FILE % {"src": str(SRC), "path": path})
        assemble_times.append(result["wall"])
        rss.append(result["maxrss_kib"] * 1024)
        count = int(result["stdout"])
    bare, assembled, peak = min(bare_times), min(assemble_times), max(rss)
    ratio = bare / assembled
    # At quick sizes the interpreter's own ~10 MB would dominate, so the quick row
    # judges only what assembling adds above an import-only run.
    judged = peak - baseline if quick else peak
    return [
        dict(metric="assemble-file peak RSS%s / file size" % (" above import-only baseline" if quick else ""),
             measured="peak %.1f MiB (import-only %.1f MiB) / %.1f MiB = %.1f %%"
             % (peak / 2 ** 20, baseline / 2 ** 20, size / 2 ** 20, 100.0 * judged / size),
             target="<= %d %%" % (RSS_TARGET * 100), ok=judged <= RSS_TARGET * size),
        dict(metric="assemble-file throughput vs bare json.loads loop",
             measured="bare %.2f s (%.0f MB/s), assemble-file %.2f s (%.0f MB/s, %d lines out) = %.0f %%"
             % (bare, size / MB / bare, assembled, size / MB / assembled, count, 100 * ratio),
             target=">= %d %%" % (THROUGHPUT_TARGET * 100), ok=ratio >= THROUGHPUT_TARGET),
    ]


def bench_locate(store: str, probes: List[Tuple[str, str]], fast_rounds: int) -> List[dict]:
    uuids = [uuid for _kind, uuid in probes]
    files = sum(1 for p in Path(store).glob("*/*.jsonl"))
    size = _warm(sorted(Path(store).glob("*/*.jsonl")))
    plain = measure(_LOCATE % {"src": str(SRC), "store": store, "byte_filter": False, "probes": uuids})
    fast_runs = [measure(_LOCATE % {"src": str(SRC), "store": store, "byte_filter": True, "probes": uuids})
                 for _ in range(fast_rounds)]
    fast = min(fast_runs, key=lambda r: r["wall"])
    expected = json.loads(plain["stdout"])
    same = [json.loads(run["stdout"]) == expected for run in fast_runs]
    agree = [a == b for a, b in zip(json.loads(fast["stdout"]), expected)]
    kinds: Dict[str, int] = {}
    for kind, _uuid in probes:
        kinds[kind] = kinds.get(kind, 0) + 1
    found = sum(1 for answer in expected if answer is not None)
    speedup = plain["wall"] / fast["wall"]
    return [
        dict(metric="locate vs seed scan (%d probes, %.0f MB in %d files)" % (len(uuids), size / MB, files),
             measured="seed %.2f s, byte-search %.2f s = %.1fx (peak RSS %.1f / %.1f MiB)"
             % (plain["wall"], fast["wall"], speedup, plain["maxrss_kib"] / 1024, fast["maxrss_kib"] / 1024),
             target=">= %.0fx" % LOCATE_SPEEDUP_TARGET, ok=speedup >= LOCATE_SPEEDUP_TARGET),
        dict(metric="locate answers identical to the seed scan",
             measured="%d/%d probes (%s; %d found)" % (sum(agree), len(agree),
                                                      ", ".join("%s %d" % kv for kv in sorted(kinds.items())), found),
             target="all", ok=all(agree) and all(same)),
    ]


def run(scratch: Path, quick: bool = False) -> list:
    """Generate inputs under ``scratch`` (reused when present) and measure; one row per
    metric: dict(metric, measured, target, ok)."""
    scratch = Path(scratch)
    sizes = QUICK if quick else FULL
    manifest = ensure_inputs(scratch / ("quick" if quick else "full"), sizes)
    _warm([Path(manifest["transcript"])])
    rows = bench_assemble(manifest["transcript"], rounds=3, quick=quick)
    rows += bench_locate(manifest["store"], [tuple(p) for p in manifest["probes"]], fast_rounds=3 if quick else 2)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small inputs (tens of MB), seconds to run")
    parser.add_argument("--scratch", default=os.path.join(tempfile.gettempdir(), "termsprawl-bench-store"),
                        help="where inputs are generated and kept (default: %(default)s)")
    args = parser.parse_args(argv)
    rows = run(Path(args.scratch), quick=args.quick)
    width = max(len(row["metric"]) for row in rows)
    for row in rows:
        print("%-4s %-*s  %s  (target %s)" % ("ok" if row["ok"] else "FAIL", width, row["metric"],
                                              row["measured"], row["target"]))
    return 0 if all(row["ok"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
