"""Driving the real Codex CLI against the scripted Responses API server, in scratch homes.

One ``CodexSandbox`` is a scratch ``HOME`` with ``CODEX_HOME`` holding a ``config.toml``
that points the client at the local server (``model_provider = "mock"``, ``wire_api =
"responses"``) with project hooks on (``[features] hooks = true``), and a project
directory. ``exec`` runs ``codex exec --json`` there (``--trust`` trusts the project so its
``.codex/hooks.json`` loads; ``--dangerously-bypass-hook-trust`` skips the hook review for
that one run) and returns the thread id the client announced.
"""

import json
import os
import subprocess
from pathlib import Path

from .clients import client_bin

MODEL = "mock-model"
EXEC_TIMEOUT = 90
# `codex exec` as every test runs it (0.169.0): JSON events, no git repo or trust prompt,
# the project's hooks trusted, and no sandbox between the client and the scratch project.
EXEC_FLAGS = (
    "exec",
    "--json",
    "--skip-git-repo-check",
    "--trust",
    "--dangerously-bypass-hook-trust",
    "-s",
    "danger-full-access",
)


def config_toml(base_url, extra="", features=True):
    """The scratch config; ``features=False`` leaves out ``[features] hooks = true`` (the
    README's quick start says Codex needs none)."""
    return (
        'model = "%s"\nmodel_provider = "mock"\n%s\n'
        '[model_providers.mock]\nname = "mock"\nbase_url = "%s"\nwire_api = "responses"\n\n' % (MODEL, extra, base_url)
    ) + ("[features]\nhooks = true\n" if features else "")


class CodexSandbox(object):
    def __init__(self, root, server, extra_config="", features=True):
        self.root = Path(root)
        self.home = self.root / "home"
        self.codex_home = self.home / ".codex"
        self.project = self.root / "proj"
        self.codex_home.mkdir(parents=True)
        self.project.mkdir(parents=True)
        (self.codex_home / "config.toml").write_text(config_toml(server.base_url, extra_config, features))
        self.server = server
        self.bin = client_bin("codex")

    def env(self, **extra):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CODEX_", "OPENAI_", "TERMSPRAWL_"))}
        env.update(
            HOME=str(self.home),
            CODEX_HOME=str(self.codex_home),
            OPENAI_API_KEY="sk-test",
            RUST_LOG="error",
            NO_COLOR="1",
        )
        env.update(extra)
        return env

    def exec(self, *args, node=None, cwd=None, check=True):
        """``codex exec --json ARGS`` in the project; (thread id, events, completed process)."""
        extra = {"TERMSPRAWL_NODE_ID": node} if node else {}
        argv = [self.bin, *EXEC_FLAGS, *args]
        done = subprocess.run(
            argv,
            cwd=str(cwd or self.project),
            env=self.env(**extra),
            capture_output=True,
            text=True,
            timeout=EXEC_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        events = []
        for line in done.stdout.splitlines():
            try:
                events.append(json.loads(line))
            except ValueError:
                pass
        thread = next((e.get("thread_id") for e in events if e.get("type") == "thread.started"), None)
        if check:
            assert done.returncode == 0 and thread, (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
        return thread, events, done

    def rollouts(self):
        return sorted((self.codex_home / "sessions").glob("*/*/*/rollout-*.jsonl"))

    def rollout(self, thread):
        found = [p for p in self.rollouts() if p.name.endswith(thread + ".jsonl")]
        assert len(found) == 1, (thread, self.rollouts())
        return found[0]
