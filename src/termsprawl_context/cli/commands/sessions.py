import time
from typing import Any, List

from termsprawl_context._output import error_line, write_out
from termsprawl_context.cli.command import JSON_LIST, Spec, add_count, cell, command, json_line, stores
from termsprawl_context.model import SessionInfo
from termsprawl_context.store import catalog, paths
from termsprawl_context.store import sessions as store_sessions


# The table's title column is cut to this many characters so a row fits a terminal.
TITLE_COLUMN_WIDTH = 72


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
    for unit in ("B", "K", "M"):
        if value < 1024:
            return "%d%s" % (size, unit) if unit == "B" else "%.1f%s" % (value, unit)
        value /= 1024
    return "%.1fG" % value


def _cut(text: str, width: int) -> str:
    text = cell(text)
    return text if len(text) <= width else text[: width - 3] + "..."


def format_table(items: List[SessionInfo]) -> str:
    """The sessions as an aligned table, one row each, oldest first."""
    rows = [("ID", "MODIFIED", "SIZE", "TITLE")]
    for info in items:
        modified = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.mtime))
        rows.append((_cut(info.session_id, 40), modified, human_size(info.size), _cut(info.title, TITLE_COLUMN_WIDTH)))
    width = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = ["  ".join([a.ljust(width[0]), b.ljust(width[1]), c.rjust(width[2]), d]).rstrip() for a, b, c, d in rows]
    return "\n".join(lines) + "\n"


def _json_line(info: "Any") -> str:  # a SessionInfo, or another harness's (to_dict either way)
    return json_line(info.to_dict())


@command(SESSIONS)
def run_sessions(args) -> None:
    rows = []  # type: List[Any]
    for provider, store in stores(args, others_answer=False):
        # JSON lines are made while each session is described: in the helper processes too.
        result = store_sessions.scan_sessions(
            store, args.project, render=_json_line if args.json else None, provider=provider
        )
        catalog.report_skipped(result.skipped, "scan")
        rows += zip(result.sessions, result.rendered or [None] * len(result.sessions))
    rows.sort(key=lambda row: row[0].mtime)  # stable: each store's own order, the stores' in turn
    if args.limit:
        rows = rows[-args.limit :]  # oldest first
    if args.newest_first:
        rows.reverse()
    if not rows:  # no results: exit 0, nothing on stdout; stderr says where it looked
        projects_dir = paths.projects_dir(args.projects_dir)
        where = catalog.store_root(projects_dir, args.project)
        error_line("no sessions found in %s" % (where or "the store (no home directory)"))
        return
    write_out("".join(row[1] for row in rows) if args.json else format_table([row[0] for row in rows]))
