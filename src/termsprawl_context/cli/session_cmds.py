"""``sessions`` and ``find``: list the store's sessions, resolve one by id or prefix."""

import json
import os
import time
from typing import Any, List

from termsprawl_context.cli._args import add_harness, add_projects_dir, command_parser, parse, positive_int
from termsprawl_context.errors import EXIT_FAILURE, UsageError
from termsprawl_context._output import encode_path, encode_text, error_line, terminal_safe, warn, write_bytes, write_out
from termsprawl_context.store import paths
from termsprawl_context.store import catalog, session_titles
from termsprawl_context.store import sessions as store_sessions

# The table's title column is cut to this many characters so a row fits a terminal.
TITLE_COLUMN_WIDTH = 72
_TABLE_HEADER = ("ID", "MODIFIED", "SIZE", "TITLE")
# Control characters in a title would move the cursor or recolour the terminal.


def _add_store_options(parser, project: bool) -> None:
    if project:
        parser.add_argument("--project", metavar="DIR", help="only the sessions run in this working directory")
    add_projects_dir(parser)
    add_harness(parser)
    parser.add_argument("--json", action="store_true", help="one JSON object per line, every field")


def _others(args) -> list:
    """The non-Claude harnesses to list (read_cmds' rule: --harness, else all of them
    unless --projects-dir or --project name Claude Code's store)."""
    from termsprawl_context.cli.read_cmds import _others as chosen

    return chosen(args)


def human_size(size: int) -> str:
    """``size`` bytes in a short human form: 512B, 1.5K, 12.3M, 2.0G."""
    value = float(size)
    for unit in ("B", "K", "M", "G"):
        if value < 1024 or unit == "G":
            return "%d%s" % (size, unit) if unit == "B" else "%.1f%s" % (value, unit)
        value /= 1024
    return "%dB" % size  # unreachable


def _cell(text: str, width: int) -> str:
    text = terminal_safe(text, stand_in="\ufffd")
    return text if len(text) <= width else text[: width - 3] + "..."


def format_table(items: List[store_sessions.SessionInfo]) -> str:
    """The sessions as an aligned table, one row each, oldest first."""
    rows = [_TABLE_HEADER]
    for info in items:
        rows.append(
            (
                _cell(info.session_id, 40),
                time.strftime("%Y-%m-%d %H:%M", time.localtime(info.mtime)),
                human_size(info.size),
                _cell(info.title, TITLE_COLUMN_WIDTH),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = [
        "  ".join([row[0].ljust(widths[0]), row[1].ljust(widths[1]), row[2].rjust(widths[2]), row[3]]).rstrip()
        for row in rows
    ]
    return "\n".join(lines) + "\n"


# One encoder for every line: ``json.dumps`` with options builds a new one per call,
# which a 10,000-session listing pays 10,000 times.
_JSON = json.JSONEncoder(ensure_ascii=False)


def _json_line(info: "Any") -> str:  # a SessionInfo, or another harness's (to_dict either way)
    return _JSON.encode(info.to_dict()) + "\n"


def run_sessions(argv: List[str]) -> int:
    parser = command_parser("sessions", "List the sessions in the harness's store, oldest first.")
    _add_store_options(parser, project=True)
    parser.add_argument("--limit", type=positive_int, metavar="N", help="only the N most recently modified")
    parser.add_argument("--newest-first", action="store_true", help="list the newest session first")
    args = parse(parser, argv)
    if args is None:
        return 0
    projects_dir = paths.projects_dir(args.projects_dir)
    others = _others(args)
    if args.harness in (None, "all", "claude-code"):
        # JSON lines are made while each session is described: in the helper processes too.
        result = store_sessions.scan_sessions(
            projects_dir, project=args.project, render=_json_line if args.json else None
        )
        catalog.report_skipped(result.skipped, "scan")
        found, lines = result.sessions, result.rendered or []
    else:
        found, lines = [], []
    if others:
        found, lines = _merge_other_sessions(found, lines, others, args.json)
    if args.limit:
        found, lines = found[-args.limit :], lines[-args.limit :]  # the scan is oldest first
    if args.newest_first:
        found.reverse()
        lines.reverse()
    if not found:
        where = catalog.project_store_dir(projects_dir, args.project) if args.project and projects_dir else projects_dir
        error_line("no sessions found in %s" % (where or "the store (no home directory)"))
        # A store named on the command line that is not there is an error, not an empty one.
        return EXIT_FAILURE if args.projects_dir and not os.path.isdir(projects_dir) else 0
    write_out("".join(lines) if args.json else format_table(found))
    return 0


def _merge_other_sessions(found, lines, others, json_out):
    """Claude Code's sessions and the other stores', oldest first by modification time
    (Claude Code's keep their order among themselves)."""
    from termsprawl_context.store.harness_store import describe

    extra = [describe(s) for s in catalog.other_sessions(others)]
    if not extra:
        return found, lines
    rows = [(info.mtime, 0, i, info, lines[i] if json_out else None) for i, info in enumerate(found)]
    rows += [(info.mtime, 1, i, info, _json_line(info) if json_out else None) for i, info in enumerate(extra)]
    rows.sort(key=lambda row: (row[0], row[1], row[2]))
    return [row[3] for row in rows], [row[4] for row in rows] if json_out else []


def _find_other(args, found: catalog.Resolved) -> int:
    """``find`` of another harness's session: the same two columns, or one JSON line."""
    from termsprawl_context.store.harness_store import HarnessSession, describe

    session_id, path = found.session_id, found.path
    if args.json:
        try:
            st = os.stat(path)
            mtime, size = st.st_mtime, st.st_size
        except OSError:
            mtime, size = 0.0, 0
        write_out(_json_line(describe(HarnessSession(found.harness, session_id, path, mtime, size))))
    else:
        write_bytes(encode_text(session_id + "\t") + encode_path(path) + b"\n")
    return 0


def run_find(argv: List[str]) -> int:
    parser = command_parser(
        "find", "Print the id and transcript path of the one session whose id is or starts with ID."
    )
    parser.add_argument("id", metavar="ID", help="a session id, a unique prefix of one, a path, or 'latest'")
    _add_store_options(parser, project=False)
    args = parse(parser, argv)
    if args is None:
        return 0
    if not args.id:
        raise UsageError("find: ID must not be empty")
    projects_dir = paths.projects_dir(args.projects_dir)
    try:
        found = catalog.resolve(args.id, projects_dir, None, args.harness, _others(args), args.projects_dir)
    except catalog.AmbiguousSession as refusal:
        error_line(str(refusal))  # the refusal, then every candidate file, one a line
        for line in catalog.candidates_message(refusal.candidates):
            warn(line)
        return refusal.exit_code
    if found.harness != catalog.CLAUDE_CODE:
        return _find_other(args, found)
    info, copies = store_sessions.describe_resolved(found, projects_dir)
    for line in catalog.copies_message(info.session_id, copies):
        warn(line)
    if args.json:
        write_out(_json_line(session_titles.with_session_title(info)))
    else:
        # The path is the answer: it keeps its bytes, so it names the real file.
        write_bytes(encode_text(info.session_id + "\t") + encode_path(info.transcript_path) + b"\n")
    return 0
