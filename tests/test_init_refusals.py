"""`init`'s refusal of a hook file it cannot merge into names the fix for that CLI: the
exact hook command `init` writes into that CLI's file (read from a project where it did),
never another CLI's. Run from the built artifact."""

import json

import pytest

# (init's option, the CLI's hook file, the harness name its command carries or None)
CLIS = [
    ("--hook", ".claude/settings.local.json", None),
    ("--codex-hook", ".codex/hooks.json", "codex-cli"),
    ("--gemini-hook", ".gemini/settings.json", "gemini-cli"),
]
# Files no merge may rewrite: a JSONC comment (Gemini CLI reads them; we keep no comment),
# "hooks" of the wrong type, SessionStart of the wrong type, and not an object at all.
UNUSABLE = [
    ('{\n  // the person\'s note\n  "ui": {"theme": "dark"}\n}\n', "is not valid JSON"),
    ('{"hooks": []}', 'has "hooks" as a JSON array, not an object'),
    ('{"hooks": {"SessionStart": {"x": 1}}}', 'has "hooks.SessionStart" as a JSON object, not an array'),
    ("[1]", "holds a JSON array, not an object"),
]


def written_command(run_pyz, tmp_path, option, relative):
    """The SessionStart command `init <option>` writes into a fresh project's file."""
    good = tmp_path / ("good" + option)
    good.mkdir()
    done = run_pyz(["init", "--cwd", good, option])
    assert done.returncode == 0, done.stderr
    groups = json.loads((good / relative).read_text())["hooks"]["SessionStart"]
    (command,) = [hook["command"] for group in groups for hook in group["hooks"]]
    return command


@pytest.mark.parametrize("option, relative, harness", CLIS, ids=[c[0] for c in CLIS])
def test_each_cli_s_refusal_names_its_own_hook_command(run_pyz, tmp_path, option, relative, harness):
    command = written_command(run_pyz, tmp_path, option, relative)
    assert (harness is None) == ("--harness" not in command)
    if harness is not None:
        assert command.endswith("hook --harness %s" % harness)
    others = {written_command(run_pyz, tmp_path, o[0], o[1]) for o in CLIS if o[0] != option}
    for number, (text, reason) in enumerate(UNUSABLE):
        bad = tmp_path / ("bad%d" % number)
        (bad / relative).parent.mkdir(parents=True)
        (bad / relative).write_text(text)
        done = run_pyz(["init", "--cwd", bad, option])
        assert done.returncode == 1
        assert done.stdout == b""
        lines = done.stderr.decode().splitlines()
        assert len(lines) == 1, lines
        assert lines[0].startswith("termsprawl-context: init: %s %s" % (relative, reason))
        assert lines[0].endswith("it was left untouched (fix it, or add the SessionStart hook `%s` yourself)" % command)
        assert not any(other in lines[0] for other in others)
        assert (bad / relative).read_text() == text
        assert not (bad / ".termsprawl").exists()  # refused before anything was written
