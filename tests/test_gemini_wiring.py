"""`init --gemini-hook` and `init --gemini-md`, run from the built artifact: what Gemini CLI
reads in a project (its .gemini/settings.json hooks, its GEMINI.md imports) planted inside
the project only, merged into what is there."""

import json

import pytest

from termsprawl_context.harness import gemini
from termsprawl_context.workspace import discovery, install
from termsprawl_context.workspace.harness_install import hook_command

OUR_ENTRY = gemini.HARNESS.hook_entry(hook_command(gemini.NAME))


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "project"
    path.mkdir()
    return path


def settings(project):
    return json.loads((project / gemini.SETTINGS_FILE).read_text())


def test_gemini_hook_from_scratch_then_again(project, run_pyz):
    done = run_pyz(["init", "--cwd", project, "--gemini-hook"])
    assert done.returncode == 0, done.stderr
    group = settings(project)["hooks"][gemini.HOOK_EVENT_SESSION_START]
    assert group == [OUR_ENTRY]
    assert group[0]["hooks"][0]["timeout"] == gemini.HOOK_TIMEOUT_MS  # milliseconds in Gemini CLI
    assert "--harness gemini-cli" in group[0]["hooks"][0]["command"]
    assert (project / ".gemini" / ".gitignore").read_text().splitlines()[-1] == "settings.json"
    assert b"Gemini CLI" in done.stdout and b"trust" in done.stdout
    assert not (project / install.SETTINGS_FILE).exists()  # Claude Code's file only with --hook
    before = (project / gemini.SETTINGS_FILE).read_bytes()
    again = run_pyz(["init", "--cwd", project, "--gemini-hook"])
    assert again.returncode == 0 and b"already registered" in again.stdout
    assert (project / gemini.SETTINGS_FILE).read_bytes() == before


def test_gemini_hook_merges_into_the_settings_there(project, run_pyz):
    (project / ".gemini").mkdir()
    theirs = {
        "model": {"name": "x"},
        "hooks": {
            "SessionStart": [
                {"matcher": "startup", "hooks": [{"type": "command", "command": "echo theirs", "timeout": 5000}]}
            ],
            "BeforeTool": [],
        },
    }
    (project / gemini.SETTINGS_FILE).write_text(json.dumps(theirs))
    done = run_pyz(["init", "--cwd", project, "--gemini-hook", "--hook"])
    assert done.returncode == 0, done.stderr
    merged = settings(project)
    assert merged["model"] == theirs["model"] and merged["hooks"]["BeforeTool"] == []
    assert merged["hooks"]["SessionStart"][0] == theirs["hooks"]["SessionStart"][0]
    assert merged["hooks"]["SessionStart"][1] == OUR_ENTRY
    assert (project / install.SETTINGS_FILE).exists()  # both harnesses' hooks when both are asked for


def test_unusable_gemini_settings_are_left_untouched(project, run_pyz):
    (project / ".gemini").mkdir()
    (project / gemini.SETTINGS_FILE).write_text('{"hooks": [')
    done = run_pyz(["init", "--cwd", project, "--gemini-hook"])
    assert done.returncode == 1
    assert done.stderr.count(b"\n") == 1 and gemini.SETTINGS_FILE.encode() in done.stderr
    assert (project / gemini.SETTINGS_FILE).read_text() == '{"hooks": ['
    assert not (project / ".termsprawl").exists()  # refused before anything was written


def test_gemini_md_import_keeps_the_text_byte_for_byte(project, run_pyz):
    mine = (
        "# Notes\r\n\nkeep `@./.termsprawl/AGENTS.md` in a code span\n```\n%s\n```\nlast line"
        % (discovery.gemini_md()[1])
    )
    (project / "GEMINI.md").write_bytes(mine.encode())
    done = run_pyz(["init", "--cwd", project, "--gemini-md"])
    assert done.returncode == 0, done.stderr
    written = (project / "GEMINI.md").read_bytes()
    assert written == (mine + "\n\n" + discovery.gemini_md()[1] + "\n").encode()
    assert discovery.gemini_md()[1] == "@./.termsprawl/AGENTS.md"
    again = run_pyz(["init", "--cwd", project, "--gemini-md"])
    assert again.returncode == 0 and (project / "GEMINI.md").read_bytes() == written
    assert not (project / "CLAUDE.md").exists()


def test_gemini_md_created_when_absent(project, run_pyz):
    done = run_pyz(["init", "--cwd", project, "--gemini-md"])
    assert done.returncode == 0, done.stderr
    assert (project / "GEMINI.md").read_text() == discovery.gemini_md()[1] + "\n"
