"""A transcript read into canonical entries for the readers that fail closed (identity,
sub-agent links, citations), as the Go reference reads it (``decode_entry``): a line that
will not parse or has no uuid is no entry but still counted, so each keeps its 1-based line.
Lines split as Go's ``bufio.ScanLines`` (on ``\\n``, one trailing ``\\r`` dropped); a line
over ``jsonl.MAX_LINE_BYTES`` is a read error, never held whole. An unopenable or unreadable
file is a named refusal, never an empty answer. Also: the cycle mark and which calls ran.
"""

import os
from typing import Dict, Iterable, Iterator, List, Optional, Set, Tuple

from termsprawl_context.errors import NO_TRANSCRIPT_PATH, RecordUnreadable, UsageError
from termsprawl_context.jsonl import MAX_LINE_BYTES, Line, iter_lines_strict, loads_strict, open_regular
from termsprawl_context.model import Entry, decode_entry
from termsprawl_context.transcript.tool_blocks import not_run_kind, tool_results


# The Go reference's bound (its scanner's buffer): a line this long or longer is a read error.
MAX_RECORD_BYTES = MAX_LINE_BYTES + 1


def go_quote(text: str) -> str:
    """``text`` quoted as Go's ``%q`` does, for messages that echo untrusted input."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in _GO_ESCAPES:
            out.append(_GO_ESCAPES[ch])
        elif ch.isprintable():  # a lone surrogate is not
            out.append(ch)
        elif code < 0x80:
            out.append("\\x%02x" % code)
        elif 0xD800 <= code <= 0xDFFF:
            out.append("\\ufffd")  # what Go holds in place of a lone surrogate
        elif code < 0x10000:
            out.append("\\u%04x" % code)
        else:
            out.append("\\U%08x" % code)
    out.append('"')
    return "".join(out)


_GO_ESCAPES = {char: "\\" + letter for char, letter in zip('"\\\a\b\f\n\r\t\v', '"\\abfnrtv')}


def decode_line(raw: bytes) -> Optional[dict]:
    """One line's JSON object as Go's decoder sees it (``null``: an empty record), else None;
    a trailing ``\\r`` dropped, invalid UTF-8 read as U+FFFD, NaN and Infinity refused."""
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    try:
        value = loads_strict(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    if value is None:
        return {}
    return value if isinstance(value, dict) else None


def iter_records(path: str) -> Iterator[Tuple[Line, Optional[dict]]]:
    """Every line of ``path`` with its decoded object (or None); raises as ``iter_raw_lines``."""
    if not path:
        raise UsageError("transcript: " + NO_TRANSCRIPT_PATH)
    for line in iter_raw_lines(path):
        yield line, decode_line(line.raw)


def iter_raw_lines(path: str) -> Iterator[Line]:
    """Every line of ``path``, undecoded. RecordUnreadable when it cannot be opened or read,
    or on a line ``jsonl.iter_lines_strict`` refuses (skipping it could hide the entry asked about)."""
    try:
        f = open_regular(path)
    except OSError as exc:
        raise RecordUnreadable.opening(path, exc) from None
    with f:
        try:
            yield from iter_lines_strict(f)
        except OSError as exc:
            raise RecordUnreadable.reading(path, exc) from None


def entry_at(line: Line, record: Optional[dict]) -> Optional[Entry]:
    """The canonical entry of one decoded line; None when it does not decode or has no uuid."""
    entry = decode_entry(record, line.number, line.offset)
    return entry if entry is not None and entry.uuid else None


def iter_entries(path: str) -> Iterator[Entry]:
    """The canonical entries of the transcript at ``path``, streamed; raises as ``iter_records``."""
    for line, record in iter_records(path):
        entry = entry_at(line, record)
        if entry is not None:
            yield entry


def read_entries(path: str) -> List[Entry]:
    """``iter_entries`` as a list (the reference's ``ReadLines``)."""
    return list(iter_entries(path))


def check_readable(path: str) -> None:
    """Read ``path`` to its end undecoded, raising as ``iter_raw_lines`` (before a first row)."""
    for _ in iter_raw_lines(path):
        pass


def entries_after(read, mark: str, calls: bool, check=None) -> tuple:
    """``(call_outcomes or {}, the entries ``since`` the mark, streamed)`` over ``read()``, a fresh
    forward reading each call. The first pass (the mark's place; with ``calls`` the whole
    record) and ``check()`` come first, so a refusal precedes the first entry."""
    outcomes, after = {}, -1  # type: Dict[str, str], int
    if calls:
        found = [-1]

        def watched() -> Iterator[Entry]:
            for index, entry in enumerate(read()):
                if mark and found[0] < 0 and entry.uuid == mark:
                    found[0] = index
                yield entry

        outcomes, after = call_outcomes(watched()), found[0]
    else:
        if mark:
            after = next((i for i, entry in enumerate(read()) if entry.uuid == mark), -1)
        if check is not None:
            check()
    return outcomes, (entry for i, entry in enumerate(read()) if i > after)


def since(entries: List[Entry], mark: str) -> List[Entry]:
    """The entries after the one whose uuid is ``mark``; all when none is (a re-read beats a loss)."""
    if mark:
        for index, entry in enumerate(entries):
            if entry.uuid == mark:
                return entries[index + 1 :]
    return list(entries)


def mark(entries: List[Entry]) -> str:
    """The last entry's uuid, for the next cycle to resume after ("": the previous mark stands)."""
    return entries[-1].uuid if entries else ""


RAN = "ran"


def call_outcomes(entries: Iterable[Entry]) -> Dict[str, str]:
    """Each answered tool_use id's ``RAN`` (once run, it ran) or its answer's ``not_run_kind``."""
    outcomes = {}  # type: Dict[str, str]
    for entry in entries:
        for result in tool_results(entry):
            if not result.tool_use_id or outcomes.get(result.tool_use_id) == RAN:
                continue
            outcomes[result.tool_use_id] = not_run_kind(result) or RAN
    return outcomes


def ran_tool_ids(entries: List[Entry]) -> Set[str]:
    """The tool_use ids ``call_outcomes`` says RAN."""
    return {use_id for use_id, outcome in call_outcomes(entries).items() if outcome == RAN}


def same_file(a: str, b: str) -> bool:
    """Both paths name one record: equal once cleaned, or the same file on disk."""
    if not a or not b:
        return False
    if os.path.normpath(a) == os.path.normpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False
