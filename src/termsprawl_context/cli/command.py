"""The command base: one declarative ``Spec`` per command (its arguments in one vocabulary,
the common options declared once here, what its ``--json`` prints), what the store options
and PATH name, and the one output path that keeps docs/cli.md's "The command-line contract".
The dump (``cli/context.py``) never imports this module: its strict argv parse is what makes
the narrow permission rules safe.
"""

import argparse
import json
import os
import sys
from typing import Any, Callable, Dict, Iterable, List, NamedTuple, Optional, Tuple

from termsprawl_context._output import PROG, Spool, encode_path, terminal_safe, terminal_safe_json, write_bytes
from termsprawl_context._output import write_out, write_transcript_text
from termsprawl_context.cli._args import positive_int
from termsprawl_context.errors import BadNodeId, InsideProject, NotFound, RecordUnreadable, UsageError
from termsprawl_context.harness import KNOWN_HARNESSES


class CommandParser(argparse.ArgumentParser):
    """argparse to the house contract: a usage error is a ``UsageError`` (one line, exit 2), ``--help`` exits 0."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError("%s: %s" % (self.prog.split(" ", 1)[-1], message))

    def exit(self, status: int = 0, message: Optional[str] = None) -> None:  # type: ignore[override]
        if status:
            raise UsageError((message or "usage error").strip())
        sys.stdout.flush()  # --help was printed: a stdout that cannot take it fails here, not at exit
        raise SystemExit(0)  # ``parse_command`` returns None


class Arg(NamedTuple):
    """A positional argument; ``required``: an empty value is refused."""

    dest: str
    metavar: str
    help: str
    required: bool = True


# One word for each thing a command is given, in every usage line and docs/cli.md.
PATH = Arg("path", "PATH", "a transcript (.jsonl) file")
SESSION = Arg("session", "SESSION", "a session id, a unique prefix of one, a path, or 'latest'")
UUID = Arg("uuid", "UUID", "a session or message uuid, a unique prefix of a session id, or 'latest'")
NODE = Arg("node", "NODE", "a node id")
LINE = Arg("line", "LINE", "a 1-based physical line of PATH")
# A node id ``require_ids`` checks (an empty one is an invalid node id, exit 2).
ANY_NODE = NODE._replace(required=False)

# What ``--json`` prints, as its help says it: a list answer, or one thing.
JSON_LIST = "print JSON Lines: one object per line, one line per item"
JSON_ONE = "print the answer as one JSON object on one line"


def option(*flags: str, **kwargs: Any) -> Callable[[Any], None]:
    """``Spec.options`` for a command whose own option is one ``add_argument`` call."""
    return lambda parser: parser.add_argument(*flags, **kwargs)


# The common options, declared once: the name a Spec gives -> what adds it.
COMMON: Dict[str, Callable[[Any], None]] = {
    "cwd": option(
        "--cwd", metavar="DIR", help="the project directory (default: the project found from here, see docs/setup.md)"
    ),
    "projects-dir": option(
        "--projects-dir",
        metavar="DIR",
        help="the harness's projects directory (default: $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects)",
    ),
    "project": option("--project", metavar="DIR", help="only the sessions run in this working directory"),
    "harness": option(
        "--harness",
        metavar="NAME",
        help="only this agent CLI's store: %s, or all (default: the stores of every harness present; with "
        "--projects-dir, Claude Code's)" % ", ".join(KNOWN_HARNESSES),
    ),
}


class Spec(NamedTuple):
    """One command (or one action of ``links`` / ``index``): ``options`` adds its own options
    to the parser; ``actions`` are its sub-commands (chosen as ``args.action``)."""

    name: str
    description: str
    args: Tuple[Arg, ...] = ()
    common: Tuple[str, ...] = ()
    json: str = ""
    options: Optional[Callable[[Any], None]] = None
    actions: Tuple["Spec", ...] = ()


def _fill(parser, spec: Spec) -> None:
    for arg in spec.args:
        parser.add_argument(arg.dest, metavar=arg.metavar, help=arg.help)
    for name in spec.common:
        COMMON[name](parser)
    if spec.options is not None:
        spec.options(parser)
    if spec.json:
        parser.add_argument("--json", action="store_true", help=spec.json)
    if spec.actions:
        sub = parser.add_subparsers(dest="action", metavar="|".join(a.name for a in spec.actions))
        sub.required = True
        for action in spec.actions:
            _fill(sub.add_parser(action.name, help=action.description, description=action.description), action)


def parse_command(spec: Spec, argv: List[str]) -> Optional[Any]:
    """The parsed namespace (None after --help), its required positional arguments non-empty."""
    # No abbreviations: `--allow` must not silently mean `--allow-in-progress`.
    parser = CommandParser(prog="%s %s" % (PROG, spec.name), description=spec.description, allow_abbrev=False)
    _fill(parser, spec)
    try:
        args = parser.parse_args(argv)
    except SystemExit:  # only ``CommandParser.exit`` raises it, after --help
        return None
    chosen = spec
    if spec.actions:
        chosen = next(a for a in spec.actions if a.name == args.action)
    for arg in chosen.args:
        if arg.required and not getattr(args, arg.dest):
            name = spec.name + (" " + chosen.name if chosen is not spec else "")
            raise UsageError("%s: %s must not be empty" % (name, arg.metavar))
    return args


def command(spec: Spec) -> Callable[[Callable[[Any], Optional[int]]], Callable[[List[str]], int]]:
    """``body(args) -> exit code`` (None: 0) as the registry's ``run(argv) -> exit code`` (0 after --help)."""

    def make(body: Callable[[Any], Optional[int]]) -> Callable[[List[str]], int]:
        def run(argv: List[str]) -> int:
            args = parse_command(spec, argv)
            return 0 if args is None else body(args) or 0

        run.__name__, run.__doc__ = body.__name__, body.__doc__
        return run

    return make


def require_ids(command: str, *values: str) -> None:
    """Refuse a value that is not a safe node id (``BadNodeId``, exit 2)."""
    from termsprawl_context.workspace.ids import SAFE_ID_SHOWN, is_safe_id, shown_id

    for value in values:
        if not is_safe_id(value):
            raise BadNodeId(
                "%s: invalid node id: %s (a node id matches %s)" % (command, shown_id(value), SAFE_ID_SHOWN)
            )


def project_dir(cwd: Optional[str], command: str, writing: bool = False) -> str:
    """``--cwd``, else the project found (the installed command's own, else the nearest at or above here),
    else ``.``; a writing command refuses one inside another project: it would start a nested one."""
    from termsprawl_context.workspace.project import default_project, enclosing_project

    chosen = cwd if cwd is not None else (default_project() or ".")
    if writing:
        outer = enclosing_project(chosen)
        if outer:
            raise InsideProject(command, chosen, outer)
    return chosen


def _positive_int(value: str) -> int:
    number = positive_int(value)
    if number is None:
        raise argparse.ArgumentTypeError("expected a positive integer, got '%s'" % value)
    return number


def add_count(parser, flag: str, what: str, default: Optional[int] = None) -> None:
    shown = " (default %d)" % default if default is not None else ""
    parser.add_argument(flag, type=_positive_int, default=default, metavar="N", help=what + shown)


# --- what a command reads: the stores its common options choose (``--projects-dir``, which must exist when
# named; ``--project``, a directory or a folder of the store; ``--harness``), the session a name names in
# them, and the transcript PATH names ----------------------------------------------------------------------

STORE_OPTIONS = ("projects-dir", "project", "harness")  # the common options of a command reading every store


def native_store(args: Any) -> str:
    """The projects directory of the provider that takes --projects-dir: refused when it is not there,
    or when --project names a directory that neither exists nor has a store folder."""
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
    """The store ``provider`` reads: ``native_store`` if it takes --projects-dir, else "" (its own)."""
    return native_store(args) if provider.root_option else ""


def stores(args: Any, others_answer: bool = True) -> List[Any]:
    """``(provider, store)`` of each store to read ("": the provider's own): those --harness names, else
    every one this build reads (only the one that takes --projects-dir when that or --project is given
    without --harness). A missing store or project is refused, unless ``others_answer`` and another may answer."""
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


def provider_of(path: str) -> Any:
    """The provider that wrote the transcript at PATH, refusing one that is no readable regular file (the
    record reader's words) unless its provider holds a session there that is no file (a database row)."""
    from termsprawl_context import harness
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
    from termsprawl_context.harness import require_native_records

    line = positive_int(args.line)
    if line is None:
        raise UsageError("%s: LINE must be a positive whole number, not %s" % (command_name, json.dumps(args.line)))
    require_native_records(args.path, command_name)
    return line


# --- output -----------------------------------------------------------------------------------

# One encoder for every line: ``json.dumps`` with options builds a new one per call,
# which a 10,000-session listing pays 10,000 times.
_JSON = json.JSONEncoder(ensure_ascii=False)


def json_line(value: Any) -> str:
    """``value`` as one terminal-safe JSON line (non-ASCII kept, no raw control)."""
    return terminal_safe_json(_JSON.encode(value)) + "\n"


def print_list(
    as_json: bool, items: Iterable[Any], to_json: Callable[[Any], Any], to_text: Callable[[Any], Any]
) -> int:
    """Print a list answer as it is made, one ``json_line(to_json(item))`` or ``to_text(item)``
    (str, or bytes written as they are: a path's own) per item; the count printed."""
    out = Spool()
    count = 0
    for item in items:
        text = json_line(to_json(item)) if as_json else to_text(item)
        out.add_bytes(text) if isinstance(text, bytes) else out.add(text)
        count += 1
    out.flush()
    return count


def print_one(as_json: bool, data: Any, text: Any) -> None:
    """One answer: ``data`` (or what calling it returns) as a JSON line, else ``text`` (bytes as they are; "": none)."""
    if as_json:
        write_out(json_line(data() if callable(data) else data))
    elif isinstance(text, bytes):
        write_bytes(text)
    elif text:
        write_out(text)


def path_line(path: str) -> bytes:
    return encode_path(path) + b"\n"


def print_text(text: str) -> None:
    """Transcript text as the answer, ending in a newline."""
    write_transcript_text(text if text.endswith("\n") else text + "\n")


_CELL_SPACES = frozenset("\t\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


def _cell_stand_in(code: int) -> str:
    return " " if chr(code) in _CELL_SPACES else "\ufffd"


def cell(text: str) -> str:
    """Text in one cell of a row: line breaks and tabs become spaces, any other control a terminal acts on U+FFFD."""
    return terminal_safe(text, stand_in=_cell_stand_in, line_breaks=True)
