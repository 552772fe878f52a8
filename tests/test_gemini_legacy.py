"""Older single-JSON Gemini CLI chats (``session-*.json``, one object written by
``JSON.stringify(conversation, null, 2)``): listed with their session id, found by
``find``, hit by ``search``, and recognised as Gemini's outside the store however large
(their first line is ``{``: no line to sniff); the listing reads only their head."""

import json
import subprocess
import sys

from conftest import SRC
from conftest_rss import rss_env

from termsprawl_context import harness
from termsprawl_context.harness.gemini import facts

SESSION = "01d5e551-aaaa-4bbb-8ccc-000000000001"
PROMPT = "Refactor the billing module but DO NOT touch the refunds table"


def legacy(path, answers=3, pad=500, indent=2):
    conversation = {
        "sessionId": SESSION,
        "projectHash": "ab",
        "startTime": "2025-06-01T00:00:00.000Z",
        "lastUpdated": "2025-06-01T00:10:00.000Z",
        "messages": [{"id": "m1", "timestamp": "2025-06-01T00:00:01.000Z", "type": "user", "content": PROMPT}]
        + [
            {
                "id": "g%d" % i,
                "timestamp": "2025-06-01T00:00:02.000Z",
                "type": "gemini",
                "content": "a%d %s" % (i, "x" * pad),
            }
            for i in range(answers)
        ],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(conversation, indent=indent))
    return path


def store_chat(home):
    return legacy(home / ".gemini" / "tmp" / "proj" / "chats" / "session-2025-06-01T00-00-01d5e551.json")


def test_sessions_find_and_search_name_the_older_chat(tmp_path, run_pyz):
    home = tmp_path / "home"
    chat = store_chat(home)
    env = {"HOME": str(home)}
    listed = run_pyz(["sessions", "--harness", facts.NAME, "--json"], env=env)
    assert listed.returncode == 0, listed.stderr
    assert [(r["session_id"], r["transcript_path"]) for r in map(json.loads, listed.stdout.decode().splitlines())] == [
        (SESSION, str(chat))
    ]
    found = run_pyz(["find", SESSION[:8]], env=env)
    assert found.returncode == 0 and found.stdout.decode() == "%s\t%s\n" % (SESSION, chat)
    hit = run_pyz(["search", "refunds", "--harness", facts.NAME], env=env)
    assert hit.returncode == 0 and hit.stdout.decode().startswith("%s:1\t" % chat), (hit.stdout, hit.stderr)


def test_a_large_older_chat_outside_the_store_is_gemini_s(tmp_path, run_pyz):
    for indent in (2, None):  # pretty-printed (its first line is "{") or one line over the sniff bound
        big = legacy(tmp_path / ("out-%s" % indent) / "chat.json", answers=3000, indent=indent)
        assert big.stat().st_size > 1 << 20
        assert harness.for_path(str(big)).name == facts.NAME
        shown = run_pyz(["show", str(big)])
        assert shown.returncode == 0 and shown.stdout.count(b"## assistant") > 0, shown.stderr


def test_a_claude_file_is_not_taken_for_an_older_chat(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps({"type": "user", "sessionId": "s", "message": {"role": "user", "content": "hi"}}) + "\n")
    assert harness.for_path(str(path)).name != facts.NAME
    braces = tmp_path / "y.json"
    braces.write_text('{\n  "messages": [{"sessionId": "a", "projectHash": "b"}]\n}')
    assert harness.for_path(str(braces)).name != facts.NAME  # the keys must come before the messages


_PROBE = r"""
import sys
sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2])
from conftest_rss import peak_rss_mb
from termsprawl_context import harness
from termsprawl_context.harness import gemini
from termsprawl_context.harness.gemini import facts
import os
os.environ["HOME"] = sys.argv[3]
rows = [(s.session_id, s.path) for s in gemini.HARNESS.sessions()]
assert rows and rows[0][0], rows
assert harness.for_path(sys.argv[4]).name == facts.NAME
print(peak_rss_mb())
"""


def test_listing_and_sniffing_a_big_older_chat_reads_its_head_only(tmp_path):
    home = tmp_path / "home"
    chat = home / ".gemini" / "tmp" / "proj" / "chats" / "session-2025-06-01T00-00-01d5e551.json"
    legacy(chat, answers=60000, pad=1000)  # ~60 MB of one object
    assert chat.stat().st_size > 60 << 20
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, str(SRC), str(SRC.parent / "tests"), str(home), str(chat)],
        env=rss_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.split()[-1]) < 64
