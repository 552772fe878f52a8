"""Citations: a quote grounded in exactly one entry of a session's record, or refused.

Two pools, disjoint, never the assistant's own text:

- ``user``: what the person typed (string content, text blocks), a prompt they queued
  mid-turn, and the answers they picked in an AskUserQuestion envelope. The typed words
  are ``transcript.entry.person_texts``, the classifier ``show`` and the hand-off print
  by: never a meta, sidechain, compaction or transcript-only entry, never a text opening
  with a harness marker, never a local command's output (its parent found by uuid),
  never another tool's result; and never a slash command's envelope, which ``show``
  prints as typed (the one text ``show`` shows that this pool leaves out).
- ``tool_result``: the bodies of genuine tool results whose call is in the same record.
  Excluded: answer envelopes (the person's words), replies to a sub-agent dispatch and
  TaskOutput (model-written), hook refusals, results of calls that never ran, reads of
  an agent transcript, and the output of commands that print the agent's record back
  (``transcript.echo``).

Matching is word for word: whitespace runs (Go's set) are one space, case counts, and a
Read result also matches with its line-number gutter removed. A match is one entry.
Resolution fails closed: none, several, or a pool that cannot be searched are distinct
named refusals with a message a person can act on. The rules, messages and caps are the
Go reference's (``go-transcript-citations.md``).
"""

from __future__ import annotations

import heapq
import json
import os
import re
from array import array
from collections import deque, namedtuple

from termsprawl_context.bytescan import Needles
from termsprawl_context import jsonl
from termsprawl_context.errors import (
    EXIT_CITE_AMBIGUOUS,
    EXIT_CITE_NOT_FOUND,
    EXIT_CITE_REFUSED,
    NotFound,
    Refusal,
    UsageError,
)
from termsprawl_context.harness import claude as cc
from termsprawl_context.store.subagents import (
    is_subagent_record,
    session_dir_of_subagent,
    session_root_of,
    subagent_tree,
)
from termsprawl_context.transcript import answers, echo
from termsprawl_context.transcript.entry import (
    PERSON,
    TOOL_RESULT,
    is_hook_refusal,
    is_local_command,
    not_run_kind,
    output_parent,
    person_texts,
    result_texts,
    speaker,
    tool_calls,
    tool_results,
)
from termsprawl_context.transcript.record import (
    decode_line,
    entry_at,
    go_quote,
    iter_raw_lines,
    os_reason,
    same_file,
)
from termsprawl_context.transcript.text import collapse_whitespace

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple, Union

    from termsprawl_context.transcript.entry import Entry, ToolCall

# --- pools, caps, messages ----------------------------------------------------------------
SOURCE_USER = "user"
SOURCE_TOOL_RESULT = "tool_result"
SOURCE_TYPES = (SOURCE_USER, SOURCE_TOOL_RESULT)

MAX_CITED_MESSAGE = 16384  # bytes of a citation's message
MAX_CITED_CALL = 2048  # bytes of one rendered call's argument
MAX_LISTED_MATCHES = 50  # matches an ambiguity names (the rest are counted): one line, not megabytes
MESSAGE_TRUNCATED = "\n[... truncated]"
CALL_TRUNCATED = "[... truncated]"
MIN_NEEDLE = 4  # a shorter run of plain bytes is no prefilter: everything is searched
NEEDLE_CHUNK = 1 << 20  # a session's files are searched for the needle in chunks this size
MAX_RECORD_BYTES = 16 * 1024 * 1024  # one record line (the reference's scanner bound)
TRANSCRIPT_PROBE_LINES = 20  # lines of a file read to tell whether it is an agent transcript
TRANSCRIPT_PROBE_LINE_BYTES = 4 * 1024 * 1024

EMPTY_QUOTE = "an empty quote grounds nothing"
NO_SESSION_ROOT = "a sub-agent's record whose session root is not found holds none of the end user's words"
NO_ENTRY_AT_LINE = "no entry at the given line"

SUBAGENT_USER_RULE = (
    "your prompt is the parent agent's, not the user's. --cite:user resolves only against the user's messages in "
    "the main conversation — quote them exactly as the user wrote them (the parent must pass them to you "
    "verbatim), or cite --cite:tool_result for a tool's output."
)
SUBAGENT_USER_ADVICE = "You are a sub-agent: " + SUBAGENT_USER_RULE
SUBAGENT_RECORD_ALONE = (
    "citation %s cannot resolve the user's words in a sub-agent's record (%s) alone: its user messages are the "
    "parent agent's dispatch, not the end user's own words; search the session (its root record) instead"
)
HINT_OWN_DISPATCH_PROMPT = "That quote is from your dispatch prompt, written by the parent agent. "
HINT_DISPATCH_PROMPT = (
    "That quote is from a sub-agent's dispatch prompt, written by the parent agent, not by the user. "
    "If you are that sub-agent: "
)
HINT_NO_CALL = (
    "Those words are in a tool result whose call is not in the record (the call that produced it is not in the "
    "record), so where they came from is unknown and they are not citable as tool output; run the command again "
    "so its output lands with its call, and cite that"
)
HINT_DELEGATION = (
    "Those words are in a sub-agent's reply (model-written), which is not tool output; cite what the sub-agent's "
    "own tools printed — its record is searched too"
)
HINT_TASK_OUTPUT = (
    "Those words are what %s returned — a background task's output, which may be an agent's model-written "
    "reply — so they are not citable as tool output; cite what that task's own tools printed"
)
HINT_TRANSCRIPT = (
    "Those words were read out of an agent transcript (the file is an agent's record — its text is "
    "model-written), which is not tool output; cite what the tools in that record printed — sub-agents' records "
    "are searched too"
)
HINT_ECHO = (
    "Those words are in the output of a command that prints agent-written text back (git log/show, or one of "
    "sloprail's own tools: sr-checks, sr-session, sr-file, ...; their output carries commit messages, citations "
    "and judges' model-written reasoning), so they are not citable as tool output; cite the output of the "
    "command that produced the evidence, or the user's words"
)
HINT_ASK = (
    "Those words are in an AskUserQuestion result: its questions are the agent's own words and only the answers "
    "the person picked are theirs, so it is not tool output; cite an answer with --cite:user"
)
HINT_ENVELOPE = (
    "Those words are an AskUserQuestion answer — the user's own words, not a tool's output; cite them with "
    "--cite:user"
)

# The echo rule's classifier. FAILS CLOSED: set to None, every Bash result is an echo.
# A module attribute so a test can swap it, as the reference's tests register theirs.
command_echoes: Optional[Callable[[str], bool]] = echo.echoes_record


# --- refusals -------------------------------------------------------------------------------
class CitationError(Refusal):
    """A citation that was read and did not resolve (the reference's ResolutionError)."""


class CitationNotFound(CitationError):
    """The quote is in no entry of the pools searched."""

    exit_code = EXIT_CITE_NOT_FOUND


class CitationAmbiguous(CitationError):
    """The quote is in more than one entry; ``matches`` names them."""

    exit_code = EXIT_CITE_AMBIGUOUS

    def __init__(self, message: str, matches: "Union[Sequence[Match], Hits]" = ()) -> None:
        super().__init__(message)
        self.matches = matches if isinstance(matches, Hits) else list(matches)


class CitationRefused(CitationError):
    """A pool that cannot be searched honestly: the user's words asked of a sub-agent
    whose session root is not on disk."""

    exit_code = EXIT_CITE_REFUSED


class AnswerUnmatched(CitationRefused):
    """The quote is in an AskUserQuestion answer envelope that cannot be read against the
    questions its own call asked: which words are the person's answer and which the
    agent's question is unknown, so the answer is refused rather than guessed."""

    def __init__(self, path: str, line: int, why: str) -> None:
        super().__init__(
            "the quote is in an AskUserQuestion answer at %s:%d that cannot be matched to its call (%s), so its "
            "words may be the agent's question rather than the person's answer; quote words the person typed, or "
            "an answer from an envelope whose call is in the record" % (path, line, why)
        )
        self.path, self.line, self.why = path, line, why

    def with_request(self, req: "CitationRequest") -> "AnswerUnmatched":
        """The refusal as the resolution reports it: ``citation <req> cannot resolve: ...``."""
        self.message = "citation %s cannot resolve: %s" % (req, self.message)
        self.args = (self.message,)
        return self


class NoSessionRoot(CitationRefused):
    """The bare reason (the reference's ErrNoSessionRoot), raised by ``cite_in_session``."""

    def __init__(self) -> None:
        super().__init__(NO_SESSION_ROOT)


class EmptyQuote(UsageError):
    def __init__(self) -> None:
        super().__init__(EMPTY_QUOTE)


class NoSourceType(UsageError):
    """The request names no pool, or one this module does not know."""


class CitationUnreadable(NotFound):
    """A record the citation needed could not be read: ``citation <req>: <reason>``, or
    the project's sessions could not be listed."""


class NoEntryAtLine(NotFound):
    """The line names no entry: past the end, or a line that is not an entry."""


# --- values ---------------------------------------------------------------------------------
class Match(namedtuple("Match", "path line")):
    """One entry a quote landed on: the record's path as given and its 1-based line."""

    __slots__ = ()

    def __str__(self) -> str:
        return "%s:%d" % (self.path, self.line)


class CitationRequest(namedtuple("CitationRequest", "quote sources")):
    """A quote and the pools it may ground in, in the order to search them."""

    __slots__ = ()

    def __str__(self) -> str:
        return "%s %s" % (",".join(self.sources), go_quote(self.quote))


class Citation(namedtuple("Citation", "quote source_types path line message call")):
    """A resolved citation: the pools it landed in (request order), where, the cited
    entry's text in those pools (capped), and for tool output the call(s) that printed it."""

    __slots__ = ()

    def to_json(self) -> dict:
        data = {
            "quote": self.quote,
            "sourceTypes": list(self.source_types),
            "path": self.path,
            "line": self.line,
            "message": self.message,
        }
        if self.call:
            data["call"] = self.call
        return data


def parse_source_type(name: str) -> Optional[str]:
    """``user`` or ``tool_result`` (exact, case-sensitive), else None."""
    return name if name in SOURCE_TYPES else None


def parse_sources(text: str) -> List[str]:
    """A comma-separated pool list (``user,tool_result``), in the order written;
    NoSourceType names the first unknown one."""
    sources: List[str] = []
    for name in text.split(","):
        if parse_source_type(name) is None:
            raise NoSourceType("unknown source type %s (want %s)" % (go_quote(name), " or ".join(SOURCE_TYPES)))
        if name not in sources:
            sources.append(name)
    return sources


# --- matching -------------------------------------------------------------------------------
_READ_GUTTER = re.compile(r"^[ \t]*[0-9]+\t", re.MULTILINE)
# Beside what a JSON string never writes as itself (bytescan's rule): the bytes a writer may
# escape anyway (Go's encoder writes < > & as \u003c ...), and the space, which a
# normalised quote and the record may spell differently.
_NEEDLE_EXCLUDED = b" <>&"


def normalize(text: str) -> str:
    """Whitespace runs (Go's set) become one space, the ends trimmed."""
    return collapse_whitespace(text)


def contains_words(text: str, quote: str) -> bool:
    """Whether ``quote`` is in ``text`` word for word: only whitespace may differ."""
    return normalize(quote) in normalize(text)


def strip_read_gutters(body: str) -> str:
    """A Read result without its ``   12\\t`` line-number prefixes."""
    return _READ_GUTTER.sub("", body)


def _body_matches(body: str, words: str) -> bool:
    if words in normalize(body):
        return True
    return "\t" in body and words in normalize(strip_read_gutters(body))


def quote_needle(quote: str) -> Optional[bytes]:
    """The longest run of the quote's bytes that JSON writes as themselves (printable
    ASCII but ``" \\ < > & /``), first longest on ties; None when shorter than 4.
    Searched in raw bytes before anything is parsed: speed only, never an answer. The
    run is bytescan's rule (``Needles.longest_run``), not a copy of it."""
    plain = Needles.longest_run(quote, MIN_NEEDLE, _NEEDLE_EXCLUDED).plain
    return plain[0] if plain else None


def file_may_contain(path: str, needle: Optional[bytes]) -> bool:
    """Whether the file's bytes may hold ``needle``: read in 1 MiB chunks with an
    overlap; no needle, or a file that cannot be read, answers yes."""
    if not needle:
        return True
    try:
        f = jsonl.open_regular(path)
    except OSError:
        return True
    keep = len(needle) - 1
    with f:
        tail = b""
        try:
            while True:
                chunk = f.read(NEEDLE_CHUNK)
                if not chunk:
                    return False
                if needle in tail + chunk[: len(needle)] or needle in chunk:
                    return True
                tail = chunk[-keep:] if keep else b""
        except OSError:
            return True


# --- answer envelopes, hook refusals, transcripts read back ----------------------------------
def extract_answers(body: str) -> List[str]:
    """The answers the person picked, out of an AskUserQuestion envelope (questions and
    trailer never); [] when ``body`` is not an envelope."""
    start = -1
    for prefix in cc.ANSWER_PREFIXES:
        start = body.find(prefix)
        if start >= 0:
            pairs = body[start + len(prefix) :]
            break
    if start < 0:
        return []
    for trailer in cc.ANSWER_TRAILERS:
        cut = pairs.find(trailer)
        if cut >= 0:
            pairs = pairs[:cut]
            break
    join = cc.ANSWER_JOIN
    answers: List[str] = []
    pos = 0
    while True:
        eq = pairs.find(join, pos)
        if eq < 0:
            return answers
        begin = eq + len(join)
        scan = begin
        last_quote = -1
        end = -1
        last = False
        while True:
            q = pairs.find('"', scan)
            if q < 0:
                last = True
                end = last_quote if last_quote >= 0 else len(pairs)
                break
            if pairs.startswith('", "', q) and join in pairs[q + 3 :]:
                end = q
                break
            last_quote = q
            scan = q + 1
        answers.append(pairs[begin:end])
        if last:
            return answers
        pos = end + 3  # past `", ` to the next question's opening quote


def is_answer_envelope(body: str) -> bool:
    return bool(extract_answers(body))


def has_answer_prefix(body: str) -> bool:
    return any(prefix in body for prefix in cc.ANSWER_PREFIXES)


def _result_bodies_text_only(content: object) -> List[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        el["text"]
        for el in content
        if isinstance(el, dict) and el.get("type") == "text" and isinstance(el.get("text"), str)
    ]


def refused_tool_use_ids(entries: Iterable[Entry]) -> Set[str]:
    """The ids of the calls a PreToolUse hook refused."""
    refused = set()
    for entry in entries:
        for result in tool_results(entry):
            if result.tool_use_id and any(is_hook_refusal(b) for b in _result_bodies_text_only(result.content)):
                refused.add(result.tool_use_id)
    return refused


def _raw_length(value: object) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


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
    if "uuid" not in value or _raw_length(value["uuid"]) <= 2:
        return False
    if "sessionId" not in value or _raw_length(value["sessionId"]) <= 2:
        return False
    if "parentUuid" not in value or not ("version" in value or "userType" in value):
        return False
    return value.get("type") in (cc.TYPE_USER, cc.TYPE_ASSISTANT, cc.TYPE_ATTACHMENT, cc.TYPE_SYSTEM)


def looks_like_transcript(body: str) -> bool:
    """Whether a tool result body is an agent transcript's lines read back."""
    if '"sessionId"' not in body:
        return False
    return any(looks_like_record(line) for line in strip_read_gutters(body).split("\n"))


def command_paths(command: str) -> List[str]:
    """The words of a shell command that look like paths (the reference's hand
    tokeniser: quotes group, ``\\x`` is x, ``#`` at a word's start comments)."""
    if not any(mark in command for mark in ("/", ".jsonl", ".output")):
        return []
    words: List[str] = []
    word, in_word, quote = [], False, ""
    i, n = 0, len(command)
    while i < n:
        c = command[i]
        if quote:
            if c == quote:
                quote = ""
            else:
                word.append(c)
            i += 1
            continue
        if c in "'\"":
            quote, in_word = c, True
        elif c == "\\" and i + 1 < n:
            word.append(command[i + 1])
            in_word = True
            i += 1
        elif c in " \t\n":
            if in_word:
                words.append("".join(word))
            word, in_word = [], False
        elif c == "#" and not in_word:
            end = command.find("\n", i)
            i = n if end < 0 else end
            continue
        else:
            word.append(c)
            in_word = True
        i += 1
    if in_word:
        words.append("".join(word))
    paths = []
    for w in words:
        w = w.strip("();|&`")
        cut = max(w.rfind("<"), w.rfind(">"))
        if cut >= 0:
            w = w[cut + 1 :]
        if w.startswith("-"):
            if "=" not in w:
                continue
            w = w.split("=", 1)[1]
        if w and ("/" in w or w.endswith(".jsonl") or w.endswith(".output")):
            paths.append(w)
    return paths


def _under_projects(path: str) -> bool:
    config = cc.config_dir()
    if not config:
        return False
    root = os.path.join(config, cc.PROJECTS_SUBDIR)
    if not os.path.exists(root):
        return False
    root = os.path.realpath(root)
    resolved = cc.resolve_work_dir(path)
    return resolved == root or resolved.startswith(root.rstrip(os.sep) + os.sep)


_TRANSCRIPT_FILE_CACHE: Dict[Tuple[str, int, int], bool] = {}


def _reads_as_transcript(path: str) -> bool:
    try:
        f = jsonl.open_regular(path)
    except OSError:
        return False
    with f:
        try:
            st = os.fstat(f.fileno())
            key = (path, st.st_size, st.st_mtime_ns)
            if key in _TRANSCRIPT_FILE_CACHE:
                return _TRANSCRIPT_FILE_CACHE[key]
            answer = False
            for _ in range(TRANSCRIPT_PROBE_LINES):
                line = f.readline(TRANSCRIPT_PROBE_LINE_BYTES)
                if not line:
                    break
                if looks_like_record(line.decode("utf-8", "replace")):
                    answer = True
                    break
        except OSError:
            return False
    _TRANSCRIPT_FILE_CACHE[key] = answer
    return answer


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
        return _under_projects(os.path.dirname(path[: min(globs)]))
    try:
        if not os.path.exists(path):
            return False
        real = os.path.realpath(path)
    except (OSError, ValueError):
        return False
    if _under_projects(real):
        return True
    if os.path.isdir(real):
        return False
    return _reads_as_transcript(real)


# --- one record -----------------------------------------------------------------------------
_Call = namedtuple("_Call", "call cwd")


class Record(object):
    """One transcript's entries with what the pools need: every call by id (with its
    entry's cwd), which results are citable as tool output, and which entries are local
    commands (their uuids' hashes: a typed text under one is that command's output).
    ``calls`` given: only those calls are known, and only the local commands in
    ``local_commands`` (a streamed search looks up just the ones its candidates name)."""

    def __init__(
        self,
        path: str,
        entries: List[Entry],
        calls: Optional[Dict[str, _Call]] = None,
        local_commands: Optional[Set[int]] = None,
    ) -> None:
        self.path = path
        self.entries = entries
        if calls is None:
            calls = {}
            for entry in entries:
                for call in tool_calls(entry):
                    if call.id:
                        calls[call.id] = _Call(call, entry.cwd)
            if local_commands is None:
                local_commands = {hash(e.uuid) for e in entries if is_local_command(e)}
        self.calls: Dict[str, _Call] = calls
        self.local_commands: Set[int] = local_commands or set()
        self.other_tool_ids: Set[str] = {i for i, c in calls.items() if c.call.name != cc.TOOL_ASK_USER_QUESTION}
        self._citable: Dict[str, bool] = {}

    def entry_at(self, line: int) -> Optional[Entry]:
        for entry in self.entries:
            if entry.line == line:
                return entry
        return None

    def person_texts(self, entry: Entry) -> List[str]:
        """What the person typed in ``entry`` (``transcript.entry.person_texts``), none
        when its parent, found by uuid, is a local command whose output it is."""
        texts = person_texts(entry)
        parent = output_parent(entry) if texts else ""
        return [] if parent and hash(parent) in self.local_commands else texts

    def citable(self, tool_use_id: str) -> bool:
        """Whether the result answering ``tool_use_id`` is tool output: its call is in
        this record and produced output of its own (not a delegation, TaskOutput, a
        transcript read back, or an echo of the record)."""
        known = self._citable.get(tool_use_id)
        if known is None:
            known = _exclusion(self.calls.get(tool_use_id)) == ""
            self._citable[tool_use_id] = known
        return known


def _call_reads_transcript(found: _Call) -> bool:
    data = found.call.input if isinstance(found.call.input, dict) else {}
    candidates = [data[k] for k in cc.INPUT_PATH_KEYS if isinstance(data.get(k), str) and data.get(k)]
    command = data.get(cc.INPUT_COMMAND)
    if isinstance(command, str):
        candidates.extend(command_paths(command))
    return any(is_transcript_path(p, found.cwd) for p in candidates)


def _call_echoes(call: ToolCall) -> bool:
    if call.name != cc.TOOL_BASH:
        return False
    classifier = command_echoes
    if classifier is None:
        return True  # fail closed: no classifier, every shell result is an echo
    data = call.input if isinstance(call.input, dict) else {}
    command = data.get(cc.INPUT_COMMAND)
    return bool(classifier(command if isinstance(command, str) else ""))


# Why a result is not tool output, in the order the reasons are asked.
EXCLUDED_NO_CALL = "no-call"
EXCLUDED_DELEGATION = "delegation"
EXCLUDED_TASK_OUTPUT = "task-output"
EXCLUDED_TRANSCRIPT = "transcript"
EXCLUDED_ECHO = "echo"
# AskUserQuestion's result is the agent's questions and the person's picks, never a tool's
# own output (the reference left it citable; its follow-up and idle forms carry the
# questions without the envelope's prefix, so the questions cited as tool output).
EXCLUDED_ASK = "ask"


def _exclusion(found: Optional[_Call]) -> str:
    """Why a call's result is not tool output (one of ``EXCLUDED_*``; "" when it is)."""
    if found is None:
        return EXCLUDED_NO_CALL
    name = found.call.name
    if name in cc.DELEGATION_TOOLS:
        return EXCLUDED_DELEGATION
    if name == cc.TOOL_TASK_OUTPUT:
        return EXCLUDED_TASK_OUTPUT
    if name == cc.TOOL_ASK_USER_QUESTION:
        return EXCLUDED_ASK
    if _call_reads_transcript(found):
        return EXCLUDED_TRANSCRIPT
    if _call_echoes(found.call):
        return EXCLUDED_ECHO
    return ""


# Bytes one of which a local command's caveat or envelope line holds, as any JSON writer
# writes them (the markers of ``transcript.entry.is_local_command`` without the ``< >``
# that Go's encoder escapes); a line with a \u escape is parsed too, since an escaped
# marker holds none of them. Speed only: a line without any cannot be a local command.
_LOCAL_COMMAND_BYTES = tuple(
    marker.strip("<>").encode()
    for marker in (cc.LOCAL_COMMAND_OPEN, cc.LOCAL_COMMAND_CAVEAT_OPEN, cc.LOCAL_COMMAND_CAVEAT)
) + (b"\\u",)
# The last lines before a typed candidate are kept (unparsed) to find its parent there and
# decide at once whether it is a local command: in the corpus, 99 of 164 typed entries'
# parents are the line before, and 55 of the other 65 two or three lines up (past
# file-history-snapshot, queue-operation and progress records). A parent further up, or on
# a line over PARENT_LINE_BYTES (an envelope is a few hundred), is looked up by uuid later.
RECENT_LINES = 4
PARENT_LINE_BYTES = 64 * 1024
# Bits of the filter of the uuids the deferred candidates' parents hash to: 16 a parent,
# up to 2 MiB of them.
_PARENT_FILTER_BITS = 1 << 24


_COMMAND_BYTES = b"command"  # in each marker but the escape: one test for most lines


def _may_be_local_command(raw: bytes) -> bool:
    if _COMMAND_BYTES not in raw and b"\\u" not in raw:
        return False
    return any(marker in raw for marker in _LOCAL_COMMAND_BYTES)


def load_record(path: str, needle: Optional[bytes] = None) -> Record:
    """The record at ``path``, every entry held. With a ``needle``, only lines holding it
    (or a tool call, or a local command) are parsed: an entry without the needle's bytes
    cannot hold the quote."""
    entries = []
    for line in iter_raw_lines(path):
        raw = line.raw
        if needle is not None and needle not in raw and b'"tool_use"' not in raw and not _may_be_local_command(raw):
            continue
        entry = entry_at(line, decode_line(raw))
        if entry is not None:
            entries.append(entry)
    return Record(path, entries)


def _entries(path: str, needle: Optional[bytes] = None) -> Iterable[Entry]:
    """The entries of the record at ``path``, streamed (only lines holding ``needle``)."""
    for line in iter_raw_lines(path):
        if needle is None or needle in line.raw:
            entry = entry_at(line, decode_line(line.raw))
            if entry is not None:
                yield entry


def _calls_for(path: str, ids: Set[str]) -> Dict[str, _Call]:
    """The calls of the record at ``path`` whose ids are in ``ids`` (a later one of the
    same id wins), read in one pass over the lines that hold a tool call."""
    return _calls_and_commands(path, ids, None)[0]


def _calls_and_commands(path: str, ids: Set[str], parents: Optional[bytearray]) -> Tuple[Dict[str, _Call], Set[int]]:
    """The calls whose ids are in ``ids`` (as ``_calls_for``) and the hashes of the uuids
    of the local commands whose hash ``parents`` (a bit filter) may hold, in one pass
    that parses only the lines that may hold either. A uuid on several lines counts as a
    local command when any of them is one (fail closed: a typed text is dropped, never
    added)."""
    found: Dict[str, _Call] = {}
    local: Set[int] = set()
    if not ids and parents is None:
        return found, local
    for line in iter_raw_lines(path):
        raw = line.raw
        calls = bool(ids) and b'"tool_use"' in raw
        commands = parents is not None and _may_be_local_command(raw)
        if not (calls or commands):
            continue
        entry = entry_at(line, decode_line(raw))
        if entry is None:
            continue
        for call in tool_calls(entry) if calls else ():
            if call.id in ids:
                found[call.id] = _Call(call, entry.cwd)
        if commands and _filter_has(parents, entry.uuid) and is_local_command(entry):
            local.add(hash(entry.uuid))
    return found, local


def _parent_filter(parents: int) -> bytearray:
    """An empty filter for ``parents`` hashes (a power of two of bytes)."""
    size = 128
    while size * 8 < 16 * parents and size * 8 < _PARENT_FILTER_BITS:
        size *= 2
    return bytearray(size)


def _filter_add(bits: "Optional[bytearray]", key: int) -> None:
    if bits is None:  # no parent was asked about
        return
    key &= len(bits) * 8 - 1
    bits[key >> 3] |= 1 << (key & 7)


def _filter_has(bits: "Optional[bytearray]", uuid: str) -> bool:
    if bits is None:
        return False
    key = hash(uuid) & (len(bits) * 8 - 1)
    return bool(bits[key >> 3] >> (key & 7) & 1)


_UNREAD = object()  # a recent line kept undecoded


def _recent_finder(recent: deque) -> Callable[[str], Optional[Entry]]:
    """The entry with a given uuid among ``recent`` ([line, its entry or ``_UNREAD``]
    each, oldest first), newest first; a line is decoded only when its bytes hold the
    uuid. None when none is: the parent is looked up by uuid later (an escaped uuid too)."""

    def find(uuid: str) -> Optional[Entry]:
        key = uuid.encode("utf-8", "surrogatepass")
        for item in reversed(recent):
            line, entry = item
            if entry is _UNREAD:
                if key not in line.raw:
                    continue
                entry = item[1] = entry_at(line, decode_line(line.raw))
            if entry is not None and entry.uuid == uuid:
                return entry
        return None

    return find


def _record_at(path: str, line: int) -> Record:
    """The entry at ``line`` alone, with the calls its tool results answer and, when its
    typed text may be a local command's output, whether its parent is that command (in
    the lines just before it, else a look-up by uuid). Only the lines those need are parsed."""
    recent = deque(maxlen=RECENT_LINES)  # type: deque
    for raw in iter_raw_lines(path):
        if raw.number == line:
            entry = entry_at(raw, decode_line(raw.raw))
            if entry is None:
                break
            ids = {r.tool_use_id for r in tool_results(entry)}
            parent = output_parent(entry) if person_texts(entry) else ""
            found = _recent_finder(recent)(parent) if parent else None
            if found is not None:
                local = {hash(parent)} if is_local_command(found) else set()
                return Record(path, [entry], _calls_for(path, ids), local)
            parents = None
            if parent:
                parents = _parent_filter(1)
                _filter_add(parents, hash(parent))
            calls, local = _calls_and_commands(path, ids, parents)
            return Record(path, [entry], calls, local)
        if len(raw.raw) <= PARENT_LINE_BYTES:
            recent.append([raw, _UNREAD])
    return Record(path, [], {})


def _is_injected(text: str) -> bool:
    return text.strip(_GO_SPACE).startswith(cc.INJECTED_PREFIXES)


_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


def message_texts(entry: Entry) -> List[str]:
    """A user entry's own texts, harness-injected ones left out (flags not consulted):
    the reference's reading, kept for the dispatch-prompt hint."""
    content = entry.content
    if isinstance(content, str):
        return [] if _is_injected(content) else [content]
    if not isinstance(content, list):
        return []
    texts = []
    for block in content:
        if isinstance(block, str):
            text = block
        elif isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            text = block["text"]
            if not text:
                continue
        else:
            continue
        if not _is_injected(text):
            texts.append(text)
    return texts


def _answers_entry(entry: Entry) -> bool:
    """A user entry whose tool results may carry the person's answers: the record model
    calls it the person's or a tool's (not meta, sidechain, compaction or harness)."""
    return entry.type == cc.TYPE_USER and speaker(entry) in (PERSON, TOOL_RESULT)


def _own_results(record: Record, entry: Entry):
    """The tool results of a user entry that no other tool's call claims (an answer
    envelope, or a result whose call is not in the record)."""
    return [r for r in tool_results(entry) if r.tool_use_id not in record.other_tool_ids]


def envelope_readings(record: Record, result, body: str) -> Tuple[Optional[List[Tuple[str, ...]]], str]:
    """The readings of an answer envelope against the questions its call asked
    (``transcript.answers``), or ``(None, why)`` when it cannot be matched to its call."""
    found = record.calls.get(result.tool_use_id) if result.tool_use_id else None
    if found is None:
        return None, answers.NO_CALL
    return answers.answer_readings(body, answers.call_questions(found.call.input))


def user_texts(record: Record, entry: Entry) -> List[str]:
    """The user pool's texts of one entry: typed text, a queued prompt, and the answers
    of an envelope that reads one way against its call's questions."""
    texts = record.person_texts(entry)
    if _answers_entry(entry):
        for result in _own_results(record, entry):
            for body in result_texts(result.content):
                if has_answer_prefix(body):
                    readings, _ = envelope_readings(record, result, body)
                    if readings is not None and len(readings) == 1:
                        texts.extend(readings[0])
    return texts


def _genuine_body(body: str) -> bool:
    return not (is_answer_envelope(body) or is_hook_refusal(body) or looks_like_transcript(body))


def tool_bodies(record: Record, entry: Entry) -> List[Tuple[str, str]]:
    """``(tool_use_id, body)`` of every genuine tool output on a user entry."""
    found = []
    for result in tool_results(entry):
        if not result.tool_use_id or not record.citable(result.tool_use_id) or not_run_kind(result):
            continue
        for body in result_texts(result.content):
            if _genuine_body(body):
                found.append((result.tool_use_id, body))
    return found


# One entry's search, in two steps so a streamed search keeps only candidates: what the
# entry alone says (typed words, and the lines just before it when the local command
# whose output they may be is there; tool results whose bodies hold the quote), then, with the
# calls those results name and the local commands the typed words' parents may be,
# whether each counts. envelopes: [(result, body)]; tools: [id]; parent: the uuid of an
# entry not yet read whose being a local command unmakes ``typed`` ("" when decided).
_Candidate = namedtuple("_Candidate", "line typed envelopes tools parent")


def _candidate(
    entry: Entry, words: str, sources: Sequence[str], recent: Optional[Callable[[str], Optional[Entry]]] = None
) -> Optional[_Candidate]:
    typed = SOURCE_USER in sources and any(words in normalize(t) for t in person_texts(entry))
    parent = output_parent(entry) if typed else ""
    found = recent(parent) if parent and recent is not None else None
    if found is not None:  # decided here: is_local_command_output(entry, found)
        typed, parent = not is_local_command(found), ""
    envelopes, tools = [], []
    if entry.type == cc.TYPE_USER:
        user = SOURCE_USER in sources and _answers_entry(entry)
        for result in tool_results(entry):
            for body in result_texts(result.content):
                if user and has_answer_prefix(body) and words in normalize(body):
                    envelopes.append((result, body))
                if (
                    SOURCE_TOOL_RESULT in sources
                    and result.tool_use_id
                    and _body_matches(body, words)
                    and _genuine_body(body)
                    and not not_run_kind(result)
                ):
                    tools.append(result.tool_use_id)
    if typed or envelopes or tools:
        return _Candidate(entry.line, typed, envelopes, tools, parent)
    return None


def _needed_calls(candidate: _Candidate) -> Set[str]:
    return {r.tool_use_id for r, _ in candidate.envelopes if r.tool_use_id} | set(candidate.tools)


def _decide(record: Record, candidate: _Candidate, words: str) -> bool:
    """Whether the candidate is a match; AnswerUnmatched when the quote sits in an
    envelope that cannot be read against its call's questions, or is an answer in only
    some of its readings."""
    hit = candidate.typed and not (candidate.parent and hash(candidate.parent) in record.local_commands)
    for result, body in candidate.envelopes:
        if result.tool_use_id in record.other_tool_ids:
            continue  # another tool printed it (a shell echoing an envelope): never the person's
        readings, why = envelope_readings(record, result, body)
        if readings is not None:
            held = [any(words in normalize(answer) for answer in reading) for reading in readings]
            if all(held):
                hit = True
                continue
            if not any(held):
                continue
            why = answers.SPLIT
        raise AnswerUnmatched(record.path, candidate.line, why)
    return hit or any(record.citable(i) for i in candidate.tools)


def cite_in_record(record: Record, quote: str, sources: Sequence[str] = ()) -> List[Match]:
    """One match per entry of ``record`` holding ``quote`` in a requested pool (empty
    sources: the user pool), in file order. An all-whitespace quote matches nothing."""
    words = normalize(quote)
    if not words:
        return []
    sources = list(sources) or [SOURCE_USER]
    found = []
    for entry in record.entries:
        candidate = _candidate(entry, words, sources)
        if candidate is not None and _decide(record, candidate, words):
            found.append(Match(record.path, entry.line))
    return found


def _search(path: str, quote: str, sources: Sequence[str], prefilter: bool, hits: "Hits") -> None:
    """``cite`` streamed into ``hits``: the record is read once for candidates (only the
    entries holding the quote are kept, and of a typed match only its line; its parent is
    looked for in the few lines before it, which may be the local command the typed
    words answer), then, when some candidate's tool results need their calls or its
    parent was not among those lines, once more for just those calls and the local
    commands among those parents (a typed match waiting on its parent keeps its line
    and its parent's hash: 16 bytes)."""
    words = normalize(quote)
    if not words:
        return
    sources = list(sources) or [SOURCE_USER]
    needle = quote_needle(quote) if prefilter else None
    typed_lines, waiting_lines, waiting_parents = array("q"), array("q"), array("q")
    pending: List[_Candidate] = []
    recent = deque(maxlen=RECENT_LINES)  # type: deque
    find = _recent_finder(recent)
    for line in iter_raw_lines(path):
        raw = line.raw
        if needle is not None and needle not in raw:
            if len(raw) <= PARENT_LINE_BYTES:
                recent.append([line, _UNREAD])
            continue
        entry = entry_at(line, decode_line(raw))
        candidate = _candidate(entry, words, sources, find) if entry is not None else None
        if len(raw) <= PARENT_LINE_BYTES:
            recent.append([line, entry])
        if candidate is None:
            continue
        if candidate.typed and not candidate.envelopes:
            if candidate.parent:
                waiting_lines.append(candidate.line)
                waiting_parents.append(hash(candidate.parent))
            else:
                typed_lines.append(candidate.line)  # decided without a call or a parent
        else:
            pending.append(candidate)
    ids: Set[str] = set()
    asked = len(waiting_parents) + sum(1 for c in pending if c.parent)
    parents = _parent_filter(asked) if asked else None
    for candidate in pending:
        ids |= _needed_calls(candidate)
        if candidate.parent:
            _filter_add(parents, hash(candidate.parent))
    for key in waiting_parents:
        _filter_add(parents, key)
    calls, local = _calls_and_commands(path, ids, parents)
    record = Record(path, [], calls, local)
    kept = array("q", (line for line, key in zip(waiting_lines, waiting_parents) if key not in local))
    del waiting_lines, waiting_parents
    decided = array("q", (c.line for c in pending if _decide(record, c, words)))
    for number in heapq.merge(typed_lines, kept, decided):  # each in file order
        hits.add(path, number)


def cite(path: str, quote: str, sources: Sequence[str] = (), prefilter: bool = True) -> List[Match]:
    """The matches of ``quote`` in the record at ``path`` (``cite_in_record``, streamed;
    RecordUnreadable when it cannot be read). ``prefilter=False`` parses every line: the
    plain oracle of the fast path."""
    hits = Hits()
    _search(path, quote, sources, prefilter, hits)
    return list(hits)


# --- the matches found, each once ---------------------------------------------------------------
_BITMAP_LINES = 1 << 24  # lines past this (a file of 16 million lines) are kept in a plain set


class Hits(object):
    """Matches in the order found, each once: per record its lines as 8-byte integers,
    and a set of the lines seen as one bit a line (1e6 matching entries cost about 8 MB,
    where Match tuples in a list and a set cost over 150 MB)."""

    def __init__(self) -> None:
        self._runs: List[Tuple[str, array]] = []
        self._seen: Dict[str, bytearray] = {}
        self._far: Set[Tuple[str, int]] = set()
        self._count = 0

    def _mark(self, path: str, line: int) -> bool:
        """Record (path, line) as seen; False when it already was."""
        if line >= _BITMAP_LINES or line < 0:
            key = (path, line)
            if key in self._far:
                return False
            self._far.add(key)
            return True
        bits = self._seen.get(path)
        if bits is None:
            bits = self._seen[path] = bytearray()
        byte, bit = divmod(line, 8)
        if byte >= len(bits):
            bits.extend(bytes(max(byte + 1 - len(bits), len(bits))))
        if bits[byte] >> bit & 1:
            return False
        bits[byte] |= 1 << bit
        return True

    def add(self, path: str, line: int) -> bool:
        """Add the match unless it is already here; whether it was added."""
        if not self._mark(path, line):
            return False
        if not self._runs or self._runs[-1][0] != path or self._runs[-1][1][-1] > line:
            self._runs.append((path, array("q")))  # each run ascends, so runs merge in order
        self._runs[-1][1].append(line)
        self._count += 1
        return True

    def extend(self, matches: Iterable[Match]) -> None:
        for match in matches:
            self.add(match.path, match.line)

    def __contains__(self, match: object) -> bool:
        if not isinstance(match, tuple) or len(match) != 2:
            return False
        path, line = match
        if line >= _BITMAP_LINES or line < 0:
            return (path, line) in self._far
        bits = self._seen.get(path)
        byte, bit = divmod(line, 8)
        return bits is not None and byte < len(bits) and bool(bits[byte] >> bit & 1)

    def __len__(self) -> int:
        return self._count

    def __iter__(self):
        for path, lines in self._runs:
            for line in lines:
                yield Match(path, line)

    def __getitem__(self, index: int) -> Match:
        if index < 0:
            index += self._count
        for path, lines in self._runs:
            if index < len(lines):
                return Match(path, lines[index])
            index -= len(lines)
        raise IndexError("no such match")

    def sorted_by(self, order: Dict[str, int]) -> "Hits":
        """The same matches ordered by ``order`` of their path (absent first), then line."""
        paths: List[str] = []
        for path, _ in self._runs:
            if path not in paths:
                paths.append(path)
        ordered = Hits()
        for path in sorted(paths, key=lambda p: order.get(p, -1)):
            runs = [lines for p, lines in self._runs if p == path]
            merged = runs[0] if len(runs) == 1 else heapq.merge(*runs)
            for line in merged:
                ordered.add(path, line)
        return ordered


# --- a session --------------------------------------------------------------------------------
class SessionRecords(namedtuple("SessionRecords", "user_in tool_in")):
    """Where each pool is searched: the root record for the user's words ("" when a
    sub-agent's root is not found), and the root's (or orphan's) tree for tool output."""

    __slots__ = ()


def citation_records(path: str, subagent: bool = False) -> SessionRecords:
    user_in = session_root_of(path)
    if subagent and same_file(user_in, path):
        user_in = ""
    top = user_in or path
    return SessionRecords(user_in, [top] + subagent_tree(top))


def _session_hits(
    path: str, quote: str, sources: Sequence[str] = (), subagent: bool = False, prefilter: bool = True
) -> Hits:
    sources = list(sources) or [SOURCE_USER]
    records = citation_records(path, subagent)
    hits = Hits()
    if SOURCE_USER in sources:
        if not records.user_in:
            raise NoSessionRoot()
        _search(records.user_in, quote, [SOURCE_USER], prefilter, hits)
    if SOURCE_TOOL_RESULT in sources:
        own = Hits()
        _search(path, quote, [SOURCE_TOOL_RESULT], prefilter, own)
        if own:
            hits.extend(own)
        else:
            for other in records.tool_in:
                if not same_file(other, path):
                    _search(other, quote, [SOURCE_TOOL_RESULT], prefilter, hits)
    order = {p: i for i, p in reversed(list(enumerate(records.tool_in)))}
    return hits.sorted_by(order)


def cite_in_session(
    path: str, quote: str, sources: Sequence[str] = (), subagent: bool = False, prefilter: bool = True
) -> List[Match]:
    """Matches of ``quote`` in the session whose record is at ``path``: the user pool in
    the root record only (NoSessionRoot for a sub-agent whose root is gone); the tool pool
    in the caller's own record first and, only when that holds none, in the root and
    every sub-agent record beneath it. Root's tree order, then line."""
    return list(_session_hits(path, quote, sources, subagent, prefilter))


# --- hints ---------------------------------------------------------------------------------
def dispatch_prompt_contains(path: str, quote: str) -> bool:
    """Whether ``quote`` is in a sub-agent's dispatch prompt within the session."""
    words = normalize(quote)
    try:
        top = session_root_of(path)
        records = subagent_tree(top or path)
        if not top:
            records.append(path)
        for record_path in records:
            for entry in _entries(record_path, quote_needle(quote)):
                if entry.type == cc.TYPE_USER and not entry.is_meta:
                    if any(words in normalize(t) for t in message_texts(entry)):
                        return True
    except Refusal:
        return False
    return False


def unresolved_user_hint(path: str, quote: str, subagent: bool = False) -> str:
    """What to say when ``quote`` is not in the user pool ("" when nothing specific)."""
    sub = subagent or is_subagent_record(path)
    if dispatch_prompt_contains(path, quote):
        return HINT_OWN_DISPATCH_PROMPT + SUBAGENT_USER_ADVICE if sub else HINT_DISPATCH_PROMPT + SUBAGENT_USER_RULE
    return SUBAGENT_USER_ADVICE if sub else ""


def excluded_result_hint(path: str, quote: str, subagent: bool = False) -> str:
    """Which excluded kind of tool result the words sit in ("" when none)."""
    words = normalize(quote)
    try:
        for record_path in citation_records(path, subagent).tool_in:
            held = [
                (result.tool_use_id, body)
                for entry in _entries(record_path, quote_needle(quote))
                for result in tool_results(entry)
                for body in result_texts(result.content)
                if _body_matches(body, words)
            ]  # only the bodies holding the quote are kept
            record = Record(record_path, [], _calls_for(record_path, {i for i, _ in held if i}))
            for tool_use_id, body in held:
                hint = _why_excluded(record, tool_use_id, body)
                if hint:
                    return hint
    except Refusal:
        return ""
    return ""


def _why_excluded(record: Record, tool_use_id: str, body: str) -> str:
    """The excluded-result hint for one body holding the quote ("" to keep looking)."""
    if is_hook_refusal(body):
        return ""
    found = record.calls.get(tool_use_id) if tool_use_id else None
    reason = _exclusion(found)
    if reason == EXCLUDED_NO_CALL:
        return HINT_NO_CALL
    if reason == EXCLUDED_DELEGATION:
        return HINT_DELEGATION
    if reason == EXCLUDED_TASK_OUTPUT:
        return HINT_TASK_OUTPUT % cc.TOOL_TASK_OUTPUT
    if reason == EXCLUDED_TRANSCRIPT or looks_like_transcript(body):
        return HINT_TRANSCRIPT
    if reason == EXCLUDED_ECHO:
        return HINT_ECHO
    if is_answer_envelope(body):
        return HINT_ENVELOPE
    return HINT_ASK if reason == EXCLUDED_ASK else ""


def unresolved_hint(path: str, quote: str, sources: Sequence[str]) -> str:
    """The user-pool hint and the excluded-result hint that apply, joined by ``. ``."""
    hints = []
    if SOURCE_USER in sources:
        hints.append(unresolved_user_hint(path, quote))
    if SOURCE_TOOL_RESULT in sources:
        hints.append(excluded_result_hint(path, quote, is_subagent_record(path)))
    return ". ".join(h for h in hints if h)


# --- resolution ------------------------------------------------------------------------------
def _cap(text: str, limit: int, suffix: str) -> str:
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    cut = limit
    while cut > 0 and (data[cut] & 0xC0) == 0x80:  # back up to a character's first byte
        cut -= 1
    return data[:cut].decode("utf-8", "surrogatepass") + suffix


def render_call(call: ToolCall) -> str:
    """``<Tool>: <command | file_path | input JSON>``, the argument capped at 2 KiB."""
    data = call.input
    arg = ""
    if isinstance(data, dict):
        for key in (cc.INPUT_COMMAND, cc.INPUT_FILE_PATH):
            value = data.get(key)
            if isinstance(value, str) and value:
                arg = value
                break
    if not arg:
        arg = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return "%s: %s" % (call.name, _cap(arg, MAX_CITED_CALL, CALL_TRUNCATED))


def entry_text(record: Record, entry: Entry, pools: Sequence[str]) -> str:
    """The cited entry's whole text in ``pools`` (an answer with its question), capped."""
    parts: List[str] = []
    if SOURCE_USER in pools:
        parts.extend(record.person_texts(entry))
        if _answers_entry(entry):
            for result in _own_results(record, entry):
                parts.extend(
                    b
                    for b in result_texts(result.content)
                    if has_answer_prefix(b) and envelope_readings(record, result, b)[0] is not None
                )
    if SOURCE_TOOL_RESULT in pools and entry.type == cc.TYPE_USER:
        parts.extend(body for _, body in tool_bodies(record, entry))
    return _cap("\n\n".join(parts), MAX_CITED_MESSAGE, MESSAGE_TRUNCATED)


def entry_calls(record: Record, entry: Entry) -> str:
    """The call behind each genuine tool result on the entry, one line each."""
    ids: List[str] = []
    for tool_use_id, _ in tool_bodies(record, entry):
        if not ids or ids[-1] != tool_use_id:
            ids.append(tool_use_id)
    return "\n".join(render_call(record.calls[i].call) for i in ids)


def _check_request(req: CitationRequest) -> None:
    if req.quote == "":
        raise EmptyQuote()
    if not req.sources:
        raise NoSourceType("citation %s names no source type" % (req,))
    for name in req.sources:
        if parse_source_type(name) is None:
            raise NoSourceType("citation %s: unknown source type %s" % (req, go_quote(name)))


def _resolve(path: str, req: CitationRequest, search, hint) -> Citation:
    _check_request(req)
    hits = Hits()
    pools: List[str] = []
    for pool in req.sources:
        try:
            found = search(pool)
        except NoSessionRoot:
            raise CitationRefused(
                "citation %s cannot resolve in a sub-agent's trajectory (%s) whose session record is not found: its "
                "user messages are the parent agent's dispatch, not the end user's own words. %s"
                % (req, path, SUBAGENT_USER_ADVICE)
            ) from None
        except AnswerUnmatched as exc:
            raise AnswerUnmatched(exc.path, exc.line, exc.why).with_request(req) from None
        except Refusal as exc:
            raise CitationUnreadable("citation %s: %s" % (req, exc.message)) from None
        if found:
            pools.append(pool)
        hits.extend(found)
    if not hits:
        message = (
            "citation %s does not resolve in %s: the quote is not there word for word in that pool "
            "(only whitespace may differ)" % (req, path)
        )
        extra = hint()
        raise CitationNotFound(message + (". " + extra if extra else ""))
    if len(hits) > 1:
        listed = ", ".join(str(hits[i]) for i in range(min(len(hits), MAX_LISTED_MATCHES)))
        if len(hits) > MAX_LISTED_MATCHES:
            listed += ", and %d more" % (len(hits) - MAX_LISTED_MATCHES)
        raise CitationAmbiguous(
            "citation %s is ambiguous: it matches more than one entry (%s) — extend the quote until it lands on "
            "exactly one" % (req, listed),
            hits,
        )
    hit = hits[0]
    try:
        record = _record_at(hit.path, hit.line)
    except Refusal as exc:
        raise CitationUnreadable("citation %s: %s" % (req, exc.message)) from None
    entry = record.entry_at(hit.line)
    message = entry_text(record, entry, pools) if entry is not None else ""
    call = entry_calls(record, entry) if entry is not None and SOURCE_TOOL_RESULT in pools else ""
    return Citation(req.quote, pools, hit.path, hit.line, message, call)


def _session_hint(path: str, req: CitationRequest, subagent: bool):
    def hint() -> str:
        hints = []
        if SOURCE_USER in req.sources:
            hints.append(unresolved_user_hint(path, req.quote, subagent))
        if SOURCE_TOOL_RESULT in req.sources:
            hints.append(excluded_result_hint(path, req.quote, subagent))
        return ". ".join(h for h in hints if h)

    return hint


def resolve_citation(path: str, req: CitationRequest, subagent: bool = False, prefilter: bool = True) -> Citation:
    """Ground ``req`` in the session whose record is at ``path`` (``subagent``: the
    caller is known to be a sub-agent). Exactly one entry, or a named refusal."""
    return _resolve(
        path,
        req,
        lambda pool: _session_hits(path, req.quote, [pool], subagent, prefilter),
        _session_hint(path, req, subagent),
    )


def resolve_in_record(path: str, req: CitationRequest, prefilter: bool = True) -> Citation:
    """Ground ``req`` in the one record at ``path`` (its own entries only). The user
    pool of a sub-agent's record is refused: its "user" is the parent agent (rule 5);
    the session's root record holds the person's words (``resolve_citation``)."""
    _check_request(req)
    if SOURCE_USER in req.sources and is_subagent_record(path):
        raise CitationRefused(SUBAGENT_RECORD_ALONE % (req, path))

    def search(pool: str) -> Hits:
        hits = Hits()
        _search(path, req.quote, [pool], prefilter, hits)
        return hits

    return _resolve(path, req, search, _session_hint(path, req, False))


def resolve_citations(path: str, reqs: Sequence[CitationRequest]) -> List[Citation]:
    """Every request in order; the first that does not resolve is raised (never partial)."""
    return [resolve_citation(path, req) for req in reqs]


def _session_may_contain(path: str, needle: Optional[bytes]) -> bool:
    """Whether any record the session search from ``path`` reads may hold the needle:
    the caller's own, its root's (the user pool's) and every one beneath the root. A
    record under no ``subagents`` directory is its own root (or has none), so only its
    own tree is read and its first entry need not be parsed to find out."""
    if needle is None:
        return True
    try:
        if session_dir_of_subagent(path):
            records = citation_records(path)
            files = [path] + ([records.user_in] if records.user_in else []) + records.tool_in
        else:
            files = [path] + subagent_tree(path)
    except Refusal:
        return True
    seen = set()
    for name in files:
        key = os.path.normpath(name)
        if key not in seen:
            seen.add(key)
            if file_may_contain(name, needle):
                return True
    return False


def session_candidates(current: str, project_dir: str) -> List[str]:
    """The current record, then the project's other ``*.jsonl`` files newest first
    (modification time; ties by path)."""
    candidates = [current] if current else []
    if not project_dir:
        return candidates
    try:
        names = os.listdir(project_dir)
    except FileNotFoundError:
        return candidates
    except OSError as exc:
        raise CitationUnreadable("transcript: list sessions in %s: %s" % (project_dir, os_reason(exc))) from None
    others = []
    for name in names:
        if not name.endswith(cc.TRANSCRIPT_SUFFIX):
            continue
        full = os.path.join(project_dir, name)
        if current and os.path.normpath(full) == os.path.normpath(current):
            continue
        try:
            st = os.stat(full)
        except OSError:
            continue
        if os.path.isdir(full):
            continue
        others.append((-st.st_mtime_ns, full))
    others.sort()
    return candidates + [full for _, full in others]


def resolve_across_sessions(current: str, project_dir: str, req: CitationRequest, prefilter: bool = True) -> Citation:
    """Ground ``req`` in a project's sessions: the first (current first, then newest to
    oldest) that holds the quote answers, and there it must land exactly once.
    Unreadable records are named when nothing resolves."""
    _check_request(req)
    needle = quote_needle(req.quote) if prefilter else None
    unreadable: List[str] = []
    for candidate in session_candidates(current, project_dir):
        if not _session_may_contain(candidate, needle):
            continue
        try:
            matches = _session_hits(candidate, req.quote, req.sources, prefilter=prefilter)
        except NoSessionRoot:
            continue
        except AnswerUnmatched as exc:
            raise AnswerUnmatched(exc.path, exc.line, exc.why).with_request(req) from None
        except Refusal as exc:
            unreadable.append("%s (%s)" % (candidate, exc.message))
            continue
        if matches:
            return resolve_citation(candidate, req, prefilter=prefilter)
    hint = unresolved_hint(current, req.quote, req.sources) if current else ""
    if hint:
        message = "citation %s does not resolve in any session of this project. %s" % (req, hint)
    else:
        message = (
            "citation %s does not resolve in any session of this project: the quote is not there word for "
            "word" % (req,)
        )
    if unreadable:
        message += "; could not read: " + ", ".join(unreadable)
    raise CitationNotFound(message)


# --- at a line ---------------------------------------------------------------------------
def entry_at_line(path: str, line: int) -> Optional[Entry]:
    """The entry at physical ``line`` of the record at ``path`` (None when that line is
    no entry), reading no line past it and decoding no line before it."""
    for found in iter_raw_lines(path):
        if found.number == line:
            return entry_at(found, decode_line(found.raw))
    return None


def calls_answered_at(path: str, entry: Entry) -> Record:
    """A Record of ``path`` holding just the calls ``entry``'s results answer (each as
    its last copy at or before ``entry``), read no further than ``entry``'s line: what
    ``tool_bodies`` needs to judge them, in memory that does not grow with the record.
    A line is decoded only when it can hold one of the ids: their bytes, or a ``\\u``
    escape (the only other way JSON spells an ASCII id)."""
    wanted = {result.tool_use_id for result in tool_results(entry) if result.tool_use_id}
    needles = []
    for use_id in wanted:
        try:
            needles.append(use_id.encode("utf-8"))
        except UnicodeEncodeError:
            needles = []
            break
    exact = len(needles) == len(wanted) and not any("\ufffd" in use_id for use_id in wanted)
    holders = {}  # type: Dict[str, Entry]
    if wanted:
        for found in iter_raw_lines(path):
            if found.number > entry.line:
                break
            raw = found.raw
            if exact and b"\\u" not in raw and not any(needle in raw for needle in needles):
                continue
            candidate = entry_at(found, decode_line(raw))
            if candidate is None:
                continue
            for call in tool_calls(candidate):
                if call.id in wanted:
                    holders[call.id] = candidate
    unique = {id(e): e for e in holders.values()}
    return Record(path, sorted(unique.values(), key=lambda e: e.line))


def tool_result_at(path: str, line: int) -> Tuple[str, bool]:
    """The genuine tool output on the entry at ``line`` (joined by newlines) and whether
    there is any; ("", False) for any other entry or no entry. Reads up to ``line``: the
    call a result answers comes before it."""
    entry = entry_at_line(path, line)
    if entry is None or entry.type != cc.TYPE_USER:
        return "", False
    record = calls_answered_at(path, entry)
    bodies = [body for _, body in tool_bodies(record, entry)]
    if not bodies:
        return "", False
    return "\n".join(bodies), True


def envelope_at(path: str, line: int) -> List[str]:
    """The whole AskUserQuestion answer envelopes on the entry at ``line``, uncut and in
    order ([] when it carries none); NoEntryAtLine when the line is no entry. Reads up
    to ``line``."""
    entry = entry_at_line(path, line)
    if entry is None:
        raise NoEntryAtLine("transcript: envelope at %s:%d: %s" % (path, line, NO_ENTRY_AT_LINE))
    return [body for result in tool_results(entry) for body in result_texts(result.content) if has_answer_prefix(body)]
