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
from typing import List, Optional

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
    from termsprawl_context.workspace.discovery import CLAUDE_RULES_FILE, gemini_md

    GEMINI_MD_FILE, GEMINI_MD_IMPORT = gemini_md()
    parser.add_argument(
        "--hook",
        action="store_true",
        help="register the SessionStart hook in DIR/%s (kept out of git)" % install.SETTINGS_FILE,
    )
    parser.add_argument(
        "--claude-md",
        action="store_true",
        help="write the instruction block to DIR/%s, which Claude Code loads at launch from the project "
        "root or any folder below it, with no import to approve" % CLAUDE_RULES_FILE,
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
    from termsprawl_context.harness import available

    for harness in available():
        flags = " ".join("--" + name.replace("_", "-") for name in harness.init_options)
        parser.add_argument(
            "--" + harness.cli_option,
            action="store_true",
            dest="cli_" + harness.cli_option,
            help="wire %s: its hook and instruction import (%s); without any CLI option, init wires every "
            "supported CLI found here (its folder in the home directory, or `%s` on PATH)"
            % (harness.label, flags, harness.command),
        )
        parser.add_argument(
            "--no-" + harness.cli_option,
            action="store_true",
            dest="no_" + harness.cli_option,
            help="do not wire %s, even when it is found" % harness.label,
        )


INIT = Spec(
    "init",
    "Install the command, discovery markers and .gitignore into a project, and wire the agent CLIs: with no CLI "
    "option, every supported CLI found on this machine (--no-codex etc. leave one out); --claude, --codex, "
    "--gemini name them; --hook, --claude-md, --codex-hook, --agents-md, --gemini-hook, --gemini-md name one "
    "step each.",
    common=("cwd",),
    options=_init_options,
)


@command(INIT)
def run_init(args) -> int:
    from termsprawl_context.workspace import install
    from termsprawl_context.workspace.discovery import HANDOFF_ARGS

    cwd = project_dir(args.cwd, "init")
    wired = _choose_clis(args)
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
    if all(step.outcome == install.UNCHANGED for step in report.steps):
        write_out(_nothing_changed(wired))
        return EXIT_OK
    if wired is not None:
        write_out(_wired_line(wired))
    if wired:
        write_out(_next_for(wired, os.path.join(os.path.abspath(report.cwd), install.INSTALLED_COMMAND)))
        return EXIT_OK
    template = _NEXT_WITH_HOOK if report.hook or _claude_hook_in_place(report.cwd) else _NEXT_WITHOUT_HOOK
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


_STEP_OPTIONS = ("hook", "claude_md", "codex_hook", "agents_md", "gemini_hook", "gemini_md")


def _choose_clis(args) -> "Optional[list]":
    """The CLIs this run wires (their ``init_options`` set on ``args``), or None when the
    steps were named one by one (the options as before). No CLI option at all: every
    supported CLI found here (``Harness.found``), less those excluded."""
    from termsprawl_context.harness import available

    if any(getattr(args, name) for name in _STEP_OPTIONS):
        return None
    harnesses = available()
    named = [h for h in harnesses if getattr(args, "cli_" + h.cli_option)]
    if not named:
        named = [h for h in harnesses if not getattr(args, "no_" + h.cli_option) and h.found(os.environ)]
    for harness in named:
        for option in harness.init_options:
            setattr(args, option, True)
    return named


def _next_for(wired: list, command: str) -> str:
    """What the person does next, for the CLIs this run wired: start each terminal as a
    node (its CLI's own command), link two nodes, check one; then each CLI's trust steps."""
    from termsprawl_context.workspace.discovery import HANDOFF_ARGS
    from termsprawl_context.workspace.project import INSTALLED_COMMAND, start_command

    starts = ["        %s" % start_command(h.command, node) for h, node in zip(wired, ("alice", "bob", "carol"))]
    lines = (
        [
            "next: start each agent in its own terminal with its own node id, from the project folder, e.g.",
        ]
        + starts
        + [
            "      (sessions started from now on are recorded; one alias per node, e.g. in ~/.bashrc). Then:",
            "        %s links add alice bob       link two agents" % INSTALLED_COMMAND,
            "        %s doctor --self alice       see what alice's hand-off sees" % INSTALLED_COMMAND,
            "      and each agent reads its peers with: %s %s" % (command, HANDOFF_ARGS),
        ]
    )
    lines += ["%s: %s." % (h.command, h.setup_steps) for h in wired]
    return "\n".join(lines) + "\n"


def _wired_line(wired: list) -> str:
    if not wired:
        return (
            "found no supported agent CLI here (looked for ~/.claude, ~/.codex, ~/.gemini and claude, codex, gemini "
            "on PATH); name one: init --claude, --codex or --gemini\n"
        )
    return "wired: %s\n" % ", ".join(h.label for h in wired)


def _nothing_changed(wired: "Optional[list]") -> str:
    which = " for %s" % ", ".join(h.label for h in wired) if wired else ""
    return (
        "nothing changed: the project was already set up%s. Check a node with "
        "`termsprawl-context doctor --self NODE`.\n" % which
    )


def _claude_hook_in_place(cwd: str) -> bool:
    """Claude Code's hook is already registered (a plain ``init`` must not suggest it)."""
    from termsprawl_context.workspace.hook_settings import has_our_hook, load_settings

    try:
        hooks = load_settings(cwd).get("hooks", {})
    except Refusal:
        return False
    entries = hooks.get("SessionStart", []) if isinstance(hooks, dict) else []
    return isinstance(entries, list) and has_our_hook(entries)


_NEXT_GEMINI = """gemini: the hook runs when Gemini CLI trusts this folder (it asks at the first start;
      GEMINI_CLI_TRUST_WORKSPACE=true for one headless run); start it from the project folder as
      `TERMSPRAWL_NODE_ID=dave gemini` and its sessions are nodes like any other; it reads its
      peers with the trusted read-only tool read_peers (no prompt, headless or not).
"""


_NEXT_CODEX = """codex: the hook runs once Codex CLI trusts this project and its hooks (it asks at the first
      start; `codex exec --trust --dangerously-bypass-hook-trust` in scripts); start it
      as `TERMSPRAWL_NODE_ID=carol codex` and its sessions are nodes like any other.
"""


def _prepare_harness_steps(cwd: str, args) -> list:
    """The other harnesses' hook merges (and the root AGENTS.md), checked before init
    writes anything."""
    if args.agents_md and os.path.isdir(cwd):
        from termsprawl_context.workspace.harness_install import check_root_agents_block

        check_root_agents_block(cwd)
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
        super().__init__("expects an agent CLI's SessionStart hook payload (JSON) on stdin; nothing recorded")


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
    "Record the session's transcript path for the node named by $TERMSPRAWL_NODE_ID, from an agent CLI's "
    "SessionStart hook payload on stdin (Claude Code, Codex CLI, Gemini CLI: see --harness), and answer in that "
    "CLI's hook JSON: the linked peers and the command that reads them for the model, a warning with the fix for "
    "the user. Always exits 0; stdout holds that one JSON object or nothing.",
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

    answer = hooks.session_start(record, args.harness if args is not None else None)
    if answer.output:
        # ASCII escapes: a path's undecodable bytes cannot break the one JSON object.
        _answer_hook(json.dumps(answer.output) + "\n")
    if answer.warning:
        message = answer.warning
        error_line(message if message.startswith(HOOK_PREFIX) else HOOK_PREFIX + message)
    return EXIT_OK
