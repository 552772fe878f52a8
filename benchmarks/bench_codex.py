#!/usr/bin/env python3
"""The dump and the hand-off of a Codex CLI peer vs a Claude Code peer of the same size.

    python3 benchmarks/bench_codex.py [--quick] [--scratch DIR] [--python PY]

Both are read from the end and the dump stops after the last 40 turns (a Codex rollout
also reads its first line and probes its first MiB for announcements), so neither cost
grows with the file. Rows, each timed as medians of interleaved runs of the source in
fresh interpreters (the machine's speed cancels out): the Codex peer's dump and hand-off
at 1 MB and at the large size, each against the Claude Code peer of the same size.
Shown, no target.
"""

import argparse
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "src"
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.generate import write_transcript  # noqa: E402
from benchmarks.run import clean_env, interleaved, interpreter, project, table  # noqa: E402

MB = 1 << 20
FIXTURE = (
    REPO
    / "tests"
    / "fixtures"
    / "codex"
    / "sessions"
    / "2026"
    / "12"
    / "01"
    / "rollout-2026-12-01T23-23-33-01a233eb-aec3-7ca3-ad52-6d382ed8cbfe.jsonl"
)


def codex_rollout(path: Path, size: int) -> Path:
    """A rollout of about ``size`` bytes: the real fixture's head, then its turn (the
    typed prompt, its event, a tool call and a 2 KB output, the announcement and the
    answer) repeated with fresh ids."""
    lines = FIXTURE.read_bytes().splitlines(True)
    head = b"".join(lines[:8])
    n = 0
    with open(str(path), "wb") as f:
        f.write(head)
        written = len(head)
        while written < size:
            n += 1
            turn = [
                {
                    "timestamp": "2026-12-01T00:00:00Z",
                    "type": "response_item",
                    "payload": {
                        "type": "message",
                        "id": "msg_%d" % n,
                        "role": "user",
                        "content": [{"type": "input_text", "text": "prompt %d about the parser" % n}],
                    },
                },
                {
                    "timestamp": "2026-12-01T00:00:00Z",
                    "type": "event_msg",
                    "payload": {
                        "type": "item_completed",
                        "item": {
                            "type": "UserMessage",
                            "id": "u%d" % n,
                            "content": [{"type": "text", "text": "prompt %d" % n}],
                        },
                    },
                },
                {
                    "timestamp": "2026-12-01T00:00:01Z",
                    "type": "response_item",
                    "payload": {
                        "type": "function_call",
                        "id": "fc_%d" % n,
                        "name": "exec_command",
                        "arguments": json.dumps({"cmd": "cat parser.py"}),
                        "call_id": "call_%d" % n,
                    },
                },
                {
                    "timestamp": "2026-12-01T00:00:02Z",
                    "type": "response_item",
                    "payload": {
                        "type": "function_call_output",
                        "call_id": "call_%d" % n,
                        "output": "Chunk ID: x\nProcess exited with code 0\nOutput:\n" + "x = 1\n" * 340,
                    },
                },
                {
                    "timestamp": "2026-12-01T00:00:03Z",
                    "type": "event_msg",
                    "payload": {
                        "type": "item_completed",
                        "item": {
                            "type": "AgentMessage",
                            "id": "a_%d" % n,
                            "content": [{"type": "Text", "text": "answer %d" % n}],
                        },
                    },
                },
                {
                    "timestamp": "2026-12-01T00:00:03Z",
                    "type": "response_item",
                    "payload": {
                        "type": "message",
                        "id": "a_%d" % n,
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": "answer %d: the parser splits on spaces" % n}],
                    },
                },
            ]
            body = "".join(json.dumps(x) + "\n" for x in turn).encode()
            f.write(body)
            written += len(body)
    return path


def codex_project(root: Path, rollout: Path) -> Path:
    proj = project(root, rollout)
    (proj / ".termsprawl" / "transcripts" / "b.json").write_text(
        json.dumps({"version": 1, "path": str(rollout.resolve()), "harness": "codex-cli"})
    )
    return proj


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--scratch", metavar="DIR")
    parser.add_argument("--python", metavar="PY")
    args = parser.parse_args(argv)
    large = (20 if args.quick else 200) * MB
    runs, warmups = (5, 1) if args.quick else (9, 2)
    scratch = Path(args.scratch or tempfile.mkdtemp(prefix="bench-codex-"))
    python = interpreter(args.python)
    home = scratch / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = dict(clean_env(home), PYTHONPATH=str(SRC))
    rows = []
    for size in (1 * MB, large):
        tag = "%dMB" % (size // MB)
        cx = codex_project(scratch / ("cx-" + tag), codex_rollout(scratch / ("rollout-" + tag + ".jsonl"), size))
        claude_path = scratch / ("claude-" + tag + ".jsonl")
        write_transcript(str(claude_path), size, seed=1)
        cc = project(scratch / ("cc-" + tag), claude_path)
        for label, extra in (("dump", []), ("hand-off", ["--format", "markdown"])):
            commands = [[python, "-m", "termsprawl_context", "--cwd", str(p), "--self", "a"] + extra for p in (cx, cc)]
            codex_s, claude_s = interleaved(commands, env, runs, warmups)
            rows.append(
                {
                    "metric": "%s, Codex peer vs Claude Code peer, %s" % (label, tag),
                    "measured": "%.3fs vs %.3fs = %.2fx" % (codex_s, claude_s, codex_s / claude_s),
                    "target": "shown",
                    "ok": None,
                }
            )
    print("interpreter: %s" % python)
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
