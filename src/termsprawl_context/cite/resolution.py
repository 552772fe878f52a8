"""Resolution: a request (a quote and its pools) grounded in exactly one entry (of a
record, a session, or a project's sessions), with the cited entry's text and calls, or a
named refusal; and what a refusal adds when the words are somewhere the pools leave out
(a sub-agent's dispatch prompt, or a tool result that is not tool output, and why)."""

from __future__ import annotations

import json
from collections import namedtuple
from itertools import groupby, islice

from termsprawl_context import errors
from termsprawl_context import model as cc
from termsprawl_context.bytescan import scan_buffer
from termsprawl_context.cite import pools
from termsprawl_context.cite.search import Hits, Record, calls_and_commands, citation_records, cite, record_at
from termsprawl_context.cite.search import session_candidates, session_hits, session_may_contain, stream_entries
from termsprawl_context.transcript.record import go_quote
from termsprawl_context.transcript.speakers import content_texts
from termsprawl_context.transcript.text import GO_SPACE_CHARS, collapse_whitespace, utf8_prefix
from termsprawl_context.transcript.tool_blocks import first_string, is_hook_refusal, result_texts, tool_results

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import List, Sequence

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


_JSON_KEYS = ("quote", "sourceTypes", "path", "line", "message", "call")  # Citation's fields, as JSON names


class Citation(namedtuple("Citation", "quote source_types path line message call")):
    """A resolved citation: the pools it landed in (request order), where, the cited
    entry's text in those pools (capped), and for tool output the call(s) that printed it."""

    __slots__ = ()

    def to_json(self) -> dict:
        data = dict(zip(_JSON_KEYS, self._replace(source_types=list(self.source_types))))
        if not self.call:
            del data["call"]
        return data


def _cap(text: str, limit: int, suffix: str) -> str:
    data = text.encode("utf-8", "surrogatepass")
    return text if len(data) <= limit else utf8_prefix(data, limit) + suffix


def render_call(call: ToolCall) -> str:
    """``<Tool>: <command | file_path | input JSON>``, the argument capped at 2 KiB."""
    arg = first_string(call.input, (cc.INPUT_COMMAND, cc.INPUT_FILE_PATH))
    arg = arg or json.dumps(call.input, separators=(",", ":"), ensure_ascii=False)
    return "%s: %s" % (call.name, _cap(arg, MAX_CITED_CALL, CALL_TRUNCATED))


def entry_text(record: Record, entry: Entry, sources: Sequence[str]) -> str:
    """The cited entry's whole text in the pools ``sources`` (an answer with its question), capped."""
    parts: List[str] = []
    if pools.SOURCE_USER in sources:
        parts.extend(record.person_texts(entry))
        if pools.answers_entry(entry):
            for result in pools.own_results(record, entry):
                parts.extend(
                    b
                    for b in result_texts(result.content)
                    if pools.has_answer_prefix(b) and pools.envelope_readings(record, result, b)[0] is not None
                )
    if pools.SOURCE_TOOL_RESULT in sources and entry.type == cc.TYPE_USER:
        parts.extend(body for _, body in pools.tool_bodies(record, entry))
    return _cap("\n\n".join(parts), MAX_CITED_MESSAGE, MESSAGE_TRUNCATED)


SUBAGENT_USER_RULE = (
    "your prompt is the parent agent's, not the user's. --cite:user resolves only against the user's messages in "
    "the main conversation — quote them exactly as the user wrote them (the parent must pass them to you "
    "verbatim), or cite --cite:tool_result for a tool's output."
)
SUBAGENT_USER_ADVICE = "You are a sub-agent: " + SUBAGENT_USER_RULE
SUBAGENT_RECORD_ALONE = (
    "citation %s cannot resolve the user's words in a sub-agent's record (%s) alone: its user messages are the "
    "parent agent's dispatch, not the end user's own words; search the session (its root record) instead"
)
HINT_OWN_DISPATCH_PROMPT = "That quote is from your dispatch prompt, written by the parent agent. "
HINT_DISPATCH_PROMPT = (
    "That quote is from a sub-agent's dispatch prompt, written by the parent agent, not by the user. "
    "If you are that sub-agent: "
)
HINT_NO_CALL = (
    "Those words are in a tool result whose call is not in the record (the call that produced it is not in the "
    "record), so where they came from is unknown and they are not citable as tool output; run the command again "
    "so its output lands with its call, and cite that"
)
HINT_DELEGATION = (
    "Those words are in a sub-agent's reply (model-written), which is not tool output; cite what the sub-agent's "
    "own tools printed — its record is searched too"
)
HINT_TASK_OUTPUT = (
    "Those words are what %s returned — a background task's output, which may be an agent's model-written "
    "reply — so they are not citable as tool output; cite what that task's own tools printed"
)
HINT_TRANSCRIPT = (
    "Those words were read out of an agent transcript (the file is an agent's record — its text is "
    "model-written), which is not tool output; cite what the tools in that record printed — sub-agents' records "
    "are searched too"
)
HINT_ECHO = (
    "Those words are in the output of a command that prints agent-written text back (git log/show, or one of "
    "sloprail's own tools: sr-checks, sr-session, sr-file, ...; their output carries commit messages, citations "
    "and judges' model-written reasoning), so they are not citable as tool output; cite the output of the "
    "command that produced the evidence, or the user's words"
)
HINT_ASK = (
    "Those words are in an AskUserQuestion result: its questions are the agent's own words and only the answers "
    "the person picked are theirs, so it is not tool output; cite an answer with --cite:user"
)
# Each exclusion's hint (``pools.exclusion``).
_HINTS = {
    pools.EXCLUDED_NO_CALL: HINT_NO_CALL,
    pools.EXCLUDED_DELEGATION: HINT_DELEGATION,
    pools.EXCLUDED_TASK_OUTPUT: HINT_TASK_OUTPUT % cc.TOOL_TASK_OUTPUT,
    pools.EXCLUDED_TRANSCRIPT: HINT_TRANSCRIPT,
    pools.EXCLUDED_ECHO: HINT_ECHO,
    pools.EXCLUDED_ASK: HINT_ASK,
}
HINT_ENVELOPE = (
    "Those words are an AskUserQuestion answer — the user's own words, not a tool's output; cite them with "
    "--cite:user"
)


def _in_dispatch_prompt(path: str, quote: str) -> bool:
    """Whether ``quote`` is in a sub-agent's dispatch prompt: a record of the session's tree but its root's."""
    words = collapse_whitespace(quote)
    try:
        scope = citation_records(path)
        return any(
            entry.type == cc.TYPE_USER
            and not entry.is_meta
            and any(  # its own texts as the reference reads them: injected ones (by prefix, not flags) left out
                words in collapse_whitespace(t)
                for t in content_texts(entry.content)
                if not t.strip(GO_SPACE_CHARS).startswith(cc.INJECTED_PREFIXES)
            )
            for record_path in (scope.tool_in[1:] if scope.user_in else scope.tool_in)
            for entry in stream_entries(record_path, pools.quote_needles(quote))
        )
    except errors.Refusal:
        return False


def unresolved_user_hint(path: str, quote: str, subagent: bool = False) -> str:
    """What to say when ``quote`` is not in the user pool ("" when nothing specific)."""
    sub = subagent or pools.PROVIDER.is_subagent(path)
    if _in_dispatch_prompt(path, quote):
        return HINT_OWN_DISPATCH_PROMPT + SUBAGENT_USER_ADVICE if sub else HINT_DISPATCH_PROMPT + SUBAGENT_USER_RULE
    return SUBAGENT_USER_ADVICE if sub else ""


def excluded_result_hint(path: str, quote: str) -> str:
    """Which excluded kind of tool result the words sit in ("" when none), in the
    records the session's tool pool is searched in."""
    words = collapse_whitespace(quote)
    try:
        for record_path in citation_records(path).tool_in:
            held = [
                (result.tool_use_id, body)
                for entry in stream_entries(record_path, pools.quote_needles(quote))
                for result in tool_results(entry)
                for body in result_texts(result.content)
                if pools.body_matches(body, words)
            ]  # only the bodies holding the quote are kept
            record = Record(record_path, [], calls_and_commands(record_path, {i for i, _ in held if i}, None)[0])
            hint = next((h for h in (_why_excluded(record, i, body) for i, body in held) if h), "")
            if hint:
                return hint
    except errors.Refusal:
        pass
    return ""


def _why_excluded(record: Record, tool_use_id: str, body: str) -> str:
    """The excluded-result hint for one body holding the quote ("" to keep looking): its
    call's exclusion, but a body that reads as a transcript or an answer envelope says so."""
    if is_hook_refusal(body):
        return ""
    reason = pools.exclusion(record.calls.get(tool_use_id) if tool_use_id else None)
    if reason in ("", pools.EXCLUDED_ECHO, pools.EXCLUDED_ASK) and pools.looks_like_transcript(body):
        return HINT_TRANSCRIPT
    if reason in ("", pools.EXCLUDED_ASK) and pools.extract_answers(body):
        return HINT_ENVELOPE
    return _HINTS.get(reason, "")


def unresolved_hint(path: str, quote: str, sources: Sequence[str], subagent: bool = False) -> str:
    """The user-pool hint and the excluded-result hint that apply, joined by ``. ``
    (``subagent``: the caller is known to be a sub-agent)."""
    hints = []
    if pools.SOURCE_USER in sources:
        hints.append(unresolved_user_hint(path, quote, subagent))
    if pools.SOURCE_TOOL_RESULT in sources:
        hints.append(excluded_result_hint(path, quote))
    return ". ".join(h for h in hints if h)


def _check_request(req: CitationRequest) -> None:
    if req.quote == "":
        raise errors.UsageError(errors.EMPTY_QUOTE)
    if not req.sources:
        raise errors.UsageError("citation %s names no source type" % (req,))
    for name in req.sources:
        if pools.parse_source_type(name) is None:
            raise errors.UsageError("citation %s: unknown source type %s" % (req, go_quote(name)))


def _resolve(path: str, req: CitationRequest, search, hint) -> Citation:
    _check_request(req)
    hits = Hits()
    landed: List[str] = []
    for pool in req.sources:
        try:
            found = search(pool)
        except errors.NoSessionRoot:
            raise errors.CitationRefused(
                "citation %s cannot resolve in a sub-agent's trajectory (%s) whose session record is not found: its "
                "user messages are the parent agent's dispatch, not the end user's own words. %s"
                % (req, path, SUBAGENT_USER_ADVICE)
            ) from None
        except errors.AnswerUnmatched as exc:
            raise errors.AnswerUnmatched(exc.path, exc.line, exc.why, req) from None
        except errors.Refusal as exc:
            raise errors.NotFound("citation %s: %s" % (req, exc.message)) from None
        if found:
            landed.append(pool)
        for match in found:
            hits.add(*match)
    if not hits:
        message = (
            "citation %s does not resolve in %s: the quote is not there word for word in that pool "
            "(only whitespace may differ)" % (req, path)
        )
        extra = hint()
        raise errors.CitationNotFound(message + (". " + extra if extra else ""))
    if len(hits) > 1:
        listed = ", ".join(str(match) for match in islice(hits, MAX_LISTED_MATCHES))
        if len(hits) > MAX_LISTED_MATCHES:
            listed += ", and %d more" % (len(hits) - MAX_LISTED_MATCHES)
        raise errors.CitationAmbiguous(
            "citation %s is ambiguous: it matches more than one entry (%s) — extend the quote until it lands on "
            "exactly one" % (req, listed),
            hits,
        )
    hit = next(iter(hits))
    try:
        record = record_at(hit.path, hit.line)
    except errors.Refusal as exc:
        raise errors.NotFound("citation %s: %s" % (req, exc.message)) from None
    entry = record.entry_at(hit.line)
    message = entry_text(record, entry, landed) if entry is not None else ""
    call = ""
    if entry is not None and pools.SOURCE_TOOL_RESULT in landed:  # the call behind each genuine result, a line each
        ids = [tool_use_id for tool_use_id, _ in groupby(i for i, _ in pools.tool_bodies(record, entry))]
        call = "\n".join(render_call(record.calls[i].call) for i in ids)
    return Citation(req.quote, landed, hit.path, hit.line, message, call)


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
    """Ground ``req`` in the one record at ``path`` (its own entries only). A sub-agent's user pool is
    refused: its "user" is the parent agent (rule 5); the session's root holds the person's words."""
    _check_request(req)
    if pools.SOURCE_USER in req.sources and pools.PROVIDER.is_subagent(path):
        raise errors.CitationRefused(SUBAGENT_RECORD_ALONE % (req, path))
    return _resolve(
        path, req, lambda pool: cite(path, req.quote, [pool]), lambda: unresolved_hint(path, req.quote, req.sources)
    )


def resolve_citations(path: str, reqs: Sequence[CitationRequest]) -> List[Citation]:
    """Every request in order; the first that does not resolve is raised (never partial)."""
    return [resolve_citation(path, req) for req in reqs]


def resolve_across_sessions(current: str, project_dir: str, req: CitationRequest) -> Citation:
    """Ground ``req`` in the first of a project's sessions (current first, then newest to oldest)
    holding the quote; there it must land exactly once. Unreadable records are named when none does."""
    _check_request(req)
    needle = pools.quote_needle(req.quote)
    buffer = scan_buffer(pools.NEEDLE_CHUNK) if needle is not None else None  # one for every session's files
    unreadable: List[str] = []
    for candidate in session_candidates(current, project_dir):
        if not session_may_contain(candidate, needle, buffer):
            continue
        try:
            matches = session_hits(candidate, req.quote, req.sources)
        except errors.NoSessionRoot:
            continue
        except errors.AnswerUnmatched as exc:
            raise errors.AnswerUnmatched(exc.path, exc.line, exc.why, req) from None
        except errors.Refusal as exc:
            unreadable.append("%s (%s)" % (candidate, exc.message))
            continue
        if matches:
            return resolve_citation(candidate, req)
    hint = unresolved_hint(current, req.quote, req.sources) if current else ""
    message = "citation %s does not resolve in any session of this project" % (req,)
    message += ". " + hint if hint else ": the quote is not there word for word"
    if unreadable:
        message += "; could not read: " + ", ".join(unreadable)
    raise errors.CitationNotFound(message)
