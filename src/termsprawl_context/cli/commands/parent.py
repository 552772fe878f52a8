"""``parent``: print the record that dispatched a sub-agent."""

from termsprawl_context.cli.command import JSON_ONE, PATH, Spec, command, print_one
from termsprawl_context.cli.store_options import not_recorded, path_line, readable
from termsprawl_context.errors import EXIT_OK, NoParent


PARENT = Spec(
    "parent",
    "Print the record that dispatched the sub-agent at PATH (its immediate parent), found through its meta file's "
    "toolUseId. Exit 1, saying why, when none can be named.",
    (PATH,),
    json=JSON_ONE,
)


@command(PARENT)
def run_parent(args) -> int:
    other = readable(args.path)
    from termsprawl_context.harness import DEFAULT_HARNESS, get

    if other is not None:
        return _other_parent(args.path, other, args)
    native = get(DEFAULT_HARNESS)
    parent, why = native.dispatcher(args.path)
    if not parent:
        raise NoParent("transcript: parent: " + why)

    def data():
        meta = native.subagent_meta(args.path)
        return {"path": args.path, "parent": parent, "tool_use_id": meta["tool_use_id"] if meta else ""}

    print_one(args.json, data, path_line(parent))
    return EXIT_OK


def _other_parent(path: str, harness, args) -> int:
    """Another harness's sub-agent's parent, as its own records name it."""

    answer = harness.subagent_parent(path)
    if answer is None:
        raise not_recorded("parent", harness, path)
    if not answer[0]:
        raise NoParent("transcript: parent: %s is not a sub-agent's record" % path)
    if not answer[1]:
        raise NoParent("transcript: parent: the record its %s records name is not on disk" % harness.label)
    print_one(args.json, {"path": path, "parent": answer[1], "tool_use_id": ""}, path_line(answer[1]))
    return EXIT_OK
