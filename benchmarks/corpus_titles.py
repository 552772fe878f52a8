"""The corpus's session titles by a source tree's rule: how many summary-pointed sessions
their summary names, and how many titles are harness text (issue 21's figures).

The corpus (../shared/corpus) is laid out as a store, one project folder per corpus owner
folder (each session file linked under its session's name; sub-agent files left out), and
listed by ``scan_sessions`` of the tree given. A session is summary-pointed when a summary
line (``leafUuid``) in its folder names one of its last ``--last`` records with a uuid;
``--other-files`` counts only summaries written in another file.

    python3 benchmarks/corpus_titles.py [--src DIR] [--last N] [--other-files]

Run it on two trees (say a checkout of main and this one) to compare before and after.
"""

import argparse
import collections
import json
import os
import re
import sys
import tempfile
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus"
UUID_NAME = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})")


def records(path):
    with open(str(path), "rb") as f:
        for raw in f:
            try:
                record = json.loads(raw)
            except ValueError:
                continue
            if isinstance(record, dict):
                yield record


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--src", default=str(REPO), help="the source tree whose rule titles (default: this one)")
    parser.add_argument("--last", type=int, default=10, help="a session's last N uuid records count (default 10)")
    parser.add_argument("--other-files", action="store_true", help="only summaries written in another file")
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(args.src, "src"))
    from termsprawl_context.store import sessions as S

    store = Path(tempfile.mkdtemp(prefix="corpus-titles-")) / "projects"
    origin = {}
    for path in sorted(CORPUS.rglob("*.jsonl")):
        if "agent-" in path.name:
            continue
        match = UUID_NAME.search(path.name)
        name = match.group(1) if match else str(uuid.uuid5(uuid.NAMESPACE_URL, str(path)))
        folder = store / ("-" + re.sub(r"[^A-Za-z0-9]", "-", str(path.parent.relative_to(CORPUS))))
        folder.mkdir(parents=True, exist_ok=True)
        link = folder / (name + ".jsonl")
        if not link.exists():
            os.symlink(str(path.resolve()), str(link))
            origin[(folder.name, name)] = path
    summaries = collections.defaultdict(dict)  # folder -> leaf -> the files naming it
    for (folder, name), path in origin.items():
        for record in records(path):
            if record.get("type") == "summary" and isinstance(record.get("leafUuid"), str):
                summaries[folder].setdefault(record["leafUuid"], set()).add(name)
    listed = {
        (os.path.basename(os.path.dirname(i.transcript_path)), i.session_id): i
        for i in S.scan_sessions(str(store)).sessions
    }
    pointed = named = harness = titled = 0
    for (folder, name), path in sorted(origin.items()):
        info = listed.get((folder, name))
        if info is None:
            continue
        if info.title:
            titled += 1
            if _harness(info.title):
                harness += 1
                print("  harness-text title: %s %s %r" % (path.name, info.title_source, info.title[:60]))
        own = [r["uuid"] for r in records(path) if isinstance(r.get("uuid"), str)][-args.last :]
        hits = [u for u in own if u in summaries[folder] and not (args.other_files and summaries[folder][u] == {name})]
        if hits:
            pointed += 1
            if info.title_source == "summary":
                named += 1
            else:
                print("  not named by its summary: %s (%s %r)" % (path.name, info.title_source, info.title[:60]))
    print(
        "summary-pointed sessions: %d, named by a summary: %d (%.0f%%)"
        % (pointed, named, 100.0 * named / max(1, pointed))
    )
    print("titled sessions: %d, harness-text titles: %d" % (titled, harness))


# Openings of the harness's text in a title (fixed here, so both trees are judged alike).
HARNESS_OPENINGS = (
    "<",
    "Caveat: The messages below",
    "[Request interrupted",
    "This session is being continued",
    "Unknown skill: ",
    "Unknown command: ",
    "[SYSTEM NOTIFICATION",
)


def _harness(title):
    return title.lstrip().startswith(HARNESS_OPENINGS)


if __name__ == "__main__":
    main()
