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


def line_entries(
    path: str, convert: "Callable[[dict, int, int], List[Entry]]", reverse: bool = False
) -> "Iterator[Entry]":
    """``convert(record, line, offset)`` of every line, forward, or newest first from the end
    (``line`` 0: only offsets are known). Raises OSError when ``path`` is no regular file."""
    from termsprawl_context.jsonl import open_regular

    return _read(open_regular(path), convert, reverse)


def _read(f, convert, reverse):
    from termsprawl_context.jsonl import iter_lines, iter_lines_reverse, parse_object

    with f:
        if reverse:
            lines = ((0, offset, raw) for offset, raw in iter_lines_reverse(f))
        else:
            lines = ((line.number, line.offset, line.raw) for line in iter_lines(f))
        for number, offset, raw in lines:
            record = parse_object(raw)
            if record is not None:
                found = convert(record, number, offset)
                for entry in reversed(found) if reverse else found:
                    yield entry


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
        return line_entries(path, self._converter(path))

    def entries_reverse(self, path):
        return line_entries(path, self._converter(path), reverse=True)
