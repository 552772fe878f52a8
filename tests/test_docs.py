"""The README and docs/ against the code (sqlite-utils' tests/test_docs.py is the model):
docs/cli.md is what docs/gen_cli.py makes from the registry, each --help and errors.py;
every command the artifact's --help lists has its section there; every relative link
resolves; the README stays a short front page with its two commands, a quick start per
supported CLI and a troubleshooting table."""

import importlib.util
import re

import pytest

from conftest import REPO

DOCS = REPO / "docs"
README = REPO / "README.md"
DEMO_COMMAND = "python3 dist/termsprawl-context.pyz --cwd demo --self lead"
TEST_COMMAND = "python3 -m venv .venv && .venv/bin/pip install -e '.[dev]' && .venv/bin/python -m pytest -q"


def gen_cli():
    spec = importlib.util.spec_from_file_location("gen_cli", str(DOCS / "gen_cli.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_md_is_generated_from_the_code():
    current = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert gen_cli().render(current) == current, "docs/cli.md is stale: run python3 docs/gen_cli.py"


def test_every_command_in_help_is_documented(run_pyz):
    usage = run_pyz(["--help"]).stdout.decode()
    commands = [line.split()[0] for line in usage.split("\ncommands:\n", 1)[1].splitlines() if line.strip()]
    assert len(commands) >= 20
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    for name in commands:
        assert "\n## `%s`\n" % name in text, name
        assert "termsprawl-context %s" % name in text, name  # its usage line, from its own --help
    topics = "".join(p.read_text(encoding="utf-8") for p in DOCS.glob("*.md") if p.name != "cli.md")
    assert [name for name in commands if "`%s" % name not in topics] == []  # each has its topic page too


@pytest.mark.parametrize("page", [README] + sorted(DOCS.glob("*.md")), ids=lambda p: p.name)
def test_relative_links_resolve(page):
    text = page.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" not in target:
            assert (page.parent / target).exists(), "%s links to %s" % (page.name, target)


def test_the_readme_is_a_front_page():
    raw = README.read_bytes()
    text = raw.decode("utf-8")
    assert len(text.splitlines()) <= 250 and len(raw) <= 20 * 1024
    lines = text.splitlines()
    assert DEMO_COMMAND in lines and TEST_COMMAND in lines  # .ci/run greps for the second as a whole line
    first_screen = "\n".join(lines[:50])
    assert "## Two commands" in first_screen and "TERMSPRAWL_NODE_ID" in first_screen  # the picture
    for cli in ("Claude Code", "Codex CLI", "Gemini CLI"):
        assert "\n### %s\n" % cli in text.split("## Quick start", 1)[1]
    troubleshooting = text.split("## Troubleshooting\n", 1)[1].split("\n## ", 1)[0]
    assert troubleshooting.count("\n| ") >= 8 and "| symptom | cause | fix |" in troubleshooting


def test_the_quick_start_names_every_registered_cli():
    from termsprawl_context.harness import available

    quick_start = README.read_text(encoding="utf-8").split("## Quick start", 1)[1].split("\n## ", 1)[0]
    for harness in available():
        # its own block (a `### <label>` heading) or its row of the table (`| <label> |`), with its init option
        assert "\n### %s\n" % harness.label in quick_start or "\n| %s |" % harness.label in quick_start, harness.label
        assert (
            "--" + harness.cli_option in quick_start or "--" + harness.init_options[0].replace("_", "-") in quick_start
        ), harness.label
