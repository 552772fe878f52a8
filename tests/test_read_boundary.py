"""The read boundary: the command `init` installs in a project (the one the read rules let
an agent run unasked) reads that project's linked peers and no other project's, whatever
arguments follow the options a read rule names; the distributed artifact keeps the
context layer's `--cwd DIR --self NODE` contract. Run from the built artifact, installed
by `init --hook` into two projects side by side."""

import json
import os
import shlex
import subprocess

import pytest

from termsprawl_context.harness.claude.facts import bash_rule_matches
from termsprawl_context.workspace.discovery import SKILL_FILE
from termsprawl_context.workspace.project import INSTALLED_COMMAND

SECRET = "A-SECRET-7f3e: the staging password is hunter2"
OWN = "B's own finding: the cache key misses the locale"


def record(path, text):
    path.write_text(
        json.dumps({"type": "user", "message": {"role": "user", "content": "what did you find?"}})
        + "\n"
        + json.dumps(
            {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}}
        )
        + "\n"
    )


class Projects(object):
    def __init__(self, root, run_pyz, empty_home):
        self.root, self.home = root, empty_home
        self.a, self.b = root / "a", root / "b"
        for project, (me, peer), text in ((self.a, ("alice", "carol"), SECRET), (self.b, ("bob", "dan"), OWN)):
            (project / "src" / "deep").mkdir(parents=True)
            done = run_pyz(["init", "--hook", "--cwd", project])
            assert done.returncode == 0, done.stderr
            transcript = root / ("%s.jsonl" % peer)
            record(transcript, text)
            assert self.run(project, "links", "add", me, peer).returncode == 0
            assert self.run(project, "index", "set", peer, transcript).returncode == 0

    def command(self, project):
        return project / INSTALLED_COMMAND

    def run(self, project, *args, cwd=None, node="bob", command=None):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home), "LANG": "C"}
        if node:
            env["TERMSPRAWL_NODE_ID"] = node
        return subprocess.run(
            [str(command or self.command(project))] + [str(a) for a in args],
            cwd=str(cwd or project),
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=60,
        )


@pytest.fixture
def projects(tmp_path, run_pyz, empty_home):
    return Projects(tmp_path.resolve(), run_pyz, empty_home)


def refused(done):
    assert SECRET.encode() not in done.stdout + done.stderr
    assert (done.returncode, done.stdout) == (2, b""), done.stderr
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("termsprawl-context: --cwd "), lines
    assert "is not this project" in lines[0]


def test_the_installed_copy_refuses_another_project(projects):
    a, b = projects.a, projects.b
    os.symlink(str(a), str(b / "src" / "to-a"))
    (b / "vendor" / "x" / ".termsprawl").mkdir(parents=True)  # a project of its own inside b
    elsewhere = [a, a / "src", str(b) + "/../a", b / "src" / "to-a", b / "vendor" / "x", "/", projects.root]
    for cwd, here in [(c, b) for c in elsewhere + ["../a", "src/to-a"]] + [
        (c, b / "src") for c in elsewhere + ["../../a"]
    ]:
        for options in (["--format", "markdown"], ["--turns", "5"], ["--max-chars", "900"], []):
            refused(projects.run(b, *options, "--cwd", cwd, "--self", "alice", cwd=here))
            refused(projects.run(b, "--self", "alice", "--cwd", cwd, *options, cwd=here))
    # A later --cwd wins, as ever: pointing it home again does not launder the first.
    refused(projects.run(b, "--format", "markdown", "--cwd", b, "--cwd", a, "--self", "alice"))


def test_the_installed_copy_reads_its_own_project_from_anywhere_inside(projects):
    b = projects.b
    absolute = projects.command(b)
    skill_spelling = b / os.path.dirname(SKILL_FILE) / ".." / ".." / ".." / INSTALLED_COMMAND
    for command, cwd in ((None, b), (absolute, b / "src" / "deep"), (skill_spelling, b / "src")):
        for extra in ([], ["--cwd", "."], ["--cwd", b], ["--cwd", b / "src"], ["--cwd", str(b) + "/src/../"]):
            done = projects.run(b, "--format", "markdown", *extra, command=command, cwd=cwd)
            assert done.returncode == 0, done.stderr
            assert OWN in done.stdout.decode() and SECRET not in done.stdout.decode()
    # --self names another node of this project: still this project's links.
    as_dan = projects.run(b, "--format", "markdown", "--self", "dan", node=None)
    assert (as_dan.returncode, as_dan.stdout) == (0, b"")  # dan's peer bob has no transcript
    assert projects.run(projects.a, "--format", "markdown", node="alice").stdout.decode().count(SECRET) == 1


def test_the_distributed_artifact_keeps_the_cwd_contract(projects, run_pyz):
    done = run_pyz(["--cwd", projects.a, "--self", "alice"], cwd=projects.b)
    assert done.returncode == 0 and SECRET in done.stdout.decode()
    done = run_pyz(["--format", "markdown", "--cwd", projects.b / "src", "--self", "bob"])
    assert (done.returncode, done.stdout) == (0, b"")  # a subdirectory is no project of its own


def admitted_forms(project):
    """Every command form a read rule `init --hook` wrote lets run unasked: the rules in
    the project's settings and the skill's allowed-tools, each `*` still in place."""
    settings = json.loads((project / ".claude" / "settings.local.json").read_text())
    rules = [r for r in settings["permissions"]["allow"] if r.startswith("Bash(")]
    skill = (project / SKILL_FILE).read_text()
    (tools,) = [line for line in skill.splitlines() if line.startswith("allowed-tools:")]
    skill_dir = str(project / os.path.dirname(SKILL_FILE))
    rules += [r.strip().replace("${CLAUDE_SKILL_DIR}", skill_dir) for r in tools.split(":", 1)[1].split(", ")]
    return rules


def test_no_string_a_read_rule_admits_reads_another_project(projects):
    a, b = projects.a, projects.b
    rules = admitted_forms(b)
    values = {"--format": ["markdown", "json"], "--turns": ["5"], "--max-chars": ["900"]}
    rests = [
        "--cwd %s --self alice" % a,
        "--self alice --cwd %s" % (a / "src"),
        "--cwd ../a --self alice",
        "--cwd . --cwd %s --self alice" % a,
        "--turns 3 --cwd %s --format json --self alice" % a,
    ]
    tried = 0
    for rule in rules:
        pattern = rule[len("Bash(") : -1]
        if not pattern.endswith(" *"):
            assert not bash_rule_matches(rule, "%s --cwd %s --self alice" % (pattern, a))  # no argument at all
            continue
        option = pattern.split()[-2]
        for line in ("%s%s %s" % (pattern[:-1], value, rest) for value in values[option] for rest in rests):
            assert bash_rule_matches(rule, line)
            words = shlex.split(line)
            command = words[0] if os.path.isabs(words[0]) else str(b / words[0])
            refused(projects.run(b, *words[1:], command=command))
            tried += 1
    assert len(rules) >= 12 and tried >= 9 * len(rests)
