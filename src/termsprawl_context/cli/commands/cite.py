from termsprawl_context import cite
from termsprawl_context._output import encode_path
from termsprawl_context.cli.command import JSON_ONE, PATH, Arg, Spec, command, print_one
from termsprawl_context.errors import UsageError
from termsprawl_context.harness import require_native_records


def _cite_options(parser) -> None:
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


@command(CITE)
def run_cite(args) -> None:
    require_native_records(args.path, "cite")
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
