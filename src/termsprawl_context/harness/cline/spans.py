"""Where each message of a Cline CLI messages file lies, found in its bytes without parsing
the document (Cline CLI 3.0.65 rewrites the file whole as one JSON object whose
``messages`` array holds the conversation).

One pass over the structural bytes only (quotes, backslashes, brackets: ``re`` finds them,
so the cost is theirs, not the text's) gives each message's ``(start, end)``; a reader then
parses one message at a time, each under the line readers' cost model, and the dump and
the hand-off parse only the last ones (``entries_reverse``). The file itself is read once,
whole, up to ``jsonl.MAX_LINE_BYTES`` (16 MiB; a larger file reads as empty, fail open).
"""

import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import List, Tuple


_STRUCTURE = re.compile(rb'["\\\[\]{}]')
_MESSAGES_KEY = b'"messages"'
# The document's own `sessionId` comes before `messages` in 3.0.65's files; in a message's
# text a quote is escaped, so this spelling is a key.
_SESSION_ID = re.compile(rb'"sessionId"\s*:\s*"([A-Za-z0-9_-]{1,128})"')


def session_id_of_document(data: bytes) -> str:
    found = _SESSION_ID.search(data, 0, 1 << 16)
    return found.group(1).decode("ascii") if found else ""


def message_spans(data: bytes) -> "List[Tuple[int, int]]":
    """``(start, end)`` of each object in the top-level ``messages`` array, in order; []
    when the document has none or is torn before the array ends (what came whole is kept)."""
    spans = []  # type: List[Tuple[int, int]]
    depth, in_string, skip_to, string_start = 0, False, -1, -1
    array_depth, element_start, last_key = -1, -1, b""
    for match in _STRUCTURE.finditer(data):
        pos = match.start()
        if pos < skip_to:
            continue  # the byte a backslash escapes
        char = data[pos : pos + 1]
        if in_string:
            if char == b"\\":
                skip_to = pos + 2
            elif char == b'"':
                in_string = False
                if depth == 1 and array_depth < 0:
                    last_key = data[string_start : pos + 1]
            continue
        if char == b'"':
            in_string, string_start = True, pos
        elif char in (b"[", b"{"):
            depth += 1
            if char == b"[" and depth == 2 and array_depth < 0 and last_key == _MESSAGES_KEY:
                array_depth = depth
            elif array_depth > 0 and depth == array_depth + 1 and char == b"{":
                element_start = pos
        else:
            if array_depth > 0 and depth == array_depth + 1 and char == b"}" and element_start >= 0:
                spans.append((element_start, pos + 1))
                element_start = -1
            depth -= 1
            if array_depth > 0 and depth < array_depth:
                return spans
    return spans
