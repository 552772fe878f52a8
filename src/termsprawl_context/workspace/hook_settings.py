"""A CLI's JSON settings as ``init`` merges into them (never replaced; left untouched when
not understood): its SessionStart hook and read rules added (nothing removed or widened),
written atomically inside the project; and the check for allow rules that grant our
writing commands. The file, the entry's shape and the rules' language are the provider's.
Every value the merge does not own is kept exactly: a number its float or int would not
give back as the same text (``1e-400``, ``-0``, ``1E5``, an integer too long to convert)
is kept as that text (``NumberText``); a key twice in one object (``json.loads`` keeps
only the last, so a rewrite would drop a person's whole ``"hooks"``) and NaN or Infinity
(not JSON) are refused; strings are written back as equal values.
"""

import json
import os
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from termsprawl_context.errors import DuplicateKey, SettingsUnusable
from termsprawl_context.jsonl import json_type_name, loads_strict
from termsprawl_context.workspace.discovery import READ_RULE_OPTIONS, SKILL_DIR_BASE, SKILL_FILE, SKILL_NAME
from termsprawl_context.workspace.files import check_write_target, read_small_file, write_atomic
from termsprawl_context.workspace.init_steps import FAILED, UNCHANGED, WRITTEN, Step, failed
from termsprawl_context.workspace.layout import INSTALLED_COMMAND
from termsprawl_context.workspace.project import command_path, hook_command


# Longer integers are kept as text unconverted: int() of a long digit string is
# quadratic before Python 3.12 and refused past 4300 digits from 3.11.
_MAX_CONVERTED_DIGITS = 18


class NumberText(float):
    """A JSON number kept by its source text (the float is for type checks), which ``dumps_settings`` writes."""

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> "NumberText":
        self = super().__new__(cls, text)
        self.text = text
        return self


def _unique_object(pairs: list) -> dict:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return value


def _float(text: str) -> float:
    value = float(text)
    return value if float.__repr__(value) == text else NumberText(text)


def _int(text: str) -> float:
    # JSON allows no leading zero, so an int's repr is its text, "-0" aside.
    if text == "-0" or len(text) > _MAX_CONVERTED_DIGITS:
        return NumberText(text)
    return int(text)


def loads_settings(text: str) -> object:
    """The value of ``text``, numbers kept as written; DuplicateKey, or ``loads_strict``'s errors."""
    return loads_strict(text, parse_float=_float, parse_int=_int, object_pairs_hook=_unique_object)


def _string(text: str) -> str:
    spelled = json.dumps(text, ensure_ascii=False)
    try:
        spelled.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: escaped, so the file stays UTF-8 and reads back equal
        return json.dumps(text)
    return spelled


def _scalar(value: object) -> str:
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, NumberText):
        return value.text
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float) and value - value == 0:  # finite: inf - inf and nan are nan
        return float.__repr__(value)
    raise ValueError("cannot write %r as JSON" % (value,))


def _write(value: object, out: list, indent, level: int) -> None:
    if isinstance(value, str):
        out.append(_string(value))
        return
    if not isinstance(value, (dict, list)):
        out.append(_scalar(value))
        return
    is_object = isinstance(value, dict)
    if not value:
        out.append("{}" if is_object else "[]")
        return
    inner = "" if indent is None else "\n" + " " * (indent * (level + 1))
    separator = "," + inner
    colon = ":" if indent is None else ": "
    out.append(("{" if is_object else "[") + inner)
    for number, (key, item) in enumerate(value.items() if isinstance(value, dict) else enumerate(value)):
        if is_object and not isinstance(key, str):
            raise ValueError("cannot write the key %r as JSON" % (key,))
        out.append((separator if number else "") + (_string(key) + colon if is_object else ""))
        _write(item, out, indent, level + 1)
    out.append(("" if indent is None else "\n" + " " * (indent * level)) + ("}" if is_object else "]"))


def dumps_settings(value: object, indent=None) -> str:
    """``value`` as ``json.dumps(value, indent=indent, ensure_ascii=False)`` writes it, but each
    NumberText as its text and a lone surrogate escaped; ValueError for a non-finite float."""
    out = []  # type: list
    _write(value, out, indent, 0)
    return "".join(out)


# Deeper settings than this are not a person's; re-serialising them costs the parser's
# recursion (exit 70 on some versions) and, indented, space quadratic in the depth.
MAX_SETTINGS_DEPTH = 64
# Pretty output may be this much larger than the input (plus our entry) before the
# merge falls back to compact output: a file is never rewritten many times its size.
_PRETTY_GROWTH = 2
_PRETTY_SLACK = 4096


def _refused(shown: str, reason: str, harness: Any = None) -> SettingsUnusable:
    """The settings file ``shown`` refused for ``reason``, naming ``harness``'s hook when given."""
    if harness is None:
        return SettingsUnusable(shown, reason)
    return SettingsUnusable(shown, reason, harness.hook_event_session_start, hook_command(harness))


def _nesting_depth(text: str) -> int:
    """The deepest bracket nesting of a JSON text (strings skipped), counted without recursion."""
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


def parse_settings(data: bytes, shown: str, harness: Any = None) -> Dict[str, Any]:
    """The settings object in ``data`` ({} when empty), numbers kept as written; SettingsUnusable
    for what a rewrite could lose (not UTF-8 or JSON, NaN, a key twice, nesting too deep)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _refused(shown, "is not UTF-8 text", harness) from None
    if not text.strip():
        return {}
    if _nesting_depth(text) > MAX_SETTINGS_DEPTH:
        raise _refused(shown, "nests deeper than %d levels" % MAX_SETTINGS_DEPTH, harness)
    try:
        value = loads_settings(text)
    except DuplicateKey as exc:
        raise _refused(shown, "has %s (a rewrite would keep only the last)" % exc, harness) from None
    except (ValueError, RecursionError) as exc:
        raise _refused(shown, "is not valid JSON (%s)" % exc, harness) from None
    if not isinstance(value, dict):
        raise _refused(shown, "holds a JSON %s, not an object" % json_type_name(value), harness)
    return value


def _nested_list(settings: Dict[str, Any], outer: str, inner: str, harness: Any, shown: str) -> list:
    """``settings[outer][inner]``, an array ([] when absent); SettingsUnusable for another JSON type."""
    table = settings.get(outer, {})
    if not isinstance(table, dict):
        raise _refused(shown, 'has "%s" as a JSON %s, not an object' % (outer, json_type_name(table)), harness)
    items = table.get(inner, [])
    if not isinstance(items, list):
        reason = 'has "%s.%s" as a JSON %s, not an array' % (outer, inner, json_type_name(items))
        raise _refused(shown, reason, harness)
    return items


def _with_list(settings: Dict[str, Any], outer: str, inner: str, items: list) -> Dict[str, Any]:
    """``settings`` with ``settings[outer][inner]`` set to ``items``; every other key kept, in its order."""
    return dict(settings, **{outer: dict(settings.get(outer, {}), **{inner: items})})


def merge_hook(settings: Dict[str, Any], harness: Any) -> Optional[Dict[str, Any]]:
    """``settings`` with the harness's SessionStart entry added (every other key kept, in order),
    or None when it is there; SettingsUnusable for a wrong JSON type on the way."""
    event, command = harness.hook_event_session_start, hook_command(harness)
    entries = _nested_list(settings, "hooks", event, harness, harness.hook_settings_file)
    ours = (command,) + harness.legacy_hook_commands
    hooks = [h for e in entries if isinstance(e, dict) and isinstance(e.get("hooks"), list) for h in e["hooks"]]
    if any(isinstance(h, dict) and h.get("command") in ours for h in hooks):  # whatever its matcher or timeout
        return None
    return _with_list(settings, "hooks", event, list(entries) + [harness.hook_entry(command)])


def hook_registered(cwd: str, harness: Any) -> bool:
    """The harness's hook is already in its hook settings file (False when that cannot be read)."""
    try:
        return merge_hook(load_hook_file(cwd, harness)[0], harness) is None
    except SettingsUnusable:
        return False


def _read_commands(cwd: str) -> List[str]:
    """How an allow rule names our command: as the markers do, and absolute for the project as
    given and resolved; a path a shell would quote gets none (inside a rule it could widen it)."""
    import shlex

    commands = [INSTALLED_COMMAND]
    for root in dict.fromkeys((os.path.abspath(cwd), os.path.realpath(cwd))):
        command = command_path(root)
        if shlex.quote(command) == command:
            commands.append(command)
    return commands


def allow_rules(cwd: str, harness: Any) -> List[str]:
    """The rules ``init`` allows: the reads (never ``links``, ``index`` or ``init``), and the skill."""
    rules = [rule for command in _read_commands(cwd) for rule in harness.read_rules(command, READ_RULE_OPTIONS)]
    return rules + [harness.skill_rule(SKILL_NAME)]


def merge_permissions(settings: Dict[str, Any], rules: List[str], harness: Any) -> Optional[Dict[str, Any]]:
    """``settings`` with the ``rules`` missing from the harness's allow list appended, or None when
    none is; SettingsUnusable for a wrong JSON type on the way."""
    outer, inner = harness.settings_allow_keys
    allow = _nested_list(settings, outer, inner, harness, harness.hook_settings_file)
    missing = [rule for rule in dict.fromkeys(rules) if rule not in allow]
    return _with_list(settings, outer, inner, list(allow) + missing) if missing else None


# What a read rule must never let run: the commands that change who reads whom.
WRITE_PROBES = ("links add a b", "index set a /x", "init")


def over_grants(cwd: str, harness: Any) -> List["tuple"]:
    """``[(settings file, rule)]`` for each allow rule in the harness's project settings letting
    our command run ``links``, ``index`` or ``init`` unasked (an unreadable file gives none)."""
    if not harness.settings_allow_keys:
        return []
    skill_dir = os.path.join(os.path.abspath(cwd), os.path.dirname(SKILL_FILE))
    forms = [INSTALLED_COMMAND, command_path(cwd), command_path(os.path.realpath(cwd))]
    forms.append(SKILL_DIR_BASE.replace(harness.skill_dir_variable, skill_dir))
    outer, inner = harness.settings_allow_keys
    found = []
    for relative in (harness.hook_settings_file, harness.shared_settings_file):
        data = read_small_file(os.path.join(cwd, relative))
        try:
            settings = parse_settings(data, relative) if data is not None else {}
            allow = _nested_list(settings, outer, inner, None, relative)
        except SettingsUnusable:
            continue
        for rule in allow:
            if isinstance(rule, str) and any(
                harness.rule_matches(rule, "%s %s" % (form, probe)) for form in forms for probe in WRITE_PROBES
            ):
                found.append((relative, rule))
    return found


class PreparedHook(NamedTuple):
    """A harness's hook settings merge, checked before ``init`` writes anything."""

    harness: Any
    merged: Optional[Dict[str, Any]]  # None: nothing to change
    size: int  # the original's
    added: bool = True  # whether the hook itself is new
    notes: tuple = ()  # values of the person's kept
    rules: int = 0  # the read rules its allow list holds (the default CLI's permissions step)
    rules_added: bool = False


def prepare_settings(cwd: str, harness: Any) -> PreparedHook:
    """The harness's hook and read rules merged into its hook settings (``init --hook``); SettingsUnusable."""
    rules = allow_rules(cwd, harness)
    settings, size = load_hook_file(cwd, harness)
    hooked = merge_hook(settings, harness)
    permitted = merge_permissions(settings if hooked is None else hooked, rules, harness)
    merged = permitted if permitted is not None else hooked
    return PreparedHook(harness, merged, size, hooked is not None, (), len(rules), permitted is not None)


def load_hook_file(cwd: str, harness: Any) -> Tuple[Dict[str, Any], int]:
    """The harness's hook settings ({} when absent) and their size; SettingsUnusable for a file not
    read or understood, or a symlink (a rewrite would replace the link with a copy)."""
    relative = harness.hook_settings_file
    path = os.path.join(cwd, relative)
    try:
        check_write_target(cwd, path)
    except OSError as exc:
        raise _refused(relative, "cannot be written here (%s)" % (exc.strerror or exc), harness) from None
    if not os.path.lexists(path):
        return {}, 0
    if os.path.islink(path):
        raise _refused(relative, "is a symbolic link", harness)
    data = read_small_file(path)
    if data is None:
        raise _refused(relative, "cannot be read (not a readable regular file)", harness)
    return parse_settings(data, relative, harness), len(data)


def dump_settings(merged: Dict[str, Any], original_size: int = 0) -> bytes:
    """The settings as written: pretty (2-space indent) unless much larger than the original, then compact."""
    pretty = (dumps_settings(merged, 2) + "\n").encode("utf-8")
    if len(pretty) <= _PRETTY_GROWTH * original_size + _PRETTY_SLACK:
        return pretty
    return (dumps_settings(merged) + "\n").encode("utf-8")


def write_hook_file(cwd: str, harness: Any, merged: Optional[Dict[str, Any]], size: int = 0, done: str = "") -> Step:
    """The hook settings file rewritten as ``merged`` (None: already registered); ``done``: what it did."""
    relative, event = harness.hook_settings_file, harness.hook_event_session_start
    if merged is None:
        return Step("hook", relative, UNCHANGED, "%s hook already registered" % event)
    try:
        write_atomic(cwd, os.path.join(cwd, relative), dump_settings(merged, size))
    except (OSError, ValueError, RecursionError) as exc:
        return failed("hook", relative, exc)
    return Step("hook", relative, WRITTEN, done or "%s runs `%s`" % (event, hook_command(harness)))


def register_settings(cwd: str, prepared: PreparedHook) -> List[Step]:
    """Write a ``PreparedHook`` once: a step for the hook, and one for the allow rules if it has them."""
    harness, rules = prepared.harness, prepared.rules
    done = "" if prepared.added or rules else "settings completed"
    written = write_hook_file(cwd, harness, prepared.merged, prepared.size, done)
    if not rules:
        return [written]
    if written.outcome == FAILED:
        return [written, written._replace(what="permissions")]
    detail = "allows the %d read commands and the skill with no prompt; never links, index or init" % (rules - 1)
    if not prepared.rules_added:
        detail = "the read commands and the skill already allowed"
    rules_step = Step("permissions", harness.hook_settings_file, WRITTEN if prepared.rules_added else UNCHANGED, detail)
    hook_step = written if prepared.added else write_hook_file(cwd, harness, None)  # (None: "already registered")
    return [hook_step, rules_step]
