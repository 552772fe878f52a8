"""Queries over a record's entries: ``filter(entries, where)`` with a small, safe
expression language, parsed and evaluated here (never ``eval``).

The language is the subset of expr (github.com/expr-lang/expr) that the reference's
rules use, so a rule reads the same in both:

- names: ``type``, ``uuid``, ``parentUuid``, ``logicalParentUuid``, ``timestamp``
  (strings), ``isSidechain`` (a boolean), ``message`` and ``toolUseResult`` (the JSON as
  recorded: objects, lists, strings, numbers, ``true``/``false``, ``nil``);
- literals: ``"text"`` or ``'text'`` (``\\n \\t \\\\ \\" \\' \\uXXXX`` escapes), numbers,
  ``true``, ``false``, ``nil``, lists ``[1, "a"]``;
- field paths ``message.content``, optional chaining ``message?.content`` (a nil on the
  left makes the rest of the path nil), indexing ``content[0]``, ``content[-1]``,
  ``obj["key"]`` (a missing key is nil; an index out of range is an error);
- ``==`` ``!=`` (deep equality; 1 == 1.0; ``true`` is not 1), ``<`` ``<=`` ``>`` ``>=``
  (two numbers or two strings), ``in`` / ``not in`` (a list's element or an object's
  key), ``contains`` ``startsWith`` ``endsWith`` (strings), ``and`` ``or`` ``not`` (also
  ``&&`` ``||`` ``!``; operands must be booleans), ``+ - * / %`` (``/`` divides as
  floats, so ``1/0`` is +Inf; ``%`` and the rest are exact on 64-bit integers, an
  overflow an error; ``+`` also joins strings), parentheses;
- functions: ``int(x)`` (a number or an integer's digits; anything else is an error),
  ``len(x)`` (a string's, list's or object's length).

Precedence, loosest first: ``or``, ``and``, ``not``, comparisons, ``+ -``, ``* / %``,
unary ``-``, then paths. (Unlike expr, ``not`` binds looser than ``==``, as in Python:
``not type == "user"`` means ``not (type == "user")``.)

Refused when compiled: a syntax error, an unknown name or function, an operation the
operand types can never take (``uuid and true``, ``type.x``), and an expression that
cannot be a boolean (``uuid``). At run time an entry of another shape (a missing field,
a string where a list was expected) is an error for that entry alone: not a match.
"""

from __future__ import annotations

import math
from collections import namedtuple

from termsprawl_context.errors import EXIT_FAILURE, EXIT_QUERY_NEVER_RAN, Refusal, UsageError
from termsprawl_context.transcript.record import go_quote

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import Any, Dict, Iterable, Iterator, List, Tuple

    from termsprawl_context.transcript.entry import Entry

# Static types the compiler tracks; ANY is whatever JSON a record holds.
STR, BOOL, NUM, NIL, LIST, ANY = "string", "bool", "number", "nil", "list", "any"

# The names an expression may use, and their types.
FIELDS = {
    "type": STR,
    "uuid": STR,
    "parentUuid": STR,
    "logicalParentUuid": STR,
    "timestamp": STR,
    "isSidechain": BOOL,
    "message": ANY,
    "toolUseResult": ANY,
}
FUNCTIONS = ("int", "len")
# Integers are Go's int, 64 bits, and computed exactly: a literal, an int() or a result of
# + - * % unary - outside them is refused, never rounded through a float or grown without
# bound (a record's 4,300-digit number squared is 8,600 digits that Python cannot even
# print). A record may still hold a larger number; it compares exactly.
INT_BITS = 64
INT_MIN, INT_MAX = -(1 << (INT_BITS - 1)), (1 << (INT_BITS - 1)) - 1
INT_DIGITS = len(str(INT_MAX))  # 19: a longer run of digits (leading zeros aside) cannot fit
_KEYWORDS = frozenset("and or not in contains startsWith endsWith true false nil".split())


# --- refusals --------------------------------------------------------------------------------
class QueryCompileError(UsageError):
    """The expression will not compile: ``transcript: where "<src>": <why>``."""


class ExpressionNotBoolean(Refusal):
    """An entry made the expression produce something that is not a boolean."""

    exit_code = EXIT_FAILURE


class ExpressionNeverRan(Refusal):
    """The expression could be evaluated against none of the entries it was offered:
    "nothing matched" would report no violations without having looked."""

    exit_code = EXIT_QUERY_NEVER_RAN


class _RunError(Exception):
    """This entry cannot be evaluated (another shape): not a match."""


# --- tokens ---------------------------------------------------------------------------------
Token = namedtuple("Token", "kind value pos")  # kind: num str name op end
_OPERATORS = ("?.[", "?.", "==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "+", "-", "*", "/", "%",
              "(", ")", "[", "]", ",", ".")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "0": "\0", "b": "\b", "f": "\f",
            "v": "\v", "a": "\a", "/": "/"}


class _Syntax(Exception):
    pass


def _tokenize(src: str) -> List[Token]:
    tokens = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c in " \t\r\n":
            i += 1
            continue
        if c.isdigit() or (c == "." and i + 1 < n and src[i + 1].isdigit()):
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
                raise _Syntax("integer %s at %d does not fit %d bits" % (_clip(src[i:j]), i, INT_BITS))
            try:
                value = float(text) if is_float else int(text)
            except ValueError:
                raise _Syntax("invalid number %s at %d" % (_clip(src[i:j]), i)) from None
            if not is_float and not INT_MIN <= value <= INT_MAX:
                raise _Syntax("integer %s at %d does not fit %d bits" % (_clip(src[i:j]), i, INT_BITS))
            tokens.append(Token("num", value, i))
            i = j
            continue
        if c in "\"'":
            j, out = i + 1, []
            while True:
                if j >= n:
                    raise _Syntax("unterminated string at %d" % i)
                ch = src[j]
                if ch == c:
                    break
                if ch == "\\":
                    if j + 1 >= n:
                        raise _Syntax("unterminated string at %d" % i)
                    esc = src[j + 1]
                    if esc == "u":
                        digits = src[j + 2:j + 6]
                        if len(digits) != 4 or any(d not in "0123456789abcdefABCDEF" for d in digits):
                            raise _Syntax("invalid escape at %d" % j)
                        out.append(chr(int(digits, 16)))
                        j += 6
                        continue
                    if esc not in _ESCAPES:
                        raise _Syntax("invalid escape \\%s at %d" % (esc, j))
                    out.append(_ESCAPES[esc])
                    j += 2
                    continue
                out.append(ch)
                j += 1
            tokens.append(Token("str", "".join(out), i))
            i = j + 1
            continue
        if c.isalpha() or c == "_":
            j = i
            while j < n and (src[j].isalnum() or src[j] == "_"):
                j += 1
            tokens.append(Token("name", src[i:j], i))
            i = j
            continue
        for op in _OPERATORS:
            if src.startswith(op, i):
                tokens.append(Token("op", op, i))
                i += len(op)
                break
        else:
            raise _Syntax("unexpected %s at %d" % (go_quote(c), i))
    tokens.append(Token("end", None, n))
    return tokens


# --- the tree -------------------------------------------------------------------------------
# Nodes are tuples: (kind, static type, ...). Kinds: lit, name, member, index, call, unary,
# binary, and, or, not, list.
class _Parser(object):
    def __init__(self, tokens: List[Token]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> Token:
        return self.tokens[self.pos]

    def take(self) -> Token:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def at(self, kind: str, value: Any = None) -> bool:
        token = self.peek()
        return token.kind == kind and (value is None or token.value == value)

    def at_word(self, *words: str) -> bool:
        token = self.peek()
        return token.kind == "name" and token.value in words

    def expect(self, value: str) -> None:
        token = self.take()
        if token.kind != "op" or token.value != value:
            raise _Syntax("expected %s at %d, found %s" % (value, token.pos, _describe(token)))

    def parse(self):
        node = self.or_()
        if not self.at("end"):
            raise _Syntax("unexpected %s at %d" % (_describe(self.peek()), self.peek().pos))
        return node

    def or_(self):
        node = self.and_()
        while self.at_word("or") or self.at("op", "||"):
            self.take()
            node = _logical("or", node, self.and_())
        return node

    def and_(self):
        node = self.not_()
        while self.at_word("and") or self.at("op", "&&"):
            self.take()
            node = _logical("and", node, self.not_())
        return node

    def not_(self):
        if self.at_word("not") or self.at("op", "!"):
            self.take()
            operand = self.not_()
            _need(operand, (BOOL, ANY), "not")
            return ("not", BOOL, operand)
        return self.compare()

    def compare(self):
        node = self.additive()
        while True:
            token = self.peek()
            if token.kind == "op" and token.value in ("==", "!=", "<", "<=", ">", ">="):
                op = self.take().value
            elif self.at_word("in", "contains", "startsWith", "endsWith"):
                op = self.take().value
            elif self.at_word("not") and self.tokens[self.pos + 1].kind == "name" \
                    and self.tokens[self.pos + 1].value == "in":
                self.take()
                self.take()
                op = "not in"
            else:
                return node
            node = _binary(op, node, self.additive())

    def additive(self):
        node = self.multiplicative()
        while self.at("op", "+") or self.at("op", "-"):
            node = _binary(self.take().value, node, self.multiplicative())
        return node

    def multiplicative(self):
        node = self.unary()
        while self.at("op", "*") or self.at("op", "/") or self.at("op", "%"):
            node = _binary(self.take().value, node, self.unary())
        return node

    def unary(self):
        if self.at("op", "-") or self.at("op", "+"):
            op = self.take().value
            operand = self.unary()
            _need(operand, (NUM, ANY), op)
            return ("unary", NUM, op, operand)
        return self.postfix()

    def postfix(self):
        node = self.primary()
        chain = []  # steps: (optional, kind, key node or name)
        while True:
            if self.at("op", ".") or self.at("op", "?."):
                optional = self.take().value == "?."
                token = self.take()
                if token.kind != "name":
                    raise _Syntax("expected a field name at %d, found %s" % (token.pos, _describe(token)))
                chain.append((optional, "member", token.value))
            elif self.at("op", "[") or self.at("op", "?.["):
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
                    raise _Syntax("a %s has no %s" % (kind, "field %s" % key if step == "member" else "index"))
            if step == "index" and key[1] in (BOOL, NIL, LIST):
                raise _Syntax("cannot index with a %s" % key[1])
            kind = STR if (kind == STR and step == "index") else ANY
        return ("path", kind, node, tuple(chain))

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
            items = []
            if not self.at("op", "]"):
                items.append(self.or_())
                while self.at("op", ","):
                    self.take()
                    items.append(self.or_())
            self.expect("]")
            return ("list", LIST, tuple(items))
        if token.kind == "name":
            name = token.value
            if name == "true" or name == "false":
                return ("lit", BOOL, name == "true")
            if name == "nil":
                return ("lit", NIL, None)
            if self.at("op", "("):
                if name not in FUNCTIONS:
                    raise _Syntax("unknown function %s" % name)
                self.take()
                args = []
                if not self.at("op", ")"):
                    args.append(self.or_())
                    while self.at("op", ","):
                        self.take()
                        args.append(self.or_())
                self.expect(")")
                if len(args) != 1:
                    raise _Syntax("%s takes one argument, not %d" % (name, len(args)))
                return ("call", NUM, name, args[0])
            if name in _KEYWORDS:
                raise _Syntax("unexpected %s at %d" % (name, token.pos))
            if name not in FIELDS:
                raise _Syntax("unknown name %s (known: %s)" % (name, ", ".join(FIELDS)))
            return ("name", FIELDS[name], name)
        raise _Syntax("unexpected %s at %d" % (_describe(token), token.pos))


def _clip(text: str, limit: int = 40) -> str:
    """At most ``limit`` characters of quoted input, for a one-line message."""
    return text if len(text) <= limit else text[:limit] + "..."


def _describe(token: Token) -> str:
    if token.kind == "end":
        return "end of expression"
    return go_quote(str(token.value)) if token.kind == "str" else str(token.value)


def _need(node, allowed: Tuple[str, ...], op: str) -> None:
    if node[1] not in allowed:
        raise _Syntax("%s cannot take a %s" % (op, node[1]))


def _logical(op: str, left, right):
    _need(left, (BOOL, ANY), op)
    _need(right, (BOOL, ANY), op)
    return (op, BOOL, left, right)


def _binary(op: str, left, right):
    lt, rt = left[1], right[1]
    if op in ("==", "!="):
        return ("binary", BOOL, op, left, right)
    if op in ("<", "<=", ">", ">="):
        if not (lt == ANY or rt == ANY or (lt == rt and lt in (NUM, STR))):
            raise _Syntax("%s cannot compare a %s with a %s" % (op, lt, rt))
        return ("binary", BOOL, op, left, right)
    if op in ("contains", "startsWith", "endsWith"):
        _need(left, (STR, ANY), op)
        _need(right, (STR, ANY), op)
        return ("binary", BOOL, op, left, right)
    if op in ("in", "not in"):
        _need(right, (LIST, ANY), op)
        return ("binary", BOOL, op, left, right)
    if op == "+" and (lt == STR or rt == STR):
        if not (lt in (STR, ANY) and rt in (STR, ANY)):
            raise _Syntax("+ cannot join a %s and a %s" % (lt, rt))
        return ("binary", STR, op, left, right)
    _need(left, (NUM, ANY), op)
    _need(right, (NUM, ANY), op)
    return ("binary", ANY if ANY in (lt, rt) and op == "+" else NUM, op, left, right)


# --- evaluation -----------------------------------------------------------------------------
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


def _type_name(value: Any) -> str:
    """The value's type as Go (the reference) names it, for messages."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "[]interface {}"
    return "map[string]interface {}"


def _step(value: Any, step: str, key: Any) -> Any:
    if step == "member":
        if isinstance(value, dict):
            return value.get(key)
        raise _RunError("cannot fetch %s from %s" % (key, _type_name(value)))
    if isinstance(value, dict):
        if not isinstance(key, str):
            raise _RunError("cannot index a map with %s" % _type_name(key))
        return value.get(key)
    if isinstance(value, (list, str)):
        if isinstance(key, float) and math.isfinite(key) and key == int(key):
            key = int(key)
        if not isinstance(key, int) or isinstance(key, bool):
            raise _RunError("cannot index with %s" % _type_name(key))
        if not -len(value) <= key < len(value):
            raise _RunError("index out of range: %s (length %d)" % (_int_text(key), len(value)))
        return value[key]
    raise _RunError("cannot index %s" % _type_name(value))


def _int_text(value: int) -> str:
    """An integer for a message: its digits while it fits 64 bits, else its size (a
    huge one would cost quadratic time to print, or raise past Python's digit limit)."""
    return "%d" % value if INT_MIN <= value <= INT_MAX else "a %d-bit integer" % value.bit_length()


def _checked(value: Any) -> Any:
    """``value``, refused when it is an integer outside 64 bits."""
    if isinstance(value, int) and not isinstance(value, bool) and not INT_MIN <= value <= INT_MAX:
        raise _RunError("integer overflow: the result (%s) does not fit %d bits" % (_int_text(value), INT_BITS))
    return value


def _to_int(value: Any) -> int:
    if _is_num(value):
        if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
            raise _RunError("int() of %r" % value)
        return _checked(int(value))
    if isinstance(value, str):
        text = value[1:] if value[:1] in "+-" else value
        if text.isascii() and text.isdigit():
            if len(text.lstrip("0")) > INT_DIGITS:  # never int() it: past 4,300 digits that raises
                raise _RunError("int() of a %d-digit string: it does not fit %d bits" % (len(text), INT_BITS))
            return _checked(int(value))
        raise _RunError("invalid syntax for int(): %s" % go_quote(_clip(value)))
    raise _RunError("int() of %s" % _type_name(value))


def _arith(op: str, a: Any, b: Any) -> Any:
    if op == "+" and isinstance(a, str) and isinstance(b, str):
        return a + b
    if not (_is_num(a) and _is_num(b)):
        raise _RunError("invalid operation %s %s %s" % (_type_name(a), op, _type_name(b)))
    try:
        if op == "+":
            return _checked(a + b)
        if op == "-":
            return _checked(a - b)
        if op == "*":
            return _checked(a * b)
        if op == "/":
            a, b = float(a), float(b)  # expr's /: both operands as float64
            if b == 0:
                if a == 0 or math.isnan(a):
                    return math.nan
                return math.copysign(math.inf, a) * math.copysign(1.0, b)
            return a / b
    except OverflowError:  # an integer too large for a float64, or a float result past it
        raise _RunError("invalid operation: %s %s %s is out of a float's range"
                        % (_type_name(a), op, _type_name(b))) from None
    if not (isinstance(a, int) and isinstance(b, int)):
        raise _RunError("% needs two integers")
    if b == 0:
        raise _RunError("integer divide by zero")
    # Go's %, exactly: the sign of the dividend (math.fmod went through floats, so
    # 9007199254740993 % 2 was 0).
    remainder = abs(a) % abs(b)
    return _checked(remainder if a >= 0 else -remainder)


def _evaluate(node, env: Dict[str, Any]) -> Any:
    kind = node[0]
    if kind == "lit":
        return node[2]
    if kind == "name":
        return env[node[2]]
    if kind == "list":
        return [_evaluate(item, env) for item in node[2]]
    if kind == "path":
        value = _evaluate(node[2], env)
        for optional, step, key in node[3]:
            if value is None:
                if optional:
                    return None  # a nil before ?. makes the rest of the path nil
                raise _RunError("cannot fetch %s from nil" % (key if step == "member" else "an index"))
            value = _step(value, step, key if step == "member" else _evaluate(key, env))
        return value
    if kind == "call":
        value = _evaluate(node[3], env)
        if node[2] == "int":
            return _to_int(value)
        if isinstance(value, (str, list, dict)):
            return len(value)
        raise _RunError("len() of %s" % _type_name(value))
    if kind == "unary":
        value = _evaluate(node[3], env)
        if not _is_num(value):
            raise _RunError("invalid operation %s%s" % (node[2], _type_name(value)))
        return _checked(-value) if node[2] == "-" else value
    if kind == "not":
        return not _boolean(_evaluate(node[2], env), "not")
    if kind in ("and", "or"):
        left = _boolean(_evaluate(node[2], env), kind)
        if kind == "and" and not left:
            return False
        if kind == "or" and left:
            return True
        return _boolean(_evaluate(node[3], env), kind)
    op, left, right = node[2], _evaluate(node[3], env), _evaluate(node[4], env)
    if op == "==":
        return _equal(left, right)
    if op == "!=":
        return not _equal(left, right)
    if op in ("<", "<=", ">", ">="):
        if not ((_is_num(left) and _is_num(right)) or (isinstance(left, str) and isinstance(right, str))):
            raise _RunError("invalid operation %s %s %s" % (_type_name(left), op, _type_name(right)))
        return {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[op]
    if op in ("contains", "startsWith", "endsWith"):
        if not (isinstance(left, str) and isinstance(right, str)):
            raise _RunError("invalid operation %s %s %s" % (_type_name(left), op, _type_name(right)))
        if op == "contains":
            return right in left
        return left.startswith(right) if op == "startsWith" else left.endswith(right)
    if op in ("in", "not in"):
        if isinstance(right, list):
            found = any(_equal(left, item) for item in right)
        elif isinstance(right, dict):
            if not isinstance(left, str):
                raise _RunError("cannot use %s as a map key" % _type_name(left))
            found = left in right
        elif right is None:
            found = False
        else:
            raise _RunError("invalid operation %s in %s" % (_type_name(left), _type_name(right)))
        return found if op == "in" else not found
    return _arith(op, left, right)


def _boolean(value: Any, op: str) -> bool:
    if not isinstance(value, bool):
        raise _RunError("%s needs a boolean, not %s" % (op, _type_name(value)))
    return value


# --- the public face --------------------------------------------------------------------------
class Expression(namedtuple("Expression", "source tree")):
    """A compiled ``where`` expression."""

    __slots__ = ()


def _where(source: str) -> str:
    return "transcript: where %s" % go_quote(source)


def compile_where(source: str) -> Expression:
    """The compiled expression; QueryCompileError names what is wrong with it."""
    try:
        tree = _Parser(_tokenize(source)).parse()
    except _Syntax as exc:
        raise QueryCompileError("%s: %s" % (_where(source), exc)) from None
    except RecursionError:
        raise QueryCompileError("%s: nested too deeply" % _where(source)) from None
    if tree[1] not in (BOOL, ANY):
        raise QueryCompileError("%s: expected bool, but got %s" % (_where(source), tree[1]))
    return Expression(source, tree)


def entry_env(entry: Entry) -> Dict[str, Any]:
    """The names an expression sees for one entry."""
    return {
        "type": entry.type,
        "uuid": entry.uuid,
        "parentUuid": entry.parent_uuid,
        "logicalParentUuid": entry.logical_parent_uuid,
        "timestamp": entry.timestamp,
        "isSidechain": entry.is_sidechain,
        "message": entry.message,
        "toolUseResult": entry.tool_use_result,
    }


def filter(entries: Iterable[Entry], where: str, include_sidechains: bool = False) -> List[Entry]:  # noqa: A001
    """The entries ``where`` holds for, in order (sidechain entries only when asked).

    Nothing matching is an answer ([]); an expression that could be evaluated against
    none of the entries offered is ExpressionNeverRan; one that produced a non-boolean
    is ExpressionNotBoolean; one that will not compile is QueryCompileError."""
    return list(iter_filter(entries, where, include_sidechains))


def iter_filter(entries: Iterable[Entry], where: str, include_sidechains: bool = False) -> Iterator[Entry]:
    """``filter`` as a stream, one entry held at a time: each kept entry is yielded as it
    is found; the refusals are raised where ``filter`` raises them (ExpressionNeverRan
    only at the end, when nothing was yielded)."""
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
            value = _evaluate(expression.tree, entry_env(entry))
        except (_RunError, RecursionError):
            continue
        evaluated += 1
        if not isinstance(value, bool):
            raise ExpressionNotBoolean("%s: expression did not produce a boolean: produced %s, not a boolean"
                                       % (_where(where), _type_name(value)))
        if value:
            yield entry
    if expression is not None and offered and not evaluated:
        raise ExpressionNeverRan(
            "%s: expression could not be evaluated against any entry: not one of the %d entries could be evaluated "
            "against it, so the answer would report no violations without having looked" % (_where(where), offered))
