"""Which words of an AskUserQuestion answer envelope the person chose, read against the
questions its call asked. Claude Code copies the questions in unescaped (``<prefix>
"<q1>"="<a1>", "<q2>"="<a2>". <trailer>``, a skipped question left out), so each pair must
start with the call's next question, literally. Where there are several readings, words are
the person's only where every reading holds them inside an answer, else the caller refuses.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

from termsprawl_context import model


# Claude Code's schema allows 1 to 4 questions; the bound keeps the recursion shallow. Four
# answers read 8 ways at most (each may swallow the next); past 64 none is trusted.
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
    """The question texts of an AskUserQuestion call's input, in order, or None."""
    questions = call_input.get(model.INPUT_QUESTIONS) if isinstance(call_input, dict) else None
    if not isinstance(questions, list) or not questions or len(questions) > MAX_QUESTIONS:
        return None
    texts: List[Any] = [item.get(model.INPUT_QUESTION) if isinstance(item, dict) else None for item in questions]
    return texts if all(isinstance(text, str) and text for text in texts) else None


def _pairs(body: str) -> Optional[str]:
    """The text between an envelope's opening prefix and its last trailer, or None."""
    prefix = next((prefix for prefix in model.ANSWER_PREFIXES if body.startswith(prefix)), None)
    if prefix is None:
        return None
    rest = body[len(prefix) :]
    cut = max(rest.rfind(trailer) for trailer in model.ANSWER_TRAILERS)
    if cut < 0 or not rest.startswith(" "):
        return None
    return rest[1:cut]  # the real trailer is the last one: it comes after every answer


def _readings(pairs: str, questions: List[str]) -> List[Tuple[str, ...]]:
    """The distinct readings of ``pairs`` as ``"<q>"="<a>"`` joined by ``, `` (questions in
    order, some skipped, at least one); at most ``MAX_READINGS + 1`` sought."""
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
    """``(readings, "")``, each way ``body`` reads as answers to ``questions``, else ``(None, why)``."""
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
