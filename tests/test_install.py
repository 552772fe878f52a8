"""init: the artifact copied in, discovery markers, .gitignore, the SessionStart hook merged."""

import json
import os
import re
import stat
import subprocess
import zipfile

import pytest

from conftest import snapshot
from termsprawl_context.cli import main
from termsprawl_context.errors import SettingsUnusable
from termsprawl_context.workspace import hook_settings, init_steps, install
from termsprawl_context.harness import get
from termsprawl_context.workspace.hook_settings import merge_hook, parse_settings
from termsprawl_context.workspace.install import merge_gitignore, running_artifact
from termsprawl_context.workspace.project import hook_command

CLAUDE = get("claude-code")
HOOK_COMMAND = hook_command(CLAUDE)
HOOK_ENTRY = CLAUDE.hook_entry(HOOK_COMMAND)

SETTINGS = os.path.join(".claude", "settings.local.json")
COMMAND = os.path.join(".termsprawl", "bin", "termsprawl-context")


def has_step(out, outcome, relative):
    """The init report has a line ``<outcome> <path>`` (columns padded)."""
    return re.search(r"(?m)^  %s +%s( |$)" % (re.escape(outcome), re.escape(relative)), out) is not None


def settings_of(project):
    return json.loads((project / SETTINGS).read_text())


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "project"
    path.mkdir()
    return path


# --- pure parts -------------------------------------------------------------------------------


def test_running_artifact_from_a_checkout_is_none():
    assert running_artifact() is None


def test_running_artifact_is_the_zip_above_the_module(tmp_path):
    archive = tmp_path / "dir.x" / "termsprawl-context.pyz"
    archive.parent.mkdir()
    with zipfile.ZipFile(str(archive), "w") as z:
        z.writestr("site-packages/termsprawl_context/__init__.py", "")
    inside = os.path.join(str(archive), "site-packages", "termsprawl_context", "__init__.py")
    assert running_artifact(inside) == str(archive)
    plain = tmp_path / "not-a-zip"
    plain.write_text("x")
    assert running_artifact(os.path.join(str(plain), "termsprawl_context", "__init__.py")) is None


@pytest.mark.parametrize(
    "content, expected",
    [
        ("", "%s\ntranscripts/\n" % install.GITIGNORE_COMMENT),
        ("*.log", "*.log\n%s\ntranscripts/\n" % install.GITIGNORE_COMMENT),
        ("*.log\n", "*.log\n%s\ntranscripts/\n" % install.GITIGNORE_COMMENT),
        ("/transcripts\n", "/transcripts\n"),
        ("a\n  transcripts/  \nb", "a\n  transcripts/  \nb"),
        ("transcripts/*\n", "transcripts/*\n"),
    ],
)
def test_merge_gitignore(content, expected):
    assert merge_gitignore(content) == expected
    assert merge_gitignore(expected) == expected


def test_merge_into_empty_settings():
    assert merge_hook({}, CLAUDE) == {"hooks": {"SessionStart": [HOOK_ENTRY]}}


def test_merge_keeps_other_settings_and_hooks_in_order():
    settings = {
        "permissions": {"allow": ["Bash(ls:*)"]},
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard"}]}],
            "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "other"}]}],
        },
        "env": {"A": "1"},
    }
    original = json.loads(json.dumps(settings))
    merged = merge_hook(settings, CLAUDE)
    assert settings == original  # the input is not modified
    assert list(merged) == ["permissions", "hooks", "env"]
    assert merged["permissions"] == original["permissions"] and merged["env"] == original["env"]
    assert merged["hooks"]["PreToolUse"] == original["hooks"]["PreToolUse"]
    assert merged["hooks"]["SessionStart"] == original["hooks"]["SessionStart"] + [HOOK_ENTRY]
    assert merge_hook(merged, CLAUDE) is None


def test_an_entry_with_the_earlier_command_is_ours_too():
    legacy = '"$CLAUDE_PROJECT_DIR"/.termsprawl/bin/termsprawl-context hook'
    assert (
        merge_hook({"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": legacy}]}]}}, CLAUDE) is None
    )


@pytest.mark.parametrize("start", ["", "src", "src/deep"])
def test_hook_command_finds_the_installed_command_from_any_subdirectory(tmp_path, start):
    """The registered line, run by sh as Claude Code runs it, with $CLAUDE_PROJECT_DIR
    naming the project or a directory below it."""
    project = tmp_path / "my project"
    (project / "src" / "deep").mkdir(parents=True)
    command = project / ".termsprawl" / "bin" / "termsprawl-context"
    command.parent.mkdir(parents=True)
    command.write_text('#!/bin/sh\necho "ran $0 $*"\n')
    command.chmod(0o755)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "CLAUDE_PROJECT_DIR": str(project / start)}
    done = subprocess.run(["/bin/sh", "-c", HOOK_COMMAND], env=env, cwd=str(tmp_path), stdout=subprocess.PIPE)
    assert (done.returncode, done.stdout.decode()) == (0, "ran %s hook\n" % command)
    del env["CLAUDE_PROJECT_DIR"]  # unset: from the working directory
    done = subprocess.run(["/bin/sh", "-c", HOOK_COMMAND], env=env, cwd=str(project / start), stdout=subprocess.PIPE)
    assert (done.returncode, done.stdout.decode()) == (0, "ran %s hook\n" % command)


def test_existing_identical_hook_is_left_alone():
    settings = {
        "hooks": {
            "SessionStart": [
                "junk",
                {"hooks": "junk"},
                {"matcher": "resume", "hooks": [{"type": "command", "command": HOOK_COMMAND, "timeout": 30}]},
            ]
        }
    }
    assert merge_hook(settings, CLAUDE) is None


@pytest.mark.parametrize(
    "settings, words",
    [
        ({"hooks": []}, '"hooks" as a JSON array'),
        ({"hooks": None}, '"hooks" as a JSON null'),
        ({"hooks": "x"}, '"hooks" as a JSON string'),
        ({"hooks": {"SessionStart": {}}}, '"hooks.SessionStart" as a JSON object'),
        ({"hooks": {"SessionStart": None}}, '"hooks.SessionStart" as a JSON null'),
    ],
)
def test_wrong_json_types_are_refused(settings, words):
    with pytest.raises(SettingsUnusable) as info:
        merge_hook(settings, CLAUDE)
    assert words in info.value.message and "left untouched" in info.value.message


@pytest.mark.parametrize(
    "data, words",
    [
        (b"{not json", "is not valid JSON"),
        (b"[1, 2]", "holds a JSON array, not an object"),
        (b'{"a": NaN}', "is not valid JSON"),
        (b"\xff{}", "is not UTF-8"),
        (b"{} {}", "is not valid JSON"),
    ],
)
def test_unusable_settings_text(data, words):
    with pytest.raises(SettingsUnusable) as info:
        parse_settings(data, "s.json")
    assert words in info.value.message and info.value.exit_code == 1


def test_lone_surrogate_in_settings_survives_the_merge(project):
    (project / ".claude").mkdir()
    (project / SETTINGS).write_bytes(b'{"note": "\\ud800 caf\xc3\xa9"}')
    settings = hook_settings.load_hook_file(str(project), CLAUDE)[0]
    step = hook_settings.write_hook_file(str(project), CLAUDE, merge_hook(settings, CLAUDE))
    assert step.outcome == init_steps.WRITTEN
    assert settings_of(project)["note"] == "\ud800 caf\u00e9"


def test_blank_settings_file_is_empty_settings():
    assert parse_settings(b"", "s") == {} and parse_settings(b" \n", "s") == {}


def test_not_from_the_artifact_says_how_to_get_it(project, capsys):
    before = snapshot(project)
    assert main(["init", "--cwd", str(project), "--hook"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("termsprawl-context: init: not running from the one-file artifact")
    assert "python3 build_zipapp.py" in err and "dist/termsprawl-context.pyz" in err and err.count("\n") == 1
    assert snapshot(project) == before


# --- the built artifact -----------------------------------------------------------------------


def test_init_hook_from_scratch_then_again(project, run_pyz, pyz):
    done = run_pyz(["init", "--cwd", project, "--hook"])
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    out = done.stdout.decode()
    for relative in (
        COMMAND,
        ".termsprawl/AGENTS.md",
        ".claude/skills/termsprawl-context/SKILL.md",
        ".termsprawl/.gitignore",
        SETTINGS,
        ".claude/.gitignore",
    ):
        assert has_step(out, "written", relative)
    assert (project / ".claude/.gitignore").read_text().splitlines()[-1] == "settings.local.json"
    assert "next:" in out and "TERMSPRAWL_NODE_ID=" in out and "links add" in out
    installed = project / COMMAND
    assert installed.read_bytes() == pyz.read_bytes()
    assert stat.S_IMODE(installed.stat().st_mode) == 0o755
    assert (project / ".termsprawl/.gitignore").read_text().splitlines()[-1] == "transcripts/"
    assert settings_of(project) == {
        "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": HOOK_COMMAND, "timeout": 10}]}]},
        "permissions": {"allow": hook_settings.allow_rules(str(project), CLAUDE)},
    }
    assert has_step(out, "written", SETTINGS + " (allows the")
    assert "<!-- termsprawl:context-links -->" in (project / ".termsprawl/AGENTS.md").read_text()
    before = snapshot(project)
    again = run_pyz(["init", "--cwd", project, "--hook"])
    assert again.returncode == 0 and again.stderr == b""
    assert again.stdout.decode().count("  unchanged  ") == 7 and "written" not in again.stdout.decode()
    assert snapshot(project) == before
    # The installed copy runs through its shebang, and re-initialising from it changes nothing.
    version = subprocess.run([str(installed), "--version"], stdout=subprocess.PIPE)
    assert version.returncode == 0 and version.stdout.startswith(b"termsprawl-context ")
    from_copy = subprocess.run([str(installed), "init", "--hook"], cwd=str(project), stdout=subprocess.PIPE)
    assert from_copy.returncode == 0 and snapshot(project) == before


def test_init_without_hook_writes_no_settings(project, run_pyz):
    done = run_pyz(["init"], cwd=project)
    assert done.returncode == 0, done.stderr
    assert not (project / ".claude" / "settings.local.json").exists()
    assert (project / COMMAND).is_file()
    assert "init --hook" in done.stdout.decode()


def test_settings_merge_keeps_everything_else(project, run_pyz):
    existing = {
        "permissions": {"allow": ["Read"]},
        "hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
            "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}],
        },
        "note": "caf\u00e9",
    }
    (project / ".claude").mkdir()
    (project / SETTINGS).write_text(json.dumps(existing))
    os.chmod(str(project / SETTINGS), 0o640)
    done = run_pyz(["init", "--cwd", project, "--hook"])
    assert done.returncode == 0, done.stderr
    merged = settings_of(project)
    expected = json.loads(json.dumps(existing))
    expected["hooks"]["SessionStart"].append(HOOK_ENTRY)
    # The user's rule stays first and unchanged; ours follow it.
    expected["permissions"]["allow"] += hook_settings.allow_rules(str(project), CLAUDE)
    assert merged == expected
    assert list(merged) == ["permissions", "hooks", "note"]
    assert stat.S_IMODE((project / SETTINGS).stat().st_mode) == 0o640
    before = (project / SETTINGS).read_bytes()
    assert run_pyz(["init", "--cwd", project, "--hook"]).returncode == 0
    assert (project / SETTINGS).read_bytes() == before


def test_existing_identical_hook_file_untouched(project, run_pyz):
    (project / ".claude").mkdir()
    body = json.dumps(
        {
            "hooks": {"SessionStart": [HOOK_ENTRY]},
            "permissions": {"allow": hook_settings.allow_rules(str(project), CLAUDE)},
        },
        indent=4,
    )
    (project / SETTINGS).write_text(body)
    done = run_pyz(["init", "--cwd", project, "--hook"])
    assert done.returncode == 0
    assert has_step(done.stdout.decode(), "unchanged", SETTINGS)
    assert (project / SETTINGS).read_text() == body


@pytest.mark.parametrize(
    "body, words",
    [
        ("{ invalid", "is not valid JSON"),
        ('{"hooks": []}', '"hooks" as a JSON array'),
        ('{"hooks": {"SessionStart": {"hooks": []}}}', '"hooks.SessionStart" as a JSON object'),
        ("[]", "holds a JSON array"),
        ('{"permissions": []}', '"permissions" as a JSON array'),
        ('{"permissions": {"allow": "Bash"}}', '"permissions.allow" as a JSON string'),
    ],
)
def test_unusable_settings_refused_and_nothing_written(project, run_pyz, body, words):
    (project / ".claude").mkdir()
    (project / SETTINGS).write_text(body)
    before = snapshot(project)
    done = run_pyz(["init", "--cwd", project, "--hook"])
    assert done.returncode == 1 and done.stdout == b""
    err = done.stderr.decode()
    assert err.startswith("termsprawl-context: init: %s " % SETTINGS) and words in err and err.count("\n") == 1
    assert "left untouched" in err
    assert snapshot(project) == before


def test_settings_symlink_or_directory_refused(project, run_pyz, tmp_path):
    (project / ".claude").mkdir()
    target = tmp_path / "shared-settings.json"
    target.write_text("{}")
    (project / SETTINGS).symlink_to(target)
    before = snapshot(project)
    done = run_pyz(["init", "--cwd", project, "--hook"])
    assert done.returncode == 1 and b"is a symbolic link" in done.stderr
    assert snapshot(project) == before and target.read_text() == "{}"
    (project / SETTINGS).unlink()
    (project / SETTINGS).mkdir()
    done = run_pyz(["init", "--cwd", project, "--hook"])
    assert done.returncode == 1 and b"cannot be read" in done.stderr


def test_existing_gitignore_merged(project, run_pyz):
    (project / ".termsprawl").mkdir()
    (project / ".termsprawl" / ".gitignore").write_text("local/")
    assert run_pyz(["init", "--cwd", project]).returncode == 0
    assert (project / ".termsprawl" / ".gitignore").read_text() == (
        "local/\n%s\ntranscripts/\n" % install.GITIGNORE_COMMENT
    )


def test_changed_command_is_replaced_and_mode_fixed(project, run_pyz, pyz):
    assert run_pyz(["init", "--cwd", project]).returncode == 0
    installed = project / COMMAND
    installed.write_bytes(b"old")
    done = run_pyz(["init", "--cwd", project])
    assert has_step(done.stdout.decode(), "written", COMMAND) and installed.read_bytes() == pyz.read_bytes()
    os.chmod(str(installed), 0o644)
    done = run_pyz(["init", "--cwd", project])
    assert has_step(done.stdout.decode(), "written", COMMAND)
    assert stat.S_IMODE(installed.stat().st_mode) == 0o755
    assert not [n for n in os.listdir(str(installed.parent)) if n != "termsprawl-context"]  # no temp files


def test_command_not_installed_means_no_hook(project, run_pyz):
    (project / ".termsprawl").mkdir()
    (project / ".termsprawl" / "bin").write_text("a file where the folder goes")
    done = run_pyz(["init", "--cwd", project, "--hook"])
    assert done.returncode == 1
    out = done.stdout.decode()
    assert has_step(out, "failed", COMMAND) and has_step(out, "skipped", SETTINGS)
    assert b"init: not every step succeeded" in done.stderr
    assert not (project / SETTINGS).exists()


def test_missing_project_dir(tmp_path, run_pyz):
    done = run_pyz(["init", "--cwd", tmp_path / "absent"])
    assert done.returncode == 1 and done.stdout == b""
    assert done.stderr == ("termsprawl-context: init: no such directory: %s\n" % (tmp_path / "absent")).encode()
    assert not (tmp_path / "absent").exists()


def test_init_usage_error(run_pyz):
    done = run_pyz(["init", "--bogus"])
    assert done.returncode == 2 and done.stderr.startswith(b"termsprawl-context: init: unrecognized arguments")


# --- one project, found from anywhere inside it -------------------------------------------------


RULES = ".claude/rules/termsprawl-context.md"


def test_init_claude_md_writes_the_block_where_claude_code_loads_it_and_leaves_claude_md_alone(project, run_pyz):
    """Issue 32 item 5: an `@` import from CLAUDE.md asks "Allow external CLAUDE.md file
    imports?" in a subdirectory (Claude Code 2.1.328); its rules file is loaded with none."""
    (project / "CLAUDE.md").write_text("# Shop\n\nRun `make test` before committing.\n")
    done = run_pyz(["init", "--cwd", project, "--claude-md"])
    assert done.returncode == 0, done.stderr
    assert has_step(done.stdout.decode(), "written", RULES)
    assert (project / "CLAUDE.md").read_text() == "# Shop\n\nRun `make test` before committing.\n"
    block = (project / ".termsprawl/AGENTS.md").read_text()
    assert (project / RULES).read_text() == block and not any(line.startswith("@") for line in block.splitlines())
    before = snapshot(project)
    again = run_pyz(["init", "--cwd", project, "--claude-md"])
    assert has_step(again.stdout.decode(), "unchanged", RULES) and snapshot(project) == before


def test_init_claude_md_keeps_an_edited_rules_file(project, run_pyz):
    (project / RULES).parent.mkdir(parents=True)
    (project / RULES).write_text("my own rules\n")
    done = run_pyz(["init", "--claude-md"], cwd=project)
    assert done.returncode == 0 and has_step(done.stdout.decode(), "kept", RULES)
    assert (project / RULES).read_text() == "my own rules\n"


def test_init_without_claude_md_leaves_it_alone(project, run_pyz):
    assert run_pyz(["init"], cwd=project).returncode == 0
    assert not (project / "CLAUDE.md").exists()


def test_init_from_a_subdirectory_initialises_the_project_not_a_nested_one(project, run_pyz):
    assert run_pyz(["init"], cwd=project).returncode == 0
    sub = project / "src" / "lib"
    sub.mkdir(parents=True)
    again = run_pyz(["init"], cwd=sub)
    assert again.returncode == 0, again.stderr
    assert again.stdout.decode().startswith("termsprawl-context init: %s\n" % project)
    assert sorted(os.listdir(str(project / "src"))) == ["lib"] and os.listdir(str(sub)) == []


def test_init_refuses_an_explicit_directory_inside_a_project(project, run_pyz):
    assert run_pyz(["init"], cwd=project).returncode == 0
    sub = project / "src"
    sub.mkdir()
    done = run_pyz(["init", "--cwd", sub])
    assert done.returncode == 2 and done.stdout == b""
    assert (
        done.stderr
        == (
            "termsprawl-context: init: %s lies inside the project %s (it has .termsprawl/); run "
            "init there, or without --cwd from anywhere inside it\n" % (sub, project)
        ).encode()
    )
    assert os.listdir(str(sub)) == []


def test_user_edited_skill_is_kept_and_reported(project, run_pyz):
    assert run_pyz(["init"], cwd=project).returncode == 0
    skill = project / ".claude" / "skills" / "termsprawl-context" / "SKILL.md"
    skill.write_text(skill.read_text().replace("Run, from the project root:", "Run it first thing:"))
    edited = skill.read_bytes()
    done = run_pyz(["init"], cwd=project)
    assert done.returncode == 0, done.stderr
    assert re.search(
        r"(?m)^  kept +\.claude/skills/termsprawl-context/SKILL\.md \(edited by its user: left alone\)$",
        done.stdout.decode(),
    )
    assert skill.read_bytes() == edited


def test_local_settings_ignore_merges_into_an_existing_claude_gitignore(project, run_pyz):
    (project / ".claude").mkdir()
    (project / ".claude" / ".gitignore").write_text("agents/scratch/")
    assert run_pyz(["init", "--hook"], cwd=project).returncode == 0
    assert (project / ".claude" / ".gitignore").read_text() == (
        "agents/scratch/\n" + install.HOOK_GITIGNORE_COMMENT % "Claude Code" + "\nsettings.local.json\n"
    )
    (project / ".claude" / ".gitignore").write_text("*.local.json\n")
    done = run_pyz(["init", "--hook"], cwd=project)
    assert has_step(done.stdout.decode(), "unchanged", ".claude/.gitignore")
    assert (project / ".claude" / ".gitignore").read_text() == "*.local.json\n"


def test_git_ignores_what_is_personal_and_keeps_what_is_shared(project, run_pyz):
    """Checked by git itself: the index and the local settings are ignored; links, the
    markers, the command and the settings' .gitignore files are not."""
    if subprocess.run(["git", "--version"], stdout=subprocess.PIPE, stderr=subprocess.PIPE).returncode != 0:
        pytest.skip("no git")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    assert run_pyz(["init", "--hook", "--claude-md"], cwd=project).returncode == 0
    assert run_pyz(["links", "add", "alice", "bob"], cwd=project).returncode == 0
    assert run_pyz(["index", "set", "alice", "/tmp/x.jsonl"], cwd=project).returncode == 0

    def ignored(relative):
        return subprocess.run(["git", "-C", str(project), "check-ignore", "-q", relative]).returncode == 0

    for personal in (".termsprawl/transcripts/alice.json", ".claude/settings.local.json"):
        assert ignored(personal), personal
    for shared in (
        ".termsprawl/links/alice--bob.json",
        ".termsprawl/AGENTS.md",
        ".termsprawl/bin/termsprawl-context",
        ".claude/skills/termsprawl-context/SKILL.md",
        RULES,
        ".termsprawl/.gitignore",
        ".claude/.gitignore",
    ):
        assert not ignored(shared), shared


def test_init_without_cli_option_wires_every_cli_found(project, run_pyz, tmp_path):
    """Issue 32: a home where Claude Code, Codex and Gemini each have their folder gets all
    three wired by a bare `init`; a second run changes nothing and says so."""
    home = tmp_path / "home"
    for folder in (".claude", ".codex", ".gemini"):
        (home / folder).mkdir(parents=True)
    env = {"HOME": str(home), "PATH": "/nonexistent"}
    done = run_pyz(["init", "--cwd", project], env=env)
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert "wired: Claude Code, Codex CLI, Gemini CLI" in out
    for relative in (SETTINGS, ".codex/hooks.json", ".gemini/settings.json", RULES, "AGENTS.md", "GEMINI.md"):
        assert has_step(out, "written", relative), relative
    assert "init --hook" not in out
    again = run_pyz(["init", "--cwd", project], env=env)
    text = again.stdout.decode()
    assert again.returncode == 0 and "written" not in text and "nothing changed" in text
    assert "next:" not in text and "init --hook" not in text


def test_init_cli_options_name_and_exclude(project, run_pyz, tmp_path):
    home = tmp_path / "home"
    for folder in (".claude", ".codex", ".gemini"):
        (home / folder).mkdir(parents=True)
    env = {"HOME": str(home), "PATH": "/nonexistent"}
    done = run_pyz(["init", "--cwd", project, "--no-codex"], env=env)
    assert done.returncode == 0 and "wired: Claude Code, Gemini CLI" in done.stdout.decode()
    assert not (project / ".codex").exists() and (project / ".gemini/settings.json").is_file()
    named = run_pyz(["init", "--cwd", project, "--codex"], env={"HOME": str(tmp_path), "PATH": "/nonexistent"})
    assert named.returncode == 0 and "wired: Codex CLI" in named.stdout.decode()
    assert (project / ".codex/hooks.json").is_file()


def test_init_s_claude_md_help_names_the_rules_file_it_writes():
    from termsprawl_context.harness import get
    from termsprawl_context.workspace.discovery import RULES_FILE

    claude = get("claude-code")
    text = claude.init_help(".termsprawl/AGENTS.md")[claude.init_options.index("claude_md")]
    assert "DIR/%s," % RULES_FILE.replace(os.sep, "/") in text
