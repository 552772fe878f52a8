"""The README's quick starts, word for word: each CLI's block is run in a scratch project
with a scratch HOME through the built artifact, then the session start the block ends with
is played by running the hook command the block installed (from the CLI's own settings
file, as the CLI runs it) with that CLI's payload and the node its alias sets. The real
clients play the same part in tests/e2e/ (the Claude Code block verbatim)."""

import json
import os
import shlex
import subprocess
import sys

import pytest

from conftest import REPO

SESSION = "01a233eb-aec3-7ca3-ad52-6d382ed8cbfe"
# Where each CLI writes a session's transcript under HOME, and its hook's settings file.
STORES = {
    "Claude Code": (".claude/projects/-path-to-project/%s.jsonl" % SESSION, ".claude/settings.local.json"),
    "Codex CLI": (".codex/sessions/2026/12/01/rollout-2026-12-01T00-00-00-%s.jsonl" % SESSION, ".codex/hooks.json"),
    "Gemini CLI": (".gemini/tmp/project/chats/session-2026-12-01T00-00-01a233eb.jsonl", ".gemini/settings.json"),
}


def quick_start(cli):
    """The shell lines of the README's ``### <cli>`` block, comments and blank lines dropped."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("\n### %s\n" % cli, 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip() and not line.startswith("#")]


def run_block(lines, project, home, pyz):
    """Run the block's commands; returns {alias: (node, command)} from its alias lines."""
    aliases, cwd = {}, None
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C"}
    for line in lines:
        line = line.replace("/path/to/project", str(project))
        if line.startswith("alias "):
            name, value = line[len("alias ") :].split("=", 1)
            setting, command = shlex.split(shlex.split(value)[0])
            assert setting.startswith("TERMSPRAWL_NODE_ID="), line
            aliases[name] = (setting.split("=", 1)[1], command)
            continue
        if line.startswith("cd %s && " % project):
            assert line.split(" && ", 1)[1].split()[0] in aliases, line  # the terminal(s): played below
            continue
        if line.startswith("cd "):
            cwd = line[3:].strip()
            continue
        line = line.replace("python3 dist/termsprawl-context.pyz", "%s %s" % (sys.executable, pyz))
        done = subprocess.run(line, shell=True, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert done.returncode == 0, (line, done.stderr)
    return aliases


def hook_command(settings):
    (entry,) = json.loads(settings.read_text())["hooks"]["SessionStart"]
    (hook,) = entry["hooks"]
    return hook["command"]


@pytest.mark.parametrize("cli", sorted(STORES))
def test_each_quick_start_records_its_node_and_links_it(cli, tmp_path, pyz):
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    aliases = run_block(quick_start(cli), project, home, pyz)
    (node, command) = list(aliases.values())[-1]
    assert command == {"Claude Code": "claude", "Codex CLI": "codex", "Gemini CLI": "gemini"}[cli]
    installed = project / ".termsprawl" / "bin" / "termsprawl-context"
    peers = subprocess.run([str(installed), "links", "peers", node], cwd=str(project), stdout=subprocess.PIPE)
    assert peers.returncode == 0 and b"alice" in peers.stdout
    # The session start: the CLI runs the hook it was given, in the project, with the alias's node.
    transcript = home / STORES[cli][0]
    transcript.parent.mkdir(parents=True)
    transcript.write_text("")
    payload = {
        "session_id": SESSION,
        "transcript_path": str(transcript),
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TERMSPRAWL_NODE_ID": node,
        "CLAUDE_PROJECT_DIR": str(project),
        "GEMINI_PROJECT_DIR": str(project),
    }
    done = subprocess.run(
        ["sh", "-c", hook_command(project / STORES[cli][1])],
        cwd=str(project),
        env=env,
        input=json.dumps(payload).encode(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    recorded = json.loads((project / ".termsprawl" / "transcripts" / (node + ".json")).read_text())
    assert recorded["path"] == str(transcript)
    assert "linked agents: alice" in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]


def more_clis():
    """The README's table of the other CLIs: {label: (files `init` writes, start line)}, and
    the block's one `init` line with the options its comment names."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0].split("\n### Qwen Code", 1)[1]
    line = section.split("```sh\n", 1)[1].split("```", 1)[0].strip()
    rows = {}
    for row in section.split("\n| ")[3:]:
        cells = [c.strip() for c in row.split(" | ")]
        ticked = cells[1].split("`")[1::2]
        files = [t for t in ticked if " " not in t and ("/" in t or t.endswith((".md", ".json")))]
        rows[cells[0]] = (files, cells[2].strip("`"))
    return line, rows


def test_the_other_clis_quick_start_writes_what_its_table_says(tmp_path, pyz):
    from termsprawl_context.harness import available

    line, rows = more_clis()
    command, comment = line.split("#", 1)
    options = [command.split()[-1]] + comment.split()[1:]
    by_label = {h.label: h for h in available()}
    assert sorted("--" + by_label[label].cli_option for label in rows) == sorted(options)
    for label, (files, start) in rows.items():
        harness = by_label[label]
        project, home = tmp_path / harness.name / "project", tmp_path / harness.name / "home"
        project.mkdir(parents=True)
        home.mkdir()
        run = command.replace("/path/to/project", str(project)).replace("python3 dist/termsprawl-context.pyz", "")
        args = [sys.executable, str(pyz)] + shlex.split(run)[:-1] + ["--" + harness.cli_option]
        done = subprocess.run(args, env={"PATH": os.environ.get("PATH", ""), "HOME": str(home)}, stdout=subprocess.PIPE)
        assert done.returncode == 0, (label, done.stdout)
        assert files and all((project / f).is_file() for f in files), (label, files)
        assert (project / "AGENTS.md").is_file() == ("agents_md" in harness.init_options), label
        assert start.split()[:2] == ["TERMSPRAWL_NODE_ID=erin", harness.command], (label, start)
