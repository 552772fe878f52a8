"""Search across sessions: every line whose person, assistant or tool text holds a
string (case-insensitively) or matches a regular expression, newest session first.

A literal is matched against the text a line decodes to, but only lines whose bytes may
spell it are parsed (``prefilter_for``); a needle with no run that JSON writes as itself,
and every ``--regex``, parses every line (the tests' oracle). A line over
``jsonl.MAX_LINE_BYTES`` is not searched.
"""

import re
from collections import namedtuple
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from termsprawl_context.bytescan import (
    ESCAPES_ANY,
    ESCAPES_ASCII,
    ESCAPES_ASCII_FOLDED,
    LOWER_TO_ASCII,
    escape_positions,
)
from termsprawl_context.errors import SubagentsUnreadable, UsageError
from termsprawl_context.jsonl import line_numbers, open_regular, parse_object
from termsprawl_context.store.chunks import iter_chunks, line_around, line_bounds
from termsprawl_context.store.parallel import file_weight, map_shared
from termsprawl_context.store.catalog import listed, session_files
from termsprawl_context.store.paths import ROOTED
from termsprawl_context import model
from termsprawl_context.transcript import entry as records, speakers, tool_blocks


KIND_PERSON = "person"  # what the person typed: the CLI's one word for them (``entries``' speaker too)
KIND_PERSON_BEFORE = "human"  # the word --in took before; still accepted
KIND_ASSISTANT = "assistant"
KIND_TOOL = "tool"
KINDS = (KIND_PERSON, KIND_ASSISTANT, KIND_TOOL)
DEFAULT_KINDS = (KIND_PERSON, KIND_ASSISTANT)
# A sub-agent's record, searched with no --in given: every kind, tool output included. Its
# tools' output is the only record of what it did (the dispatching session sees only its
# report: Claude Code 2.1.328's sub-agents run in the background by default).
SUBAGENT_DEFAULT_KINDS = KINDS
DEFAULT_LIMIT = 50
SNIPPET_CONTEXT = 40  # characters shown on each side of a hit
CHUNK_BYTES = 1 << 20
# Below this many bytes a fork costs more than the second core saves (measured).
PARALLEL_MIN_BYTES = 32 << 20
FIRST_BATCH_BYTES = 8 << 20  # a search stopped by its limit reads little more than this
BATCH_GROWTH = 4

# Printable ASCII that JSON writers may escape: the quote and backslash always, and
# <, >, &, / for writers that guard HTML. Any other spelling of a character is bytescan's
# rule (``escape_positions``).
_ESCAPABLE = frozenset('"\\<>&/')


# One matching line: ``path:line``, its session, which text matched, a snippet; ``agent_id``
# names the sub-agent when ``path`` is a sub-agent's record ("" for the session's own).
Hit = namedtuple("Hit", "path line offset session_id title kind snippet timestamp uuid agent_id")
# What a line's lowercased bytes must hold to be parsed: ``pattern`` (None: parse every
# line), unless ``escape_positions(escapes)`` finds a spelling it cannot see.
Prefilter = namedtuple("Prefilter", "pattern escapes finder")


def _caseless(c: str) -> bool:
    # U+0307 is caseless but is what U+0130 lowercases into.
    return ord(c) > 0x7F and c.lower() == c == c.upper() and c != "\u0307"


def _runs(folded: str, excluded: frozenset) -> List[Tuple[bytes, bool]]:
    """The maximal runs of ``folded`` that JSON writes as themselves: (bytes, ASCII?)."""
    runs = []
    current, kind = [], None
    for c in folded + "\x00":
        if " " <= c <= "~":
            this = None if c in excluded else "a"
        else:
            this = "u" if _caseless(c) else None
        if this != kind and current:
            runs.append(("".join(current).encode("utf-8"), kind == "a"))
            current = []
        kind = this
        if this is not None:
            current.append(c)
    return runs


# Letters from rarest to commonest in English text: the regex engine's literal scan
# stops at each occurrence of the pattern's first byte, so a pattern should start rare.
_RARITY = {c: i for i, c in enumerate(b"zqxjkvbpygfwmucldrhsnioate")}
_COMMON = len(_RARITY) + 10  # spaces, digits, punctuation: everywhere in JSON
MIN_PATTERN = 4


def _rarest_start(runs: List[Tuple[bytes, bool]]) -> Tuple[bytes, bool]:
    """The suffix of a run to search for: one that starts with a rare byte and keeps
    at least ``MIN_PATTERN`` bytes (the whole run when shorter); a longer one on ties.
    Any part of the needle is as sound a test as the whole."""
    best = None
    for run, ascii_run in runs:
        for i in range(len(run)):
            rest = len(run) - i
            if rest < min(MIN_PATTERN, len(run)):
                break
            rank = _RARITY.get(run[i], _COMMON if run[i] < 0x80 else 0)
            key = (rest < MIN_PATTERN, rank, -rest)
            if best is None or key < best[0]:
                best = (key, run[i:], ascii_run)
    assert best is not None, "the needle has at least one run"  # callers pass a non-empty needle
    return best[1], best[2]


def prefilter_for(needle: str) -> Prefilter:
    """The byte test for lines that may hold ``needle`` (case-insensitively): a run of it that
    JSON writes as itself (printable ASCII but ``_ESCAPABLE``, or caseless non-ASCII such
    as CJK), or an escape that could spell one of its characters. Runs avoid ``i`` and
    ``k`` when they can: only U+0130 and U+212A lowercase into them."""
    folded = needle.lower()
    spelled_by_others = frozenset(x for c in LOWER_TO_ASCII for x in c.lower() if x < "\x80")
    runs = _runs(folded, _ESCAPABLE | spelled_by_others)
    plain = True
    if not runs:
        runs, plain = _runs(folded, _ESCAPABLE), False
    if not runs:
        return Prefilter(None, None, None)
    pattern, ascii_run = _rarest_start(runs)
    if not ascii_run:
        escapes = ESCAPES_ANY
    else:
        escapes = ESCAPES_ASCII if plain or not any(x in pattern for x in b"ik") else ESCAPES_ASCII_FOLDED
    return Prefilter(pattern, escapes, re.compile(re.escape(pattern)))


class Matcher(object):
    """Where a text matches: a case-insensitive substring, or a regex (``re.I``)."""

    def __init__(self, text: str, regex: bool = False) -> None:
        if not text:
            raise UsageError("search: text must not be empty")
        self.regex = None
        self.needle = text.lower()
        self.prefilter = Prefilter(None, None, None) if regex else prefilter_for(text)
        if regex:
            try:
                self.regex = re.compile(text, re.IGNORECASE)
            except (re.error, OverflowError, RecursionError) as exc:
                raise UsageError("search: invalid regular expression: %s" % exc)

    def find(self, text: str) -> Optional[Tuple[str, int, int]]:
        """``(the text searched, start, end)`` of the first match, or None. A literal is
        found in the lowercased text (shown from it when lowering changed its length)."""
        if self.regex is not None:
            m = self.regex.search(text)
            return (text, m.start(), m.end()) if m else None
        lowered = text.lower()
        i = lowered.find(self.needle)
        if i < 0:
            return None
        shown = text if len(lowered) == len(text) else lowered
        return shown, i, i + len(self.needle)


def _tool_strings(value) -> Iterator[str]:
    if isinstance(value, str) and value:
        yield value
    elif isinstance(value, (dict, list)):
        for item in value.values() if isinstance(value, dict) else value:
            yield from _tool_strings(item)


def entry_texts(entry: model.Entry, kinds: Sequence[str], subagent: bool = False) -> List[Tuple[str, str]]:
    """``(kind, text)`` for each text of ``entry`` searched under ``kinds``; never sidechain,
    meta, compaction or injected texts. In a sub-agent's own record (``subagent``) its
    task, written by the dispatching model, is assistant text."""
    if subagent and entry.is_sidechain:
        entry = entry._replace(is_sidechain=False)  # every turn of its own file is a sidechain
    who = records.speaker(entry)
    found = []
    if who == model.PERSON:
        kind = KIND_ASSISTANT if subagent else KIND_PERSON
        if kind in kinds:
            found.extend((kind, t) for t in speakers.typed_texts(entry))
    if who == model.ASSISTANT:
        if KIND_ASSISTANT in kinds:
            found.extend((KIND_ASSISTANT, t) for t in speakers.content_texts(entry.content))
        if KIND_TOOL in kinds:
            for call in tool_blocks.tool_calls(entry):
                found.extend((KIND_TOOL, s) for s in _tool_strings(call.input))
    if who in (model.PERSON, model.TOOL_RESULT) and KIND_TOOL in kinds:
        for result in tool_blocks.tool_results(entry):
            found.extend((KIND_TOOL, t) for t in tool_blocks.result_texts(result.content))
    return found


def snippet(text: str, start: int, end: int, context: int = SNIPPET_CONTEXT) -> str:
    """The hit with ``context`` characters each side, on one line; ``…`` where cut."""
    left, right = max(0, start - context), min(len(text), end + context)
    body = " ".join(text[left:right].split())
    return ("\u2026" if left > 0 else "") + body + ("\u2026" if right < len(text) else "")


def _entry_hit(entry: model.Entry, matcher: Matcher, kinds: Sequence[str], subagent: bool = False):
    """``(kind, snippet)`` of the first of ``entry``'s texts that matches, else None."""
    for kind, text in entry_texts(entry, kinds, subagent):
        found = matcher.find(text)
        if found is not None:
            return kind, snippet(*found)
    return None


def candidate_lines(block: bytes, first: int, limit: int, prefilter: Prefilter) -> List[Tuple[int, int]]:
    """``(start, end)`` of the lines in ``block[first:limit]`` that may match, in order."""
    if prefilter.pattern is None:
        return list(line_bounds(block, first, limit))
    low = block.lower()  # the whole block: one pass, no copy of the part searched
    starts = {}
    m = prefilter.finder.search(low, first, limit)
    while m is not None:
        start, end = line_around(low, m.start(), first, limit)
        starts[start] = end
        m = prefilter.finder.search(low, end + 1, limit)
    if prefilter.escapes is not None:
        for i in escape_positions(low, prefilter.escapes, first, limit):
            start, end = line_around(low, i, first, limit)
            starts[start] = end
    return sorted(starts.items())


def search_file(
    path: str, matcher: Matcher, kinds: Sequence[str], limit: Optional[int] = None, subagent: bool = False
) -> Optional[List[tuple]]:
    """``(line, offset, kind, snippet, timestamp, uuid)`` for each matching line of one
    transcript, at most ``limit``: plain data a helper process can send back; None when
    the file cannot be read."""
    hits = []  # type: List[tuple]
    try:
        with open_regular(path) as f:
            for at, buf, begin, end in iter_chunks(f, block_size=CHUNK_BYTES):
                for start, stop in candidate_lines(buf, begin, end, matcher.prefilter):
                    record = parse_object(buf[start:stop])
                    if record is None:
                        continue
                    entry = model.entry_of(record, 0, at + start - begin)
                    found = _entry_hit(entry, matcher, kinds, subagent)
                    if found is not None:
                        hits.append((entry.offset,) + found + (entry.timestamp, entry.uuid))
                        if limit is not None and len(hits) >= limit:
                            break
                if limit is not None and len(hits) >= limit:
                    break
            numbers = line_numbers(f, [h[0] for h in hits])
    except OSError:
        return None
    return [(numbers.get(hit[0], 0),) + hit for hit in hits]


def _batches(sessions: list, weights: List[int], first: int) -> Iterator[Tuple[list, List[int]]]:
    """The sessions in batches growing ``BATCH_GROWTH`` times from ``first`` bytes: a search
    that reaches its limit early stops after a small batch, a full scan is shared out in a
    few large ones (each batch waits for its slowest helper)."""
    batch, sizes, goal = [], [], first
    for session, weight in zip(sessions, weights):
        batch.append(session)
        sizes.append(weight)
        if sum(sizes) >= goal:
            yield batch, sizes
            batch, sizes, goal = [], [], goal * BATCH_GROWTH
    if batch:
        yield batch, sizes


# One file searched: a session's own record (``agent_id`` "") or a sub-agent's.
_Unit = namedtuple("_Unit", "session path agent_id")


def _units(sessions: Sequence[Any], subagents: bool, provider: Any) -> Iterator[_Unit]:
    """Each session's record, then (``subagents``) its sub-agents'; an unlistable tree is passed over."""
    for session in sessions:
        yield _Unit(session, session.path, "")
        if not subagents:
            continue
        try:
            tree = provider.subagent_tree(session.path) or []
        except SubagentsUnreadable:
            continue
        for child in tree:
            yield _Unit(session, child, provider.subagent_id_of(child))


def search_store(
    text: str,
    projects_dir: str,
    project: Optional[str] = None,
    kinds: Sequence[str] = DEFAULT_KINDS,
    limit: int = DEFAULT_LIMIT,
    regex: bool = False,
    subagents: bool = True,
    subagent_kinds: Optional[Sequence[str]] = None,
    provider: Any = ROOTED,
) -> Iterator[Hit]:
    """At most ``limit`` hits in the store ``provider`` walks, newest session first, its
    sub-agents' records (searched for ``subagent_kinds``) after its own. Unreadable files
    are passed over; above ``PARALLEL_MIN_BYTES`` a batch is shared between cores."""
    matcher = Matcher(text, regex)
    sub_kinds = kinds if subagent_kinds is None else subagent_kinds
    left = limit
    units = list(_units(session_files(projects_dir, project, provider=provider), subagents, provider))
    weights = [file_weight(u.path) for u in units]
    folders: Dict[str, Any] = {}  # each folder's files read once to title its sessions
    titles: Dict[str, str] = {}  # as `find` and `show` title a session (its folder's summaries included)

    def search_unit(unit: _Unit) -> Optional[List[tuple]]:  # any file of a batch may hold the rest of the answer
        return search_file(unit.path, matcher, sub_kinds if unit.agent_id else kinds, left, bool(unit.agent_id))

    for batch, sizes in _batches(units, weights, FIRST_BATCH_BYTES):
        if left <= 0:
            return
        results = map_shared(search_unit, batch, sizes, PARALLEL_MIN_BYTES)
        for unit, found in zip(batch, results):
            if not found or left <= 0:
                continue
            found = found[:left]
            session = unit.session
            if session.path not in titles:
                described = provider.describe(session.path, session_id=session.session_id, folders=folders)
                titles[session.path] = described.title
            title = titles[session.path]
            for line, offset, kind, snip, ts, uuid in found:
                yield Hit(unit.path, line, offset, session.session_id, title, kind, snip, ts, uuid, unit.agent_id)
            left -= len(found)


def parse_kinds(value: str) -> Tuple[str, ...]:
    """``person,assistant,tool`` (any non-empty subset; ``human`` is ``person``) as a tuple."""
    words = [KIND_PERSON if w.strip() == KIND_PERSON_BEFORE else w.strip() for w in value.split(",")]
    bad = [w for w in words if w not in KINDS] + [""]
    if not value or len(bad) > 1:
        raise UsageError("search: --in takes a comma-separated subset of %s (got '%s')" % (",".join(KINDS), bad[0]))
    return tuple(k for k in KINDS if k in words)


def search_other(hits: Iterator[Hit], text: str, regex: bool, chosen: list, kinds, limit: int) -> Iterator[Hit]:
    """``hits``, then the ``chosen`` providers' matching entries, newest session first: ``limit`` in all."""
    left = limit
    for hit in hits:
        yield hit
        left -= 1
    if not chosen or left <= 0:
        return
    matcher = Matcher(text, regex)
    found_in = [(c, provider) for provider in chosen for c in listed(provider)]
    for session, harness in sorted(found_in, key=lambda pair: -pair[0].mtime):
        if left <= 0:
            return
        title = None
        try:
            for entry in harness.entries(session.path):
                if entry.line <= 0:
                    continue  # a fork's inherited history: its hits are its own session's
                found = _entry_hit(entry, matcher, kinds)
                if found is None:
                    continue
                if title is None:
                    title = harness.describe(session.path, session_id=session.session_id).title or session.session_id
                where = (session.path, entry.line, entry.offset, entry.session_id or session.session_id)
                yield Hit(*where, title, found[0], found[1], entry.timestamp, entry.uuid, "")
                left -= 1
                if left <= 0:
                    return
        except OSError:
            continue
