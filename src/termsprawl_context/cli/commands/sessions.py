"""``sessions``: list the sessions in the harness's store."""

import time
from typing import Any, List

from termsprawl_context._output import error_line
from termsprawl_context.cli.command import JSON_LIST, Spec, add_count, cell, command, json_line, print_one
from termsprawl_context.cli.store_options import native_store, other_harnesses
from termsprawl_context.store import catalog, paths
from termsprawl_context.store import sessions as store_sessions


# The table's title column is cut to this many characters so a row fits a terminal.
TITLE_COLUMN_WIDTH = 72
_TABLE_HEADER = ("ID", "MODIFIED", "SIZE", "TITLE")


def _listing_options(parser) -> None:
    add_count(parser, "--limit", "only the N most recently modified")
    parser.add_argument("--newest-first", action="store_true", help="list the newest session first")


SESSIONS = Spec(
    "sessions",
    "List the sessions in the harness's store, oldest first.",
    common=("project", "projects-dir", "harness"),
    json=JSON_LIST,
    options=_listing_options,
)


def human_size(size: int) -> str:
    """``size`` bytes in a short human form: 512B, 1.5K, 12.3M, 2.0G."""
    value = float(size)
    for unit in ("B", "K", "M", "G"):
        if value < 1024 or unit == "G":
            return "%d%s" % (size, unit) if unit == "B" else "%.1f%s" % (value, unit)
        value /= 1024
    return "%dB" % size  # unreachable


def _cut(text: str, width: int) -> str:
    text = cell(text)
    return text if len(text) <= width else text[: width - 3] + "..."


def format_table(items: List[store_sessions.SessionInfo]) -> str:
    """The sessions as an aligned table, one row each, oldest first."""
    rows = [_TABLE_HEADER]
    for info in items:
        rows.append(
            (
                _cut(info.session_id, 40),
                time.strftime("%Y-%m-%d %H:%M", time.localtime(info.mtime)),
                human_size(info.size),
                _cut(info.title, TITLE_COLUMN_WIDTH),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = [
        "  ".join([row[0].ljust(widths[0]), row[1].ljust(widths[1]), row[2].rjust(widths[2]), row[3]]).rstrip()
        for row in rows
    ]
    return "\n".join(lines) + "\n"


def _json_line(info: "Any") -> str:  # a SessionInfo, or another harness's (to_dict either way)
    return json_line(info.to_dict())


@command(SESSIONS)
def run_sessions(args) -> int:
    others = other_harnesses(args)
    projects_dir = paths.projects_dir(args.projects_dir)
    found, lines = [], []  # type: List[Any], List[str]
    if catalog.reads_seed_store(args.harness):
        # JSON lines are made while each session is described: in the helper processes too.
        projects_dir = native_store(args)
        result = store_sessions.scan_sessions(
            projects_dir, project=args.project, render=_json_line if args.json else None
        )
        catalog.report_skipped(result.skipped, "scan")
        found, lines = result.sessions, result.rendered or []
    if others:
        found, lines = _merge_other_sessions(found, lines, others, args.json)
    if args.limit:
        found, lines = found[-args.limit :], lines[-args.limit :]  # the scan is oldest first
    if args.newest_first:
        found.reverse()
        lines.reverse()
    if not found:  # no results: exit 0, nothing on stdout; stderr says where it looked
        where = catalog.project_store_dir(projects_dir, args.project) if args.project else projects_dir
        error_line("no sessions found in %s" % (where or "the store (no home directory)"))
        return 0
    print_one(False, None, "".join(lines) if args.json else format_table(found))
    return 0


def _merge_other_sessions(found, lines, others, json_out):
    """The native store's sessions and the other stores', oldest first by modification
    time (the native ones keep their order among themselves)."""
    from termsprawl_context.harness import get

    extra = [get(s.harness).describe(s.path, s.mtime, s.size, s.session_id) for s in catalog.other_sessions(others)]
    if not extra:
        return found, lines
    rows = [(info.mtime, 0, i, info, lines[i] if json_out else None) for i, info in enumerate(found)]
    rows += [(info.mtime, 1, i, info, _json_line(info) if json_out else None) for i, info in enumerate(extra)]
    rows.sort(key=lambda row: (row[0], row[1], row[2]))
    return [row[3] for row in rows], [row[4] for row in rows] if json_out else []
