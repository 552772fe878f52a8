from termsprawl_context.cli.command import JSON_LIST, PATH, Spec, command, option, path_line, print_list, provider_of
from termsprawl_context.errors import NotRecorded, SubagentsUnreadable


SUBAGENTS = Spec(
    "subagents",
    "Print the sub-agent records the transcript at PATH dispatched (one level, sorted); --tree: every one beneath "
    "it, nested delegations and workflows included.",
    (PATH,),
    json=JSON_LIST,
    options=option("--tree", action="store_true", help="the whole tree, in walk order"),
)


@command(SUBAGENTS)
def run_subagents(args) -> None:
    harness = provider_of(args.path)
    found = harness.subagent_tree(args.path) if args.tree else harness.subagent_paths(args.path)
    if found is None:
        raise NotRecorded("subagents", harness.label, args.path)

    def with_meta(record: str) -> dict:
        item = {"path": record, "meta": None}
        try:
            item["meta"] = harness.subagent_meta(record)
        except SubagentsUnreadable as exc:
            item["meta_error"] = exc.message
        return item

    print_list(args.json, found, with_meta, path_line)
