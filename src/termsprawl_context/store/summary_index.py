"""Summaries that name a session from anywhere in the store, indexed by ``leafUuid``.

Claude Code 1.0 and 2.0 titled sessions for ``/resume`` with ``summary`` lines
(``{"type":"summary","summary":...,"leafUuid":...}``), often written into another file
of the store than the session they name (the file that resumed it). A session is named
by such a summary when the ``leafUuid`` is one of the session's own message uuids.

Cost stays bounded: the index is built from the summary links the listing already
found in each file's head (``SessionInfo.summary_links``: no file is read again), and
a session's own message uuids are the ``uuid`` of every line of its tail window (the
file's last 64 KiB, all of a smaller file: the bytes the listing reads anyway), never a
full read of any file. The tail is where a summarised leaf sits: the harness writes a
summary when a conversation stops or is resumed from its latest message. In the
window's bytes, the ``uuid`` keys are found without splitting a line (candidates, kept
packed until the index is complete); only a session whose candidates a summary names
has its tail read again and parsed, to confirm them. Sessions titled by a custom or
AI title are not looked at: those titles rank higher.

Which summary wins when several name one session ("the summary written last"): the
one in the file modified last (``st_mtime``); between files of the same mtime, the one
in the file with the smaller path (``locate``'s tie rule); within one file, the later
line. Summaries carry no timestamp, and a file is append-only, so a later line was
written later and the file's mtime bounds when its lines were written.
"""

import os
import re
from typing import Dict, Iterable, List, NamedTuple, Optional, Tuple, Union

from termsprawl_context.harness import claude as cc
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


# --- a session's own message uuids --------------------------------------------------------

# Where a line names its own uuid, as the harness writes it (or with JSON's optional
# whitespace). Found anywhere in the bytes, the key may also be a nested object's: the
# hits are candidates, confirmed by parsing before a summary is trusted to name them.
_UUID_VALUE = re.compile(rb'"' + re.escape(cc.FIELD_UUID.encode("ascii")) + rb'"\s*:\s*"((?:[^"\\]|\\.)*)"')
# An escape that spells an ASCII character (\u0020-\u007f) could spell the key or a
# value's character: a window holding one is parsed line by line instead.
_ESCAPE_ASCII = re.compile(rb"\\u00[2-7]")


def _string_field(record: Optional[dict], key: str) -> str:
    value = record.get(key) if record is not None else None
    return value if isinstance(value, str) else ""


def _encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def whole_lines(data: Buffer, start: int, end: int) -> List[bytes]:
    """The lines of ``data[start:end]`` (the last may lack its newline; an empty
    trailing piece is no line)."""
    body = bytes(data[start:end])
    lines = body.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    return lines


def own_uuids_plain(lines: Iterable[Buffer]) -> List[bytes]:
    """The plain rule: the ``uuid`` of every line that is a JSON object with a string
    ``uuid``, in file order, as UTF-8 bytes."""
    found = []
    for raw in lines:
        uuid = _string_field(parse_object(bytes(raw)), cc.FIELD_UUID)
        if uuid:
            found.append(_encoded(uuid))
    return found


def uuid_candidates(data: Buffer, start: int, end: int) -> bytes:
    """Candidates for the uuids of the window ``data[start:end]`` (whole lines),
    packed: found in the bytes without splitting or parsing a line, a superset of
    ``own_uuids_plain`` of its lines (a nested object's ``uuid`` may be among them;
    ``confirm`` weeds those out)."""
    if _ESCAPE_ASCII.search(data, start, end) is not None:
        return pack(own_uuids_plain(whole_lines(data, start, end)))
    values = _UUID_VALUE.findall(data, start, end)
    return pack(_decoded(value) if b"\\" in value else value for value in values)


def _decoded(value: bytes) -> bytes:
    """A JSON string's raw bytes holding an escape, as the UTF-8 of the string."""
    import json

    try:
        return _encoded(json.loads(b'"' + value + b'"'))
    except ValueError:
        return value


def pack(uuids: Iterable[bytes]) -> bytes:
    """Uuids kept compactly until the index is complete: one bytes object, not one
    object each (a uuid holding a newline byte is split, and so matches nothing)."""
    return b"\n".join(uuids)


def unpack(packed: bytes) -> List[str]:
    return [raw.decode("utf-8", "surrogatepass") for raw in packed.split(b"\n")] if packed else []


def read_tail_lines(path: str, tail_bytes: int) -> List[bytes]:
    """The whole lines of the last ``tail_bytes`` of the file at ``path`` (all of a
    smaller file), read again to confirm candidates; [] when it cannot be read."""
    from termsprawl_context.jsonl import open_regular

    try:
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            start = max(0, size - tail_bytes)
            f.seek(start)
            data = f.read(size - start)
    except OSError:
        return []
    first = 0
    if start > 0:
        newline = data.find(b"\n")
        first = len(data) if newline < 0 else newline + 1
    return whole_lines(data, first, len(data))


def confirm(path: str, candidates: Iterable[str], tail_bytes: int) -> List[str]:
    """Those of ``candidates`` that are the ``uuid`` of a line of the file's tail
    window, by the plain rule (the file is read again: only for sessions a summary
    may name, a handful in a store)."""
    wanted = set(candidates)
    if not wanted:
        return []
    return [u for u in unpack(pack(own_uuids_plain(read_tail_lines(path, tail_bytes)))) if u in wanted]


def linked_title(index: SummaryIndex, path: str, packed: bytes, tail_bytes: int) -> str:
    """The title a summary gives the session at ``path`` whose tail window's uuid
    candidates are ``packed``: the summary written last among those naming one of its
    confirmed uuids; "" when none does."""
    if not packed or not len(index):
        return ""
    hits = [u for u in unpack(packed) if index.get(u) is not None]
    if not hits:
        return ""
    return index.title_for(confirm(path, hits, tail_bytes))
