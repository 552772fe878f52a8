"""``subagents``, ``root``, ``parent``, ``identity``, ``belongs``, ``relocate``, ``entries``:
one record's place in its session and conversation. argv in, one library call, output out;
refusals are raised for ``main`` (one stderr line, the refusal's exit code)."""

import json
import os
from typing import Any, List

from termsprawl_context._output import error_line, terminal_safe, write_out, write_path
from termsprawl_context.cli._args import add_projects_dir, command_parser, parse
from termsprawl_context.errors import EXIT_OK, UsageError


def _cell(text: str) -> str:
    """Record text printed in a tab-separated row: a tab, newline or escape code in it
    would break the row or drive the terminal (``terminal_safe``)."""
    return terminal_safe(text, stand_in="\ufffd")


def _json_line(value) -> str:
    return json.dumps(value, ensure_ascii=False) + "\n"


def _record_path(value: str, command: str) -> str:
    """The path argument, refused when empty or when it names no readable regular file
    (the open error, as the record reader words it)."""
    if not value:
        raise UsageError("%s: the transcript path must not be empty" % command)
    from termsprawl_context.jsonl import open_regular
    from termsprawl_context.transcript.record import TranscriptOpenError

    try:
        open_regular(value).close()
    except OSError as exc:
        raise TranscriptOpenError(value, exc) from None
    return value


def _other_harness(path: str):
    """The harness that wrote the transcript at ``path`` when it is not Claude Code
    (its store holds it, or its first record is that harness's), else None."""
    from termsprawl_context import harness as harnesses

    found = harnesses.for_path(os.path.abspath(path))
    return None if found is None or found.name == harnesses.CLAUDE_CODE else found


def _not_recorded(command: str, found, path: str):
    from termsprawl_context.store.harness_store import NotRecorded

    return NotRecorded(command, found.label, path)


def _parser(command: str, description: str, json_flag: bool = True):
    parser = command_parser(command, description)
    parser.add_argument("path", metavar="PATH", help="a transcript (.jsonl) file")
    if json_flag:
        parser.add_argument("--json", action="store_true", help="print JSON (one object per line)")
    return parser


def run_subagents(argv: List[str]) -> int:
    parser = _parser(
        "subagents",
        "Print the sub-agent records the transcript at PATH dispatched (one level, sorted); "
        "--tree: every one beneath it, nested delegations and workflows included.",
    )
    parser.add_argument("--tree", action="store_true", help="the whole tree, in walk order")
    args = parse(parser, argv)
    if args is None:
        return 0
    from termsprawl_context.store import subagents

    path = _record_path(args.path, "subagents")
    other = _other_harness(path)
    if other is not None:
        return _other_subagents(path, other, args)
    found = subagents.subagent_tree(path) if args.tree else subagents.child_records(path)
    if not args.json:
        for record in found:
            write_path(record)
        return EXIT_OK
    lines = []
    for record in found:
        item = {"path": record, "meta": None}
        try:
            meta = subagents.read_agent_meta(record)
            if meta is not None:
                item["meta"] = meta._asdict()  # type: ignore[assignment]
        except subagents.MetaUnreadable as exc:
            item["meta_error"] = exc.message
        lines.append(_json_line(item))
    write_out("".join(lines))
    return EXIT_OK


def run_root(argv: List[str]) -> int:
    parser = _parser(
        "root",
        "Print the root record of the session the transcript at PATH belongs to (itself for a "
        "root; climbs nested delegations). Exit 1 for a sub-agent's record whose root is not on disk.",
    )
    args = parse(parser, argv)
    if args is None:
        return 0
    from termsprawl_context.store import subagents

    path = _record_path(args.path, "root")
    root = subagents.session_root_of(path)
    if not root:
        raise subagents.OrphanRecord(path)
    if args.json:
        write_out(_json_line({"path": path, "root": root, "is_subagent": root != path}))
    else:
        write_path(root)
    return EXIT_OK


def run_parent(argv: List[str]) -> int:
    parser = _parser(
        "parent",
        "Print the record that dispatched the sub-agent at PATH (its immediate parent), found "
        "through its meta file's toolUseId. Exit 1, saying why, when none can be named.",
    )
    args = parse(parser, argv)
    if args is None:
        return 0
    from termsprawl_context.store import subagents

    path = _record_path(args.path, "parent")
    parent, why = subagents.find_parent(path)
    if not parent:
        raise subagents.NoParent("transcript: parent: " + why)
    if args.json:
        meta = subagents.read_agent_meta(path)
        write_out(_json_line({"path": path, "parent": parent, "tool_use_id": meta.tool_use_id if meta else ""}))
    else:
        write_path(parent)
    return EXIT_OK


def _other_subagents(path: str, harness, args) -> int:
    """Another harness's sub-agent transcripts, as its records link them; a named
    refusal when they do not."""
    found = harness.subagent_paths(path)
    if found is None:
        raise _not_recorded("subagents", harness, path)
    if args.tree:
        walked, todo = [], list(found)
        while todo:
            child = todo.pop(0)
            if child in walked:
                continue
            walked.append(child)
            todo[0:0] = harness.subagent_paths(child) or []
        found = walked
    if args.json:
        write_out("".join(_json_line({"path": p, "meta": None, "harness": harness.name}) for p in found))
    else:
        for record in found:
            write_path(record)
    return EXIT_OK


def run_identity(argv: List[str]) -> int:
    parser = _parser(
        "identity",
        "Print the stable id of the conversation the transcript at PATH belongs to: its origin "
        "record's uuid, walked back across restarts through the project's other transcripts. "
        "A degraded answer prints the id and says why on stderr (exit 6).",
    )
    parser.add_argument(
        "--projects-dir",
        metavar="DIR",
        help="look for the conversation's other transcripts in DIR's folder for the directory the session "
        "started in (default: the folder holding the record)",
    )
    args = parse(parser, argv)
    if args is None:
        return 0
    import os

    from termsprawl_context.harness import claude as cc
    from termsprawl_context.store import identity

    path = _record_path(args.path, "identity")
    other = _other_harness(path)
    if other is not None:
        stable = other.stable_id(path)
        if stable is None:
            raise _not_recorded("identity", other, path)
        if args.json:
            write_out(
                _json_line(
                    {
                        "id": stable,
                        "degraded": None,
                        "reason": None,
                        "unreadable_siblings": [],
                        "path": path,
                        "project_dir": None,
                        "harness": other.name,
                    }
                )
            )
        else:
            write_out(stable + "\n")
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
    if args.json:
        write_out(
            _json_line(
                {
                    "id": answer.id,
                    "degraded": type(answer.degraded).__name__ if answer.degraded else None,
                    "reason": answer.degraded.message if answer.degraded else None,
                    "unreadable_siblings": list(answer.unreadable_siblings),
                    "path": path,
                    "project_dir": project_dir,
                }
            )
        )
    else:
        write_out(answer.id + "\n")
    if answer.degraded is not None:
        error_line("degraded identity: " + answer.degraded.message)
        return answer.degraded.exit_code
    return EXIT_OK


def run_belongs(argv: List[str]) -> int:
    parser = _parser(
        "belongs",
        "Exit 0 if the transcript at PATH may belong to the session ID (--session) or was written "
        "in DIR or beneath it (--tree); exit 5, naming what its records say, if they say otherwise.",
        json_flag=False,
    )
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--session", metavar="ID", help="a session id")
    which.add_argument("--tree", metavar="DIR", help="a working directory")
    args = parse(parser, argv)
    if args is None:
        return 0
    from termsprawl_context.store import identity

    path = _record_path(args.path, "belongs")
    if args.session is not None:
        if not args.session:
            raise UsageError("belongs: --session must not be empty")
        identity.check_belongs_to_session(path, args.session)
    else:
        if not args.tree:
            raise UsageError("belongs: --tree must not be empty")
        identity.check_belongs_to_tree(path, args.tree)
    return EXIT_OK


def run_relocate(argv: List[str]) -> int:
    parser = command_parser(
        "relocate",
        "Print where the record the harness reported at PATH really is: PATH when it exists, else "
        "the same place under another project folder whose file carries the session's id, else PATH.",
    )
    parser.add_argument("path", metavar="PATH", help="a transcript path as a hook payload reported it")
    add_projects_dir(parser)
    parser.add_argument(
        "--source",
        metavar="SOURCE",
        help="the SessionStart source; 'startup' is never relocated (its record is not written yet)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parse(parser, argv)
    if args is None:
        return 0
    if not args.path:
        raise UsageError("relocate: the transcript path must not be empty")
    from termsprawl_context.store import identity, paths

    found = identity.relocate_record(paths.projects_dir(args.projects_dir), args.path, args.source)
    if args.json:
        write_out(_json_line({"path": found, "reported": args.path, "relocated": found != args.path}))
    else:
        write_path(found)
    return EXIT_OK


def run_entries(argv: List[str]) -> int:
    parser = _parser(
        "entries",
        "Print the entries of the transcript at PATH (line, uuid, type, speaker), or with --calls "
        "their tool calls (line, id, name, outcome, input); --ran keeps the calls that ran.",
    )
    parser.add_argument(
        "--since", metavar="UUID", default="", help="only the entries after this one (an unknown uuid keeps them all)"
    )
    parser.add_argument("--calls", action="store_true", help="the tool calls instead of the entries")
    parser.add_argument("--ran", action="store_true", help="only the calls that ran (implies --calls)")
    args = parse(parser, argv)
    if args is None:
        return 0
    from termsprawl_context._output import Spool
    from termsprawl_context.transcript import record

    path = _record_path(args.path, "entries")
    # Streamed: one entry held at a time, rows printed as they are made. The first pass
    # (the mark's line; with --calls, every call's outcome) reads the whole record, so a
    # refusal still comes before the first row.
    calls = args.calls or args.ran
    other = _other_harness(path)
    if other is not None:
        # Another harness's entries are normalised from the whole file (a fork's from its
        # parent's too): held in memory, then printed the same way.
        try:
            everything = list(other.entries(path))
        except OSError as exc:
            raise record.TranscriptOpenError(path, exc) from None
        # Outcomes are judged over the whole record: a call's answer may follow the mark.
        outcomes = record.call_outcomes(everything) if calls else {}
        chosen: Any = record.since(everything, args.since)
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


def _print_calls(out, item, outcomes, ran_only: bool, as_json: bool) -> None:
    from termsprawl_context.transcript import entry as model
    from termsprawl_context.transcript import record

    for call in model.tool_calls(item):
        outcome = outcomes.get(call.id, NO_RESULT) if call.id else NO_RESULT
        if ran_only and outcome != record.RAN:
            continue
        if as_json:
            out.add(
                _json_line(
                    {
                        "line": item.line,
                        "uuid": item.uuid,
                        "id": call.id,
                        "name": call.name,
                        "outcome": outcome,
                        "input": call.input,
                    }
                )
            )
        else:
            out.add(
                "%d\t%s\t%s\t%s\t%s\n"
                % (
                    item.line,
                    _cell(call.id),
                    _cell(call.name),
                    outcome,
                    json.dumps(call.input, ensure_ascii=False, separators=(",", ":")),
                )
            )


def _print_entry(out, item, as_json: bool) -> None:
    from termsprawl_context.transcript import entry as model

    who = model.speaker(item)
    if as_json:
        out.add(
            _json_line(
                {
                    "line": item.line,
                    "offset": item.offset,
                    "uuid": item.uuid,
                    "parent_uuid": item.parent_uuid,
                    "type": item.type,
                    "speaker": who,
                    "timestamp": item.timestamp,
                    "is_sidechain": item.is_sidechain,
                }
            )
        )
    else:
        out.add("%d\t%s\t%s\t%s\n" % (item.line, _cell(item.uuid), _cell(item.type), who))


NO_RESULT = "no-result"  # a call no tool_result answers (interrupted, or still pending)
