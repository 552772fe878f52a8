"""Codex and Gemini peers read from the end (the hand-off, `show`): the same turns as the
forward reading, the file's first entry included, and Gemini's log rules resolved in time
linear in the log."""

import json

import pytest

from termsprawl_context import handoff, harness
from termsprawl_context.harness import gemini
from termsprawl_context.harness.gemini import facts

from conftest import REPO

CODEX_DAY = REPO / "tests" / "fixtures" / "codex" / "sessions" / "2026" / "12" / "01"
CODEX_PARENT = CODEX_DAY / "rollout-2026-12-01T23-23-33-01a233eb-aec3-7ca3-ad52-6d382ed8cbfe.jsonl"
HEADER = {"sessionId": "5e55", "projectHash": "ab", "startTime": "t", "lastUpdated": "t", "kind": "main"}
PROMPT = "Refactor the billing module but DO NOT touch the refunds table"


def _user(mid, text):
    return {"id": mid, "timestamp": "t", "type": "user", "content": [{"text": text}]}


def _said(mid, text):
    return {"id": mid, "timestamp": "t", "type": "gemini", "content": text, "thoughts": []}


def _codex_rollout(path, texts):
    """A rollout of the real client's first line, then one message per ``(role, text)``."""
    meta = CODEX_PARENT.read_bytes().split(b"\n", 1)[0]
    lines = [meta]
    for role, text in texts:
        kind = "input_text" if role == "user" else "output_text"
        item = {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}
        lines.append(json.dumps({"timestamp": "t", "type": "response_item", "payload": item}).encode())
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def _chat(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.mark.parametrize("window,prompts,tools", [(40, 3, False), (2, 1, False), (1, 1, True)])
def test_the_oldest_entry_is_kept_when_reading_reaches_the_file_start(tmp_path, window, prompts, tools):
    """Issue 29, item 2: the hand-off's backward collector was never finished, so the file's
    first entry (a Gemini legacy chat's only prompt) was dropped."""
    legacy = tmp_path / "session-2026-01-01T00-00-5e55aaaa.json"
    legacy.write_text(json.dumps(dict(HEADER, messages=[_user("u1", PROMPT), _said("g1", "On it.")])))
    log = _chat(tmp_path / "session-2026-01-01T00-00-5e55bbbb.jsonl", [HEADER, _user("u1", PROMPT), _said("g1", "ok")])
    rollout = _codex_rollout(tmp_path / "rollout.jsonl", [("user", PROMPT), ("assistant", "On it.")])
    for path, name in ((legacy, facts.NAME), (log, facts.NAME), (rollout, harness.CODEX_CLI)):
        found = harness.get(name)
        backward = handoff.read_harness_turns(str(path), found, window, prompts, tools, lines=True)
        assert backward == handoff.select_from_entries(found.entries(str(path)), window, prompts, tools)
        assert [t.text for t in backward if t.role == "user"] == [PROMPT]


def test_show_prints_a_gemini_chat_s_first_prompt(tmp_path, run_pyz):
    home = tmp_path / "home"
    chats = home / ".gemini" / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    chat = _chat(chats / "session-2026-01-01T00-00-5e55cccc.jsonl", [HEADER, _user("u1", PROMPT), _said("g1", "ok")])
    done = run_pyz(["show", str(chat), "--format", "json"], env={"HOME": str(home)})
    assert done.returncode == 0, done.stderr
    turns = json.loads(done.stdout)["turns"]
    assert [(t["role"], t["text"]) for t in turns] == [("user", PROMPT), ("assistant", "ok")]


# --- Gemini's log rules, resolved in linear time, as plainly as the client states them -----------
def _plain_resolution(data):
    """The oracle: each line parsed whole, a rewind found by walking the list, a `$set` list
    merged by walking both (the client's rules, as plainly as they can be said: a message
    sits at its last copy on a line of its own; a list orders the conversation, keeping what
    it lacks right before the listed message that followed it, never dropping it)."""
    order, value = [], {}
    for raw in data.split(b"\n"):
        try:
            record = json.loads(raw.decode("utf-8", "replace"))
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        target = record.get("$rewindTo")
        if isinstance(target, str):
            order = order[: order.index(target)] if target in order else []
        elif isinstance(record.get("id"), str):
            order = [k for k in order if k != record["id"]] + [record["id"]]
            value[record["id"]] = record
        elif isinstance(record.get("$set"), dict) and isinstance(record["$set"].get("messages"), list):
            listed = []
            for message in record["$set"]["messages"]:
                if isinstance(message, dict) and isinstance(message.get("id"), str):
                    listed += [] if message["id"] in listed else [message["id"]]
                    value[message["id"]] = message
            newest, left = [], len(listed) - 1  # the conversation from its newest; the list's newest not given
            for key in reversed(order):
                if key not in listed:
                    newest.append(key)
                elif listed.index(key) <= left:
                    newest += listed[listed.index(key) : left + 1][::-1]
                    left = listed.index(key) - 1
            order = (newest + listed[: left + 1][::-1])[::-1]
    return [(k, value[k]) for k in order]


def _generated_log(seed, count=60):
    """A chat log with copies, rewinds, `$set.messages` lists (spaced, with duplicate keys,
    odd bytes and non-ASCII text inside), torn and junk lines."""
    import random

    rnd = random.Random(seed)
    ids = ["m%d" % i for i in range(12)]
    lines = [json.dumps(HEADER).encode()]

    def message():
        mid = rnd.choice(ids)
        text = rnd.choice(["plain", "n\u00e9 \u65e5\u672c", 'q\\"uote', "\u2028x"]) + str(rnd.randrange(99))
        return (_user if rnd.random() < 0.5 else _said)(mid, text)

    for _ in range(count):
        roll = rnd.random()
        if roll < 0.4:
            lines.append(json.dumps(message()).encode())
        elif roll < 0.55:
            lines.append(json.dumps({"$rewindTo": rnd.choice(ids + ["unknown"])}).encode())
        elif roll < 0.8:
            listed = [message() for _ in range(rnd.randrange(5))] + [rnd.choice([1, "x", {}, {"id": 3}])]
            rnd.shuffle(listed)
            body = json.dumps(listed, separators=rnd.choice([(",", ":"), (" , ", " : ")]))
            line = '{ "summary" : "t", "$set" : { "messages" : %s , "lastUpdated": "t" } }' % body
            if rnd.random() < 0.2:
                line = '{"$set": {"messages": []}, "$set": {"messages": %s, "messages": %s}}' % ("[1]", body)
            raw = line.encode()
            if rnd.random() < 0.2 and b"plain" in raw:
                raw = raw.replace(b"plain", b"pl\xe2\x82ain", 1)  # a torn UTF-8 sequence inside a string
            lines.append(raw)
        elif roll < 0.9:
            lines.append(json.dumps(message()).encode()[: rnd.randrange(40)])
        else:
            lines.append(rnd.choice([b"junk", b"", b"[]", b"{}"]))
    return b"\n".join(lines) + b"\n"


def test_log_resolution_equals_the_plain_reading(tmp_path):
    """Issue 29, item 4: the linear resolution (rewinds cut from the end, a `$set` list's
    messages read back alone) gives each message the plain reading gives, in its place."""
    from termsprawl_context.harness.gemini import chat as chat_file
    from termsprawl_context.jsonl import open_regular

    path = tmp_path / "session-2026-01-01T00-00-5e55dddd.jsonl"
    for seed in range(150):
        data = _generated_log(seed)
        path.write_bytes(data)
        with open_regular(str(path)) as f:
            chat = chat_file.resolve_lines(f)
            found = [(m["id"], m) for m, _where, _index in chat_file.winners(f, chat)]
        assert found == [(k, json.loads(json.dumps(v))) for k, v in _plain_resolution(data)], seed


# --- memory: a chat of many small messages ------------------------------------------------------
_RSS_PROBE = r"""
import os, sys
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
from conftest_rss import peak_rss_mb
from termsprawl_context.cli import main
sys.argv = ["termsprawl-context"] + sys.argv[3:]
out = os.dup(1)
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
try:
    code = main()
except SystemExit as exc:
    code = exc.code
os.dup2(out, 1)
print(code, peak_rss_mb())
"""


@pytest.fixture(scope="module")
def small_messages_chat(tmp_path_factory):
    """A 22 MB chat of 150,000 short messages, in a store (the shape that cost `show` 73 MB)."""
    home = tmp_path_factory.mktemp("home")
    chats = home / ".gemini" / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    path = chats / "session-2026-12-01T00-00-5e55eeee.jsonl"
    with open(str(path), "w") as out:
        out.write(json.dumps(dict(HEADER, sessionId="5e55eeee-0000-4000-8000-000000000000")) + "\n")
        for i in range(150000):
            kind = "user" if i % 2 == 0 else "gemini"
            mid = "%08x-aaaa-4bbb-8ccc-%012x" % (i, i)
            message = {"id": mid, "timestamp": "2026-12-01T00:00:00.000Z", "type": kind, "content": [{"text": "hi"}]}
            out.write(json.dumps(message) + "\n")
    return home, path


@pytest.mark.parametrize("command", ["show", "sessions", "entries", "search"])
def test_a_chat_of_many_small_messages_costs_under_64_mb(small_messages_chat, command):
    """Issue 29, item 3: each message's place was a Python object (73 MB for `show`);
    `search` resolved the chat a second time, at once, to title its first hit (75 MB)."""
    import os
    import subprocess
    import sys

    from conftest import SRC
    from conftest_rss import HERE, rss_env

    home, path = small_messages_chat
    args = {
        "show": ["show", str(path)],
        "sessions": ["sessions", "--harness", facts.NAME],
        "entries": ["entries", str(path)],
        "search": ["search", "hi", "--harness", facts.NAME],
    }[command]
    env = dict(rss_env(), HOME=str(home))
    done = subprocess.run(
        [sys.executable, "-c", _RSS_PROBE, HERE, str(SRC)] + args, env=env, stdout=subprocess.PIPE, timeout=300
    )
    code, peak = done.stdout.split()
    assert code == b"0" and os.path.getsize(str(path)) > 20_000_000
    assert int(peak) < 64, "peak RSS %s MB" % peak.decode()


# --- issue 29, item 5: a Gemini chat read from its end ------------------------------------------
def _forward(path):
    from termsprawl_context.harness.gemini import chat as chat_file
    from termsprawl_context.jsonl import open_regular

    with open_regular(str(path)) as f:
        return [m for m, _where, _index in chat_file.winners(f, chat_file.resolve_lines(f))]


def _newest_first(path):
    from termsprawl_context.harness.gemini.chat import newest_messages
    from termsprawl_context.jsonl import open_regular

    with open_regular(str(path)) as f:
        return [(m["id"], m, where.offset) for m, where in newest_messages(f)]


def test_the_log_read_from_its_end_equals_the_forward_resolution(tmp_path):
    """The backward rule (the first copy of an id met from the end wins; a rewind cuts back
    to its target's copy; a `$set` list resolved forward only when the tail reaches it) gives
    the forward resolution's messages, newest first."""
    from termsprawl_context.harness.gemini import chat as chat_file
    from termsprawl_context.jsonl import open_regular

    path = tmp_path / "session-2026-01-01T00-00-5e55dddd.jsonl"
    for seed in range(300):
        data = _generated_log(seed, count=rnd_count(seed))
        path.write_bytes(data)
        with open_regular(str(path)) as f:
            chat = chat_file.resolve_lines(f)
            forward = [(m["id"], m, where.offset) for m, where, _index in chat_file.winners(f, chat)]
        assert _newest_first(path) == forward[::-1], seed


def rnd_count(seed):
    return 10 + seed % 70


def test_rewinds_met_backwards_follow_the_client(tmp_path):
    """Rewinds nested, repeated, to a message copied again later, or to one an earlier rewind
    removed (which clears everything before the later one): as the forward reading."""
    logs = [
        [_user("a", "1"), _said("b", "2"), _user("c", "3"), {"$rewindTo": "b"}, _said("b", "4"), _user("d", "5")],
        [_user("a", "1"), _said("b", "2"), _user("c", "3"), {"$rewindTo": "c"}, {"$rewindTo": "b"}, _user("e", "6")],
        [_user("a", "1"), _said("b", "2"), {"$rewindTo": "b"}, {"$rewindTo": "b"}, _user("e", "6")],
        [_user("a", "1"), _said("b", "2"), _user("c", "3"), {"$rewindTo": "b"}, {"$rewindTo": "c"}, _user("e", "6")],
        [_user("a", "1"), _said("b", "2"), _user("a", "1b"), {"$rewindTo": "b"}, _user("e", "6")],
        [_user("a", "1"), {"$set": {"messages": [_user("a", "1c"), _said("n", "x")]}}, _user("z", "9")],
    ]
    from termsprawl_context.harness.gemini import chat as chat_file
    from termsprawl_context.jsonl import open_regular

    path = tmp_path / "session-2026-01-01T00-00-5e55dddd.jsonl"
    expected = [["d", "b", "a"], ["e", "a"], ["e"], ["e"], ["e"], ["z", "n", "a"]]
    for records, ids in zip(logs, expected):
        _chat(path, [HEADER] + records)
        with open_regular(str(path)) as f:
            forward = [m["id"] for m, _where, _index in chat_file.winners(f, chat_file.resolve_lines(f))]
        assert [found[0] for found in _newest_first(path)] == forward[::-1] == ids


class _CountingFile(object):
    """A file that counts the bytes read through it."""

    def __init__(self, f):
        self.f, self.read_bytes = f, 0

    def read(self, size=-1):
        data = self.f.read(size)
        self.read_bytes += len(data)
        return data

    def __getattr__(self, name):
        return getattr(self.f, name)


def test_the_dump_s_tail_of_a_long_chat_reads_its_end_only(tmp_path):
    """Issue 29, item 5: the newest messages of a 6 MB chat cost a few blocks of its end,
    not its whole file (the forward resolution read all of it to place the first)."""
    import itertools

    from termsprawl_context.harness.gemini.chat import newest_messages
    from termsprawl_context.jsonl import open_regular

    path = tmp_path / "session-2026-01-01T00-00-5e55eeee.jsonl"
    records = [HEADER, {"$set": {"messages": [_user("ctx", "<session_context>x</session_context>")]}}]
    for i in range(20000):
        records.append(_user("u%d" % i, "question %d " % i + "x" * 120))
        records.append(_said("g%d" % i, ""))
        records.append(_said("g%d" % i, "answer %d " % i + "y" * 120))  # the copy that fills it in
    _chat(path, records)
    with open_regular(str(path)) as raw:
        f = _CountingFile(raw)
        newest = [m["id"] for m, _where in itertools.islice(newest_messages(f), 6)]
    assert newest == ["g19999", "u19999", "g19998", "u19998", "g19997", "u19997"]
    assert path.stat().st_size > 6_000_000 and f.read_bytes < 300_000
    # Resumed two turns before the end: 0.61's rebuilt list (here its last 300 messages, the
    # prompts with a hook's context left out) is merged from the end, not resolved forward.
    listed = [r for r in records[-900:] if not (r["id"].startswith("g") and not r["content"])]
    resume = {"$set": {"messages": [r for r in listed if r["id"] != "u19997"]}}
    _chat(path, records[:-6] + [resume] + records[-6:])
    with open_regular(str(path)) as raw:
        f = _CountingFile(raw)
        newest = [m["id"] for m, _where in itertools.islice(newest_messages(f), 8)]
    assert newest == ["g19999", "u19999", "g19998", "u19998", "g19997", "u19997", "g19996", "u19996"]
    assert f.read_bytes < 300_000 + len(json.dumps(resume)) * 2
    assert [found[0] for found in _newest_first(path)] == [m["id"] for m in _forward(path)][::-1]
    turns = gemini.HARNESS.last_turns(str(path), 4)
    assert [t.text.split()[:2] for t in turns] == [
        ["question", "19998"],
        ["answer", "19998"],
        ["question", "19999"],
        ["answer", "19999"],
    ]
