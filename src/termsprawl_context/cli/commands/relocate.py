import os

from termsprawl_context.cli.command import JSON_ONE, Arg, Spec, command, option, path_line, print_one
from termsprawl_context.harness import for_path
from termsprawl_context.store import paths


RELOCATE = Spec(
    "relocate",
    "Print where the record the harness reported at PATH really is: PATH when it exists, else the same place under "
    "another project folder whose file carries the session's id, else PATH.",
    (Arg("path", "PATH", "a transcript path as a hook payload reported it"),),
    ("projects-dir",),
    JSON_ONE,
    option(
        "--source",
        metavar="SOURCE",
        help="the SessionStart source; 'startup' is never relocated (its record is not written yet)",
    ),
)


@command(RELOCATE)
def run_relocate(args) -> None:
    provider = for_path(os.path.abspath(args.path))
    found = provider.hook_transcript(args.path, "", args.source, paths.projects_dir(args.projects_dir))
    print_one(args.json, {"path": found, "reported": args.path, "relocated": found != args.path}, path_line(found))
