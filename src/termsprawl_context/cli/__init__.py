"""The ``termsprawl-context`` command: dispatch argv to one command and map its result.

Command modules are imported only when named, so the dump (the call agents make every
turn) pays for nothing else. Every command is ``run(argv) -> exit code``; a
``Refusal`` becomes one stderr line and its exit code; a closed stdout ends quietly.
"""

from __future__ import annotations

import sys
from collections import namedtuple

from termsprawl_context import __version__
from termsprawl_context._output import PROG, StdoutFailed, error_line, guard_standard_streams, silence_stdout, write_out

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import List, Optional


class Command(namedtuple("Command", "module function synopsis summary")):
    """A registry row: where the command lives, and how the usage text names it."""

    __slots__ = ()


# name -> Command; each function takes the argv after the command name. Imported only
# when named, so the dump pays for none of them. The usage text is made from this table.
COMMANDS = {
    "locate": Command(
        "termsprawl_context.cli.store_cmds",
        "run_locate",
        "locate UUID",
        "print the canonical transcript holding a session or message uuid",
    ),
    "assemble": Command(
        "termsprawl_context.cli.store_cmds",
        "run_assemble",
        "assemble UUID",
        "print its messages deduplicated, in time order",
    ),
    "assemble-file": Command(
        "termsprawl_context.cli.store_cmds",
        "run_assemble_file",
        "assemble-file PATH",
        "the same for one named transcript file",
    ),
    "fresh": Command(
        "termsprawl_context.cli.store_cmds",
        "run_fresh",
        "fresh PATH",
        "exit 9 if the transcript was written in the last 60 s",
    ),
    "sessions": Command(
        "termsprawl_context.cli.session_cmds", "run_sessions", "sessions", "list the sessions in the harness's store"
    ),
    "find": Command(
        "termsprawl_context.cli.session_cmds",
        "run_find",
        "find SESSION",
        "print one session's id and transcript path",
    ),
    "subagents": Command(
        "termsprawl_context.cli.record_cmds",
        "run_subagents",
        "subagents PATH [--tree]",
        "print the sub-agent records a transcript dispatched",
    ),
    "root": Command(
        "termsprawl_context.cli.record_cmds",
        "run_root",
        "root PATH",
        "print the root record of a transcript's session",
    ),
    "parent": Command(
        "termsprawl_context.cli.record_cmds",
        "run_parent",
        "parent PATH",
        "print the record that dispatched a sub-agent",
    ),
    "identity": Command(
        "termsprawl_context.cli.record_cmds",
        "run_identity",
        "identity PATH",
        "print the stable id of a transcript's conversation",
    ),
    "belongs": Command(
        "termsprawl_context.cli.record_cmds",
        "run_belongs",
        "belongs PATH --session SESSION|--tree DIR",
        "check a transcript against a session id or a working tree",
    ),
    "relocate": Command(
        "termsprawl_context.cli.record_cmds",
        "run_relocate",
        "relocate PATH",
        "print where a reported transcript path really is",
    ),
    "entries": Command(
        "termsprawl_context.cli.record_cmds",
        "run_entries",
        "entries PATH [--calls] [--ran]",
        "print a transcript's entries or tool calls with their lines",
    ),
    "show": Command(
        "termsprawl_context.cli.read_cmds",
        "run_show",
        "show SESSION",
        "print one session's own conversation (id, prefix, path or latest)",
    ),
    "search": Command(
        "termsprawl_context.cli.read_cmds",
        "run_search",
        "search TEXT",
        "find text across sessions, newest first, as PATH:LINE",
    ),
    "init": Command(
        "termsprawl_context.cli.setup_cmds",
        "run_init",
        "init",
        "install the command and discovery markers into a project",
    ),
    "hook": Command(
        "termsprawl_context.cli.setup_cmds",
        "run_hook",
        "hook",
        "record a session's transcript from a Claude Code hook payload",
    ),
    "links": Command(
        "termsprawl_context.cli.state_cmds", "run_links", "links list|add|remove|peers", "manage links between nodes"
    ),
    "index": Command(
        "termsprawl_context.cli.state_cmds", "run_index", "index get|set", "read or write a node's transcript path"
    ),
    "doctor": Command(
        "termsprawl_context.cli.doctor_cmds", "run_doctor", "doctor", "explain, peer by peer, what the dump sees"
    ),
    "cite": Command(
        "termsprawl_context.cli.cite_cmds",
        "run_cite",
        "cite PATH QUOTE [options]",
        "ground a quote in exactly one entry; print PATH:LINE",
    ),
    "result-at": Command(
        "termsprawl_context.cli.cite_cmds",
        "run_result_at",
        "result-at PATH LINE",
        "print the genuine tool output at a line",
    ),
    "envelope-at": Command(
        "termsprawl_context.cli.cite_cmds",
        "run_envelope_at",
        "envelope-at PATH LINE",
        "print the whole AskUserQuestion answer envelopes at a line",
    ),
    "agents": Command(
        "termsprawl_context.cli.cite_cmds",
        "run_agents",
        "agents PATH",
        "print the background sub-agents still running",
    ),
    "query": Command(
        "termsprawl_context.cli.cite_cmds",
        "run_query",
        "query PATH --where EXPR [--sidechains]",
        "print the entries an expression holds for",
    ),
}

_USAGE_HEAD = """\
usage: {prog} --cwd DIR --self NODE
       {prog} COMMAND [ARGS...]   ({prog} COMMAND --help for each)
       {prog} --help | --version | help COMMAND

Print the recent turns of the agents linked to NODE in the project at DIR.

commands:
"""


def usage() -> str:
    """The top-level help, one line per registered command."""
    width = max(len(command.synopsis) for command in COMMANDS.values()) + 2
    rows = ["  %s%s\n" % (command.synopsis.ljust(width), command.summary) for command in COMMANDS.values()]
    return _USAGE_HEAD.format(prog=PROG) + "".join(rows)


HELP_COMMAND = "help"


def unknown_command(name: str) -> str:
    """The refusal of a word that names no command, with the nearest one if any."""
    import difflib

    close = difflib.get_close_matches(name, list(COMMANDS) + [HELP_COMMAND], n=1, cutoff=0.7)
    return "unknown command '%s'%s" % (name, " (did you mean %s?)" % close[0] if close else "")


def _help(args: List[str]) -> int:
    """``help`` prints the usage; ``help COMMAND`` is ``COMMAND --help``."""
    from termsprawl_context.errors import UsageError

    if not args:
        write_out(usage())
        return 0
    if len(args) > 1:
        raise UsageError("help: expected one command, got %d" % len(args))
    if args[0] not in COMMANDS:
        raise UsageError(unknown_command(args[0]))
    import importlib

    command = COMMANDS[args[0]]
    return getattr(importlib.import_module(command.module), command.function)(["--help"])


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    guard_standard_streams()
    try:
        return _dispatch(args)
    except BrokenPipeError:
        silence_stdout()
        return 0
    except StdoutFailed as exc:
        return _stdout_failed(exc)
    except KeyboardInterrupt:
        from termsprawl_context.errors import EXIT_INTERRUPTED

        return EXIT_INTERRUPTED
    except Exception as exc:  # a bug of ours: one line, never a traceback
        from termsprawl_context.errors import EXIT_INTERNAL

        error_line("internal error: %s: %s" % (type(exc).__name__, exc))
        return EXIT_INTERNAL


def _stdout_failed(exc: StdoutFailed) -> int:
    """One stderr line for an answer that could not be written; the interpreter's own
    flush at exit is pointed at /dev/null so it does not fail a second time."""
    from termsprawl_context.errors import EXIT_OUTPUT_FAILED

    silence_stdout()
    error_line(exc.strerror or str(exc))
    return EXIT_OUTPUT_FAILED


def _dispatch(args: List[str]) -> int:
    from termsprawl_context.errors import Refusal

    if args in (["--help"], ["-h"]):
        write_out(usage())
        return 0
    if args == ["--version"]:
        write_out("%s %s\n" % (PROG, __version__))
        return 0
    try:
        if args and args[0] == HELP_COMMAND:
            return _help(args[1:])
        if args and args[0] not in COMMANDS and not args[0].startswith("-"):
            # The dump takes only options: a first word is a command, mistyped.
            from termsprawl_context.errors import UsageError

            raise UsageError(unknown_command(args[0]))
        if args and args[0] in COMMANDS:
            import importlib

            command = COMMANDS[args[0]]
            run = getattr(importlib.import_module(command.module), command.function)
            return run(args[1:])
        from termsprawl_context.cli.context import run_dump

        try:
            return run_dump(args)
        except StdoutFailed as exc:
            _stdout_failed(exc)
            return 0  # the dump fails open, even when its answer cannot be written
    except Refusal as refusal:
        error_line(refusal.message)
        return refusal.exit_code
