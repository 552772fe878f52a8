import sys

from termsprawl_context._output import write_path
from termsprawl_context.cli.command import UUID, Spec, command, session_uuid
from termsprawl_context.store.locate import locate_or_refuse


_HELP = (
    "Print the canonical transcript holding a session or message uuid: among <projects>/*/*.jsonl that hold it "
    "(file name or a line's uuid), the one with the latest timestamp. Exit 1 if none does."
)
LOCATE = Spec("locate", _HELP, (UUID,), ("projects-dir",))


@command(LOCATE)
def run_locate(args) -> None:
    uuid, projects = session_uuid(args)
    write_path(locate_or_refuse(uuid, projects, sys.stderr))
