"""Which words of an AskUserQuestion answer envelope the person chose, read against the
questions the call itself asked.

The model writes the questions; Claude Code copies them into the envelope unescaped
(``<prefix> "<q1>"="<a1>", "<q2>"="<a2>". <trailer>``, a question the person skipped
left out). Parsed on its own, a question holding ``"="`` or ``", "x"="`` shifts every
later pair, and the rest of the question reads as an answer. So the envelope is parsed
here only as the questions of its own call: each pair must start with one of them,
literally and in the call's order, and an answer is what lies between. The true reading
always exists (the harness built the envelope that way), so when there are several (an
answer holding ``", "<a later question>"="``), words count as the person's only where
every reading puts them inside an answer; elsewhere a question's text could be taken for
an answer, and the caller refuses by name rather than guess.
"""

from __future__ import annotations

from termsprawl_context import model

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import Any, List, Optional, Tuple


# More questions than a real call can ask (Claude Code's schema allows 1 to 4) are no call
# to read an envelope against; the bound also keeps the parse's recursion shallow. Four
# answers can be read 8 ways at most (each may swallow the next); past 64 none is trusted.
MAX_QUESTIONS = 16
MAX_READINGS = 64

# Why an envelope cannot be matched to its call (the refusal names one).
NO_CALL = "its call is not in the record"
NO_QUESTIONS = "its call's input holds no questions to read it against"
NO_PARSE = "it does not read as answers to the questions its call asked"
AMBIGUOUS = "it reads as answers to the questions its call asked in too many ways"
SPLIT = (
    "it reads as answers to the questions its call asked in more than one way, and the quote is an answer "
    "in only some of them"
)


def call_questions(call_input: Any) -> Optional[List[str]]:
    """The question texts of an AskUserQuestion call's input, in order, or None when it
    holds none that can be read (not a list of objects each with a string ``question``)."""
    questions = call_input.get(model.INPUT_QUESTIONS) if isinstance(call_input, dict) else None
    if not isinstance(questions, list) or not questions or len(questions) > MAX_QUESTIONS:
        return None
    texts = []
    for item in questions:
        text = item.get(model.INPUT_QUESTION) if isinstance(item, dict) else None
        if not isinstance(text, str) or not text:
            return None
        texts.append(text)
    return texts


def _pairs(body: str) -> Optional[str]:
    """The pairs of an envelope: the text between its opening prefix (at the very start)
    and the last trailer; None when it has no such shape."""
    for prefix in model.ANSWER_PREFIXES:
        if body.startswith(prefix):
            rest = body[len(prefix) :]
            break
    else:
        return None
    cut = max(rest.rfind(trailer) for trailer in model.ANSWER_TRAILERS)
    if cut < 0 or not rest.startswith(" "):
        return None
    return rest[1:cut]  # the real trailer is the last one: it comes after every answer


def _readings(pairs: str, questions: List[str]) -> List[Tuple[str, ...]]:
    """The distinct readings of ``pairs`` as ``"<q>"="<a>"`` joined by ``, ``, the
    questions in order (skipped ones absent), at least one pair; at most
    ``MAX_READINGS + 1`` are sought."""
    heads = ['"%s"="' % q for q in questions]
    memo = {}

    def read(pos: int, first: int) -> List[Tuple[str, ...]]:
        key = (pos, first)
        if key in memo:
            return memo[key]
        found: List[Tuple[str, ...]] = []
        for k in range(first, len(heads)):
            if not pairs.startswith(heads[k], pos):
                continue
            start = pos + len(heads[k])
            end = pairs.find('"', start)
            while end >= 0 and len(found) <= MAX_READINGS:
                if end == len(pairs) - 1:
                    tails = [()]  # type: List[Tuple[str, ...]]
                elif pairs.startswith('", "', end):
                    tails = read(end + 3, k + 1)
                else:
                    tails = []
                for rest in tails:
                    reading = (pairs[start:end],) + rest
                    if reading not in found:
                        found.append(reading)
                end = pairs.find('"', end + 1)
        memo[key] = found
        return found

    return read(0, 0)


def answer_readings(body: str, questions: Optional[List[str]]) -> Tuple[Optional[List[Tuple[str, ...]]], str]:
    """``(readings, "")``: every way ``body`` reads as answers to ``questions`` (each a
    tuple of answers; one, unless an answer holds ``", "<a later question>"="``); else
    ``(None, why)``, ``why`` one of ``NO_QUESTIONS``, ``NO_PARSE``, ``AMBIGUOUS``.

    Words are the person's only where every reading holds them inside an answer: where
    readings differ, a question's text could be read as an answer."""
    if not questions:
        return None, NO_QUESTIONS
    pairs = _pairs(body)
    if pairs is None:
        return None, NO_PARSE
    readings = _readings(pairs, questions)
    if not readings:
        return None, NO_PARSE
    if len(readings) > MAX_READINGS:
        return None, AMBIGUOUS
    if any(model.ANSWER_PREVIEW_MARK in answer for reading in readings for answer in reading):
        return None, NO_PARSE  # an option's preview (the model's words) would read as part of an answer
    return readings, ""
