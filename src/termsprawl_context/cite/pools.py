"""The two pools, disjoint, never the assistant's own text: the pool names; the person's
answers (AskUserQuestion envelopes read as text; read against their call's questions by
``transcript.answers``); and which tool results are genuine tool output (``exclusion``,
``tool_bodies``)."""

from __future__ import annotations

from termsprawl_context.errors import UsageError
from termsprawl_context.cite.matching import is_transcript_path, looks_like_transcript
from termsprawl_context import model as cc
from termsprawl_context.transcript import answers
from termsprawl_context.model import PERSON, TOOL_RESULT
from termsprawl_context.transcript.entry import speaker
from termsprawl_context.transcript.shell import command_paths
from termsprawl_context.transcript.speakers import content_texts
from termsprawl_context.transcript.tool_blocks import first_string, is_hook_refusal, not_run_kind
from termsprawl_context.transcript.tool_blocks import result_texts, tool_results
from termsprawl_context.transcript.record import go_quote
from termsprawl_context.transcript.text import GO_SPACE_CHARS

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import Iterable, List, Optional, Set, Tuple

    from termsprawl_context.cite.search import Call, Record
    from termsprawl_context.model import Entry, ToolCall


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


def extract_answers(body: str) -> List[str]:
    """The answers the person picked, out of an AskUserQuestion envelope (questions and
    trailer never); [] when ``body`` is not an envelope."""
    for prefix in cc.ANSWER_PREFIXES:
        start = body.find(prefix)
        if start >= 0:
            pairs = body[start + len(prefix) :]
            break
    else:
        return []
    for trailer in cc.ANSWER_TRAILERS:
        cut = pairs.find(trailer)
        if cut >= 0:
            pairs = pairs[:cut]
            break
    join = cc.ANSWER_JOIN
    picked: List[str] = []
    pos = 0
    while True:
        eq = pairs.find(join, pos)
        if eq < 0:
            return picked
        begin = eq + len(join)
        # An answer ends at the first `", "` a later pair's `"="` follows; past the last
        # one, at its last quote (none: the rest of the text).
        end = pairs.find('", "', begin)
        if end < 0 or join not in pairs[end + 3 :]:
            last_quote = pairs.rfind('"', begin)
            picked.append(pairs[begin : last_quote if last_quote >= 0 else len(pairs)])
            return picked
        picked.append(pairs[begin:end])
        pos = end + 3  # past `", ` to the next question's opening quote


def has_answer_prefix(body: str) -> bool:
    return any(prefix in body for prefix in cc.ANSWER_PREFIXES)


def _call_reads_transcript(found: Call) -> bool:
    data = found.call.input if isinstance(found.call.input, dict) else {}
    candidates = [data[k] for k in cc.INPUT_PATH_KEYS if isinstance(data.get(k), str) and data.get(k)]
    candidates.extend(command_paths(first_string(data, (cc.INPUT_COMMAND,))))
    return any(is_transcript_path(p, found.cwd) for p in candidates)


def _call_echoes(call: ToolCall) -> bool:
    if call.name != cc.TOOL_BASH:
        return False
    from termsprawl_context import cite  # the package's attribute, which a test may swap (imported by now)

    classifier = cite.command_echoes
    if classifier is None:
        return True  # fail closed: no classifier, every shell result is an echo
    return bool(classifier(first_string(call.input, (cc.INPUT_COMMAND,))))


# Why a result is not tool output, in the order asked.
EXCLUDED_NO_CALL = "no-call"
EXCLUDED_DELEGATION = "delegation"
EXCLUDED_TASK_OUTPUT = "task-output"
EXCLUDED_TRANSCRIPT = "transcript"
EXCLUDED_ECHO = "echo"
# AskUserQuestion's result is the agent's questions and the person's picks, never a tool's
# own output (the reference left it citable; its follow-up and idle forms carry the
# questions without the envelope's prefix, so the questions cited as tool output).
EXCLUDED_ASK = "ask"
# The tools whose result is never tool output, whatever it holds.
_EXCLUDED_TOOLS = dict.fromkeys(cc.DELEGATION_TOOLS, EXCLUDED_DELEGATION)
_EXCLUDED_TOOLS.update({cc.TOOL_TASK_OUTPUT: EXCLUDED_TASK_OUTPUT, cc.TOOL_ASK_USER_QUESTION: EXCLUDED_ASK})


def exclusion(found: Optional[Call]) -> str:
    """Why a call's result is not tool output (one of ``EXCLUDED_*``; "" when it is)."""
    if found is None:
        return EXCLUDED_NO_CALL
    if found.call.name in _EXCLUDED_TOOLS:
        return _EXCLUDED_TOOLS[found.call.name]
    if _call_reads_transcript(found):
        return EXCLUDED_TRANSCRIPT
    return EXCLUDED_ECHO if _call_echoes(found.call) else ""


def genuine_body(body: str) -> bool:
    return not (extract_answers(body) or is_hook_refusal(body) or looks_like_transcript(body))


def tool_bodies(record: Record, entry: Entry) -> List[Tuple[str, str]]:
    """``(tool_use_id, body)`` of every genuine tool output on a user entry."""
    return [
        (result.tool_use_id, body)
        for result in tool_results(entry)
        if result.tool_use_id and record.citable(result.tool_use_id) and not not_run_kind(result)
        for body in result_texts(result.content)
        if genuine_body(body)
    ]


def _text_bodies(content: object) -> List[str]:
    """A result's string content, or its ``text`` blocks' texts: a hook's refusal is written
    as text, so a body of another type (an image's caption) never counts as one."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    ]


def refused_tool_use_ids(entries: Iterable[Entry]) -> Set[str]:
    """The ids of the calls a PreToolUse hook refused."""
    return {
        result.tool_use_id
        for entry in entries
        for result in tool_results(entry)
        if result.tool_use_id and any(is_hook_refusal(b) for b in _text_bodies(result.content))
    }
