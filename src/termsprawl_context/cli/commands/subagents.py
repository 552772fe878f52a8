"""``subagents``: print the sub-agent records a transcript dispatched."""

from termsprawl_context.cli.command import JSON_LIST, PATH, Spec, command, option, print_list
from termsprawl_context.cli.store_options import not_recorded, path_line, readable
from termsprawl_context.errors import EXIT_OK, SubagentsUnreadable


SUBAGENTS = Spec(
    "subagents",
    "Print the sub-agent records the transcript at PATH dispatched (one level, sorted); --tree: every one beneath "
    "it, nested delegations and workflows included.",
    (PATH,),
    json=JSON_LIST,
    options=option("--tree", action="store_true", help="the whole tree, in walk order"),
)


@command(SUBAGENTS)
def run_subagents(args) -> int:
    other = readable(args.path)
    from termsprawl_context.harness import DEFAULT_HARNESS, get

    if other is not None:
        return _other_subagents(args.path, other, args)
    native = get(DEFAULT_HARNESS)
    found = native.subagent_tree(args.path) if args.tree else native.subagent_paths(args.path)
    print_list(args.json, found, _with_meta, path_line)
    return EXIT_OK


def _with_meta(record: str) -> dict:
    from termsprawl_context.harness import DEFAULT_HARNESS, get

    item = {"path": record, "meta": None}
    try:
        item["meta"] = get(DEFAULT_HARNESS).subagent_meta(record)
    except SubagentsUnreadable as exc:
        item["meta_error"] = exc.message
    return item


def _other_subagents(path: str, harness, args) -> int:
    """Another harness's sub-agent transcripts, as its records link them; a named
    refusal when they do not."""
    found = harness.subagent_tree(path) if args.tree else harness.subagent_paths(path)
    if found is None:
        raise not_recorded("subagents", harness, path)
    print_list(args.json, found, lambda p: {"path": p, "meta": None, "harness": harness.name}, path_line)
    return EXIT_OK
