import sys

from termsprawl_context._output import byte_sink
from termsprawl_context.cli.command import PATH, Spec, command
from termsprawl_context.harness import require_native_records
from termsprawl_context.store.assemble import assemble_file


_HELP = (
    "Print the messages of exactly this transcript file, as assemble does (no locate). Exit 1 if it is not a "
    "readable regular file."
)
ASSEMBLE_FILE = Spec("assemble-file", _HELP, (PATH,))


@command(ASSEMBLE_FILE)
def run_assemble_file(args) -> None:
    require_native_records(args.path, "assemble-file")
    assemble_file(args.path, byte_sink(), sys.stderr)
    sys.stdout.flush()
