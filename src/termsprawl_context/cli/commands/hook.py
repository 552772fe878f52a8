"""``hook``: record a session's transcript from an agent CLI's SessionStart hook payload. Run by the
agent CLI, it always exits 0; stdout is one JSON object in that CLI's hook shape, or nothing."""

import json
import os
import sys
from typing import List

from termsprawl_context import hooks
from termsprawl_context._output import StdoutFailed, error_line, silence, write_out
from termsprawl_context.cli.command import Spec, parse_command
from termsprawl_context.errors import HookInputError, EXIT_OK, UsageError
from termsprawl_context.harness import KNOWN_HARNESSES


HOOK_PREFIX = "hook: "


def _hook_options(parser) -> None:
    parser.add_argument(
        "--cwd",
        metavar="DIR",
        help="the project (default: the installed command's own, else the project at or above "
        "$%s, else the payload's cwd)" % hooks.PROJECT_DIR_ENV,
    )
    parser.add_argument(
        "--harness",
        metavar="NAME",
        help="the agent CLI that runs the hook, one of %s (default: the one whose session store "
        "holds the payload's transcript_path, else Claude Code)" % ", ".join(KNOWN_HARNESSES),
    )


_HELP = (
    "Record the session's transcript path for the node named by $TERMSPRAWL_NODE_ID, from an agent CLI's "
    "SessionStart hook payload on stdin (Claude Code, Codex CLI, Gemini CLI: see --harness), and answer in that "
    "CLI's hook JSON: the linked peers and the command that reads them for the model, a warning with the fix for "
    "the user. Always exits 0; stdout holds that one JSON object or nothing."
)
HOOK = Spec("hook", _HELP, common=("projects-dir",), options=_hook_options)


def run_hook(argv: List[str]) -> int:
    """Always 0: a hook must never break the agent."""
    try:
        args = parse_command(HOOK, argv)
    except UsageError as error:  # told to the user like any other refusal, still exit 0
        args = error
    if args is None:
        return EXIT_OK

    def record():
        if isinstance(args, UsageError):
            raise args
        stdin = getattr(sys.stdin, "buffer", None)
        if stdin is None or sys.stdin.isatty():
            raise HookInputError("expects an agent CLI's SessionStart hook payload (JSON) on stdin; nothing recorded")
        return hooks.record_from_hook(stdin, os.environ, args.cwd, args.projects_dir, harness=args.harness)

    answer = hooks.session_start(record, getattr(args, "harness", None))
    if answer.output:
        # ASCII escapes: a path's undecodable bytes cannot break the one JSON object. A stdout
        # that cannot take it is told on stderr, and the hook still exits 0 (what was recorded stands).
        try:
            write_out(json.dumps(answer.output) + "\n")
        except BrokenPipeError:
            silence(sys.stdout)
        except StdoutFailed as exc:
            silence(sys.stdout)
            error_line(HOOK_PREFIX + (exc.strerror or str(exc)))
    if answer.warning:
        error_line(answer.warning if answer.warning.startswith(HOOK_PREFIX) else HOOK_PREFIX + answer.warning)
    return EXIT_OK
