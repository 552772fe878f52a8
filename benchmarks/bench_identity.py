#!/usr/bin/env python3
"""Benchmark the stable-identity walk on a generated project directory.

    python3 benchmarks/bench_identity.py [--quick] [--scratch DIR]

The project dir holds 2,000 transcripts of realistic shape (1 GB; --quick: 80, 40 MB),
one conversation restarted three times among them (each continuation opens on a
``compact_boundary`` whose ``logicalParentUuid`` names a record of the one before). The
walk from the last continuation is timed with the byte-search sibling reader (ours) and
with the plain one that parses every line of every file (the baseline), side by side,
page cache warm for both; their answers must be identical. A second row times identity
on a session that continues nothing, in the 2,000-file dir and in a 10-file one: its
cost must not depend on the dir.

Files are made from a few generated bodies (``generate.write_transcript``), each copy's
uuids rewritten whole (a hash of the copy's index and the uuid) so no two files share
one, nor any long piece of one: generating 2,000 files one by one would cost minutes for
no different bytes. Rewriting only a uuid's first group, as version 2 of the data did,
left every copy of a body with the same 28-character uuid tails, and the restarts' own
ids were ``restart-<n>-<index>``: real transcripts (random uuids) have neither, and a byte
search for such a needle runs two to three times slower than for a real uuid, while the
parse it is compared with costs the same. Version 4 makes every id a random-looking uuid.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

REPO = Path(__file__).resolve().parent.parent
for entry in (str(REPO), str(REPO / "src")):
    if entry not in sys.path:
        sys.path.insert(0, entry)

from benchmarks.generate import write_transcript  # noqa: E402
from termsprawl_context.harness.claude import continuation  # noqa: E402
from tests.oracles import PlainSiblings  # noqa: E402

MB = 1 << 20
FULL = {"files": 2000, "bytes": 1024 * MB, "bases": 16, "runs": 2}
QUICK = {"files": 80, "bytes": 40 * MB, "bases": 4, "runs": 3}
SMALL_DIR_FILES = 10
SPEEDUP_TARGET = 5.0
FLAT_TARGET = 1.5  # no-continuation identity, big dir vs small dir
_UUID = re.compile(rb"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
DATA_VERSION = 4  # a project dir left by another version is rebuilt


def _made_uuid(seed: bytes) -> str:
    """A uuid-shaped id from ``seed``, as random-looking as Claude Code's."""
    h = hashlib.md5(seed).hexdigest()
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:32])


def _rewriter(prefix: bytes):
    """A uuid of a body's copy: the same in every record of the copy (links hold),
    unrelated to every other copy's."""
    seen = {}  # type: Dict[bytes, bytes]

    def rewrite(match) -> bytes:
        old = match.group(0)
        new = seen.get(old)
        if new is None:
            new = seen[old] = _made_uuid(prefix + old).encode()
        return new

    return rewrite


def row(metric, measured, target, ok) -> Dict:
    return {"metric": metric, "measured": measured, "target": target, "ok": ok}


def _last_uuid(body: bytes) -> str:
    for raw in reversed(body.splitlines()):
        try:
            value = json.loads(raw)
        except ValueError:
            continue
        if isinstance(value, dict) and isinstance(value.get("uuid"), str) and value["uuid"]:
            return value["uuid"]
    raise RuntimeError("generated body without a uuid")


# The conversations the walk is timed on: (name, restarts); a missing predecessor is a
# continuation whose record is in no file, so the walk reads the whole dir and degrades.
CHAINS = (("one restart", 1), ("three restarts", 3), ("missing predecessor", 0))


def build(scratch: Path, sizes: Dict) -> Dict:
    """The project dir (reused when a previous run completed one here) and, per
    conversation, where the walk starts and what it must answer."""
    project = scratch / ("project-%d" % sizes["files"])
    done = scratch / ("project-%d.json" % sizes["files"])
    try:
        facts = json.loads(done.read_text())
        if len(os.listdir(str(project))) == sizes["files"] and facts.get("version") == DATA_VERSION:
            return facts
    except (OSError, ValueError):
        pass
    shutil.rmtree(str(project), ignore_errors=True)
    project.mkdir(parents=True)
    per_file = sizes["bytes"] // sizes["files"]
    bases = []
    for seed in range(sizes["bases"]):
        path = scratch / ("base-%d.jsonl" % seed)
        if not path.exists() or path.stat().st_size < per_file // 2:
            write_transcript(path, per_file, seed=1000 + seed)
        bases.append(path.read_bytes())
    # Each conversation's files sit at spread-out places in name order (file i is named
    # by (i * 7919) mod n, a permutation), its origin first in index order.
    lengths = [(restarts + 1) if restarts else 1 for _, restarts in CHAINS]
    slots = sizes["files"] // (sum(lengths) + 1)
    at = {}
    index = slots
    for chain, length in enumerate(lengths):
        for position in range(length):
            at[index] = (chain, position)
            index += slots
    state = {}  # chain -> (origin uuid, last uuid of its latest file, latest path)
    names = []
    for index in range(sizes["files"]):
        prefix = b"%08x" % index
        body = _UUID.sub(_rewriter(prefix), bases[index % len(bases)])
        name = "%04d-%s.jsonl" % ((index * 7919) % sizes["files"], prefix.decode())
        names.append(name)
        path = project / name
        if index in at:
            chain, position = at[index]
            restarts = CHAINS[chain][1]
            if restarts and position == 0:
                origin = next(
                    json.loads(raw)["uuid"]
                    for raw in body.splitlines()
                    if b'"uuid"' in raw and b'"parentUuid":null' in raw
                )
                state[chain] = (origin, _last_uuid(body), str(path))
            else:
                continues = state[chain][1] if restarts else _made_uuid(b"no-such-record-" + prefix)
                restart = {
                    "type": "system",
                    "subtype": "compact_boundary",
                    "uuid": _made_uuid(b"restart-%d-" % position + prefix),
                    "parentUuid": None,
                    "logicalParentUuid": continues,
                    "isSidechain": False,
                    "timestamp": "2026-12-01T10:00:00.000Z",
                }
                body = json.dumps(restart).encode() + b"\n" + body
                origin = state[chain][0] if restarts else restart["uuid"]
                state[chain] = (origin, _last_uuid(body), str(path))
        path.write_bytes(body)
    plain = project / ("%04d-plain.jsonl" % sizes["files"])  # a session that continues nothing
    plain.write_bytes(bases[0])
    spare = sorted(set(names) - {os.path.basename(state[c][2]) for c in state})[0]
    os.unlink(str(project / spare))  # keep the count exact
    small = scratch / "project-small"
    shutil.rmtree(str(small), ignore_errors=True)
    small.mkdir()
    for name in sorted(os.listdir(str(project)))[: SMALL_DIR_FILES - 1]:
        shutil.copyfile(str(project / name), str(small / name))
    shutil.copyfile(str(plain), str(small / plain.name))
    facts = {
        "version": DATA_VERSION,
        "project": str(project),
        "small": str(small),
        "plain": str(plain),
        "small_plain": str(small / plain.name),
        "walks": [
            {"name": CHAINS[c][0], "start": state[c][2], "id": state[c][0], "degraded": CHAINS[c][1] == 0}
            for c in range(len(CHAINS))
        ],
    }
    done.write_text(json.dumps(facts))
    return facts


def warm(folder: str) -> int:
    total = 0
    for name in os.listdir(folder):
        with open(os.path.join(folder, name), "rb") as f:
            while True:
                chunk = f.read(8 * MB)
                if not chunk:
                    break
                total += len(chunk)
    return total


def timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def run(scratch, quick: bool = False) -> List[Dict]:
    scratch = Path(scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    sizes = QUICK if quick else FULL
    facts = build(scratch, sizes)
    project = facts["project"]
    size = warm(project)
    label = "%d files, %d MB" % (len(os.listdir(project)), size // MB)

    rows = []
    for walk in facts["walks"]:
        start = walk["start"]
        answers = {}

        def ours():
            answers["ours"] = continuation.resolve_stable_session_id(project, start, continuation.ByteSearchSiblings())

        def plain():
            answers["plain"] = continuation.resolve_stable_session_id(project, start, PlainSiblings())

        t_ours, t_plain = [], []
        for i in range(sizes["runs"]):
            # Alternate which goes first, so neither always meets the other's leftovers.
            pair = (ours, plain) if i % 2 == 0 else (plain, ours)
            for fn in pair:
                (t_ours if fn is ours else t_plain).append(timed(fn))
        got = answers["ours"]
        other = answers["plain"]
        same = (
            (got.id, type(got.degraded), got.unreadable_siblings)
            == (other.id, type(other.degraded), other.unreadable_siblings)
            and got.id == walk["id"]
            and (got.degraded is not None) == walk["degraded"]
        )
        ratio = statistics.median(t_plain) / statistics.median(t_ours)
        rows.append(
            row(
                "identity walk, %s, %s: parse every file / byte search first" % (walk["name"], label),
                "%.1fx (%.0f / %.0f ms)%s"
                % (
                    ratio,
                    statistics.median(t_plain) * 1e3,
                    statistics.median(t_ours) * 1e3,
                    "" if same else "; ANSWERS DIFFER",
                ),
                ">= %.0fx, same answer" % SPEEDUP_TARGET,
                ratio >= SPEEDUP_TARGET and same,
            )
        )

    warm(facts["small"])
    big_t, small_t = [], []
    repeats = 20
    for i in range(repeats):
        big_t.append(timed(lambda: continuation.resolve_stable_session_id(project, facts["plain"])))
        small_t.append(timed(lambda: continuation.resolve_stable_session_id(facts["small"], facts["small_plain"])))
    flat = statistics.median(big_t) / statistics.median(small_t)
    rows.append(
        row(
            "identity, no continuation: %d-file dir / %d-file dir (time ratio)"
            % (len(os.listdir(project)), SMALL_DIR_FILES),
            "%.2fx (%.2f / %.2f ms)" % (flat, statistics.median(big_t) * 1e3, statistics.median(small_t) * 1e3),
            "<= %.1fx" % FLAT_TARGET,
            flat <= FLAT_TARGET,
        )
    )
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--scratch", type=Path)
    args = parser.parse_args(argv)
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="termsprawl-bench-identity-"))
    try:
        rows = run(scratch, args.quick)
    finally:
        if args.scratch is None:
            shutil.rmtree(str(scratch), ignore_errors=True)
    for r in rows:
        print("%s | %s | %s | %s" % (r["metric"], r["measured"], r["target"], "yes" if r["ok"] else "NO"))
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
