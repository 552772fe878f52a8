"""The ``termsprawl-context`` command: dispatch argv to one command and map its result.

Command modules are imported only when named, so the dump (the call agents make every
turn) pays for nothing else. Every command is ``run(argv) -> exit code``; a
``Refusal`` becomes one stderr line and its exit code; a closed stdout ends quietly.
"""

from __future__ import annotations

import sys

from termsprawl_context import __version__
from termsprawl_context.cli._io import PROG, error_line, silence_stdout

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import List, Optional

# name -> (module, function); each takes the argv after the command name.
COMMANDS = {
    "locate": ("termsprawl_context.cli.store_cmds", "run_locate"),
    "assemble": ("termsprawl_context.cli.store_cmds", "run_assemble"),
    "assemble-file": ("termsprawl_context.cli.store_cmds", "run_assemble_file"),
    "fresh": ("termsprawl_context.cli.store_cmds", "run_fresh"),
    "sessions": ("termsprawl_context.cli.session_cmds", "run_sessions"),
    "find": ("termsprawl_context.cli.session_cmds", "run_find"),
    "init": ("termsprawl_context.cli.project_cmds", "run_init"),
    "hook": ("termsprawl_context.cli.project_cmds", "run_hook"),
    "links": ("termsprawl_context.cli.project_cmds", "run_links"),
    "index": ("termsprawl_context.cli.project_cmds", "run_index"),
    "doctor": ("termsprawl_context.cli.project_cmds", "run_doctor"),
}

USAGE = """\
usage: {prog} --cwd DIR --self NODE
       {prog} COMMAND [ARGS...]   ({prog} COMMAND --help for each)
       {prog} --help | --version

Print the recent turns of the agents linked to NODE in the project at DIR.

commands:
  locate <uuid>               print the canonical transcript holding a session or message uuid
  assemble <uuid>             print its messages deduplicated, in time order
  assemble-file <path>        the same for one named transcript file
  fresh <path>                exit 9 if the transcript was written in the last 60 s
  sessions                    list the sessions in the harness's store
  find <id-or-prefix>         print one session's id and transcript path
  init                        install the command and discovery markers into a project
  hook                        record a session's transcript from a Claude Code hook payload
  links list|add|remove|peers manage links between nodes
  index get|set               read or write a node's transcript path
  doctor                      explain, peer by peer, what the dump sees
""".format(prog=PROG)


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        return _dispatch(args)
    except BrokenPipeError:
        silence_stdout()
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug of ours: one line, never a traceback
        from termsprawl_context.errors import EXIT_INTERNAL

        error_line("internal error: %s: %s" % (type(exc).__name__, exc))
        return EXIT_INTERNAL


def _dispatch(args: List[str]) -> int:
    from termsprawl_context.errors import Refusal

    if args in (["--help"], ["-h"]):
        sys.stdout.write(USAGE)
        return 0
    if args == ["--version"]:
        sys.stdout.write("%s %s\n" % (PROG, __version__))
        return 0
    try:
        if args and args[0] in COMMANDS:
            import importlib

            module_name, function = COMMANDS[args[0]]
            run = getattr(importlib.import_module(module_name), function)
            return run(args[1:])
        from termsprawl_context.cli.context import run_dump

        return run_dump(args)
    except Refusal as refusal:
        error_line(refusal.message)
        return refusal.exit_code
