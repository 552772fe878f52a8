"""One CLI contract (issue 23 item 5), tested against the registry and the built artifact:
docs/cli.md's command table is the registry's (synopsis, summary, what --json prints), its
exit-code table is errors.py's, every --json prints JSON Lines for a list and one line
for one answer, and every list answer with nothing in it exits 0 with nothing on stdout."""

import importlib
import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import cite_fixtures as fx
from termsprawl_context import errors
from termsprawl_context.cli import COMMANDS, command_target
from termsprawl_context.cli.command import JSON_LIST, JSON_ONE
from termsprawl_context.harness.base import resolve_dir
from termsprawl_context.harness.claude.facts import encode_project_dir

CLI_DOC = Path(__file__).resolve().parent.parent / "docs" / "cli.md"
JSON_SHOWN = {JSON_LIST: "JSON Lines", JSON_ONE: "one object", "": "no"}
# Raw in a JSON document these would act on a terminal: the contract escapes them.
RAW_CONTROLS = [chr(c) for c in list(range(0x20)) + list(range(0x7F, 0xA0))] + ["\u2028", "\u2029"]


def spec_of(name):
    """The Spec a command's module declares for it: its name in capitals (``result-at`` is
    ``RESULT_AT``), the convention every command module follows."""
    module = importlib.import_module(command_target(name)[0])
    return getattr(module, name.upper().replace("-", "_"))


def json_kinds(spec):
    return {spec.json} if not spec.actions else {a.json for a in spec.actions}


def command_table():
    """docs/cli.md's command table, made from the registry (independently of docs/gen_cli.py)."""
    rows = ["| command | what it does | `--json` |", "| --- | --- | --- |"]
    for name, (synopsis, summary) in COMMANDS.items():
        shown = " / ".join(JSON_SHOWN[k] for k in sorted(json_kinds(spec_of(name)), key=list(JSON_SHOWN).index))
        cells = (synopsis, summary)
        rows.append("| `%s` | %s | %s |" % (tuple(c.replace("|", "\\|") for c in cells) + (shown,)))
    return "\n".join(rows) + "\n"


def doc_block(heading):
    text = CLI_DOC.read_text(encoding="utf-8")
    start = text.index(heading + "\n")
    return text[start : text.find("\n## ", start + 1)]


def test_the_documented_command_table_is_the_registry():
    block = doc_block("## Commands")
    assert command_table() in block, "docs/cli.md's command table should read:\n" + command_table()


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_synopsis_names_its_specs_arguments(name):
    """The usage line, docs/cli.md and the parser agree: the synopsis opens with the
    command's name, then its positional arguments (or its actions) as its Spec names them."""
    spec, synopsis = spec_of(name), COMMANDS[name][0]
    assert spec.name == name and synopsis.split()[0] == name
    words = synopsis.split()[1:]
    if spec.actions:
        assert words[0] == "|".join(a.name for a in spec.actions)
    else:
        leading = list(itertools.takewhile(lambda w: not w.startswith(("-", "[")), words))
        assert leading == [a.metavar for a in spec.args]
    assert spec.description and COMMANDS[name][1]


def test_one_word_for_each_thing():
    """A transcript is PATH, a session SESSION, a node NODE, in every command."""
    seen = {}
    for name in COMMANDS:
        spec = spec_of(name)
        for one in (spec,) + spec.actions:
            for arg in one.args:
                seen.setdefault(arg.dest, set()).add(arg.metavar)
    assert seen["path"] == {"PATH"} and seen["session"] == {"SESSION"} and seen["node"] == {"NODE"}
    assert set().union(*seen.values()) <= {"PATH", "SESSION", "UUID", "NODE", "PEER", "LINE", "TEXT", "QUOTE"}


def test_the_exit_code_table_is_errors_py():
    block = doc_block("## Exit codes")
    rows = re.findall(r"^\| (\d+)( \(no results\))? \|", block, re.M)
    documented = [int(code) for code, _ in rows]
    defined = sorted({v for k, v in vars(errors).items() if k.startswith("EXIT_")})
    assert sorted(set(documented)) == defined
    assert [int(code) for code, no_results in rows if no_results] == [errors.EXIT_OK]


# --- the artifact, on a real store ------------------------------------------------------------

SESSION_ID = "c0ffee00-0000-4000-8000-000000000001"
HOSTILE = "csi \x9b2J del \x7f ls \u2028 end"


@pytest.fixture
def world(tmp_path):
    projects = tmp_path / "projects"
    work = tmp_path / "work"
    work.mkdir()
    folder = projects / encode_project_dir(resolve_dir(str(work)))
    path = fx.write(
        folder / (SESSION_ID + ".jsonl"),
        [
            fx.user_msg("u1", "please REFACTOR the module " + HOSTILE, sessionId=SESSION_ID, cwd=str(work)),
            fx.named_call("a1", "u1", "toolu_d", "Task", {"prompt": "go"}),
            fx.named_call("a2", "a1", "t1", "AskUserQuestion", {"questions": [{"question": "which?", "options": []}]}),
            fx.tool_answer("r2", "a2", "t1", 'The user answered: "which?"="the second". Read the answers carefully.'),
        ]
        + fx.launch(1, "toolu_bg", "bg1"),
    )
    sub = fx.write_subagent(folder, SESSION_ID, "a1b2", [fx.user_msg("s0", "DISPATCHED", isSidechain=True)])
    fx.write_subagent_meta(folder, SESSION_ID, "a1b2", {"agentType": "Explore", "toolUseId": "toolu_d"})
    project = tmp_path / "proj"
    (project / ".termsprawl").mkdir(parents=True)
    return {"projects": str(projects), "work": str(work), "path": path, "sub": sub, "project": str(project)}


def run(run_pyz, argv):
    """The artifact on ``argv`` through conftest's ``run_pyz`` (a clean environment), as node ``a``."""
    done = run_pyz(argv, env={"TERMSPRAWL_NODE_ID": "a"}, timeout=120)
    assert b"Traceback" not in done.stderr
    return done


def json_runs(w):
    """Each command's --json run with an answer to print, by (command, action)."""
    store = ["--projects-dir", w["projects"]]
    here = ["--cwd", w["project"]]
    return {
        ("sessions", ""): ["sessions"] + store,
        ("find", ""): ["find", SESSION_ID[:8]] + store,
        ("show", ""): ["show", "latest"] + store,
        ("search", ""): ["search", "refactor"] + store,
        ("subagents", ""): ["subagents", w["path"]],
        ("root", ""): ["root", w["sub"]],
        ("parent", ""): ["parent", w["sub"]],
        ("identity", ""): ["identity", w["path"]],
        ("relocate", ""): ["relocate", w["path"]] + store,
        ("entries", ""): ["entries", w["path"]],
        ("cite", ""): ["cite", w["path"], "REFACTOR the module"],
        ("envelope-at", ""): ["envelope-at", w["path"], "4"],
        ("agents", ""): ["agents", w["path"]],
        ("query", ""): ["query", w["path"], "--where", ""],
        ("links", "add"): ["links", "add", "a", "b"] + here,
        ("links", "list"): ["links", "list"] + here,
        ("links", "peers"): ["links", "peers", "a"] + here,
        ("links", "remove"): ["links", "remove", "a", "b"] + here,
        ("doctor", ""): ["doctor", "--self", "a"] + here,
    }


def test_every_json_follows_the_contract(run_pyz, world):
    """JSON Lines (an object a line, at least one here) for a list; one object on one
    line for a single answer; never a raw control a terminal would act on."""
    runs = json_runs(world)
    wanted = set()
    for name in COMMANDS:
        spec = spec_of(name)
        wanted |= {(name, a.name) for a in spec.actions if a.json} | ({(name, "")} if spec.json else set())
    assert set(runs) == wanted  # every command with --json is run here
    for (name, action), argv in runs.items():
        done = run(run_pyz, argv + ["--json"])
        assert done.returncode == 0, (argv, done.stderr)
        text = done.stdout.decode("utf-8")
        assert text.endswith("\n") and not any(c in text[:-1].replace("\n", "") for c in RAW_CONTROLS), argv
        lines = text.splitlines()
        assert all(isinstance(json.loads(line), dict) for line in lines), argv
        spec = spec_of(name)
        kind = next(a.json for a in spec.actions if a.name == action) if action else spec.json
        assert len(lines) == 1 if kind == JSON_ONE else len(lines) >= 1, (argv, lines)
    # The same values: an escape in the line, the character itself once parsed.
    assert "\x9b2J del \x7f" in json.loads(run(run_pyz, runs[("search", "")] + ["--json"]).stdout)["snippet"]


def no_result_runs(w):
    """Each list command asked something with no answer."""
    store = ["--projects-dir", w["projects"]]
    here = ["--cwd", w["project"]]
    return {
        ("sessions", ""): ["sessions", "--project", w["project"]] + store,
        ("search", ""): ["search", "nowhere-at-all"] + store,
        ("subagents", ""): ["subagents", w["sub"]],
        ("entries", ""): ["entries", w["path"], "--since", "r-1"],
        ("envelope-at", ""): ["envelope-at", w["path"], "1"],
        ("query", ""): ["query", w["path"], "--where", 'type == "nothing"'],
        ("links", "list"): ["links", "list"] + here,
        ("links", "peers"): ["links", "peers", "a"] + here,
    }


def test_no_results_is_exit_0_and_nothing_on_stdout(run_pyz, world):
    runs = no_result_runs(world)
    lists = set()
    for name in COMMANDS:
        spec = spec_of(name)
        lists |= {(name, a.name) for a in spec.actions if a.json == JSON_LIST}
        lists |= {(name, "")} if spec.json == JSON_LIST else set()
    assert set(runs) == lists  # every list command is asked here
    for argv in runs.values():
        for flags in ([], ["--json"]):
            done = run(run_pyz, argv + flags)
            assert (done.returncode, done.stdout) == (0, b""), (argv + flags, done.stderr)
            assert done.stderr.count(b"\n") <= 1


@pytest.mark.parametrize("command", [["sessions"], ["search", "refactor"], ["show", "latest"]])
def test_a_project_that_names_nothing_is_refused(run_pyz, world, command):
    """--project DIR that is neither a directory nor a folder of the store is a typo: exit
    1 naming it. A real directory with no sessions is an empty answer (exit 0)."""
    missing = os.path.join(world["work"], "no-such-dir")
    done = run(run_pyz, command + ["--project", missing, "--projects-dir", world["projects"]])
    assert (done.returncode, done.stdout) == (1, b"")
    assert (
        done.stderr.decode()
        == "termsprawl-context: project not found: %s (no such directory, and no sessions of it in %s)\n"
        % (
            missing,
            world["projects"],
        )
    )
    done = run(run_pyz, command + ["--project", world["work"], "--projects-dir", world["projects"]])
    assert done.returncode == 0 and done.stdout  # the folder of a project that exists: its sessions


def test_the_person_is_one_word(run_pyz, world):
    """``search`` calls what the person typed ``person``, as ``entries``' speaker column
    does; ``--in human`` (the word before) is still taken."""
    store = ["--projects-dir", world["projects"]]
    for kinds in ("person", "human"):
        hit = json.loads(run(run_pyz, ["search", "refactor", "--in", kinds, "--json"] + store).stdout)
        assert hit["kind"] == "person"
    rows = run(run_pyz, ["entries", world["path"]]).stdout.decode().splitlines()
    assert rows[0].split("\t")[3] == "person"


def test_the_dump_never_imports_the_command_base():
    code = "import sys, termsprawl_context.cli.context; print('termsprawl_context.cli.command' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, check=True)
    assert done.stdout == b"False\n"


@pytest.mark.parametrize("value", ["0", "-1", "+1", " 1", "1.0", "1e3", "ten", "\u0661", "\u00b2", "\uff11"])
def test_one_positive_number_rule(tmp_path, capsys, value):
    """A count or a LINE is ASCII digits naming 1 or more, whichever parser reads it: the
    commands' options, the dump's hand-off options, and an at-a-line command's LINE (which
    once took another script's digits, and a superscript to a traceback)."""
    from termsprawl_context.cli import main
    from termsprawl_context.cli._args import positive_int

    assert positive_int(value) is None and positive_int("007") == 7
    path = tmp_path / "t.jsonl"
    path.write_text('{"type":"user","uuid":"u1","message":{"content":"hi"}}\n')
    for argv in (
        ["sessions", "--limit", value, "--projects-dir", str(tmp_path)],
        ["--cwd", str(tmp_path), "--self", "me", "--turns", value],
        ["result-at", str(path), value],
    ):
        assert main(argv) == 2, argv
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and "positive" in err, (argv, err)
