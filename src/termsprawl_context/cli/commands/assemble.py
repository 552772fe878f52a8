import sys

from termsprawl_context._output import byte_sink
from termsprawl_context.cli.command import UUID, Spec, command, session_uuid
from termsprawl_context.store.assemble import assemble


_HELP = (
    "Locate the canonical transcript of a uuid and print its messages (lines with a non-null uuid), deduplicated "
    "keep-last, ordered by (timestamp, first seen), as their original lines."
)
ASSEMBLE = Spec("assemble", _HELP, (UUID,), ("projects-dir",))


@command(ASSEMBLE)
def run_assemble(args) -> None:
    uuid, projects = session_uuid(args)
    assemble(uuid, projects, byte_sink(), sys.stderr)
    sys.stdout.flush()
