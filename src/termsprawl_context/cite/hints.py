"""What a refusal adds when the words are somewhere the pools leave out: a sub-agent's
dispatch prompt, or a tool result that is not tool output (and why)."""

from __future__ import annotations

from termsprawl_context.cite.matching import PROVIDER, body_matches, looks_like_transcript, quote_needles
from termsprawl_context.transcript.text import collapse_whitespace
from termsprawl_context.cite.pools import (
    EXCLUDED_ASK,
    EXCLUDED_DELEGATION,
    EXCLUDED_ECHO,
    EXCLUDED_NO_CALL,
    EXCLUDED_TASK_OUTPUT,
    EXCLUDED_TRANSCRIPT,
    SOURCE_TOOL_RESULT,
    SOURCE_USER,
    exclusion,
    extract_answers,
    message_texts,
)
from termsprawl_context.cite.records import Record, calls_and_commands, stream_entries
from termsprawl_context.cite.search import citation_records
from termsprawl_context.errors import Refusal
from termsprawl_context import model as cc
from termsprawl_context.transcript.tool_blocks import is_hook_refusal, result_texts, tool_results

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import Sequence


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
    EXCLUDED_NO_CALL: HINT_NO_CALL,
    EXCLUDED_DELEGATION: HINT_DELEGATION,
    EXCLUDED_TASK_OUTPUT: HINT_TASK_OUTPUT % cc.TOOL_TASK_OUTPUT,
    EXCLUDED_TRANSCRIPT: HINT_TRANSCRIPT,
    EXCLUDED_ECHO: HINT_ECHO,
    EXCLUDED_ASK: HINT_ASK,
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
        for record_path in scope.tool_in[1:] if scope.user_in else scope.tool_in:
            for entry in stream_entries(record_path, quote_needles(quote)):
                if entry.type == cc.TYPE_USER and not entry.is_meta:
                    if any(words in collapse_whitespace(t) for t in message_texts(entry)):
                        return True
    except Refusal:
        return False
    return False


def unresolved_user_hint(path: str, quote: str, subagent: bool = False) -> str:
    """What to say when ``quote`` is not in the user pool ("" when nothing specific)."""
    sub = subagent or PROVIDER.is_subagent(path)
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
                for entry in stream_entries(record_path, quote_needles(quote))
                for result in tool_results(entry)
                for body in result_texts(result.content)
                if body_matches(body, words)
            ]  # only the bodies holding the quote are kept
            record = Record(record_path, [], calls_and_commands(record_path, {i for i, _ in held if i}, None)[0])
            for tool_use_id, body in held:
                hint = _why_excluded(record, tool_use_id, body)
                if hint:
                    return hint
    except Refusal:
        return ""
    return ""


def _why_excluded(record: Record, tool_use_id: str, body: str) -> str:
    """The excluded-result hint for one body holding the quote ("" to keep looking): its
    call's exclusion, but a body that reads as a transcript or an answer envelope says so."""
    if is_hook_refusal(body):
        return ""
    reason = exclusion(record.calls.get(tool_use_id) if tool_use_id else None)
    if reason in ("", EXCLUDED_ECHO, EXCLUDED_ASK) and looks_like_transcript(body):
        return HINT_TRANSCRIPT
    if reason in ("", EXCLUDED_ASK) and extract_answers(body):
        return HINT_ENVELOPE
    return _HINTS.get(reason, "")


def unresolved_hint(path: str, quote: str, sources: Sequence[str], subagent: bool = False) -> str:
    """The user-pool hint and the excluded-result hint that apply, joined by ``. ``
    (``subagent``: the caller is known to be a sub-agent)."""
    hints = []
    if SOURCE_USER in sources:
        hints.append(unresolved_user_hint(path, quote, subagent))
    if SOURCE_TOOL_RESULT in sources:
        hints.append(excluded_result_hint(path, quote))
    return ". ".join(h for h in hints if h)
