from termsprawl_context.cli.command import JSON_ONE, PATH, Spec, command, path_line, print_one, provider_of


_HELP = (
    "Print the record that dispatched the sub-agent at PATH (its immediate parent), found through its meta file's "
    "toolUseId. Exit 1, saying why, when none can be named."
)
PARENT = Spec("parent", _HELP, (PATH,), json=JSON_ONE)


@command(PARENT)
def run_parent(args) -> None:
    parent, call = provider_of(args.path).dispatcher(args.path)
    print_one(args.json, {"path": args.path, "parent": parent, "tool_use_id": call}, path_line(parent))
