from termsprawl_context.cli.command import PATH, Spec, command, provider_of
from termsprawl_context.errors import UsageError


def _belongs_options(parser) -> None:
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--session", metavar="SESSION", help="a session id")
    which.add_argument("--tree", metavar="DIR", help="a working directory")


_HELP = (
    "Exit 0 if the transcript at PATH may belong to the session SESSION (--session) or was written in DIR or "
    "beneath it (--tree); exit 5, naming what its records say, if they say otherwise."
)
BELONGS = Spec("belongs", _HELP, (PATH,), options=_belongs_options)


@command(BELONGS)
def run_belongs(args) -> None:
    harness = provider_of(args.path)
    by_session = args.session is not None
    value = args.session if by_session else args.tree
    if not value:
        raise UsageError("belongs: %s must not be empty" % ("--session" if by_session else "--tree"))
    (harness.check_session if by_session else harness.check_tree)(args.path, value)
