"""The package's public names: private means a leading underscore, and every public name is used.

Read from the source with ``ast`` (every import counts, the lazy ones inside functions
too). No module takes another's name with a leading underscore. Every public name a
module defines is used by the package (in its own module or another) or is public on
purpose (``API``, with its reason, and the names docs/api.md documents as importable),
so nothing in ``src/`` serves only the tests (an oracle lives in ``tests/oracles.py``).
``__all__`` is kept only where there is a published list of names (``WITH_ALL``: the
harness registry); there it holds exactly what other modules take or the API names.
Tests may still import a module's private helpers to test them on their own.
"""

import ast
import textwrap
from pathlib import Path

from conftest import SRC

PACKAGE = "termsprawl_context"

# Public on purpose though no other module of the package takes them: (module, name) -> why.
API = {
    # Read by name: harness/__init__.get imports the module and takes its HARNESS.
    ("harness.claude", "HARNESS"): "the harness registry (harness/__init__.get) reads it by name",
    ("harness.codex", "HARNESS"): "the harness registry (harness/__init__.get) reads it by name",
    ("harness.gemini", "HARNESS"): "the harness registry (harness/__init__.get) reads it by name",
    ("harness.copilot", "HARNESS"): "the harness registry (harness/__init__.get) reads it by name",
    ("harness.pi", "HARNESS"): "the harness registry (harness/__init__.get) reads it by name",
    ("harness.opencode", "HARNESS"): "the harness registry (harness/__init__.get) reads it by name",
    ("harness.cline", "HARNESS"): "the harness registry (harness/__init__.get) reads it by name",
    ("harness.qwen", "HARNESS"): "the harness registry (harness/__init__.get) reads it by name",
    ("harness.droid", "HARNESS"): "the harness registry (harness/__init__.get) reads it by name",
    ("harness.vibe", "HARNESS"): "the harness registry (harness/__init__.get) reads it by name",
    (
        "harness.claude.session_scan",
        "MAX_BYTES_PER_SESSION",
    ): "the bound on one session's reads the sessions tests check",
    (
        "harness.claude.session_scan",
        "PLAIN_SCANNER",
    ): "the plain scanners the switch may select; the session tests run both",
    (
        "harness.claude.session_scan",
        "session_metadata",
    ): "one transcript's metadata by its path, the seed's per-file reading",
    ("transcript.turns", "every_line"): "the plain line filter the switch may select; test_turns runs both",
    # The console script's entry point (pyproject.toml: termsprawl_context.cli:main) and its registry.
    (
        "cli",
        "COMMANDS",
    ): "the command registry: docs/cli.md's command table and the CLI contract tests are checked against it",
}
API = {(PACKAGE + "." + module, name): why for (module, name), why in API.items()}
# The modules that publish a list of names (issue 28: `__all__` only there).
WITH_ALL = {PACKAGE + ".harness"}

API_DOC = SRC.parent / "docs" / "api.md"


def readme_names(text, modules):
    """``(module, name)`` for each name docs/api.md documents as importable: a module in
    backticks followed by its names in parentheses (`` `pkg.mod` (`a`, `b`) ``), or one
    dotted name (`` `pkg.mod.name` ``)."""
    import re

    text = " ".join(text.split())
    found = set()
    for match in re.finditer(r"`(%s(?:\.\w+)+)`( \(([^)]*)\))?" % PACKAGE, text):
        dotted, names = match.group(1), match.group(3)
        if dotted in modules and names is not None:
            found.update((dotted, name) for name in re.findall(r"`(\w+)`", names))
        elif dotted not in modules and dotted.rsplit(".", 1)[0] in modules:
            found.add(tuple(dotted.rsplit(".", 1)))
    return found


# Claude Code's facts module names its format as observed (DESIGN.md: each harness's
# facts live in its module): a field, file or limit no code reads yet (some only the
# end-to-end tests check) is the record of what was observed, kept with the rest.
# Constants only: a function there is code like any other. Codex's and Gemini's facts
# modules are such records too.
FACT_TABLES = {
    PACKAGE + ".harness.claude.facts",
    PACKAGE + ".harness.codex.facts",
    PACKAGE + ".harness.gemini.facts",
    PACKAGE + ".model",
}


class Module(object):
    """One module's names: what it defines at the top level (also under a top-level ``if``
    or ``try``, never under ``if TYPE_CHECKING:``), what it imports, its ``__all__``, and
    every bare name it reads anywhere."""

    def __init__(self, name, path, tree):
        self.name = name
        self.path = path
        self.tree = tree
        self.defined = {}  # name -> line
        self.imported = {}  # name -> (module, original name); module for "import a.b as n"
        self.star = []  # modules whose names ``from M import *`` brings in
        self.all = None  # the list __all__ holds, None when there is none
        self.all_from = []  # local names of modules whose __all__ is added to it (``__all__ += m.__all__``)
        self.loads = set()  # every bare name the module reads
        self._collect()

    def _collect(self):
        for node in _top_level(self.tree.body):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.defined.setdefault(node.name, node.lineno)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for name in _target_names(target):
                        if name == "__all__":
                            self.all = _literal_list(node.value)
                        else:
                            self.defined.setdefault(name, node.lineno)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == "__all__":
                value = node.value
                if isinstance(value, ast.Attribute) and value.attr == "__all__" and isinstance(value.value, ast.Name):
                    self.all_from.append(value.value.id)
                elif self.all is not None:
                    self.all += _literal_list(value) or []
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                for alias in node.names:
                    if alias.name == "*":
                        self.star.append(node.module)
                    else:
                        self.imported.setdefault(alias.asname or alias.name, (node.module, alias.name))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.imported.setdefault(alias.asname, (alias.name, None))
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                self.loads.add(node.id)


def _top_level(body):
    """The statements of a module's top level, into ``if`` and ``try`` blocks but not into
    ``if TYPE_CHECKING:`` (names for the type checker alone)."""
    for node in body:
        if isinstance(node, ast.If):
            if isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
                yield from _top_level(node.orelse)
                continue
            yield from _top_level(node.body)
            yield from _top_level(node.orelse)
        elif isinstance(node, ast.Try):
            for block in [node.body, node.orelse, node.finalbody] + [h.body for h in node.handlers]:
                yield from _top_level(block)
        else:
            yield node


def _target_names(target):
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _target_names(element)


def _literal_list(value):
    try:
        return list(ast.literal_eval(value))
    except ValueError:
        return None


def module_name(root, path):
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def load_modules(root, package=PACKAGE):
    """Every module of ``package`` under ``root`` (a ``src``-like folder), by dotted name."""
    found = {}
    for path in sorted((Path(root) / package).rglob("*.py")):
        name = module_name(Path(root), path)
        found[name] = Module(name, path, ast.parse(path.read_text(encoding="utf-8"), str(path)))
    for module in found.values():
        for local in module.all_from:
            source, original = module.imported.get(local, (None, None))
            other = found.get("%s.%s" % (source, original))
            if module.all is not None and other is not None and other.all is not None:
                module.all += other.all
    return found


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def taken_names(modules, trees):
    """``{(module, name): {the modules that take it}}``: ``from module import name`` (read
    or re-exported) or ``module.name`` read, by another of ``trees`` (``{name: ast}``);
    names as the taker writes them, re-exports not followed."""
    known = set(modules)
    found = {}
    for user, tree in trees.items():
        for module, name in _takes(tree, known):
            if module == user:
                continue
            # ``from module import *`` takes every public name the module defines (its
            # __all__ must then hold them all, or the star brings fewer than before).
            names = (
                [n for n in modules[module].defined if _is_public(n) and n != "TYPE_CHECKING"]
                if name == "*"
                else [name]
            )
            for one in names:
                found.setdefault((module, one), set()).add(user)
    return found


def _takes(tree, known):
    bound = {}
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in known:
            for alias in node.names:
                sub = node.module + "." + alias.name
                if sub in known:
                    bound[alias.asname or alias.name] = sub
                else:
                    found.add((node.module, alias.name))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    local = alias.asname or alias.name.split(".")[0]
                    bound[local] = alias.name if alias.asname else local
    for node in ast.walk(tree):
        # A registry row naming its function as text: ``("pkg.mod", "run_x", ...)``, as a
        # tuple or a call's first two arguments (the CLI imports it when named).
        row = node.elts if isinstance(node, ast.Tuple) else node.args if isinstance(node, ast.Call) else []
        if len(row) >= 2:
            module, name = (arg.value if isinstance(arg, ast.Constant) else None for arg in row[:2])
            if module in known and isinstance(name, str):
                found.add((module, name))
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            dotted = _dotted(node.value)
            if dotted is None or dotted[0] not in bound:
                continue
            module = ".".join([bound[dotted[0]]] + dotted[1:])
            if module in known:
                found.add((module, node.attr))
    return found


def _is_public(name):
    return not name.startswith("_")


def _exists(modules, module, name):
    here = modules[module]
    if name in here.defined or name in here.imported:
        return True
    return any(source in modules and _exists(modules, source, name) for source in here.star)


def violations(root, package=PACKAGE, api=None, fact_tables=(), with_all=None):
    """Every breach of the rules above in the package under ``root``, as sentences."""
    api = api or {}
    with_all = WITH_ALL if with_all is None else with_all
    modules = load_modules(root, package)
    taken = taken_names(modules, {name: m.tree for name, m in modules.items()})
    found = []
    for name, module in sorted(modules.items()):
        if module.all is not None and name not in with_all:
            found.append("%s has an __all__, which only a module publishing its names keeps" % name)
        for entry in module.all or ():
            if not _exists(modules, name, entry):
                found.append("%s.__all__ names %s, which it neither defines nor imports" % (name, entry))
            elif (name, entry) not in taken and (name, entry) not in api:
                found.append(
                    "%s.__all__ names %s, which no other module takes (drop it, or list it in API)" % (name, entry)
                )
        for entry, line in sorted(module.defined.items()):
            if not _is_public(entry) or entry == "TYPE_CHECKING":
                continue
            if entry in module.loads or (name, entry) in taken or (name, entry) in api:
                continue
            if name in fact_tables and entry.isupper():
                continue
            found.append(
                "%s:%d: %s is used by nothing in the package (delete it, move it to the tests)" % (name, line, entry)
            )
    for (name, entry), users in sorted(taken.items()):
        module = modules[name]
        if entry.startswith("_") and not entry.startswith("__"):
            found.append(
                "%s takes %s from %s: a private name (make it public there)" % (", ".join(sorted(users)), entry, name)
            )
            continue
        if module.all is None or entry in module.all:
            continue
        if _exists(modules, name, entry):
            found.append(
                "%s takes %s from %s, which leaves it out of __all__" % (", ".join(sorted(users)), entry, name)
            )
    return found


def command_specs():
    """``(module, NAME)`` for each command a ``cli/commands/`` module runs: its Spec, named
    after the registered command in capitals (``result-at`` is ``RESULT_AT``), which
    tests/test_cli_contract.py reads by that convention."""
    from termsprawl_context.cli import COMMANDS, command_target

    return {
        (command_target(name)[0], name.upper().replace("-", "_"))
        for name in COMMANDS
        if command_target(name)[0].startswith(PACKAGE + ".cli.commands.")
    }


def command_runs():
    """``(module, function)`` for each registered command, as the CLI derives them."""
    from termsprawl_context.cli import COMMANDS, command_target

    return {command_target(name) for name in COMMANDS}


def _api():
    """``API``, the commands' Specs and the names docs/api.md documents as importable."""
    modules = load_modules(SRC)
    found = dict(API)
    for key in command_specs():
        found.setdefault(key, "the Spec of a registered command, read by its name")
    for key in command_runs():
        found.setdefault(key, "the function of a registered command, imported by cli.command_target's name")
    for key in readme_names(API_DOC.read_text(encoding="utf-8"), modules):
        found.setdefault(key, "docs/api.md documents it as importable")
    return found


def test_private_names_stay_private_and_every_public_name_is_used():
    assert violations(SRC, api=_api(), fact_tables=FACT_TABLES) == []


def test_what_docs_api_documents_exists_and_is_public():
    modules = load_modules(SRC)
    documented = readme_names(API_DOC.read_text(encoding="utf-8"), modules)
    assert len(documented) > 20  # the reader found docs/api.md's lists
    assert sorted(key for key in documented if not _exists(modules, *key)) == []
    assert sorted(key for key in documented if not _is_public(key[1])) == []


def test_the_api_list_names_only_what_exists():
    modules = load_modules(SRC)
    assert [key for key in API if key[0] not in modules or not _exists(modules, *key)] == []
    # Every registered command's module declares its Spec under the command's name.
    assert sorted(key for key in command_specs() if not _exists(modules, *key)) == []


def test_the_checker_sees_each_breach(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("__all__ = []\n")
    (package / "a.py").write_text(
        textwrap.dedent(
            """\
            from pkg.b import helper
            __all__ = ["kept", "ghost", "lonely"]
            TYPE_CHECKING = False
            def kept(): return helper()
            def lonely(): pass
            def inner(): pass
            def dead(): pass
            def _private(): return inner()
            """
        )
    )
    (package / "b.py").write_text(
        textwrap.dedent(
            """\
            def helper():
                from pkg import a
                return a.kept, a.inner, a._private
            """
        )
    )
    (package / "c.py").write_text(
        textwrap.dedent(
            """\
            __all__ = []
            def command(module, function): return module, function
            def main(): return [command("pkg.a", "dead"), ("pkg.a", "lonely")]  # a registry naming functions as text
            main()
            """
        )
    )
    assert violations(tmp_path, "pkg", with_all={"pkg.a"}) == [
        "pkg has an __all__, which only a module publishing its names keeps",
        "pkg.a.__all__ names ghost, which it neither defines nor imports",
        "pkg.c has an __all__, which only a module publishing its names keeps",
        "pkg.b takes _private from pkg.a: a private name (make it public there)",
        "pkg.c takes dead from pkg.a, which leaves it out of __all__",
        "pkg.b takes inner from pkg.a, which leaves it out of __all__",
    ]
