"""Citations: a quote grounded in exactly one entry of a session's record, or refused.

Two pools, disjoint, never the assistant's own text:

- ``user``: what the person typed (``transcript.entry.person_texts``, the classifier
  ``show`` and the hand-off print by: never a local command's output, its parent found
  by uuid, nor a slash command's envelope, which ``show`` prints as typed), a prompt
  they queued mid-turn, and the answers they picked in an AskUserQuestion envelope.
- ``tool_result``: the bodies of genuine tool results whose call is in the same record.
  Excluded: answer envelopes (the person's words), replies to a sub-agent dispatch and
  TaskOutput (model-written), hook refusals, results of calls that never ran, reads of
  an agent transcript, and the output of commands that print the agent's record back
  (``transcript.echo``).

Matching is word for word: whitespace runs (Go's set) are one space, case counts, and a
Read result also matches with its line-number gutter removed. A match is one entry.
Resolution fails closed: none, several, or a pool that cannot be searched are distinct
named refusals with a message a person can act on. The rules, messages and caps are the
Go reference's (``go-transcript-citations.md``); the refusals are ``errors``'s.
"""

# The API docs/api.md names and the CLI reads as ``cite.<name>``.
# ruff: noqa: F401

from __future__ import annotations

from termsprawl_context.cite.pools import SOURCE_TOOL_RESULT, SOURCE_USER, parse_sources
from termsprawl_context.cite.pools import extract_answers, refused_tool_use_ids
from termsprawl_context.cite.resolution import (
    CitationRequest,
    resolve_across_sessions,
    resolve_citation,
    resolve_citations,
    resolve_in_record,
    unresolved_hint,
)
from termsprawl_context.cite.search import cite, cite_in_session, envelope_at, tool_result_at
from termsprawl_context.transcript import echo
from termsprawl_context.transcript.entry import person_texts

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import Callable, Optional

# The echo rule's classifier, a package attribute a test may swap (``pools.exclusion`` reads
# it at each call). FAILS CLOSED: set to None, every Bash result is an echo.
command_echoes: Optional[Callable[[str], bool]] = echo.echoes_record
