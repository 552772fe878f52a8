"""termsprawl-context: let linked agents of any agent CLI read each other's sessions from inside a project.

Stdlib-only and layered (DESIGN.md): ``jsonl`` (bytes) -> ``transcript`` (one record's meaning) ->
``store`` (a harness's transcripts) -> ``cite``; ``workspace`` holds ``<project>/.termsprawl/``
state; ``cli`` only parses argv, calls one function and prints.
"""

from operator import itemgetter

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any

__version__ = "0.1.0"


def _new(cls, *values):
    return tuple.__new__(cls, values)


def plain_tuple(name: str, fields: str) -> "Any":
    """A tuple class with named ``fields``, as ``namedtuple`` without compiling its source (a quarter of a
    millisecond each, paid by every dump); the type checker reads a ``NamedTuple`` twin."""
    body = {"__slots__": (), "__new__": _new}  # type: dict
    for i, field in enumerate(fields.split()):
        body[field] = property(itemgetter(i))
    return type(name, (tuple,), body)
