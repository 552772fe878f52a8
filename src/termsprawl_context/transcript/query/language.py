"""The query language's vocabulary, shared by its lexer, parser and evaluator: the static
types the compiler tracks, the names and functions an expression may use, the 64-bit
integer bounds."""

from __future__ import annotations


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
