"""Summaries that name a session from anywhere in the store, indexed by ``leafUuid``.

Claude Code 1.0 and 2.0 titled sessions for ``/resume`` with ``summary`` lines
(``{"type":"summary","summary":...,"leafUuid":...}``), often in another file of the store (the
one that resumed it); one names a session whose own message uuids hold its ``leafUuid``.

No file is read whole: the index holds the links the listing found in each file's head and
tail window (Claude Code 2.0.x appends a summary past the head's 50 lines); a session's own
uuids are its tail window's (the last 64 KiB, read anyway: a summary is written when a
conversation stops or is resumed from its latest messages), found in the bytes, kept packed.
Summaries carry no timestamp; a file is append-only, so the last written is in the file
modified last, then the smaller path (``locate``'s tie rule), then the later line.
"""

import re
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Tuple, Union

from termsprawl_context.bytescan import has_ascii_escape
from termsprawl_context import model as cc
from termsprawl_context.jsonl import parse_object
from termsprawl_context.transcript.titles import TITLE_AI, TITLE_CUSTOM, TITLE_SUMMARY, Title


Buffer = Union[bytes, bytearray]


class LinkedSummary(NamedTuple):
    """One summary line with a ``leafUuid``, and where it was written."""

    summary: str  # sanitised, as the seed's SummaryLink holds it
    leaf_uuid: str
    mtime: float  # of the file holding the line
    path: str  # that file
    position: int  # the line's rank among the file's head summaries (file order)


def written_after(a: LinkedSummary, b: LinkedSummary) -> bool:
    """Whether ``a`` was written after ``b``: the later mtime, then the smaller path, then the later line."""
    return (a.mtime, b.path, a.position) > (b.mtime, a.path, b.position)  # the paths crossed: smaller wins


class SummaryIndex(Dict[str, LinkedSummary]):
    """``leafUuid`` -> the summary written last that names it."""

    _encoded: Optional[Dict[bytes, str]] = None  # leaf bytes -> leaf, built on first use

    def add_file(self, path: str, mtime: float, links: Iterable[Tuple[str, str]]) -> None:
        """Index a file's head summary links ((summary, leaf uuid) pairs, file order)."""
        for position, (summary, leaf) in enumerate(links):
            item = LinkedSummary(summary, leaf, mtime, path, position)
            known = self.get(leaf)
            if summary and leaf and (known is None or written_after(item, known)):
                self[leaf] = item
                self._encoded = None

    def named_in(self, packed: bytes) -> List[str]:
        """The leaves a summary names among packed uuids, the others not decoded."""
        if self._encoded is None:
            self._encoded = {leaf.encode("utf-8", "surrogatepass"): leaf for leaf in self}
        known = self._encoded
        uuids = packed.split(b"\n")  # b"" is [b""], and no leaf is empty
        if known.keys().isdisjoint(uuids):  # the common case, decided in C
            return []
        return [known[raw] for raw in uuids if raw in known]

    def title_for(self, uuids: Iterable[str]) -> str:
        """The summary written last among those naming any of ``uuids``; "" when none does."""
        best = None
        for uuid in uuids:
            hit = self.get(uuid)
            if hit is not None and (best is None or written_after(hit, best)):
                best = hit
        return best.summary if best is not None else ""


def index_sessions(
    sessions: Iterable[Any], tail_links: Optional[Iterable[Iterable[Tuple[str, str]]]] = None
) -> SummaryIndex:
    """The index of each ``SessionInfo``-like session's head summary links, then its tail
    window's (``tail_links``, one per session, same order; a line in both counts twice)."""
    index = SummaryIndex()
    tails = iter(tail_links or ())
    for info in sessions:
        index.add_file(info.transcript_path, info.mtime, list(info.summary_links) + list(next(tails, ())))
    return index


def apply_to_title(title: Title, packed: bytes, index: SummaryIndex) -> Title:
    """``title``, unless no custom or AI title (those rank higher) stands and a summary names one of
    the ``packed`` uuids."""
    if title.source in (TITLE_CUSTOM, TITLE_AI):
        return title
    linked = index.title_for(index.named_in(packed))
    return Title(linked, TITLE_SUMMARY) if linked else title


# --- a session's own message uuids --------------------------------------------------------

# A ``uuid`` key and its string value's bytes up to the next quote (JSON's optional spaces
# allowed). A value with an escape shows a backslash (rare: the window is then parsed). A key
# quoted inside a string is escaped and not matched; only a key is followed by a colon. A
# match never crosses a line's end: a torn line's key must not take the next line's bytes.
_UUID_VALUE = re.compile(rb'"' + re.escape(cc.FIELD_UUID.encode("ascii")) + rb'"[ \t\r]*:[ \t\r]*"([^"\n]*)"')


def whole_lines(data: Buffer, start: int, end: int) -> List[bytes]:
    """The lines of ``data[start:end]`` (the last may lack its newline)."""
    lines = bytes(data[start:end]).split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    return lines


def _walk_uuids(value: object, found: List[bytes]) -> None:
    """Every string ``uuid`` of the objects in ``value``, in document order."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == cc.FIELD_UUID and isinstance(item, str):
                found.append(item.encode("utf-8", "surrogatepass"))
            else:
                _walk_uuids(item, found)
    elif isinstance(value, list):
        for item in value:
            _walk_uuids(item, found)


def own_uuids_plain(lines: Iterable[Buffer]) -> List[bytes]:
    """The plain rule: every string ``uuid`` at any depth of each line's object (a carried
    sub-agent message is the session's too), in order, as UTF-8; a torn line by its bytes."""
    found: List[bytes] = []
    for raw in lines:
        record = parse_object(bytes(raw))
        if record is not None:
            _walk_uuids(record, found)
        else:
            found.extend(value for value in _UUID_VALUE.findall(raw) if b"\\" not in value)
    return found


def own_uuids(data: Buffer, start: int, end: int, escaped: Optional[bool] = None) -> bytes:
    """``own_uuids_plain`` of the whole lines ``data[start:end]``, packed, found in the bytes
    (``session_scan``'s); ``escaped``: whether it holds an ASCII escape, if already searched."""
    packed = pack(_UUID_VALUE.findall(data, start, end))
    if escaped is None:
        escaped = has_ascii_escape(data, start, end)  # it could spell the key: parse the lines
    if escaped or b"\\" in packed:
        return pack(own_uuids_plain(whole_lines(data, start, end)))
    return packed


def pack(uuids: Iterable[bytes]) -> bytes:
    """Uuids as one bytes object, not one each (a uuid holding a newline then matches nothing)."""
    return b"\n".join(uuids)
