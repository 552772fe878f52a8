"""The store a command reads, from its common options: ``--projects-dir`` (Claude
Code's store, which must exist when named), ``--project`` (which must name a
directory or a folder of the store) and ``--harness`` (which other stores)."""

import os
from typing import Any, List

from termsprawl_context.errors import NotFound

__all__ = ["claude_store", "other_harnesses", "resolve_session", "wants_claude"]


class ProjectNotFound(NotFound):
    """``--project DIR`` names neither a directory nor a folder of the store: a typo, not
    a project without sessions (that one is an empty answer)."""

    def __init__(self, project: str, store: str) -> None:
        super().__init__("project not found: %s (no such directory, and no sessions of it in %s)" % (project, store))


def claude_store(args: Any) -> str:
    """Claude Code's projects directory: refused when ``--projects-dir`` names one that is
    not there, or ``--project`` a directory that neither exists nor has a store folder."""
    from termsprawl_context.store import paths
    from termsprawl_context.store.catalog import require_store, store_root

    projects_dir = require_store(paths.projects_dir(args.projects_dir), args.projects_dir)
    project = getattr(args, "project", None)
    if project and projects_dir and not os.path.isdir(project):
        if not os.path.isdir(store_root(projects_dir, project)):
            raise ProjectNotFound(project, projects_dir)
    return projects_dir


def wants_claude(args: Any) -> bool:
    from termsprawl_context.store.catalog import reads_claude

    return reads_claude(args.harness)


def other_harnesses(args: Any) -> List[Any]:
    """The non-Claude harnesses to read: those --harness names, else (without
    --projects-dir, which names Claude Code's store) every one this build reads. A
    --project limits listings to Claude Code's folder for it, so it reads none."""
    from termsprawl_context.store.harness_store import chosen_harnesses

    if args.harness in (None, "all") and (args.projects_dir or getattr(args, "project", None)):
        return [] if args.harness is None else chosen_harnesses("all", include_claude=False)
    return chosen_harnesses(args.harness, include_claude=False)


def resolve_session(args: Any, name: str) -> Any:
    """The session ``name`` names (``store.catalog.resolve``) in the stores the options
    choose: Claude Code's first (a missing store or project refused, unless another
    harness's store may answer), then the others'."""
    from termsprawl_context.store import catalog

    others = [] if catalog.is_path(name) else other_harnesses(args)
    store = ""
    if wants_claude(args):
        try:
            store = claude_store(args)
        except NotFound:
            if not others:
                raise
    return catalog.resolve(name, store, getattr(args, "project", None), args.harness, others)
