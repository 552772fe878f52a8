"""``init`` and ``hook``: put the command into a project, and record a session's
transcript from Claude Code's hook payload.

``init`` exits 0 done, 1 a failure of the world (missing directory, unwritable file, not
run from the artifact, unusable settings file), 2 a directory inside another project.
``hook`` is run by Claude Code, so it always exits 0; its stdout is one JSON object in
Claude Code's hook output shape (or nothing), and a refusal is also one stderr line.
"""

import json
import os
import sys
from typing import List

from termsprawl_context._output import StdoutFailed, error_line, silence_stdout, write_out
from termsprawl_context.cli._args import project_dir
from termsprawl_context.cli.command import Spec, command, parse_command
from termsprawl_context.errors import EXIT_FAILURE, EXIT_OK, Refusal, UsageError

__all__ = ["HOOK", "INIT", "run_hook", "run_init"]

HOOK_PREFIX = "hook: "


# --- init -----------------------------------------------------------------------------------

_NEXT_WITH_HOOK = """\
next: give each terminal its own node id, once per shell (e.g. in ~/.bashrc):
        alias claude-alice='TERMSPRAWL_NODE_ID=alice claude'
        alias claude-bob='TERMSPRAWL_NODE_ID=bob claude'
      start `claude-alice` in one terminal and `claude-bob` in another: the SessionStart
      hook records each session (started from now on). Then:
        {cmd} links add alice bob       link two agents
        {cmd} doctor --self alice       see what alice's dump sees
      and each agent reads its peers with no prompt, from any directory inside the project:
        {abs_cmd}
"""

_NEXT_WITHOUT_HOOK = """\
next: record each agent's transcript: run `{cmd} init --hook` so Claude Code's
      SessionStart hook records it for agents started with TERMSPRAWL_NODE_ID=<node>,
      or by hand: {cmd} index set NODE /path/to/session.jsonl. Then:
        {cmd} links add alice bob       link two agents
        {cmd} doctor --self alice       see what alice's dump sees
"""


def _init_options(parser) -> None:
    from termsprawl_context.harness.gemini import SETTINGS_FILE as GEMINI_SETTINGS_FILE
    from termsprawl_context.workspace import install
    from termsprawl_context.workspace.discovery import CLAUDE_MD_FILE, CLAUDE_MD_IMPORT, gemini_md

    GEMINI_MD_FILE, GEMINI_MD_IMPORT = gemini_md()
    parser.add_argument(
        "--hook",
        action="store_true",
        help="register the SessionStart hook in DIR/%s (kept out of git)" % install.SETTINGS_FILE,
    )
    parser.add_argument(
        "--claude-md",
        action="store_true",
        help="add the line %s to DIR/%s (created if absent), so Claude Code reads the markers "
        "at launch" % (CLAUDE_MD_IMPORT, CLAUDE_MD_FILE),
    )
    parser.add_argument(
        "--codex-hook",
        action="store_true",
        help="register a SessionStart hook for Codex CLI in DIR/.codex/hooks.json (kept out of git; "
        "Codex runs it in a project whose hooks you trusted; no `[features]` entry is needed)",
    )
    parser.add_argument(
        "--agents-md",
        action="store_true",
        help="add the managed block to DIR/AGENTS.md (created if absent), which Codex CLI reads at "
        "launch: the one file outside .termsprawl/ init writes only when asked",
    )
    parser.add_argument(
        "--gemini-hook",
        action="store_true",
        help="register a SessionStart hook for Gemini CLI in DIR/%s (kept out of git; Gemini CLI "
        "runs project hooks only in a trusted folder)" % GEMINI_SETTINGS_FILE,
    )
    parser.add_argument(
        "--gemini-md",
        action="store_true",
        help="add the line %s to DIR/%s (created if absent), so Gemini CLI reads the markers "
        "at launch" % (GEMINI_MD_IMPORT, GEMINI_MD_FILE),
    )


INIT = Spec(
    "init",
    "Install the command, discovery markers and .gitignore into a project (with --hook, a Claude Code SessionStart "
    "hook that records transcripts; with --claude-md, an import of the markers into CLAUDE.md).",
    common=("cwd",),
    options=_init_options,
)


@command(INIT)
def run_init(args) -> int:
    from termsprawl_context.workspace import install
    from termsprawl_context.workspace.discovery import HANDOFF_ARGS

    cwd = project_dir(args.cwd, "init")
    extra = _prepare_harness_steps(cwd, args)
    report = install.init_project(cwd, install.running_artifact(), args.hook, args.claude_md)
    report = _harness_steps(report, extra, args)
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
    write_out(
        template.format(
            cmd=install.INSTALLED_COMMAND,
            abs_cmd=os.path.join(os.path.abspath(report.cwd), install.INSTALLED_COMMAND) + " " + HANDOFF_ARGS,
        )
    )
    if args.codex_hook:
        write_out(_NEXT_CODEX)
    if args.gemini_hook:
        write_out(_NEXT_GEMINI)
    return EXIT_OK


_NEXT_GEMINI = """gemini: the hook runs when Gemini CLI trusts this folder (it asks at the first start;
      GEMINI_CLI_TRUST_WORKSPACE=true for one headless run); start it from the project folder as
      `TERMSPRAWL_NODE_ID=dave gemini` and its sessions are nodes like any other.
"""


_NEXT_CODEX = """codex: the hook runs once Codex CLI trusts this project and its hooks (it asks at the first
      start; `codex exec --trust --dangerously-bypass-hook-trust` in scripts); start it
      as `TERMSPRAWL_NODE_ID=carol codex` and its sessions are nodes like any other.
"""


def _prepare_harness_steps(cwd: str, args) -> list:
    """The other harnesses' hook merges, checked before init writes anything."""
    if not (args.codex_hook or args.gemini_hook) or not os.path.isdir(cwd):
        return []
    from termsprawl_context.harness import CODEX_CLI, GEMINI_CLI, get
    from termsprawl_context.workspace.harness_install import prepare_hook

    wanted = [name for name, asked in ((CODEX_CLI, args.codex_hook), (GEMINI_CLI, args.gemini_hook)) if asked]
    return [prepare_hook(cwd, get(name)) for name in wanted]


def _harness_steps(report, prepared: list, args):
    """``report`` with the steps of ``--codex-hook`` and ``--agents-md`` added."""
    if not prepared and not args.agents_md and not args.gemini_md:
        return report
    from termsprawl_context.workspace import install
    from termsprawl_context.workspace.harness_install import register_harness_hook, write_root_agents_block

    steps = list(report.steps)
    installed = bool(steps) and steps[0].outcome != install.FAILED
    for one in prepared:
        steps.extend(register_harness_hook(report.cwd, one, installed))
    if args.agents_md:
        steps.append(write_root_agents_block(report.cwd))
    if args.gemini_md:
        steps.append(install.import_from_gemini_md(report.cwd))
    return report._replace(steps=steps)


# --- hook -----------------------------------------------------------------------------------


class NoPayload(Refusal):
    def __init__(self) -> None:
        super().__init__("expects a Claude Code hook payload (JSON) on stdin; nothing recorded")


def _hook_options(parser) -> None:
    from termsprawl_context.harness import KNOWN_HARNESSES
    from termsprawl_context.hooks import PROJECT_DIR_ENV

    parser.add_argument(
        "--cwd",
        metavar="DIR",
        help="the project (default: the installed command's own, else the project at or above "
        "$%s, else the payload's cwd)" % PROJECT_DIR_ENV,
    )
    parser.add_argument(
        "--harness",
        metavar="NAME",
        help="the agent CLI that runs the hook, one of %s (default: the one whose session store "
        "holds the payload's transcript_path, else Claude Code)" % ", ".join(KNOWN_HARNESSES),
    )


HOOK = Spec(
    "hook",
    "Record the session's transcript path for the node named by $TERMSPRAWL_NODE_ID, from a Claude Code "
    "SessionStart payload on stdin, and answer in Claude Code's hook JSON: the linked peers and the command that "
    "reads them for the model, a warning with the fix for the user. Always exits 0; stdout holds that one JSON "
    "object or nothing.",
    common=("projects-dir",),
    options=_hook_options,
)


def _answer_hook(text: str) -> None:
    """The hook's one JSON answer on stdout. A closed pipe, a full disk or a stdout closed
    before we started is told on stderr and the hook still exits 0 (what was recorded
    stands; the agent must not be broken by where its hook's stdout went)."""
    try:
        write_out(text)
    except BrokenPipeError:
        silence_stdout()
    except StdoutFailed as exc:
        silence_stdout()
        error_line(HOOK_PREFIX + (exc.strerror or str(exc)))


def run_hook(argv: List[str]) -> int:
    """Always 0: a hook must never break the agent. stdout carries only the JSON answer."""
    from termsprawl_context import hooks

    usage = None
    args = None
    try:
        args = parse_command(HOOK, argv)
        if args is None:
            return EXIT_OK
    except UsageError as error:  # told to the user like any other refusal, still exit 0
        usage = error

    def record():
        if usage is not None or args is None:
            raise usage or UsageError("no arguments parsed")
        stdin = getattr(sys.stdin, "buffer", None)
        if stdin is None or sys.stdin.isatty():
            raise NoPayload()
        return hooks.record_from_hook(stdin, os.environ, args.cwd, args.projects_dir, harness=args.harness)

    answer = hooks.session_start(record)
    if answer.output:
        # ASCII escapes: a path's undecodable bytes cannot break the one JSON object.
        _answer_hook(json.dumps(answer.output) + "\n")
    if answer.warning:
        message = answer.warning
        error_line(message if message.startswith(HOOK_PREFIX) else HOOK_PREFIX + message)
    return EXIT_OK
