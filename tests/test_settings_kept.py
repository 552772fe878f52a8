"""The settings merge keeps what it does not own (issue 31, item 3), run from the built
artifact for every CLI's settings file: each number comes back as the text it was written
in, strings as equal values, and a key twice in one object, NaN or Infinity is refused with
nothing written."""

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings as hyp_settings, strategies as st

from conftest import one_error_line, snapshot
from termsprawl_context.workspace import hook_settings
from termsprawl_context import errors
from termsprawl_context.harness import get


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "project"
    path.mkdir()
    return path


HOOK_FILES = [
    ("--hook", ".claude/settings.local.json"),
    ("--codex-hook", ".codex/hooks.json"),
    ("--gemini-hook", ".gemini/settings.json"),
]
HOOK_IDS = [h[0] for h in HOOK_FILES]
# Each number the merge does not own, as the person wrote it: a rewrite must give it back
# as the same text (1e-400 is not 0.0, 0.30000000000000000001 is not 0.3, -0 is not 0).
NUMBERS = [
    "1e-400",
    "0.30000000000000000001",
    "-0",
    "-0.0",
    "1E5",
    "1.5e+300",
    "0.10",
    "1e400",
    "12345678901234567890123456789",
    "9" * 5000,
    "2.5",
    "7",
]


def settings_text(numbers):
    items = ",\n".join('    "n%d": %s' % (i, text) for i, text in enumerate(numbers))
    return '{\n  "mine": {\n%s\n  },\n  "list": [%s],\n  "esc\\u0061ped": "tab\\there \\u00e9 \\ud83d\\ude00"\n}\n' % (
        items,
        ", ".join(numbers),
    )


@pytest.mark.parametrize("flag, relative", HOOK_FILES, ids=HOOK_IDS)
def test_every_number_is_kept_as_written(project, run_pyz, flag, relative):
    path = project / relative
    path.parent.mkdir()
    path.write_text(settings_text(NUMBERS))
    done = run_pyz(["init", "--cwd", project, flag])
    assert done.returncode == 0, done.stderr
    text = path.read_text()
    for i, number in enumerate(NUMBERS):
        assert '\n    "n%d": %s' % (i, number) in text
    assert '"list": [\n    %s\n  ]' % ",\n    ".join(NUMBERS) in text
    merged = json.loads(text, parse_int=str)
    assert merged["escaped"] == "tab\there \u00e9 \U0001f600"  # strings: the same values
    extra = {"--hook": ["permissions"], "--gemini-hook": ["mcpServers", "general"]}.get(flag, [])
    assert list(merged) == ["mine", "list", "escaped", "hooks"] + extra
    before = path.read_bytes()
    again = run_pyz(["init", "--cwd", project, flag])
    assert again.returncode == 0 and path.read_bytes() == before


def test_a_compact_rewrite_keeps_the_numbers_too(project, run_pyz):
    path = project / ".gemini" / "settings.json"
    path.parent.mkdir()
    many = ",".join(["-0"] * 4000 + ["1e-400"])
    path.write_text('{"x":[%s]}' % many)
    done = run_pyz(["init", "--cwd", project, "--gemini-hook"])
    assert done.returncode == 0, done.stderr
    assert path.read_text().startswith('{"x":[%s],"hooks":' % many)


DUPLICATES = [
    (
        "codex's Stop hook",
        '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]},\n'
        ' "hooks": {"SessionStart": []}}',
        '"hooks"',
    ),
    ("nested", '{"model": {"name": "a", "name": "b"}}', '"name"'),
    ("spelled with an escape", '{"a": 1, "\\u0061": 2}', '"a"'),
    ("in an array's object", '{"x": [{"k": 1, "k": 1}]}', '"k"'),
]


@pytest.mark.parametrize("flag, relative", HOOK_FILES, ids=HOOK_IDS)
@pytest.mark.parametrize("name, body, key", DUPLICATES, ids=[d[0] for d in DUPLICATES])
def test_a_duplicated_key_is_refused_and_nothing_written(project, run_pyz, flag, relative, name, body, key):
    path = project / relative
    path.parent.mkdir()
    path.write_text(body)
    before = snapshot(project)
    done = run_pyz(["init", "--cwd", project, flag])
    assert done.returncode == 1 and done.stdout == b""
    one_error_line(done, relative, "the key %s twice" % key, "left untouched")
    assert snapshot(project) == before


@pytest.mark.parametrize("flag, relative", HOOK_FILES, ids=HOOK_IDS)
@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_refused(project, run_pyz, flag, relative, literal):
    path = project / relative
    path.parent.mkdir()
    path.write_text('{"x": %s}' % literal)
    before = snapshot(project)
    done = run_pyz(["init", "--cwd", project, flag])
    assert done.returncode == 1
    one_error_line(done, relative, "is not valid JSON", "%s is not valid JSON" % literal.lstrip("-"))
    assert snapshot(project) == before


def test_settings_serialisation_is_json_dumps_where_no_number_needs_its_text():
    from termsprawl_context.workspace.hook_settings import dumps_settings, loads_settings

    value = {"a": [1, 2.5, -0.0, True, None, 'é\u2028"\\', {}, [], {"b": {"c": [[]]}}], "": 1e300}
    for indent, separators in ((2, None), (None, (",", ":"))):
        expected = json.dumps(value, indent=indent, separators=separators, ensure_ascii=False)
        assert dumps_settings(value, indent) == expected
        assert dumps_settings(loads_settings(expected), indent) == expected
    assert re.fullmatch(r'\{"s":"\\ud800"\}', dumps_settings({"s": "\ud800"}, None))


# --- any document: the values come back, every number as its text ----------------------------

number_text = st.from_regex(r"-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,30})?([eE][+-]?[0-9]{1,4})?", fullmatch=True)
key_text = st.text(max_size=6)
json_value = st.recursive(
    st.none() | st.booleans() | number_text.map(lambda t: ("num", t)) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(key_text, inner, max_size=4),
    max_leaves=20,
)


def spell(value, pretty):
    """``value`` as JSON text, each ("num", text) written as its text."""
    if isinstance(value, tuple):
        return value[1]
    if isinstance(value, list):
        return "[" + ", ".join(spell(v, pretty) for v in value) + "]"
    if isinstance(value, dict):
        sep = ",\n " if pretty else ","
        return "{" + sep.join("%s: %s" % (json.dumps(k), spell(v, pretty)) for k, v in value.items()) + "}"
    return json.dumps(value)


def as_text_numbers(data):
    keep = lambda t: ("num", t)  # noqa: E731
    return json.loads(data, parse_float=keep, parse_int=keep, object_pairs_hook=lambda pairs: pairs)


@hyp_settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.dictionaries(key_text.filter(lambda k: k != "hooks"), json_value, max_size=5), st.booleans())
def test_any_settings_document_comes_back_value_for_value(document, pretty):
    data = spell(document, pretty).encode("utf-8", "surrogatepass")
    try:
        parsed = hook_settings.parse_settings(data, "s.json")
    except errors.SettingsUnusable as refusal:  # a lone surrogate is not UTF-8: refused, never guessed
        assert "is not UTF-8" in refusal.message
        return
    out = hook_settings.dump_settings(hook_settings.merge_hook(parsed, get("claude-code")), len(data))
    back = as_text_numbers(out)
    assert back[:-1] == as_text_numbers(data) and back[-1][0] == "hooks"
