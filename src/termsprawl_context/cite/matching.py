"""Matching a quote word for word; the bytes searched for it before anything is parsed
(speed only, never an answer); and whether a tool result is an agent transcript read
back: a body whose lines are harness records, or a path (in a call's input or command)
naming a transcript."""

from __future__ import annotations

import json
import os
import re

from termsprawl_context import jsonl
from termsprawl_context.bytescan import Needles, file_may_hold
from termsprawl_context import model as cc
from termsprawl_context.harness import native
from termsprawl_context.transcript.text import collapse_whitespace

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import BinaryIO, Callable, Dict, Optional, Tuple


MIN_NEEDLE = 4  # a shorter run of plain bytes is no prefilter: everything is searched
NEEDLE_CHUNK = 1 << 20  # a session's files are searched for the needle in chunks this size (one buffer)

_READ_GUTTER = re.compile(r"^[ \t]*[0-9]+\t", re.MULTILINE)
# Beside what a JSON string never writes as itself (bytescan's rule): the bytes a writer may
# escape anyway (Go's encoder writes < > & as \u003c ...), and the space, which a
# normalised quote and the record may spell differently.
_NEEDLE_EXCLUDED = b" <>&"


def strip_read_gutters(body: str) -> str:
    """A Read result without its ``   12\\t`` line-number prefixes."""
    return _READ_GUTTER.sub("", body)


def body_matches(body: str, words: str) -> bool:
    if words in collapse_whitespace(body):
        return True
    return "\t" in body and words in collapse_whitespace(strip_read_gutters(body))


# The one switch of cite's fast path (CPython's json.scanner rule): True searches bytes
# before parsing (each record for the quote's run; its lines for calls, local commands,
# ids and uuids: records, transcripts); False is the plain search, every line
# parsed. The cite tests run under both (cite_fixtures.both_searches), and bench_cite's
# target row (>= 10x on `cite --across`) is what it buys.
PREFILTER = True


def quote_needles(quote: str) -> Optional[Needles]:
    """The bytes a line (or a file) holding ``quote`` must hold: the longest run of its
    bytes that JSON writes as themselves (printable ASCII but ``" \\ < > & /``, first
    longest on ties), found as itself or under bytescan's escape rule; None when the run
    is shorter than 4, or with ``PREFILTER`` off (every line a candidate). Speed only,
    never an answer."""
    if not PREFILTER:
        return None
    needles = Needles.longest_run(quote, MIN_NEEDLE, _NEEDLE_EXCLUDED)
    return needles if needles.plain else None


def quote_needle(quote: str) -> Optional[bytes]:
    """The run ``quote_needles`` searches for (None when there is none)."""
    needles = quote_needles(quote)
    return needles.plain[0] if needles is not None else None


def file_may_contain(path: str, needle: Optional[bytes], buffer: Optional[bytearray] = None) -> bool:
    """Whether the file's bytes may hold ``needle`` (a quote's run): as itself or under
    the escape rule (``bytescan.file_may_hold``, in ``buffer``'s chunks when given); no
    needle, or a file that cannot be read, answers yes."""
    return not needle or scan_file(path, lambda f: file_may_hold(f, Needles.of([needle]), buffer=buffer))


def scan_file(path: str, search: Callable[[BinaryIO], bool], failed: bool = True) -> bool:
    """``search`` over the regular file at ``path``; ``failed`` when it cannot be opened or
    read (by default True: parse it, the line reader says what is wrong)."""
    f = jsonl.try_open_regular(path)
    if f is None:
        return failed
    with f:
        try:
            return search(f)
        except OSError:
            return failed


# The provider whose records citations read (the CLI refuses another's transcript:
# ``harness.require_native_records``); a path is checked against its store.
PROVIDER = native()
TRANSCRIPT_PROBE_LINES = 20  # lines of a file read to tell whether it is an agent transcript
TRANSCRIPT_PROBE_LINE_BYTES = 4 * 1024 * 1024
# The key every record a body may hold has (``looks_like_record``): a body that may hold
# none, spelled plainly or with escapes, holds no record.
_SESSION_ID_KEY = Needles.of([b'"sessionId"'])


def looks_like_record(line: str) -> bool:
    """Whether one line is a harness record (uuid, sessionId, parentUuid, version or
    userType, and a conversation type)."""
    brace = line.find("{")
    if brace < 0:
        return False
    try:
        value = json.loads(line[brace:])
    except (ValueError, RecursionError):
        return False
    if not isinstance(value, dict):
        return False
    raw = lambda v: json.dumps(v, separators=(",", ":"), ensure_ascii=False)  # noqa: E731
    if any(key not in value or len(raw(value[key])) <= 2 for key in ("uuid", "sessionId")):
        return False  # absent, or its raw JSON at most 2 characters ("", [], {})
    if "parentUuid" not in value or not ("version" in value or "userType" in value):
        return False
    return value.get("type") in (cc.TYPE_USER, cc.TYPE_ASSISTANT, cc.TYPE_ATTACHMENT, cc.TYPE_SYSTEM)


def looks_like_transcript(body: str) -> bool:
    """Whether a tool result body is an agent transcript's lines read back."""
    if PREFILTER and not _SESSION_ID_KEY.in_line(body.encode("utf-8", "surrogatepass")):
        return False  # no record without the key (the plain search parses every line anyway)
    return any(looks_like_record(line) for line in strip_read_gutters(body).split("\n"))


_TRANSCRIPT_FILE_CACHE: Dict[Tuple[str, int, int], bool] = {}


def _reads_as_transcript(path: str) -> bool:
    """Whether the file's first lines are harness records (no when it cannot be read)."""

    def probe(f: BinaryIO) -> bool:
        st = os.fstat(f.fileno())
        key = (path, st.st_size, st.st_mtime_ns)
        if key not in _TRANSCRIPT_FILE_CACHE:
            lines = (f.readline(TRANSCRIPT_PROBE_LINE_BYTES) for _ in range(TRANSCRIPT_PROBE_LINES))
            answer = any(looks_like_record(line.decode("utf-8", "replace")) for line in lines)  # b"": past the end
            _TRANSCRIPT_FILE_CACHE[key] = answer
        return _TRANSCRIPT_FILE_CACHE[key]

    return scan_file(path, probe, False)


def is_transcript_path(path: str, cwd: str) -> bool:
    """Whether ``path`` (relative to the call's ``cwd``) names an agent transcript: in
    the harness's store, or a file whose first lines are harness records."""
    if path.startswith("~/"):
        home = os.environ.get("HOME") or os.path.expanduser("~")
        path = os.path.join(home, path[2:])
    if not os.path.isabs(path):
        if not cwd:
            return False
        path = os.path.join(cwd, path)
    globs = [path.find(c) for c in "*?[" if c in path]
    if globs:
        return PROVIDER.in_store(os.path.dirname(path[: min(globs)]))
    try:
        if not os.path.exists(path):
            return False
        real = os.path.realpath(path)
    except (OSError, ValueError):
        return False
    if PROVIDER.in_store(real):
        return True
    if os.path.isdir(real):
        return False
    return _reads_as_transcript(real)
