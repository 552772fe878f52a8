"""``filter(entries, where)``: a small, safe expression language over a record's entries,
parsed and evaluated here (never ``eval``): the subset of expr (github.com/expr-lang/expr)
the reference's rules use, so a rule reads the same in both (docs/citations.md).

- names (``language.FIELDS``): ``type``, ``uuid``, ``parentUuid``, ``logicalParentUuid``,
  ``timestamp``, ``isSidechain``, ``message``, ``toolUseResult`` (JSON as recorded);
  literals ``"s"`` ``'s'`` (``\\n \\t \\\\ \\" \\' \\uXXXX``), numbers, ``true``, ``false``,
  ``nil``, ``[1, "a"]``; paths ``a.b``, ``a?.b`` (nil on the left: the rest is nil),
  ``a[0]``, ``a[-1]``, ``a["k"]`` (a missing key is nil, an index out of range an error);
- ``==`` ``!=`` deep (1 == 1.0; ``true`` is not 1); ``<`` ``<=`` ``>`` ``>=`` on two
  numbers or two strings; ``in`` / ``not in`` a list's element or an object's key;
  ``contains`` ``startsWith`` ``endsWith`` on strings; ``and`` ``or`` ``not`` (``&&``
  ``||`` ``!``) on booleans; ``+ - * / %``: ``/`` as floats (``1/0`` is +Inf), the rest
  exact on 64-bit integers (an overflow an error), ``+`` also joins strings;
- ``int(x)`` (a number or an integer's digits), ``len(x)`` (a string, list or object).

Precedence, loosest first: ``or``, ``and``, ``not`` (looser than ``==``, as in Python,
unlike expr), comparisons, ``+ -``, ``* / %``, unary ``-``, paths. Refused when compiled:
a syntax error, an unknown name or function, an operation the types can never take
(``uuid and true``, ``type.x``), an expression that cannot be a boolean. At run time an
entry of another shape is an error for that entry alone: not a match.
"""

from __future__ import annotations

import math
import operator
from collections import namedtuple
from typing import Any, Dict, Iterable, Iterator, List

from termsprawl_context.errors import ExpressionNeverRan, ExpressionNotBoolean, QueryCompileError, RunError
from termsprawl_context.model import Entry
from termsprawl_context.transcript.query.parser import ANY, BOOL, FIELDS, INT_BITS, INT_DIGITS, INT_MAX, INT_MIN
from termsprawl_context.transcript.query.parser import Parser, clip, tokenize
from termsprawl_context.transcript.record import go_quote


# A compiled ``where`` expression.
Expression = namedtuple("Expression", "source tree")


def _where(source: str) -> str:
    return "transcript: where %s" % go_quote(source)


def compile_where(source: str) -> Expression:
    """The compiled expression; QueryCompileError names what is wrong with it."""
    try:
        tree = Parser(tokenize(source)).parse()
    except QueryCompileError as exc:  # the lexer's or the parser's bare reason
        raise QueryCompileError("%s: %s" % (_where(source), exc)) from None
    except RecursionError:
        raise QueryCompileError("%s: nested too deeply" % _where(source)) from None
    if tree[1] not in (BOOL, ANY):
        raise QueryCompileError("%s: expected bool, but got %s" % (_where(source), tree[1]))
    return Expression(source, tree)


def filter(entries: Iterable[Entry], where: str, include_sidechains: bool = False) -> List[Entry]:  # noqa: A001
    """The entries ``where`` holds for, in order (sidechains only when asked): nothing
    matching is an answer ([]); the refusals are ``iter_filter``'s."""
    return list(iter_filter(entries, where, include_sidechains))


def iter_filter(entries: Iterable[Entry], where: str, include_sidechains: bool = False) -> Iterator[Entry]:
    """``filter`` as a stream, one entry held at a time. QueryCompileError before the first;
    ExpressionNotBoolean where an entry yields no boolean; ExpressionNeverRan at the end
    when no entry offered could be evaluated."""
    expression = compile_where(where) if where else None
    offered = evaluated = 0
    for entry in entries:
        if entry.is_sidechain and not include_sidechains:
            continue
        offered += 1
        if expression is None:
            yield entry
            continue
        try:
            value = evaluate(expression.tree, {name: getattr(entry, field) for name, (_, field) in FIELDS.items()})
        except (RunError, RecursionError):
            continue
        evaluated += 1
        if not isinstance(value, bool):
            raise ExpressionNotBoolean(
                "%s: expression did not produce a boolean: produced %s, not a boolean"
                % (_where(where), type_name(value))
            )
        if value:
            yield entry
    if expression is not None and offered and not evaluated:
        raise ExpressionNeverRan(
            "%s: expression could not be evaluated against any entry: not one of the %d entries could be evaluated "
            "against it, so the answer would report no violations without having looked" % (_where(where), offered)
        )


# The evaluator: a typed tree and one entry's names → a value, with expr's (Go's)
# semantics: deep equality, exact 64-bit integers, float division.
def _is_num(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_num(a) and _is_num(b):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if type(a) is not type(b):
        return False
    return a == b


def type_name(value: Any) -> str:
    """The value's type as Go (the reference) names it, for messages."""
    if value is None:
        return "<nil>"
    return next((name for kind, name in _GO_TYPES if isinstance(value, kind)), "map[string]interface {}")


_GO_TYPES = ((bool, "bool"), (int, "int"), (float, "float64"), (str, "string"), (list, "[]interface {}"))
_EXACT = {"+": operator.add, "-": operator.sub, "*": operator.mul}  # exact on integers, then checked
# Comparisons of two numbers or two strings, and the operators on two strings alone.
_ORDERED = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_ON_STRINGS: Dict[str, Any] = {"contains": operator.contains, "startsWith": str.startswith, "endsWith": str.endswith}


def _step(value: Any, step: str, key: Any) -> Any:
    if step == "member":
        if isinstance(value, dict):
            return value.get(key)
        raise RunError("cannot fetch %s from %s" % (key, type_name(value)))
    if isinstance(value, dict):
        if not isinstance(key, str):
            raise RunError("cannot index a map with %s" % type_name(key))
        return value.get(key)
    if isinstance(value, (list, str)):
        if isinstance(key, float) and math.isfinite(key) and key == int(key):
            key = int(key)
        if not isinstance(key, int) or isinstance(key, bool):
            raise RunError("cannot index with %s" % type_name(key))
        if not -len(value) <= key < len(value):
            raise RunError("index out of range: %s (length %d)" % (_int_text(key), len(value)))
        return value[key]
    raise RunError("cannot index %s" % type_name(value))


def _int_text(value: int) -> str:
    """An integer for a message: its digits while it fits 64 bits, else its size (a
    huge one would cost quadratic time to print, or raise past Python's digit limit)."""
    return "%d" % value if INT_MIN <= value <= INT_MAX else "a %d-bit integer" % value.bit_length()


def _checked(value: Any) -> Any:
    """``value``, refused when it is an integer outside 64 bits."""
    if isinstance(value, int) and not isinstance(value, bool) and not INT_MIN <= value <= INT_MAX:
        raise RunError("integer overflow: the result (%s) does not fit %d bits" % (_int_text(value), INT_BITS))
    return value


def _to_int(value: Any) -> int:
    if _is_num(value):
        if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
            raise RunError("int() of %r" % value)
        return _checked(int(value))
    if isinstance(value, str):
        text = value[1:] if value[:1] in "+-" else value
        if text.isascii() and text.isdigit():
            if len(text.lstrip("0")) > INT_DIGITS:  # never int() it: past 4,300 digits that raises
                raise RunError("int() of a %d-digit string: it does not fit %d bits" % (len(text), INT_BITS))
            return _checked(int(value))
        raise RunError("invalid syntax for int(): %s" % go_quote(clip(value)))
    raise RunError("int() of %s" % type_name(value))


def _arith(op: str, a: Any, b: Any) -> Any:
    if op == "+" and isinstance(a, str) and isinstance(b, str):
        return a + b
    if not (_is_num(a) and _is_num(b)):
        raise RunError("invalid operation %s %s %s" % (type_name(a), op, type_name(b)))
    try:
        if op in _EXACT:
            return _checked(_EXACT[op](a, b))
        if op == "/":
            a, b = float(a), float(b)  # expr's /: both operands as float64
            if b == 0:
                if a == 0 or math.isnan(a):
                    return math.nan
                return math.copysign(math.inf, a) * math.copysign(1.0, b)
            return a / b
    except OverflowError:  # an integer too large for a float64, or a float result past it
        raise RunError(
            "invalid operation: %s %s %s is out of a float's range" % (type_name(a), op, type_name(b))
        ) from None
    if not (isinstance(a, int) and isinstance(b, int)):
        raise RunError("% needs two integers")
    if b == 0:
        raise RunError("integer divide by zero")
    # Go's %, exactly: the sign of the dividend (math.fmod went through floats, so
    # 9007199254740993 % 2 was 0).
    remainder = abs(a) % abs(b)
    return _checked(remainder if a >= 0 else -remainder)


def evaluate(node, env: Dict[str, Any]) -> Any:
    kind = node[0]
    if kind == "lit":
        return node[2]
    if kind == "name":
        return env[node[2]]
    if kind == "list":
        return [evaluate(item, env) for item in node[2]]
    if kind == "path":
        value = evaluate(node[2], env)
        for optional, step, key in node[3]:
            if value is None:
                if optional:
                    return None  # a nil before ?. makes the rest of the path nil
                raise RunError("cannot fetch %s from nil" % (key if step == "member" else "an index"))
            value = _step(value, step, key if step == "member" else evaluate(key, env))
        return value
    if kind == "call":
        value = evaluate(node[3], env)
        if node[2] == "int":
            return _to_int(value)
        if isinstance(value, (str, list, dict)):
            return len(value)
        raise RunError("len() of %s" % type_name(value))
    if kind == "unary":
        value = evaluate(node[3], env)
        if not _is_num(value):
            raise RunError("invalid operation %s%s" % (node[2], type_name(value)))
        return _checked(-value) if node[2] == "-" else value
    if kind == "not":
        return not _boolean(evaluate(node[2], env), "not")
    if kind in ("and", "or"):
        left = _boolean(evaluate(node[2], env), kind)
        if left is (kind == "or"):
            return left  # short-circuit: False ends an ``and``, True an ``or``
        return _boolean(evaluate(node[3], env), kind)
    return _binary(node[2], evaluate(node[3], env), evaluate(node[4], env))


def _binary(op: str, left: Any, right: Any) -> Any:
    """A binary operator's value over two evaluated operands."""
    if op == "==":
        return _equal(left, right)
    if op == "!=":
        return not _equal(left, right)
    if op in _ORDERED or op in _ON_STRINGS:
        numbers = op in _ORDERED and _is_num(left) and _is_num(right)
        if not (numbers or (isinstance(left, str) and isinstance(right, str))):
            raise RunError("invalid operation %s %s %s" % (type_name(left), op, type_name(right)))
        return _ORDERED[op](left, right) if op in _ORDERED else _ON_STRINGS[op](left, right)
    if op in ("in", "not in"):
        if isinstance(right, list):
            found = any(_equal(left, item) for item in right)
        elif isinstance(right, dict):
            if not isinstance(left, str):
                raise RunError("cannot use %s as a map key" % type_name(left))
            found = left in right
        elif right is None:
            found = False
        else:
            raise RunError("invalid operation %s in %s" % (type_name(left), type_name(right)))
        return found if op == "in" else not found
    return _arith(op, left, right)


def _boolean(value: Any, op: str) -> bool:
    if not isinstance(value, bool):
        raise RunError("%s needs a boolean, not %s" % (op, type_name(value)))
    return value
