"""The transcript-parse seam for consumers such as a hand-off pre-pass or a retro gate: one
line's field rules, the thinking-block policy, the sidechain cues and the schema-drift
warning. Parse only, never score; every line goes through ``jsonl.parse_object``.
"""

import os
from typing import Any, Iterable, Iterator, Optional, Set, TextIO, Tuple

from termsprawl_context import jsonl
from termsprawl_context._output import MESSAGE_PREFIX, write_diagnostic
from termsprawl_context.transcript.tool_blocks import first_string


# A file whose first ``SCHEMA_DRIFT_CHECK_N`` lines hold none of these keys has probably
# drifted from Claude Code's format: one warning, never fatal.
KNOWN_TOP_FIELDS = frozenset({"type", "uuid", "message", "parentUuid", "sessionId", "timestamp"})
SCHEMA_DRIFT_CHECK_N = 50

# Tools whose input names a file the agent changed, and the keys naming it, in order.
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
EDIT_PATH_KEYS = ("file_path", "notebook_path", "path")

# The closed list of phrases that make a sidechain run worth keeping in full (a rejected
# hypothesis, a dead end); matched case-insensitively.
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


def msg_text(content: Any) -> str:
    """The seed's ``msg_text``: text and thinking blocks (``<thinking>\\n...\\n</thinking>``)
    joined by newlines. Thinking kept: hand-off extraction needs the rejected hypotheses."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    out = []
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            text = block.get("text", "")
            if text:
                # A truthy non-string ``text`` would break the seed's join: here it is its str.
                out.append(text if isinstance(text, str) else str(text))
        elif kind == "thinking":
            # Real blocks keep their text under "thinking"; some variants use "text".
            thinking = block.get("thinking") or block.get("text") or ""
            if thinking:
                out.append("<thinking>\n%s\n</thinking>" % (thinking,))
    return "\n".join(out)


def is_edit_tool(name: Any) -> bool:
    return isinstance(name, str) and name in EDIT_TOOLS


def edit_file_path(tool_input: Any) -> Optional[str]:
    return first_string(tool_input, EDIT_PATH_KEYS) or None


def is_meta(obj: Any) -> bool:
    return isinstance(obj, dict) and bool(obj.get("isMeta"))


def is_sidechain(obj: Any) -> bool:
    return isinstance(obj, dict) and bool(obj.get("isSidechain"))


def is_tool_result(obj: Any) -> bool:
    message = obj.get("message") if isinstance(obj, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def sidechain_cue_hit(text: Any) -> Optional[Tuple[str, str]]:
    """``(cue, line)`` for the first cue (in list order) in ``text``, else None: the first line
    holding it, stripped, or the text collapsed when the cue spans a line break."""
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
    return any(sidechain_cue_hit(text) is not None for text in texts)


def has_known_field(obj: dict) -> bool:
    return not KNOWN_TOP_FIELDS.isdisjoint(obj)


class DriftProbe(object):
    """The drift check over a file's first parsed objects (``schema_drift_warn`` counts lines)."""

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
            self.known_seen = self.known_seen or has_known_field(obj)

    def merge(self, probed: int, known: bool) -> None:
        """Count a later range's probe (stopped at its first known object) as if seen here."""
        if not self.settled:
            self.probed = min(self.probed + probed - known, SCHEMA_DRIFT_CHECK_N)
            self.known_seen = known and self.probed < SCHEMA_DRIFT_CHECK_N
            self.probed += self.known_seen

    def warn(self, path: Any, stream: Optional[TextIO] = None) -> None:
        warn_schema_drift(path, self.probed, self.known_seen, stream)


def warn_schema_drift(path: Any, lines_checked: int, seen_known: bool, stream: Optional[TextIO] = None) -> None:
    """Warn once per path per process that none of the first ``lines_checked`` (> 0) lines held a known field."""
    key = os.fsdecode(path) if isinstance(path, (bytes, os.PathLike)) else str(path)
    if seen_known or not lines_checked or key in _drift_warned:
        return
    _drift_warned.add(key)
    write_diagnostic(DRIFT_WARNING.format(lines_checked=lines_checked, path=key), stream)


def schema_drift_warn(path: Any, n: int = SCHEMA_DRIFT_CHECK_N, stream: Optional[TextIO] = None) -> None:
    """Warn if none of ``path``'s first ``n`` lines is an object with a known field (unreadable: silent)."""
    lines_checked, seen_known = 0, False
    try:
        with jsonl.open_regular(path) as f:
            for line in jsonl.iter_lines(f):
                if line.number > n:
                    break
                lines_checked = line.number
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
    """``(0-based line, obj)`` of every JSON object line of ``path``; OSError when it is no
    regular file. The drift check over the first ``schema_drift_check_n`` lines fires when
    the next is reached (before it is yielded), else at the end."""
    seen_known = False
    line_no = -1
    with jsonl.open_regular(path) as f:
        for line in jsonl.iter_lines(f):
            line_no = line.number - 1
            if line_no == schema_drift_check_n:
                warn_schema_drift(path, line_no, seen_known, stream)
            obj = jsonl.parse_object(line.raw)
            if obj is None:
                continue
            seen_known = seen_known or (line_no < schema_drift_check_n and has_known_field(obj))
            yield line_no, obj
    warn_schema_drift(path, min(schema_drift_check_n, line_no + 1), seen_known, stream)
