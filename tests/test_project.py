"""Finding the project from anywhere inside it, the installed command's own project, and
--self's default from $TERMSPRAWL_NODE_ID."""

import os

import pytest

from termsprawl_context import errors
from termsprawl_context.errors import EXIT_USAGE
from termsprawl_context.workspace import layout
from termsprawl_context.workspace import project as proj


@pytest.fixture
def tree(tmp_path):
    home = tmp_path / "home"
    work = home / "work" / "shop"
    (work / "src" / "deep").mkdir(parents=True)
    (work / ".termsprawl").mkdir()
    return home, work


def test_found_from_the_project_and_below(tree):
    home, work = tree
    env = {"HOME": str(home)}
    for start in (work, work / "src", work / "src" / "deep"):
        assert proj.find_project(str(start), env) == str(work)


def test_nearest_wins_and_relative_start_is_made_absolute(tree, monkeypatch):
    home, work = tree
    (work / "src" / ".termsprawl").mkdir()
    monkeypatch.chdir(str(work / "src" / "deep"))
    assert proj.find_project("..", {"HOME": str(home)}) == str(work / "src")


def test_home_is_never_adopted(tree):
    home, work = tree
    (work / ".termsprawl").rmdir()
    (home / ".termsprawl").mkdir()
    env = {"HOME": str(home)}
    assert proj.find_project(str(work / "src"), env) is None
    assert proj.find_project(str(home), env) is None


def test_walk_stops_at_home_even_above_it(tmp_path):
    (tmp_path / ".termsprawl").mkdir()
    home = tmp_path / "home"
    (home / "x").mkdir(parents=True)
    assert proj.find_project(str(home / "x"), {"HOME": str(home)}) is None  # never past home
    assert proj.find_project(str(home / "x"), {"HOME": "/nonexistent-home"}) == str(tmp_path)


def test_a_file_named_termsprawl_is_no_project(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / ".termsprawl").write_text("not a folder")
    assert proj.find_project(str(tmp_path / "p"), {"HOME": str(tmp_path)}) is None


def test_enclosing_project(tree):
    home, work = tree
    env = {"HOME": str(home)}
    assert proj.enclosing_project(str(work / "src"), env) == str(work)
    assert proj.enclosing_project(str(work), env) is None  # a project itself
    assert proj.enclosing_project(str(home / "work"), env) is None  # above it


def test_installed_project(tree):
    _, work = tree
    command = work / ".termsprawl" / "bin" / "termsprawl-context"
    assert layout.installed_project(str(command)) == str(work)
    inside = command / "site-packages" / "termsprawl_context" / "__init__.py"
    assert layout.installed_project(str(inside)) == str(work)
    assert layout.installed_project(str(work / "termsprawl-context")) is None
    assert layout.installed_project(str(work / ".termsprawl" / "bin" / "termsprawl-context-old")) is None
    assert layout.installed_project(None) is None
    assert proj.command_path(str(work)) == str(command)
    # As spelled, `..` folded: the skill's spelling from its own folder is the same copy.
    skill_dir = work / ".claude" / "skills" / "termsprawl-context"
    assert layout.installed_project(str(skill_dir) + "/../../../.termsprawl/bin/termsprawl-context") == str(work)


def test_an_installed_copy_needs_a_real_state_directory(tmp_path):
    # A `.termsprawl` symlink (here: to another project's state) makes no installed copy.
    other = tmp_path / "other"
    (other / ".termsprawl" / "bin").mkdir(parents=True)
    mine = tmp_path / "mine"
    mine.mkdir()
    os.symlink(str(other / ".termsprawl"), str(mine / ".termsprawl"))
    assert layout.installed_project(str(mine / ".termsprawl" / "bin" / "termsprawl-context")) is None
    assert layout.installed_project(str(other / ".termsprawl" / "bin" / "termsprawl-context")) == str(other)
    (tmp_path / "none").mkdir()
    assert layout.installed_project(str(tmp_path / "none" / ".termsprawl" / "bin" / "termsprawl-context")) is None


def test_serves_its_own_project_and_what_lies_inside(tree, tmp_path):
    home, work = tree
    assert layout.serves(str(work), str(work))
    assert layout.serves(str(work), str(work) + "/")
    assert layout.serves(str(work), str(work / "src" / "deep"))
    assert layout.serves(str(work), str(work / "src" / "not-yet"))  # no such folder: still inside
    assert layout.serves(str(work), str(work / "src" / ".." / ".." / "shop"))
    os.symlink(str(work / "src"), str(home / "to-src"))
    assert layout.serves(str(work), str(home / "to-src"))  # resolved: it is inside
    assert not layout.serves(str(work), str(home))  # above it
    assert not layout.serves(str(work), str(home / "work" / "shop-b"))  # a sibling sharing a prefix
    assert not layout.serves(str(work), "/")
    other = home / "other"
    (other / ".termsprawl").mkdir(parents=True)
    assert not layout.serves(str(work), str(other))
    os.symlink(str(other), str(work / "src" / "to-other"))  # inside by its spelling only
    assert not layout.serves(str(work), str(work / "src" / "to-other"))
    (work / "src" / "nested" / ".termsprawl").mkdir(parents=True)  # another project inside
    assert not layout.serves(str(work), str(work / "src" / "nested"))
    assert not layout.serves(str(work), str(work / "src" / "nested" / "x"))


def test_default_self():
    env = {proj.NODE_ID_ENV: "alice"}
    assert proj.default_self("bob", env) == "bob"
    assert proj.default_self(None, env) == "alice"
    assert proj.default_self(None, {}) is None
    assert proj.default_self("", {}) == ""  # an explicit empty flag is the flag's business
    with pytest.raises(errors.UsageError) as caught:
        proj.default_self(None, {proj.NODE_ID_ENV: ""}, "doctor")
    assert caught.value.exit_code == EXIT_USAGE
    assert caught.value.message == (
        "doctor: $TERMSPRAWL_NODE_ID is set but empty; give --self NODE or set it to " "this agent's node id"
    )


def test_writes_never_start_a_nested_project(tree):
    from termsprawl_context.workspace import discovery, files, index, links

    home, work = tree
    sub = str(work / "src")
    with pytest.raises(errors.WriteRefused):
        files.write_atomic(sub, os.path.join(sub, ".termsprawl", "x"), b"x")
    assert not index.record_transcript_path(sub, "alice", "/x.jsonl")
    with pytest.raises(errors.WriteFailed):
        links.add_link(sub, "alice", "bob")
    assert discovery.refresh_discovery(sub) == [
        (discovery.AGENTS_FILE, discovery.FAILED),
        (discovery.SKILL_FILE, discovery.FAILED),
    ]
    assert sorted(os.listdir(sub)) == ["deep"]


def test_a_removed_working_directory_finds_no_project(tmp_path, monkeypatch):
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(str(gone))
    gone.rmdir()
    assert proj.find_project(".", {"HOME": str(tmp_path)}) is None
    assert proj.enclosing_project(".", {"HOME": str(tmp_path)}) is None
    assert proj.default_project({"HOME": str(tmp_path)}) is None
