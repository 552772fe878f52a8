"""``cite``, ``result-at``, ``envelope-at``, ``agents`` and ``query``: argv in, one call
into ``cite``, ``store.background`` or ``transcript.query``, the answer out. Refusals
carry their exit codes (10 not found, 11 ambiguous, 12 refused, 13 never ran) to ``main``."""

import json
from typing import List

from termsprawl_context._output import Spool, encode_path, encode_text, write_bytes, write_out
from termsprawl_context.cli._args import command_parser, parse
from termsprawl_context.errors import NotFound, UsageError


class NotAToolResult(NotFound):
    """The entry at the line is not a tool result the session produced (or no entry)."""


def _nonempty(value: str, command: str, name: str) -> str:
    if not value:
        raise UsageError("%s: %s must not be empty" % (command, name))
    return value


def _line(value: str, command: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise UsageError("%s: line must be a positive whole number, not %s" % (command, json.dumps(value)))
    return int(value)


def _json_out(value: object) -> None:
    write_out(json.dumps(value, ensure_ascii=False, indent=2) + "\n")


def _text_out(text: str) -> None:
    write_out(text if text.endswith("\n") else text + "\n")


def _claude_only(path: str, command: str) -> None:
    from termsprawl_context.store.harness_store import require_claude_record

    require_claude_record(path, command)


def run_cite(argv: List[str]) -> int:
    from termsprawl_context import cite

    parser = command_parser(
        "cite",
        "Ground QUOTE in exactly one entry and print <path>:<line>. Pools: user (what the person typed, queued "
        "or answered) and tool_result (genuine tool output whose call is in the same record); word for word, "
        "only whitespace may differ. By default only the record at PATH is searched; --session searches the "
        "session (the user pool in its root record, the tool pool in PATH first, then the root and every "
        "sub-agent); --across DIR searches PATH's session first, then DIR's sessions newest to oldest. "
        "Exit 10 not found, 11 ambiguous, 12 refused.",
    )
    parser.add_argument("path")
    parser.add_argument("quote")
    parser.add_argument(
        "--source",
        default=cite.SOURCE_USER,
        metavar="POOLS",
        help="comma-separated pools, searched in order: user, tool_result (default user)",
    )
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument("--session", action="store_true", help="search the session's records")
    scope.add_argument("--across", metavar="DIR", help="search a project directory's sessions too")
    parser.add_argument("--json", action="store_true", help="print the resolved citation as JSON")
    args = parse(parser, argv)
    if args is None:
        return 0
    _claude_only(args.path, "cite")
    if args.across is None:
        _nonempty(args.path, "cite", "path")
    request = cite.CitationRequest(args.quote, cite.parse_sources(args.source))
    if args.across is not None:
        found = cite.resolve_across_sessions(args.path, _nonempty(args.across, "cite", "--across"), request)
    elif args.session:
        found = cite.resolve_citation(args.path, request)
    else:
        found = cite.resolve_in_record(args.path, request)
    if args.json:
        _json_out(found.to_json())
    else:
        write_bytes(encode_path(found.path) + b":%d\n" % found.line)
    return 0


def _at_line(command: str, description: str, argv: List[str], with_json: bool):
    """The parsed ``<path> <line>`` of an at-a-line command (None after --help)."""
    parser = command_parser(command, description)
    parser.add_argument("path")
    parser.add_argument("line")
    if with_json:
        parser.add_argument("--json", action="store_true", help="print them as a JSON list")
    args = parse(parser, argv)
    if args is not None:
        args.path, args.line = _nonempty(args.path, command, "path"), _line(args.line, command)
    return args


def run_result_at(argv: List[str]) -> int:
    from termsprawl_context import cite

    args = _at_line(
        "result-at",
        "Print the genuine tool output on the entry at LINE (1-based physical line) of PATH: the result of a "
        "call in the same record, not an answer envelope, a hook refusal, a sub-agent's reply or an echo of "
        "the record. Exit 1 when the entry is not one.",
        argv,
        with_json=False,
    )
    if args is None:
        return 0
    _claude_only(args.path, "result-at")
    text, is_result = cite.tool_result_at(args.path, args.line)
    if not is_result:
        raise NotAToolResult("%s:%d is not a tool result the session produced" % (args.path, args.line))
    _text_out(text)
    return 0


def run_envelope_at(argv: List[str]) -> int:
    from termsprawl_context import cite

    args = _at_line(
        "envelope-at",
        "Print the whole AskUserQuestion answer envelopes (questions, answers and trailer, uncut) on the entry at "
        "LINE of PATH, in order, separated by a blank line; nothing when it carries none. Exit 1 when LINE names "
        "no entry.",
        argv,
        with_json=True,
    )
    if args is None:
        return 0
    _claude_only(args.path, "envelope-at")
    envelopes = cite.envelope_at(args.path, args.line)
    if args.json:
        _json_out(envelopes)
    elif envelopes:
        _text_out("\n\n".join(envelopes))
    return 0


def run_agents(argv: List[str]) -> int:
    from termsprawl_context.store import background

    parser = command_parser(
        "agents",
        "Print the ids of the background sub-agents the record at PATH shows as still running (launched, with "
        "no later terminal <task-notification>), one per line, sorted. Exit 1 when a line will not parse: what "
        "runs is then unknown.",
    )
    parser.add_argument("path")
    parser.add_argument("--json", action="store_true", help="print {running, signals} as JSON")
    args = parse(parser, argv)
    if args is None:
        return 0
    _claude_only(_nonempty(args.path, "agents", "path"), "agents")
    signals = background.background_agent_signals(_nonempty(args.path, "agents", "path"))
    alive = sorted(background.running(signals))
    if args.json:
        _json_out({"running": alive, "signals": [s.to_json() for s in signals]})
    elif alive:
        write_out("".join(agent + "\n" for agent in alive))
    return 0


def run_query(argv: List[str]) -> int:
    from termsprawl_context.transcript import query
    from termsprawl_context.transcript.record import check_readable, iter_entries

    parser = command_parser(
        "query",
        "Print the entries of PATH for which EXPR holds, as <path>:<line> TYPE UUID (tab-separated). EXPR is the "
        "small expression language of the README (type, uuid, parentUuid, logicalParentUuid, timestamp, "
        "isSidechain, message, toolUseResult; == != < <= > >= and or not in contains startsWith endsWith, "
        "?. [i] int() len() + - * / %). Exit 2 when it will not compile, 13 when no entry could be evaluated.",
    )
    parser.add_argument("path")
    parser.add_argument("--where", required=True, metavar="EXPR", help='e.g. type == "user"; "" admits all')
    parser.add_argument("--sidechains", action="store_true", help="include sub-agents' sidechain entries")
    parser.add_argument("--json", action="store_true", help="print a JSON list of {path, line, record}")
    args = parse(parser, argv)
    if args is None:
        return 0
    path = _nonempty(args.path, "query", "path")
    _claude_only(path, "query")
    if args.where:
        query.compile_where(args.where)  # refuse a bad expression before reading the record
    # Streamed: one entry held at a time, each match printed as it is found. The byte
    # pass first keeps a record that cannot be read whole a refusal with nothing printed.
    check_readable(path)
    found = query.iter_filter(iter_entries(path), args.where, include_sidechains=args.sidechains)
    out = Spool()
    if args.json:
        _json_list_out(out, ({"path": path, "line": e.line, "record": e.record} for e in found))
    else:
        prefix = encode_path(path)
        for e in found:
            out.add_bytes(prefix + encode_text(":%d\t%s\t%s\n" % (e.line, e.type, e.uuid)))
    out.close()
    return 0


def _json_list_out(out, items) -> None:
    """``_json_out(list(items))``'s exact bytes, each item written as it comes (a
    streamed list: one item held at a time)."""
    count = 0
    for item in items:
        body = json.dumps(item, ensure_ascii=False, indent=2)  # no raw newline inside a JSON string
        out.add(("[\n  " if not count else ",\n  ") + body.replace("\n", "\n  "))
        count += 1
    out.add("\n]\n" if count else "[]\n")
