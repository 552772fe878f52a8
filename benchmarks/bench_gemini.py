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
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import tracemalloc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from termsprawl_context.harness import claude, gemini  # noqa: E402
from termsprawl_context.transcript.turns import entries_turns, read_turns  # noqa: E402

PAD = "lorem ipsum dolor sit amet " * 12


def write_pair(folder, turns, rebuild_every=200):
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
        for i in range(turns):
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
            if rebuild_every and i and i % rebuild_every == 0:
                put({"$set": {"messages": history}})
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


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rebuild-every", type=int, default=200, help="turns between resumes (0: none)")
    args = parser.parse_args(argv)
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
