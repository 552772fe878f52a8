"""init --hook's allow rules: the reads only, merged in; the dump's strict parsing is what
makes a `Bash(<command> --flag *)` rule safe; doctor names a rule that over-grants."""

import json
import os
import subprocess

import pytest

from conftest import snapshot
from termsprawl_context.harness.claude.facts import bash_rule_matches
from termsprawl_context.workspace import hook_settings
from termsprawl_context.workspace.discovery import READ_RULE_OPTIONS, SKILL_DIR_BASE, read_rules

from termsprawl_context.harness import get

CLAUDE = get("claude-code")
COMMAND = ".termsprawl/bin/termsprawl-context"
SETTINGS = os.path.join(".claude", "settings.local.json")
WRITES = ["links add alice eve", "links remove alice bob", "index set eve /tmp/x.jsonl", "init --hook", "init"]


def test_read_options_are_the_dumps_hand_off_options():
    from termsprawl_context.cli.context import HANDOFF_OPTIONS

    assert set(READ_RULE_OPTIONS) == set(HANDOFF_OPTIONS)


def test_allow_rules_are_exactly_the_reads_and_the_skill(tmp_path):
    project = str(tmp_path)
    absolute = os.path.join(project, COMMAND)
    expected = []
    for base in (COMMAND, absolute):
        expected += ["Bash(%s)" % base] + ["Bash(%s %s *)" % (base, o) for o in ("--format", "--turns", "--max-chars")]
    assert hook_settings.allow_rules(project, CLAUDE) == expected + ["Skill(termsprawl-context)"]
    for rule in hook_settings.allow_rules(project, CLAUDE):
        for base in (COMMAND, absolute):
            for write in WRITES:
                assert not bash_rule_matches(rule, "%s %s" % (base, write)), (rule, write)
    # A path a shell must quote gets no absolute rule: inside a rule a `*` would widen it.
    odd = tmp_path / "a b*"
    odd.mkdir()
    assert hook_settings.allow_rules(str(odd), CLAUDE) == read_rules(COMMAND) + ["Skill(termsprawl-context)"]


@pytest.mark.parametrize(
    "rule, wide",
    [
        ("Bash(.termsprawl/bin/termsprawl-context *)", True),
        ("Bash(.termsprawl/bin/termsprawl-context:*)", True),
        ("Bash(*)", True),
        ("Bash", True),
        ("Bash(.termsprawl/bin/*)", True),
        ("Bash(.termsprawl/bin/termsprawl-context --format *)", False),
        ("Bash(.termsprawl/bin/termsprawl-context)", False),
        ("Bash(npm test *)", False),
        ("Read", False),
    ],
)
def test_rule_matcher(rule, wide):
    assert bash_rule_matches(rule, COMMAND + " links add a b") is wide


def test_merge_keeps_every_user_rule_and_is_idempotent(tmp_path):
    user = {
        "permissions": {
            "allow": ["Bash(npm test)", "Bash(.termsprawl/bin/termsprawl-context)"],
            "deny": ["Bash(rm *)"],
            "defaultMode": "default",
        },
        "env": {"A": "1"},
    }
    rules = hook_settings.allow_rules(str(tmp_path), CLAUDE)
    merged = hook_settings.merge_permissions(user, rules, CLAUDE)
    assert merged["permissions"]["allow"][:2] == user["permissions"]["allow"]
    assert merged["permissions"]["allow"] == user["permissions"]["allow"] + [
        r for r in rules if r not in user["permissions"]["allow"]
    ]
    assert merged["permissions"]["deny"] == ["Bash(rm *)"] and merged["env"] == {"A": "1"}
    assert hook_settings.merge_permissions(merged, rules, CLAUDE) is None


@pytest.fixture
def installed(tmp_path, run_pyz):
    project = tmp_path / "project"
    project.mkdir()
    assert run_pyz(["init", "--cwd", project, "--hook"]).returncode == 0
    command = project / COMMAND
    assert (
        subprocess.run(
            [str(command), "links", "add", "alice", "bob"], cwd=str(project), stdout=subprocess.PIPE
        ).returncode
        == 0
    )
    return project


def _admitted(rule, project, write):
    """The most harmful command ``rule`` admits for ``write``: each `*` filled with a read
    option's value followed by the write (what a planted instruction would try)."""
    pattern = rule[len("Bash(") : -1]
    option = pattern.rsplit(" ", 2)[-2] if pattern.endswith(" *") else None
    value = {"--format": "json", "--turns": "5", "--max-chars": "100"}.get(option, "")
    return pattern[:-1] + value + " " + write if pattern.endswith("*") else pattern + " " + write


def test_strict_argv_parsing_makes_the_flag_rules_safe(installed):
    """Every shape a written rule admits, with a write appended, is refused by the dump's
    own argument parsing (exit 2) and writes nothing: the rules grant reads only."""
    before = snapshot(installed / ".termsprawl")
    env = {"PATH": os.environ.get("PATH", ""), "TERMSPRAWL_NODE_ID": "bob", "HOME": str(installed)}
    tried = 0
    for rule in hook_settings.allow_rules(str(installed), CLAUDE):
        if not rule.startswith("Bash("):
            continue
        for write in WRITES:
            command = _admitted(rule, installed, write)
            if not bash_rule_matches(rule, command):
                continue  # the exact rule admits nothing appended
            done = subprocess.run(
                command, shell=True, cwd=str(installed), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
            assert done.returncode == 2 and done.stdout == b"", (command, done.stderr)
            assert done.stderr.startswith(b"termsprawl-context: unexpected argument: "), (command, done.stderr)
            tried += 1
    assert tried == 6 * len(WRITES)  # --format/--turns/--max-chars, relative and absolute
    assert snapshot(installed / ".termsprawl") == before


def test_doctor_names_an_over_grant_and_the_tight_rules(installed, run_pyz):
    path = installed / SETTINGS
    settings = json.loads(path.read_text())
    wide = "Bash(%s *)" % COMMAND
    settings["permissions"]["allow"].append(wide)
    path.write_text(json.dumps(settings))
    (installed / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Bash(*)"]}}))
    done = run_pyz(["doctor", "--cwd", installed, "--self", "alice", "--json"])
    notes = json.loads(done.stdout)["notes"]
    grants = [n for n in notes if "lets the agent run `links`, `index` and `init` with no prompt" in n]
    assert len(grants) == 2
    assert grants[0].startswith("the allow rule `%s` in %s " % (wide, SETTINGS))
    assert grants[1].startswith("the allow rule `Bash(*)` in .claude/settings.json ")
    assert "`Bash(%s --format *)`" % COMMAND in grants[0]
    settings["permissions"]["allow"].remove(wide)
    path.write_text(json.dumps(settings))
    os.remove(str(installed / ".claude" / "settings.json"))
    done = run_pyz(["doctor", "--cwd", installed, "--self", "alice", "--json"])
    assert not [n for n in json.loads(done.stdout)["notes"] if "allow rule" in n]


def test_skill_dir_form_is_covered_by_the_skills_own_rules():
    assert read_rules(SKILL_DIR_BASE)[1] == "Bash(${CLAUDE_SKILL_DIR}/../../../%s --format *)" % COMMAND
