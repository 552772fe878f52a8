"""``identity``: print the stable id of a transcript's conversation."""

from termsprawl_context._output import error_line
from termsprawl_context.cli.command import JSON_ONE, PATH, Spec, command, option, print_one
from termsprawl_context.cli.store_options import not_recorded, readable
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
    path = args.path
    other = readable(path)
    from termsprawl_context.harness import DEFAULT_HARNESS, get

    if other is not None:
        stable = other.stable_id(path)
        if stable is None:
            raise not_recorded("identity", other, path)
        data = dict(_identity_data(stable, None, [], path, None), harness=other.name)
        print_one(args.json, data, stable + "\n")
        return EXIT_OK
    answer, project_dir = get(DEFAULT_HARNESS).identity_walk(path, args.projects_dir)
    for sibling in answer.unreadable_siblings:
        error_line("could not read %s (skipped by the continuation walk)" % sibling)
    data = _identity_data(answer.id, answer.degraded, answer.unreadable_siblings, path, project_dir)
    print_one(args.json, data, answer.id + "\n")
    if answer.degraded is not None:
        error_line("degraded identity: " + answer.degraded.message)
        return answer.degraded.exit_code
    return EXIT_OK


def _identity_data(stable: str, degraded, siblings, path: str, project_dir) -> dict:
    return {
        "id": stable,
        "degraded": type(degraded).__name__ if degraded else None,
        "reason": degraded.message if degraded else None,
        "unreadable_siblings": list(siblings),
        "path": path,
        "project_dir": project_dir,
    }
