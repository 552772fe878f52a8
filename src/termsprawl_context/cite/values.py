"""What a citation asks and answers: a request, a match, a resolved citation, and the
matches found, each once (``Hits``)."""

from __future__ import annotations

import heapq
from array import array
from collections import namedtuple

from termsprawl_context.transcript.record import go_quote

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import Dict, Iterable, List, Set, Tuple


class Match(namedtuple("Match", "path line")):
    """One entry a quote landed on: the record's path as given and its 1-based line."""

    __slots__ = ()

    def __str__(self) -> str:
        return "%s:%d" % (self.path, self.line)


class CitationRequest(namedtuple("CitationRequest", "quote sources")):
    """A quote and the pools it may ground in, in the order to search them."""

    __slots__ = ()

    def __str__(self) -> str:
        return "%s %s" % (",".join(self.sources), go_quote(self.quote))


class Citation(namedtuple("Citation", "quote source_types path line message call")):
    """A resolved citation: the pools it landed in (request order), where, the cited
    entry's text in those pools (capped), and for tool output the call(s) that printed it."""

    __slots__ = ()

    def to_json(self) -> dict:
        data = {
            "quote": self.quote,
            "sourceTypes": list(self.source_types),
            "path": self.path,
            "line": self.line,
            "message": self.message,
        }
        if self.call:
            data["call"] = self.call
        return data


_BITMAP_LINES = 1 << 24  # lines past this (a file of 16 million lines) are kept in a plain set


class Hits(object):
    """Matches in the order found, each once: per record its lines as 8-byte integers,
    and a set of the lines seen as one bit a line (1e6 matching entries cost about 8 MB,
    where Match tuples in a list and a set cost over 150 MB)."""

    def __init__(self) -> None:
        self._runs: List[Tuple[str, array]] = []
        self._seen: Dict[str, bytearray] = {}
        self._far: Set[Tuple[str, int]] = set()
        self._count = 0

    def _mark(self, path: str, line: int) -> bool:
        """Record (path, line) as seen; False when it already was."""
        if line >= _BITMAP_LINES or line < 0:
            key = (path, line)
            if key in self._far:
                return False
            self._far.add(key)
            return True
        bits = self._seen.setdefault(path, bytearray())
        byte, bit = divmod(line, 8)
        if byte >= len(bits):
            bits.extend(bytes(max(byte + 1 - len(bits), len(bits))))
        if bits[byte] >> bit & 1:
            return False
        bits[byte] |= 1 << bit
        return True

    def add(self, path: str, line: int) -> bool:
        """Add the match unless it is already here; whether it was added."""
        if not self._mark(path, line):
            return False
        if not self._runs or self._runs[-1][0] != path or self._runs[-1][1][-1] > line:
            self._runs.append((path, array("q")))  # each run ascends, so runs merge in order
        self._runs[-1][1].append(line)
        self._count += 1
        return True

    def extend(self, matches: Iterable[Match]) -> None:
        for match in matches:
            self.add(match.path, match.line)

    def __len__(self) -> int:
        return self._count

    def __iter__(self):
        for path, lines in self._runs:
            for line in lines:
                yield Match(path, line)

    def __getitem__(self, index: int) -> Match:
        if index < 0:
            index += self._count
        for path, lines in self._runs:
            if index < len(lines):
                return Match(path, lines[index])
            index -= len(lines)
        raise IndexError("no such match")

    def sorted_by(self, order: Dict[str, int]) -> "Hits":
        """The same matches ordered by ``order`` of their path (absent first), then line."""
        paths = dict.fromkeys(path for path, _ in self._runs)
        ordered = Hits()
        for path in sorted(paths, key=lambda p: order.get(p, -1)):
            runs = [lines for p, lines in self._runs if p == path]
            merged = runs[0] if len(runs) == 1 else heapq.merge(*runs)
            for line in merged:
                ordered.add(path, line)
        return ordered
