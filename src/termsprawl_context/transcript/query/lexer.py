"""The query language's lexer: source text → tokens (numbers, strings, names, operators),
each with its offset for messages."""

from __future__ import annotations

from collections import namedtuple
from typing import List, Tuple

from termsprawl_context.errors import QueryCompileError
from termsprawl_context.transcript.query.language import INT_BITS, INT_DIGITS, INT_MAX, INT_MIN, clip
from termsprawl_context.transcript.record import go_quote

Token = namedtuple("Token", "kind value pos")  # kind: num str name op end
# Longest first, so "?.[" is not read as "?." then "[".
_OPERATORS = "?.[ ?. == != <= >= && || < > ! + - * / % ( ) [ ] , .".split()
# A backslash escape's letter -> the character it stands for (``\\uXXXX`` apart).
_ESCAPES = dict(zip("ntr\\\"'0bfva/", "\n\t\r\\\"'\0\b\f\v\a/"))


def tokenize(src: str) -> List[Token]:
    tokens = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c in " \t\r\n":
            i += 1
            continue
        if c.isdigit() or (c == "." and i + 1 < n and src[i + 1].isdigit()):
            token, i = _number(src, i)
        elif c in "\"'":
            token, i = _string(src, i)
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (src[j].isalnum() or src[j] == "_"):
                j += 1
            token, i = Token("name", src[i:j], i), j
        else:
            token, i = _operator(src, i)
        tokens.append(token)
    tokens.append(Token("end", None, n))
    return tokens


def _number(src: str, i: int) -> Tuple[Token, int]:
    """The number starting at ``i`` and the offset after it."""
    n = len(src)
    j = i
    while j < n and (src[j].isdigit() or src[j] in "._"):
        j += 1
    if j < n and src[j] in "eE":
        k = j + 1
        if k < n and src[k] in "+-":
            k += 1
        if k < n and src[k].isdigit():
            j = k
            while j < n and src[j].isdigit():
                j += 1
    text = src[i:j].replace("_", "")
    is_float = any(ch in text for ch in ".eE")
    if not is_float and len(text.lstrip("0")) > INT_DIGITS:
        raise QueryCompileError("integer %s at %d does not fit %d bits" % (clip(src[i:j]), i, INT_BITS))
    try:
        value = float(text) if is_float else int(text)
    except ValueError:
        raise QueryCompileError("invalid number %s at %d" % (clip(src[i:j]), i)) from None
    if not is_float and not INT_MIN <= value <= INT_MAX:
        raise QueryCompileError("integer %s at %d does not fit %d bits" % (clip(src[i:j]), i, INT_BITS))
    return Token("num", value, i), j


def _string(src: str, i: int) -> Tuple[Token, int]:
    """The quoted string starting at ``i`` (escapes decoded) and the offset after it."""
    n, c = len(src), src[i]
    j, out = i + 1, []
    while True:
        if j >= n:
            raise QueryCompileError("unterminated string at %d" % i)
        ch = src[j]
        if ch == c:
            break
        if ch == "\\":
            if j + 1 >= n:
                raise QueryCompileError("unterminated string at %d" % i)
            esc = src[j + 1]
            if esc == "u":
                digits = src[j + 2 : j + 6]
                if len(digits) != 4 or any(d not in "0123456789abcdefABCDEF" for d in digits):
                    raise QueryCompileError("invalid escape at %d" % j)
                out.append(chr(int(digits, 16)))
                j += 6
                continue
            if esc not in _ESCAPES:
                raise QueryCompileError("invalid escape \\%s at %d" % (esc, j))
            out.append(_ESCAPES[esc])
            j += 2
            continue
        out.append(ch)
        j += 1
    return Token("str", "".join(out), i), j + 1


def _operator(src: str, i: int) -> Tuple[Token, int]:
    for op in _OPERATORS:
        if src.startswith(op, i):
            return Token("op", op, i), i + len(op)
    raise QueryCompileError("unexpected %s at %d" % (go_quote(src[i]), i))
