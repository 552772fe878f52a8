"""The assembled timeline's messages as flat buffers: what ``store.assemble`` keeps of a
transcript between its two passes.

Per message only its uuid (a canonical one as 16 bytes), its timestamp (one written as
Claude Code writes it as an order-keeping integer), and where its kept copy lies in the
file (offset, length, flag bits); a uuid seen again replaces its copy's line and
timestamp but keeps its first-seen place. A helper process's share of a file comes back
as ``RangeRecords`` and is replayed in file order. Only flat buffers grow here (arrays,
bytearrays), so 600k messages stay under 64 MB and no garbage collection walks them.
"""

import re
from array import array
from typing import Any, Dict, Iterator, List, Optional, Tuple

__all__ = ["RangeRecords", "Timeline", "replay", "uuid_key"]


def _hashable(value: Any) -> Any:
    """A dict key for any JSON value that compares as the value does: the seed keyed
    its dict by the raw value and would crash on an array or object uuid. A boolean is
    tagged, since Python's ``True == 1`` would make ``true`` and ``1`` one message.

    An array or object becomes one flat tuple of (tag, value) tokens in document order
    (an object's members sorted by key, so member order does not matter, as in a
    dict's equality). Flat on purpose: nested tuples hash and compare recursively in C,
    so two equal uuids nested 900 deep would be a RecursionError on the second insert."""
    if isinstance(value, bool):
        return ("bool", value)
    if not isinstance(value, (list, dict)):
        return value
    tokens: List[Tuple[str, Any]] = []
    pending: List[Any] = [value]  # a stack: the next value to flatten is last
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            tokens.append(("{", len(item)))
            members = sorted(item.items(), key=_member_key)
            for key, member in reversed(members):
                pending.append(member)
                pending.append(_Key(key))
        elif isinstance(item, list):
            tokens.append(("[", len(item)))
            pending.extend(reversed(item))
        elif isinstance(item, _Key):
            tokens.append(("k", item.name))
        elif isinstance(item, bool):
            tokens.append(("b", item))
        elif isinstance(item, str):
            tokens.append(("s", item))
        else:  # a number or null: 1 and 1.0 are one JSON number
            tokens.append(("v", item))
    return ("json", tuple(tokens))


class _Key:
    """An object member's name on the flattening stack (told apart from a string value)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


def _member_key(member: Tuple[str, Any]) -> str:
    return member[0]


_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def uuid_key(uuid: Any) -> Any:
    """The dedup key of a uuid value: a canonical lower-case uuid string as its 16 bytes
    (a third of the memory; no JSON value is bytes, so no other key can equal it),
    any other value as itself (booleans tagged, arrays and objects frozen)."""
    if isinstance(uuid, str):
        if len(uuid) == 36 and _CANONICAL_UUID.fullmatch(uuid):
            return bytes.fromhex(uuid.replace("-", ""))
        return uuid
    return _hashable(uuid)


# Timestamps as Claude Code writes them (JavaScript's toISOString): kept as the integer
# their 17 digits spell, 8 bytes instead of the string, in the same order (equal-length
# digit strings sort as numbers; the separators are the same in every one). A missing
# one is -1, sorting first as the empty string does; any other spelling switches the
# timeline to keeping the strings themselves.
_CANONICAL_TS = re.compile(rb"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")
_TS_PUNCTUATION = b"-T:.Z"
_NO_TS = -1
_ODD_TS = -2  # in a helper's share: the string is sent beside the codes
# Slots are sorted in runs of this many, then merged: the sort's own keys and lists stay
# this small, however many messages there are.
SORT_RUN = 1 << 16


def ts_code(ts: bytes) -> Optional[int]:
    """``ts``'s order-keeping integer, or None when it is not in the canonical form."""
    if not ts:
        return _NO_TS
    if len(ts) == 24 and _CANONICAL_TS.fullmatch(ts):
        return int(ts.translate(None, _TS_PUNCTUATION))
    return None


def ts_text(code: int) -> bytes:
    """The timestamp ``ts_code`` turned into ``code``."""
    if code == _NO_TS:
        return b""
    d = b"%017d" % code
    return b"%s-%s-%sT%s:%s:%s.%sZ" % (d[:4], d[4:6], d[6:8], d[8:10], d[10:12], d[12:14], d[14:])


# The slot table is sized up front for the messages a file's size suggests (a line of at
# least about 100 bytes each), so it is rarely rebuilt; never beyond this many (4 MiB of
# table), so a big file of long lines reserves little it does not use.
_PRESIZE_LIMIT = 1 << 19
_MIN_LINE_GUESS = 100


class UuidSlots(object):
    """The slot of each distinct uuid key, in flat buffers (issue 24: a dict of 600k
    keys cost about 100 bytes each). A canonical uuid (16 bytes, ``uuid_key``) lives in
    an open-addressing table of slot numbers over one buffer of the keys themselves,
    compared exactly; any other key, rare, in a dict."""

    def __init__(self, expected: int = 0) -> None:
        self.keys = bytearray()  # 16 bytes per slot (zeros for a slot whose key is in ``other``)
        size = 1024
        while 2 * size < 3 * min(expected, _PRESIZE_LIMIT):
            size *= 2
        self.table = array("i", [0]) * size  # slot + 1, 0 for empty; a power of two long
        self.used = 0
        self.other: Dict[Any, int] = {}

    def slot_of(self, key: Any, new: int) -> int:
        """The slot of ``key``; one not here yet is given slot ``new`` (one probe walk)."""
        if type(key) is not bytes:
            slot = self.other.get(key)
            if slot is None:
                self.other[key] = slot = new
                self.keys += bytes(16)
            return slot
        table, keys = self.table, self.keys
        mask = len(table) - 1
        at = hash(key) & mask
        while True:
            value = table[at]
            if not value:
                break
            if keys[16 * value - 16 : 16 * value] == key:
                return value - 1
            at = (at + 1) & mask
        table[at] = new + 1
        keys += key
        self.used += 1
        if 3 * self.used > 2 * len(table):  # at most two thirds full: short probes
            self._grow()
        return new

    def _place(self, key: bytes, slot: int) -> None:
        table = self.table
        mask = len(table) - 1
        at = hash(key) & mask
        while table[at]:
            at = (at + 1) & mask
        table[at] = slot + 1

    def _grow(self) -> None:
        old = self.table
        self.table = array("i", [0]) * (2 * len(old))
        keys = self.keys
        for value in old:
            if value:
                slot = value - 1
                self._place(bytes(keys[16 * slot : 16 * slot + 16]), slot)


class Timeline:
    """Message metadata in first-seen order: slot i is the i-th distinct uuid.

    Only flat buffers grow here (arrays, bytearrays, and a dict of the rare keys that
    are not canonical uuids): a growing list would be traversed by every full garbage
    collection, making the load quadratic. About 45 bytes a message: the key (16), its
    share of the slot table (8), the timestamp's code (8; ``ts_code``), offset (8),
    length (4) and flags. A timeline that meets a timestamp in another spelling keeps
    every timestamp as UTF-8 bytes in one buffer instead; UTF-8 (surrogates passed
    through) sorts as the strings do.
    """

    def __init__(self, size: int = 0) -> None:
        self.slots = UuidSlots(size // _MIN_LINE_GUESS)
        self.codes: Optional[array] = array("q")  # None once the strings are kept
        self.ts_blob = bytearray()
        self.ts_start = array("q")
        self.ts_size = array("l")
        self.offsets = array("q")
        self.lengths = array("i")  # a kept line is at most jsonl.MAX_LINE_BYTES long
        self.flags = bytearray()

    def __len__(self) -> int:
        return len(self.offsets)

    def _keep_strings(self) -> None:
        """Turn the codes back into the strings they stand for, from now on kept as such."""
        codes, self.codes = self.codes, None
        for code in codes or ():
            self._append_ts(ts_text(code))

    def _append_ts(self, ts: bytes) -> None:
        self.ts_start.append(len(self.ts_blob))
        self.ts_size.append(len(ts))
        self.ts_blob += ts

    def add(self, key: Any, ts: bytes, offset: int, length: int, flags: int, code: Optional[int] = None) -> None:
        if self.codes is not None:
            if code is None:
                code = ts_code(ts)
            if code is None:
                self._keep_strings()
        elif code is not None:
            ts = ts_text(code)
        count = len(self.offsets)
        slot = self.slots.slot_of(key, count)
        if slot == count:
            if self.codes is not None:
                self.codes.append(code)
            else:
                self._append_ts(ts)
            self.offsets.append(offset)
            self.lengths.append(length)
            self.flags.append(flags)
        else:  # keep-last: the later copy wins, the first-seen position stays
            if self.codes is not None:
                self.codes[slot] = code
            else:
                self.ts_start[slot] = len(self.ts_blob)
                self.ts_size[slot] = len(ts)
                self.ts_blob += ts
            self.offsets[slot] = offset
            self.lengths[slot] = length
            self.flags[slot] = flags

    def order(self) -> Iterator[int]:
        """Slots by (timestamp, first-seen): a stable sort on timestamp alone, since
        slots are numbered in first-seen order. The uuids are not needed to print, so
        they are freed first; the slots are sorted in runs of ``SORT_RUN`` and the runs
        merged (earlier runs first among equals: still stable), so the sort's keys and
        lists never hold every message."""
        self.slots = UuidSlots()
        key: Any
        if self.codes is not None:
            key = self.codes.__getitem__
        else:
            blob, self.ts_blob = bytes(self.ts_blob), bytearray()
            start, size = self.ts_start, self.ts_size

            def ts_of(slot: int) -> bytes:
                return blob[start[slot] : start[slot] + size[slot]]

            key = ts_of
        count = len(self.offsets)
        if count <= SORT_RUN:
            return iter(sorted(range(count), key=key))
        import heapq

        runs = [
            array("q", sorted(range(low, min(low + SORT_RUN, count)), key=key)) for low in range(0, count, SORT_RUN)
        ]
        return iter(heapq.merge(*runs, key=key))


class RangeRecords(object):
    """A range's messages as flat buffers, in file order, for a helper process to send
    back: what ``Timeline.add`` would have been given, one call each (keys and
    timestamps packed as the timeline packs them, the rare others beside)."""

    __slots__ = ("keys", "other_keys", "codes", "odd_ts", "offsets", "lengths", "flags")

    def __init__(self) -> None:
        self.keys = bytearray()
        self.other_keys: Dict[int, Any] = {}
        self.codes = array("q")
        self.odd_ts: Dict[int, bytes] = {}
        self.offsets = array("q")
        self.lengths = array("i")
        self.flags = bytearray()

    def add(self, key: Any, ts: bytes, offset: int, length: int, flags: int) -> None:
        index = len(self.offsets)
        if type(key) is bytes:
            self.keys += key
        else:
            self.other_keys[index] = key
            self.keys += bytes(16)
        code = ts_code(ts)
        if code is None:
            self.odd_ts[index] = ts
            code = _ODD_TS
        self.codes.append(code)
        self.offsets.append(offset)
        self.lengths.append(length)
        self.flags.append(flags)

    def plain(self, known: List[bool]) -> tuple:
        """The buffers themselves, not copies: marshal sends any buffer as bytes."""
        return (self.keys, self.other_keys, self.codes, self.odd_ts, self.offsets, self.lengths, self.flags, known)


def _as_array(typecode: str, data: Any) -> array:
    """``data`` as an array: itself (a share made in this process) or built from the
    bytes a helper sent."""
    return data if isinstance(data, array) else array(typecode, data)


def replay(timeline: Timeline, share: list) -> None:
    """Add a helper's share (``RangeRecords.plain``, given in a list this empties, so the
    share is freed as soon as it is unpacked) to ``timeline``, in its order."""
    keys, other_keys, codes, odd_ts, offsets, lengths, flags = share.pop()[:7]
    codes, offsets, lengths = _as_array("q", codes), _as_array("q", offsets), _as_array("i", lengths)
    keys = bytes(keys)  # a slice of bytes is a bytes key (a bytearray's would be neither bytes nor hashable)
    add = timeline.add
    for i in range(len(offsets)):
        key = other_keys[i] if i in other_keys else keys[16 * i : 16 * i + 16]
        code = codes[i]
        if code == _ODD_TS:
            add(key, odd_ts[i], offsets[i], lengths[i], flags[i])
        else:
            add(key, b"", offsets[i], lengths[i], flags[i], code)
