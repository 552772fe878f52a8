"""The managed block in an AGENTS.md. Only a real block is ours: the opening and the
closing marker each alone on a line (a BOM or trailing blanks aside), outside a fenced
code block, once each, the opening one first. A file naming a marker any other way (prose,
a code span or block, twice, out of order, one alone) is refused by name and left byte for
byte: taking the first opening marker to the first closing one lost a person's lines
between two mentions. Writing keeps every byte outside the block.
"""

import re
from typing import Dict, List, Optional, Tuple

from termsprawl_context.errors import ManagedBlockRefused


MARKER_OPEN = "<!-- termsprawl:context-links -->"
MARKER_CLOSE = "<!-- /termsprawl:context-links -->"

# How a marker stands in a file: only OWN_LINE markers can make a block.
OWN_LINE = "on a line of its own"
INLINE = "not on a line of its own"
FENCED = "inside a code block"
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


def next_fence(bare: str, fence: str) -> str:
    """The fence open after the line ``bare`` ("" outside one), by CommonMark's rule: three or
    more backticks or tildes open one; as many of the same, with nothing after, close it."""
    found = _FENCE.match(bare)
    if not found:
        return fence
    run = found.group(1)
    if not fence:
        return run
    if run[0] == fence[0] and len(run) >= len(fence) and not bare[found.end() :].strip():
        return ""
    return fence


def _marker_uses(content: str) -> Tuple[Dict[str, List[Tuple[int, str, int, int]]], int]:
    """``({marker: [(line number, how, start, end)]}, line)``: every use of either marker
    (``start:end``: its line's text, without the line ending) and the line of a fence
    still open at the end (0: none)."""
    uses = {MARKER_OPEN: [], MARKER_CLOSE: []}  # type: Dict[str, List[Tuple[int, str, int, int]]]
    fence, fence_line = "", 0
    offset = 0
    for number, line in enumerate(content.split("\n"), 1):
        bare = line[:-1] if line.endswith("\r") else line
        lead = 1 if number == 1 and bare.startswith("\ufeff") else 0  # a BOM is not the line's text
        for marker, found in uses.items():
            at = line.find(marker)
            while at >= 0:
                own = bare[lead:].rstrip(" \t") == marker
                how = FENCED if fence else OWN_LINE if own else INLINE
                found.append((number, how, offset + lead, offset + len(bare)))
                at = line.find(marker, at + len(marker))
        was, fence = fence, next_fence(bare, fence)
        if fence and not was:
            fence_line = number
        offset += len(line) + 1
    return uses, fence_line if fence else 0


def _block_problem(uses: Dict[str, List[Tuple[int, str, int, int]]]) -> Optional[str]:
    """What keeps the markers in ``uses`` from being one managed block, or None."""
    opens, closes = uses[MARKER_OPEN], uses[MARKER_CLOSE]
    for number, how, marker in sorted((u[0], u[1], m) for m, found in uses.items() for u in found):
        if how != OWN_LINE:
            return "names %s %s (line %d)" % (marker, how, number)
    for marker, found in uses.items():
        if len(found) > 1:
            return "has %s %d times (lines %s)" % (marker, len(found), ", ".join(str(u[0]) for u in found))
    for marker, other in ((MARKER_OPEN, MARKER_CLOSE), (MARKER_CLOSE, MARKER_OPEN)):
        if not uses[other]:
            return "has %s (line %d) but no %s" % (marker, uses[marker][0][0], other)
    if closes[0][0] < opens[0][0]:
        return "has %s (line %d) before %s (line %d)" % (MARKER_CLOSE, closes[0][0], MARKER_OPEN, opens[0][0])
    return None


def managed_block_span(content: str, shown: str) -> Optional[Tuple[int, int]]:
    """``(start, end)`` of the managed block in ``content`` (marker line to marker line), None
    when neither marker is there (it is appended then: the file must not end inside a code
    block); ManagedBlockRefused naming ``shown`` for any other use of the markers."""
    uses, unclosed = _marker_uses(content)
    if not uses[MARKER_OPEN] and not uses[MARKER_CLOSE]:
        if unclosed:  # appended there, the block would be code, and refused at the next refresh
            raise ManagedBlockRefused(shown, "ends inside a code block (opened on line %d)" % unclosed)
        return None
    problem = _block_problem(uses)
    if problem is not None:
        raise ManagedBlockRefused(shown, problem)
    return uses[MARKER_OPEN][0][2], uses[MARKER_CLOSE][0][3]


def _line_ending(content: str, span: Optional[Tuple[int, int]]) -> str:
    """CRLF or LF: the opening marker line's ending when there is a block, else the first line's."""
    if span is not None:
        rest = content[span[0] + len(MARKER_OPEN) :].lstrip(" \t")
        return "\r\n" if rest.startswith("\r\n") else "\n"
    first = content.find("\n")
    return "\r\n" if first > 0 and content[first - 1] == "\r" else "\n"


def upsert_block(content: str, block: str, shown: str) -> str:
    """``content`` with the managed block refreshed in place, or appended after a blank line, in
    the file's line ending, every byte outside it kept; ManagedBlockRefused as above."""
    span = managed_block_span(content, shown)
    eol = _line_ending(content, span)
    block = block.replace("\n", eol)
    if span is not None:
        return content[: span[0]] + block + content[span[1] :]
    gap = "" if not content or content.endswith(eol + eol) else eol if content.endswith(eol) else eol + eol
    return content + gap + block + eol
