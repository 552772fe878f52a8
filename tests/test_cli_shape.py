"""The shape issue 28 asks of the command line and the refusals, read from the source with
``ast``: one module per command under ``cli/commands/`` (pip's ``commands/``); no module
under ``cli/`` imports an agent CLI's module or names a CLI's registry constant (the
commands ask the harness registry); every exception class in ``errors.py`` (with one
named exception, ``_output.StdoutFailed``, raised on the dump's path that never loads it)."""

import ast
import builtins
import importlib

from conftest import SRC

from termsprawl_context.cli import COMMANDS, command_target

PACKAGE = "termsprawl_context"
CLI = SRC / PACKAGE / "cli"
# The registry's names for the CLIs; a command module asks the registry instead.
CLI_NAMES = frozenset(("CLAUDE_CODE", "CODEX_CLI", "GEMINI_CLI"))
CLI_MODULES = ("claude", "codex", "gemini")


def test_each_command_has_a_module_of_its_own():
    """Each registered name leads to a module of its own under cli/commands/ that defines its run function."""
    modules = [command_target(name)[0] for name in COMMANDS]
    assert len(set(modules)) == len(modules)
    for name in COMMANDS:
        module, function = command_target(name)
        assert module.startswith(PACKAGE + ".cli.commands.")
        assert callable(getattr(importlib.import_module(module), function, None)), (name, module, function)
    files = {p.stem for p in (CLI / "commands").glob("*.py")} - {"__init__"}
    assert files == {name.replace("-", "_") for name in COMMANDS}


def _cli_names(path):
    """(line, what) for each import of a CLI's module and each CLI name constant read."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            parts = node.module.split(".")
            if parts[:2] == [PACKAGE, "harness"] and len(parts) > 2 and parts[2].startswith(CLI_MODULES):
                found.append((node.lineno, node.module))
            if parts[:2] == [PACKAGE, "harness"] and len(parts) == 2:
                found += [(node.lineno, a.name) for a in node.names if a.name in CLI_NAMES or a.name in CLI_MODULES]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith(PACKAGE + ".harness.")]
        elif isinstance(node, (ast.Name, ast.Attribute)):
            name = node.id if isinstance(node, ast.Name) else node.attr
            if name in CLI_NAMES:
                found.append((node.lineno, name))
    return found


def test_no_cli_module_imports_a_cli_or_names_one():
    wrong = []
    for path in sorted(CLI.rglob("*.py")):
        wrong += ["%s:%d %s" % (path.relative_to(SRC), line, what) for line, what in _cli_names(path)]
    assert wrong == []


def test_the_checker_sees_a_cli_import_and_a_cli_name(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from termsprawl_context.harness import CLAUDE_CODE, get\n"
        "def f(h):\n"
        "    from termsprawl_context.harness import claude as cc\n"
        "    from termsprawl_context.harness.gemini import SETTINGS_FILE\n"
        "    return h.name == harnesses.CODEX_CLI\n"
    )
    assert sorted(what for _, what in _cli_names(probe)) == [
        "CLAUDE_CODE",
        "CODEX_CLI",
        "claude",
        "termsprawl_context.harness.gemini",
    ]


def _exception_classes():
    """(module file, class) of every class of the package that derives, through the
    package's own classes, from a built-in exception."""
    builtin = {n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)}
    bases = {}
    for path in (SRC / PACKAGE).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                names = [b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "") for b in node.bases]
                bases.setdefault(node.name, []).append((path, names))

    def is_exception(name, seen=()):
        if name in builtin:
            return True
        return name not in seen and any(
            is_exception(b, seen + (name,)) for _, names in bases.get(name, []) for b in names
        )

    return [
        (path.relative_to(SRC / PACKAGE).as_posix(), name)
        for name, defs in bases.items()
        for path, names in defs
        if any(is_exception(b) for b in names)
    ]


def test_every_exception_class_is_in_errors_py():
    found = _exception_classes()
    elsewhere = sorted((where, name) for where, name in found if where != "errors.py")
    assert elsewhere == [("_output.py", "StdoutFailed")]
    assert len(found) <= 45
