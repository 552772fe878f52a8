"""Where the harness keeps its store, and how it names a working directory's folder.

One resolver serves every command that reads the store: ``--projects-dir``, else
``$CLAUDE_CONFIG_DIR/projects``, else ``~/.claude/projects``. The store is only ever read.
The facts themselves are Claude Code's, so they live in the harness module; this is the
store layer's view of them.
"""

from termsprawl_context.harness.claude.facts import (  # noqa: F401  (the store layer's names)
    CONFIG_DIR_ENV,
    PROJECTS_SUBDIR,
    config_dir,
    encode_project_dir,
    project_dir,
    projects_dir,
    resolve_work_dir,
)

__all__ = ["CONFIG_DIR_ENV", "encode_project_dir", "projects_dir", "resolve_work_dir"]
