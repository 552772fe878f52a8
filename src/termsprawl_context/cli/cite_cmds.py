"""``cite``, ``result-at``, ``envelope-at``, ``agents`` and ``query``: argv in, one call
into ``cite``, ``store.background`` or ``transcript.query``, the answer out. Refusals
carry their exit codes (10 not found, 11 ambiguous, 12 refused, 13 never ran) to ``main``."""

import json

from termsprawl_context._output import encode_path, encode_text, write_transcript_text
from termsprawl_context.cli.command import JSON_LIST, JSON_ONE, LINE, PATH, Arg, Spec, cell, command
from termsprawl_context.cli.command import print_list, print_one
from termsprawl_context.errors import NotFound, UsageError

__all__ = [
    "AGENTS",
    "CITE",
    "ENVELOPE_AT",
    "QUERY",
    "RESULT_AT",
    "run_agents",
    "run_cite",
    "run_envelope_at",
    "run_query",
    "run_result_at",
]


class NotAToolResult(NotFound):
    """The entry at the line is not a tool result the session produced (or no entry)."""


def _cite_options(parser) -> None:
    from termsprawl_context import cite

    parser.add_argument(
        "--source",
        default=cite.SOURCE_USER,
        metavar="POOLS",
        help="comma-separated pools, searched in order: user, tool_result (default user)",
    )
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument("--session", action="store_true", help="search the session's records")
    scope.add_argument("--across", metavar="DIR", help="search a project directory's sessions too")


CITE = Spec(
    "cite",
    "Ground QUOTE in exactly one entry and print <path>:<line>. Pools: user (what the person typed, queued or "
    "answered) and tool_result (genuine tool output whose call is in the same record); word for word, only "
    "whitespace may differ. By default only the record at PATH is searched; --session searches the session (the "
    "user pool in its root record, the tool pool in PATH first, then the root and every sub-agent); --across DIR "
    "searches PATH's session first, then DIR's sessions newest to oldest. Exit 10 not found, 11 ambiguous, "
    "12 refused.",
    # PATH may be empty with --across: DIR's sessions alone.
    (PATH._replace(required=False), Arg("quote", "QUOTE", "the words to ground", required=False)),
    json=JSON_ONE,
    options=_cite_options,
)
RESULT_AT = Spec(
    "result-at",
    "Print the genuine tool output on the entry at LINE (1-based physical line) of PATH: the result of a call in "
    "the same record, not an answer envelope, a hook refusal, a sub-agent's reply or an echo of the record. Exit 1 "
    "when the entry is not one.",
    (PATH, LINE),
)
ENVELOPE_AT = Spec(
    "envelope-at",
    "Print the whole AskUserQuestion answer envelopes (questions, answers and trailer, uncut) on the entry at LINE "
    "of PATH, in order, separated by a blank line; nothing when it carries none. Exit 1 when LINE names no entry.",
    (PATH, LINE),
    json=JSON_LIST,
)
AGENTS = Spec(
    "agents",
    "Print the ids of the background sub-agents the record at PATH shows as still running (launched, with no later "
    "terminal <task-notification>), one per line, sorted. Exit 1 when a line will not parse: what runs is then "
    "unknown.",
    (PATH,),
    json=JSON_ONE,
)


def _where(parser) -> None:
    parser.add_argument("--where", required=True, metavar="EXPR", help='e.g. type == "user"; "" admits all')
    parser.add_argument("--sidechains", action="store_true", help="include sub-agents' sidechain entries")


QUERY = Spec(
    "query",
    "Print the entries of PATH for which EXPR holds, as <path>:<line> TYPE UUID (tab-separated). EXPR is the small "
    "expression language of docs/citations.md (type, uuid, parentUuid, logicalParentUuid, timestamp, isSidechain, message, "
    "toolUseResult; == != < <= > >= and or not in contains startsWith endsWith, ?. [i] int() len() + - * / %). "
    "Exit 2 when it will not compile, 13 when no entry could be evaluated.",
    (PATH,),
    json=JSON_LIST,
    options=_where,
)


def _line(value: str, command: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise UsageError("%s: LINE must be a positive whole number, not %s" % (command, json.dumps(value)))
    return int(value)


def _text(text: str) -> None:
    """Transcript text as the answer: exact to a pipe, terminal-safe on a terminal."""
    write_transcript_text(text if text.endswith("\n") else text + "\n")


def _claude_only(path: str, command: str) -> None:
    from termsprawl_context.store.harness_store import require_claude_record

    require_claude_record(path, command)


@command(CITE)
def run_cite(args) -> int:
    from termsprawl_context import cite

    _claude_only(args.path, "cite")
    if args.across is None and not args.path:
        raise UsageError("cite: PATH must not be empty")
    request = cite.CitationRequest(args.quote, cite.parse_sources(args.source))
    if args.across is not None:
        if not args.across:
            raise UsageError("cite: --across must not be empty")
        found = cite.resolve_across_sessions(args.path, args.across, request)
    elif args.session:
        found = cite.resolve_citation(args.path, request)
    else:
        found = cite.resolve_in_record(args.path, request)
    print_one(args.json, found.to_json, encode_path(found.path) + b":%d\n" % found.line)
    return 0


def _at_line(args, command_name: str) -> int:
    """The checked ``LINE`` of an at-a-line command, its record Claude Code's."""
    line = _line(args.line, command_name)
    _claude_only(args.path, command_name)
    return line


@command(RESULT_AT)
def run_result_at(args) -> int:
    from termsprawl_context import cite

    args.line = _at_line(args, "result-at")
    text, is_result = cite.tool_result_at(args.path, args.line)
    if not is_result:
        raise NotAToolResult("%s:%d is not a tool result the session produced" % (args.path, args.line))
    _text(text)
    return 0


@command(ENVELOPE_AT)
def run_envelope_at(args) -> int:
    from termsprawl_context import cite

    args.line = _at_line(args, "envelope-at")
    envelopes = cite.envelope_at(args.path, args.line)
    if args.json:
        print_list(True, envelopes, lambda text: {"path": args.path, "line": args.line, "envelope": text}, str)
    elif envelopes:
        _text("\n\n".join(envelopes))
    return 0


@command(AGENTS)
def run_agents(args) -> int:
    from termsprawl_context.store import background

    _claude_only(args.path, "agents")
    signals = background.background_agent_signals(args.path)
    alive = sorted(background.running(signals))
    data = {"running": alive, "signals": [s.to_json() for s in signals]}
    print_one(args.json, data, "".join(cell(agent) + "\n" for agent in alive))
    return 0


@command(QUERY)
def run_query(args) -> int:
    from termsprawl_context.transcript import query
    from termsprawl_context.transcript.record import check_readable, iter_entries

    path = args.path
    _claude_only(path, "query")
    if args.where:
        query.compile_where(args.where)  # refuse a bad expression before reading the record
    # Streamed: one entry held at a time, each match printed as it is found. The byte
    # pass first keeps a record that cannot be read whole a refusal with nothing printed.
    check_readable(path)
    found = query.iter_filter(iter_entries(path), args.where, include_sidechains=args.sidechains)
    prefix = encode_path(path)
    print_list(
        args.json,
        found,
        lambda e: {"path": path, "line": e.line, "record": e.record},
        lambda e: prefix + encode_text(":%d\t%s\t%s\n" % (e.line, cell(e.type), cell(e.uuid))),
    )
    return 0
