"""Where ``.termsprawl/`` state lives in a project: the folder and file names, and the
one join that builds a path under it. Nothing else, so the dump can ask whether a
project has links at all without loading the writers (``files``) or the link reader."""

import os

__all__ = ["BIN_DIR", "HOME_HARNESS_DIRS", "LINKS_DIR", "PROJECT_FILE", "STATE_DIR", "TRANSCRIPTS_DIR", "state_path"]


STATE_DIR = ".termsprawl"
LINKS_DIR = "links"
TRANSCRIPTS_DIR = "transcripts"
BIN_DIR = "bin"
PROJECT_FILE = "project.json"
# The harness's per-user folder: inside the home directory it is user-wide, not a project's.
HARNESS_DIR = ".claude"
# Every agent CLI's per-user folder (Claude Code, Codex CLI, Gemini CLI): never written.
HOME_HARNESS_DIRS = (HARNESS_DIR, ".codex", ".gemini")


def state_path(cwd: str, *parts: str) -> str:
    """``<cwd>/.termsprawl/<parts...>``."""
    return os.path.join(cwd, STATE_DIR, *parts)
