"""``locate``, ``assemble``, ``assemble-file`` and ``fresh``: argv in, one library call,
output out. Refusals (exit 1) and usage errors (exit 2) are raised for ``main``."""

import sys
from typing import List

from termsprawl_context.cli._args import add_projects_dir, command_parser, parse
from termsprawl_context._output import byte_sink, error_line, write_path
from termsprawl_context.errors import UsageError


def _require(value: str, command: str, name: str) -> str:
    if not value:
        raise UsageError("%s: %s must not be empty" % (command, name))
    return value


def _projects(explicit):
    from termsprawl_context.store import paths

    return paths.projects_dir(explicit)


def _session_uuid(name: str, projects: str, explicit) -> str:
    """``latest`` or a unique session-id prefix as the session's id (store/catalog.py);
    a store named on the command line must exist."""
    from termsprawl_context.store.catalog import require_store, resolve_uuid

    return resolve_uuid(name, require_store(projects, explicit))


def run_locate(argv: List[str]) -> int:
    parser = command_parser(
        "locate",
        "Print the canonical transcript holding a session or message uuid: among "
        "<projects>/*/*.jsonl that hold it (file name or a line's uuid), the one with the "
        "latest timestamp. Exit 1 if none does.",
    )
    parser.add_argument("uuid", help="a session or message uuid, a unique prefix of a session id, or latest")
    add_projects_dir(parser)
    args = parse(parser, argv)
    if args is None:
        return 0
    uuid = _require(args.uuid, "locate", "uuid")
    from termsprawl_context.store.locate import locate_or_refuse

    projects = _projects(args.projects_dir)
    path = locate_or_refuse(_session_uuid(uuid, projects, args.projects_dir), projects, sys.stderr)
    write_path(path)
    return 0


def run_assemble(argv: List[str]) -> int:
    parser = command_parser(
        "assemble",
        "Locate the canonical transcript of a uuid and print its messages (lines with a "
        "non-null uuid), deduplicated keep-last, ordered by (timestamp, first seen), as "
        "their original lines.",
    )
    parser.add_argument("uuid", help="a session or message uuid, a unique prefix of a session id, or latest")
    add_projects_dir(parser)
    args = parse(parser, argv)
    if args is None:
        return 0
    uuid = _require(args.uuid, "assemble", "uuid")
    from termsprawl_context.store.assemble import assemble

    projects = _projects(args.projects_dir)
    assemble(_session_uuid(uuid, projects, args.projects_dir), projects, byte_sink(), sys.stderr)
    sys.stdout.flush()
    return 0


def run_assemble_file(argv: List[str]) -> int:
    parser = command_parser(
        "assemble-file",
        "Print the messages of exactly this transcript file, as assemble does (no "
        "locate). Exit 1 if it is not a readable regular file.",
    )
    parser.add_argument("path")
    args = parse(parser, argv)
    if args is None:
        return 0
    path = _require(args.path, "assemble-file", "path")
    from termsprawl_context.store.harness_store import require_claude_record

    require_claude_record(path, "assemble-file")
    from termsprawl_context.store.assemble import assemble_file

    assemble_file(path, byte_sink(), sys.stderr)
    sys.stdout.flush()
    return 0


def run_fresh(argv: List[str]) -> int:
    parser = command_parser(
        "fresh",
        "Decline a transcript written to in the last 60 seconds: exit 9 with a warning; "
        "exit 0 if older (silent) or with --allow-in-progress (a note); exit 1 if it is "
        "not a regular file.",
    )
    parser.add_argument("path")
    parser.add_argument(
        "--allow-in-progress",
        action="store_true",
        help="read it anyway (the PreCompact capture path): a note instead of exit 9",
    )
    args = parse(parser, argv)
    if args is None:
        return 0
    path = _require(args.path, "fresh", "path")
    from termsprawl_context.store.freshness import check_fresh

    code, message = check_fresh(path, args.allow_in_progress)
    if message is not None:
        error_line(message)
    return code
