"""Summaries that name a session from anywhere in the store, indexed by ``leafUuid``.

Claude Code 1.0 and 2.0 titled sessions for ``/resume`` with ``summary`` lines
(``{"type":"summary","summary":...,"leafUuid":...}``), often written into another file
of the store than the session they name (the file that resumed it). A session is named
by such a summary when the ``leafUuid`` is one of the session's own message uuids.

Cost stays bounded: the index is built from the summary links the listing already
found in each file's head (``SessionInfo.summary_links``: no file is read again) and
tail window (where Claude Code 2.0.x appends a summary of the session's own last
records, past the head's 50 lines), and
a session's own message uuids are those its tail window shows (the file's last 64 KiB,
all of a smaller file: bytes the listing reads anyway), never a full read of any file.
The tail is where a summarised leaf sits: the harness writes a summary when a
conversation stops or is resumed from its latest messages. The ``uuid`` keys are found
in the window's bytes without splitting or parsing a line, and kept packed until the
index is complete. Sessions titled by a custom or AI title are not looked at: those
titles rank higher.

Which summary wins when several name one session ("the summary written last"): the
one in the file modified last (``st_mtime``); between files of the same mtime, the one
in the file with the smaller path (``locate``'s tie rule); within one file, the later
line. Summaries carry no timestamp, and a file is append-only, so a later line was
written later and the file's mtime bounds when its lines were written.
"""

import re
from typing import Dict, Iterable, List, NamedTuple, Optional, Tuple, Union

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
    """True when ``a`` was written after ``b`` by the module's rule: later file mtime;
    same mtime, smaller path; same file, later line."""
    if a.mtime != b.mtime:
        return a.mtime > b.mtime
    if a.path != b.path:
        return a.path < b.path
    return a.position > b.position


class SummaryIndex:
    """``leafUuid`` -> the summary written last that names it."""

    def __init__(self) -> None:
        self._by_leaf: Dict[str, LinkedSummary] = {}
        self._encoded: Optional[Dict[bytes, str]] = None  # leaf bytes -> leaf, built on first use

    def __len__(self) -> int:
        return len(self._by_leaf)

    def add(self, item: LinkedSummary) -> None:
        known = self._by_leaf.get(item.leaf_uuid)
        if known is None or written_after(item, known):
            self._by_leaf[item.leaf_uuid] = item
            self._encoded = None

    def add_file(self, path: str, mtime: float, links: Iterable[Tuple[str, str]]) -> None:
        """Index a file's head summary links ((summary, leaf uuid) pairs, file order)."""
        for position, (summary, leaf) in enumerate(links):
            if summary and leaf:
                self.add(LinkedSummary(summary, leaf, mtime, path, position))

    def get(self, leaf_uuid: str) -> Optional[LinkedSummary]:
        return self._by_leaf.get(leaf_uuid)

    def named_in(self, packed: bytes) -> List[str]:
        """The leaves a summary names among packed uuids (``pack``), without decoding
        the others."""
        if self._encoded is None:
            self._encoded = {_encoded(leaf): leaf for leaf in self._by_leaf}
        known = self._encoded
        if not packed:
            return []
        uuids = packed.split(b"\n")
        if known.keys().isdisjoint(uuids):  # the common case, decided in C
            return []
        return [known[raw] for raw in uuids if raw in known]

    def title_for(self, uuids: Iterable[str]) -> str:
        """The summary written last among those naming any of ``uuids``; "" when none does."""
        best = None
        lookup = self._by_leaf.get
        for uuid in uuids:
            hit = lookup(uuid)
            if hit is not None and (best is None or written_after(hit, best)):
                best = hit
        return best.summary if best is not None else ""


def index_sessions(
    sessions: Iterable[object], tail_links: Optional[Iterable[Iterable[Tuple[str, str]]]] = None
) -> SummaryIndex:
    """The index of every listed session's head summary links (objects with
    ``transcript_path``, ``mtime`` and ``summary_links``, as ``SessionInfo`` has), and,
    when given, of each one's tail window's links (``tail_links``, one per session, in
    the same order): a tail line is later in its file than every head line (a line in
    both windows counts twice, with the same text)."""
    index = SummaryIndex()
    tails = iter(tail_links) if tail_links is not None else None
    for info in sessions:
        links = list(getattr(info, "summary_links"))
        if tails is not None:
            links.extend(next(tails, ()))
        if links:
            index.add_file(getattr(info, "transcript_path"), getattr(info, "mtime"), links)
    return index


def apply_to_title(title: Title, packed: bytes, index: SummaryIndex) -> Title:
    """``title`` (chosen without the index) with the index applied: a custom or AI
    title stands; otherwise a summary naming one of the session's own uuids
    (``packed``) wins (the title order of ``transcript.titles``)."""
    if title.source in (TITLE_CUSTOM, TITLE_AI):
        return title
    linked = linked_title(index, packed)
    return Title(linked, TITLE_SUMMARY) if linked else title


# --- a session's own message uuids --------------------------------------------------------

# A ``uuid`` key and its string value's bytes up to the next quote, as the harness
# writes it (or with JSON's optional whitespace). A value holding an escape shows a
# backslash there (an escaped quote ends the bytes early, at its backslash): rare, so
# the window is then parsed instead. Quoted inside a string, a key is escaped
# (``\"uuid\"``) and not matched; after a string, only a key is followed by a colon.
# A match never crosses a line's end: a torn line's key must not take the next line's bytes.
_UUID_VALUE = re.compile(rb'"' + re.escape(cc.FIELD_UUID.encode("ascii")) + rb'"[ \t\r]*:[ \t\r]*"([^"\n]*)"')


def _encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def whole_lines(data: Buffer, start: int, end: int) -> List[bytes]:
    """The lines of ``data[start:end]`` (the last may lack its newline; an empty
    trailing piece is no line)."""
    lines = bytes(data[start:end]).split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    return lines


def _walk_uuids(value: object, found: List[bytes]) -> None:
    """Every string ``uuid`` of the objects in ``value``, in document order."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == cc.FIELD_UUID and isinstance(item, str):
                found.append(_encoded(item))
            elif isinstance(item, (dict, list)):
                _walk_uuids(item, found)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (dict, list)):
                _walk_uuids(item, found)


def own_uuids_plain(lines: Iterable[Buffer]) -> List[bytes]:
    """The plain rule, every line parsed: the string value of every ``uuid`` key of the
    line's object, at any depth (a record the line carries, such as a sub-agent's
    message, belongs to the session too), in file order, as UTF-8 bytes. A line that is
    not JSON (torn mid-write) counts by the keys its bytes show."""
    found: List[bytes] = []
    for raw in lines:
        record = parse_object(bytes(raw))
        if record is not None:
            _walk_uuids(record, found)
        else:
            found.extend(value for value in _UUID_VALUE.findall(raw) if b"\\" not in value)
    return found


def own_uuids(data: Buffer, start: int, end: int, escaped: Optional[bool] = None) -> bytes:
    """``own_uuids_plain`` of the window ``data[start:end]`` (whole lines), packed, found
    in the bytes without splitting or parsing a line (the fast scanner's,
    ``session_scan``). ``escaped``: whether the window holds an escape that spells
    an ASCII character, when the caller searched already."""
    packed = pack(_UUID_VALUE.findall(data, start, end))
    if escaped is None:
        escaped = has_ascii_escape(data, start, end)  # it could spell the key: parse the lines
    if escaped or b"\\" in packed:
        return pack(own_uuids_plain(whole_lines(data, start, end)))
    return packed


def pack(uuids: Iterable[bytes]) -> bytes:
    """Uuids kept compactly until the index is complete: one bytes object, not one
    object each (a uuid holding a newline byte is split, and so matches nothing)."""
    return b"\n".join(uuids)


def linked_title(index: SummaryIndex, packed: bytes) -> str:
    """The title a summary gives a session whose own uuids are ``packed``: the summary
    written last among those naming one of them; "" when none does."""
    if not packed or not len(index):
        return ""
    return index.title_for(index.named_in(packed))
