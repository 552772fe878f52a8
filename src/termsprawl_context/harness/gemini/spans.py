"""Where each message of a ``{"$set": {"messages": [...]}}`` line sits inside the line, in
bytes, so a message that wins from such a line is read back alone (a resume's list holds
the whole history on one line: re-parsing that line per message made reading quadratic)."""

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Callable, List, Optional, Tuple


_SPACE = " \t\n\r"  # JSON's whitespace


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _SPACE:
        i += 1
    return i


def _walk(text: str, i: int, path: "Tuple[str, ...]", scan: "Callable") -> "Tuple[Optional[list], int]":
    """``(the element spans at the end of path, where the value at text[i] ends)``: down
    the object members named by ``path`` (the last member of a name wins, as in
    ``json.loads``), then the array's elements; spans None when the value is not so
    shaped. Each value is parsed once, by the scan that passes over it."""
    from json.decoder import scanstring  # type: ignore[attr-defined]  # public since Python 2.6, not in typeshed

    if not path:
        if text[i : i + 1] != "[":
            return None, scan(text, i)[1]
        return _elements(text, i, scan)
    if text[i : i + 1] != "{":
        return None, scan(text, i)[1]
    i = _skip(text, i + 1)
    found = None  # type: Optional[list]
    if text[i : i + 1] == "}":
        return found, i + 1
    while True:
        if text[i : i + 1] != '"':
            raise ValueError("no key")
        name, i = scanstring(text, i + 1)
        i = _skip(text, i)
        if text[i : i + 1] != ":":
            raise ValueError("no colon")
        i = _skip(text, i + 1)
        if name == path[0]:
            found, i = _walk(text, i, path[1:], scan)
        else:
            i = scan(text, i)[1]
        i, closed = _after_item(text, i, "}")
        if closed:
            return found, i


def _elements(text: str, i: int, scan: "Callable") -> "Tuple[list, int]":
    """The character spans of the elements of the array at ``text[i]``, and its end."""
    spans = []  # type: List[Tuple[int, int]]
    i = _skip(text, i + 1)
    if text[i : i + 1] == "]":
        return spans, i + 1
    while True:
        _value, end = scan(text, i)
        spans.append((i, end))
        i, closed = _after_item(text, end, "]")
        if closed:
            return spans, i


def _after_item(text: str, i: int, close: str) -> "Tuple[int, bool]":
    """Past the comma after an item at ``text[i]``, or past ``close`` (True); else ValueError."""
    i = _skip(text, i)
    if text[i : i + 1] == ",":
        return _skip(text, i + 1), False
    if text[i : i + 1] == close:
        return i + 1, True
    raise ValueError("no comma")


def message_spans(raw: bytes, count: int) -> "Optional[List[Tuple[int, int]]]":
    """``(byte start, byte end)`` within ``raw`` of each of the ``count`` elements of its
    ``$set.messages`` list, in order; None when the line is not shaped so. Exact whatever the
    bytes: each invalid byte is one character here (``surrogateescape``), and a span starts
    and ends at ASCII punctuation, where UTF-8 decoding resynchronises, so decoding a span
    alone gives the characters that decoding the whole line gives there."""
    import json

    from termsprawl_context.harness.gemini.facts import FIELD_MESSAGES, SET_KEY

    scan = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # set in __init__, untyped in typeshed
    text = raw.decode("utf-8", "surrogateescape")
    try:
        spans, _end = _walk(text, _skip(text, 0), (SET_KEY, FIELD_MESSAGES), scan)
    except (StopIteration, ValueError, RecursionError):
        return None
    if spans is None or len(spans) != count:
        return None
    found, done, at_byte = [], 0, 0
    for start, end in spans:
        at_byte += len(text[done:start].encode("utf-8", "surrogateescape"))
        size = len(text[start:end].encode("utf-8", "surrogateescape"))
        found.append((at_byte, at_byte + size))
        at_byte, done = at_byte + size, end
    return found
