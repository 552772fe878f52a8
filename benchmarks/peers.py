#!/usr/bin/env python3
"""The peer tools the listing is measured against, installed into a benchmark-only dir.

    python3 benchmarks/peers.py setup DIR   # DIR/venv (pip, pinned) and DIR/npm (npm --prefix, pinned)
    python3 benchmarks/peers.py check DIR   # which peers DIR holds

The benchmarks find DIR from their ``--peers DIR`` option, else ``$TERMSPRAWL_BENCH_PEERS``. Nothing here is
a dependency of the package: the peers live only in DIR, and are run as whole processes with ``HOME`` (and, for
ccusage, ``CLAUDE_CONFIG_DIR``) pointing at a scratch home whose ``.claude/projects`` is a symlink to the store.

Each peer's command is one that lists every session of the store:

* claude-conversation-extractor 1.1.2 (PyPI): ``claude-extract --list`` (reads every line of every file);
* claude-history 0.8.0 (PyPI): ``claude-history list -n 1000000`` (no project: all of them; its default
  limit is small, so a big ``-n``);
* ccusage 18.0.11 (npm): ``ccusage session --json --offline``. Pinned to 18: the 20.x releases need a native
  optional package that does not exist for linux-x64 (20.0.26).
"""

import collections
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

PEERS_ENV = "TERMSPRAWL_BENCH_PEERS"
PYPI_PINS = ("claude-conversation-extractor==1.1.2", "claude-history==0.8.0")
NPM_PIN = "ccusage@18.0.11"
SETUP = "python3 benchmarks/peers.py setup DIR, then --peers DIR or %s=DIR" % PEERS_ENV

# where: the executable under DIR; argv: what follows it; counted: how its output is read back (below).
Peer = collections.namedtuple("Peer", "name where argv counted")
PEERS = (
    Peer("claude-conversation-extractor", ("venv", "bin", "claude-extract"), ("--list",), "sessions"),
    Peer("claude-history", ("venv", "bin", "claude-history"), ("list", "-n", "1000000"), "sessions"),
    Peer("ccusage", ("npm", "node_modules", ".bin", "ccusage"), ("session", "--json", "--offline"), "projects"),
)

# The line each peer prints with its count ("Found 500 Claude sessions", "Conversations (500 total, ...").
_COUNTS = {
    "claude-conversation-extractor": re.compile(rb"Found (\d+) Claude sessions"),
    "claude-history": re.compile(rb"Conversations \((\d+) total"),
}

Outcome = collections.namedtuple("Outcome", "wall code stdout stderr")  # code None: killed at the timeout


def peers_dir(explicit=None):
    """The peers' dir: ``explicit``, else ``$TERMSPRAWL_BENCH_PEERS``, else None."""
    return explicit or os.environ.get(PEERS_ENV) or None


def by_name(name):
    """The peer called ``name``."""
    return next(peer for peer in PEERS if peer.name == name)


def executable(peer, root):
    """The peer's executable under ``root``, or None when it is not installed there."""
    if not root:
        return None
    path = os.path.join(root, *peer.where)
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


def missing_text(peer, root):
    """The measured cell of a row whose peer is absent: what is missing and how to install it."""
    where = " in %s" % root if root else ": no peers dir named"
    return "not measured: %s not installed%s (%s)" % (peer.name, where, SETUP)


def home_for(folder, projects):
    """A scratch HOME whose ``.claude/projects`` is a symlink to ``projects``; made once, re-pointed if stale."""
    claude = os.path.join(str(folder), ".claude")
    os.makedirs(claude, exist_ok=True)
    link = os.path.join(claude, "projects")
    target = os.path.abspath(str(projects))
    if os.path.islink(link) and os.readlink(link) != target:
        os.unlink(link)
    if not os.path.lexists(link):
        os.symlink(target, link)
    return str(folder)


def command(peer, root, home):
    """(argv, env) of the peer's listing of the store under ``home``."""
    node = shutil.which("node")
    # The npm bin is a `#!/usr/bin/env node` script: node's own dir goes on PATH.
    path = ":".join(p for p in ([os.path.dirname(node)] if node else []) + ["/usr/bin", "/bin"])
    env = {"PATH": path, "HOME": home, "LANG": "C.UTF-8", "CLAUDE_CONFIG_DIR": os.path.join(home, ".claude")}
    return [executable(peer, root)] + list(peer.argv), env


def listed(peer, stdout):
    """How many sessions (ccusage: project groups) the peer's output lists, or None when it cannot be read."""
    if peer.counted == "projects":
        try:
            return len(json.loads(stdout.decode("utf-8", "replace"))["sessions"])
        except (ValueError, KeyError, TypeError):
            return None
    found = _COUNTS[peer.name].search(stdout)
    return int(found.group(1)) if found else None


def timed(argv, env, timeout):
    """One whole-process run, killed (with its process group) after ``timeout`` seconds."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = child.communicate(timeout=timeout)
        code = child.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except OSError:
            pass
        out, err = child.communicate()
        code = None
    return Outcome(time.perf_counter() - start, code, out, err)


def failure_text(outcome):
    """Why a run failed, in a few words: its exit and the line of stderr that says most."""
    lines = [line.strip() for line in outcome.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    said = [line for line in lines if "error" in line.lower()] or lines
    how = "exit %d" % outcome.code if outcome.code >= 0 else "killed by signal %d" % -outcome.code
    return "%s: %s" % (how, said[0][:100]) if said else how


def setup(root, python=None, npm=None):
    """Create ``root/venv`` (``python -m venv`` + pip install of the pinned PyPI peers) and ``root/npm``
    (``npm install --prefix`` of the pinned ccusage). Returns the names of the peers now installed."""
    root = os.path.abspath(root)
    os.makedirs(root, exist_ok=True)
    venv = os.path.join(root, "venv")
    if not os.path.isfile(os.path.join(venv, "bin", "python")):
        subprocess.run([python or sys.executable, "-m", "venv", venv], check=True)
    subprocess.run([os.path.join(venv, "bin", "python"), "-m", "pip", "install", "-q"] + list(PYPI_PINS), check=True)
    npm = npm or shutil.which("npm")
    if npm:
        subprocess.run([npm, "install", "--save-exact", "--prefix", os.path.join(root, "npm"), NPM_PIN], check=True)
    else:
        sys.stderr.write("npm not found: ccusage not installed\n")
    return [p.name for p in PEERS if executable(p, root)]


def main(argv=None):
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("setup", "check"))
    parser.add_argument("dir", nargs="?", help="the peers' dir (default: $%s)" % PEERS_ENV)
    args = parser.parse_args(argv)
    root = peers_dir(args.dir)
    if not root:
        parser.error("name the peers' dir (or set $%s)" % PEERS_ENV)
    if args.action == "setup":
        setup(root)
    for peer in PEERS:
        print("%-30s %s" % (peer.name, executable(peer, root) or "not installed"))
    return 0 if all(executable(p, root) for p in PEERS) else 1


if __name__ == "__main__":
    sys.exit(main())
