"""The query language's compiler: its vocabulary (static types, names, functions, 64-bit
integer bounds), the lexer (source text → tokens, each with its offset for messages) and
the parser (tokens → a typed tree, refusing what the operand types can never take)."""

from __future__ import annotations

from collections import namedtuple
from typing import List, Tuple

from termsprawl_context.errors import QueryCompileError
from termsprawl_context.transcript.record import go_quote

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


_SPELLED = {"||": "or", "&&": "and"}


# Nodes are tuples (kind, static type, ...); kinds: lit, name, list, path, call, unary, not,
# and, or, binary (``evaluate`` reads them).
class Parser(object):
    def __init__(self, tokens: List[Token]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> Token:
        return self.tokens[self.pos]

    def take(self) -> Token:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def at(self, *values: str) -> bool:
        """Whether the next token is an operator or a word among ``values``."""
        token = self.peek()
        return token.kind in ("op", "name") and token.value in values

    def expect(self, value: str) -> None:
        token = self.take()
        if token.kind != "op" or token.value != value:
            raise QueryCompileError("expected %s at %d, found %s" % (value, token.pos, _describe(token)))

    def parse(self):
        node = self.or_()
        if self.peek().kind != "end":
            raise QueryCompileError("unexpected %s at %d" % (_describe(self.peek()), self.peek().pos))
        return node

    def or_(self):
        return self._chain(("or", "||"), lambda: self._chain(("and", "&&"), self.not_))

    def _chain(self, ops: Tuple[str, ...], operand):
        """``operand (op operand)*``, left to right: one precedence level."""
        node = operand()
        while self.at(*ops):
            op = self.take().value
            node = _binary(_SPELLED.get(op, op), node, operand())
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
            node = _binary(op, node, self.additive())

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
            if name == "true" or name == "false":
                return ("lit", BOOL, name == "true")
            if name == "nil":
                return ("lit", NIL, None)
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


def _binary(op: str, left, right):
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
