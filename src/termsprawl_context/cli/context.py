"""The dump: ``termsprawl-context --cwd DIR --self NODE``: its argv parse and its printing.

The argv contract is the context layer's, exact: only ``--cwd``, ``--self`` (a later one
wins) and the hand-off's options; anything else is one stderr line and exit 2 (docs/dump.md
has the defaults). The peer walk is ``termsprawl_context.dump``'s; the answer is one write.
"""

from termsprawl_context import dump, plain_tuple
from termsprawl_context._output import error_line, write_transcript_text

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple

    class ContextArgs(NamedTuple):
        """The project directory and the node asking."""

        cwd: str
        self_id: str
else:
    ContextArgs = plain_tuple("ContextArgs", "cwd self_id")


# The hand-off's options (opt-in: without them the output is the context layer's, exact).
HANDOFF_OPTIONS = ("--turns", "--max-chars", "--format")


def _usage_error(message: str) -> Exception:
    """The refusal of a bad argv; errors.py is loaded only when one is raised."""
    from termsprawl_context.errors import UsageError

    return UsageError(message)


def parse_dump_argv(argv: "List[str]") -> "Tuple[ContextArgs, Dict[str, Any]]":
    """``(ContextArgs, the hand-off options given)``, each value checked (a bad one: exit 2)."""
    values = {"--cwd": None, "--self": None}  # type: Dict[str, Optional[str]]
    options = {}  # type: Dict[str, Any]
    for i in range(0, len(argv), 2):  # each flag and its value
        arg = argv[i]
        if arg not in values and arg not in HANDOFF_OPTIONS:
            raise _usage_error("unexpected argument: %s" % arg)
        if i + 1 >= len(argv):
            raise _usage_error("missing value for %s" % arg)
        if arg in values:
            values[arg] = argv[i + 1]  # taken as is, even when it looks like a flag
        else:
            options[arg] = _option_value(arg, argv[i + 1])
    cwd, self_id = values["--cwd"], values["--self"]
    from_env = self_id is None
    if cwd is None or self_id is None:
        # Absent flags have defaults (the project found from here, $TERMSPRAWL_NODE_ID);
        # imported only then, so the app's explicit calls pay nothing for them.
        from termsprawl_context.workspace.project import NODE_ID_ENV, default_project, default_self

        self_id = default_self(self_id)
        if cwd is None:
            cwd = default_project()
            if cwd and from_env and self_id is None:  # (an explicit --cwd keeps the seed's words)
                raise _usage_error(
                    "expected --cwd and --self: $%s is not set, so this agent's node is unknown: give --self NODE, "
                    "or start the agent as %s=<node> (e.g. `%s=alice claude`)" % (NODE_ID_ENV, NODE_ID_ENV, NODE_ID_ENV)
                )
    if not cwd or not self_id:
        raise _usage_error("expected --cwd and --self")
    if from_env:
        _check_env_id(self_id)
    return ContextArgs(_served_project(cwd), self_id), options


def _served_project(cwd: str) -> str:
    """``cwd``, or, run as a project's installed copy, that project, refusing a ``cwd`` that
    resolves to any other: the read rules init writes let that copy run unasked, so no
    argument may point it elsewhere."""
    from termsprawl_context.workspace.layout import running_project, serves

    own = running_project()
    if own is None:
        return cwd
    if not serves(own, cwd):
        raise _usage_error(
            "--cwd %s is not this project (%s): the command installed in a project reads only that project's "
            "linked peers; run the other project's own .termsprawl/bin/termsprawl-context" % (cwd, own)
        )
    return own


def _check_env_id(self_id: str) -> None:
    """An unsafe id from $TERMSPRAWL_NODE_ID prints nothing (fail open), saying why on stderr."""
    from termsprawl_context.workspace.ids import SAFE_ID_SHOWN, is_safe_id, shown_id

    if not is_safe_id(self_id):
        from termsprawl_context.workspace.project import NODE_ID_ENV

        error_line(
            "$%s=%s is not a safe node id (%s): nothing is printed; set it to this agent's node id"
            % (NODE_ID_ENV, shown_id(self_id), SAFE_ID_SHOWN)
        )


def _option_value(option: str, value: str) -> "Any":
    if option == "--format":
        from termsprawl_context.handoff_render import FORMATS

        if value not in FORMATS:
            raise _usage_error("invalid value for --format: %s (expected %s)" % (value, " or ".join(FORMATS)))
        return value
    from termsprawl_context.cli._args import positive_int

    number = positive_int(value)
    if number is None:
        raise _usage_error("invalid value for %s: %s (expected a positive integer)" % (option, value))
    return number


class ContextIO(dump.ContextIO):
    """The walk's IO and where the text goes; tests pass their own."""

    def print(self, text: str) -> None:
        raise NotImplementedError


def run_context(args: ContextArgs, io: ContextIO) -> int:
    """Print every linked peer's recent turns in one write; always 0."""
    found = dump.collect(args.self_id, io)
    if found:
        io.print(dump.render(found))
    return 0


class RealContextIO(dump.ProjectIO, ContextIO):
    """The walk over the project's files, printing to stdout (or ``write``)."""

    def __init__(self, cwd: str, write: "Optional[Callable[[str], None]]" = None) -> None:
        super().__init__(cwd)
        self._write = write

    def print(self, text: str) -> None:
        (self._write or write_transcript_text)(text + "\n")


def run_handoff(args: ContextArgs, options: dict, io: ContextIO) -> int:
    """Print every linked peer's hand-off in one write; always 0. Markdown prints nothing
    when no peer has a turn; JSON prints its document, with no peers."""
    from termsprawl_context import handoff, handoff_render

    fmt = options.get("--format", handoff_render.FORMAT_MARKDOWN)
    sources = list(handoff.linked_sources(args.self_id, io))
    for note in handoff.gone_notes(args.cwd, sources):
        error_line(note)  # the peer is still skipped, as the dump skips it, but not without a word
    peers = handoff.build_handoff(
        sources,
        options.get("--turns", handoff.DEFAULT_TURNS),
        options.get("--max-chars", handoff.DEFAULT_MAX_CHARS),
        lines=fmt == handoff_render.FORMAT_JSON,
    )
    text = handoff_render.render(peers, fmt)
    if text:
        io.print(text)
    return 0


def run_dump(argv: "List[str]") -> int:
    args, options = parse_dump_argv(argv)
    if options:
        return run_handoff(args, options, RealContextIO(args.cwd))
    return run_context(args, RealContextIO(args.cwd))
