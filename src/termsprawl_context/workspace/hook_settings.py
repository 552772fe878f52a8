"""A CLI's JSON hook settings as ``init`` writes them (``load_hook_file``, ``merge_hook``:
every CLI whose hook lives in a JSON settings file), and the default harness's own
(``init --hook``): parsed so that a rewrite keeps every value it does not own exactly, our
``SessionStart`` hook and read rules merged in (nothing removed or widened), written
atomically; and the check for allow rules that grant our writing commands. What is the
CLI's (its file, its entry's shape, its permission rules) its provider answers.

Every write is atomic and inside the project. An existing settings file is merged into,
never replaced, and left untouched when it cannot be understood.
"""

import os
from typing import Any, Dict, List, Optional, Tuple

from termsprawl_context.errors import DuplicateKey, SettingsUnusable
from termsprawl_context.harness import DEFAULT_HARNESS, get
from termsprawl_context.workspace.project import hook_command
from termsprawl_context.jsonl import json_type_name
from termsprawl_context.workspace.files import check_write_target, read_small_file, write_atomic
from termsprawl_context.workspace.init_steps import FAILED, UNCHANGED, WRITTEN, Step
from termsprawl_context.workspace.project import INSTALLED_COMMAND
from termsprawl_context.workspace.settings_json import dumps_settings, loads_settings


# The harness whose settings `init --hook` merges our hook and read rules into.
_DEFAULT = get(DEFAULT_HARNESS)
SETTINGS_FILE = _DEFAULT.hook_settings_file
HOOK_EVENT = _DEFAULT.hook_event_session_start
SETTINGS_PERMISSIONS, SETTINGS_ALLOW = _DEFAULT.settings_allow_keys
# Claude Code started in a subdirectory may read the project's local settings yet name
# the subdirectory as $CLAUDE_PROJECT_DIR, so the command is found by walking up from
# there (as `init` finds the project), not assumed at $CLAUDE_PROJECT_DIR itself.
HOOK_COMMAND = hook_command(_DEFAULT)
LEGACY_HOOK_COMMANDS = _DEFAULT.legacy_hook_commands
HOOK_ENTRY = _DEFAULT.hook_entry(HOOK_COMMAND)
HOOK_TIMEOUT = HOOK_ENTRY["hooks"][0]["timeout"]


# Deeper settings than this are not a person's; re-serialising them costs the parser's
# recursion (exit 70 on some versions) and, indented, space quadratic in the depth.
MAX_SETTINGS_DEPTH = 64
# Pretty output may be this much larger than the input (plus our entry) before the
# merge falls back to compact output: a file is never rewritten many times its size.
_PRETTY_GROWTH = 2
_PRETTY_SLACK = 4096


def _refused(shown: str, reason: str) -> SettingsUnusable:
    """The settings file ``shown`` refused for ``reason``, naming the hook ``init`` would write."""
    return SettingsUnusable(shown, reason, HOOK_EVENT, HOOK_COMMAND)


def _nesting_depth(text: str) -> int:
    """The deepest bracket nesting of a JSON text, counted without recursion (brackets
    inside strings skipped)."""
    import re

    depth = deepest = 0
    for token in re.finditer(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', text):
        char = token.group()
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def parse_settings(data: bytes, shown: str) -> Dict[str, Any]:
    """The settings object in ``data`` ({} for an empty file); SettingsUnusable otherwise.

    Every number is kept as written (``settings_json``). Refused, so that a rewrite
    keeps every value it does not own exactly: text that is not UTF-8 or not JSON,
    NaN/Infinity, a key twice in one object (a rewrite would keep only the last),
    nesting deeper than ``MAX_SETTINGS_DEPTH``."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _refused(shown, "is not UTF-8 text") from None
    if not text.strip():
        return {}
    if _nesting_depth(text) > MAX_SETTINGS_DEPTH:
        raise _refused(shown, "nests deeper than %d levels" % MAX_SETTINGS_DEPTH)
    try:
        value = loads_settings(text)
    except DuplicateKey as exc:
        raise _refused(shown, "has %s (a rewrite would keep only the last)" % exc) from None
    except (ValueError, RecursionError) as exc:
        raise _refused(shown, "is not valid JSON (%s)" % exc) from None
    if not isinstance(value, dict):
        raise _refused(shown, "holds a JSON %s, not an object" % json_type_name(value))
    return value


def has_our_hook(entries: List[Any], commands: tuple = (HOOK_COMMAND,) + LEGACY_HOOK_COMMANDS) -> bool:
    """Some SessionStart entry already runs one of ``commands`` (whatever its matcher or timeout)."""
    for entry in entries:
        hooks = entry.get("hooks") if isinstance(entry, dict) else None
        if isinstance(hooks, list) and any(isinstance(h, dict) and h.get("command") in commands for h in hooks):
            return True
    return False


def merge_hook(settings: Dict[str, Any], harness: Any, shown: str = "") -> Optional[Dict[str, Any]]:
    """``settings`` with the harness's SessionStart entry added, or None when it is already
    there (``shown``: its hook settings file, named in a refusal).

    Every other key, event and entry is kept as it is, in its order. A ``hooks`` that is
    not an object, or a ``SessionStart`` that is not an array, raises SettingsUnusable."""
    event, command = harness.hook_event_session_start, hook_command(harness)
    shown = shown or harness.hook_settings_file
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsUnusable(shown, 'has "hooks" as a JSON %s, not an object' % json_type_name(hooks), event, command)
    entries = hooks.get(event, [])
    if not isinstance(entries, list):
        reason = 'has "hooks.%s" as a JSON %s, not an array' % (event, json_type_name(entries))
        raise SettingsUnusable(shown, reason, event, command)
    if has_our_hook(entries, (command,) + harness.legacy_hook_commands):
        return None
    merged_hooks = dict(hooks)
    merged_hooks[event] = list(entries) + [harness.hook_entry(command)]
    merged = dict(settings)
    merged["hooks"] = merged_hooks
    return merged


def merge_hook_settings(settings: Dict[str, Any], shown: str = SETTINGS_FILE) -> Optional[Dict[str, Any]]:
    """``settings`` with our SessionStart hook added (``merge_hook``), or None when it is already there."""
    return merge_hook(settings, _DEFAULT, shown)


def allow_rules(cwd: str) -> List[str]:
    """The rules ``init --hook`` adds to ``permissions.allow``: the reads (never ``links``,
    ``index`` or ``init``) through the relative command the markers name and through the
    absolute one the hook's context line names, and the Skill tool for our skill.

    The absolute form is written for the project's path as given and as resolved (the
    hook names the path it was run from); a path a shell would need quoted (a space, a
    ``*``) gets no absolute rule, since inside a rule it could widen it."""
    import shlex

    from termsprawl_context.workspace.discovery import SKILL_NAME, read_rules
    from termsprawl_context.workspace.project import command_path

    rules = read_rules(INSTALLED_COMMAND)
    for root in dict.fromkeys((os.path.abspath(cwd), os.path.realpath(cwd))):
        command = command_path(root)
        if shlex.quote(command) == command:
            rules.extend(read_rules(command))
    rules.append(_DEFAULT.skill_rule(SKILL_NAME))
    return rules


def merge_permissions(
    settings: Dict[str, Any], rules: List[str], shown: str = SETTINGS_FILE
) -> Optional[Dict[str, Any]]:
    """``settings`` with each of ``rules`` missing from ``permissions.allow`` appended, or
    None when all are there. Every other rule (the user's, allow, ask or deny) and key is
    kept as it is, in its order: nothing is removed or widened. A ``permissions`` that is
    not an object, or an ``allow`` that is not an array, raises SettingsUnusable."""
    permissions = settings.get(SETTINGS_PERMISSIONS, {})
    if not isinstance(permissions, dict):
        raise _refused(
            shown, 'has "%s" as a JSON %s, not an object' % (SETTINGS_PERMISSIONS, json_type_name(permissions))
        )
    allow = permissions.get(SETTINGS_ALLOW, [])
    if not isinstance(allow, list):
        raise _refused(
            shown,
            'has "%s.%s" as a JSON %s, not an array' % (SETTINGS_PERMISSIONS, SETTINGS_ALLOW, json_type_name(allow)),
        )
    missing = [rule for rule in dict.fromkeys(rules) if rule not in allow]
    if not missing:
        return None
    merged_permissions = dict(permissions)
    merged_permissions[SETTINGS_ALLOW] = list(allow) + missing
    merged = dict(settings)
    merged[SETTINGS_PERMISSIONS] = merged_permissions
    return merged


# What a read rule must never let run: the commands that change who reads whom.
WRITE_PROBES = ("links add a b", "index set a /x", "init")
SETTINGS_FILES = (SETTINGS_FILE, _DEFAULT.shared_settings_file)


def over_grants(cwd: str) -> List["tuple"]:
    """``[(settings file, rule)]`` for each allow rule in the project's settings that lets
    our command run ``links``, ``index`` or ``init`` with no prompt (``Bash(<cmd> *)``, the
    one-click "don't ask again", ``Bash(*)``, bare ``Bash``), in file order. A file that
    cannot be read or parsed gives nothing."""
    from termsprawl_context.workspace.discovery import SKILL_DIR_BASE, SKILL_FILE
    from termsprawl_context.workspace.project import command_path

    forms = [
        INSTALLED_COMMAND,
        command_path(cwd),
        command_path(os.path.realpath(cwd)),
        SKILL_DIR_BASE.replace(
            _DEFAULT.skill_dir_variable, os.path.join(os.path.abspath(cwd), os.path.dirname(SKILL_FILE))
        ),
    ]
    found = []
    for relative in SETTINGS_FILES:
        data = read_small_file(os.path.join(cwd, relative))
        try:
            settings = parse_settings(data, relative) if data is not None else {}
        except SettingsUnusable:
            continue
        permissions = settings.get(SETTINGS_PERMISSIONS)
        allow = permissions.get(SETTINGS_ALLOW) if isinstance(permissions, dict) else None
        for rule in allow if isinstance(allow, list) else []:
            if isinstance(rule, str) and any(
                _DEFAULT.rule_matches(rule, "%s %s" % (form, probe)) for form in forms for probe in WRITE_PROBES
            ):
                found.append((relative, rule))
    return found


def merge_settings(settings: Dict[str, Any], rules: List[str], shown: str = SETTINGS_FILE):
    """``(merged settings or None when nothing changes, hook added, rules added)``."""
    with_hook = merge_hook_settings(settings, shown)
    base = settings if with_hook is None else with_hook
    with_rules = merge_permissions(base, rules, shown)
    merged = with_rules if with_rules is not None else with_hook
    return merged, with_hook is not None, with_rules is not None


def load_hook_file(cwd: str, harness: Any) -> Tuple[Dict[str, Any], int]:
    """The harness's hook settings file's object ({} when absent) and its size.

    Raises SettingsUnusable, naming the harness's own hook, for a file that cannot be read
    or understood, or is a symbolic link (rewriting it would replace the link with a copy)."""
    relative, path = harness.hook_settings_file, os.path.join(cwd, harness.hook_settings_file)
    event, command = harness.hook_event_session_start, hook_command(harness)
    try:
        check_write_target(cwd, path)
    except OSError as exc:
        reason = "cannot be written here (%s)" % (exc.strerror or exc)
        raise SettingsUnusable(relative, reason, event, command) from None
    if not os.path.lexists(path):
        return {}, 0
    if os.path.islink(path):
        raise SettingsUnusable(relative, "is a symbolic link", event, command)
    data = read_small_file(path)
    if data is None:
        raise SettingsUnusable(relative, "cannot be read (not a readable regular file)", event, command)
    try:
        return parse_settings(data, relative), len(data)
    except SettingsUnusable as exc:
        raise SettingsUnusable(relative, exc.reason, event, command) from None


def load_settings(cwd: str) -> Dict[str, Any]:
    """The project's local settings ({} when absent; ``load_hook_file``)."""
    return load_hook_file(cwd, _DEFAULT)[0]


def dump_settings(merged: Dict[str, Any], original_size: int = 0) -> bytes:
    """The merged settings as written: pretty (2-space indent) unless that would be more
    than twice the original's size (a compact file of many tiny values), then compact."""
    pretty = (dumps_settings(merged, 2) + "\n").encode("utf-8")
    if len(pretty) <= _PRETTY_GROWTH * original_size + _PRETTY_SLACK:
        return pretty
    return (dumps_settings(merged) + "\n").encode("utf-8")


def register_hook(cwd: str, merged: Optional[Dict[str, Any]], original_size: int = 0) -> Step:
    if merged is None:
        return Step("hook", SETTINGS_FILE, UNCHANGED, "%s hook already registered" % HOOK_EVENT)
    try:
        write_atomic(cwd, os.path.join(cwd, SETTINGS_FILE), dump_settings(merged, original_size))
    except (OSError, ValueError, RecursionError) as exc:
        return Step("hook", SETTINGS_FILE, FAILED, getattr(exc, "strerror", None) or str(exc))
    return Step("hook", SETTINGS_FILE, WRITTEN, "%s runs `%s`" % (HOOK_EVENT, HOOK_COMMAND))


def register_settings(
    cwd: str,
    merged: Optional[Dict[str, Any]],
    hook_added: bool,
    rules_added: bool,
    rule_count: int,
    original_size: int = 0,
) -> List[Step]:
    """Write the merged settings once: a step for the hook and one for the allow rules."""
    hook_step = register_hook(cwd, merged if hook_added or rules_added else None, original_size)
    if hook_step.outcome == FAILED:
        return [hook_step, Step("permissions", SETTINGS_FILE, FAILED, hook_step.detail)]
    if not hook_added:
        hook_step = Step("hook", SETTINGS_FILE, UNCHANGED, "%s hook already registered" % HOOK_EVENT)
    if rules_added:
        rules_step = Step(
            "permissions",
            SETTINGS_FILE,
            WRITTEN,
            "allows the %d read commands and the skill with no prompt; never links, index or init" % (rule_count - 1),
        )
    else:
        rules_step = Step("permissions", SETTINGS_FILE, UNCHANGED, "the read commands and the skill already allowed")
    return [hook_step, rules_step]


def file_size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
