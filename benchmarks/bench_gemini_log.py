#!/usr/bin/env python3
"""How a Gemini CLI chat log's resolution grows with the log: rewinds and `$set.messages`.

    python3 benchmarks/bench_gemini_log.py [--messages N] [--rounds R]

Two generated logs, each at 1x and 3x: (rewinds) messages appended with a `$rewindTo` of the
newest one after every second message, so the conversation keeps growing while it rewinds
(the old reading walked the whole list per rewind); ($set) a resume's `$set.messages` line
listing every message, then every second message written again on a line of its own, so the
winners alternate between the list and single lines (the old reading re-parsed the list per
message). Prints the median time of one full resolution plus its winners read back (the
forward reading every reader of a whole chat pays) and the 3x/1x ratio: linear is about 3.
``run`` gives ``benchmarks/run.py`` the two ratios as rows (target <= 4x for 3x the input),
and the same for the whole log read from its end (``tail.newest_messages``, what the
hand-off pays when it reads a chat back to its start).
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from termsprawl_context.harness.gemini import chat as chat_file  # noqa: E402
from termsprawl_context.jsonl import open_regular  # noqa: E402

HEADER = {"sessionId": "5e55aaaa-0000-4000-8000-000000000000", "projectHash": "ab", "startTime": "t", "kind": "main"}
PAD = "lorem ipsum dolor sit amet " * 4


def message(i):
    kind = "user" if i % 2 == 0 else "gemini"
    return {"id": "m%d" % i, "timestamp": "t", "type": kind, "content": [{"text": "text %d %s" % (i, PAD)}]}


def rewinds(count):
    lines = [HEADER]
    for i in range(count):
        lines.append(message(i))
        if i % 2:
            lines.append({"$rewindTo": "m%d" % i})  # drop the newest again
            lines.append(message(i))
    return lines


def set_messages(count):
    every = [message(i) for i in range(count)]
    lines = [HEADER] + every + [{"$set": {"messages": every}}]
    return lines + [dict(message(i), content=[{"text": "again %d" % i}]) for i in range(0, count, 2)]


def resolve(path):
    with open_regular(path) as f:
        chat = chat_file.resolve_lines(f)
        return sum(1 for _ in chat_file.winners(f, chat))


def resolve_backwards(path):
    from termsprawl_context.harness.gemini.chat import newest_messages

    with open_regular(path) as f:
        return sum(1 for _ in newest_messages(f))


def median_time(path, rounds, read=resolve, pick=statistics.median):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        read(path)
        times.append(time.perf_counter() - start)
    return pick(times)


def run(scratch, quick=False):
    """``benchmarks/run.py``'s rows: each log's 3x/1x time ratio, forward and from the end."""
    count, rounds = (1000, 3) if quick else (4000, 7)
    rows = []
    for name, build in (("rewinds", rewinds), ("$set.messages", set_messages)):
        paths = []
        for scale in (1, 3):
            path = os.path.join(str(scratch), "session-%s-%d.jsonl" % (name.strip("$"), scale))
            with open(path, "w") as out:
                for record in build(count * scale):
                    out.write(json.dumps(record, separators=(",", ":")) + "\n")
            paths.append(path)
        for how, read in (("forward", resolve), ("from the end", resolve_backwards)):
            # The fastest round: the least disturbed by a loaded machine's other work.
            one, three = (median_time(path, rounds, read, min) for path in paths)
            rows.append(
                {
                    "metric": "Gemini log with %s, %s: 3x the input vs 1x (python %s)"
                    % (name, how, sys.version.split()[0]),
                    "measured": "%.2fx (%.1f / %.1f ms)" % (three / one, three * 1e3, one * 1e3),
                    "target": "<= 4x",
                    "ok": three / one <= 4,
                }
            )
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    print("python %s (%s)" % (sys.version.split()[0], sys.executable))
    with tempfile.TemporaryDirectory() as folder:
        for name, build in (("rewinds", rewinds), ("$set.messages", set_messages)):
            seconds = []
            for scale in (1, 3):
                path = os.path.join(folder, "session-%s-%d.jsonl" % (name.strip("$"), scale))
                with open(path, "w") as out:
                    for record in build(args.messages * scale):
                        out.write(json.dumps(record, separators=(",", ":")) + "\n")
                seconds.append(median_time(path, args.rounds))
                print("%-14s %dx %8.1f KB %8.1f ms" % (name, scale, os.path.getsize(path) / 1e3, seconds[-1] * 1e3))
            print("%-14s 3x/1x %.2f" % (name, seconds[1] / seconds[0]))


if __name__ == "__main__":
    main()
