"""A CLI's settings JSON, read and written so that a rewrite keeps every value the merge
does not own exactly as written: the one rule for every settings file ``init`` merges into.

- A number that its float or int would not give back as the same text (``1e-400``,
  ``0.30000000000000000001``, ``-0``, ``1E5``, ``1e400``, an integer too long to convert)
  is kept as its text (``NumberText``) and written back as that text; every other number
  is the plain float or int, whose ``repr`` is its text.
- A key twice in one object (``DuplicateKey``) is refused: ``json.loads`` keeps only the
  last, so a rewrite would drop the others (a person's whole ``"hooks"`` object).
- NaN and Infinity, which are not JSON, are refused (``loads_strict``).
- Strings are written back as equal values (an escape may be spelled differently).
"""

import json

from termsprawl_context.errors import DuplicateKey
from termsprawl_context.jsonl import loads_strict


# Longer integers are kept as text unconverted: int() of a long digit string is
# quadratic before Python 3.12 and refused past 4300 digits from 3.11.
_MAX_CONVERTED_DIGITS = 18


class NumberText(float):
    """A JSON number kept by its source text; its float value is for type checks only.
    Written back by ``dumps_settings`` alone (``json.dumps`` would write the float)."""

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> "NumberText":
        self = super().__new__(cls, text)
        self.text = text
        return self


def _unique_object(pairs: list) -> dict:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return value


def _float(text: str) -> float:
    value = float(text)
    return value if float.__repr__(value) == text else NumberText(text)


def _int(text: str) -> float:
    # JSON allows no leading zero, so an int's repr is its text, "-0" aside.
    if text == "-0" or len(text) > _MAX_CONVERTED_DIGITS:
        return NumberText(text)
    return int(text)


def loads_settings(text: str) -> object:
    """The value of ``text``, each number kept as written; raises DuplicateKey, or
    ValueError (not JSON, NaN/Infinity) or RecursionError as ``loads_strict`` does."""
    return loads_strict(text, parse_float=_float, parse_int=_int, object_pairs_hook=_unique_object)


def _string(text: str) -> str:
    spelled = json.dumps(text, ensure_ascii=False)
    try:
        spelled.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: escaped, so the file stays UTF-8 and reads back equal
        return json.dumps(text)
    return spelled


def _scalar(value: object) -> str:
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, NumberText):
        return value.text
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float) and value - value == 0:  # finite: inf - inf and nan are nan
        return float.__repr__(value)
    raise ValueError("cannot write %r as JSON" % (value,))


def _write(value: object, out: list, indent, level: int) -> None:
    if isinstance(value, str):
        out.append(_string(value))
        return
    if not isinstance(value, (dict, list)):
        out.append(_scalar(value))
        return
    is_object = isinstance(value, dict)
    if not value:
        out.append("{}" if is_object else "[]")
        return
    inner = "" if indent is None else "\n" + " " * (indent * (level + 1))
    separator = "," + inner
    colon = ":" if indent is None else ": "
    out.append(("{" if is_object else "[") + inner)
    for number, (key, item) in enumerate(value.items() if isinstance(value, dict) else enumerate(value)):
        if is_object and not isinstance(key, str):
            raise ValueError("cannot write the key %r as JSON" % (key,))
        out.append((separator if number else "") + (_string(key) + colon if is_object else ""))
        _write(item, out, indent, level + 1)
    out.append(("" if indent is None else "\n" + " " * (indent * level)) + ("}" if is_object else "]"))


def dumps_settings(value: object, indent=None) -> str:
    """``value`` as ``json.dumps(value, indent=indent, ensure_ascii=False)`` writes it (compact
    when ``indent`` is None), but each NumberText as its text and a string holding a lone
    surrogate ASCII-escaped; ValueError for what is not JSON (a non-finite float)."""
    out = []  # type: list
    _write(value, out, indent, 0)
    return "".join(out)
