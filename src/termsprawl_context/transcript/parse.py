"""Parse primitives for one transcript line: the transcript-parse seam, in one module.

Consumers (a hand-off pre-pass, a retro gate) import these so that field rules, the
thinking-block policy, the sidechain cue list and the schema-drift warning are defined
once. Parse only, never score. Every line goes through ``jsonl.parse_object``; nothing
here knows where a file lives in the harness's store.
"""

import os
from typing import Any, Iterable, Iterator, Optional, Set, TextIO, Tuple

from termsprawl_context import jsonl
from termsprawl_context._output import MESSAGE_PREFIX, write_diagnostic
from termsprawl_context.transcript.content import text_with_thinking


# A file in which none of these keys shows up in its first lines is probably not a
# Claude Code transcript any more (the format drifted): worth one warning, never fatal.
KNOWN_TOP_FIELDS = frozenset({"type", "uuid", "message", "parentUuid", "sessionId", "timestamp"})

# How many leading lines the drift check looks at.
SCHEMA_DRIFT_CHECK_N = 50

# Tools whose input names a file the agent changed.
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})

# Keys of a tool_use input that may name the edited file, in the order tried.
EDIT_PATH_KEYS = ("file_path", "notebook_path", "path")

# The closed list of phrases that make a sidechain run worth keeping in full (a
# rejected hypothesis, a dead end). Single source of truth; matched case-insensitively.
SIDECHAIN_SIGNAL_CUES: Tuple[str, ...] = (
    "actually,",
    "wait,",
    "never mind",
    "that didn't work",
    "that did not work",
    "wrong approach",
    "i was wrong",
    "scratch that",
    "on second thought",
    "doesn't work",
    "does not work",
    "abandoned",
    "dead end",
    "hypothesis",
)

DRIFT_WARNING = (
    MESSAGE_PREFIX + "WARNING \u2014 no known JSONL fields seen in first {lines_checked} lines of "
    "{path}; possible schema drift.\n"
)

# Paths already warned about in this process: one warning per file, whoever asks.
_drift_warned: Set[str] = set()

# The one line parser: the seed's parse_line (strip; blank, junk and non-objects are None).
parse_line = jsonl.parse_object

# The seed's msg_text (thinking blocks kept): one of the record model's text rules.
msg_text = text_with_thinking


def is_edit_tool(name: Any) -> bool:
    """True for Edit, Write, MultiEdit and NotebookEdit (exact case)."""
    return isinstance(name, str) and name in EDIT_TOOLS


def edit_file_path(tool_input: Any) -> Optional[str]:
    """The first non-empty string among file_path, notebook_path, path; else None."""
    if not isinstance(tool_input, dict):
        return None
    for key in EDIT_PATH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def is_meta(obj: Any) -> bool:
    """True for a harness-injected line (``isMeta`` truthy)."""
    return isinstance(obj, dict) and bool(obj.get("isMeta"))


def is_sidechain(obj: Any) -> bool:
    """True for a line of a sub-agent's sidechain (``isSidechain`` truthy, absent = False)."""
    return isinstance(obj, dict) and bool(obj.get("isSidechain"))


def is_tool_result(obj: Any) -> bool:
    """True when a whole line object carries a tool_result block in message.content."""
    if not isinstance(obj, dict):
        return False
    message = obj.get("message")
    if not isinstance(message, dict):
        return False
    content = message.get("content")
    if not isinstance(content, list):
        return False
    return any(isinstance(block, dict) and block.get("type") == "tool_result" for block in content)


def sidechain_cue_hit(text: Any) -> Optional[Tuple[str, str]]:
    """``(cue, line)`` for the first cue (in list order) found in ``text``, else None.

    The line is the first line holding the cue, stripped; when the cue spans a line
    break, it is the whole text with its whitespace collapsed.
    """
    if not isinstance(text, str) or not text:
        return None
    lower = text.lower()
    for cue in SIDECHAIN_SIGNAL_CUES:
        if cue not in lower:
            continue
        for line in text.splitlines():
            if cue in line.lower():
                return (cue, line.strip())
        return (cue, " ".join(text.split()))
    return None


def sidechain_is_signal(texts: Iterable[Any]) -> bool:
    """True if any of ``texts`` holds a cue."""
    return any(sidechain_cue_hit(text) is not None for text in texts)


def has_known_field(obj: dict) -> bool:
    """True if the parsed line has at least one of ``KNOWN_TOP_FIELDS``."""
    return not KNOWN_TOP_FIELDS.isdisjoint(obj)


class DriftProbe(object):
    """The drift check over a file's first ``SCHEMA_DRIFT_CHECK_N`` parsed objects (the
    rule assemble and locate apply, as opposed to ``schema_drift_warn``'s raw lines)."""

    __slots__ = ("probed", "known_seen")

    def __init__(self) -> None:
        self.probed = 0
        self.known_seen = False

    @property
    def settled(self) -> bool:
        """No later object can change the verdict."""
        return self.known_seen or self.probed >= SCHEMA_DRIFT_CHECK_N

    def see(self, obj: dict) -> None:
        if self.probed < SCHEMA_DRIFT_CHECK_N:
            self.probed += 1
            if not self.known_seen and has_known_field(obj):
                self.known_seen = True

    def warn(self, path: Any, stream: Optional[TextIO] = None) -> None:
        warn_schema_drift(path, self.probed, self.known_seen, stream)


def _path_text(path: Any) -> str:
    return os.fsdecode(path) if isinstance(path, (bytes, os.PathLike)) else str(path)


def warn_schema_drift(path: Any, lines_checked: int, seen_known: bool, stream: Optional[TextIO] = None) -> None:
    """Warn once per path per process that no known field was seen in the first
    ``lines_checked`` lines; silent if one was, if nothing was checked, or if warned."""
    key = _path_text(path)
    if seen_known or key in _drift_warned:
        return
    if lines_checked == 0:
        return
    _drift_warned.add(key)
    write_diagnostic(DRIFT_WARNING.format(lines_checked=lines_checked, path=key), stream)


def schema_drift_warn(path: Any, n: int = SCHEMA_DRIFT_CHECK_N, stream: Optional[TextIO] = None) -> None:
    """Read up to ``n`` physical lines of ``path`` (blank and junk lines count) and warn
    if none parsed to an object with a known field. An unreadable file is silent."""
    seen_known = False
    lines_checked = 0
    try:
        with jsonl.open_regular(path) as f:
            for line in jsonl.iter_lines(f):
                if lines_checked >= n:
                    break
                lines_checked += 1
                obj = jsonl.parse_object(line.raw)
                if obj is not None and has_known_field(obj):
                    seen_known = True
                    break
    except OSError:
        return
    warn_schema_drift(path, lines_checked, seen_known, stream)


def iter_objects(
    path: Any, schema_drift_check_n: int = SCHEMA_DRIFT_CHECK_N, stream: Optional[TextIO] = None
) -> Iterator[Tuple[int, dict]]:
    """Yield ``(line_no, obj)`` for every line of ``path`` that is a JSON object.

    ``line_no`` is the 0-based physical line (blank and junk lines use up numbers).
    The drift check covers lines before ``schema_drift_check_n``: it fires when that
    line is reached (before it is yielded) and again, if not yet, once the file is
    exhausted. A missing or non-regular file raises OSError, as opening it would.
    """
    seen_known = False
    line_no = -1
    with jsonl.open_regular(path) as f:
        for line in jsonl.iter_lines(f):
            line_no = line.number - 1
            obj = jsonl.parse_object(line.raw)
            if obj is None:
                if line_no == schema_drift_check_n:
                    warn_schema_drift(path, line_no, seen_known, stream)
                continue
            if not seen_known and line_no < schema_drift_check_n and has_known_field(obj):
                seen_known = True
            if line_no == schema_drift_check_n:
                warn_schema_drift(path, line_no, seen_known, stream)
            yield line_no, obj
    warn_schema_drift(path, min(schema_drift_check_n, line_no + 1), seen_known, stream)
