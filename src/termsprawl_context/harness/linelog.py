"""A JSONL transcript whose every line maps to entries on its own (Qwen Code's chats, Factory
Droid's, pi's and Copilot CLI's sessions): read forward, or newest first from the file's end
with the bounded reverse reader, so the dump and the hand-off pay for the tail only.

A provider passes ``convert(record, line, offset) -> list of Entry`` (its format's rules);
lines that are not JSON objects, torn or costlier than the line budget are skipped by the
line readers (``jsonl``), never raised.
"""

from __future__ import annotations

from termsprawl_context.harness.base import Harness

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, Callable, Iterator, List

    from termsprawl_context.model import Entry


def line_entries(path: str, convert: "Callable[[dict, int, int], List[Entry]]") -> "Iterator[Entry]":
    """The entries of every line, forward. Raises OSError when ``path`` is no regular file."""
    from termsprawl_context.jsonl import iter_lines, open_regular, parse_object

    f = open_regular(path)
    return _forward(f, convert, iter_lines, parse_object)


def _forward(f, convert, iter_lines, parse_object):
    with f:
        for line in iter_lines(f):
            record = parse_object(line.raw)
            if record is not None:
                for entry in convert(record, line.number, line.offset):
                    yield entry


def line_entries_reverse(path: str, convert: "Callable[[dict, int, int], List[Entry]]") -> "Iterator[Entry]":
    """``line_entries`` newest first, from the end (``line`` 0: only offsets are known).
    Raises OSError when ``path`` is no regular file."""
    from termsprawl_context.jsonl import iter_lines_reverse, open_regular, parse_object

    f = open_regular(path)
    return _backward(f, convert, iter_lines_reverse, parse_object)


def _backward(f, convert, iter_lines_reverse, parse_object):
    with f:
        for offset, raw in iter_lines_reverse(f):
            record = parse_object(raw)
            if record is not None:
                for entry in reversed(convert(record, 0, offset)):
                    yield entry


class LineLogHarness(Harness):
    """A CLI whose transcript is such a file: ``entries`` and ``entries_reverse`` give each
    line to ``line_converter(record, line, offset, session id, cwd)`` (a staticmethod) with
    the session id and working directory its head names (``_head``; the file name's id when
    it names none)."""

    line_converter: "Any" = None

    def _converter(self, path: str) -> "Callable[[dict, int, int], List[Entry]]":
        session, cwd = self._head(path)
        session = session or self.session_id_of(path)
        convert = self.line_converter
        return lambda record, line, offset: convert(record, line, offset, session, cwd)

    def entries(self, path):
        return line_entries(path, self._converter(path))

    def entries_reverse(self, path):
        return line_entries_reverse(path, self._converter(path))
