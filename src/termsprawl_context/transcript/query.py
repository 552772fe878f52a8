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
from typing import Any, Dict, Iterable, Iterator, List, Tuple

from termsprawl_context.errors import ExpressionNeverRan, ExpressionNotBoolean, QueryCompileError, RunError
from termsprawl_context.model import Entry
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
    """``filter`` as a stream, one entry held at a time. QueryCompileError before the first entry,
    ExpressionNotBoolean at one yielding no boolean, ExpressionNeverRan at the end if none could be."""
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


# The compiler: the vocabulary (static types, names, functions, 64-bit integer bounds), the
# lexer (source text → tokens, each with its offset for messages) and the parser (tokens →
# a typed tree, refusing what the operand types can never take).
# Static types the compiler tracks; ANY is whatever JSON a record holds.
STR, BOOL, NUM, NIL, LIST, ANY = "string", "bool", "number", "nil", "list", "any"

# The names an expression may use: each one's type, and the ``Entry`` field it reads.
FIELDS = {
    "type": (STR, "type"),
    "uuid": (STR, "uuid"),
    "parentUuid": (STR, "parent_uuid"),
    "logicalParentUuid": (STR, "logical_parent_uuid"),
    "timestamp": (STR, "timestamp"),
    "isSidechain": (BOOL, "is_sidechain"),
    "message": (ANY, "message"),
    "toolUseResult": (ANY, "tool_use_result"),
}
FUNCTIONS = ("int", "len")
# Integers are Go's int, 64 bits, and computed exactly: a literal, an int() or a result of
# + - * % unary - outside them is refused, never rounded through a float or grown without
# bound (a record's 4,300-digit number squared is 8,600 digits that Python cannot even
# print). A record may still hold a larger number; it compares exactly.
INT_BITS = 64
INT_MIN, INT_MAX = -(1 << (INT_BITS - 1)), (1 << (INT_BITS - 1)) - 1
INT_DIGITS = len(str(INT_MAX))  # 19: a longer run of digits (leading zeros aside) cannot fit
KEYWORDS = frozenset("and or not in contains startsWith endsWith true false nil".split())


def clip(text: str, limit: int = 40) -> str:
    """At most ``limit`` characters of quoted input, for a one-line message."""
    return text if len(text) <= limit else text[:limit] + "..."


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
            op = next((op for op in _OPERATORS if src.startswith(op, i)), "")
            if not op:
                raise QueryCompileError("unexpected %s at %d" % (go_quote(c), i))
            token, i = Token("op", op, i), i + len(op)
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
        if j >= n or (src[j] == "\\" and j + 1 >= n):
            raise QueryCompileError("unterminated string at %d" % i)
        ch = src[j]
        if ch == c:
            break
        if ch != "\\":
            out.append(ch)
            j += 1
        elif src[j + 1] == "u":
            digits = src[j + 2 : j + 6]
            if len(digits) != 4 or any(d not in "0123456789abcdefABCDEF" for d in digits):
                raise QueryCompileError("invalid escape at %d" % j)
            out.append(chr(int(digits, 16)))
            j += 6
        elif src[j + 1] in _ESCAPES:
            out.append(_ESCAPES[src[j + 1]])
            j += 2
        else:
            raise QueryCompileError("invalid escape \\%s at %d" % (src[j + 1], j))
    return Token("str", "".join(out), i), j + 1


_SPELLED = {"||": "or", "&&": "and"}
_CONSTANTS = {"true": (BOOL, True), "false": (BOOL, False), "nil": (NIL, None)}


# Nodes are tuples (kind, static type, ...); kinds: lit, name, list, path, call, unary, not,
# and, or, binary (``evaluate`` reads them).
class Parser(object):
    def __init__(self, tokens: List[Token]) -> None:
        self.tokens = tokens
        self.pos = 0

    def take(self) -> Token:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def at(self, *values: str) -> bool:
        """Whether the next token is an operator or a word among ``values``."""
        token = self.tokens[self.pos]
        return token.kind in ("op", "name") and token.value in values

    def expect(self, value: str) -> None:
        token = self.take()
        if token.kind != "op" or token.value != value:
            raise QueryCompileError("expected %s at %d, found %s" % (value, token.pos, _describe(token)))

    def parse(self):
        node = self.or_()
        token = self.tokens[self.pos]
        if token.kind != "end":
            raise QueryCompileError("unexpected %s at %d" % (_describe(token), token.pos))
        return node

    def or_(self):
        return self._chain(("or", "||"), lambda: self._chain(("and", "&&"), self.not_))

    def _chain(self, ops: Tuple[str, ...], operand):
        """``operand (op operand)*``, left to right: one precedence level."""
        node = operand()
        while self.at(*ops):
            op = self.take().value
            node = _binary_node(_SPELLED.get(op, op), node, operand())
        return node

    def not_(self):
        if self.at("not", "!"):
            self.take()
            operand = self.not_()
            _need("not", BOOL, operand)
            return ("not", BOOL, operand)
        return self.compare()

    def compare(self):
        node = self.additive()
        while True:
            if self.at("==", "!=", "<", "<=", ">", ">=", "in", "contains", "startsWith", "endsWith"):
                op = self.take().value
            elif self.at("not") and self.tokens[self.pos + 1][:2] == ("name", "in"):
                self.take()
                self.take()
                op = "not in"
            else:
                return node
            node = _binary_node(op, node, self.additive())

    def additive(self):
        return self._chain(("+", "-"), lambda: self._chain(("*", "/", "%"), self.unary))

    def unary(self):
        if self.at("-", "+"):
            op = self.take().value
            operand = self.unary()
            _need(op, NUM, operand)
            return ("unary", NUM, op, operand)
        return self.postfix()

    def postfix(self):
        node = self.primary()
        chain = []  # steps: (optional, kind, key node or name)
        while True:
            if self.at(".", "?."):
                optional = self.take().value == "?."
                token = self.take()
                if token.kind != "name":
                    raise QueryCompileError("expected a field name at %d, found %s" % (token.pos, _describe(token)))
                chain.append((optional, "member", token.value))
            elif self.at("[", "?.["):
                optional = self.take().value == "?.["
                key = self.or_()
                self.expect("]")
                chain.append((optional, "index", key))
            else:
                break
        if not chain:
            return node
        kind = node[1]
        for optional, step, key in chain:
            if kind in (STR, BOOL, NUM, NIL) and not (step == "index" and kind == STR):
                if kind != NIL or not optional:
                    raise QueryCompileError(
                        "a %s has no %s" % (kind, "field %s" % key if step == "member" else "index")
                    )
            if step == "index" and key[1] in (BOOL, NIL, LIST):
                raise QueryCompileError("cannot index with a %s" % key[1])
            kind = STR if (kind == STR and step == "index") else ANY
        return ("path", kind, node, tuple(chain))

    def _comma_list(self, close: str) -> list:
        """``expr (, expr)*`` (or nothing) up to ``close``, which is taken."""
        items = []
        if not self.at(close):
            items.append(self.or_())
            while self.at(","):
                self.take()
                items.append(self.or_())
        self.expect(close)
        return items

    def primary(self):
        token = self.take()
        if token.kind == "num":
            return ("lit", NUM, token.value)
        if token.kind == "str":
            return ("lit", STR, token.value)
        if token.kind == "op" and token.value == "(":
            node = self.or_()
            self.expect(")")
            return node
        if token.kind == "op" and token.value == "[":
            return ("list", LIST, tuple(self._comma_list("]")))
        if token.kind == "name":
            name = token.value
            if name in _CONSTANTS:
                return ("lit",) + _CONSTANTS[name]
            if self.at("("):
                if name not in FUNCTIONS:
                    raise QueryCompileError("unknown function %s" % name)
                self.take()
                args = self._comma_list(")")
                if len(args) != 1:
                    raise QueryCompileError("%s takes one argument, not %d" % (name, len(args)))
                return ("call", NUM, name, args[0])
            if name in KEYWORDS:
                raise QueryCompileError("unexpected %s at %d" % (name, token.pos))
            if name not in FIELDS:
                raise QueryCompileError("unknown name %s (known: %s)" % (name, ", ".join(FIELDS)))
            return ("name", FIELDS[name][0], name)
        raise QueryCompileError("unexpected %s at %d" % (_describe(token), token.pos))


def _describe(token: Token) -> str:
    if token.kind == "end":
        return "end of expression"
    return go_quote(str(token.value)) if token.kind == "str" else str(token.value)


def _need(op: str, kind: str, *nodes) -> None:
    for node in nodes:  # each must be of ``kind``, or of any type (known at run time)
        if node[1] not in (kind, ANY):
            raise QueryCompileError("%s cannot take a %s" % (op, node[1]))


def _binary_node(op: str, left, right):
    lt, rt = left[1], right[1]
    if op in ("and", "or"):
        _need(op, BOOL, left, right)
        return (op, BOOL, left, right)
    if op in ("<", "<=", ">", ">="):
        if not (lt == ANY or rt == ANY or (lt == rt and lt in (NUM, STR))):
            raise QueryCompileError("%s cannot compare a %s with a %s" % (op, lt, rt))
    elif op in ("contains", "startsWith", "endsWith"):
        _need(op, STR, left, right)
    elif op in ("in", "not in"):
        _need(op, LIST, right)
    elif op == "+" and (lt == STR or rt == STR):
        if not (lt in (STR, ANY) and rt in (STR, ANY)):
            raise QueryCompileError("+ cannot join a %s and a %s" % (lt, rt))
        return ("binary", STR, op, left, right)
    elif op not in ("==", "!="):  # arithmetic
        _need(op, NUM, left, right)
        return ("binary", ANY if ANY in (lt, rt) and op == "+" else NUM, op, left, right)
    return ("binary", BOOL, op, left, right)


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
