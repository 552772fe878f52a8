"""The peer walk (dump.py): ProjectIO's shortcut for a project with no links folder
gives what the link reader gives, whatever stands where the folder would be."""

import os

import pytest

from termsprawl_context.dump import ProjectIO, collect
from termsprawl_context.workspace import links


def make(tmp_path, kind):
    state = tmp_path / ".termsprawl"
    if kind == "no state dir":
        return
    state.mkdir()
    target = state / "links"
    if kind == "links is a file":
        target.write_text("{}")
    elif kind == "links is a dangling symlink":
        os.symlink(str(tmp_path / "nowhere"), str(target))
    elif kind == "links is a symlink to a folder":
        real = tmp_path / "real-links"
        real.mkdir()
        os.symlink(str(real), str(target))
        links.add_link(str(tmp_path), "me", "peer")
    elif kind == "links folder":
        links.add_link(str(tmp_path), "me", "peer")


@pytest.mark.parametrize(
    "kind",
    [
        "no state dir",
        "empty state dir",
        "links is a file",
        "links is a dangling symlink",
        "links is a symlink to a folder",
        "links folder",
    ],
)
def test_link_files_equal_the_link_reader(tmp_path, kind):
    make(tmp_path, kind)
    io = ProjectIO(str(tmp_path))
    assert io.link_files() == links.scan_link_files(str(tmp_path))
    expected = ["peer"] if kind in ("links is a symlink to a folder", "links folder") else []
    assert [p.peer for p in io.linked_peers("me")] == expected == links.peers_of(str(tmp_path), "me")
    assert collect("me", io) == []  # no index entry: nothing prints
