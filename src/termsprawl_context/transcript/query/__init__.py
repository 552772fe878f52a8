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

from collections import namedtuple
from typing import Iterable, Iterator, List

from termsprawl_context.errors import ExpressionNeverRan, ExpressionNotBoolean, QueryCompileError, RunError
from termsprawl_context.model import Entry
from termsprawl_context.transcript.query.evaluator import evaluate, type_name
from termsprawl_context.transcript.query.language import ANY, BOOL, FIELDS
from termsprawl_context.transcript.query.lexer import tokenize
from termsprawl_context.transcript.query.parser import Parser
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
