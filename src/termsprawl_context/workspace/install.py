"""Standalone use: put the command into a project, so sessions are recorded without the app.

The desktop app records each node's transcript path and plants the discovery markers;
without it nothing ever writes the index and the dump prints nothing. ``init_project``
installs what the markers point at (the running one-file artifact, copied to
``.termsprawl/bin/termsprawl-context``), plants the markers, keeps the personal index out
of version control and, optionally, registers a Claude Code ``SessionStart`` hook
(what that hook runs is ``termsprawl_context.hooks.record_from_hook``).

Every write is atomic and inside the project. An existing settings file is merged into,
never replaced, and left untouched when it cannot be understood.
"""

import json
import os
import zipfile
from typing import Any, Dict, List, NamedTuple, Optional

from termsprawl_context.errors import EXIT_USAGE, NotFound, Refusal
from termsprawl_context.jsonl import json_type_name, loads_strict
from termsprawl_context.harness.claude import (
    PROJECT_CONFIG_DIR,
    SETTINGS_ALLOW,
    SETTINGS_LOCAL_NAME,
    SETTINGS_FILE_SHARED,
    SETTINGS_PERMISSIONS,
    SKILL_DIR_VARIABLE,
    skill_rule,
)
from termsprawl_context.workspace.files import (
    STATE_DIR,
    TRANSCRIPTS_DIR,
    check_write_target,
    dump_json,
    file_mode,
    read_managed_file,
    read_small_file,
    write_atomic,
)
from termsprawl_context.workspace.project import COMMAND_NAME, INSTALLED_COMMAND, enclosing_project  # noqa: F401

COMMAND_MODE = 0o755
# Files a person may commit or share get the usual mode, not mkstemp's 0600.
# The artifact is a few MB; anything this large is not it.
MAX_ARTIFACT_BYTES = 64 * 1024 * 1024

GITIGNORE_FILE = os.path.join(STATE_DIR, ".gitignore")
IGNORED_ENTRY = TRANSCRIPTS_DIR + "/"
GITIGNORE_COMMENT = "# termsprawl: transcript index entries are absolute, personal paths"
# Lines that already keep the index folder out of git, in the spellings people use.
_IGNORING_PATTERNS = ("%s", "%s/", "/%s", "/%s/", "%s/*", "/%s/*", "%s/**", "/%s/**")
_IGNORING_LINES = frozenset(pattern % TRANSCRIPTS_DIR for pattern in _IGNORING_PATTERNS)

# Claude Code keeps the personal settings file out of git when it creates the file
# itself (through the user's global excludes, which we never write); for the file init
# creates, a .gitignore beside it does the same for every clone.
CLAUDE_GITIGNORE_FILE = os.path.join(PROJECT_CONFIG_DIR, ".gitignore")
CLAUDE_IGNORED_ENTRY = SETTINGS_LOCAL_NAME
CLAUDE_GITIGNORE_COMMENT = "# termsprawl: personal Claude Code settings (the SessionStart hook), never shared"
_CLAUDE_IGNORING_LINES = frozenset((SETTINGS_LOCAL_NAME, "/" + SETTINGS_LOCAL_NAME, "*.local.json", "/*.local.json"))

SETTINGS_FILE = os.path.join(".claude", "settings.local.json")
HOOK_EVENT = "SessionStart"
# Claude Code started in a subdirectory may read the project's local settings yet name
# the subdirectory as $CLAUDE_PROJECT_DIR, so the command is found by walking up from
# there (as `init` finds the project), not assumed at $CLAUDE_PROJECT_DIR itself.
HOOK_COMMAND = ('d="${CLAUDE_PROJECT_DIR:-$PWD}"; '
                'while [ ! -x "$d/.termsprawl/bin/termsprawl-context" ] && [ "$d" != / ]; do d=$(dirname "$d"); done; '
                'exec "$d/.termsprawl/bin/termsprawl-context" hook')
# Commands earlier versions registered: an entry running one of them is ours too.
LEGACY_HOOK_COMMANDS = ('"$CLAUDE_PROJECT_DIR"/.termsprawl/bin/termsprawl-context hook',)
HOOK_TIMEOUT = 10
HOOK_ENTRY = {"hooks": [{"type": "command", "command": HOOK_COMMAND, "timeout": HOOK_TIMEOUT}]}

BUILD_HINT = (
    "build it with `python3 build_zipapp.py` (writes dist/termsprawl-context.pyz) or copy "
    "dist/termsprawl-context.pyz from the repository, then run `python3 termsprawl-context.pyz init`"
)

# Step outcomes, as printed.
WRITTEN = "written"
UNCHANGED = "unchanged"
KEPT = "kept"  # the user edited it; left alone
FAILED = "failed"
SKIPPED = "skipped"
OUTCOMES = (WRITTEN, UNCHANGED, KEPT, FAILED, SKIPPED)


class NotFromArtifact(Refusal):
    """init copies the running one-file artifact; a source checkout has none to copy."""

    def __init__(self) -> None:
        super().__init__("init: not running from the one-file artifact, so there is nothing to install; " + BUILD_HINT)


class ProjectMissing(NotFound):
    def __init__(self, cwd: str) -> None:
        super().__init__("init: no such directory: %s" % cwd)


class NestedProject(Refusal):
    """init would start a second project inside an existing one."""

    exit_code = EXIT_USAGE

    def __init__(self, cwd: str, outer: str) -> None:
        super().__init__("init: %s lies inside the project %s (it has .termsprawl/); run init there, "
                         "or without --cwd from anywhere inside it" % (cwd, outer))


class SettingsUnusable(Refusal):
    """The existing settings file cannot be merged into; it is left untouched."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(
            "init: %s %s; it was left untouched (fix it, or add the %s hook `%s` yourself)"
            % (path, reason, HOOK_EVENT, HOOK_COMMAND)
        )


class Step(NamedTuple):
    what: str  # "command", "discovery", "memory", "gitignore", "hook"
    path: str  # relative to the project
    outcome: str  # one of OUTCOMES
    detail: str = ""


class InitReport(NamedTuple):
    cwd: str
    artifact: str
    hook: bool
    steps: List[Step]

    @property
    def ok(self) -> bool:
        return all(step.outcome not in (FAILED, SKIPPED) for step in self.steps)


# --- the artifact ---------------------------------------------------------------------------


def running_artifact(module_file: Optional[str] = None) -> Optional[str]:
    """The one-file artifact this code runs from, or None.

    Run from a zip, a module's ``__file__`` lies inside it
    (``/x/termsprawl-context.pyz/site-packages/termsprawl_context/__init__.py``): the
    nearest ancestor that is a regular file is the artifact."""
    if module_file is None:
        import termsprawl_context

        module_file = termsprawl_context.__file__ or ""
    current = os.path.dirname(os.path.abspath(module_file))
    while True:
        if os.path.isfile(current):
            return current if zipfile.is_zipfile(current) else None
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def install_command(cwd: str, artifact: str) -> Step:
    """Copy ``artifact`` to ``.termsprawl/bin/termsprawl-context`` (0755), atomically,
    only when the bytes or the mode differ."""
    target = os.path.join(cwd, INSTALLED_COMMAND)
    data = read_small_file(artifact, MAX_ARTIFACT_BYTES)
    if data is None:
        return Step("command", INSTALLED_COMMAND, FAILED, "cannot read %s" % artifact)
    if read_small_file(target, MAX_ARTIFACT_BYTES) == data and file_mode(target) == COMMAND_MODE:
        return Step("command", INSTALLED_COMMAND, UNCHANGED, "same as %s" % artifact)
    try:
        write_atomic(cwd, target, data, mode=COMMAND_MODE)
    except OSError as exc:
        return Step("command", INSTALLED_COMMAND, FAILED, exc.strerror or str(exc))
    return Step("command", INSTALLED_COMMAND, WRITTEN, "copied from %s" % artifact)


# --- discovery markers ----------------------------------------------------------------------


def _refusal(cwd: str, relative: str) -> Optional[str]:
    """Why a marker file will be left alone (outside the project, the home directory's
    own .claude/, not a regular file, too large to read whole), or None."""
    path = os.path.join(cwd, relative)
    try:
        check_write_target(cwd, path)
        read_managed_file(path)
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def plant_discovery(cwd: str) -> List[Step]:
    """Plant or refresh the discovery markers; one step per marker file."""
    from termsprawl_context.workspace import discovery

    steps = []
    for relative, outcome in discovery.refresh_discovery(cwd):
        why = _refusal(cwd, relative) if outcome == discovery.FAILED else None
        if outcome == discovery.USER_EDITED:
            steps.append(Step("discovery", relative, KEPT, "edited by its user: left alone"))
        elif why is not None:
            steps.append(Step("discovery", relative, SKIPPED, why))
        elif outcome == discovery.FAILED:
            steps.append(Step("discovery", relative, FAILED, "could not be written"))
        else:
            steps.append(Step("discovery", relative, WRITTEN if outcome == discovery.WRITTEN else UNCHANGED))
    return steps


def import_from_claude_md(cwd: str) -> Step:
    """The import line in the project's CLAUDE.md, so Claude Code reads the block at launch."""
    from termsprawl_context.workspace import discovery

    outcome = discovery.ensure_claude_md(cwd)
    path = discovery.CLAUDE_MD_FILE
    if outcome == discovery.FAILED:
        return Step("memory", path, FAILED, "could not be written")
    if outcome == discovery.WRITTEN:
        return Step("memory", path, WRITTEN, "imports %s" % discovery.CLAUDE_MD_IMPORT)
    return Step("memory", path, UNCHANGED, "already imports %s" % discovery.CLAUDE_MD_IMPORT)


def import_from_gemini_md(cwd: str) -> Step:
    """The import line in the project's GEMINI.md, so Gemini CLI reads the block at launch."""
    from termsprawl_context.workspace import discovery

    outcome = discovery.ensure_gemini_md(cwd)
    path, line = discovery.gemini_md()
    if outcome == discovery.FAILED:
        return Step("memory", path, FAILED, "could not be written")
    if outcome == discovery.WRITTEN:
        return Step("memory", path, WRITTEN, "imports %s" % line)
    return Step("memory", path, UNCHANGED, "already imports %s" % line)


# --- .termsprawl/.gitignore -----------------------------------------------------------------


def merge_gitignore(content: str, entry: str = IGNORED_ENTRY, comment: str = GITIGNORE_COMMENT,
                    ignoring=_IGNORING_LINES) -> str:
    """``content`` with ``entry`` ignored; unchanged when a line already does."""
    if any(line.strip() in ignoring for line in content.splitlines()):
        return content
    if content and not content.endswith("\n"):
        content += "\n"
    return content + comment + "\n" + entry + "\n"


def ensure_gitignore(cwd: str, relative: str = GITIGNORE_FILE, entry: str = IGNORED_ENTRY,
                     comment: str = GITIGNORE_COMMENT, ignoring=_IGNORING_LINES) -> Step:
    """Keep ``entry`` out of git with the ``.gitignore`` at ``relative``, merged into."""
    path = os.path.join(cwd, relative)
    data = read_small_file(path)
    if data is None and os.path.lexists(path):
        return Step("gitignore", relative, FAILED, "exists but is not a readable regular file")
    current = data.decode("utf-8", "surrogateescape") if data is not None else ""
    wanted = merge_gitignore(current, entry, comment, ignoring)
    if data is not None and wanted == current:
        return Step("gitignore", relative, UNCHANGED, "already ignores %s" % entry)
    try:
        write_atomic(cwd, path, wanted.encode("utf-8", "surrogateescape"))
    except OSError as exc:
        return Step("gitignore", relative, FAILED, exc.strerror or str(exc))
    return Step("gitignore", relative, WRITTEN, "ignores %s" % entry)


def ignore_local_settings(cwd: str) -> Step:
    """Keep ``.claude/settings.local.json`` out of git (``.claude/.gitignore``)."""
    return ensure_gitignore(cwd, CLAUDE_GITIGNORE_FILE, CLAUDE_IGNORED_ENTRY, CLAUDE_GITIGNORE_COMMENT,
                            _CLAUDE_IGNORING_LINES)


# --- .claude/settings.local.json ------------------------------------------------------------


# Deeper settings than this are not a person's; re-serialising them costs the parser's
# recursion (exit 70 on some versions) and, indented, space quadratic in the depth.
MAX_SETTINGS_DEPTH = 64
# Pretty output may be this much larger than the input (plus our entry) before the
# merge falls back to compact output: a file is never rewritten many times its size.
_PRETTY_GROWTH = 2
_PRETTY_SLACK = 4096


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


def _finite_float(literal: str) -> float:
    import math

    value = float(literal)
    if math.isinf(value):
        # JSON has no infinity: 1e400 would come back out as Infinity, which no JSON parser reads.
        raise ValueError("the number %s is out of range" % (literal if len(literal) <= 40 else literal[:40] + "..."))
    return value


def parse_settings(data: bytes, shown: str) -> Dict[str, Any]:
    """The settings object in ``data`` ({} for an empty file); SettingsUnusable otherwise.

    Refused, so that a rewrite keeps every value it does not own exactly: text that is
    not UTF-8 or not JSON, NaN/Infinity, a number too large for a double (``1e400``),
    an integer too long to convert, nesting deeper than ``MAX_SETTINGS_DEPTH``."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise SettingsUnusable(shown, "is not UTF-8 text") from None
    if not text.strip():
        return {}
    if _nesting_depth(text) > MAX_SETTINGS_DEPTH:
        raise SettingsUnusable(shown, "nests deeper than %d levels" % MAX_SETTINGS_DEPTH)
    try:
        value = loads_strict(text, parse_float=_finite_float)
    except (ValueError, RecursionError) as exc:
        raise SettingsUnusable(shown, "is not valid JSON (%s)" % exc) from None
    if not isinstance(value, dict):
        raise SettingsUnusable(shown, "holds a JSON %s, not an object" % json_type_name(value))
    return value


def has_our_hook(entries: List[Any]) -> bool:
    """Some SessionStart entry already runs our command (whatever its matcher or timeout)."""
    for entry in entries:
        hooks = entry.get("hooks") if isinstance(entry, dict) else None
        if isinstance(hooks, list) and any(isinstance(h, dict) and h.get("command") in (HOOK_COMMAND,) + LEGACY_HOOK_COMMANDS
                                           for h in hooks):
            return True
    return False


def merge_hook_settings(settings: Dict[str, Any], shown: str = SETTINGS_FILE) -> Optional[Dict[str, Any]]:
    """``settings`` with our SessionStart hook added, or None when it is already there.

    Every other key, event and entry is kept as it is, in its order. A ``hooks`` that is
    not an object, or a ``SessionStart`` that is not an array, raises SettingsUnusable."""
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsUnusable(shown, 'has "hooks" as a JSON %s, not an object' % json_type_name(hooks))
    entries = hooks.get(HOOK_EVENT, [])
    if not isinstance(entries, list):
        raise SettingsUnusable(shown, 'has "hooks.%s" as a JSON %s, not an array' % (HOOK_EVENT, json_type_name(entries)))
    if has_our_hook(entries):
        return None
    merged_hooks = dict(hooks)
    merged_hooks[HOOK_EVENT] = list(entries) + [json.loads(json.dumps(HOOK_ENTRY))]
    merged = dict(settings)
    merged["hooks"] = merged_hooks
    return merged


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
    rules.append(skill_rule(SKILL_NAME))
    return rules


def merge_permissions(settings: Dict[str, Any], rules: List[str], shown: str = SETTINGS_FILE) -> Optional[Dict[str, Any]]:
    """``settings`` with each of ``rules`` missing from ``permissions.allow`` appended, or
    None when all are there. Every other rule (the user's, allow, ask or deny) and key is
    kept as it is, in its order: nothing is removed or widened. A ``permissions`` that is
    not an object, or an ``allow`` that is not an array, raises SettingsUnusable."""
    permissions = settings.get(SETTINGS_PERMISSIONS, {})
    if not isinstance(permissions, dict):
        raise SettingsUnusable(shown, 'has "%s" as a JSON %s, not an object'
                               % (SETTINGS_PERMISSIONS, json_type_name(permissions)))
    allow = permissions.get(SETTINGS_ALLOW, [])
    if not isinstance(allow, list):
        raise SettingsUnusable(shown, 'has "%s.%s" as a JSON %s, not an array'
                               % (SETTINGS_PERMISSIONS, SETTINGS_ALLOW, json_type_name(allow)))
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
SETTINGS_FILES = (SETTINGS_FILE, SETTINGS_FILE_SHARED)


def over_grants(cwd: str) -> List["tuple"]:
    """``[(settings file, rule)]`` for each allow rule in the project's settings that lets
    our command run ``links``, ``index`` or ``init`` with no prompt (``Bash(<cmd> *)``, the
    one-click "don't ask again", ``Bash(*)``, bare ``Bash``), in file order. A file that
    cannot be read or parsed gives nothing."""
    from termsprawl_context.harness.claude import bash_rule_matches
    from termsprawl_context.workspace.discovery import SKILL_DIR_BASE, SKILL_FILE
    from termsprawl_context.workspace.project import command_path

    forms = [INSTALLED_COMMAND, command_path(cwd), command_path(os.path.realpath(cwd)),
             SKILL_DIR_BASE.replace(SKILL_DIR_VARIABLE, os.path.join(os.path.abspath(cwd), os.path.dirname(SKILL_FILE)))]
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
            if isinstance(rule, str) and any(bash_rule_matches(rule, "%s %s" % (form, probe))
                                             for form in forms for probe in WRITE_PROBES):
                found.append((relative, rule))
    return found


def merge_settings(settings: Dict[str, Any], rules: List[str], shown: str = SETTINGS_FILE):
    """``(merged settings or None when nothing changes, hook added, rules added)``."""
    with_hook = merge_hook_settings(settings, shown)
    base = settings if with_hook is None else with_hook
    with_rules = merge_permissions(base, rules, shown)
    merged = with_rules if with_rules is not None else with_hook
    return merged, with_hook is not None, with_rules is not None


def load_settings(cwd: str) -> Dict[str, Any]:
    """The project's local settings ({} when absent).

    Raises SettingsUnusable for a file that cannot be read or understood, or is a
    symbolic link (rewriting it would replace the link with a copy)."""
    path = os.path.join(cwd, SETTINGS_FILE)
    try:
        check_write_target(cwd, path)
    except OSError as exc:
        raise SettingsUnusable(SETTINGS_FILE, "cannot be written here (%s)" % (exc.strerror or exc)) from None
    if not os.path.lexists(path):
        return {}
    if os.path.islink(path):
        raise SettingsUnusable(SETTINGS_FILE, "is a symbolic link")
    data = read_small_file(path)
    if data is None:
        raise SettingsUnusable(SETTINGS_FILE, "cannot be read (not a readable regular file)")
    return parse_settings(data, SETTINGS_FILE)


def dump_settings(merged: Dict[str, Any], original_size: int = 0) -> bytes:
    """The merged settings as written: pretty (2-space indent) unless that would be more
    than twice the original's size (a compact file of many tiny values), then compact."""
    pretty = dump_json(merged)
    if len(pretty) <= _PRETTY_GROWTH * original_size + _PRETTY_SLACK:
        return pretty
    text = json.dumps(merged, ensure_ascii=False, separators=(",", ":"))
    try:
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate in some string: escape, as dump_json does
        return (json.dumps(merged, separators=(",", ":")) + "\n").encode("ascii")


def register_hook(cwd: str, merged: Optional[Dict[str, Any]], original_size: int = 0) -> Step:
    if merged is None:
        return Step("hook", SETTINGS_FILE, UNCHANGED, "%s hook already registered" % HOOK_EVENT)
    try:
        write_atomic(cwd, os.path.join(cwd, SETTINGS_FILE), dump_settings(merged, original_size))
    except (OSError, ValueError, RecursionError) as exc:
        return Step("hook", SETTINGS_FILE, FAILED, getattr(exc, "strerror", None) or str(exc))
    return Step("hook", SETTINGS_FILE, WRITTEN, "%s runs `%s`" % (HOOK_EVENT, HOOK_COMMAND))


def register_settings(cwd: str, merged: Optional[Dict[str, Any]], hook_added: bool, rules_added: bool,
                      rule_count: int, original_size: int = 0) -> List[Step]:
    """Write the merged settings once: a step for the hook and one for the allow rules."""
    hook_step = register_hook(cwd, merged if hook_added or rules_added else None, original_size)
    if hook_step.outcome == FAILED:
        return [hook_step, Step("permissions", SETTINGS_FILE, FAILED, hook_step.detail)]
    if not hook_added:
        hook_step = Step("hook", SETTINGS_FILE, UNCHANGED, "%s hook already registered" % HOOK_EVENT)
    if rules_added:
        rules_step = Step("permissions", SETTINGS_FILE, WRITTEN,
                          "allows the %d read commands and the skill with no prompt; never links, index or init"
                          % (rule_count - 1))
    else:
        rules_step = Step("permissions", SETTINGS_FILE, UNCHANGED, "the read commands and the skill already allowed")
    return [hook_step, rules_step]


def file_size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


# --- init -----------------------------------------------------------------------------------


def init_project(cwd: str, artifact: Optional[str], hook: bool = False, claude_md: bool = False) -> InitReport:
    """Install the command, markers, .gitignore, (with ``claude_md``) the CLAUDE.md import
    and (with ``hook``) the SessionStart hook, its settings file kept out of git.

    Refuses before writing anything when there is no artifact to copy, the directory
    is missing or lies inside another project, or the settings file cannot be merged
    into. A step that fails is reported as FAILED; the hook is not registered (SKIPPED)
    unless the command it runs is in place."""
    if not artifact:
        raise NotFromArtifact()
    if not os.path.isdir(cwd):
        raise ProjectMissing(cwd)
    outer = enclosing_project(cwd)
    if outer:
        raise NestedProject(cwd, outer)
    rules = allow_rules(cwd) if hook else []
    merged, hook_added, rules_added = merge_settings(load_settings(cwd), rules) if hook else (None, False, False)
    original_size = file_size(os.path.join(cwd, SETTINGS_FILE)) if hook else 0
    steps = [install_command(cwd, artifact)]
    steps.extend(plant_discovery(cwd))
    if claude_md:
        steps.append(import_from_claude_md(cwd))
    steps.append(ensure_gitignore(cwd))
    if hook:
        if steps[0].outcome == FAILED:
            steps.append(Step("hook", SETTINGS_FILE, SKIPPED, "the command it would run is not installed"))
        else:
            steps.extend(register_settings(cwd, merged, hook_added, rules_added, len(rules), original_size))
            steps.append(ignore_local_settings(cwd))
    return InitReport(cwd, artifact, hook, steps)
