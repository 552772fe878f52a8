"""``links``: manage links between nodes (``workspace.links``); each refusal carries its exit code."""

import os

from termsprawl_context._output import error_line
from termsprawl_context.cli.command import ANY_NODE, JSON_LIST, JSON_ONE, Spec, command, print_list, print_one
from termsprawl_context.cli.command import project_dir, require_ids
from termsprawl_context.errors import Refusal, SelfLink, WriteFailed
from termsprawl_context.workspace.layout import state_path
from termsprawl_context.workspace.links import add_link, link_file_path, peers_of, remove_link, scan_link_files


_TWO_NODES = (ANY_NODE._replace(dest="a"), ANY_NODE._replace(dest="b", metavar="PEER", help="the node to link it with"))

LINKS = Spec(
    "links",
    "List, add or remove links between nodes, or list a node's peers. Exit 2 for an invalid node id or a node "
    "linked to itself, 1 when the link file cannot be written.",
    actions=(
        Spec("list", "every valid link (ignored link files are named on stderr)", (), ("cwd",), JSON_LIST),
        Spec("add", "link NODE and PEER (idempotent; refreshes the discovery markers)", _TWO_NODES, ("cwd",), JSON_ONE),
        Spec("remove", "remove the link between NODE and PEER", _TWO_NODES, ("cwd",), JSON_ONE),
        Spec("peers", "the nodes linked to NODE", (ANY_NODE,), ("cwd",), JSON_LIST),
    ),
)


@command(LINKS)
def run_links(args) -> None:
    args.searched = args.cwd is None  # no --cwd: the project is looked for from here
    args.cwd = project_dir(args.cwd, "links " + args.action, writing=args.action == "add")
    require_ids("links " + args.action, *[getattr(args, name) for name in ("a", "b", "node") if name in args])
    {"list": _links_list, "add": _links_add, "remove": _links_remove, "peers": _links_peers}[args.action](args)


def _links_list(args) -> None:
    if args.searched and not os.path.isdir(state_path(args.cwd)):
        # A list answer with nothing in it: exit 0, one stderr line saying where it looked.
        error_line(
            "links list: no project found at or above %s (no .termsprawl/): run `termsprawl-context init` there, "
            "or give --cwd DIR" % os.path.abspath(args.cwd)
        )
        return
    files = scan_link_files(args.cwd)
    valid = [f for f in files if f.pair is not None]
    ignored = [f.name for f in files if f.pair is None]
    print_list(
        args.json, valid, lambda f: {"a": f.pair.a, "b": f.pair.b, "path": f.path}, lambda f: "%s -- %s\n" % f.pair
    )
    if ignored:
        error_line("links list: ignored (not valid link files): %s" % ", ".join(ignored))


def _links_add(args) -> None:
    from termsprawl_context.workspace.discovery import ensure_context_discovery

    try:
        path = add_link(args.cwd, args.a, args.b)
    except Refusal as refusal:  # SelfLink (2), WriteFailed (1): told as this action's, the code the class's
        raise type(refusal)("links add: " + refusal.message) from None
    ensure_context_discovery(args.cwd)  # as the app does when a link is added
    shown = "linked %s and %s (%s)\n" % (args.a, args.b, os.path.relpath(path, args.cwd))
    print_one(args.json, {"linked": sorted([args.a, args.b]), "path": path}, shown)


def _links_remove(args) -> None:
    if args.a == args.b:
        raise SelfLink("links remove: " + SelfLink.default)
    try:
        removed = remove_link(args.cwd, args.a, args.b)
    except WriteFailed as refusal:  # behind a symlink leaving the project, or itself one
        raise WriteFailed("links remove: " + refusal.message) from None
    # A hand-written file naming the same pair under another name keeps them linked.
    still = args.b in peers_of(args.cwd, args.a)
    if removed:
        text = "removed the link between %s and %s\n" % (args.a, args.b)
    else:
        text = "no link file %s (nothing to remove)\n" % os.path.relpath(
            link_file_path(args.cwd, args.a, args.b), args.cwd
        )
    print_one(args.json, {"removed": removed, "a": args.a, "b": args.b, "still_linked": still}, text)
    if still:
        error_line(
            "links remove: another file in .termsprawl/links still links %s and %s "
            "(see `termsprawl-context links list --json`)" % (args.a, args.b)
        )


def _links_peers(args) -> None:
    peers = peers_of(args.cwd, args.node)
    print_list(args.json, peers, lambda peer: {"node": args.node, "peer": peer}, lambda peer: peer + "\n")
