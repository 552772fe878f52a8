"""``init``: install the command and discovery markers into a project, and wire the agent CLIs.
Exit 0 done, 1 a failure of the world (no directory, an unwritable or unusable file, not run
from the artifact), 2 a directory inside another project."""

import os
from typing import Optional

from termsprawl_context._output import error_line, write_out
from termsprawl_context.cli.command import Spec, command, project_dir
from termsprawl_context.errors import EXIT_FAILURE, EXIT_OK
from termsprawl_context.harness import available
from termsprawl_context.workspace import harness_install, init_steps, install
from termsprawl_context.workspace.discovery import AGENTS_FILE, HANDOFF_ARGS, check_agents_block
from termsprawl_context.workspace.hook_settings import hook_registered
from termsprawl_context.workspace.layout import INSTALLED_COMMAND
from termsprawl_context.workspace.project import command_path, start_command


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
    harnesses = available()
    seen = set()
    for harness in harnesses:  # each CLI's steps: its hook (or its own file), its instruction import
        owned = harness.owned_option
        texts = harness.init_help(AGENTS_FILE.replace(os.sep, "/"))
        for i, option in enumerate(harness.init_options):
            if option in seen:  # AGENTS.md is read by several CLIs: one option
                continue
            seen.add(option)
            if option == owned:
                files = ", ".join("DIR/" + f[0] for f in harness.owned_files("."))
                text = (
                    "write %s, which records %s sessions (termsprawl's own file; another file there is "
                    "refused)" % (files, harness.label)
                )
            else:
                text = texts[i] if i < len(texts) else ""
                readers = [h.label for h in harnesses if option in h.init_options]
                if len(readers) > 1:  # one option for several CLIs (AGENTS.md): name each
                    text += "; read at launch by " + ", ".join(readers)
            parser.add_argument("--" + option.replace("_", "-"), action="store_true", help=text)
    for harness in harnesses:
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
    "option, every supported CLI found on this machine (--no-codex etc. leave one out); --claude, --codex etc. "
    "name CLIs (each with all its steps); --hook, --claude-md, --codex-hook, --agents-md etc. name one step each.",
    common=("cwd",),
    options=_init_options,
)


@command(INIT)
def run_init(args) -> int:
    cwd = project_dir(args.cwd, "init")
    harnesses = available()
    wired = _choose_clis(args, harnesses)
    # The hooks asked for, but the default one (``init_project`` writes its hook).
    hooks = [h for h in harnesses if h.hook_names_itself and h.hook_settings_file and getattr(args, h.init_options[0])]
    extra = _prepare_harness_steps(cwd, args, hooks)
    report = install.init_project(cwd, install.running_artifact(), args.hook, args.claude_md)
    report = _harness_steps(report, extra, args, harnesses)
    lines = ["termsprawl-context init: %s" % os.path.abspath(report.cwd)]
    width = max(len(o) for o in init_steps.OUTCOMES)
    for step in report.steps:
        detail = " (%s)" % step.detail if step.detail else ""
        lines.append("  %-*s  %s%s" % (width, step.outcome, step.path, detail))
    write_out("\n".join(lines) + "\n")
    if not report.ok:
        error_line("init: not every step succeeded (see above)")
        return EXIT_FAILURE
    if all(step.outcome == init_steps.UNCHANGED for step in report.steps):
        which = " for %s" % ", ".join(h.label for h in wired) if wired else ""
        write_out(
            "nothing changed: the project was already set up%s. Check a node with "
            "`termsprawl-context doctor --self NODE`.\n" % which
        )
        return EXIT_OK
    if wired:
        write_out("wired: %s\n" % ", ".join(h.label for h in wired))
        write_out(_next_for(wired, command_path(report.cwd)))
        return EXIT_OK
    if wired is not None:  # none found, none named
        options = ["--" + h.cli_option for h in harnesses]
        write_out(
            "found no supported agent CLI here (looked for %s in the home directory and on PATH); name one: init %s\n"
            % (", ".join(h.command for h in harnesses), ", ".join(options[:-1]) + " or " + options[-1])
        )
    # A plain ``init`` must not suggest the hook ``--hook`` registers when it is already there.
    in_place = report.hook or hook_registered(report.cwd, install.hook_harness())
    template = _NEXT_WITH_HOOK if in_place else _NEXT_WITHOUT_HOOK
    write_out(template.format(cmd=INSTALLED_COMMAND, abs_cmd=command_path(report.cwd) + " " + HANDOFF_ARGS))
    for harness in hooks:
        write_out(harness.hook_next_steps)
    return EXIT_OK


def _choose_clis(args, harnesses: list) -> "Optional[list]":
    """The CLIs this run wires (their ``init_options`` set on ``args``): those named, else
    every one found here less those excluded; None when steps were named one by one."""
    if any(getattr(args, name) for harness in harnesses for name in harness.init_options):
        return None
    named = [h for h in harnesses if getattr(args, "cli_" + h.cli_option)]
    if not named:
        named = [h for h in harnesses if not getattr(args, "no_" + h.cli_option) and h.found(os.environ)]
    for harness in named:
        for option in harness.init_options:
            setattr(args, option, True)
    return named


def _next_for(wired: list, command: str) -> str:
    """What the person does next: start each terminal as a node, link two, check one; each CLI's trust steps."""
    starts = ["        %s" % start_command(h.command, node) for h, node in zip(wired, ("alice", "bob", "carol"))]
    lines = ["next: start each agent in its own terminal with its own node id, from the project folder, e.g."]
    lines += starts + [
        "      (sessions started from now on are recorded; one alias per node, e.g. in ~/.bashrc). Then:",
        "        %s links add alice bob       link two agents" % INSTALLED_COMMAND,
        "        %s doctor --self alice       see what alice's hand-off sees" % INSTALLED_COMMAND,
        "      and each agent reads its peers with: %s %s" % (command, HANDOFF_ARGS),
    ]
    lines += ["%s: %s." % (h.command, h.setup_steps) for h in wired]
    return "\n".join(lines) + "\n"


def _prepare_harness_steps(cwd: str, args, wanted: list) -> list:
    """The other harnesses' hook merges (and the root AGENTS.md), checked before any write."""
    if args.agents_md and os.path.isdir(cwd):
        check_agents_block(cwd, harness_install.ROOT_AGENTS_FILE)  # ManagedBlockRefused before any write
    if not wanted or not os.path.isdir(cwd):
        return []
    return [harness_install.prepare_hook(cwd, harness) for harness in wanted]


def _harness_steps(report, prepared: list, args, harnesses: list):
    """``report`` with the steps of the other harnesses' hooks and instruction files added."""
    owning = [h for h in harnesses if h.owned_option and getattr(args, h.owned_option, False)]
    imports = [h for h in harnesses if h.import_option and getattr(args, h.import_option, False)]
    steps = list(report.steps)
    installed = bool(steps) and steps[0].outcome != init_steps.FAILED
    for one in prepared:
        steps.extend(harness_install.register_harness_hook(report.cwd, one, installed))
    if args.agents_md:
        steps.append(harness_install.write_root_agents_block(report.cwd))
    steps.extend(harness_install.write_instruction_import(report.cwd, h) for h in imports)
    for harness in owning if installed else ():
        steps.extend(harness_install.write_owned_files(report.cwd, harness))
        steps.extend(harness_install.merge_harness_config(report.cwd, harness))
    return report._replace(steps=steps)
