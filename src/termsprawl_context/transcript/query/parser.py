"""The query language's parser: tokens → a typed tree, refusing at compile time what the
operand types can never take."""

from __future__ import annotations

from typing import List, Tuple

from termsprawl_context.errors import QueryCompileError
from termsprawl_context.transcript.query.language import ANY, BOOL, FIELDS, FUNCTIONS, KEYWORDS, LIST, NIL, NUM, STR
from termsprawl_context.transcript.query.lexer import Token
from termsprawl_context.transcript.record import go_quote


# Nodes are tuples (kind, static type, ...); kinds: lit, name, list, path, call, unary, not,
# and, or, binary (``evaluator.evaluate`` reads them).
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
        return self._logical_chain("or", "||", self.and_)

    def and_(self):
        return self._logical_chain("and", "&&", self.not_)

    def _logical_chain(self, word: str, op: str, operand):
        """``operand (word|op operand)*``, left to right: one precedence level of ``or``/``and``."""
        node = operand()
        while self.at(word, op):
            self.take()
            node = _logical(word, node, operand())
        return node

    def not_(self):
        if self.at("not", "!"):
            self.take()
            operand = self.not_()
            _need(operand, (BOOL, ANY), "not")
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
        node = self.multiplicative()
        while self.at("+", "-"):
            node = _binary(self.take().value, node, self.multiplicative())
        return node

    def multiplicative(self):
        node = self.unary()
        while self.at("*", "/", "%"):
            node = _binary(self.take().value, node, self.unary())
        return node

    def unary(self):
        if self.at("-", "+"):
            op = self.take().value
            operand = self.unary()
            _need(operand, (NUM, ANY), op)
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


def _need(node, allowed: Tuple[str, ...], op: str) -> None:
    if node[1] not in allowed:
        raise QueryCompileError("%s cannot take a %s" % (op, node[1]))


def _logical(op: str, left, right):
    _need(left, (BOOL, ANY), op)
    _need(right, (BOOL, ANY), op)
    return (op, BOOL, left, right)


def _binary(op: str, left, right):
    lt, rt = left[1], right[1]
    if op in ("<", "<=", ">", ">="):
        if not (lt == ANY or rt == ANY or (lt == rt and lt in (NUM, STR))):
            raise QueryCompileError("%s cannot compare a %s with a %s" % (op, lt, rt))
    elif op in ("contains", "startsWith", "endsWith"):
        _need(left, (STR, ANY), op)
        _need(right, (STR, ANY), op)
    elif op in ("in", "not in"):
        _need(right, (LIST, ANY), op)
    elif op == "+" and (lt == STR or rt == STR):
        if not (lt in (STR, ANY) and rt in (STR, ANY)):
            raise QueryCompileError("+ cannot join a %s and a %s" % (lt, rt))
        return ("binary", STR, op, left, right)
    elif op not in ("==", "!="):  # arithmetic
        _need(left, (NUM, ANY), op)
        _need(right, (NUM, ANY), op)
        return ("binary", ANY if ANY in (lt, rt) and op == "+" else NUM, op, left, right)
    return ("binary", BOOL, op, left, right)
