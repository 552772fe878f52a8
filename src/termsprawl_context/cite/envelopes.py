"""AskUserQuestion answer envelopes read as text (which words are the answers the
person picked), and the calls a PreToolUse hook refused. Reading an envelope against
the questions its call asked is ``transcript.answers``."""

from __future__ import annotations

from termsprawl_context import model as cc
from termsprawl_context.transcript.tool_blocks import is_hook_refusal, tool_results

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import Iterable, List, Set

    from termsprawl_context.model import Entry


def extract_answers(body: str) -> List[str]:
    """The answers the person picked, out of an AskUserQuestion envelope (questions and
    trailer never); [] when ``body`` is not an envelope."""
    start = -1
    for prefix in cc.ANSWER_PREFIXES:
        start = body.find(prefix)
        if start >= 0:
            pairs = body[start + len(prefix) :]
            break
    if start < 0:
        return []
    for trailer in cc.ANSWER_TRAILERS:
        cut = pairs.find(trailer)
        if cut >= 0:
            pairs = pairs[:cut]
            break
    join = cc.ANSWER_JOIN
    answers: List[str] = []
    pos = 0
    while True:
        eq = pairs.find(join, pos)
        if eq < 0:
            return answers
        begin = eq + len(join)
        scan = begin
        last_quote = -1
        end = -1
        last = False
        while True:
            q = pairs.find('"', scan)
            if q < 0:
                last = True
                end = last_quote if last_quote >= 0 else len(pairs)
                break
            if pairs.startswith('", "', q) and join in pairs[q + 3 :]:
                end = q
                break
            last_quote = q
            scan = q + 1
        answers.append(pairs[begin:end])
        if last:
            return answers
        pos = end + 3  # past `", ` to the next question's opening quote


def is_answer_envelope(body: str) -> bool:
    return bool(extract_answers(body))


def has_answer_prefix(body: str) -> bool:
    return any(prefix in body for prefix in cc.ANSWER_PREFIXES)


def _result_bodies_text_only(content: object) -> List[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        el["text"]
        for el in content
        if isinstance(el, dict) and el.get("type") == "text" and isinstance(el.get("text"), str)
    ]


def refused_tool_use_ids(entries: Iterable[Entry]) -> Set[str]:
    """The ids of the calls a PreToolUse hook refused."""
    refused = set()
    for entry in entries:
        for result in tool_results(entry):
            if result.tool_use_id and any(is_hook_refusal(b) for b in _result_bodies_text_only(result.content)):
                refused.add(result.tool_use_id)
    return refused
