"""The store resolver and the harness's folder naming."""

import os

from termsprawl_context.harness.base import resolve_dir
from termsprawl_context.harness.claude import facts
from termsprawl_context.store import paths


def test_projects_dir_precedence(tmp_path):
    env = {"CLAUDE_CONFIG_DIR": "  %s  " % (tmp_path / "cfg"), "HOME": str(tmp_path / "home")}
    assert paths.projects_dir("given", env) == os.path.abspath("given")
    assert paths.projects_dir(None, env) == str(tmp_path / "cfg" / "projects")
    assert paths.projects_dir(None, {"HOME": str(tmp_path / "home")}) == str(tmp_path / "home" / ".claude" / "projects")
    assert paths.projects_dir(None, {"CLAUDE_CONFIG_DIR": "   ", "HOME": "/h"}) == "/h/.claude/projects"
    assert paths.projects_dir(None, {}) == ""


def test_relative_config_dir_is_made_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(str(tmp_path))
    assert paths.projects_dir(None, {"CLAUDE_CONFIG_DIR": "rel"}) == str(tmp_path / "rel" / "projects")


def test_encode_project_dir_is_lossy_as_the_harness():
    assert facts.encode_project_dir("/home/u/proj") == "-home-u-proj"
    for a, b in [("/a/b-c", "/a/b/c"), ("/a/b_c", "/a/b-c"), ("/a/b.c", "/a/b/c"), ("/home/u/x y", "/home/u/x-y")]:
        assert facts.encode_project_dir(a) == facts.encode_project_dir(b)
    assert facts.encode_project_dir("C:\\Users\\x") == "C--Users-x"
    assert facts.encode_project_dir("/caf\u00e9") == "-caf-"


def test_resolve_dir(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    resolved = resolve_dir(str(link))
    assert resolved == os.path.realpath(str(real))
    assert resolve_dir(resolved) == resolved
    missing = resolve_dir(str(link / "not" / "there" / "yet"))
    assert missing == os.path.join(os.path.realpath(str(real)), "not", "there", "yet")
    assert resolve_dir("") == ""


def test_project_dir():
    assert facts.project_dir("/cfg", "/w/p") == os.path.join(
        "/cfg", "projects", facts.encode_project_dir(resolve_dir("/w/p"))
    )
    assert facts.project_dir("", "/w/p") == ""
