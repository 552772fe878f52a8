"""Named refusals: one class each, a message a person can act on, and a CLI exit code.

Callers tell failures apart by class, never by the words of the message; the CLI turns
each into one ``termsprawl-context: <message>`` line on stderr and its exit code.
"""

__all__ = [
    "EXIT_CITE_AMBIGUOUS",
    "EXIT_CITE_NOT_FOUND",
    "EXIT_CITE_REFUSED",
    "EXIT_DEGRADED",
    "EXIT_FAILURE",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_OUTPUT_FAILED",
    "EXIT_QUERY_NEVER_RAN",
    "EXIT_TOO_FRESH",
    "EXIT_USAGE",
    "EXIT_WRONG_RECORD",
    "ManagedBlockRefused",
    "NotFound",
    "NotRecorded",
    "OtherProject",
    "Refusal",
    "UsageError",
]


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


class Refusal(Exception):
    """Base of every refusal the package raises on purpose."""

    exit_code = EXIT_FAILURE

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UsageError(Refusal):
    """The command line does not fit the command's contract."""

    exit_code = EXIT_USAGE


class OtherProject(UsageError):
    """An installed copy of the command was pointed at a project other than its own: it
    reads only the linked peers of the project it is installed in."""

    def __init__(self, cwd: str, own: str) -> None:
        super().__init__(
            "--cwd %s is not this project (%s): the command installed in a project reads only that project's "
            "linked peers; run the other project's own .termsprawl/bin/termsprawl-context" % (cwd, own)
        )


class NotFound(Refusal):
    """What was named (a session, a transcript, a file) is not there."""

    exit_code = EXIT_FAILURE


class ManagedBlockRefused(Refusal):
    """A file that names the managed block's markers holds no block we can tell apart from
    its person's text (a marker inside a line or a code block, twice, out of order, alone):
    rewriting it could take their lines for ours, so it is left byte for byte."""

    exit_code = EXIT_FAILURE

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(
            "%s %s; it is left untouched (put each marker on a line of its own, once, the opening one first, "
            "or remove them to have the block appended)" % (path, reason)
        )


# --- a provider's records (issue 28) ----------------------------------------------------------


class NotRecorded(Refusal):
    """A provider's records do not hold what the question needs: fail closed, by name
    (seed 002's ErrSubagentUnlinked is the model), never another CLI's rules applied."""

    def __init__(self, question: str, label: str, path: str = "") -> None:
        where = " (%s)" % path if path else ""
        super().__init__("%s: %s records do not hold what this needs%s" % (question, label, where))
