"""Every exception the package raises (but ``_output.StdoutFailed``, on the dump's path, which
never loads this module), one class a meaning, told apart by class, never by the words; the CLI
prints a refusal as one ``termsprawl-context: <message>`` line and exits with its code."""

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import Any, Callable, Sequence, Union


# Exit codes shared by every command; docs/gen_cli.py writes each line's comment into docs/cli.md's table.
EXIT_OK = 0  # done (the dump and `hook` always exit 0: they fail open)
EXIT_FAILURE = 1  # the thing asked for does not exist or could not be read
EXIT_USAGE = 2  # the command line itself is wrong
EXIT_WRONG_RECORD = 5  # `belongs`: the record names another session, or was written in another tree
EXIT_DEGRADED = 6  # `identity`: the id printed is the furthest the continuation walk reached, not the origin
EXIT_TOO_FRESH = 9  # `fresh`: the transcript was written to less than a minute ago
EXIT_CITE_NOT_FOUND = 10  # `cite`: the quote is in no entry of the pools searched
EXIT_CITE_AMBIGUOUS = 11  # `cite`: the quote is in more than one entry
EXIT_CITE_REFUSED = 12  # `cite`: a pool that cannot be searched (a sub-agent's user pool, no root; an unmatched answer)
EXIT_QUERY_NEVER_RAN = 13  # `query`: the expression could be evaluated against no entry
EXIT_INTERNAL = 70  # a bug of ours; reported in one line instead of a traceback
EXIT_OUTPUT_FAILED = 74  # the answer could not be written to stdout (full disk, stdout closed); EX_IOERR
EXIT_INTERRUPTED = 130  # Ctrl-C: 128 + SIGINT, as a shell reports it


# --- the bases ---------------------------------------------------------------------------------


class Refusal(Exception):
    """Base of every refusal the package raises on purpose."""

    exit_code = EXIT_FAILURE
    default = ""  # the message of a class whose cases all say the same
    template = ""  # the message of a class built from its arguments: ``template % arguments``

    def __init__(self, message: str = "", *more: str) -> None:
        message = self.template % ((message,) + more) if self.template else message or self.default
        super().__init__(message)  # str() is the message: its one argument
        self.message = message


class UsageError(Refusal):
    """The command line does not fit the command's contract (an empty quote, no path...)."""

    exit_code = EXIT_USAGE


class NotFound(Refusal):
    """What was named (a session, a file, an index entry, the artifact...) is not there."""


# --- the command line, the project and the files it owns ---------------------------------------


class BadNodeId(UsageError):
    """A node id that cannot be one (and so cannot become a file name)."""

    default = "invalid node id"


class SelfLink(UsageError):
    """A node linked to itself."""

    default = "cannot link a node to itself"


class InsideProject(UsageError):
    """A writing command (``init`` too) would start a project inside another; ``fix``: what instead."""

    def __init__(self, command: str, cwd: str, outer: str, fix: str = "") -> None:
        fix = fix or "use --cwd %s, or omit --cwd to use it from anywhere inside" % outer
        super().__init__("%s: %s lies inside the project %s (it has .termsprawl/); %s" % (command, cwd, outer, fix))


class WriteFailed(Refusal):
    """A file of ``.termsprawl/`` (a link, an index entry) could not be written or removed."""


class WriteRefused(OSError):
    """A write refused, what is there left alone (outside the project, a nested project, a managed file not regular)."""


class ManagedBlockRefused(Refusal):
    """The managed block's markers cannot be told from the person's text: its lines could be taken for ours."""

    template = (
        "%s %s; it is left untouched (put each marker on a line of its own, once, the opening one first, "
        "or remove them to have the block appended)"
    )


class SettingsUnusable(Refusal):
    """An agent CLI's settings file cannot be merged into; the fix names the hook ``init`` would have written."""

    def __init__(self, path: str, reason: str, event: str = "", command: str = "") -> None:
        hook = ", or add the %s hook `%s` yourself" % (event, command) if command else ""
        super().__init__("init: %s %s; it was left untouched (fix it%s)" % (path, reason, hook))
        self.reason = reason


class DuplicateKey(ValueError):
    """A settings object names one key twice (after its escapes are decoded)."""

    def __init__(self, key: str) -> None:
        import json

        super().__init__("the key %s twice in one object" % json.dumps(key))


# --- a hook's payload and outcome --------------------------------------------------------------


class HookInputError(Refusal):
    """The hook payload on stdin cannot be used (none, too large, not JSON, a bad field)."""


class HookRefused(Refusal):
    """The hook recorded nothing (it still exits 0); ``fix``: text, or a function of the harness that ran it."""

    def __init__(self, message: str, fix: "Union[str, Callable[[Any], str]]" = "", harness: "Any" = None) -> None:
        super().__init__(message)
        self.fix = fix
        self.harness = harness  # the harness whose hook it was, when known

    def fix_for(self, harness: "Any") -> str:
        return self.fix(harness) if callable(self.fix) else self.fix


class SubagentSession(HookRefused):
    """The hook ran for a sub-agent, not a session: nothing recorded, nothing to fix (said on stderr only)."""

    template = "the hook ran for sub-agent %s, not a session; nothing recorded"


# --- the stores and their sessions ----------------------------------------------------------------

MAX_CANDIDATES_SHOWN = 10  # session ids an ambiguous prefix names in its refusal


class SessionIdNotFound(NotFound):
    """No session id equals or starts with the name, or no session at all (``latest``)."""

    template = "session not found: %s"


class SessionNotFound(NotFound):
    """No transcript in the store holds the uuid."""

    template = "uuid not found in any transcript: %s"


class AmbiguousSession(Refusal):
    """Different session ids start with the name (copies of one id count once), named so one can be picked."""

    def __init__(self, partial: str, candidates: "Sequence[Any]") -> None:
        ids = sorted({c.session_id for c in candidates})
        shown = ", ".join(ids[:MAX_CANDIDATES_SHOWN])
        if len(ids) > MAX_CANDIDATES_SHOWN:
            shown += ", ... (%d more)" % (len(ids) - MAX_CANDIDATES_SHOWN)
        super().__init__("ambiguous session ID '%s' matches %d sessions: %s" % (partial, len(ids), shown))
        self.candidates = sorted(candidates)


class NotRecorded(Refusal):
    """The harness's records do not hold what the question needs: fail closed (the seed's ErrSubagentUnlinked)."""

    def __init__(self, question: str, label: str, path: str = "") -> None:
        where = " (%s)" % path if path else ""
        super().__init__("%s: %s records do not hold what this needs%s" % (question, label, where))


class SignalsUnknown(NotFound):
    """The record cannot be read to its end: which agents run is unknown (judge each)."""

    def __init__(self, message: str, cursor: "Any" = None) -> None:
        super().__init__(message)
        self.cursor = cursor


# --- one record: its lines, whom it belongs to, its stable identity, its sub-agents ----------------

NO_TRANSCRIPT_PATH = "no transcript path given"


class NotARegularFile(OSError):
    """The path names a FIFO, a directory, a device or a socket: never read as a file."""


class LineTooLong(OSError):
    """A line passed the bound, or its decoding the cost model's budget: no records read."""


def os_reason(error: OSError) -> str:
    """An OS error's reason without the path it names (the message names it once)."""
    if isinstance(error, LineTooLong) or not error.strerror:
        return str(error.args[0]) if error.args else type(error).__name__
    return error.strerror


class RecordUnreadable(Refusal):
    """A transcript could not be opened or read to its end; ``missing``: it is not there."""

    def __init__(self, message: str, missing: bool = False) -> None:
        super().__init__(message)
        self.missing = missing

    @classmethod
    def opening(cls, path: str, error: OSError) -> "RecordUnreadable":
        return cls("transcript: open %s: %s" % (path, os_reason(error)), isinstance(error, FileNotFoundError))

    @classmethod
    def reading(cls, path: str, error: OSError) -> "RecordUnreadable":
        """A read failed or a line passed the bound."""
        return cls("transcript: read %s: %s" % (path, os_reason(error)))


class WrongRecord(Refusal):
    """A record names another session or tree than the one asked; ``found``, the first."""

    exit_code = EXIT_WRONG_RECORD

    def __init__(self, message: str, found: str) -> None:
        super().__init__(message)
        self.found = found

    @classmethod
    def session(cls, path: str, found: str, session_id: str) -> "WrongRecord":
        message = "belongs to another session: %s says it belongs to %s, not %s"
        return cls("the transcript at that path " + message % (path, found, session_id), found)

    @classmethod
    def tree(cls, path: str, found: str, cwd: str) -> "WrongRecord":
        message = "was written in another tree: %s was written in %s, which is not %s"
        return cls("the transcript at that path " + message % (path, found, cwd), found)


CONTINUATION_MISSING = "the record this transcript continues is in no other transcript"
CHAIN_RUNAWAY = "the chain of continuations loops or is longer than a real conversation"
IDENTITY_CONTEXT = "transcript: stable session id: "
_CONTINUES = IDENTITY_CONTEXT + "%s continues %s: "  # the path, the uuid it continues


class NoOriginRecord(Refusal):
    """Every entry of the transcript has a parent: the conversation has no beginning in it."""

    template = IDENTITY_CONTEXT + "%s: transcript has no origin record: every entry in it has a parent"


class NoProjectDir(Refusal):
    """Crossing a restart needs the conversation's other transcripts, which are not found."""

    template = _CONTINUES + "the harness's project directory is unknown"


class Degraded(Refusal):
    """Why an identity is the furthest the walk reached, not the origin: reported, never raised."""

    exit_code = EXIT_DEGRADED


class ContinuationMissing(Degraded):
    """No readable transcript holds the record a continuation names."""

    template = _CONTINUES + CONTINUATION_MISSING


class ChainRunaway(Degraded):
    """The continuations close on themselves or run past the walk's bounds."""

    template = _CONTINUES + CHAIN_RUNAWAY


class NotAnAgentId(Refusal):
    """What was offered as a sub-agent's id would not stay one file name."""


class NoParent(Refusal):
    """No dispatching record can be named for a record (none given, none on disk), and why."""

    @classmethod
    def orphan(cls, path: str) -> "NoParent":
        """A sub-agent's record whose session root is not on disk where the layout puts it."""
        return cls(
            "transcript: session root: %s is a sub-agent's record, and no dispatching record is on disk "
            "where the layout puts it" % path
        )


class SubagentsUnreadable(Refusal):
    """A sub-agent records folder that cannot be listed, or a meta file (``meta_path``) that cannot be parsed."""

    def __init__(self, message: str, meta_path: str = "") -> None:
        super().__init__(message)
        self.meta_path = meta_path


# --- citations -------------------------------------------------------------------------------------

EMPTY_QUOTE = "an empty quote grounds nothing"
NO_ENTRY_AT_LINE = "no entry at the given line"
NO_SESSION_ROOT = "a sub-agent's record whose session root is not found holds none of the end user's words"


class CitationError(Refusal):
    """A citation that was read and did not resolve (the reference's ResolutionError)."""


class CitationNotFound(CitationError):
    """The quote is in no entry of the pools searched."""

    exit_code = EXIT_CITE_NOT_FOUND


class CitationAmbiguous(CitationError):
    """The quote is in more than one entry; ``matches`` names them (a collection kept as is)."""

    exit_code = EXIT_CITE_AMBIGUOUS

    def __init__(self, message: str, matches: "Any" = ()) -> None:
        super().__init__(message)
        self.matches = matches if hasattr(matches, "__len__") and not isinstance(matches, tuple) else list(matches)


class CitationRefused(CitationError):
    """A pool that cannot be searched honestly (a sub-agent's user words, its root gone)."""

    exit_code = EXIT_CITE_REFUSED


class NoSessionRoot(CitationRefused):
    """The bare reason (the reference's ErrNoSessionRoot), raised by ``cite_in_session``."""

    default = NO_SESSION_ROOT


class AnswerUnmatched(CitationRefused):
    """The quote is in an AskUserQuestion answer not matched to its call's questions: whose words
    they are is unknown, so refused, not guessed. With ``req``: ``citation <req> cannot resolve: ...``."""

    def __init__(self, path: str, line: int, why: str, req: "Any" = None) -> None:
        message = (
            "the quote is in an AskUserQuestion answer at %s:%d that cannot be matched to its call (%s), so its "
            "words may be the agent's question rather than the person's answer; quote words the person typed, or "
            "an answer from an envelope whose call is in the record" % (path, line, why)
        )
        super().__init__(message if req is None else "citation %s cannot resolve: %s" % (req, message))
        self.path, self.line, self.why = path, line, why


# --- the query language --------------------------------------------------------------------------


class QueryCompileError(UsageError):
    """The expression will not compile: ``transcript: where "<src>": <why>``."""


class RunError(Exception):
    """An entry the expression cannot be evaluated against (another shape): not a match."""


class ExpressionNotBoolean(Refusal):
    """An entry made the expression produce something that is not a boolean."""


class ExpressionNeverRan(Refusal):
    """The expression could be evaluated against no entry: "nothing matched" would claim what was not looked at."""

    exit_code = EXIT_QUERY_NEVER_RAN


class DatabaseUnreadable(OSError):
    """A CLI's SQLite store that cannot be read (missing, locked, torn, no ``sqlite3`` in this Python): an
    OSError, so a listing skips it like any unreadable file and a command names it."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__("cannot read the database %s: %s" % (path, reason))

    @classmethod
    def no_sqlite(cls, label: str) -> "DatabaseUnreadable":
        found = cls("", "")
        found.args = ("%s sessions cannot be read: this Python was built without the sqlite3 module" % label,)
        return found
