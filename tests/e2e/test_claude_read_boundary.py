"""The read boundary in the real Claude Code (pinned in package.json): with only the rules
`init --hook` wrote (print mode, `--permission-mode default`), an agent in project B asked
to read project A's transcripts through B's own command gets a denial or the command's
refusal, never A's text; B's own reads still run with no prompt, from the root and from a
subdirectory. Two projects set up by the README's walk-through, side by side."""

import pytest

from .anthropic_server import ScriptedServer, Text, ToolUse, bash, texts_of
from .claude_run import run_claude
from .clients import client_bin
from .test_claude_code import COMMAND, Project, alice_speaks, results, skill_command

SECRET = "A-SECRET-7f3e: the staging password is hunter2"
OWN = "B's alice: the cache key misses the locale."
REFUSAL = "Exit code 2\ntermsprawl-context: --cwd %s is not this project (%s)"


@pytest.fixture(scope="module", autouse=True)
def claude():
    return client_bin("claude")


@pytest.fixture
def projects(tmp_path, pyz):
    a = Project(tmp_path / "a", pyz)
    b = Project(tmp_path / "b", pyz, git=True)  # 2.1.328 reads the root's settings from a subdirectory of a git repo
    alice_speaks(a, "What is the staging password?", SECRET)
    alice_speaks(b, "Why do French pages show English prices?", OWN)
    return a, b


def ask_bob(project, cwd, commands):
    """bob, started in ``cwd``, runs each command (a string, or a function of the request
    that makes one) and answers; the run and the scripted server."""
    replies = [c if callable(c) or isinstance(c, ToolUse) else bash(c) for c in commands] + [Text("done")]
    with ScriptedServer(replies) as server:
        run = run_claude("What did alice find?", cwd, project.home("bob"), server.url, node_id="bob")
    assert run.returncode == 0, run.stdout + run.stderr
    return run, server


def never_read(run, server, commands, outputs, a, b):
    """No text of project A reached the model or the client's answer; each command was
    denied or refused by the command itself (``outputs``: what each returned)."""
    for request in server.main:
        assert not any(SECRET in text for text in texts_of(request))
    assert SECRET not in run.stdout
    denied = [d["tool_input"]["command"] for d in run.denials]
    assert len(outputs) == len(commands)
    for command, out in zip(commands, outputs):
        assert command in denied or out.startswith(REFUSAL % (a.path, b.path)), (command, out)


def test_another_project_is_never_read_and_the_own_reads_still_run(projects):
    a, b = projects
    absolute = b.path / COMMAND
    across = [
        "%s --format markdown --cwd %s --self alice" % (COMMAND, a.path),
        "%s --format json --cwd %s --self bob" % (absolute, a.path),
        "%s --turns 5 --self alice --cwd %s" % (COMMAND, a.path),
    ]
    own = ["%s --format markdown" % COMMAND, "%s --format markdown --cwd %s --self bob" % (absolute, b.path)]
    run, server = ask_bob(b, b.path, across + own)
    outputs = results(server)
    never_read(run, server, across, outputs[: len(across)], a, b)
    denied = [d["tool_input"]["command"] for d in run.denials]
    for command, out in zip(own, outputs[len(across) :]):
        assert command not in denied
        assert "# linked context from alice (alice)" in out and OWN in out


def test_from_a_subdirectory_too(projects):
    a, b = projects
    sub = b.path / "src"
    sub.mkdir()
    skill_dir_form = "%s/.claude/skills/termsprawl-context/../../../%s" % (b.path, COMMAND)
    across = [
        "%s --format markdown --cwd %s --self alice" % (skill_dir_form, a.path),
        "%s --max-chars 900 --cwd %s --self alice" % (b.path / COMMAND, a.path),
    ]
    commands = [ToolUse("Skill", {"skill": "termsprawl-context"})] + across
    commands.append(lambda body: bash(skill_command(body)[1]))
    run, server = ask_bob(b, sub, commands)
    never_read(run, server, across, results(server)[1:3], a, b)
    own = skill_command(server.main[1])[1]
    assert own == "%s --format markdown" % skill_dir_form
    assert own not in [d["tool_input"]["command"] for d in run.denials]
    assert OWN in results(server)[3]
