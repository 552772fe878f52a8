"""Run the pinned real Claude Code in print mode against a ``ScriptedServer``.

The wiring observed with 2.1.328 (../shared/reference/claude-code-today.md): a scratch
``HOME`` (the client writes its transcripts under ``$HOME/.claude/projects``), the server's
URL as ``ANTHROPIC_BASE_URL``, any ``ANTHROPIC_API_KEY``, no non-essential traffic and no
telemetry; ``-p PROMPT --output-format json --permission-mode default`` and never
``--allowedTools``, so only the project's own rules decide what runs.
"""

import json
import os
import subprocess
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional

from .clients import client_bin

NODE_ID_ENV = "TERMSPRAWL_NODE_ID"
PRINT_FLAGS = ["--output-format", "json", "--permission-mode", "default"]
TIMEOUT = 90


class ClaudeRun(NamedTuple):
    returncode: int
    stdout: str
    stderr: str
    answer: Optional[Dict[str, Any]]  # the JSON answer, when stdout held one

    @property
    def denials(self) -> List[Dict[str, Any]]:
        return list((self.answer or {}).get("permission_denials") or [])

    @property
    def session_id(self) -> str:
        return (self.answer or {}).get("session_id") or ""


def make_home(root: Path) -> Path:
    """A scratch HOME for one client: nothing of the machine's own ``~/.claude``."""
    home = Path(root)
    home.mkdir(parents=True, exist_ok=True)
    return home


def client_env(home: Path, url: str, node_id: Optional[str] = None, extra: Optional[Dict[str, str]] = None):
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "x",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "TMPDIR": str(home / "tmp"),
    }
    (home / "tmp").mkdir(exist_ok=True)
    if node_id is not None:
        env[NODE_ID_ENV] = node_id
    for key, value in (extra or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def run_claude(
    prompt: str,
    cwd: Path,
    home: Path,
    url: str,
    node_id: Optional[str] = None,
    extra_args: Optional[List[str]] = None,
    env: Optional[Dict[str, str]] = None,
    timeout: int = TIMEOUT,
) -> ClaudeRun:
    """One print-mode run: ``claude -p PROMPT`` plus ``extra_args`` (``--resume ID`` ...)."""
    argv = [client_bin("claude"), "-p", prompt] + PRINT_FLAGS + list(extra_args or [])
    done = subprocess.run(
        argv,
        cwd=str(cwd),
        env=client_env(home, url, node_id, env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=timeout,
    )
    out = done.stdout.decode("utf-8", "replace")
    answer = None
    try:
        parsed = json.loads(out)
        answer = parsed if isinstance(parsed, dict) else None
    except ValueError:
        pass
    return ClaudeRun(done.returncode, out, done.stderr.decode("utf-8", "replace"), answer)


def transcripts(home: Path) -> List[Path]:
    """Every session record the client wrote under the scratch HOME, main and sub-agent."""
    root = Path(home) / ".claude" / "projects"
    return sorted(root.rglob("*.jsonl")) if root.is_dir() else []


def records(path: Path) -> List[Dict[str, Any]]:
    out = []
    for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def session_record(home: Path, session_id: str) -> Path:
    """The main record of ``session_id`` (``<project folder>/<id>.jsonl``)."""
    found = [p for p in transcripts(home) if p.name == session_id + ".jsonl"]
    assert len(found) == 1, (session_id, transcripts(home))
    return found[0]
