import os

from termsprawl_context._output import error_line, write_path
from termsprawl_context.cli.command import ANY_NODE, PATH, Spec, command, project_dir, require_ids
from termsprawl_context.errors import NotFound, WriteFailed
from termsprawl_context.harness import for_path
from termsprawl_context.workspace import index


INDEX = Spec(
    "index",
    "Read or write the transcript path recorded for a node.",
    actions=(
        Spec("get", "print the path recorded for NODE (exit 1 when none)", (ANY_NODE,), ("cwd",)),
        Spec(
            "set",
            "record PATH as NODE's transcript, as given: a relative PATH is taken from the project directory when "
            "read, not from where this runs",
            (ANY_NODE, PATH._replace(help="a transcript path, recorded as given")),
            ("cwd",),
        ),
    ),
)


@command(INDEX)
def run_index(args) -> None:
    args.cwd = project_dir(args.cwd, "index " + args.action, writing=args.action == "set")
    require_ids("index " + args.action, args.node)
    if args.action == "get":
        recorded = index.read_transcript_path(args.cwd, args.node)
        if recorded is None:
            raise NotFound("index get: no transcript path recorded for %s in %s" % (args.node, args.cwd))
        write_path(recorded)
        return
    resolved = index.resolve_transcript_path(args.cwd, args.path)
    harness = for_path(resolved).name  # the one whose store or records it is
    if not index.record_transcript_path(args.cwd, args.node, args.path, harness):
        written = os.path.relpath(index.index_file_path(args.cwd, args.node), args.cwd)
        raise WriteFailed("index set: cannot write %s under %s" % (written, args.cwd))
    if not os.path.isfile(resolved):
        error_line("index set: note: %s is not a file (yet); recorded anyway" % args.path)
