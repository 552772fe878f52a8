"""``locate``, ``assemble``, ``assemble-file`` and ``fresh``: argv in, one library call,
output out. Refusals (exit 1) and usage errors (exit 2) are raised for ``main``."""

import sys
from termsprawl_context._output import byte_sink, error_line, write_path
from termsprawl_context.cli.command import PATH, UUID, Spec, command

__all__ = [
    "ASSEMBLE",
    "ASSEMBLE_FILE",
    "FRESH",
    "LOCATE",
    "run_assemble",
    "run_assemble_file",
    "run_fresh",
    "run_locate",
]

LOCATE = Spec(
    "locate",
    "Print the canonical transcript holding a session or message uuid: among <projects>/*/*.jsonl that hold it "
    "(file name or a line's uuid), the one with the latest timestamp. Exit 1 if none does.",
    (UUID,),
    ("projects-dir",),
)
ASSEMBLE = Spec(
    "assemble",
    "Locate the canonical transcript of a uuid and print its messages (lines with a non-null uuid), deduplicated "
    "keep-last, ordered by (timestamp, first seen), as their original lines.",
    (UUID,),
    ("projects-dir",),
)
ASSEMBLE_FILE = Spec(
    "assemble-file",
    "Print the messages of exactly this transcript file, as assemble does (no locate). Exit 1 if it is not a "
    "readable regular file.",
    (PATH,),
)


def _allow_in_progress(parser) -> None:
    parser.add_argument(
        "--allow-in-progress",
        action="store_true",
        help="read it anyway (the PreCompact capture path): a note instead of exit 9",
    )


FRESH = Spec(
    "fresh",
    "Decline a transcript written to in the last 60 seconds: exit 9 with a warning; exit 0 if older (silent) or "
    "with --allow-in-progress (a note); exit 1 if it is not a regular file.",
    (PATH,),
    options=_allow_in_progress,
)


def _session_uuid(args):
    """``(uuid, projects dir)``: ``latest`` or a unique session-id prefix as the session's
    id (store/catalog.py); a store named on the command line must exist."""
    from termsprawl_context.cli.store_options import claude_store
    from termsprawl_context.store.catalog import resolve_uuid

    projects = claude_store(args)
    return resolve_uuid(args.uuid, projects), projects


@command(LOCATE)
def run_locate(args) -> int:
    from termsprawl_context.store.locate import locate_or_refuse

    uuid, projects = _session_uuid(args)
    write_path(locate_or_refuse(uuid, projects, sys.stderr))
    return 0


@command(ASSEMBLE)
def run_assemble(args) -> int:
    from termsprawl_context.store.assemble import assemble

    uuid, projects = _session_uuid(args)
    assemble(uuid, projects, byte_sink(), sys.stderr)
    sys.stdout.flush()
    return 0


@command(ASSEMBLE_FILE)
def run_assemble_file(args) -> int:
    from termsprawl_context.store.assemble import assemble_file
    from termsprawl_context.store.harness_store import require_claude_record

    require_claude_record(args.path, "assemble-file")
    assemble_file(args.path, byte_sink(), sys.stderr)
    sys.stdout.flush()
    return 0


@command(FRESH)
def run_fresh(args) -> int:
    from termsprawl_context.store.freshness import check_fresh

    code, message = check_fresh(args.path, args.allow_in_progress)
    if message is not None:
        error_line(message)
    return code
