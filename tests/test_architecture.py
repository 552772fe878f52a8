"""Guard rails for the package's shape (../shared/DESIGN.md).

1. Import directions, read from the source with ``ast`` (every import, including the
   lazy ones inside functions): layers only import downward.
2. The dump's import set, read from ``sys.modules`` in a fresh interpreter: the run
   with no peers and the dump that prints load exactly the modules listed here, and
   none of the costly standard modules the dump's start-up avoids.
"""

import ast
import json
import subprocess
import sys
import textwrap

import pytest

from conftest import SRC

PACKAGE = "termsprawl_context"
PACKAGE_DIR = SRC / PACKAGE

# The bottom: every layer may use these (model.py: the shapes every provider produces).
BOTTOM = {"__init__", "_output", "errors", "model"}
# Group -> the groups it may import (a group is the first name under the package).
ALLOWED = {
    "__init__": set(),
    "_output": set(),
    "errors": set(),
    "model": set(),
    # Bytes only: nothing of Claude Code, of one record's meaning or of the store. The
    # readers' cost model asks bytescan, the other bytes-only module, what width of
    # string an escape can spell (the escape rule is written once, there).
    "jsonl": BOTTOM | {"jsonl", "bytescan"},
    "bytescan": BOTTOM,
    "byte_windows": BOTTOM | {"jsonl"},
    # CLI-neutral rules over the model's Entry: nothing of a provider, the store or .termsprawl/.
    "transcript": BOTTOM | {"jsonl", "bytescan", "byte_windows", "transcript"},
    # A provider reads its own files (jsonl) into the model's Entry, and may speed a
    # transcript rule up over its own format (the dump's last turns).
    "harness": BOTTOM | {"harness", "jsonl", "bytescan", "byte_windows", "transcript"},
    "store": BOTTOM | {"harness", "jsonl", "bytescan", "byte_windows", "transcript", "store"},
    # .termsprawl/ state: nothing of transcripts' meaning or of the store.
    "workspace": BOTTOM | {"harness", "jsonl", "workspace"},
}
# Joiners beside the layers, above both: anything but the CLI.
JOINERS = {"dump", "doctor", "hooks", "cite", "handoff", "handoff_render"}
LAYERS = set(ALLOWED) - {"__init__"}
for joiner in JOINERS:
    ALLOWED[joiner] = BOTTOM | LAYERS | JOINERS
ALLOWED["cli"] = BOTTOM | LAYERS | JOINERS | {"cli"}
ALLOWED["__main__"] = {"cli"}


def module_files():
    return sorted(p for p in PACKAGE_DIR.rglob("*.py"))


def group_of(path):
    parts = path.relative_to(PACKAGE_DIR).with_suffix("").parts
    return parts[0]


def imported_groups(path):
    """(line, group) of every package module ``path`` imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == PACKAGE:
                    found.append((node.lineno, parts[1] if len(parts) > 1 else "__init__"))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            parts = node.module.split(".")
            if parts[0] != PACKAGE:
                continue
            if len(parts) > 1:
                found.append((node.lineno, parts[1]))
            else:  # from termsprawl_context import jsonl, __version__
                for alias in node.names:
                    is_module = (PACKAGE_DIR / alias.name).is_dir() or (PACKAGE_DIR / (alias.name + ".py")).exists()
                    found.append((node.lineno, alias.name if is_module else "__init__"))
        elif isinstance(node, ast.ImportFrom) and node.level:
            raise AssertionError("%s:%d: relative import (the package imports absolutely)" % (path, node.lineno))
    return found


def test_every_module_belongs_to_a_known_group():
    unknown = {str(p.relative_to(SRC)) for p in module_files() if group_of(p) not in ALLOWED}
    assert unknown == set(), "add the new module's group to ALLOWED (and to DESIGN.md's map)"


def test_imports_only_go_downward():
    wrong = []
    for path in module_files():
        group = group_of(path)
        for line, target in imported_groups(path):
            if target != group and target not in ALLOWED[group]:
                wrong.append("%s:%d imports %s" % (path.relative_to(SRC), line, target))
    assert wrong == []


def test_the_checker_sees_lazy_and_package_level_imports(tmp_path):
    source = textwrap.dedent(
        """\
        from termsprawl_context import jsonl, __version__
        def f():
            from termsprawl_context.store import sessions
            import termsprawl_context.cli.context
        """
    )
    fake = tmp_path / "probe.py"
    fake.write_text(source)
    tree_groups = [g for _, g in imported_groups(fake)]
    assert tree_groups == ["jsonl", "__init__", "store", "cli"]


# --- every CLI a provider behind one interface (issue 28) -----------------------------------

# A CLI's own module: a provider package under harness/ (harness/base.py and the registry
# are the interface, not a CLI's).
PROVIDERS = ("claude", "codex", "gemini")
# Its name as the registry spells it, or the registry's constant for it.
CLI_NAMES = ("claude-code", "codex-cli", "gemini-cli", "CLAUDE_CODE", "CODEX_CLI", "GEMINI_CLI")


def _provider_imports(path):
    """The provider modules ``path`` imports (every import, the lazy ones too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + ["%s.%s" % (node.module, alias.name) for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[:2] == [PACKAGE, "harness"] and len(parts) > 2 and parts[2] in PROVIDERS:
                found.append((node.lineno, name))
    return found


def _outside_harness():
    for path in module_files():
        if group_of(path) != "harness":
            yield path


def test_no_module_outside_harness_imports_a_cli_module():
    importers = set()
    for path in _outside_harness():
        if _provider_imports(path):
            importers.add(str(path.relative_to(PACKAGE_DIR)))
    assert importers == set(), "ask the provider through harness/base.py's interface"


def _lines_naming_a_cli(path):
    """The lines of ``path`` whose code names a CLI: a string that is its registry name,
    or the registry's constant for it (comments and docstrings may speak of it)."""
    import io
    import tokenize

    found = set()
    with io.open(str(path), encoding="utf-8") as f:
        for token in tokenize.generate_tokens(f.readline):
            if token.type == tokenize.NAME and token.string in CLI_NAMES:
                found.add(token.start[0])
            elif token.type == tokenize.STRING and token.string.strip("\"'") in CLI_NAMES:
                found.add(token.start[0])
    return sorted(found)


def test_at_most_two_lines_outside_harness_name_a_cli():
    naming = []
    for path in _outside_harness():
        naming += ["%s:%d" % (path.relative_to(PACKAGE_DIR), n) for n in _lines_naming_a_cli(path)]
    assert len(naming) <= 2, naming


def test_the_interface_checks_see_a_provider_import(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "def f(h):\n    from termsprawl_context.harness import codex\n    import termsprawl_context.harness.gemini.facts\n"
        "    return h == 'codex-cli'  # claude-code in a comment is not code\n"
    )
    assert [name for _, name in _provider_imports(probe)] == [
        "termsprawl_context.harness.codex",
        "termsprawl_context.harness.gemini.facts",
    ]
    assert _lines_naming_a_cli(probe) == [4]


# --- the dump's import set -----------------------------------------------------------------

# A run with no peers (a fresh project): argv, a look for the links folder, nothing else
# (not even the refusals: errors.py loads only when one is raised, ids.py when a link exists).
NO_PEER_MODULES = {
    "termsprawl_context",
    "termsprawl_context._output",
    "termsprawl_context.cli",
    "termsprawl_context.cli.context",
    "termsprawl_context.dump",
    "termsprawl_context.workspace",
    "termsprawl_context.workspace.layout",
}
# A dump that prints adds the id check, the link reader, the index (and the harness names
# its entries may carry: three constants), the titles and the transcript reader; still not
# the refusals (errors.py loads only when one is raised).
PRINTING_MODULES = NO_PEER_MODULES | {
    "termsprawl_context.workspace.ids",
    "termsprawl_context.harness",
    "termsprawl_context.workspace.files",
    "termsprawl_context.workspace.links",
    "termsprawl_context.jsonl",
    "termsprawl_context.transcript",
    "termsprawl_context.transcript.content",
    "termsprawl_context.transcript.turns",
    "termsprawl_context.workspace.index",
    "termsprawl_context.workspace.titles",
}
# Standard modules the dump's start-up must not pay for (typing and re cost
# milliseconds; argparse is the sub-commands'); json only once a peer exists.
NEVER_ON_THE_DUMP = {"typing", "re", "argparse", "importlib", "pathlib", "tempfile"}

_PROBE = textwrap.dedent(
    """\
    import json, sys
    sys.path.insert(0, sys.argv[1])
    before = set(sys.modules)
    from termsprawl_context.cli import main
    code = main(["--cwd", sys.argv[2], "--self", sys.argv[3]])
    sys.stdout.flush()
    sys.stderr.write(json.dumps({"code": code, "loaded": sorted(set(sys.modules) - before)}))
    """
)


def dump_imports(cwd, self_id):
    done = subprocess.run(
        [sys.executable, "-I", "-c", _PROBE, str(SRC), str(cwd), self_id],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=60,
    )
    report = json.loads(done.stderr.decode())
    assert report["code"] == 0
    loaded = set(report["loaded"])
    return done.stdout, {m for m in loaded if m.split(".")[0] == PACKAGE}, loaded


def test_no_peer_run_loads_only_its_modules(tmp_path):
    # A project with nothing linked yet (the benchmark's no-peer run).
    out, ours, loaded = dump_imports(tmp_path, "me")
    assert out == b""
    assert ours == NO_PEER_MODULES
    # __future__ is a module like any other: a `from __future__ import` on the path loads it.
    assert loaded & (NEVER_ON_THE_DUMP | {"json", "__future__"}) == set()


def module_source(name):
    """The source file of the package's module ``name``."""
    module = SRC / (name.replace(".", "/") + ".py")
    return module if module.is_file() else SRC / name.replace(".", "/") / "__init__.py"


@pytest.mark.parametrize("name", sorted(PRINTING_MODULES))
def test_dump_modules_build_no_namedtuple_class(name):
    # Building a namedtuple class compiles source (a quarter of a millisecond each): the
    # dump's modules build plain tuple classes instead.
    tree = ast.parse(module_source(name).read_text(encoding="utf-8"))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "namedtuple"]
    assert calls == []


def test_printing_dump_loads_only_its_modules(tmp_path):
    from termsprawl_context.workspace import index, links

    transcript = tmp_path / "peer.jsonl"
    transcript.write_text('{"type":"user","message":{"content":"hello"}}\n')
    links.add_link(str(tmp_path), "me", "peer")
    assert index.record_transcript_path(str(tmp_path), "peer", str(transcript))
    out, ours, loaded = dump_imports(tmp_path, "me")
    assert out == b"# linked context from peer (peer)\n## user\nhello\n"
    assert ours == PRINTING_MODULES
    assert loaded & NEVER_ON_THE_DUMP == set()


@pytest.mark.parametrize("module", sorted(NEVER_ON_THE_DUMP))
def test_the_probe_would_see_a_costly_import(module):
    # The probe counts what importing does, so a module the dump pulled in would show,
    # unless this interpreter loads it before any code runs (some distributions' site
    # hooks load re): then the dump cannot be charged for it.
    code = "import sys; before = set(sys.modules); import %s; print(%r in set(sys.modules) - before)" % (module, module)
    done = subprocess.run([sys.executable, "-I", "-c", code], stdout=subprocess.PIPE, timeout=60)
    if done.stdout.strip() == b"False":
        pytest.skip("%s is loaded at this interpreter's start-up" % module)
    assert done.stdout.strip() == b"True"
