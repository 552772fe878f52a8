"""What each pool holds (its rules: the package's docstring): the pool names; matching a
quote word for word, and the bytes searched for it first (speed only, never an answer);
the person's answers in AskUserQuestion envelopes (read against their call's questions by
``transcript.answers``); which tool results are genuine tool output (``exclusion``,
``tool_bodies``; an agent transcript read back never is: its lines are harness records,
or a call's path names one)."""

from __future__ import annotations

import json
import os
import re

from termsprawl_context import jsonl
from termsprawl_context import model as cc
from termsprawl_context.bytescan import Needles, file_may_hold
from termsprawl_context.errors import UsageError
from termsprawl_context.harness import native
from termsprawl_context.model import PERSON, TOOL_RESULT
from termsprawl_context.transcript import answers
from termsprawl_context.transcript.entry import speaker
from termsprawl_context.transcript.record import go_quote
from termsprawl_context.transcript.shell import command_paths
from termsprawl_context.transcript.text import collapse_whitespace
from termsprawl_context.transcript.tool_blocks import first_string, is_hook_refusal, not_run_kind
from termsprawl_context.transcript.tool_blocks import result_texts, tool_results

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import BinaryIO, Callable, Dict, Iterable, List, Optional, Set, Tuple

    from termsprawl_context.cite.search import Call, Record
    from termsprawl_context.model import Entry


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
    """What a line (or a file) holding ``quote`` must hold: its first longest run JSON writes
    as itself (printable ASCII but ``" \\ < > & /``), plainly or under bytescan's escape
    rule; None when shorter than 4, or with ``PREFILTER`` off. Speed only, never an answer."""
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


SOURCE_USER = "user"
SOURCE_TOOL_RESULT = "tool_result"
SOURCE_TYPES = (SOURCE_USER, SOURCE_TOOL_RESULT)


def parse_source_type(name: str) -> Optional[str]:
    """``user`` or ``tool_result`` (exact, case-sensitive), else None."""
    return name if name in SOURCE_TYPES else None


def parse_sources(text: str) -> List[str]:
    """A comma-separated pool list (``user,tool_result``), in the order written;
    UsageError names the first unknown one."""
    sources: List[str] = []
    for name in text.split(","):
        if parse_source_type(name) is None:
            raise UsageError("unknown source type %s (want %s)" % (go_quote(name), " or ".join(SOURCE_TYPES)))
        if name not in sources:
            sources.append(name)
    return sources


def answers_entry(entry: Entry) -> bool:
    """A user entry whose tool results may carry the person's answers: the record model
    calls it the person's or a tool's (not meta, sidechain, compaction or harness)."""
    return entry.type == cc.TYPE_USER and speaker(entry) in (PERSON, TOOL_RESULT)


def own_results(record: Record, entry: Entry):
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


def extract_answers(body: str) -> List[str]:
    """The answers the person picked, out of an AskUserQuestion envelope (questions and
    trailer never); [] when ``body`` is not an envelope."""
    for prefix in cc.ANSWER_PREFIXES:
        start = body.find(prefix)
        if start >= 0:
            pairs = body[start + len(prefix) :]
            break
    else:
        return []
    for trailer in cc.ANSWER_TRAILERS:
        cut = pairs.find(trailer)
        if cut >= 0:
            pairs = pairs[:cut]
            break
    join = cc.ANSWER_JOIN
    picked: List[str] = []
    pos = 0
    while True:
        eq = pairs.find(join, pos)
        if eq < 0:
            return picked
        begin = eq + len(join)
        # An answer ends at the first `", "` a later pair's `"="` follows; past the last
        # one, at its last quote (none: the rest of the text).
        end = pairs.find('", "', begin)
        if end < 0 or join not in pairs[end + 3 :]:
            last_quote = pairs.rfind('"', begin)
            picked.append(pairs[begin : last_quote if last_quote >= 0 else len(pairs)])
            return picked
        picked.append(pairs[begin:end])
        pos = end + 3  # past `", ` to the next question's opening quote


def has_answer_prefix(body: str) -> bool:
    return any(prefix in body for prefix in cc.ANSWER_PREFIXES)


# Why a result is not tool output, in the order asked.
EXCLUDED_NO_CALL = "no-call"
EXCLUDED_DELEGATION = "delegation"
EXCLUDED_TASK_OUTPUT = "task-output"
EXCLUDED_TRANSCRIPT = "transcript"
EXCLUDED_ECHO = "echo"
# AskUserQuestion's result is the agent's questions and the person's picks, never a tool's
# own output (the reference left it citable; its follow-up and idle forms carry the
# questions without the envelope's prefix, so the questions cited as tool output).
EXCLUDED_ASK = "ask"
# The tools whose result is never tool output, whatever it holds.
_EXCLUDED_TOOLS = dict.fromkeys(cc.DELEGATION_TOOLS, EXCLUDED_DELEGATION)
_EXCLUDED_TOOLS.update({cc.TOOL_TASK_OUTPUT: EXCLUDED_TASK_OUTPUT, cc.TOOL_ASK_USER_QUESTION: EXCLUDED_ASK})


def exclusion(found: Optional[Call]) -> str:
    """Why a call's result is not tool output (one of ``EXCLUDED_*``; "" when it is)."""
    if found is None:
        return EXCLUDED_NO_CALL
    if found.call.name in _EXCLUDED_TOOLS:
        return _EXCLUDED_TOOLS[found.call.name]
    data = found.call.input if isinstance(found.call.input, dict) else {}
    paths = [data[k] for k in cc.INPUT_PATH_KEYS if isinstance(data.get(k), str) and data.get(k)]
    paths.extend(command_paths(first_string(data, (cc.INPUT_COMMAND,))))
    if any(is_transcript_path(p, found.cwd) for p in paths):
        return EXCLUDED_TRANSCRIPT
    if found.call.name != cc.TOOL_BASH:
        return ""
    from termsprawl_context import cite  # the package's attribute, which a test may swap (imported by now)

    classifier = cite.command_echoes
    if classifier is None:
        return EXCLUDED_ECHO  # fail closed: no classifier, every shell result is an echo
    return EXCLUDED_ECHO if classifier(first_string(found.call.input, (cc.INPUT_COMMAND,))) else ""


def genuine_body(body: str) -> bool:
    return not (extract_answers(body) or is_hook_refusal(body) or looks_like_transcript(body))


def tool_bodies(record: Record, entry: Entry) -> List[Tuple[str, str]]:
    """``(tool_use_id, body)`` of every genuine tool output on a user entry."""
    return [
        (result.tool_use_id, body)
        for result in tool_results(entry)
        if result.tool_use_id and record.citable(result.tool_use_id) and not not_run_kind(result)
        for body in result_texts(result.content)
        if genuine_body(body)
    ]


def _text_bodies(content: object) -> List[str]:
    """A result's string content, or its ``text`` blocks' texts: a hook's refusal is written
    as text, so a body of another type (an image's caption) never counts as one."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    ]


def refused_tool_use_ids(entries: Iterable[Entry]) -> Set[str]:
    """The ids of the calls a PreToolUse hook refused."""
    return {
        result.tool_use_id
        for entry in entries
        for result in tool_results(entry)
        if result.tool_use_id and any(is_hook_refusal(b) for b in _text_bodies(result.content))
    }
