"""Shell command lines read for the paths they name (the citation reference's hand
tokeniser): which words of a command may name a file an agent read."""

from __future__ import annotations

import re
from typing import List

# The reference's words: quotes group (no escapes inside, an unclosed one runs to the end),
# ``\x`` is x, a lone last ``\`` is itself; ``#`` opening a word comments to its line's end.
_PART = r"""'[^']*'?|"[^"]*"?|\\.|\\\Z|[^ \t\n'"\\#]"""
_WORD_OR_COMMENT = re.compile(r"(?:%s)(?:%s|#)*|#[^\n]*" % (_PART, _PART), re.S)
_QUOTE_OR_ESCAPE = re.compile(r"""'([^']*)'?|"([^"]*)"?|\\(.)""", re.S)


def command_paths(command: str) -> List[str]:
    """The words of a shell command that look like paths."""
    if not any(mark in command for mark in ("/", ".jsonl", ".output")):
        return []
    paths = []
    for w in _WORD_OR_COMMENT.findall(command):
        if w.startswith("#"):
            continue
        w = _QUOTE_OR_ESCAPE.sub(lambda m: "".join(part for part in m.groups() if part), w)
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
