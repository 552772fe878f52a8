"""The ``termsprawl-context`` command: dispatch argv to one command and map its result.

Command modules are imported only when named; the dump (the call agents make every turn) is
dispatched before the registry is read, and nothing on its path builds a class at import (no
namedtuple, no ``from __future__``): each costs its start. A command is ``run(argv) -> exit
code``; a ``Refusal`` becomes one stderr line and its exit code; a closed stdout ends quietly.
"""

import sys

from termsprawl_context import __version__
from termsprawl_context._output import PROG, StdoutFailed, error_line, guard_standard_streams, silence, write_out

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import List, Optional, Tuple


# name -> (synopsis, summary): constant data, read only when a command is named or the
# usage is printed (the usage text is made from this table). Command NAME's module is
# cli/commands/NAME.py and its function run_NAME (a dash in NAME an underscore).
COMMANDS = {
    "locate": ("locate UUID", "print the canonical transcript holding a session or message uuid"),
    "assemble": ("assemble UUID", "print its messages deduplicated, in time order"),
    "assemble-file": ("assemble-file PATH", "the same for one named transcript file"),
    "fresh": ("fresh PATH", "exit 9 if the transcript was written in the last 60 s"),
    "sessions": ("sessions", "list the sessions in the harness's store"),
    "find": ("find SESSION", "print one session's id and transcript path"),
    "subagents": ("subagents PATH [--tree]", "print the sub-agent records a transcript dispatched"),
    "root": ("root PATH", "print the root record of a transcript's session"),
    "parent": ("parent PATH", "print the record that dispatched a sub-agent"),
    "identity": ("identity PATH", "print the stable id of a transcript's conversation"),
    "belongs": (
        "belongs PATH --session SESSION|--tree DIR",
        "check a transcript against a session id or a working tree",
    ),
    "relocate": ("relocate PATH", "print where a reported transcript path really is"),
    "entries": ("entries PATH [--calls] [--ran]", "print a transcript's entries or tool calls with their lines"),
    "show": ("show SESSION", "print one session's own conversation (id, prefix, path or latest)"),
    "search": ("search TEXT", "find text across sessions, newest first, as PATH:LINE"),
    "init": ("init", "install the command and discovery markers into a project"),
    "hook": ("hook", "record a session's transcript from an agent CLI's SessionStart hook payload"),
    "mcp": ("mcp", "serve the hand-off as a read-only MCP tool on stdio (Gemini CLI)"),
    "links": ("links list|add|remove|peers", "manage links between nodes"),
    "index": ("index get|set", "read or write a node's transcript path"),
    "doctor": ("doctor", "explain, peer by peer, what the dump sees"),
    "cite": ("cite PATH QUOTE [options]", "ground a quote in exactly one entry; print PATH:LINE"),
    "result-at": ("result-at PATH LINE", "print the genuine tool output at a line"),
    "envelope-at": ("envelope-at PATH LINE", "print the whole AskUserQuestion answer envelopes at a line"),
    "agents": ("agents PATH", "print the background sub-agents still running"),
    "query": ("query PATH --where EXPR [--sidechains]", "print the entries an expression holds for"),
}


def command_target(name: str) -> "Tuple[str, str]":
    """The module and function (taking the argv after the name) of the command ``name``."""
    stem = name.replace("-", "_")
    return "termsprawl_context.cli.commands." + stem, "run_" + stem


_USAGE_HEAD = """\
usage: {prog} --cwd DIR --self NODE [--format markdown|json] [--turns N] [--max-chars N]
       {prog} COMMAND [ARGS...]   ({prog} COMMAND --help for each)
       {prog} --help | --version | help COMMAND

Print the recent turns of the agents linked to NODE in the project at DIR.
--cwd defaults to the project found from here, --self to $TERMSPRAWL_NODE_ID.
The hand-off (any of its options): each peer's own conversation, not harness text.
  --format markdown|json   its rendering (default markdown)
  --turns N                the last N turns of each peer (default 40), plus its last prompts and answer
  --max-chars N            all peers' text together, shared fairly (default 20000)

commands:
"""


def _collect_garbage() -> None:
    """The garbage collector back on if the artifact's launcher turned it off while modules loaded (each
    collection would walk them again); what is loaded is frozen, so collections walk what the work made."""
    import gc

    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def main(argv: "Optional[List[str]]" = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    guard_standard_streams()
    # The dump takes only options (--help or --version with more words too: it refuses them).
    dump = not args or args[0].startswith("-") and args not in (["--help"], ["-h"], ["--version"])
    try:
        if dump:  # the call made every turn: run before the registry is read
            from termsprawl_context.cli.context import run_dump

            _collect_garbage()
            return run_dump(args)
        return _dispatch(args)
    except BrokenPipeError:
        silence(sys.stdout)
        return 0
    except (KeyboardInterrupt, Exception) as exc:  # one line, never a traceback
        from termsprawl_context import errors  # here only: the dump's path never loads it

        if isinstance(exc, KeyboardInterrupt):
            return errors.EXIT_INTERRUPTED
        if isinstance(exc, StdoutFailed):  # the flush at exit goes to /dev/null, not to fail twice
            silence(sys.stdout)
            error_line(exc.strerror or str(exc))
            return 0 if dump else errors.EXIT_OUTPUT_FAILED  # the dump fails open, its answer unwritten too
        if isinstance(exc, errors.Refusal):
            error_line(exc.message)
            return exc.exit_code
        error_line("internal error: %s: %s" % (type(exc).__name__, exc))  # a bug of ours
        return errors.EXIT_INTERNAL


def _dispatch(args: "List[str]") -> int:
    """Every argv but the dump's: the usage, the version, a command or ``help COMMAND``."""
    if args in (["--help"], ["-h"], ["help"]):
        width = max(len(synopsis) for synopsis, _ in COMMANDS.values()) + 2
        rows = ["  %s%s\n" % (synopsis.ljust(width), summary) for synopsis, summary in COMMANDS.values()]
        write_out(_USAGE_HEAD.format(prog=PROG) + "".join(rows))
        return 0
    if args == ["--version"]:
        write_out("%s %s\n" % (PROG, __version__))
        return 0
    from termsprawl_context.errors import UsageError

    asked = args[0] == "help"  # ``help COMMAND`` is ``COMMAND --help``
    if asked and len(args) > 2:
        raise UsageError("help: expected one command, got %d" % (len(args) - 1))
    name = args[1] if asked else args[0]
    if name not in COMMANDS:  # the dump takes only options: a first word is a command, mistyped
        import difflib

        close = difflib.get_close_matches(name, list(COMMANDS) + ["help"], n=1, cutoff=0.7)
        raise UsageError("unknown command '%s'%s" % (name, " (did you mean %s?)" % close[0] if close else ""))
    import importlib

    module, function = command_target(name)
    run = getattr(importlib.import_module(module), function)
    _collect_garbage()
    return run(["--help"] if asked else args[1:])
