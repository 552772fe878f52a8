"""``subagents``, ``root``, ``parent``, ``identity``, ``belongs``, ``relocate``, ``entries``:
one record's place in its session and conversation. argv in, one library call, output out;
refusals are raised for ``main`` (one stderr line, the refusal's exit code)."""

import json
import os
from typing import Any

from termsprawl_context._output import encode_path, error_line, terminal_safe_json
from termsprawl_context.cli.command import JSON_LIST, JSON_ONE, PATH, Arg, Spec, cell, json_line, command
from termsprawl_context.cli.command import print_list, print_one
from termsprawl_context.errors import EXIT_OK, UsageError

__all__ = [
    "BELONGS",
    "ENTRIES",
    "IDENTITY",
    "PARENT",
    "RELOCATE",
    "ROOT",
    "SUBAGENTS",
    "run_belongs",
    "run_entries",
    "run_identity",
    "run_parent",
    "run_relocate",
    "run_root",
    "run_subagents",
]

NO_RESULT = "no-result"  # a call no tool_result answers (interrupted, or still pending)


def _tree(parser) -> None:
    parser.add_argument("--tree", action="store_true", help="the whole tree, in walk order")


def _identity_projects_dir(parser) -> None:
    parser.add_argument(
        "--projects-dir",
        metavar="DIR",
        help="look for the conversation's other transcripts in DIR's folder for the directory the session "
        "started in (default: the folder holding the record)",
    )


def _belongs_options(parser) -> None:
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--session", metavar="SESSION", help="a session id")
    which.add_argument("--tree", metavar="DIR", help="a working directory")


def _relocate_source(parser) -> None:
    parser.add_argument(
        "--source",
        metavar="SOURCE",
        help="the SessionStart source; 'startup' is never relocated (its record is not written yet)",
    )


def _entries_options(parser) -> None:
    parser.add_argument(
        "--since", metavar="UUID", default="", help="only the entries after this one (an unknown uuid keeps them all)"
    )
    parser.add_argument("--calls", action="store_true", help="the tool calls instead of the entries")
    parser.add_argument("--ran", action="store_true", help="only the calls that ran (implies --calls)")


SUBAGENTS = Spec(
    "subagents",
    "Print the sub-agent records the transcript at PATH dispatched (one level, sorted); --tree: every one beneath "
    "it, nested delegations and workflows included.",
    (PATH,),
    json=JSON_LIST,
    options=_tree,
)
ROOT = Spec(
    "root",
    "Print the root record of the session the transcript at PATH belongs to (itself for a root; climbs nested "
    "delegations). Exit 1 for a sub-agent's record whose root is not on disk.",
    (PATH,),
    json=JSON_ONE,
)
PARENT = Spec(
    "parent",
    "Print the record that dispatched the sub-agent at PATH (its immediate parent), found through its meta file's "
    "toolUseId. Exit 1, saying why, when none can be named.",
    (PATH,),
    json=JSON_ONE,
)
IDENTITY = Spec(
    "identity",
    "Print the stable id of the conversation the transcript at PATH belongs to: its origin record's uuid, walked "
    "back across restarts through the project's other transcripts. A degraded answer prints the id and says why on "
    "stderr (exit 6).",
    (PATH,),
    json=JSON_ONE,
    options=_identity_projects_dir,
)
BELONGS = Spec(
    "belongs",
    "Exit 0 if the transcript at PATH may belong to the session SESSION (--session) or was written in DIR or "
    "beneath it (--tree); exit 5, naming what its records say, if they say otherwise.",
    (PATH,),
    options=_belongs_options,
)
RELOCATE = Spec(
    "relocate",
    "Print where the record the harness reported at PATH really is: PATH when it exists, else the same place under "
    "another project folder whose file carries the session's id, else PATH.",
    (Arg("path", "PATH", "a transcript path as a hook payload reported it"),),
    ("projects-dir",),
    JSON_ONE,
    _relocate_source,
)
ENTRIES = Spec(
    "entries",
    "Print the entries of the transcript at PATH (line, uuid, type, speaker), or with --calls their tool calls "
    "(line, id, name, outcome, input); --ran keeps the calls that ran.",
    (PATH,),
    json=JSON_LIST,
    options=_entries_options,
)


def _readable(path: str) -> None:
    """Refuse a PATH that names no readable regular file (the open error, as the record
    reader words it)."""
    from termsprawl_context.jsonl import open_regular
    from termsprawl_context.transcript.record import TranscriptOpenError

    if not os.path.lexists(path):
        other = _other_harness(path)
        if other is not None and other.session_stat(path) is not None:
            return  # a session that is no file (OpenCode's database row)
    try:
        open_regular(path).close()
    except OSError as exc:
        raise TranscriptOpenError(path, exc) from None


def _other_harness(path: str):
    """The harness that wrote the transcript at ``path`` when it is not Claude Code
    (its store holds it, or its first record is that harness's), else None."""
    from termsprawl_context import harness as harnesses

    found = harnesses.for_path(os.path.abspath(path))
    return None if found is None or found.name == harnesses.CLAUDE_CODE else found


def _not_recorded(command: str, found, path: str):
    from termsprawl_context.store.harness_store import NotRecorded

    return NotRecorded(command, found.label, path)


def _path_line(path: str) -> bytes:
    return encode_path(path) + b"\n"


@command(SUBAGENTS)
def run_subagents(args) -> int:
    _readable(args.path)
    from termsprawl_context.store import subagents

    other = _other_harness(args.path)
    if other is not None:
        return _other_subagents(args.path, other, args)
    found = subagents.subagent_tree(args.path) if args.tree else subagents.child_records(args.path)
    print_list(args.json, found, _with_meta, _path_line)
    return EXIT_OK


def _with_meta(record: str) -> dict:
    from termsprawl_context.store import subagents

    item = {"path": record, "meta": None}
    try:
        meta = subagents.read_agent_meta(record)
        if meta is not None:
            item["meta"] = meta._asdict()  # type: ignore[assignment]
    except subagents.MetaUnreadable as exc:
        item["meta_error"] = exc.message
    return item


@command(ROOT)
def run_root(args) -> int:
    _readable(args.path)
    from termsprawl_context.store import subagents

    other = _other_harness(args.path)
    root = subagents.harness_root_of(other, args.path) if other is not None else subagents.session_root_of(args.path)
    if not root:
        raise subagents.OrphanRecord(args.path)
    print_one(args.json, {"path": args.path, "root": root, "is_subagent": root != args.path}, _path_line(root))
    return EXIT_OK


@command(PARENT)
def run_parent(args) -> int:
    _readable(args.path)
    from termsprawl_context.store import subagents

    other = _other_harness(args.path)
    if other is not None:
        return _other_parent(args.path, other, args)
    parent, why = subagents.find_parent(args.path)
    if not parent:
        raise subagents.NoParent("transcript: parent: " + why)

    def data():
        meta = subagents.read_agent_meta(args.path)
        return {"path": args.path, "parent": parent, "tool_use_id": meta.tool_use_id if meta else ""}

    print_one(args.json, data, _path_line(parent))
    return EXIT_OK


def _other_parent(path: str, harness, args) -> int:
    """Another harness's sub-agent's parent, as its own records name it."""
    from termsprawl_context.store import subagents

    answer = harness.subagent_parent(path)
    if answer is None:
        raise _not_recorded("parent", harness, path)
    if not answer[0]:
        raise subagents.NoParent("transcript: parent: %s is not a sub-agent's record" % path)
    if not answer[1]:
        raise subagents.NoParent("transcript: parent: the record its %s records name is not on disk" % harness.label)
    print_one(args.json, {"path": path, "parent": answer[1], "tool_use_id": ""}, _path_line(answer[1]))
    return EXIT_OK


def _other_subagents(path: str, harness, args) -> int:
    """Another harness's sub-agent transcripts, as its records link them; a named
    refusal when they do not."""
    found = harness.subagent_tree(path) if args.tree else harness.subagent_paths(path)
    if found is None:
        raise _not_recorded("subagents", harness, path)
    print_list(args.json, found, lambda p: {"path": p, "meta": None, "harness": harness.name}, _path_line)
    return EXIT_OK


@command(IDENTITY)
def run_identity(args) -> int:
    _readable(args.path)
    from termsprawl_context.harness import claude as cc
    from termsprawl_context.store import identity

    path = args.path
    other = _other_harness(path)
    if other is not None:
        stable = other.stable_id(path)
        if stable is None:
            raise _not_recorded("identity", other, path)
        data = dict(_identity_data(stable, None, [], path, None), harness=other.name)
        print_one(args.json, data, stable + "\n")
        return EXIT_OK
    project_dir = identity.project_dir_of_record(path)
    if args.projects_dir:
        cwd = identity.start_cwd(path)
        if cwd:
            project_dir = os.path.join(
                os.path.abspath(args.projects_dir), cc.encode_project_dir(cc.resolve_work_dir(cwd))
            )
    answer = identity.resolve_stable_session_id(project_dir, path)
    for sibling in answer.unreadable_siblings:
        error_line("could not read %s (skipped by the continuation walk)" % sibling)
    data = _identity_data(answer.id, answer.degraded, answer.unreadable_siblings, path, project_dir)
    print_one(args.json, data, answer.id + "\n")
    if answer.degraded is not None:
        error_line("degraded identity: " + answer.degraded.message)
        return answer.degraded.exit_code
    return EXIT_OK


def _identity_data(stable: str, degraded, siblings, path: str, project_dir) -> dict:
    return {
        "id": stable,
        "degraded": type(degraded).__name__ if degraded else None,
        "reason": degraded.message if degraded else None,
        "unreadable_siblings": list(siblings),
        "path": path,
        "project_dir": project_dir,
    }


@command(BELONGS)
def run_belongs(args) -> int:
    _readable(args.path)
    from termsprawl_context.store import identity

    other = _other_harness(args.path)
    if args.session is not None:
        if not args.session:
            raise UsageError("belongs: --session must not be empty")
        if other is not None:
            identity.check_harness_belongs_to_session(other, args.path, args.session)
        else:
            identity.check_belongs_to_session(args.path, args.session)
    else:
        if not args.tree:
            raise UsageError("belongs: --tree must not be empty")
        if other is not None:
            identity.check_harness_belongs_to_tree(other, args.path, args.tree)
        else:
            identity.check_belongs_to_tree(args.path, args.tree)
    return EXIT_OK


@command(RELOCATE)
def run_relocate(args) -> int:
    from termsprawl_context.store import identity, paths

    found = identity.relocate_record(paths.projects_dir(args.projects_dir), args.path, args.source)
    print_one(args.json, {"path": found, "reported": args.path, "relocated": found != args.path}, _path_line(found))
    return EXIT_OK


@command(ENTRIES)
def run_entries(args) -> int:
    _readable(args.path)
    from termsprawl_context._output import Spool
    from termsprawl_context.transcript import record

    path = args.path
    # Streamed: one entry held at a time, rows printed as they are made. The first pass
    # (the mark's line; with --calls, every call's outcome) reads the whole record, so a
    # refusal still comes before the first row.
    calls = args.calls or args.ran
    other = _other_harness(path)
    if other is not None:
        # Another harness's entries (a fork's parent's too) are read twice, one entry held
        # at a time: first for the mark's place and every call's outcome (a call's answer
        # may follow the mark), then for the rows.
        outcomes, after = _first_pass(_harness_entries(other, path), calls, args.since)
        chosen: Any = (item for i, item in enumerate(_harness_entries(other, path)) if i > after)
    else:
        outcomes = record.call_outcomes(record.iter_entries(path)) if calls else {}
        chosen = record.iter_since(path, args.since, checked=calls)
    out = Spool()
    for item in chosen:
        if calls:
            _print_calls(out, item, outcomes, args.ran, args.json)
        else:
            _print_entry(out, item, args.json)
    out.close()
    return EXIT_OK


def _harness_entries(harness, path: str):
    from termsprawl_context.transcript import record

    try:
        for item in harness.entries(path):
            yield item
    except OSError as exc:
        raise record.TranscriptOpenError(path, exc) from None


def _first_pass(entries, calls: bool, mark: str) -> tuple:
    """``(every call's outcome, the index of the mark's entry)``: -1 when there is no mark
    or it names no entry (``record.since``: then everything is shown)."""
    from termsprawl_context.transcript import record

    found = [-1]

    def watched():
        for index, item in enumerate(entries):
            if mark and found[0] < 0 and item.uuid == mark:
                found[0] = index
                if not calls:
                    return  # the mark's place is all this pass is for
            yield item

    if calls:
        return record.call_outcomes(watched()), found[0]
    for _ in watched() if mark else ():
        pass
    return {}, found[0]


def _print_calls(out, item, outcomes, ran_only: bool, as_json: bool) -> None:
    from termsprawl_context.transcript import entry as model
    from termsprawl_context.transcript import record

    for call in model.tool_calls(item):
        outcome = outcomes.get(call.id, NO_RESULT) if call.id else NO_RESULT
        if ran_only and outcome != record.RAN:
            continue
        if as_json:
            fields = {"line": item.line, "uuid": item.uuid, "id": call.id, "name": call.name, "outcome": outcome}
            out.add(json_line(dict(fields, input=call.input)))
        else:
            shown = terminal_safe_json(json.dumps(call.input, ensure_ascii=False, separators=(",", ":")))
            out.add("%d\t%s\t%s\t%s\t%s\n" % (item.line, cell(call.id), cell(call.name), outcome, shown))


def _print_entry(out, item, as_json: bool) -> None:
    from termsprawl_context.transcript import entry as model

    who = model.speaker(item)
    if as_json:
        fields = {"line": item.line, "offset": item.offset, "uuid": item.uuid, "parent_uuid": item.parent_uuid}
        more = {"type": item.type, "speaker": who, "timestamp": item.timestamp, "is_sidechain": item.is_sidechain}
        out.add(json_line(dict(fields, **more)))
    else:
        out.add("%d\t%s\t%s\t%s\n" % (item.line, cell(item.uuid), cell(item.type), who))
