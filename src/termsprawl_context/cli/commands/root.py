from termsprawl_context.cli.command import JSON_ONE, PATH, Spec, command, path_line, print_one, provider_of
from termsprawl_context.errors import NoParent


_HELP = (
    "Print the root record of the session the transcript at PATH belongs to (itself for a root; climbs nested "
    "delegations). Exit 1 for a sub-agent's record whose root is not on disk."
)
ROOT = Spec("root", _HELP, (PATH,), json=JSON_ONE)


@command(ROOT)
def run_root(args) -> None:
    root = provider_of(args.path).session_root(args.path)
    if not root:
        raise NoParent.orphan(args.path)
    print_one(args.json, {"path": args.path, "root": root, "is_subagent": root != args.path}, path_line(root))
