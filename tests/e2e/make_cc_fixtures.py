#!/usr/bin/env python3
"""Fixture maker (not a test): runs the pinned real Claude Code against the scripted
Messages API server (anthropic_server.py) and copies the transcripts it writes into tests/fixtures/cc-2.1.328/.

    TERMSPRAWL_CLIENTS_DIR=/work/e2e-clients python3 tests/e2e/make_cc_fixtures.py

Each scenario runs in a scratch HOME and project; the server answers by rules on the
last message (tool results and keywords), so the records are what the client writes for
a real loop: a custom slash command, local commands, an async sub-agent whose own Bash
prints SUB-TOOL-OUTPUT-42, a background Bash, resume, continue and fork.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    from .anthropic_server import ScriptedServer, Text, ToolUse
except ImportError:  # run as a script
    from anthropic_server import ScriptedServer, Text, ToolUse  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
OUT = REPO / "tests" / "fixtures" / "cc-2.1.328"
CLAUDE = (
    Path(os.environ.get("TERMSPRAWL_CLIENTS_DIR") or (REPO / ".e2e-clients"))
    / "node_modules"
    / "@anthropic-ai/claude-code-linux-x64/claude"
)
TITLE = "Scripted title"  # every side request's answer (the session title)


def _flat(content):
    if isinstance(content, str):
        return content
    out = []
    for block in content or []:
        if isinstance(block, dict):
            if block.get("type") == "text":
                out.append(block.get("text", ""))
            elif block.get("type") == "tool_result":
                out.append("TOOL_RESULT:" + _flat(block.get("content")))
    return "\n".join(out)


def decide(body):
    """A text answer or a tool call, from the main request's last user message (side
    requests, without tools, get TITLE from the server)."""
    # The messages since the model last spoke (2.1.328 may end a request with a
    # `system`-role message of its own after the prompt).
    tail = []
    for message in reversed(body["messages"]):
        if message.get("role") == "assistant":
            break
        tail.insert(0, _flat(message.get("content")))
    last = "\n".join(tail)
    names = {t.get("name") for t in body.get("tools", [])}
    # The marker is in the sub-agent's tool output only: not in the main transcript.
    if "<task-notification>" in last:
        return Text("The background work finished; all done.")
    if "SUB-TOOL-OUTPUT-42" in last and "TOOL_RESULT:" in last:
        return Text("Sub-agent report: the marker command ran.")
    if "TOOL_RESULT:" in last:
        return Text("Noted the tool result.")
    if "SUBAGENT-TASK" in last:
        return ToolUse("Bash", {"command": "echo SUB-TOOL-OUTPUT-$((41+1))", "description": "print marker"})
    if "please delegate" in last:
        agent = "Agent" if "Agent" in names else "Task"
        return ToolUse(
            agent,
            {
                "description": "Marker finder",
                "subagent_type": "general-purpose",
                "prompt": "SUBAGENT-TASK: run the marker command and report.",
            },
        )
    if "run the long sleep" in last:
        return ToolUse("Bash", {"command": "python3 -c 'import time; time.sleep(30)'", "description": "long wait"})
    if "in the background" in last:
        return ToolUse(
            "Bash", {"command": "sleep 2; echo BG-OUTPUT-7", "description": "slow echo", "run_in_background": True}
        )
    return Text("OK, done.")


def logged(body):
    reply = decide(body)
    if os.environ.get("CC_FIXTURE_DEBUG"):
        with open(os.environ["CC_FIXTURE_DEBUG"], "a") as log:
            log.write(json.dumps({"messages": body.get("messages"), "answer": reply._asdict()}) + "\n")
    return reply


def run(home, project, url, *args, timeout=120):
    env = {
        "HOME": str(home),
        "PATH": os.environ["PATH"],
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "x",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "TERM": "dumb",
        "IS_SANDBOX": "1",
    }
    proc = subprocess.run(
        [str(CLAUDE), *args, "--output-format", "json", "--permission-mode", "bypassPermissions"],
        cwd=str(project),
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    try:
        answer = json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        answer = {}
        print(proc.stdout[-1500:], proc.stderr[-1500:], file=sys.stderr)
    print(
        "  %s -> rc %d, session %s, result %r"
        % (args[:3], proc.returncode, answer.get("session_id"), str(answer.get("result"))[:80]),
        file=sys.stderr,
    )
    return answer


README = """Transcripts written by the real Claude Code %(version)s in print mode (`claude -p ... --output-format json`,
scratch HOME, no network) against the scripted Messages API server of `tests/e2e/make_cc_fixtures.py`, which made
them (`TERMSPRAWL_CLIENTS_DIR=/work/e2e-clients python3 tests/e2e/make_cc_fixtures.py`). Not from the corpus.

- `%(slash)s.jsonl`: `/review parser.py` (a custom command, `.claude/commands/review.md`), then `--resume` with
  `/context`, `/compact`, `/hookify` (no such command) and `--continue` with a typed prompt.
- `%(agent)s.jsonl` and `%(agent)s/subagents/`: an async sub-agent (the Agent tool) whose own Bash prints
  SUB-TOOL-OUTPUT-42 (in its record only); its report comes back as a task notification.
- `%(bg)s.jsonl`: a background Bash (`run_in_background`), ended by a task notification.
- `%(fork)s.jsonl`: `--resume %(agent)s --fork-session` with one more prompt.
- `%(typed)s.jsonl`: interactive (a pseudo-terminal): `/review parser.py`, a typed prompt, `/context`, a
  foreground Bash interrupted with Esc, `/exit`.
"""


def interactive(home, project, url, steps):
    """Drive the client's terminal interface in a pseudo-terminal: ``steps`` are (keys,
    seconds to wait after). The folder is trusted and the key approved in ~/.claude.json
    beforehand (the dialogs a person answers once)."""
    import pty
    import select
    import time

    config = home / ".claude.json"
    state = json.loads(config.read_text()) if config.exists() else {}
    state.update(
        {
            "hasCompletedOnboarding": True,
            "theme": "dark",
            "bypassPermissionsModeAccepted": True,
            "customApiKeyResponses": {"approved": ["x"], "rejected": []},
        }
    )
    state.setdefault("projects", {})[str(project)] = {
        "hasTrustDialogAccepted": True,
        "hasCompletedProjectOnboarding": True,
    }
    config.write_text(json.dumps(state))
    env = {
        "HOME": str(home),
        "PATH": os.environ["PATH"],
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "x",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "TERM": "xterm-256color",
        "IS_SANDBOX": "1",
    }
    pid, fd = pty.fork()
    if pid == 0:  # the child: the client, in the project
        os.chdir(str(project))
        os.execve(str(CLAUDE), [str(CLAUDE), "--dangerously-skip-permissions"], env)

    def pump(seconds):
        end = time.time() + seconds
        while time.time() < end:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                try:
                    os.read(fd, 65536)
                except OSError:
                    return

    pump(8)
    for keys, wait in steps:
        for ch in keys:
            os.write(fd, ch.encode())
            time.sleep(0.02)
        pump(wait)
    try:
        os.kill(pid, 9)
    except OSError:
        pass
    os.waitpid(pid, 0)
    print("  interactive: %d steps" % len(steps), file=sys.stderr)


def version():
    return subprocess.run([str(CLAUDE), "--version"], capture_output=True, text=True).stdout.split()[0]


def main():
    with ScriptedServer(default=logged, side_answer=TITLE) as server:
        make(server.url)


def make(url):
    scratch = Path(tempfile.mkdtemp(prefix="cc-fixtures-"))
    home, project = scratch / "home", scratch / "proj"
    (project / ".claude" / "commands").mkdir(parents=True)
    home.mkdir()
    (project / ".claude" / "commands" / "review.md").write_text(
        "---\ndescription: Review a file\n---\nReview the file $ARGUMENTS for bugs and report them.\n"
    )
    (project / "parser.py").write_text("def parse(x):\n    return x\n")
    slash = run(home, project, url, "-p", "/review parser.py")
    run(home, project, url, "--resume", slash["session_id"], "-p", "/context")
    run(home, project, url, "--resume", slash["session_id"], "-p", "/compact")
    run(home, project, url, "--resume", slash["session_id"], "-p", "/hookify")
    run(home, project, url, "--continue", "-p", "and one more typed prompt after the compaction")
    agent = run(home, project, url, "-p", "please delegate the marker search", timeout=240)
    bg = run(home, project, url, "-p", "run the slow echo in the background", timeout=240)
    fork = run(home, project, url, "--resume", agent["session_id"], "--fork-session", "-p", "a prompt in the fork")
    # Interactive (a pseudo-terminal): typed prompts, the custom command, a local command,
    # an interruption (Esc during a foreground Bash), /exit.
    tty_home = scratch / "home-tty"  # its own HOME: a fresh ~/.claude.json, as in a first run
    tty_home.mkdir()
    interactive(
        tty_home,
        project,
        url,
        [
            ("/review parser.py", 1),
            ("\r", 8),
            ("hello typed interactively", 1),
            ("\r", 6),
            ("/context", 1),
            ("\r", 5),
            ("run the long sleep", 1),
            ("\r", 5),
            ("\x1b", 4),
            ("/exit", 1),
            ("\r", 2),
            ("\r", 3),
        ],
    )
    if OUT.exists():
        shutil.rmtree(str(OUT))
    OUT.mkdir(parents=True)
    for folder in [f for h in (home, tty_home) for f in (h / ".claude" / "projects").iterdir()]:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                dest = OUT / path.relative_to(folder)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(str(path), str(dest))
    known = {slash["session_id"], agent["session_id"], bg["session_id"], fork["session_id"]}
    typed = [p.stem for p in OUT.glob("*.jsonl") if p.stem not in known]
    (OUT / "README.md").write_text(
        README
        % dict(
            version=version(),
            slash=slash["session_id"],
            agent=agent["session_id"],
            bg=bg["session_id"],
            fork=fork["session_id"],
            typed=", ".join(typed),
        )
    )
    print("project dir was %s; fixtures in %s" % (project, OUT), file=sys.stderr)


if __name__ == "__main__":
    main()
