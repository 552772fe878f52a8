"""The dump: ``termsprawl-context --cwd DIR --self NODE``.

The argv contract is the context layer's, exact: only ``--cwd`` and ``--self`` (a later
occurrence wins), any other word is refused at once, both are required; every refusal
is one stderr line and exit 2. An absent flag has a default: ``--self`` is
``$TERMSPRAWL_NODE_ID`` (set but empty: its own error), ``--cwd`` the project found from
here (``workspace.project``); with neither flag nor default the answer is the context
layer's ``expected --cwd and --self``. The run loop is pure over an injected IO object, so tests
drive it in-process; ``RealContextIO`` binds it to the project's files. The run never
fails: peers without an index entry, a readable file or printable turns are skipped,
and when nothing is printable nothing at all is printed.
"""

from __future__ import annotations

from collections import namedtuple

from termsprawl_context.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Callable, List, Optional

    from termsprawl_context.transcript.turns import Turn

PEER_SEPARATOR = "\n---\n"


class ContextArgs(namedtuple("ContextArgs", "cwd self_id")):
    """The dump's two arguments: the project directory and the node asking."""

    __slots__ = ()


def parse_context_args(argv: List[str]) -> ContextArgs:
    """The two values, or UsageError with the context layer's exact texts."""
    values = {"--cwd": None, "--self": None}
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


class ContextIO(object):
    """What the run loop needs from the world; tests pass their own."""

    def peers(self, self_id: str) -> List[str]:
        raise NotImplementedError

    def transcript_path(self, peer_id: str) -> Optional[str]:
        raise NotImplementedError

    def turns(self, path: str) -> List[Turn]:
        raise NotImplementedError

    def node_title(self, peer_id: str) -> Optional[str]:
        raise NotImplementedError

    def print(self, text: str) -> None:
        raise NotImplementedError


def run_context(args: ContextArgs, io: ContextIO) -> int:
    """Print every linked peer's recent turns in one write; always 0."""
    found = []
    for peer in io.peers(args.self_id):
        path = io.transcript_path(peer)
        if not path:
            continue
        turns = io.turns(path)
        if not turns:
            continue
        title = io.node_title(peer)
        found.append((peer, peer if title is None else title, turns))
    if found:
        # Imported only now: a run with nothing to print (a fresh project) never
        # loads the transcript reader or json.
        from termsprawl_context.transcript.turns import format_linked_context

        io.print(PEER_SEPARATOR.join(format_linked_context(*peer) for peer in found))
    return 0


class RealContextIO(ContextIO):
    """The run loop bound to ``<cwd>/.termsprawl`` and the transcripts it names."""

    def __init__(self, cwd: str, write: Optional[Callable[[str], None]] = None) -> None:
        self.cwd = cwd
        self._write = write

    def peers(self, self_id: str) -> List[str]:
        from termsprawl_context.workspace.links import peers_of

        return peers_of(self.cwd, self_id)

    def transcript_path(self, peer_id: str) -> Optional[str]:
        from termsprawl_context.workspace.index import read_transcript_path, resolve_transcript_path

        recorded = read_transcript_path(self.cwd, peer_id)
        return resolve_transcript_path(self.cwd, recorded) if recorded else None

    def turns(self, path: str) -> List[Turn]:
        from termsprawl_context.transcript.turns import read_turns

        return read_turns(path)

    def node_title(self, peer_id: str) -> Optional[str]:
        from termsprawl_context.workspace.titles import node_title

        return node_title(self.cwd, peer_id)

    def print(self, text: str) -> None:
        if self._write is not None:
            self._write(text + "\n")
            return
        from termsprawl_context.cli._io import write_out

        write_out(text + "\n")


def run_dump(argv: List[str]) -> int:
    args = parse_context_args(argv)
    return run_context(args, RealContextIO(args.cwd))
