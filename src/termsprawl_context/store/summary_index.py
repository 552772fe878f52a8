"""Summaries that name a session from anywhere in the store, indexed by ``leafUuid``.

Claude Code 1.0 and 2.0 titled sessions for ``/resume`` with ``summary`` lines
(``{"type":"summary","summary":...,"leafUuid":...}``), often written into another file
of the store than the session they name (the file that resumed it). A session is named
by such a summary when the ``leafUuid`` is one of the session's own message uuids.

Cost stays bounded: the index is built from the summary links the listing already
found in each file's head (``SessionInfo.summary_links``: no file is read again), and
a session's own message uuids are those its head and tail windows show (the same bytes
the listing reads), never a full read of any file:

- every line's ``parentUuid`` (Claude Code writes it first, so it is read at the line's
  start without searching the line; a torn line counts by its start too), and
- the ``uuid`` of the window's last line that has one (the leaf: nobody's parent yet).

A message summarised and then continued from is some later line's parent; the leaf
of a conversation that stopped is its last line: both are seen.

Which summary wins when several name one session ("the summary written last"): the
one in the file modified last (``st_mtime``); between files of the same mtime, the one
in the file with the smaller path (``locate``'s tie rule); within one file, the later
line. Summaries carry no timestamp, and a file is append-only, so a later line was
written later and the file's mtime bounds when its lines were written.
"""

from typing import Dict, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union

from termsprawl_context.harness import claude as cc
from termsprawl_context.jsonl import parse_object
from termsprawl_context.transcript.titles import TITLE_AI, TITLE_CUSTOM, TITLE_SUMMARY, Title

UUID_LENGTH = 36
_PREFIX = cc.PARENT_UUID_LINE_PREFIX
_PREFIX_NULL = b'{"' + cc.FIELD_PARENT_UUID.encode("ascii") + b'":null'
_PARENT_KEY = b'"' + cc.FIELD_PARENT_UUID.encode("ascii") + b'"'
_UUID_BYTES = frozenset(b"0123456789abcdefABCDEF-")
# A JSON escape that could spell an ASCII character of a key (``\u0070arentUuid``):
# never written by the harness; a line holding one is parsed rather than trusted.
_ASCII_ESCAPE = b"\\u00"

Buffer = Union[bytes, bytearray, memoryview]


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

    def __len__(self) -> int:
        return len(self._by_leaf)

    def add(self, item: LinkedSummary) -> None:
        known = self._by_leaf.get(item.leaf_uuid)
        if known is None or written_after(item, known):
            self._by_leaf[item.leaf_uuid] = item

    def add_file(self, path: str, mtime: float, links: Iterable[Tuple[str, str]]) -> None:
        """Index a file's head summary links ((summary, leaf uuid) pairs, file order)."""
        for position, (summary, leaf) in enumerate(links):
            if summary and leaf:
                self.add(LinkedSummary(summary, leaf, mtime, path, position))

    def get(self, leaf_uuid: str) -> Optional[LinkedSummary]:
        return self._by_leaf.get(leaf_uuid)

    def latest_for(self, uuids: Iterable[str]) -> Optional[LinkedSummary]:
        """The summary written last among those naming any of ``uuids``."""
        best = None
        lookup = self._by_leaf.get
        for uuid in uuids:
            hit = lookup(uuid)
            if hit is not None and (best is None or written_after(hit, best)):
                best = hit
        return best

    def title_for(self, uuids: Iterable[str]) -> str:
        """The text of ``latest_for(uuids)``; "" when no summary names them."""
        hit = self.latest_for(uuids) if self._by_leaf else None
        return hit.summary if hit is not None else ""


def index_sessions(sessions: Iterable[object]) -> SummaryIndex:
    """The index of every listed session's head summary links (objects with
    ``transcript_path``, ``mtime`` and ``summary_links``, as ``SessionInfo`` has)."""
    index = SummaryIndex()
    for info in sessions:
        links = getattr(info, "summary_links")
        if links:
            index.add_file(getattr(info, "transcript_path"), getattr(info, "mtime"), links)
    return index


def apply_to_title(title: Title, uuids: Iterable[str], index: SummaryIndex) -> Title:
    """``title`` (chosen without the index) with the index applied: a custom or AI
    title stands; otherwise a summary naming one of ``uuids`` wins (the title order of
    ``transcript.titles``)."""
    if title.source in (TITLE_CUSTOM, TITLE_AI) or not len(index):
        return title
    linked = index.title_for(uuids)
    return Title(linked, TITLE_SUMMARY) if linked else title


# --- a window's own message uuids --------------------------------------------------------


def _uuid_at(data: Buffer, start: int) -> Optional[str]:
    """The 36-character uuid string starting at ``start``, closed by a quote, or None
    when the bytes there are anything else (the line is then parsed instead)."""
    stop = start + UUID_LENGTH
    if len(data) <= stop or data[stop] != 0x22:  # '"'
        return None
    raw = bytes(data[start:stop])
    if not _UUID_BYTES.issuperset(raw):
        return None
    return raw.decode("ascii")


def line_parent(data: Buffer, start: int, end: int) -> Optional[str]:
    """The ``parentUuid`` of the line ``data[start:end]``, "" when it has none, read
    from the line's start when the harness's layout allows; None when the line must be
    parsed to know."""
    if data[start : start + len(_PREFIX)] == _PREFIX:
        parent = _uuid_at(data, start + len(_PREFIX))
        return parent  # None: not a plain uuid there, so the line is parsed
    if data[start : start + len(_PREFIX_NULL)] == _PREFIX_NULL:
        return ""
    line = data[start:end]
    if _PARENT_KEY not in line and _ASCII_ESCAPE not in line:
        return ""  # no key that could be parentUuid, in any spelling
    return None


def _string_field(record: Optional[dict], key: str) -> str:
    value = record.get(key) if record is not None else None
    return value if isinstance(value, str) else ""


def window_uuids(data: Buffer, spans: Sequence[Tuple[int, int]]) -> List[str]:
    """A window's own message uuids (the fast path): every line's ``parentUuid`` and
    the ``uuid`` of the last line that has one. ``spans`` are the window's whole lines
    as (start, end) offsets into ``data``, in file order. ``window_uuids_plain`` is the
    algorithm this must agree with."""
    found = []
    for start, end in spans:
        parent = line_parent(data, start, end)
        if parent is None:
            parent = _string_field(parse_object(bytes(data[start:end])), cc.FIELD_PARENT_UUID)
        if parent:
            found.append(parent)
    for start, end in reversed(spans):
        if b'"uuid"' not in data[start:end] and _ASCII_ESCAPE not in data[start:end]:
            continue  # cannot hold a uuid key in any spelling
        leaf = _string_field(parse_object(bytes(data[start:end])), cc.FIELD_UUID)
        if leaf:
            found.append(leaf)
            break
    return found


def window_uuids_plain(lines: Sequence[Buffer]) -> List[str]:
    """The plain algorithm: parse every line of the window (file order), keep every
    ``parentUuid`` and the ``uuid`` of the last line with one. A line that is not
    JSON (torn mid-write) still names its parent at its start, as the harness wrote
    it, and counts by that."""
    records = [parse_object(bytes(raw)) for raw in lines]
    found = []
    for raw, record in zip(lines, records):
        if record is not None:
            parent = _string_field(record, cc.FIELD_PARENT_UUID)
        else:  # not JSON (a torn line): what the harness wrote at its start
            parent = line_parent(raw, 0, len(raw)) or ""
        if parent:
            found.append(parent)
    for record in reversed(records):
        leaf = _string_field(record, cc.FIELD_UUID)
        if leaf:
            found.append(leaf)
            break
    return found


def line_spans(data: Buffer, start: int, end: int) -> List[Tuple[int, int]]:
    """(start, end) of each line of ``data[start:end]`` (the last may lack its newline;
    an empty trailing piece is no line)."""
    spans = []
    pos = start
    while pos < end:
        cut = data.find(b"\n", pos, end)
        if cut < 0:
            spans.append((pos, end))
            break
        spans.append((pos, cut))
        pos = cut + 1
    return spans


def ends_to_spans(ends: Sequence[int]) -> List[Tuple[int, int]]:
    """Line spans from the offsets of their ends (a head window's ``ends``)."""
    spans = []
    start = 0
    for end in ends:
        spans.append((start, end))
        start = end + 1
    return spans


def pack(uuids: Iterable[str]) -> str:
    """Uuids kept compactly until the index is complete (one string, not one each)."""
    return "\n".join(uuids)


def unpack(packed: str) -> Iterator[str]:
    return iter(packed.split("\n")) if packed else iter(())
