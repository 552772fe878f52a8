"""What the OpenCode and Cline CLI end-to-end tests share: a scratch project set up with the
built artifact's ``init``, a Claude Code peer (a fixture transcript in the scratch HOME's
store, recorded as node ``cc`` through Claude Code's own hook payload), and the lead's reads."""

import json
import os
import subprocess
import sys

CC_TYPED = "CC-PROMPT-1 what does parse do?"
CC_ANSWER = "CC-ANSWER-1 it returns its argument"
CC_SESSION = "0b7e2f0c-3f5e-4f6a-9a51-6c0d6c1f2a11"


class NodeWorld(object):
    def __init__(self, root, pyz):
        self.root, self.pyz = root, str(pyz)
        self.home, self.project = root / "home", root / "project"
        self.home.mkdir()
        self.project.mkdir()
        subprocess.run(["git", "init", "-q", str(self.project)], check=True)
        (self.project / "parser.py").write_text("def parse(x):\n    return x\n")

    def env(self, **extra):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home), "LANG": "C.UTF-8"}
        env.update({k: str(v) for k, v in extra.items()})
        return env

    def tool(self, *args, **kw):
        done = subprocess.run(
            [sys.executable, self.pyz] + [str(a) for a in args],
            cwd=str(self.project),
            env=self.env(),
            input=kw.get("stdin"),
            capture_output=True,
            timeout=60,
        )
        assert b"Traceback" not in done.stderr, done.stderr
        return done

    def entry(self, node):
        return json.loads((self.project / ".termsprawl" / "transcripts" / (node + ".json")).read_text())

    def claude_peer(self):
        """A Claude Code transcript in the scratch store, recorded as node ``cc`` by ``hook``."""
        folder = self.home / ".claude" / "projects" / "".join(c if c.isalnum() else "-" for c in str(self.project))
        folder.mkdir(parents=True)
        path = folder / (CC_SESSION + ".jsonl")
        base = {"sessionId": CC_SESSION, "cwd": str(self.project), "version": "2.1.328", "userType": "external"}
        lines = [
            dict(
                base,
                type="user",
                uuid="u1",
                parentUuid=None,
                timestamp="2026-12-01T10:00:00.000Z",
                message={"role": "user", "content": CC_TYPED},
            ),
            dict(
                base,
                type="assistant",
                uuid="a1",
                parentUuid="u1",
                timestamp="2026-12-01T10:00:01.000Z",
                message={"role": "assistant", "content": [{"type": "text", "text": CC_ANSWER}]},
            ),
        ]
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        payload = {
            "session_id": CC_SESSION,
            "transcript_path": str(path),
            "cwd": str(self.project),
            "hook_event_name": "SessionStart",
            "source": "startup",
        }
        done = subprocess.run(
            [str(self.project / ".termsprawl" / "bin" / "termsprawl-context"), "hook"],
            cwd=str(self.project),
            env=self.env(TERMSPRAWL_NODE_ID="cc", CLAUDE_PROJECT_DIR=self.project),
            input=json.dumps(payload).encode(),
            capture_output=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        return path


def lead_turns(world, node):
    """The lead's hand-off of ``node`` (JSON): ``[(role, text), ...]``."""
    done = world.tool("--cwd", world.project, "--self", "lead", "--format", "json", "--max-chars", "1000000")
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    peers = {p["id"]: p for p in json.loads(done.stdout.decode())["peers"]}
    return [(t["role"], t["text"]) for t in peers[node]["turns"]]


def after_last_user(body):
    """``(the last user message's text, the tool outputs after it)`` of a chat request."""
    messages = body.get("messages") or []
    last = max([i for i, m in enumerate(messages) if m.get("role") == "user"] or [-1])
    content = messages[last].get("content") if last >= 0 else ""
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    outputs = []
    for m in messages[last + 1 :]:
        if m.get("role") == "tool":
            c = m.get("content")
            outputs.append(c if isinstance(c, str) else json.dumps(c))
    return content or "", outputs
