"""What a command reads: the stores its common options choose (``--projects-dir``, which
must exist when named; ``--project``, a directory or a folder of the store; ``--harness``),
the session a name names in them, and the transcript PATH names."""

import os
from typing import Any, List

from termsprawl_context.errors import NotFound

STORE_OPTIONS = ("projects-dir", "project", "harness")  # the common options of a command reading every store


def native_store(args: Any) -> str:
    """The projects directory of the provider that takes --projects-dir: refused when
    --projects-dir names one that is not there, or --project a directory that neither
    exists nor has a store folder."""
    from termsprawl_context.store import paths
    from termsprawl_context.store.catalog import require_store, store_root

    projects_dir = require_store(paths.projects_dir(args.projects_dir), args.projects_dir)
    project = getattr(args, "project", None)
    if project and projects_dir and not os.path.isdir(project):
        if not os.path.isdir(store_root(projects_dir, project)):
            raise NotFound(
                "project not found: %s (no such directory, and no sessions of it in %s)" % (project, projects_dir)
            )
    return projects_dir


def store_of(args: Any, provider: Any) -> str:
    """The store ``provider`` reads: ``native_store`` for the one that takes --projects-dir,
    "" (its own) for every other."""
    return native_store(args) if provider.root_option else ""


def stores(args: Any, others_answer: bool = True) -> List[Any]:
    """``(provider, store)`` of each store to read ("": the provider's own): those --harness
    names, else every one this build reads; only the one that takes --projects-dir when
    --projects-dir or --project is given without --harness. A missing store or project is
    refused, unless ``others_answer`` and another harness's store may answer (then it is left out)."""
    from termsprawl_context.harness import chosen

    if args.harness is None and (args.projects_dir or getattr(args, "project", None)):
        from termsprawl_context.store.paths import ROOTED

        providers = [ROOTED]  # without loading every provider's module only to ask which takes the option
    else:
        providers = chosen(args.harness)
    found = []
    for provider in providers:
        try:
            found.append((provider, store_of(args, provider)))
        except NotFound:
            if not others_answer or len(providers) == 1:
                raise
    return found


def resolve_session(args: Any, name: str) -> Any:
    """The session ``name`` names (``store.catalog.resolve``) in the chosen stores."""
    from termsprawl_context.store import catalog, paths

    if catalog.is_path(name):
        if args.harness in (None, "all", paths.ROOTED.name):
            native_store(args)  # a store named on the command line must exist, a path read or not
        return catalog.resolve(name, "", harness=args.harness)
    chosen = stores(args)
    store = next((found for provider, found in chosen if provider.root_option), "")
    return catalog.resolve(name, store, getattr(args, "project", None), args.harness, [p for p, _ in chosen])


def session_uuid(args: Any) -> Any:
    """``(uuid, projects dir)``: ``latest`` or a unique session-id prefix as the session's id."""
    from termsprawl_context.store.catalog import resolve_uuid

    projects = native_store(args)
    return resolve_uuid(args.uuid, projects), projects


# --- the transcript at PATH -------------------------------------------------------------------


def provider_of(path: str) -> Any:
    """The provider that wrote the transcript at PATH, refusing a PATH that names no readable
    regular file (the open error, as the record reader words it) unless its provider holds a
    session there that is no file (OpenCode's database row)."""
    from termsprawl_context import harness
    from termsprawl_context.errors import RecordUnreadable
    from termsprawl_context.jsonl import open_regular

    found = harness.for_path(os.path.abspath(path))
    if not os.path.lexists(path) and found.session_stat(path) is not None:
        return found
    try:
        open_regular(path).close()
    except OSError as exc:
        raise RecordUnreadable.opening(path, exc) from None
    return found


def at_line(args: Any, command_name: str) -> int:
    """The checked ``LINE`` of an at-a-line command on a transcript of the native shape."""
    import json

    from termsprawl_context.cli._args import positive_int
    from termsprawl_context.errors import UsageError
    from termsprawl_context.harness import require_native_records

    line = positive_int(args.line)
    if line is None:
        raise UsageError("%s: LINE must be a positive whole number, not %s" % (command_name, json.dumps(args.line)))
    require_native_records(args.path, command_name)
    return line
