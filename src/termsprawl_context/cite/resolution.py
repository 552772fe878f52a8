"""Resolution: a request (a quote and its pools) grounded in exactly one entry (of a
record, a session, or a project's sessions), with the cited entry's text and calls, or a
named refusal."""

from __future__ import annotations

import json
from collections import namedtuple
from itertools import groupby

from termsprawl_context.cite.records import record_at
from termsprawl_context.cite.hints import SUBAGENT_RECORD_ALONE, SUBAGENT_USER_ADVICE, unresolved_hint
from termsprawl_context.bytescan import scan_buffer
from termsprawl_context.cite.matching import NEEDLE_CHUNK, PROVIDER, quote_needle
from termsprawl_context.cite.pools import (
    SOURCE_TOOL_RESULT,
    SOURCE_USER,
    answers_entry,
    envelope_readings,
    has_answer_prefix,
    own_results,
    parse_source_type,
    tool_bodies,
)
from termsprawl_context.cite.search import Hits, cite, session_candidates, session_hits, session_may_contain
from termsprawl_context.errors import (
    EMPTY_QUOTE,
    AnswerUnmatched,
    CitationAmbiguous,
    CitationNotFound,
    CitationRefused,
    NoSessionRoot,
    NotFound,
    Refusal,
    UsageError,
)
from termsprawl_context import model as cc
from termsprawl_context.transcript.tool_blocks import first_string, result_texts
from termsprawl_context.transcript.record import go_quote
from termsprawl_context.transcript.text import utf8_prefix

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import List, Sequence

    from termsprawl_context.cite.records import Record
    from termsprawl_context.model import Entry, ToolCall


MAX_CITED_MESSAGE = 16384  # bytes of a citation's message
MAX_CITED_CALL = 2048  # bytes of one rendered call's argument
MAX_LISTED_MATCHES = 50  # matches an ambiguity names (the rest are counted): one line, not megabytes
MESSAGE_TRUNCATED = "\n[... truncated]"
CALL_TRUNCATED = "[... truncated]"


class CitationRequest(namedtuple("CitationRequest", "quote sources")):
    """A quote and the pools it may ground in, in the order to search them."""

    __slots__ = ()

    def __str__(self) -> str:
        return "%s %s" % (",".join(self.sources), go_quote(self.quote))


class Citation(namedtuple("Citation", "quote source_types path line message call")):
    """A resolved citation: the pools it landed in (request order), where, the cited
    entry's text in those pools (capped), and for tool output the call(s) that printed it."""

    __slots__ = ()

    def to_json(self) -> dict:
        data = {
            "quote": self.quote,
            "sourceTypes": list(self.source_types),
            "path": self.path,
            "line": self.line,
            "message": self.message,
        }
        if self.call:
            data["call"] = self.call
        return data


def _cap(text: str, limit: int, suffix: str) -> str:
    data = text.encode("utf-8", "surrogatepass")
    return text if len(data) <= limit else utf8_prefix(data, limit) + suffix


def render_call(call: ToolCall) -> str:
    """``<Tool>: <command | file_path | input JSON>``, the argument capped at 2 KiB."""
    arg = first_string(call.input, (cc.INPUT_COMMAND, cc.INPUT_FILE_PATH))
    arg = arg or json.dumps(call.input, separators=(",", ":"), ensure_ascii=False)
    return "%s: %s" % (call.name, _cap(arg, MAX_CITED_CALL, CALL_TRUNCATED))


def entry_text(record: Record, entry: Entry, pools: Sequence[str]) -> str:
    """The cited entry's whole text in ``pools`` (an answer with its question), capped."""
    parts: List[str] = []
    if SOURCE_USER in pools:
        parts.extend(record.person_texts(entry))
        if answers_entry(entry):
            for result in own_results(record, entry):
                parts.extend(
                    b
                    for b in result_texts(result.content)
                    if has_answer_prefix(b) and envelope_readings(record, result, b)[0] is not None
                )
    if SOURCE_TOOL_RESULT in pools and entry.type == cc.TYPE_USER:
        parts.extend(body for _, body in tool_bodies(record, entry))
    return _cap("\n\n".join(parts), MAX_CITED_MESSAGE, MESSAGE_TRUNCATED)


def entry_calls(record: Record, entry: Entry) -> str:
    """The call behind each genuine tool result on the entry, one line each."""
    ids = [tool_use_id for tool_use_id, _ in groupby(i for i, _ in tool_bodies(record, entry))]  # one per result
    return "\n".join(render_call(record.calls[i].call) for i in ids)


def _check_request(req: CitationRequest) -> None:
    if req.quote == "":
        raise UsageError(EMPTY_QUOTE)
    if not req.sources:
        raise UsageError("citation %s names no source type" % (req,))
    for name in req.sources:
        if parse_source_type(name) is None:
            raise UsageError("citation %s: unknown source type %s" % (req, go_quote(name)))


def _resolve(path: str, req: CitationRequest, search, hint) -> Citation:
    _check_request(req)
    hits = Hits()
    pools: List[str] = []
    for pool in req.sources:
        try:
            found = search(pool)
        except NoSessionRoot:
            raise CitationRefused(
                "citation %s cannot resolve in a sub-agent's trajectory (%s) whose session record is not found: its "
                "user messages are the parent agent's dispatch, not the end user's own words. %s"
                % (req, path, SUBAGENT_USER_ADVICE)
            ) from None
        except AnswerUnmatched as exc:
            raise AnswerUnmatched(exc.path, exc.line, exc.why, req) from None
        except Refusal as exc:
            raise NotFound("citation %s: %s" % (req, exc.message)) from None
        if found:
            pools.append(pool)
        hits.extend(found)
    if not hits:
        message = (
            "citation %s does not resolve in %s: the quote is not there word for word in that pool "
            "(only whitespace may differ)" % (req, path)
        )
        extra = hint()
        raise CitationNotFound(message + (". " + extra if extra else ""))
    if len(hits) > 1:
        listed = ", ".join(str(hits[i]) for i in range(min(len(hits), MAX_LISTED_MATCHES)))
        if len(hits) > MAX_LISTED_MATCHES:
            listed += ", and %d more" % (len(hits) - MAX_LISTED_MATCHES)
        raise CitationAmbiguous(
            "citation %s is ambiguous: it matches more than one entry (%s) — extend the quote until it lands on "
            "exactly one" % (req, listed),
            hits,
        )
    hit = hits[0]
    try:
        record = record_at(hit.path, hit.line)
    except Refusal as exc:
        raise NotFound("citation %s: %s" % (req, exc.message)) from None
    entry = record.entry_at(hit.line)
    message = entry_text(record, entry, pools) if entry is not None else ""
    call = entry_calls(record, entry) if entry is not None and SOURCE_TOOL_RESULT in pools else ""
    return Citation(req.quote, pools, hit.path, hit.line, message, call)


def resolve_citation(path: str, req: CitationRequest, subagent: bool = False) -> Citation:
    """Ground ``req`` in the session whose record is at ``path`` (``subagent``: the
    caller is known to be a sub-agent). Exactly one entry, or a named refusal."""
    return _resolve(
        path,
        req,
        lambda pool: session_hits(path, req.quote, [pool], subagent),
        lambda: unresolved_hint(path, req.quote, req.sources, subagent),
    )


def resolve_in_record(path: str, req: CitationRequest) -> Citation:
    """Ground ``req`` in the one record at ``path`` (its own entries only). The user
    pool of a sub-agent's record is refused: its "user" is the parent agent (rule 5);
    the session's root record holds the person's words (``resolve_citation``)."""
    _check_request(req)
    if SOURCE_USER in req.sources and PROVIDER.is_subagent(path):
        raise CitationRefused(SUBAGENT_RECORD_ALONE % (req, path))
    return _resolve(
        path, req, lambda pool: cite(path, req.quote, [pool]), lambda: unresolved_hint(path, req.quote, req.sources)
    )


def resolve_citations(path: str, reqs: Sequence[CitationRequest]) -> List[Citation]:
    """Every request in order; the first that does not resolve is raised (never partial)."""
    return [resolve_citation(path, req) for req in reqs]


def resolve_across_sessions(current: str, project_dir: str, req: CitationRequest) -> Citation:
    """Ground ``req`` in a project's sessions: the first (current first, then newest to
    oldest) that holds the quote answers, and there it must land exactly once.
    Unreadable records are named when nothing resolves."""
    _check_request(req)
    needle = quote_needle(req.quote)
    buffer = scan_buffer(NEEDLE_CHUNK) if needle is not None else None  # one for every session's files
    unreadable: List[str] = []
    for candidate in session_candidates(current, project_dir):
        if not session_may_contain(candidate, needle, buffer):
            continue
        try:
            matches = session_hits(candidate, req.quote, req.sources)
        except NoSessionRoot:
            continue
        except AnswerUnmatched as exc:
            raise AnswerUnmatched(exc.path, exc.line, exc.why, req) from None
        except Refusal as exc:
            unreadable.append("%s (%s)" % (candidate, exc.message))
            continue
        if matches:
            return resolve_citation(candidate, req)
    hint = unresolved_hint(current, req.quote, req.sources) if current else ""
    message = "citation %s does not resolve in any session of this project" % (req,)
    message += ". " + hint if hint else ": the quote is not there word for word"
    if unreadable:
        message += "; could not read: " + ", ".join(unreadable)
    raise CitationNotFound(message)
