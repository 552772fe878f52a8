"""The benchmark's peer harness (benchmarks/peers.py): what it reads back from a peer's output, how it
stops one at its timeout, and the homes it points the peers at. The peers themselves are not needed."""

import json
import os
import sys
import time

import pytest

from conftest import REPO


@pytest.fixture
def peers(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO))
    from benchmarks import peers

    return peers


def test_each_peer_count_is_read_from_its_own_output(peers):
    # The lines each pinned peer prints (claude-extract --list, claude-history list, ccusage session --json).
    extractor = "\U0001f4c1 Saving logs to: /h/Desktop/Claude logs\n\n\U0001f4da Found 500 Claude sessions:\n".encode()
    history = b"Conversations (499 total, showing 499)\n#\tSession ID\tTitle\n"
    ccusage = json.dumps({"sessions": [{"sessionId": "-home-a"}, {"sessionId": "-home-b"}], "totals": {}}).encode()
    assert peers.listed(peers.by_name("claude-conversation-extractor"), extractor) == 500
    assert peers.listed(peers.by_name("claude-history"), history) == 499
    assert peers.listed(peers.by_name("ccusage"), ccusage) == 2
    for peer in peers.PEERS:
        assert peers.listed(peer, b"") is None
        assert peers.listed(peer, b"\x00garbage{") is None


def test_a_peer_is_installed_only_as_an_executable_under_its_dir(peers, tmp_path):
    peer = peers.by_name("claude-history")
    assert peers.executable(peer, None) is None
    assert peers.executable(peer, str(tmp_path)) is None
    assert "not installed in %s" % tmp_path in peers.missing_text(peer, str(tmp_path))
    assert peers.SETUP in peers.missing_text(peer, None)
    path = tmp_path.joinpath(*peer.where)
    path.parent.mkdir(parents=True)
    path.write_text("#!/bin/sh\n")
    assert peers.executable(peer, str(tmp_path)) is None  # not executable
    path.chmod(0o755)
    assert peers.executable(peer, str(tmp_path)) == str(path)


def test_the_peers_dir_comes_from_the_option_else_the_environment(peers, monkeypatch):
    monkeypatch.delenv(peers.PEERS_ENV, raising=False)
    assert peers.peers_dir() is None
    monkeypatch.setenv(peers.PEERS_ENV, "/from/env")
    assert peers.peers_dir() == "/from/env"
    assert peers.peers_dir("/given") == "/given"


def test_the_home_points_at_the_store_and_is_repointed(peers, tmp_path):
    first, second = tmp_path / "a" / "projects", tmp_path / "b" / "projects"
    first.mkdir(parents=True)
    second.mkdir(parents=True)
    home = peers.home_for(tmp_path / "home", first)
    link = os.path.join(home, ".claude", "projects")
    assert os.readlink(link) == str(first)
    peers.home_for(tmp_path / "home", second)
    assert os.readlink(link) == str(second)
    argv, env = peers.command(peers.by_name("ccusage"), str(tmp_path), home)
    assert env["HOME"] == home and env["CLAUDE_CONFIG_DIR"] == os.path.join(home, ".claude")
    assert argv[1:] == ["session", "--json", "--offline"]


@pytest.mark.skipif(not hasattr(os, "fork") or not hasattr(os, "killpg"), reason="no process groups here")
def test_a_run_past_its_timeout_is_killed_with_its_children(peers, tmp_path):
    # The child forks a grandchild that would outlive it: both are in the killed process group.
    marker = tmp_path / "grandchild-pid"
    script = (
        "import os, time, sys\npid = os.fork()\nif pid == 0:\n    time.sleep(60)\n    sys.exit(0)\n"
        "open(%r, 'w').write(str(pid))\ntime.sleep(60)\n" % str(marker)
    )
    start = time.perf_counter()
    outcome = peers.timed([sys.executable, "-c", script], dict(os.environ), timeout=1.0)
    assert outcome.code is None
    assert time.perf_counter() - start < 30
    grandchild = int(marker.read_text())
    for _ in range(100):  # gone within moments (a zombie left to an init that does not reap is dead too)
        try:
            with open("/proc/%d/stat" % grandchild) as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    break
            os.kill(grandchild, 0)
        except (ProcessLookupError, FileNotFoundError):
            break
        time.sleep(0.05)
    else:
        pytest.fail("the grandchild outlived the timeout")


def test_a_failed_run_says_its_exit_and_error_line(peers):
    outcome = peers.timed(
        [
            sys.executable,
            "-c",
            "import sys; sys.stderr.write('<--- GCs --->\\n" "FATAL ERROR: heap out of memory\\n'); sys.exit(3)",
        ],
        dict(os.environ),
        timeout=60,
    )
    assert outcome.code == 3
    assert peers.failure_text(outcome) == "exit 3: FATAL ERROR: heap out of memory"
    killed = peers.timed(
        [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGABRT)"], dict(os.environ), timeout=60
    )
    assert peers.failure_text(killed).startswith("killed by signal 6")
