#!/usr/bin/env python3
"""Peak RSS of every command on the inputs that used to follow the longest line.

    python3 benchmarks/bench_resources.py [--quick] [--scratch DIR]

Inputs (sparse files, so they cost no disk): a transcript that is one newline-less run
of NUL bytes (``truncate -s 2G``), one whose last line is giant, one whose middle line
is giant; a store holding the first; 1 MiB hook payloads (one string, dense tiny
values, an astral character among ASCII); a project.json at the 16 MiB cap naming 60
peers. Each command runs from an artifact built fresh from src/, under the runner's RSS
wrapper (a fresh interpreter per run, so no parent's memory is counted). Target: every
peak under 64 MB (issue 13). A row also names the wall time, for scale only.

``streaming_rows`` (``--only streaming`` runs just those) adds issue 24's inputs: records
of 200k short lines and of 1e6 entries for ``entries``, ``query``, ``result-at`` and
``envelope-at``; an 85 MB session with fewer than 3 prompts and one of 1e6 ``isMeta``
prompts for ``show`` and the hand-off; ``assemble-file`` at 600k entries, and at 600k
entries whose uuids are not in the 36-character form, in one process and in four (issue
31 item 5; ``--only assemble`` runs just the assemble-file rows).
"""

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Dict, List

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

MB = 1 << 20
RSS_LIMIT_MB = 64
FULL = {"sparse": 2048 * MB, "giant": 1024 * MB}
QUICK = {"sparse": 256 * MB, "giant": 128 * MB}
HEAD_LINE = (
    b'{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2024-01-01T00:00:00Z",'
    b'"message":{"content":"before the giant line"}}\n'
)


def _sparse(path: Path, head: bytes, size: int, tail: bytes) -> Path:
    """``head``, then ``size`` NUL bytes (a hole: no disk used), then ``tail``."""
    with open(str(path), "wb") as f:
        f.write(head)
        f.truncate(len(head) + size)  # the hole, even when nothing follows it
        f.seek(len(head) + size)
        f.write(tail)
    return path


def inputs(scratch: Path, sizes: Dict[str, int]) -> Dict[str, Path]:
    store = scratch / "store" / "-p"
    store.mkdir(parents=True, exist_ok=True)
    return {
        "sparse file, no newline (%d MB)" % (sizes["sparse"] // MB): _sparse(
            store / "s1.jsonl", b"", sizes["sparse"], b""
        ),
        "giant last line (%d MB)" % (sizes["giant"] // MB): _sparse(
            scratch / "tail.jsonl", HEAD_LINE, sizes["giant"], b"x"
        ),
        "giant middle line (%d MB)" % (sizes["giant"] // MB): _sparse(
            scratch / "middle.jsonl", HEAD_LINE, sizes["giant"], b"\n" + HEAD_LINE.replace(b"u1", b"u2")
        ),
    }


def project_for(scratch: Path, transcript: Path, peers: int = 1, title_bytes: int = 0) -> Path:
    """A project whose node ``me`` is linked to ``peers`` nodes, each recorded as
    ``transcript``; with ``title_bytes``, a project.json that large naming them all."""
    root = scratch / ("project-%d-%d-%s" % (peers, title_bytes, transcript.stem))
    (root / ".termsprawl" / "links").mkdir(parents=True, exist_ok=True)
    (root / ".termsprawl" / "transcripts").mkdir(exist_ok=True)
    nodes = []
    for i in range(peers):
        peer = "peer%02d" % i
        (root / ".termsprawl" / "links" / ("me--%s.json" % peer)).write_text(
            json.dumps({"version": 1, "a": "me", "b": peer})
        )
        (root / ".termsprawl" / "transcripts" / (peer + ".json")).write_text(
            json.dumps({"version": 1, "path": str(transcript)})
        )
        nodes.append({"id": peer, "data": {"title": "Peer %d" % i}})
    if title_bytes:
        padding = "p" * max(0, title_bytes - len(json.dumps({"nodes": nodes, "pad": ""})) - 1)
        (root / ".termsprawl" / "project.json").write_text(json.dumps({"nodes": nodes, "pad": padding}))
    return root


def payloads(scratch: Path, store: Path) -> Dict[str, Path]:
    from termsprawl_context.store.hook_input import HOOK_INPUT_MAX_BYTES

    size = HOOK_INPUT_MAX_BYTES - 256  # the largest payload the hook accepts
    head = ('{"session_id":"s1","transcript_path":"%s","x":' % (store / "s1.jsonl")).encode()
    shapes = {
        "one 1 MiB string": b'"' + b"x" * size + b'"}',
        "1 MiB of tiny values": b"[" + b'"ab",' * (size // 5) + b'""]}',
        "an astral character in 1 MiB": b'"\xf0\x9f\x98\x80' + b"x" * size + b'"}',
    }
    found = {}
    for name, body in shapes.items():
        path = scratch / ("payload-%d.json" % len(found))
        path.write_bytes(head + body)
        found[name] = path
    return found


# --- issue 24: cite on records of many short lines ------------------------------------------------
# The red team's shapes: a 19 MB record of 200k short lines and one of 1e6, the person and
# the assistant taking turns, one shell call near the start and its result at the end.
# Quotes: "hi" (no needle: every line parsed; 500k entries hold it: ambiguous), one line's
# own words (unique), words in no entry and too short for a needle (not found: the hints
# read the session too), and the last line's tool output.
CITE_LINES_FULL = (200000, 1000000)
CITE_LINES_QUICK = (200000,)


def _cite_line(i: int, kind: str) -> bytes:
    head = '{"type":"%s","uuid":"u%d",' % ("assistant" if kind in ("assistant", "call") else "user", i)
    if kind == "user":
        body = '"message":{"content":"hi %d"}}' % i
    elif kind == "call":
        body = '"message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]}}'
    elif kind == "result":
        body = '"message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"file-zq9"}]}}'
    else:
        body = '"message":{"content":[{"type":"text","text":"ok %d"}]}}' % i
    return (head + body + "\n").encode()


def cite_record(path: Path, lines: int) -> Path:
    """``lines`` short entries (about 95 bytes each), written in blocks."""
    kinds = ["user", "call"] + ["user" if i % 2 else "assistant" for i in range(lines - 3)] + ["result"]
    with open(str(path), "wb") as f:
        for start in range(0, len(kinds), 10000):
            f.write(b"".join(_cite_line(i, k) for i, k in enumerate(kinds[start : start + 10000], start)))
    return path


def cite_rows(scratch: Path, measure, quick: bool) -> None:
    """Peak RSS of ``cite`` on the red team's records (issue 24 item 5), through ``measure``."""
    for lines in CITE_LINES_QUICK if quick else CITE_LINES_FULL:
        path = cite_record(scratch / ("cite-%d.jsonl" % lines), lines)
        label = "%dk short lines (%d MB)" % (lines // 1000, path.stat().st_size // MB)
        for what, args in (
            ("'hi' (no needle, %dk matches: ambiguous)" % (lines // 2000), ["hi"]),
            ("one line's words (unique)", ["hi %d" % (lines - 3)]),
            ("words in no entry, no needle (not found, hints)", ["zz q"]),
            ("--session, words in no entry (not found, hints)", ["zz q", "--session"]),
            ("the last line's tool output", ["file-zq9", "--source", "tool_result"]),
        ):
            measure("peak RSS, cite %s, %s" % (what, label), ["cite", path] + args)


# --- issue 24: the record readers, the hand-off and show, assemble-file ------------------------
# The red team's inputs: a 19 MB record of 200k short lines, a record of 1e6 entries, an
# 86 MB session with fewer than 3 prompts to its start, one of 1e6 prompts the person did
# not type (isMeta), and assemble-file at 600k entries. Quick sizes are a fifth.
STREAMING_FULL = {"short": 200000, "million": 1000000, "few_prompts_mb": 86, "meta": 1000000, "assemble": 600000}
STREAMING_QUICK = {"short": 200000, "million": 200000, "few_prompts_mb": 18, "meta": 200000, "assemble": 120000}
_CALL_ID = "toolu_0000000000000000000000"


def _entry_line(i: int, kind: str) -> bytes:
    uuid = "%08x-0000-4000-8000-%012x" % (i >> 16, i)
    ts = "2025-01-%02dT%02d:%02d:%02d.%03dZ" % (
        1 + i // 86400000 % 28,
        i // 3600000 % 24,
        i // 60000 % 60,
        i // 1000 % 60,
        i % 1000,
    )
    head = '{"type":"%s","uuid":"%s","sessionId":"s1","timestamp":"%s",' % (
        "assistant" if kind in ("assistant", "call") else "user",
        uuid,
        ts,
    )
    if kind == "user":
        body = '"message":{"role":"user","content":"hi %d"}}' % i
    elif kind == "meta":
        body = '"isMeta":true,"message":{"role":"user","content":"caveat %d"}}' % i
    elif kind == "call":
        body = (
            '"message":{"role":"assistant","content":[{"type":"tool_use","id":"%s","name":"Bash",'
            '"input":{"command":"ls"}}]}}' % _CALL_ID
        )
    elif kind == "result":
        body = (
            '"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"%s",'
            '"content":"file-a"}]}}' % _CALL_ID
        )
    else:
        body = '"message":{"role":"assistant","content":[{"type":"text","text":"ok %d"}]}}' % i
    return (head + body + "\n").encode()


def _record_file(path: Path, kinds) -> Path:
    """A record of the given entry kinds, written in large blocks."""
    with open(str(path), "wb") as f:
        block = []
        for i, kind in enumerate(kinds):
            block.append(_entry_line(i, kind))
            if len(block) >= 10000:
                f.write(b"".join(block))
                block = []
        f.write(b"".join(block))
    return path


def _short_kinds(n: int):
    """A call at line 2, its result on the last line; between, user and assistant turns."""
    yield "user"
    yield "call"
    for i in range(n - 3):
        yield "user" if i % 2 else "assistant"
    yield "result"


def _few_prompt_kinds(megabytes: int):
    """One prompt, then assistant answers to ``megabytes``: the person's last 3 prompts
    are never all found, so the hand-off reads to the start."""
    yield "user"
    for _ in range(megabytes * MB // len(_entry_line(10**6, "assistant"))):
        yield "assistant"


def _meta_kinds(n: int):
    yield "user"
    yield "assistant"
    for _ in range(n):
        yield "meta"


def streaming_rows(scratch: Path, measure, quick: bool) -> None:
    """Peak RSS of the record readers (``entries``, ``query``, ``result-at``,
    ``envelope-at``), ``show`` and the hand-off, and ``assemble-file``, on the red
    team's inputs (issue 24 item 4); each row goes through ``measure``."""
    sizes = STREAMING_QUICK if quick else STREAMING_FULL
    folder = scratch / "records" / "-p"
    folder.mkdir(parents=True, exist_ok=True)
    records = {
        "%dk short lines" % (sizes["short"] // 1000): _record_file(
            folder / "short.jsonl", _short_kinds(sizes["short"])
        ),
        "%dk entries" % (sizes["million"] // 1000): _record_file(
            folder / "million.jsonl", _short_kinds(sizes["million"])
        ),
    }
    for name, path in records.items():
        last = sum(1 for _ in open(str(path), "rb"))
        for label, args in (
            ("entries", ["entries", path]),
            ("entries --calls", ["entries", path, "--calls"]),
            ("query", ["query", path, "--where", 'type == "user"']),
            ("query --json", ["query", path, "--where", 'type == "user"', "--json"]),
            ("result-at, last line", ["result-at", path, str(last)]),
            ("envelope-at, last line", ["envelope-at", path, str(last)]),
        ):
            measure("peak RSS, %s, %s (%d MB)" % (label, name, path.stat().st_size // MB), args)
    sessions = {
        "fewer than 3 prompts": _record_file(
            folder / "11111111-1111-4111-8111-111111111111.jsonl", _few_prompt_kinds(sizes["few_prompts_mb"])
        ),
        "%dk isMeta prompts" % (sizes["meta"] // 1000): _record_file(
            folder / "22222222-2222-4222-8222-222222222222.jsonl", _meta_kinds(sizes["meta"])
        ),
    }
    for name, path in sessions.items():
        project = project_for(scratch, path)
        for label, args in (
            ("show", ["show", path, "--projects-dir", folder.parent]),
            ("show --format json", ["show", path, "--projects-dir", folder.parent, "--format", "json"]),
            ("hand-off", ["--cwd", project, "--self", "me", "--turns", "40"]),
        ):
            measure("peak RSS, %s, %s (%d MB)" % (label, name, path.stat().st_size // MB), args)
    assemble_rows(scratch, measure, quick)
    codex_rows(scratch, measure, quick)


def assemble_rows(scratch: Path, measure, quick: bool) -> None:
    """Peak RSS of ``assemble-file`` on 600k short entries (issue 24 item 4), and on as
    many whose uuids are not canonical, in one process and in four (issue 31 item 5)."""
    sizes = STREAMING_QUICK if quick else STREAMING_FULL
    many = _record_file(scratch / "assemble.jsonl", _short_kinds(sizes["assemble"]))
    measure(
        "peak RSS, assemble-file, %dk entries (%d MB)" % (sizes["assemble"] // 1000, many.stat().st_size // MB),
        ["assemble-file", many],
    )
    odd = _odd_uuid_file(scratch / "assemble-odd-uuids.jsonl", sizes["assemble"])
    for jobs in (1, 4):
        measure(
            "peak RSS, assemble-file, %dk entries, uuids not in the 36-character form (%d MB), %d job(s)"
            % (sizes["assemble"] // 1000, odd.stat().st_size // MB, jobs),
            ["assemble-file", odd],
            jobs=jobs,
        )


def odd_uuid_line(i: int) -> bytes:
    """Issue 31 item 5's shape: a short message whose uuid is 32 hex digits or a short id."""
    return (
        '{"type":"user","uuid":"%s","timestamp":"2025-01-01T%02d:%02d:%02d.%03dZ","message":{"content":"x"}}\n'
        % ("%032x" % (i * 2654435761) if i % 2 else "m%d" % i, i // 360000 % 24, i // 6000 % 60, i // 100 % 60, i % 100)
    ).encode()


def _odd_uuid_file(path: Path, n: int) -> Path:
    with open(str(path), "wb") as f:
        for low in range(0, n, 10000):
            f.write(b"".join(odd_uuid_line(i) for i in range(low, min(n, low + 10000))))
    return path


def codex_rows(scratch: Path, measure, quick: bool) -> None:
    """Peak RSS of ``entries`` on a Codex CLI rollout of the shape bench_codex writes
    (issue 29 item 3: it held every entry, 335 MB for 23 MB)."""
    from benchmarks.bench_codex import codex_rollout

    name = "rollout-2026-12-01T23-23-33-01a233eb-aec3-7ca3-ad52-6d382ed8cbfe.jsonl"
    rollout = codex_rollout(scratch / name, (4 if quick else 24) * MB)
    size = rollout.stat().st_size // MB
    for label, args in (("entries", ["entries", rollout]), ("entries --calls", ["entries", rollout, "--calls"])):
        measure("peak RSS, %s, Codex CLI rollout (%d MB)" % (label, size), args)


def run(scratch: Path, quick: bool, artifact: Path = None, only: str = "") -> List[Dict]:
    """The rows; ``artifact`` measures a given build (an older one, side by side)
    instead of one built fresh from src/."""
    from benchmarks.run import BenchError, clean_env, interpreter, peak_rss, row

    sizes = QUICK if quick else FULL
    if artifact is None:
        import build_zipapp

        artifact = scratch / "termsprawl-context.pyz"
        build_zipapp.build(artifact)
    py = interpreter()
    home = scratch / "home"
    home.mkdir(exist_ok=True)
    env = clean_env(home)
    store = scratch / "store"
    rows = []
    target = "< %d MB" % RSS_LIMIT_MB

    def measure(metric: str, args: List[str], stdin: Path = None, jobs: int = 0) -> None:
        argv = [py, str(artifact)] + [str(a) for a in args]
        run_env = dict(env, TERMSPRAWL_JOBS=str(jobs)) if jobs else env
        started = time.perf_counter()
        try:
            if stdin is not None:
                # The wrapper gives the child no stdin of its own: feed it through a shell-free redirect.
                argv = [
                    py,
                    "-c",
                    "import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.dup2(fd, 0); "
                    "os.execv(sys.argv[2], sys.argv[2:])",
                    str(stdin),
                ] + argv
            rss, code = peak_rss(argv, run_env)
        except BenchError as exc:
            rows.append(row(metric, "error: %s" % exc, target, "ERROR"))
            return
        wall = time.perf_counter() - started
        ok = rss < RSS_LIMIT_MB and code not in (70, -1)
        rows.append(row(metric, "%.1f MB (exit %d, %.1f s)" % (rss, code, wall), target, ok))

    baseline = peak_rss([py, "-I", "-c", "pass"], env)[0]
    rows.append(row("peak RSS, python3 -I -c pass (for scale)", "%.1f MB" % baseline, "", True))
    if only == "streaming":
        streaming_rows(scratch, measure, quick)
        return rows
    if only == "assemble":
        assemble_rows(scratch, measure, quick)
        return rows
    for name, transcript in inputs(scratch, sizes).items():
        project = project_for(scratch, transcript)
        for label, args in (
            ("dump", ["--cwd", project, "--self", "me"]),
            ("doctor", ["doctor", "--cwd", project, "--self", "me"]),
            ("assemble-file", ["assemble-file", transcript]),
            ("fresh", ["fresh", transcript, "--allow-in-progress"]),
        ):
            measure("peak RSS, %s, %s" % (label, name), args)
    stored = "store with a %d MB newline-less file" % (sizes["sparse"] // MB)
    for label, args in (
        ("locate", ["locate", "u1"]),
        ("assemble", ["assemble", "u1"]),
        ("sessions", ["sessions"]),
        ("find", ["find", "s1"]),
    ):
        measure("peak RSS, %s, %s" % (label, stored), args + ["--projects-dir", store])
    for name, payload in payloads(scratch, store / "-p").items():
        hook_project = project_for(scratch, store / "-p" / "s1.jsonl")
        env["TERMSPRAWL_NODE_ID"] = "me"
        measure("peak RSS, hook, %s" % name, ["hook", "--cwd", hook_project, "--projects-dir", store], stdin=payload)
    env.pop("TERMSPRAWL_NODE_ID", None)
    small = scratch / "small.jsonl"
    small.write_bytes(HEAD_LINE)
    crowded = project_for(scratch, small, peers=60, title_bytes=16 * MB - 4096)
    measure("peak RSS, dump, 60 peers and a 16 MiB project.json", ["--cwd", crowded, "--self", "me"])
    measure("peak RSS, doctor, 60 peers and a 16 MiB project.json", ["doctor", "--cwd", crowded, "--self", "me"])
    measure("peak RSS, links list, 60 peers", ["links", "list", "--cwd", crowded])
    cite_rows(scratch, measure, quick)
    streaming_rows(scratch, measure, quick)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--scratch", help="where inputs go (default: a temp dir)")
    parser.add_argument("--artifact", help="measure this build instead of one made from src/ (a before figure)")
    parser.add_argument(
        "--only", choices=["streaming", "assemble"], help="only these rows (issue 24's record readers; assemble-file)"
    )
    args = parser.parse_args(argv)
    import tempfile

    scratch = Path(args.scratch) if args.scratch else Path(tempfile.mkdtemp(prefix="bench-resources-"))
    scratch.mkdir(parents=True, exist_ok=True)
    rows = run(scratch, args.quick, Path(args.artifact) if args.artifact else None, args.only or "")
    for r in rows:
        print("%-70s %-32s %-8s %s" % (r["metric"], r["measured"], r["target"], r["ok"]))
    return 0 if all(r["ok"] is True for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
