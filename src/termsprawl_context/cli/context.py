"""The dump: ``termsprawl-context --cwd DIR --self NODE``.

The argv contract is the context layer's, exact: only ``--cwd`` and ``--self`` (a later
occurrence wins), any other word is refused at once, both are required; every refusal
is one stderr line and exit 2. An absent flag has a default: ``--self`` is
``$TERMSPRAWL_NODE_ID`` (set but empty: its own error), ``--cwd`` the project found from
here (``workspace.project``); with neither flag nor default the answer is the context
layer's ``expected --cwd and --self``. The peer walk is ``termsprawl_context.dump``'s (shared with
``doctor``); this module keeps the argv parse and the printing: one write of everything,
and nothing at all when nothing is printable.
"""

from __future__ import annotations

from collections import namedtuple

from termsprawl_context import dump
from termsprawl_context.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Callable, Dict, List, Optional

PEER_SEPARATOR = dump.PEER_SEPARATOR


class ContextArgs(namedtuple("ContextArgs", "cwd self_id")):
    """The dump's two arguments: the project directory and the node asking."""

    __slots__ = ()


def parse_context_args(argv: List[str]) -> ContextArgs:
    """The two values, or UsageError with the context layer's exact texts."""
    values: Dict[str, Optional[str]] = {"--cwd": None, "--self": None}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg not in values:
            raise UsageError("unexpected argument: %s" % arg)
        if i + 1 >= len(argv):
            raise UsageError("missing value for %s" % arg)
        values[arg] = argv[i + 1]  # taken as is, even when it looks like a flag
        i += 2
    cwd, self_id = values["--cwd"], values["--self"]
    if cwd is None or self_id is None:
        # Absent flags have defaults (the project found from here, $TERMSPRAWL_NODE_ID);
        # imported only then, so the app's explicit calls pay nothing for them.
        from termsprawl_context.workspace.project import default_project, default_self

        self_id = default_self(self_id)
        cwd = default_project() if cwd is None else cwd
    if not cwd or not self_id:
        raise UsageError("expected --cwd and --self")
    return ContextArgs(cwd, self_id)


class ContextIO(dump.ContextIO):
    """The walk's IO plus where the dump's text goes; tests pass their own."""

    def print(self, text: str) -> None:
        raise NotImplementedError


def run_context(args: ContextArgs, io: ContextIO) -> int:
    """Print every linked peer's recent turns in one write; always 0."""
    found = dump.collect(args.self_id, io)
    if found:
        io.print(dump.render(found))
    return 0


class RealContextIO(dump.ProjectIO, ContextIO):
    """The walk bound to the project's files, printing to stdout (or ``write``)."""

    def __init__(self, cwd: str, write: Optional[Callable[[str], None]] = None) -> None:
        super().__init__(cwd)
        self._write = write

    def print(self, text: str) -> None:
        if self._write is not None:
            self._write(text + "\n")
            return
        from termsprawl_context._output import write_out

        write_out(text + "\n")


def run_dump(argv: List[str]) -> int:
    args = parse_context_args(argv)
    return run_context(args, RealContextIO(args.cwd))
