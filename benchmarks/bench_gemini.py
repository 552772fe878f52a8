#!/usr/bin/env python3
"""What a Gemini CLI peer costs the dump, against a Claude Code peer of the same conversation.

    python3 benchmarks/bench_gemini.py [--turns N] [--rounds R]

Generates, in a temporary folder, one conversation written twice: as a Gemini CLI 0.61 chat
(each model message appended again once its tool call is added, a `$set lastUpdated` after
every message, a resume's rebuilt `$set.messages` list every 200 turns by default, as the real client
writes) and as a Claude Code transcript. Then measures, alternating within each round, the
dump's read of the last 40 turns: Claude Code's backwards read (``read_turns``), Claude
Code's records read forward through the harness interface, and the Gemini chat read
through ``harness/gemini.py``: every entry forward, and the dump's tail read (one forward
pass to resolve the log, then only the last messages re-read), and newest first through
``entries_reverse`` (the hand-off's and the listings' way: the resolution keeps call ids). Prints medians
and ratios to the Claude Code backwards read, and each reader's peak traced memory.

``run`` (``benchmarks/run.py``'s rows, issue 29 item 5): the built artifact's dump and
hand-off with one Gemini CLI peer of about 100 MB (20 MB with ``--quick``) against one
Claude Code peer of the same size (<= 3x) and one 1 MB Gemini peer (<= 1.5x), and the
dump's peak RSS with the large Gemini peer (<= 64 MB); timed as medians of interleaved
runs in fresh interpreters. The chats are written as 0.61 writes them (a session
context list first, a copy of each model message once its tool call is added, a
``$set lastUpdated`` after each message). One more row, shown without a target: the same
large chat resumed 10 turns before its end (its tail reaches back past the resume's
``$set.messages`` list, so what came before the list is resolved forward).
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from termsprawl_context.harness import claude, gemini  # noqa: E402
from termsprawl_context.harness.gemini import facts  # noqa: E402
from termsprawl_context.transcript.turns import entries_turns, read_turns  # noqa: E402

PAD = "lorem ipsum dolor sit amet " * 12
HISTORY_KEPT = 3 * 2000
TURN_BYTES = 3000  # about what one turn adds to the chat
MB = 1 << 20


def write_pair(folder, turns, rebuild_every=200, size=0, resume_before_end=0):
    """The conversation as a Gemini chat and a Claude Code record (``turns`` turns; with
    ``size``, as many as make the chat about that many bytes). ``resume_before_end``: one
    resume's rebuilt list that many turns before the end (with ``size``)."""
    chat = os.path.join(folder, "session-2026-12-01T00-00-5e55aaaa.jsonl")
    record = os.path.join(folder, "claude.jsonl")
    history = []
    with open(chat, "w") as g, open(record, "w") as c:

        def put(obj):
            g.write(json.dumps(obj, separators=(",", ":")) + "\n")

        put(
            {
                "sessionId": "5e55aaaa-0000-4000-8000-000000000000",
                "projectHash": "ab",
                "startTime": "t",
                "lastUpdated": "t",
                "kind": "main",
            }
        )
        put({"$set": {"messages": [{"id": "ctx", "type": "user", "content": [{"text": "<session_context>"}]}]}})
        i = -1
        while (i + 1 < turns) if not size else (g.tell() < size):
            i += 1
            prompt = "prompt %d %s" % (i, PAD)
            user = {"id": "u%d" % i, "timestamp": "t", "type": "user", "content": [{"text": prompt}]}
            call = {
                "id": "c%d" % i,
                "name": "run_shell_command",
                "args": {"command": "ls %d" % i},
                "result": [
                    {
                        "functionResponse": {
                            "id": "c%d" % i,
                            "name": "run_shell_command",
                            "response": {"output": "out %d %s" % (i, PAD)},
                        }
                    }
                ],
            }
            empty = {"id": "g%d" % i, "timestamp": "t", "type": "gemini", "content": "", "thoughts": []}
            called = dict(empty, toolCalls=[call])
            answer = {
                "id": "a%d" % i,
                "timestamp": "t",
                "type": "gemini",
                "content": "answer %d %s" % (i, PAD),
                "thoughts": [],
            }
            for message in (user, empty, called, answer):
                put(message)
                put({"$set": {"lastUpdated": "t"}})
            history.extend((user, called, answer))
            del history[:-HISTORY_KEPT]  # a long chat's list after a compression, within a line's bound
            if rebuild_every and i and i % rebuild_every == 0:
                put({"$set": {"messages": history}})
            if resume_before_end and g.tell() >= size - resume_before_end * TURN_BYTES:
                put({"$set": {"messages": history}})  # the resume's rebuilt list
                resume_before_end = 0
            c.write(
                json.dumps({"type": "user", "uuid": "u%d" % i, "message": {"role": "user", "content": prompt}}) + "\n"
            )
            c.write(
                json.dumps(
                    {
                        "type": "assistant",
                        "uuid": "g%d" % i,
                        "message": {
                            "role": "assistant",
                            "content": [
                                {"type": "tool_use", "id": "c%d" % i, "name": "Bash", "input": {"command": "ls"}}
                            ],
                        },
                    }
                )
                + "\n"
            )
            c.write(
                json.dumps(
                    {
                        "type": "user",
                        "uuid": "r%d" % i,
                        "message": {
                            "role": "user",
                            "content": [
                                {"type": "tool_result", "tool_use_id": "c%d" % i, "content": "out %d %s" % (i, PAD)}
                            ],
                        },
                    }
                )
                + "\n"
            )
            c.write(
                json.dumps(
                    {
                        "type": "assistant",
                        "uuid": "a%d" % i,
                        "message": {
                            "role": "assistant",
                            "content": [{"type": "text", "text": "answer %d %s" % (i, PAD)}],
                        },
                    }
                )
                + "\n"
            )
    return chat, record


def _rows(scratch, quick, python=None):
    """The item 5 rows (see the module's doc), from the built artifact, run by ``python``
    (default: Debian's optimised /usr/bin/python3 when there is one)."""
    import shutil

    import build_zipapp
    from benchmarks.generate import write_transcript
    import subprocess

    from benchmarks.run import (
        SYSTEM_PYTHON,
        BenchError,
        clean_env,
        interleaved,
        interpreter,
        peak_rss,
        project,
        validate,
    )

    large = (20 if quick else 100) * MB
    runs, warmups = (5, 1) if quick else (9, 2)
    artifact = scratch / "termsprawl-context.pyz"
    build_zipapp.build(artifact)
    python = interpreter(python or (SYSTEM_PYTHON if os.path.exists(SYSTEM_PYTHON) else None))
    home = scratch / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = clean_env(home)

    def gemini_peer(tag, size, resume=0):
        folder = scratch / ("g-" + tag)
        folder.mkdir(parents=True, exist_ok=True)
        chat, claude_record = write_pair(str(folder), 0, 0, size=size, resume_before_end=resume)
        os.unlink(claude_record)
        root = project(scratch / ("gp-" + tag), Path(chat))
        entry = root / ".termsprawl" / "transcripts" / "b.json"
        entry.write_text(json.dumps({"version": 1, "path": chat, "harness": facts.NAME}))
        return root, os.path.getsize(chat)

    big, big_size = gemini_peer("large", large)
    small, small_size = gemini_peer("1MB", 1 * MB)
    resumed, _resumed_size = gemini_peer("resumed", large, resume=10)
    claude_path = scratch / "claude-large.jsonl"
    write_transcript(str(claude_path), big_size, seed=1)
    cc = project(scratch / "cp-large", claude_path)
    tag = "%d MB" % round(big_size / MB)
    rows = []
    for label, extra in (("dump", []), ("hand-off", ["--format", "markdown"])):
        commands = [[python, str(artifact), "--cwd", str(p), "--self", "a"] + extra for p in (big, cc, small, resumed)]
        for command in commands:
            if extra:
                done = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
                if done.returncode != 0 or done.stderr or b"prompt" not in done.stdout and b"## " not in done.stdout:
                    raise BenchError("hand-off: exit %d, %r" % (done.returncode, done.stderr[:120]))
            else:
                validate(command, env, expect_output=True)
        t_big, t_cc, t_small, t_resumed = interleaved(commands, env, runs, warmups)
        rows.append(
            {
                "metric": "%s, Gemini peer vs Claude Code peer, %s (%s)" % (label, tag, python),
                "measured": "%.3fs vs %.3fs = %.2fx" % (t_big, t_cc, t_big / t_cc),
                "target": "<= 3x",
                "ok": t_big / t_cc <= 3,
            }
        )
        rows.append(
            {
                "metric": "%s, Gemini peer %s vs 1 MB (%.1f MB; %s)" % (label, tag, small_size / MB, python),
                "measured": "%.3fs vs %.3fs = %.2fx" % (t_big, t_small, t_big / t_small),
                "target": "<= 1.5x",
                "ok": t_big / t_small <= 1.5,
            }
        )
        rows.append(
            {
                "metric": "%s, Gemini peer %s resumed 10 turns before its end vs not (%s)" % (label, tag, python),
                "measured": "%.3fs vs %.3fs = %.2fx" % (t_resumed, t_big, t_resumed / t_big),
                "target": "shown",
                "ok": None,
            }
        )
    for what, root in (("", big), (", resumed 10 turns before its end", resumed)):
        command = [python, str(artifact), "--cwd", str(root), "--self", "a"]
        peaks = [peak_rss(command, env)[0] for _ in range(3)]
        rows.append(
            {
                "metric": "peak RSS, dump with a %s Gemini peer%s (%s)" % (tag, what, python),
                "measured": "%.1f MB" % max(peaks),
                "target": "<= 64 MB",
                "ok": max(peaks) <= 64,
            }
        )
    shutil.rmtree(str(scratch / "g-large"), ignore_errors=True)
    shutil.rmtree(str(scratch / "g-resumed"), ignore_errors=True)
    return rows


def run(scratch, quick=False, python=None):
    """``benchmarks/run.py``'s rows: issue 29 item 5's bar."""
    return _rows(Path(scratch), quick, python)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rebuild-every", type=int, default=200, help="turns between resumes (0: none)")
    parser.add_argument("--rows", action="store_true", help="print run.py's rows (item 5's bar) instead")
    parser.add_argument("--quick", action="store_true", help="with --rows: a 20 MB peer, fewer runs")
    parser.add_argument("--python", help="with --rows: the interpreter running the artifact")
    args = parser.parse_args(argv)
    if args.rows:
        from benchmarks.run import table

        with tempfile.TemporaryDirectory() as folder:
            print(table(_rows(Path(folder), args.quick, args.python)))
        return
    with tempfile.TemporaryDirectory() as folder:
        chat, record = write_pair(folder, args.turns, args.rebuild_every)
        readers = [
            ("claude-code backwards (read_turns)", lambda: read_turns(record)),
            ("claude-code forward (harness entries)", lambda: entries_turns(claude.HARNESS.entries(record))),
            ("gemini-cli forward (harness entries)", lambda: entries_turns(gemini.HARNESS.entries(chat))),
            ("gemini-cli tail (last_turns: the dump's)", lambda: gemini.HARNESS.last_turns(chat, 40)),
            (
                "gemini-cli newest first (entries_reverse)",
                lambda: entries_turns(gemini.HARNESS.entries_reverse(chat), 40, newest_first=True),
            ),
        ]
        # The same answer: the last 40 turns, prompts and answers.
        assert [t.text for t in readers[2][1]()] == [t.text for t in readers[0][1]()]
        assert readers[3][1]() == readers[2][1]() == readers[4][1]()
        times = {name: [] for name, _ in readers}
        for _ in range(args.rounds):
            for name, read in readers:
                start = time.perf_counter()
                read()
                times[name].append(time.perf_counter() - start)
        peaks = {}
        for name, read in readers:
            tracemalloc.start()
            read()
            peaks[name] = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        base = statistics.median(times[readers[0][0]])
        print(
            "python %s; %d turns, a resume every %d; gemini chat %.1f MB, claude record %.1f MB"
            % (
                sys.version.split()[0],
                args.turns,
                args.rebuild_every,
                os.path.getsize(chat) / 1e6,
                os.path.getsize(record) / 1e6,
            )
        )
        for name, _ in readers:
            median = statistics.median(times[name])
            print("%-40s %8.1f ms  x%6.1f  peak %6.1f MB" % (name, median * 1e3, median / base, peaks[name] / 1e6))


if __name__ == "__main__":
    main()
