#!/usr/bin/env python3
"""The seed's locate and assemble-file (transcript-parse's assemble.py), the anchor rows
of the benchmarks: the plain algorithm as the reference notes describe it, nothing
faster (shared/reference/transcript-parse.md; the tests' oracles are the same rules).

    python3 benchmarks/seed_reference.py locate <uuid> <projects-dir>
    python3 benchmarks/seed_reference.py assemble-file <path>

Every line of every file is parsed (text mode, errors="replace", as the seed opens
them); a file holds the uuid by its name stem or a line's ``uuid``; the latest
``timestamp`` wins, ties to the smaller path. assemble-file keeps each message's line
in memory, dedups keep-last at the first-seen position, sorts by (timestamp, first seen).
"""

import json
import os
import sys


def parse_line(raw):
    raw = raw.strip()
    if not raw:
        return None
    try:
        obj = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def locate(uuid, projects_dir):
    best_path, best_ts = None, ""
    if not os.path.isdir(projects_dir):
        return None
    for name in sorted(os.listdir(projects_dir)):
        sub = os.path.join(projects_dir, name)
        if not os.path.isdir(sub):
            continue
        for entry in sorted(os.listdir(sub)):
            if not entry.endswith(".jsonl"):
                continue
            path = os.path.join(sub, entry)
            contains = os.path.splitext(entry)[0] == uuid
            max_ts = ""
            try:
                with open(path, "r", encoding="utf-8", errors="replace", newline="\n") as f:
                    for line in f:
                        obj = parse_line(line)
                        if obj is None:
                            continue
                        if obj.get("uuid") is not None and obj.get("uuid") == uuid:
                            contains = True
                        ts = obj.get("timestamp")
                        if isinstance(ts, str) and ts > max_ts:
                            max_ts = ts
            except OSError:
                continue
            if contains and (best_path is None or max_ts > best_ts or (max_ts == best_ts and path < best_path)):
                best_path, best_ts = path, max_ts
    return best_path


def assemble_file(path, out):
    by_uuid = {}
    idx = 0
    with open(path, "r", encoding="utf-8", errors="replace", newline="\n") as f:
        for line in f:
            obj = parse_line(line)
            if obj is None or obj.get("uuid") is None:
                continue
            uuid = obj["uuid"]
            try:
                hash(uuid)
            except TypeError:
                uuid = json.dumps(uuid, sort_keys=True)
            ts = obj.get("timestamp")
            ts = ts if isinstance(ts, str) else ""
            if uuid in by_uuid:
                by_uuid[uuid][0] = ts
                by_uuid[uuid][2] = line.strip()
            else:
                by_uuid[uuid] = [ts, idx, line.strip()]
            idx += 1
    count = 0
    for ts, _idx, raw in sorted(by_uuid.values(), key=lambda rec: (rec[0], rec[1])):
        out.write(raw + "\n")
        count += 1
    return count


def main(argv):
    if len(argv) == 3 and argv[0] == "locate":
        found = locate(argv[1], argv[2])
        if found is None:
            return 1
        print(found)
        return 0
    if len(argv) == 2 and argv[0] == "assemble-file":
        assemble_file(argv[1], sys.stdout)
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
