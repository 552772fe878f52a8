"""Oracles: the plain algorithms the package's fast paths must equal.

DESIGN.md: a fast path must return exactly what the plain algorithm returns, and the
plain one is kept in the tests. These read every line and parse every one of them; the
package's scanners search bytes first and parse only what may hold a fact.
"""

from termsprawl_context import handoff
from termsprawl_context.jsonl import iter_lines, iter_lines_reverse, open_regular, parse_object
from termsprawl_context.harness.claude import continuation
from termsprawl_context.harness.claude.summary_index import SummaryIndex
from termsprawl_context import model
from termsprawl_context.transcript.content import first_content_text
from termsprawl_context.transcript.record import entry_at, iter_records
from termsprawl_context.harness.claude.session_scan import (
    FIRST_USER_MESSAGE_MAX_BYTES,
    folder_files,
    head_summary_links,
    take_summary,
    TAIL_MAX_BYTES,
)
from termsprawl_context.transcript.text import sanitize_text, truncate_utf8
from typing import NamedTuple, Tuple


class _Window:
    """The bytes of ``f`` from ``start`` on, addressed from 0: lets the reverse line
    reader walk the tail without ever seeking before it."""

    def __init__(self, f, start):
        self._f = f
        self._start = start

    def seek(self, pos, whence=0):
        return self._f.seek(self._start + pos, whence) - self._start

    def read(self, size=-1):
        return self._f.read(size)


def tail_lines_oracle(f, size):
    """The whole lines of the file's last ``TAIL_MAX_BYTES``, last first, read lazily
    backwards from the file in bounded blocks; the line cut by the window's start is
    not yielded. The plain reader's window (``session_scan.read_tail_past``) is checked
    against."""
    start = max(0, size - TAIL_MAX_BYTES)
    window = _Window(f, start)
    for offset, raw in iter_lines_reverse(window, end=size - start):
        if offset == 0 and start > 0:
            return
        yield raw


def entry_of_oracle(record, line=0, offset=-1):
    """``model.entry_of`` read off the field table (``model._DECODED``), one field at a
    time: exact keys, a string field of another type is "", a flag is True only for
    ``true``, raw fields as they are, ``message`` only when it is an object."""
    from termsprawl_context import model as E

    values = {}
    for key, field, kind in E._DECODED:
        value = record.get(key)
        if kind == "s":
            values[field] = value if isinstance(value, str) else ""
        elif kind == "b":
            values[field] = value is True
        else:
            values[field] = value
    message = values["message"] if isinstance(values["message"], dict) else None
    values["message"] = message
    values["content"] = message.get("content") if message is not None else None
    return E.Entry(line=line, offset=offset, record=record, **values)


class PlainSiblings:
    """The sibling reader's oracle (``store.continuation``): every sibling is read whole
    and every line parsed, once; ByteSearchSiblings must answer alike."""

    def __init__(self):
        self._facts = {}

    def _read(self, path):
        facts = self._facts.get(path)
        if facts is None:
            origin = None
            uuids = set()
            for line, record in iter_records(path):
                entry = entry_at(line, record)
                if entry is None:
                    continue
                uuids.add(entry.uuid)
                if origin is None:
                    origin = continuation.origin_of(entry)
            facts = self._facts[path] = (origin, uuids)
        return facts

    def holding(self, path, uuids):
        origin, held = self._read(path)
        return origin if any(u in held for u in uuids) else None


class ExtractionResult(NamedTuple):
    """The seed's metadata: the last local summary, the first user message, the links."""

    summary: str = ""
    first_user_message: str = ""
    summary_links: Tuple[model.SummaryLink, ...] = ()


def extract_metadata_from_lines(lines):
    """The seed's ExtractMetadataFromLines, every line parsed: the first user entry's text
    (sanitised, cut to 4096 bytes); the last ``summary`` without ``leafUuid`` (local); those
    with one, as links. What the head scanners' summary, first message and links must equal."""
    first_user = summary = ""
    links = []
    for raw in lines:
        record = parse_object(raw)
        if record is None:
            continue
        entry = model.entry_of(record)
        if not first_user and entry.type == model.TYPE_USER:
            text = first_content_text(entry.content)
            first_user = truncate_utf8(sanitize_text(text), FIRST_USER_MESSAGE_MAX_BYTES) if text else ""
        elif entry.type == model.TITLE_SUMMARY:
            summary = take_summary(entry, summary, links)
    return ExtractionResult(summary, first_user, tuple(links))


def first_text(record):
    """The seed's extractTextFromMessage over a parsed line: ``message.content`` when it
    is a string, else the first non-empty ``text`` of a ``text`` block; "" otherwise
    (``content.first_content_text``, the one rule)."""
    message = record.get("message")
    return first_content_text(message.get("content")) if isinstance(message, dict) else ""


def read_turns_forward_oracle(path, window=handoff.DEFAULT_TURNS, prompts=handoff.PROMPTS_KEPT, tools=False):
    """The hand-off's selection from one forward pass over every line, with line numbers:
    the plain algorithm ``handoff.read_harness_turns`` must equal."""
    last = {}
    entries = []
    with open_regular(path) as f:
        for line in iter_lines(f):
            record = parse_object(line.raw)
            if record is None:
                continue
            entry = model.entry_of(record, line.number, line.offset)
            if entry.uuid:
                last[entry.uuid] = len(entries)
            entries.append(entry)
    turns = []
    previous = None
    for i, entry in enumerate(entries):
        if entry.uuid and last[entry.uuid] != i:
            continue
        turns.extend(handoff.entry_turns(entry, tools, previous))
        previous = entry
    return select_turns(turns, window, prompts)


def select_turns(turns, window, prompts=handoff.PROMPTS_KEPT):
    """The last ``window`` turns, the person's last ``prompts`` prompts and the last
    answer, in order: the hand-off's selection, read from every turn."""
    keep = set(range(max(0, len(turns) - window), len(turns)))
    persons = 0
    answered = False
    for i in range(len(turns) - 1, -1, -1):
        role = turns[i].role
        if role == handoff.ROLE_USER and persons < prompts:
            keep.add(i)
            persons += 1
        elif role == handoff.ROLE_ASSISTANT and not answered:
            keep.add(i)
            answered = True
        if persons >= prompts and answered:
            break
    return [turns[i] for i in sorted(keep)]


def folder_index_oracle(folder):
    """The summary index of the heads and tails of every session file directly in
    ``folder``: what ``session_scan.index_naming`` answers for the uuids it is given."""
    index = SummaryIndex()
    for item in folder_files(folder):
        index.add_file(item.path, item.mtime, head_summary_links(item.path))
    return index


def load_record(path):
    """The citation record at ``path`` with every entry held and every call known: what
    cite's streamed search (``search.search_into``) reads only the candidates of."""
    from termsprawl_context.cite.search import Record
    from termsprawl_context.transcript.record import read_entries

    return Record(path, read_entries(path))


def cite_in_record(record, quote, sources=()):
    """One match per entry of ``record`` (``load_record``'s) holding ``quote`` in a
    requested pool, in file order: the plain algorithm ``cite.cite`` must equal."""
    from termsprawl_context.transcript.text import collapse_whitespace
    from termsprawl_context.cite.pools import SOURCE_USER
    from termsprawl_context.cite.search import Match, _candidate, _decide

    words = collapse_whitespace(quote)
    if not words:
        return []
    sources = list(sources) or [SOURCE_USER]
    found = []
    for entry in record.entries:
        candidate = _candidate(entry, words, sources)
        if candidate is not None and _decide(record, candidate, words):
            found.append(Match(record.path, entry.line))
    return found


def user_texts(record, entry):
    """The user pool's texts of one entry, read whole: typed text, a queued prompt, and
    the answers of an envelope that reads one way against its call's questions."""
    from termsprawl_context.cite.pools import has_answer_prefix
    from termsprawl_context.cite.pools import answers_entry, envelope_readings, own_results
    from termsprawl_context.transcript.tool_blocks import result_texts

    texts = record.person_texts(entry)
    if answers_entry(entry):
        for result in own_results(record, entry):
            for body in result_texts(result.content):
                if has_answer_prefix(body):
                    readings, _ = envelope_readings(record, result, body)
                    if readings is not None and len(readings) == 1:
                        texts.extend(readings[0])
    return texts
