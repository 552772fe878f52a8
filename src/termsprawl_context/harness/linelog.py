"""A JSONL transcript whose every line maps to entries on its own (Qwen Code's chats, Factory
Droid's, pi's and Copilot CLI's sessions): read forward, or newest first from the file's end
with the bounded reverse reader, so the dump and the hand-off pay for the tail only. Lines
that are not JSON objects, torn or costlier than the line budget are skipped (``jsonl``).
"""

from __future__ import annotations

from termsprawl_context.harness.base import Harness

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, Callable, Iterator, List

    from termsprawl_context.model import Entry


def _entries(path: str, convert: "Callable[[dict, int, int], List[Entry]]", reverse: bool) -> "Iterator[Entry]":
    """``convert(record, line, offset)`` of every line, forward, or newest first from the end
    (``line`` 0: only offsets are known). Raises OSError when ``path`` is no regular file."""
    from termsprawl_context.jsonl import iter_lines, iter_lines_reverse, open_regular, parse_object

    f = open_regular(path)

    def read() -> "Iterator[Entry]":
        with f:
            if reverse:
                lines = ((0, offset, raw) for offset, raw in iter_lines_reverse(f))
            else:
                lines = ((line.number, line.offset, line.raw) for line in iter_lines(f))
            for number, offset, raw in lines:
                record = parse_object(raw)
                if record is not None:
                    found = convert(record, number, offset)
                    yield from reversed(found) if reverse else found

    return read()


class LineLogHarness(Harness):
    """A CLI whose transcript is such a file: each line goes to ``line_converter(record, line,
    offset, session id, cwd)`` (a staticmethod) with the session id and working directory its
    head names (``_head``; the file name's id when it names none)."""

    line_converter: "Any" = None

    def _converter(self, path: str) -> "Callable[[dict, int, int], List[Entry]]":
        session, cwd = self._head(path)
        session = session or self.session_id_of(path)
        convert = self.line_converter
        return lambda record, line, offset: convert(record, line, offset, session, cwd)

    def entries(self, path):
        return _entries(path, self._converter(path), False)

    def entries_reverse(self, path):
        return _entries(path, self._converter(path), True)
