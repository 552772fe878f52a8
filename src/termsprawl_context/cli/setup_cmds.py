"""``init`` and ``hook``: put the command into a project, and record a session's
transcript from Claude Code's hook payload.

``init`` exits 0 done, 1 a failure of the world (missing directory, unwritable file, not
run from the artifact, unusable settings file). ``hook`` is run by Claude Code, so it
always exits 0, prints nothing on stdout, and says why on stderr when it recorded
nothing.
"""

import os
import sys
from typing import List

from termsprawl_context._output import error_line, write_out
from termsprawl_context.cli._args import add_cwd, add_projects_dir, command_parser, parse
from termsprawl_context.errors import EXIT_FAILURE, EXIT_OK, Refusal

HOOK_PREFIX = "hook: "


# --- init -----------------------------------------------------------------------------------

_NEXT_WITH_HOOK = """\
next: start each agent with its node id, e.g. `TERMSPRAWL_NODE_ID=alice claude`: the
      SessionStart hook records its transcript (sessions started from now on). Then:
        {cmd} links add alice bob       link two agents
        {cmd} doctor --self alice       see what alice's dump sees
      and either agent can run: {cmd} --cwd . --self "$TERMSPRAWL_NODE_ID"
"""

_NEXT_WITHOUT_HOOK = """\
next: record each agent's transcript: run `{cmd} init --hook` so Claude Code's
      SessionStart hook records it for agents started with TERMSPRAWL_NODE_ID=<node>,
      or by hand: {cmd} index set NODE /path/to/session.jsonl. Then:
        {cmd} links add alice bob       link two agents
        {cmd} doctor --self alice       see what alice's dump sees
"""


def run_init(argv: List[str]) -> int:
    from termsprawl_context.workspace import install

    parser = command_parser("init", "Install the command, discovery markers and .gitignore into a project "
                                     "(and, with --hook, a Claude Code SessionStart hook that records transcripts).")
    add_cwd(parser)
    parser.add_argument("--hook", action="store_true",
                        help="register the SessionStart hook in DIR/%s" % install.SETTINGS_FILE)
    args = parse(parser, argv)
    if args is None:
        return EXIT_OK
    report = install.init_project(args.cwd, install.running_artifact(), args.hook)
    lines = ["termsprawl-context init: %s" % os.path.abspath(report.cwd)]
    width = max(len(o) for o in (install.WRITTEN, install.UNCHANGED, install.FAILED, install.SKIPPED))
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


def run_hook(argv: List[str]) -> int:
    """Always 0: a hook must never break the agent. Silent on success."""
    try:
        _hook(argv)
    except Refusal as refusal:
        message = refusal.message
        error_line(message if message.startswith(HOOK_PREFIX) else HOOK_PREFIX + message)
    except Exception as exc:  # a bug of ours must not become the agent's problem either
        error_line("%sinternal error: %s: %s" % (HOOK_PREFIX, type(exc).__name__, exc))
    return EXIT_OK


def _hook(argv: List[str]) -> None:
    from termsprawl_context.hooks import PROJECT_DIR_ENV, record_from_hook

    parser = command_parser("hook", "Record the session's transcript path for the node named by "
                                     "$TERMSPRAWL_NODE_ID, from a Claude Code hook payload on stdin. "
                                     "Always exits 0; says why on stderr when nothing was recorded.")
    parser.add_argument("--cwd", metavar="DIR",
                        help="the project (default: $%s, else the payload's cwd)" % PROJECT_DIR_ENV)
    add_projects_dir(parser)
    args = parse(parser, argv)
    if args is None:
        return
    stdin = getattr(sys.stdin, "buffer", None)
    if stdin is None or sys.stdin.isatty():
        raise NoPayload()
    record_from_hook(stdin, os.environ, args.cwd, args.projects_dir)
