from termsprawl_context._output import error_line
from termsprawl_context.cli.command import PATH, Spec, command, option
from termsprawl_context.store.freshness import check_fresh


FRESH = Spec(
    "fresh",
    "Decline a transcript written to in the last 60 seconds: exit 9 with a warning; exit 0 if older (silent) or "
    "with --allow-in-progress (a note); exit 1 if it is not a regular file.",
    (PATH,),
    options=option(
        "--allow-in-progress",
        action="store_true",
        help="read it anyway (the PreCompact capture path): a note instead of exit 9",
    ),
)


@command(FRESH)
def run_fresh(args) -> int:
    code, message = check_fresh(args.path, args.allow_in_progress)
    if message is not None:
        error_line(message)
    return code
