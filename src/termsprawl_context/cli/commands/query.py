from termsprawl_context._output import encode_path, encode_text
from termsprawl_context.cli.command import JSON_LIST, PATH, Spec, cell, command, print_list
from termsprawl_context.harness import require_native_records
from termsprawl_context.transcript import query
from termsprawl_context.transcript.record import check_readable, iter_entries


def _where(parser) -> None:
    parser.add_argument("--where", required=True, metavar="EXPR", help='e.g. type == "user"; "" admits all')
    parser.add_argument("--sidechains", action="store_true", help="include sub-agents' sidechain entries")


_HELP = (
    "Print the entries of PATH for which EXPR holds, as <path>:<line> TYPE UUID (tab-separated). EXPR is the small "
    "expression language of docs/citations.md (type, uuid, parentUuid, logicalParentUuid, timestamp, isSidechain, message, "
    "toolUseResult; == != < <= > >= and or not in contains startsWith endsWith, ?. [i] int() len() + - * / %). "
    "Exit 2 when it will not compile, 13 when no entry could be evaluated."
)
QUERY = Spec("query", _HELP, (PATH,), json=JSON_LIST, options=_where)


@command(QUERY)
def run_query(args) -> None:
    path = args.path
    require_native_records(path, "query")
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
