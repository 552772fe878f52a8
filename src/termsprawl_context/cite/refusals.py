"""The named refusals of a citation that does not resolve, each with its exit code."""

from __future__ import annotations

from termsprawl_context.cite.values import Hits
from termsprawl_context.errors import (
    EXIT_CITE_AMBIGUOUS,
    EXIT_CITE_NOT_FOUND,
    EXIT_CITE_REFUSED,
    NotFound,
    Refusal,
    UsageError,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import Sequence, Union

    from termsprawl_context.cite.values import CitationRequest, Match

__all__ = [
    "EMPTY_QUOTE",
    "NO_ENTRY_AT_LINE",
    "NO_SESSION_ROOT",
    "AnswerUnmatched",
    "CitationAmbiguous",
    "CitationError",
    "CitationNotFound",
    "CitationRefused",
    "CitationUnreadable",
    "EmptyQuote",
    "NoEntryAtLine",
    "NoSessionRoot",
    "NoSourceType",
]

EMPTY_QUOTE = "an empty quote grounds nothing"
NO_SESSION_ROOT = "a sub-agent's record whose session root is not found holds none of the end user's words"
NO_ENTRY_AT_LINE = "no entry at the given line"


class CitationError(Refusal):
    """A citation that was read and did not resolve (the reference's ResolutionError)."""


class CitationNotFound(CitationError):
    """The quote is in no entry of the pools searched."""

    exit_code = EXIT_CITE_NOT_FOUND


class CitationAmbiguous(CitationError):
    """The quote is in more than one entry; ``matches`` names them."""

    exit_code = EXIT_CITE_AMBIGUOUS

    def __init__(self, message: str, matches: "Union[Sequence[Match], Hits]" = ()) -> None:
        super().__init__(message)
        self.matches = matches if isinstance(matches, Hits) else list(matches)


class CitationRefused(CitationError):
    """A pool that cannot be searched honestly: the user's words asked of a sub-agent
    whose session root is not on disk."""

    exit_code = EXIT_CITE_REFUSED


class AnswerUnmatched(CitationRefused):
    """The quote is in an AskUserQuestion answer envelope that cannot be read against the
    questions its own call asked: which words are the person's answer and which the
    agent's question is unknown, so the answer is refused rather than guessed."""

    def __init__(self, path: str, line: int, why: str) -> None:
        super().__init__(
            "the quote is in an AskUserQuestion answer at %s:%d that cannot be matched to its call (%s), so its "
            "words may be the agent's question rather than the person's answer; quote words the person typed, or "
            "an answer from an envelope whose call is in the record" % (path, line, why)
        )
        self.path, self.line, self.why = path, line, why

    def with_request(self, req: "CitationRequest") -> "AnswerUnmatched":
        """The refusal as the resolution reports it: ``citation <req> cannot resolve: ...``."""
        self.message = "citation %s cannot resolve: %s" % (req, self.message)
        self.args = (self.message,)
        return self


class NoSessionRoot(CitationRefused):
    """The bare reason (the reference's ErrNoSessionRoot), raised by ``cite_in_session``."""

    def __init__(self) -> None:
        super().__init__(NO_SESSION_ROOT)


class EmptyQuote(UsageError):
    def __init__(self) -> None:
        super().__init__(EMPTY_QUOTE)


class NoSourceType(UsageError):
    """The request names no pool, or one this module does not know."""


class CitationUnreadable(NotFound):
    """A record the citation needed could not be read: ``citation <req>: <reason>``, or
    the project's sessions could not be listed."""


class NoEntryAtLine(NotFound):
    """The line names no entry: past the end, or a line that is not an entry."""
