from typing import Any

from termsprawl_context._output import error_line
from termsprawl_context.cli.command import JSON_LIST, Arg, Spec, add_count, cell, command, print_list
from termsprawl_context.cli.command import STORE_OPTIONS, stores
from termsprawl_context.store import search


def _search_options(parser) -> None:
    parser.add_argument(
        "--in",
        dest="kinds",
        default=None,
        metavar="KINDS",
        help="texts searched, a subset of %s (default: %s)" % (",".join(search.KINDS), ",".join(search.DEFAULT_KINDS)),
    )
    add_count(parser, "--limit", "at most N results", search.DEFAULT_LIMIT)
    parser.add_argument(
        "--regex", action="store_true", help="TEXT is a regular expression (Python's, case-insensitive)"
    )
    parser.add_argument(
        "--no-subagents",
        dest="subagents",
        action="store_false",
        help="leave out the sessions' sub-agent records (searched by default, after each session)",
    )


_HELP = (
    "Print the lines of the store's sessions whose text holds TEXT (case-insensitively), newest session first: "
    "<path>:<line>, which text matched, the session's title, a snippet. No match prints nothing (exit 0)."
)
SEARCH = Spec("search", _HELP, (Arg("text", "TEXT", "the text to find"),), STORE_OPTIONS, JSON_LIST, _search_options)


def _hit_row(hit) -> str:
    return "%s:%d\t%s\t%s\t%s\n" % (hit.path, hit.line, hit.kind, cell(hit.title), cell(hit.snippet))


@command(SEARCH)
def run_search(args) -> None:
    # No --in: the default kinds, and every kind in a sub-agent's record (search.py says why).
    kinds = search.parse_kinds(args.kinds) if args.kinds is not None else search.DEFAULT_KINDS
    sub_kinds = kinds if args.kinds is not None else search.SUBAGENT_DEFAULT_KINDS
    chosen = stores(args)
    hits: Any = iter(())
    for provider, store in chosen:
        if provider.root_option:  # its store is walked and its records read as written
            hits = search.search_store(
                args.text, store, args.project, kinds, args.limit, args.regex, args.subagents, sub_kinds, provider
            )
    others = [provider for provider, _ in chosen if not provider.root_option]
    found = search.search_other(hits, args.text, args.regex, others, kinds, args.limit)
    if not print_list(args.json, found, lambda hit: hit._asdict(), _hit_row):
        error_line("no match for %s" % cell(args.text))  # no results: exit 0, nothing on stdout
