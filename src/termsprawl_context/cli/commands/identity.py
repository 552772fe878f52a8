from termsprawl_context._output import error_line
from termsprawl_context.cli.command import JSON_ONE, PATH, Spec, command, option, print_one, provider_of
from termsprawl_context.errors import EXIT_OK


IDENTITY = Spec(
    "identity",
    "Print the stable id of the conversation the transcript at PATH belongs to: its origin record's uuid, walked "
    "back across restarts through the project's other transcripts. A degraded answer prints the id and says why on "
    "stderr (exit 6).",
    (PATH,),
    json=JSON_ONE,
    options=option(
        "--projects-dir",
        metavar="DIR",
        help="look for the conversation's other transcripts in DIR's folder for the directory the session "
        "started in (default: the folder holding the record)",
    ),
)


@command(IDENTITY)
def run_identity(args) -> int:
    stable, degraded, unreadable, project_dir = provider_of(args.path).identity(args.path, args.projects_dir)
    for sibling in unreadable:
        error_line("could not read %s (skipped by the continuation walk)" % sibling)
    data = {
        "id": stable,
        "degraded": type(degraded).__name__ if degraded else None,
        "reason": degraded.message if degraded else None,
        "unreadable_siblings": list(unreadable),
        "path": args.path,
        "project_dir": project_dir,
    }
    print_one(args.json, data, stable + "\n")
    if degraded is not None:
        error_line("degraded identity: " + degraded.message)
        return degraded.exit_code
    return EXIT_OK
