"""Shell command lines read for the paths they name (the citation reference's hand
tokeniser): which words of a command may name a file an agent read."""

from __future__ import annotations

from typing import List


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
