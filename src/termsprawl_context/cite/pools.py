"""The two pools, disjoint, never the assistant's own text: the pool names, which
entries' tool results may carry the person's answers and how an answer envelope reads
against its call, and which bodies are genuine tool output (``tool_bodies``)."""

from __future__ import annotations

from termsprawl_context.cite.envelopes import is_answer_envelope
from termsprawl_context.errors import UsageError
from termsprawl_context.cite.transcripts import looks_like_transcript
from termsprawl_context import model as cc
from termsprawl_context.transcript import answers
from termsprawl_context.model import PERSON, TOOL_RESULT
from termsprawl_context.transcript.entry import speaker
from termsprawl_context.transcript.speakers import content_texts
from termsprawl_context.transcript.tool_blocks import is_hook_refusal, not_run_kind, result_texts, tool_results
from termsprawl_context.transcript.record import go_quote
from termsprawl_context.transcript.text import GO_SPACE_CHARS

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import List, Optional, Tuple

    from termsprawl_context.cite.records import Record
    from termsprawl_context.model import Entry


SOURCE_USER = "user"
SOURCE_TOOL_RESULT = "tool_result"
SOURCE_TYPES = (SOURCE_USER, SOURCE_TOOL_RESULT)


def parse_source_type(name: str) -> Optional[str]:
    """``user`` or ``tool_result`` (exact, case-sensitive), else None."""
    return name if name in SOURCE_TYPES else None


def parse_sources(text: str) -> List[str]:
    """A comma-separated pool list (``user,tool_result``), in the order written;
    UsageError names the first unknown one."""
    sources: List[str] = []
    for name in text.split(","):
        if parse_source_type(name) is None:
            raise UsageError("unknown source type %s (want %s)" % (go_quote(name), " or ".join(SOURCE_TYPES)))
        if name not in sources:
            sources.append(name)
    return sources


def message_texts(entry: Entry) -> List[str]:
    """A user entry's own texts (``content_texts``), harness-injected ones left out (flags
    not consulted): the reference's reading, kept for the dispatch-prompt hint."""
    return [
        text for text in content_texts(entry.content) if not text.strip(GO_SPACE_CHARS).startswith(cc.INJECTED_PREFIXES)
    ]


def answers_entry(entry: Entry) -> bool:
    """A user entry whose tool results may carry the person's answers: the record model
    calls it the person's or a tool's (not meta, sidechain, compaction or harness)."""
    return entry.type == cc.TYPE_USER and speaker(entry) in (PERSON, TOOL_RESULT)


def own_results(record: Record, entry: Entry):
    """The tool results of a user entry that no other tool's call claims (an answer
    envelope, or a result whose call is not in the record)."""
    return [r for r in tool_results(entry) if r.tool_use_id not in record.other_tool_ids]


def envelope_readings(record: Record, result, body: str) -> Tuple[Optional[List[Tuple[str, ...]]], str]:
    """The readings of an answer envelope against the questions its call asked
    (``transcript.answers``), or ``(None, why)`` when it cannot be matched to its call."""
    found = record.calls.get(result.tool_use_id) if result.tool_use_id else None
    if found is None:
        return None, answers.NO_CALL
    return answers.answer_readings(body, answers.call_questions(found.call.input))


def genuine_body(body: str) -> bool:
    return not (is_answer_envelope(body) or is_hook_refusal(body) or looks_like_transcript(body))


def tool_bodies(record: Record, entry: Entry) -> List[Tuple[str, str]]:
    """``(tool_use_id, body)`` of every genuine tool output on a user entry."""
    found = []
    for result in tool_results(entry):
        if not result.tool_use_id or not record.citable(result.tool_use_id) or not_run_kind(result):
            continue
        for body in result_texts(result.content):
            if genuine_body(body):
                found.append((result.tool_use_id, body))
    return found
