"""One refusal path: every refusal is a named class carrying its exit code, the names are
unique across the package, every code is in docs/cli.md's table, and the two exits that
are not refusals (an internal error, Ctrl-C) are one quiet line or none, never a
traceback."""

import importlib
import os
import pkgutil
import re
import subprocess
import sys
import textwrap

import pytest

import termsprawl_context
from termsprawl_context import errors
from termsprawl_context.errors import EXIT_INTERNAL, EXIT_INTERRUPTED, Refusal

from conftest import REPO, SRC


def package_modules():
    """Every module of the package, imported (``__main__`` runs the command: skipped)."""
    names = []
    for info in pkgutil.walk_packages(termsprawl_context.__path__, "termsprawl_context."):
        if info.name.endswith("__main__"):
            continue
        importlib.import_module(info.name)
        names.append(info.name)
    return names


def refusal_classes():
    package_modules()
    found, todo = [], [Refusal]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub.__module__.startswith("termsprawl_context."):
                found.append(sub)
            todo.append(sub)
    return sorted(set(found), key=lambda c: (c.__module__, c.__name__))


def readme_exit_codes():
    """The codes of docs/cli.md's ``## Exit codes`` table."""
    text = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    return {int(code) for code in re.findall(r"^\| (\d+) \|", section, re.M)}


def test_the_package_has_refusals_to_check():
    classes = refusal_classes()
    assert len(classes) >= 20  # every module was imported: the walk found them
    names = {c.__name__ for c in classes}
    assert {"BadNodeId", "SelfLink", "WriteFailed", "SessionIdNotFound", "SessionNotFound"} <= names


def test_refusal_class_names_are_unique():
    by_name = {}
    for cls in refusal_classes():
        by_name.setdefault(cls.__name__, []).append(cls.__module__)
    assert {name: where for name, where in by_name.items() if len(where) > 1} == {}


def test_every_exit_code_is_in_the_documented_table():
    table = readme_exit_codes()
    for cls in refusal_classes():
        assert cls.exit_code in table, "%s.%s exits %d, not in docs/cli.md" % (
            cls.__module__,
            cls.__name__,
            cls.exit_code,
        )
    constants = {v for k, v in vars(errors).items() if k.startswith("EXIT_")}
    assert constants <= table


def test_no_refusal_carries_a_parallel_code_string():
    for cls in refusal_classes():
        assert not isinstance(getattr(cls, "code", None), str), "%s has a string code" % cls.__name__


def test_link_refusals_carry_their_own_exit_codes():
    assert errors.BadNodeId().exit_code == errors.EXIT_USAGE
    assert errors.SelfLink().exit_code == errors.EXIT_USAGE
    assert errors.WriteFailed("cannot write x").exit_code == errors.EXIT_FAILURE


def run_with_fault(fault, tmp_path):
    """Run ``main`` for a dump in a fresh interpreter whose dump does ``fault`` (Python
    source, the body of a function) instead of its work."""
    code = textwrap.dedent(
        """\
        import os, signal, sys, time
        import termsprawl_context.cli.context as context

        def broken(argv):
        {body}

        context.run_dump = broken
        from termsprawl_context.cli import main
        sys.exit(main(["--cwd", ".", "--self", "a"]))
        """
    ).format(body=textwrap.indent(textwrap.dedent(fault), "    "))
    env = dict(os.environ, PYTHONPATH=str(SRC))
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=str(tmp_path),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=60,
    )


def test_internal_error_is_one_line_exit_70(tmp_path):
    done = run_with_fault("raise RuntimeError('boom at line 3')", tmp_path)
    assert done.returncode == EXIT_INTERNAL == 70
    assert done.stdout == b""
    assert done.stderr == b"termsprawl-context: internal error: RuntimeError: boom at line 3\n"


def test_internal_error_inside_a_library_call_is_one_line(tmp_path):
    done = run_with_fault("{}['missing']", tmp_path)
    assert done.returncode == 70
    assert done.stderr.count(b"\n") == 1 and b"Traceback" not in done.stderr
    assert done.stderr.startswith(b"termsprawl-context: internal error: KeyError: ")


def test_ctrl_c_exits_130_quietly(tmp_path):
    # A real SIGINT, delivered while the command runs.
    done = run_with_fault("os.kill(os.getpid(), signal.SIGINT)\ntime.sleep(30)", tmp_path)
    assert done.returncode == EXIT_INTERRUPTED == 130
    assert done.stdout == b"" and done.stderr == b""


@pytest.mark.parametrize("argv, code", [(["--cwd"], 2), (["find", "zzzz", "--projects-dir", "/nonexistent"], 1)])
def test_refusal_is_one_line_with_its_code(run_pyz, argv, code):
    done = run_pyz(argv)
    assert done.returncode == code
    assert done.stderr.count(b"\n") == 1 and done.stderr.startswith(b"termsprawl-context: ")
