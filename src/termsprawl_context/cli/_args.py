"""argparse for the sub-commands, made to fit the house contract: a usage error is one
stderr line and exit 2 (raised as ``UsageError``), ``--help`` prints and exits 0."""

import argparse
from typing import List, Optional

from termsprawl_context._output import PROG
from termsprawl_context.errors import InsideProject, UsageError


class CommandParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError("%s: %s" % (self.prog.split(" ", 1)[-1], message))

    def exit(self, status: int = 0, message: Optional[str] = None) -> None:  # type: ignore[override]
        if status:
            raise UsageError((message or "usage error").strip())
        raise SystemExit(0)  # --help was printed: ``parse`` returns None


def command_parser(command: str, description: str) -> CommandParser:
    # No abbreviations: `--allow` must not silently mean `--allow-in-progress`.
    return CommandParser(prog="%s %s" % (PROG, command), description=description, allow_abbrev=False)


def parse(parser: CommandParser, argv: List[str]) -> Optional[argparse.Namespace]:
    """The parsed namespace, or None when --help was shown (the caller returns 0)."""
    try:
        return parser.parse_args(argv)
    except SystemExit:  # only ``exit`` above raises it, after --help
        return None


PROJECTS_DIR_HELP = "the harness's projects directory (default: $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects)"


def add_projects_dir(parser: argparse.ArgumentParser) -> None:
    """The one ``--projects-dir DIR`` option every store-reading command takes."""
    parser.add_argument("--projects-dir", metavar="DIR", help=PROJECTS_DIR_HELP)


def add_harness(parser: argparse.ArgumentParser, what: str = "the stores of every harness present") -> None:
    """``--harness NAME``: which agent CLI's store to read (default: %s)."""
    from termsprawl_context.harness import KNOWN_HARNESSES

    parser.add_argument(
        "--harness",
        metavar="NAME",
        help="only this agent CLI's store: %s, or all (default: %s; with --projects-dir, "
        "Claude Code's)" % (", ".join(KNOWN_HARNESSES), what),
    )


def positive_int(value: str) -> int:
    """argparse type: a whole number of at least 1, in plain ASCII digits."""
    if not (value.isdigit() and value.isascii() and int(value) > 0):
        raise argparse.ArgumentTypeError("expected a positive integer, got '%s'" % value)
    return int(value)


def add_cwd(parser: argparse.ArgumentParser) -> None:
    """``--cwd DIR``, the project directory; absent, ``project_dir`` finds it."""
    parser.add_argument(
        "--cwd", metavar="DIR", help="the project directory (default: the project found from here, see docs/setup.md)"
    )


def require_ids(command: str, *values: str) -> None:
    """Refuse a value that is not a safe node id (``BadNodeId``, exit 2)."""
    from termsprawl_context.errors import BadNodeId
    from termsprawl_context.workspace.ids import SAFE_ID_SHOWN, is_safe_id, shown_id

    for value in values:
        if not is_safe_id(value):
            raise BadNodeId(
                "%s: invalid node id: %s (a node id matches %s)" % (command, shown_id(value), SAFE_ID_SHOWN)
            )


def project_dir(cwd: Optional[str], command: str, writing: bool = False) -> str:
    """``--cwd`` as given, else the project found (the installed command's own, else the
    nearest at or above the working directory), else ``.``. A writing command refuses a
    directory that lies inside another project: it would start a nested one."""
    from termsprawl_context.workspace.project import default_project, enclosing_project

    chosen = cwd if cwd is not None else (default_project() or ".")
    if writing:
        outer = enclosing_project(chosen)
        if outer:
            raise InsideProject(command, chosen, outer)
    return chosen
