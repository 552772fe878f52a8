"""Recording a session's transcript from an agent CLI's hook (the desktop app does it by
itself): the payload checked against the harness's store, the node's index entry and
discovery markers written, and the answer the CLI shows: a context line for the model, a
title for a new session, a message for the person when nothing was recorded (exit 0).
``<node>.holder.json`` names the session and CLI process that last recorded the node:
another live process recording it is a second terminal with the same id; it takes the
node (as the app's newest pty does) and both the person and ``doctor`` are told.
"""

import os
import shlex
import time
from typing import Any, BinaryIO, Callable, Mapping, NamedTuple, Optional

from termsprawl_context.errors import HookRefused, Refusal, SubagentSession
from termsprawl_context.harness import for_payload, get
from termsprawl_context.jsonl import parse_object
from termsprawl_context.store.hook_input import checked_hook_input, parse_payload, read_payload_bytes
from termsprawl_context.store.paths import projects_dir
from termsprawl_context.workspace.discovery import HANDOFF_ARGS, ensure_context_discovery
from termsprawl_context.workspace.files import dump_json, has_version, read_small_file, write_atomic
from termsprawl_context.workspace.ids import SAFE_ID_SHOWN, is_safe_id
from termsprawl_context.workspace.layout import STATE_DIR, TRANSCRIPTS_DIR, running_project, state_path
from termsprawl_context.workspace.index import read_transcript_source, record_transcript_path
from termsprawl_context.workspace.links import peers_of
from termsprawl_context.workspace.project import NODE_ID_ENV, command_path, find_project, start_command

# The project variable the hook's help names: that of the CLI whose hook names no harness.
PROJECT_DIR_ENV = get(None).project_dir_env

HOLDER_SUFFIX = ".holder.json"
HOLDER_VERSION = 1
# Shells an agent CLI may run a hook command through; the process above one is the CLI.
_SHELLS = frozenset(("sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "fish"))


def _node_id_fix(harness: Any) -> str:
    return "quit, then start %s as `%s` in this terminal (one alias per node: alias %s-alice='%s')" % (
        harness.label,
        start_command(harness.command),
        harness.command,
        start_command(harness.command, "alice"),
    )


def _unsafe_id_fix(harness: Any) -> str:
    return (
        "quit, then restart with a node id of letters, digits, '-' and '_', starting with a letter or digit "
        "(e.g. `%s`)" % start_command(harness.command, "alice")
    )


def _no_project(detail: str, harness: Any) -> HookRefused:
    fix = "run `termsprawl-context init --%s` in the project" % harness.cli_option
    return HookRefused("no project directory: %s; nothing recorded" % detail, fix, harness)


class Holder(NamedTuple):
    """Who last recorded a node: its session, transcript and agent CLI process."""

    session_id: str
    path: str
    pid: int  # 0 when unknown
    at: int  # seconds since the epoch


class HookRecord(NamedTuple):
    project: str
    node_id: str
    source: str = ""
    displaced: Optional[Holder] = None  # a live session this one took the node from
    harness: str = ""  # the harness whose payload it was
    kept: Optional[str] = None  # why .termsprawl/AGENTS.md was left alone (its markers), if it was


def hook_project(
    explicit: Optional[str], environ: Mapping[str, str], payload_cwd: str, own: Optional[str], harness: Any
) -> str:
    """``--cwd``, else the installed command's project, else the harness's project variable,
    else the payload's ``cwd``: the nearest project at or above it (a CLI may start in a
    subdirectory), else itself, a directory."""
    if not explicit and own:
        return own
    variable = harness.project_dir_env
    for candidate, named in (
        (explicit, "--cwd"),
        (environ.get(variable) if variable else None, "$" + variable),
        (payload_cwd, "the payload's cwd"),
    ):
        if candidate:
            if not os.path.isdir(candidate):
                raise _no_project("%s %s is not a directory" % (named, candidate), harness)
            return find_project(candidate, environ) or candidate
    raise _no_project("give --cwd" + (", or set $%s" % variable if variable else ""), harness)


def read_holder(cwd: str, node_id: str) -> "tuple":
    """(current holder or None, the holder it displaced or None); junk reads as none."""
    data = read_small_file(state_path(cwd, TRANSCRIPTS_DIR, node_id + HOLDER_SUFFIX)) if is_safe_id(node_id) else None
    entry = parse_object(data) if data is not None else None
    if not entry or not has_version(entry, HOLDER_VERSION):
        return None, None
    return _holder(entry), _holder(entry.get("displaced"))


def _holder(value) -> Optional[Holder]:
    if not isinstance(value, dict):
        return None
    session_id, path, pid, at = (value.get(k) for k in ("session_id", "path", "pid", "at"))
    if not isinstance(session_id, str) or not isinstance(path, str):
        return None
    number = lambda v: v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else 0  # noqa: E731
    return Holder(session_id, path, number(pid), number(at))


def process_alive(pid: int) -> bool:
    """A process with this id exists (signal 0 probes without sending anything)."""
    if pid <= 1:
        return False
    try:
        os.kill(pid, 0)
    except PermissionError:
        return True  # exists, owned by someone else
    except (OSError, OverflowError):  # ProcessLookupError among them: none
        return False
    return True


def _proc_field(pid: int, name: str) -> Optional[str]:
    try:
        with open("/proc/%d/%s" % (pid, name), "rb") as f:
            return f.read(4096).decode("utf-8", "replace")
    except (OSError, ValueError):
        return None


def agent_pid() -> int:
    """The agent CLI process running this hook: the parent, or its parent when that is the
    hook command's shell (read from /proc). 0 when unknown."""
    parent = os.getppid()
    comm = _proc_field(parent, "comm")
    if comm is not None and os.path.basename(comm.strip()) in _SHELLS:
        stat = _proc_field(parent, "stat")
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ")".
        fields = stat[stat.rfind(")") + 1 :].split() if stat else []
        if len(fields) > 1 and fields[1].isdigit():
            return int(fields[1])
    return parent if parent > 1 else 0


def record_from_hook(
    stream: BinaryIO,
    environ: Mapping[str, str],
    cwd: Optional[str] = None,
    projects: Optional[str] = None,
    pid: Optional[int] = None,
    alive: Callable[[int], bool] = process_alive,
    own: Optional[str] = None,
    harness: Optional[str] = None,
) -> HookRecord:
    """Record for the node where the payload's session really is and refresh the discovery
    markers; a Refusal when nothing was recorded. ``pid`` (the CLI's process), ``own`` (the
    installed command's project) and ``harness`` (the one that ran it) are found by default."""
    store = projects_dir(projects, environ)
    payload, chosen = read_harness_payload(stream, store, environ, harness)
    node_id = environ.get(NODE_ID_ENV)
    if node_id is None or node_id == "":
        raise HookRefused(
            "%s is %s; nothing recorded (start the agent with %s=<node>)"
            % (NODE_ID_ENV, "set but empty" if node_id == "" else "not set", NODE_ID_ENV),
            _node_id_fix,
            chosen,
        )
    if not is_safe_id(node_id):
        raise HookRefused(
            "%s=%r is not a safe node id (%s); nothing recorded" % (NODE_ID_ENV, node_id, SAFE_ID_SHOWN),
            _unsafe_id_fix,
            chosen,
        )
    agent_id = chosen.hook_subagent(payload.raw)
    if agent_id:
        raise SubagentSession(agent_id)
    own = running_project() if own is None else own
    project = hook_project(cwd, environ, payload.cwd, own, chosen)
    recorded = _record_index(project, node_id, store, payload, chosen)
    me = agent_pid() if pid is None else pid
    displaced = _hold(project, node_id, payload.session_id, recorded, me, alive)
    kept = ensure_context_discovery(project)
    return HookRecord(project, node_id, payload.source, displaced, chosen.name, kept)


def _record_index(project: str, node_id: str, store: str, payload: Any, chosen: Any) -> str:
    """Where the node's transcript is recorded (written to the index when that changed)."""
    before = read_transcript_source(project, node_id)  # kept as the node's previous session when it moves
    recorded = chosen.hook_transcript(payload.transcript_path, payload.session_id, payload.source, store)
    moved = before != (recorded, chosen.name)
    if moved and not record_transcript_path(project, node_id, recorded, chosen.name, before):
        raise HookRefused(
            "could not write %s under %s; nothing recorded"
            % (os.path.join(STATE_DIR, TRANSCRIPTS_DIR, node_id + ".json"), project),
            "check that the project's .termsprawl folder is a writable directory (`termsprawl-context doctor`)",
        )
    return recorded


def _hold(
    project: str, node_id: str, session_id: str, recorded: str, me: int, alive: Callable[[int], bool]
) -> Optional[Holder]:
    """Record this process as the node's holder; the live holder of another session it displaces."""
    previous, _ = read_holder(project, node_id)
    if previous is not None and (previous.session_id, previous.pid, previous.path) == (session_id, me, recorded):
        return None
    taken = previous is not None and previous.session_id != session_id and previous.pid not in (0, me)
    displaced = previous if taken and alive(previous.pid) else None
    body = dict(version=HOLDER_VERSION, **Holder(session_id, recorded, me, int(time.time()))._asdict())
    if displaced is not None:
        body["displaced"] = displaced._asdict()
    try:
        write_atomic(project, state_path(project, TRANSCRIPTS_DIR, node_id + HOLDER_SUFFIX), dump_json(body))
    except (OSError, ValueError):
        pass  # best-effort: the index entry is what peers read; only a takeover goes unseen
    return displaced


def read_harness_payload(stream: BinaryIO, store: str, environ: Mapping[str, str], name: Optional[str] = None):
    """``(HookInput, Harness)``: the payload checked against the store of the harness ``name``,
    else of the one whose store holds its transcript path."""
    chosen = get(name) if name else None
    if name and chosen is None:
        raise HookRefused(
            "--harness %s is not a harness this build reads; nothing recorded" % name,
            "name one of the harnesses this build reads in the hook's `--harness` option",
        )
    payload = parse_payload(read_payload_bytes(stream))
    if chosen is None:
        chosen = for_payload(payload, environ)
    payload = chosen.hook_payload(payload, environ)
    return checked_hook_input(payload, *chosen.hook_roots(store, environ)), chosen


class HookAnswer(NamedTuple):
    """``output`` for stdout (nothing when {}), ``warning`` for one stderr line (None: nothing)."""

    output: dict
    warning: Optional[str]


def read_command(project: str, node_id: str) -> str:
    """The command printing ``node_id``'s hand-off from anywhere: absolute, no shell variable,
    so the allow rule ``init --hook`` writes (``<command> --format *``) matches it."""
    argv = [command_path(project)] + HANDOFF_ARGS.split() + ["--cwd", os.path.abspath(project), "--self", node_id]
    return shlex.join(argv)


def context_line(project: str, node_id: str, peers, tool: str = "") -> Optional[str]:
    """The line added to the model's context (None without peers); ``tool`` reads them unasked."""
    peers = list(dict.fromkeys(peers))  # two link files may name one pair
    if not peers:
        return None
    read = "call the tool %s (it asks nothing), or run: " % tool if tool else "run: "
    return (
        "termsprawl: you are agent node %s; linked agents: %s. To read their recent conversation "
        "(only when it helps the task), %s%s" % (node_id, ", ".join(peers), read, read_command(project, node_id))
    )


def session_start(record: Callable[[], HookRecord], harness: Optional[str] = None) -> HookAnswer:
    """Run ``record`` (a bound ``record_from_hook``); what the CLI that ran the hook (``harness``;
    default: the payload's) shows. Never raises."""
    named = get(harness) if harness else None
    try:
        done = record()
    except SubagentSession as refusal:
        return HookAnswer({}, refusal.message)  # nothing for the person to fix: said on stderr only
    except Refusal as refusal:
        # The refusal and its fix, in the words of the CLI that ran the hook.
        cli = getattr(refusal, "harness", None) or named or get(None)
        fix = refusal.fix_for(cli) if isinstance(refusal, HookRefused) else ""
        fix = fix or "check the hook's set-up with `termsprawl-context doctor`"
        message = "termsprawl: %s, so linked agents cannot read this session. Fix: %s." % (refusal.message, fix)
        return HookAnswer(cli.session_start_output(system_message=message), refusal.message)
    except Exception as exc:  # a bug of ours must not become the agent's problem
        message = "internal error: %s: %s" % (type(exc).__name__, exc)
        output = (named or get(None)).session_start_output(system_message="termsprawl: hook %s." % message)
        return HookAnswer(output, message)
    cli = get(done.harness)
    title = done.node_id if done.source in cli.hook_new_session_sources else None
    shown = warning = None  # type: Optional[str]
    old = done.displaced  # a live session this one took the node from
    if old is not None:
        shown = (
            "termsprawl: node %s was already held by another live %s session (process %d, transcript %s); "
            "this session took it over, so %s's peers now read this session, not that one. Fix: give each "
            "terminal its own %s (quit one and restart it with another id)."
            % (done.node_id, cli.label, old.pid, old.path, done.node_id, NODE_ID_ENV)
        )
        warning = "node %s taken over from process %d" % (done.node_id, old.pid)
    if done.kept:  # recorded all the same: the person is told, the hook still succeeds
        shown = " ".join(filter(None, (shown, "termsprawl: %s." % done.kept)))
        warning = "; ".join(filter(None, (warning, done.kept)))
    context = context_line(
        done.project, done.node_id, peers_of(done.project, done.node_id), cli.read_tool(done.project)
    )
    return HookAnswer(cli.session_start_output(shown, context, title), warning)
