"""Claude Code's permission rules: the keys of a settings file's allow list, how a rule
names a command or a skill, and whether a rule lets a command run unasked (what ``init``
writes and ``doctor`` checks; the dump never needs it)."""

import os

from termsprawl_context.harness.claude.facts import PROJECT_CONFIG_DIR


# Observed with 2.1.328 (--permission-mode default, print and interactive mode alike):
# settings' "permissions": {"allow": [...]} holds rules `Bash(<command>)` (that command
# exactly, its words parsed as the shell would, quotes dropped), `Bash(<prefix> *)` (the
# prefix, then any arguments: `*` matches anything, spaces included), `Bash(<prefix>:*)`
# (the older spelling of the same prefix rule), bare `Bash` or `Bash(*)` (every command),
# and `Skill(<name>)` (the Skill tool may load that skill; without it print mode refuses).
# A command holding a shell variable (`$VAR`, `${VAR}`) never matches any rule, and a
# chained command (`&&`, `;`, a redirection) is asked about for each other part. A skill's
# `allowed-tools` takes the same rules while the skill runs, with ${CLAUDE_SKILL_DIR}
# replaced by the skill's folder, as in its text.
SETTINGS_PERMISSIONS = "permissions"
SETTINGS_ALLOW = "allow"
SETTINGS_FILE_SHARED = os.path.join(PROJECT_CONFIG_DIR, "settings.json")
SKILL_DIR_VARIABLE = "${CLAUDE_SKILL_DIR}"
BASH_TOOL = "Bash"


def read_rules(command: str, options) -> list:
    shapes = [command] + ["%s %s *" % (command, option) for option in options]
    return ["%s(%s)" % (BASH_TOOL, shape) for shape in shapes]


def skill_rule(name: str) -> str:
    return "Skill(%s)" % name


def bash_rule_matches(rule: str, command: str) -> bool:
    """Would ``rule`` let ``command`` (simple, no variables) run unasked? ``<prefix>:*`` is
    ``<prefix> *``, which also matches the prefix alone. Errs towards yes: it is used to warn."""
    import re

    rule = rule.strip()
    if rule == BASH_TOOL:
        return True
    if not (rule.startswith(BASH_TOOL + "(") and rule.endswith(")")):
        return False
    pattern = rule[len(BASH_TOOL) + 1 : -1].strip()
    if pattern.endswith(":*"):
        pattern = pattern[:-2] + " *"
    if pattern.endswith(" *") and command == pattern[:-2]:
        return True
    regex = ".*".join(re.escape(part) for part in pattern.split("*"))
    return re.fullmatch(regex, command, re.DOTALL) is not None
