"""Standalone commands: ``init``, ``hook``, ``links``, ``index``, ``doctor``.

Each parses argv, calls one library function (``workspace.install``, ``hooks``, ``workspace.links``,
``workspace.index``, ``doctor``) and prints. Exit codes: 0 done; 1 a failure
of the world (missing directory, unwritable file, no index entry, not run from the
artifact, unusable settings file); 2 a usage error, including an unsafe node id
(``BAD_ID``) or a node linked to itself (``SELF``). ``hook`` is the exception: it is run
by Claude Code, so it always exits 0, prints nothing on stdout, and says why on stderr
when it recorded nothing.
"""

import json
import os
import sys
from typing import List

from termsprawl_context.cli._args import command_parser, parse
from termsprawl_context.cli._io import error_line, write_out
from termsprawl_context.errors import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, NotFound, Refusal, UsageError

# Link error codes (workspace.links) -> exit codes: a bad id or a self link is the
# command line's fault, a write failure the world's.
LINK_ERROR_EXIT = {"BAD_ID": EXIT_USAGE, "SELF": EXIT_USAGE, "IO": EXIT_FAILURE}

HOOK_PREFIX = "hook: "


def _json_out(value: object) -> None:
    write_out(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


def _shown_id(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


class BadIdArgument(UsageError):
    """A node id given on the command line cannot be a node id (BAD_ID)."""

    code = "BAD_ID"

    def __init__(self, command: str, value: str) -> None:
        from termsprawl_context.workspace.ids import SAFE_ID_SHOWN

        super().__init__("%s: invalid node id: %s (a node id matches %s)" % (command, _shown_id(value), SAFE_ID_SHOWN))


def _require_ids(command: str, *values: str) -> None:
    from termsprawl_context.workspace.ids import is_safe_id

    for value in values:
        if not is_safe_id(value):
            raise BadIdArgument(command, value)


# --- init -----------------------------------------------------------------------------------

_NEXT_WITH_HOOK = """\
next: give each terminal its own node id, once per shell (e.g. in ~/.bashrc):
        alias claude-alice='TERMSPRAWL_NODE_ID=alice claude'
        alias claude-bob='TERMSPRAWL_NODE_ID=bob claude'
      start `claude-alice` in one terminal and `claude-bob` in another: the SessionStart
      hook records each session (started from now on). Then:
        {cmd} links add alice bob       link two agents
        {cmd} doctor --self alice       see what alice's dump sees
      and each agent can run (from any directory): {cmd}
"""

_NEXT_WITHOUT_HOOK = """\
next: record each agent's transcript: run `{cmd} init --hook` so Claude Code's
      SessionStart hook records it for agents started with TERMSPRAWL_NODE_ID=<node>,
      or by hand: {cmd} index set NODE /path/to/session.jsonl. Then:
        {cmd} links add alice bob       link two agents
        {cmd} doctor --self alice       see what alice's dump sees
"""


class InsideProject(UsageError):
    """A writing command was pointed at a directory inside an existing project."""

    def __init__(self, command: str, cwd: str, outer: str) -> None:
        super().__init__("%s: %s lies inside the project %s (it has .termsprawl/); use --cwd %s, or omit "
                         "--cwd to use it from anywhere inside" % (command, cwd, outer, outer))


def project_dir(cwd: object, command: str, writing: bool = False) -> str:
    """``--cwd`` as given, else the project found (the installed command's own, else the
    nearest at or above the working directory), else ``.``. A writing command refuses a
    directory that lies inside another project: it would start a nested one."""
    from termsprawl_context.workspace.project import default_project, enclosing_project

    chosen = cwd if isinstance(cwd, str) else (default_project() or ".")
    if writing:
        outer = enclosing_project(chosen)
        if outer:
            raise InsideProject(command, chosen, outer)
    return chosen


def run_init(argv: List[str]) -> int:
    from termsprawl_context.workspace import install
    from termsprawl_context.workspace.discovery import CLAUDE_MD_FILE, CLAUDE_MD_IMPORT

    parser = command_parser("init", "Install the command, discovery markers and .gitignore into a project "
                                     "(with --hook, a Claude Code SessionStart hook that records transcripts; "
                                     "with --claude-md, an import of the markers into CLAUDE.md).")
    parser.add_argument("--cwd", metavar="DIR",
                        help="the project directory (default: the project at or above the working directory, "
                             "else the working directory)")
    parser.add_argument("--hook", action="store_true",
                        help="register the SessionStart hook in DIR/%s (kept out of git)" % install.SETTINGS_FILE)
    parser.add_argument("--claude-md", action="store_true",
                        help="add the line %s to DIR/%s (created if absent), so Claude Code reads the markers "
                             "at launch" % (CLAUDE_MD_IMPORT, CLAUDE_MD_FILE))
    args = parse(parser, argv)
    if args is None:
        return EXIT_OK
    cwd = project_dir(args.cwd, "init")
    report = install.init_project(cwd, install.running_artifact(), args.hook, args.claude_md)
    lines = ["termsprawl-context init: %s" % os.path.abspath(report.cwd)]
    width = max(len(o) for o in install.OUTCOMES)
    for step in report.steps:
        detail = " (%s)" % step.detail if step.detail else ""
        lines.append("  %-*s  %s%s" % (width, step.outcome, step.path, detail))
    write_out("\n".join(lines) + "\n")
    if not report.ok:
        error_line("init: not every step succeeded (see above)")
        return EXIT_FAILURE
    template = _NEXT_WITH_HOOK if report.hook else _NEXT_WITHOUT_HOOK
    write_out(template.format(cmd=install.INSTALLED_COMMAND))
    return EXIT_OK


# --- hook -----------------------------------------------------------------------------------


class NoPayload(Refusal):
    def __init__(self) -> None:
        super().__init__("expects a Claude Code hook payload (JSON) on stdin; nothing recorded")


def _hook_parser():
    from termsprawl_context.hooks import PROJECT_DIR_ENV

    parser = command_parser("hook", "Record the session's transcript path for the node named by "
                                     "$TERMSPRAWL_NODE_ID, from a Claude Code SessionStart payload on stdin, "
                                     "and answer in Claude Code's hook JSON: the linked peers and the command "
                                     "that reads them for the model, a warning with the fix for the user. "
                                     "Always exits 0; stdout holds that one JSON object or nothing.")
    parser.add_argument("--cwd", metavar="DIR",
                        help="the project (default: the installed command's own, else the project at or above "
                             "$%s, else the payload's cwd)" % PROJECT_DIR_ENV)
    parser.add_argument("--projects-dir", metavar="DIR",
                        help="the harness's projects dir (default: $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects)")
    return parser


def run_hook(argv: List[str]) -> int:
    """Always 0: a hook must never break the agent. stdout carries only the JSON answer."""
    from termsprawl_context import hooks

    try:
        args = parse(_hook_parser(), argv)
    except UsageError as error:
        args = error
    if args is None:
        return EXIT_OK

    def record():
        if isinstance(args, UsageError):
            raise args
        stdin = getattr(sys.stdin, "buffer", None)
        if stdin is None or sys.stdin.isatty():
            raise NoPayload()
        return hooks.record_from_hook(stdin, os.environ, args.cwd, args.projects_dir)

    answer = hooks.session_start(record)
    if answer.output:
        # ASCII escapes: a path's undecodable bytes cannot break the one JSON object.
        write_out(json.dumps(answer.output) + "\n")
    if answer.warning:
        message = answer.warning
        error_line(message if message.startswith(HOOK_PREFIX) else HOOK_PREFIX + message)
    return EXIT_OK


# --- links ----------------------------------------------------------------------------------


_CWD_HELP = "the project directory (default: the project found from here, see the README)"


def _common(parser) -> None:
    parser.add_argument("--cwd", metavar="DIR", help=_CWD_HELP)
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def _links_parser():
    parser = command_parser("links", "List, add or remove links between nodes, or list a node's peers. "
                                      "Exit 2 for an invalid node id (BAD_ID) or a node linked to itself "
                                      "(SELF), 1 when the link file cannot be written (IO).")
    sub = parser.add_subparsers(dest="action", metavar="list|add|remove|peers")
    sub.required = True
    _common(sub.add_parser("list", help="every valid link (ignored link files are named on stderr)"))
    for name, text in (("add", "link A and B (idempotent; refreshes the discovery markers)"),
                       ("remove", "remove the link between A and B")):
        action = sub.add_parser(name, help=text, description=text)
        action.add_argument("a", metavar="A")
        action.add_argument("b", metavar="B")
        _common(action)
    peers = sub.add_parser("peers", help="the nodes linked to ID")
    peers.add_argument("node", metavar="ID")
    _common(peers)
    return parser


def run_links(argv: List[str]) -> int:
    args = parse(_links_parser(), argv)
    if args is None:
        return EXIT_OK
    args.cwd = project_dir(args.cwd, "links " + args.action, writing=args.action == "add")
    return {"list": _links_list, "add": _links_add, "remove": _links_remove, "peers": _links_peers}[args.action](args)


def _links_list(args) -> int:
    from termsprawl_context.workspace.links import scan_link_files

    files = scan_link_files(args.cwd)
    valid = [f for f in files if f.pair is not None]
    ignored = [f.name for f in files if f.pair is None]
    if args.json:
        _json_out({"links": [{"a": f.pair.a, "b": f.pair.b, "path": f.path} for f in valid], "ignored": ignored})
        return EXIT_OK
    if valid:
        write_out("".join("%s -- %s\n" % (f.pair.a, f.pair.b) for f in valid))
    if ignored:
        error_line("links list: ignored (not valid link files): %s" % ", ".join(ignored))
    return EXIT_OK


def _links_add(args) -> int:
    from termsprawl_context.workspace.discovery import ensure_context_discovery
    from termsprawl_context.workspace.links import LinkError, add_link

    _require_ids("links add", args.a, args.b)
    try:
        path = add_link(args.cwd, args.a, args.b)
    except LinkError as error:
        error_line("links add: %s" % error.message)
        return LINK_ERROR_EXIT.get(error.code, EXIT_FAILURE)
    ensure_context_discovery(args.cwd)  # as the app does when a link is added
    if args.json:
        _json_out({"linked": sorted([args.a, args.b]), "path": path})
    else:
        write_out("linked %s and %s (%s)\n" % (args.a, args.b, os.path.relpath(path, args.cwd)))
    return EXIT_OK


def _links_remove(args) -> int:
    from termsprawl_context.workspace.links import SelfLink, link_file_path, peers_of, remove_link

    _require_ids("links remove", args.a, args.b)
    if args.a == args.b:
        error_line("links remove: %s" % SelfLink().message)
        return LINK_ERROR_EXIT[SelfLink.code]
    removed = remove_link(args.cwd, args.a, args.b)
    # A hand-written file naming the same pair under another name keeps them linked.
    still = args.b in peers_of(args.cwd, args.a)
    if args.json:
        _json_out({"removed": removed, "a": args.a, "b": args.b, "still_linked": still})
    elif removed:
        write_out("removed the link between %s and %s\n" % (args.a, args.b))
    else:
        write_out("no link file %s (nothing to remove)\n" % os.path.relpath(link_file_path(args.cwd, args.a, args.b),
                                                                             args.cwd))
    if still:
        error_line("links remove: another file in .termsprawl/links still links %s and %s "
                   "(see `termsprawl-context links list --json`)" % (args.a, args.b))
    return EXIT_OK


def _links_peers(args) -> int:
    from termsprawl_context.workspace.links import peers_of

    _require_ids("links peers", args.node)
    peers = peers_of(args.cwd, args.node)
    if args.json:
        _json_out({"node": args.node, "peers": peers})
    elif peers:
        write_out("".join(peer + "\n" for peer in peers))
    return EXIT_OK


# --- index ----------------------------------------------------------------------------------


class NoIndexEntry(NotFound):
    def __init__(self, cwd: str, node: str) -> None:
        super().__init__("index get: no transcript path recorded for %s in %s" % (node, cwd))


class EmptyPath(UsageError):
    def __init__(self) -> None:
        super().__init__("index set: the transcript path is empty")


class IndexWriteFailed(Refusal):
    def __init__(self, cwd: str, node: str) -> None:
        from termsprawl_context.workspace.files import STATE_DIR, TRANSCRIPTS_DIR

        super().__init__("index set: cannot write %s under %s" % (
            os.path.join(STATE_DIR, TRANSCRIPTS_DIR, node + ".json"), cwd))


def _index_parser():
    parser = command_parser("index", "Read or write the transcript path recorded for a node.")
    sub = parser.add_subparsers(dest="action", metavar="get|set")
    sub.required = True
    get = sub.add_parser("get", help="print the path recorded for NODE (exit 1 when none)")
    get.add_argument("node", metavar="NODE")
    get.add_argument("--cwd", metavar="DIR", help=_CWD_HELP)
    text = ("record PATH as NODE's transcript, as given: a relative PATH is taken from the project "
            "directory when read, not from where this runs")
    put = sub.add_parser("set", help=text, description=text)
    put.add_argument("node", metavar="NODE")
    put.add_argument("path", metavar="PATH")
    put.add_argument("--cwd", metavar="DIR", help=_CWD_HELP)
    return parser


def run_index(argv: List[str]) -> int:
    from termsprawl_context.workspace.index import read_transcript_path, record_transcript_path, resolve_transcript_path

    args = parse(_index_parser(), argv)
    if args is None:
        return EXIT_OK
    args.cwd = project_dir(args.cwd, "index " + args.action, writing=args.action == "set")
    _require_ids("index " + args.action, args.node)
    if args.action == "get":
        recorded = read_transcript_path(args.cwd, args.node)
        if recorded is None:
            raise NoIndexEntry(args.cwd, args.node)
        write_out(recorded + "\n")
        return EXIT_OK
    if not args.path:
        raise EmptyPath()
    if not record_transcript_path(args.cwd, args.node, args.path):
        raise IndexWriteFailed(args.cwd, args.node)
    if not os.path.isfile(resolve_transcript_path(args.cwd, args.path)):
        error_line("index set: note: %s is not a file (yet); recorded anyway" % args.path)
    return EXIT_OK


# --- doctor ---------------------------------------------------------------------------------


def run_doctor(argv: List[str]) -> int:
    from termsprawl_context.doctor import diagnose, report_json, setup_notes
    from termsprawl_context.workspace.project import NODE_ID_ENV, default_self

    parser = command_parser("doctor", "Explain, peer by peer, what `termsprawl-context --cwd DIR --self NODE` "
                                       "sees and why it prints what it prints. Exit 0 whatever the verdict.")
    parser.add_argument("--cwd", metavar="DIR", help=_CWD_HELP)
    parser.add_argument("--self", dest="self_id", metavar="NODE",
                        help="the node whose dump to explain (default: $%s)" % NODE_ID_ENV)
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parse(parser, argv)
    if args is None:
        return EXIT_OK
    args.cwd = project_dir(args.cwd, "doctor")
    self_id = default_self(args.self_id, os.environ, "doctor")
    if self_id is None:
        raise UsageError("doctor: give --self NODE (or set $%s)" % NODE_ID_ENV)
    report = diagnose(args.cwd, self_id)
    notes = setup_notes(args.cwd, self_id)
    if args.json:
        _json_out(dict(report_json(report), notes=notes))
    else:
        # The notes go just above the verdict, which stays the last line.
        head, _, last = format_doctor(report).rstrip("\n").rpartition("\n")
        write_out("".join(line + "\n" for line in [head] + ["note: " + n for n in notes] + [last]))
    return EXIT_OK


def _yes_no(value: bool, yes: str, no: str) -> str:
    return yes if value else no


def format_doctor(report) -> str:
    from termsprawl_context.transcript.turns import MAX_LINKED_TURNS
    from termsprawl_context.doctor import NO_INDEX_ENTRY, REASONS, verdict

    lines = ["project: %s%s" % (os.path.abspath(report.cwd),
                                "" if report.state_dir else " (no .termsprawl folder)")]
    lines.append("self: %s (%s)" % (_shown_id(report.self_id),
                                    _yes_no(report.self_safe, "a safe node id", "NOT a safe node id")))
    if report.self_safe:
        lines.append("self's own transcript: %s" % (
            report.self_recorded if report.self_recorded else "not recorded (peers' dumps cannot show this node)"))
    lines.append("links: %d valid link file%s, %d naming self" % (
        report.link_files, "" if report.link_files == 1 else "s", len(report.peers)))
    if report.invalid_link_files:
        lines.append("ignored link files (not valid links): %s" % ", ".join(report.invalid_link_files))
    for p in report.peers:
        title = "title %s%s" % (_shown_id(p.title), "" if p.title_from_project else " (none in project.json; the id)")
        lines.append("peer %s (via %s), %s" % (p.peer, p.link_file, title))
        if p.recorded is None:
            lines.append("  index: %s: %s" % (p.index_file, "invalid" if p.outcome != NO_INDEX_ENTRY else "absent"))
        else:
            shown = p.recorded if p.recorded == p.path else "%s -> %s" % (p.recorded, p.path)
            lines.append("  index: %s: %s" % (p.index_file, shown))
            lines.append("  file: %s, %s, %s" % (_yes_no(p.exists, "exists", "does not exist"),
                                                 _yes_no(p.regular, "regular file", "not a regular file"),
                                                 _yes_no(p.readable, "readable", "not readable")))
            if p.readable:
                count = "%d (the cap: older turns are not printed)" % MAX_LINKED_TURNS if p.more_turns else str(p.turns)
                lines.append("  printable turns: %s" % count)
        lines.append("  => %s" % REASONS[p.outcome])
    lines.append("verdict: %s" % verdict(report))
    return "\n".join(lines) + "\n"
