"""Which shell commands print the agent's own record back (the citations' echo rule): a
tool result is citable as tool output only when its command did something in the world,
not print model-written text (git's history, this product's transcript readers).

Read with ``shlex``: every simple command between ``&&`` ``||`` ``;`` ``|`` ``&``, newlines,
parentheses and backticks is judged, through ``sh -c`` / ``eval`` and prefix wrappers
(``env``, ``sudo``...), redirections set apart. A command that will not tokenise is an echo
unless blank. Known holes (the seed's): paths built by ``$(...)`` or variables, git aliases,
interpreters reading the history (``python -c``), ``git branch -v``.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Iterator, List, Optional, Tuple


# git subcommands that print commit messages, notes, tags or stashes (the notes' table).
GIT_HISTORY_SUBCOMMANDS = frozenset(
    "log show reflog cat-file shortlog format-patch whatchanged notes rev-list for-each-ref tag stash "
    "blame describe var show-branch".split()
)
# git's global options that take the next word as their value.
GIT_VALUE_OPTIONS = frozenset("-C -c --git-dir --work-tree --namespace --config-env --super-prefix --exec-path".split())
# sloprail's own tools (the reference's rule): `sr` and every `sr-*`.
SLOPRAIL_BINARY = "sr"
SLOPRAIL_PREFIX = "sr-"

# This product, under every name its artifact is run by, and its commands that print no
# transcript text: every other (the dump, cite, query, any added later) is an echo.
PRODUCT_NAME = "termsprawl-context"
PRODUCT_MODULE = "termsprawl_context"
ARTIFACT_SUFFIX = ".pyz"
PRODUCT_SILENT_COMMANDS = frozenset(
    "locate fresh find init hook links index agents root parent identity belongs relocate --version --help -h".split()
)

SHELLS = frozenset("sh bash zsh dash ksh ash mksh".split())
# Prefix commands that run the rest of their words (option words skipped; those listed take a value).
WRAPPERS = frozenset("env sudo command exec nohup time nice builtin stdbuf timeout xargs doas".split())
_WRAPPER_VALUE_OPTIONS = {
    "env": frozenset("-u --unset -C --chdir -S --split-string".split()),
    "sudo": frozenset("-u --user -g --group -C -D -h -p -r -t -U".split()),
    "nice": frozenset("-n --adjustment".split()),
    "stdbuf": frozenset("-i -o -e".split()),
    "timeout": frozenset("-s --signal -k --kill-after".split()),
    "xargs": frozenset("-I -L -n -P -s -d -a -E".split()),
}
PYTHONS = ("python", "python3", "pypy", "pypy3")

_OPERATOR_CHARS = ";&|()<>\n`"
_MAX_DEPTH = 8  # sh -c nesting followed this deep; deeper is an echo (fail closed)
# A quoted string (maybe unclosed), an escaped character, or a comment with the word
# boundary before it (group 1): the newline after a comment is kept, the next line runs.
_QUOTED_OR_COMMENT = re.compile(r"""'[^']*'?|"(?:\\.|[^"\\])*"?|\\.|(^|[ \t\r;&|()<>\n`])#[^\n]*""", re.S)


def _tokens(command: str) -> List[str]:
    """``command``'s words and operators, without its comments."""
    uncommented = _QUOTED_OR_COMMENT.sub(lambda m: m.group() if m.group(1) is None else m.group(1), command)
    lexer = shlex.shlex(uncommented, posix=True, punctuation_chars=_OPERATOR_CHARS)
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    lexer.commenters = ""
    return list(lexer)


def _simple_commands(tokens: List[str]) -> Iterator[Tuple[List[str], List[str]]]:
    """Each simple command's words and the targets of its read redirections."""
    words, reads = [], []  # type: List[str], List[str]
    pending_redirect = ""
    for token in tokens:
        if token and all(c in _OPERATOR_CHARS for c in token):  # an operator
            if "<" in token or ">" in token:
                # An fd number before the operator (2>file) is not a word of the command.
                if words and words[-1].isdigit():
                    words.pop()
                pending_redirect = token
                continue
            if words or reads:
                yield words, reads
            words, reads = [], []
            pending_redirect = ""
            continue
        if pending_redirect:
            # `<file` reads it; `<<EOF` and `<<<word` are text, `>file` is written.
            if "<" in pending_redirect and "<<" not in pending_redirect and "&" not in pending_redirect:
                reads.append(token)
            pending_redirect = ""
            continue
        words.append(token)
    if words or reads:
        yield words, reads


def names_git_path(word: str) -> bool:
    """Whether a word (or an ``-opt=value``'s value) names a ``.git`` directory or a path in it."""
    if word.startswith("-") and "=" in word:
        word = word.split("=", 1)[1]
    word = word.replace("\\", "/")
    return word == ".git" or word.startswith(".git/") or "/.git/" in word or word.endswith("/.git")


def _binary_name(word: str) -> str:
    return os.path.basename(word.replace("\\", "/"))


def _git_subcommand(args: List[str]) -> str:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in GIT_VALUE_OPTIONS else 1
    return args[i] if i < len(args) else ""


def _skip_assignments(words: List[str]) -> List[str]:
    i = 0
    while i < len(words) and "=" in words[i] and words[i].split("=", 1)[0].replace("_", "a").isalnum():
        i += 1
    return words[i:]


def _unwrap(words: List[str]) -> List[str]:
    """The words of the command a prefix wrapper (env, sudo, nohup, ...) runs."""
    for _ in range(_MAX_DEPTH):
        words = _skip_assignments(words)
        name = _binary_name(words[0]) if words else ""
        if name not in WRAPPERS:
            return words
        value_options = _WRAPPER_VALUE_OPTIONS.get(name, frozenset())
        i = 1
        while i < len(words) and words[i].startswith("-"):
            if words[i] == "--":
                i += 1
                break
            i += 2 if words[i] in value_options else 1
        if name == "timeout" and i < len(words):
            i += 1  # the duration
        words = words[i:]
    return words


def _shell_script(args: List[str]) -> Optional[str]:
    """The script of ``sh -c SCRIPT`` (None when the shell is not given ``-c``)."""
    for i, arg in enumerate(args):
        if arg.startswith("-") and not arg.startswith("--") and "c" in arg[1:]:
            return args[i + 1] if i + 1 < len(args) else None
        if not arg.startswith(("-", "+")):
            return None  # `sh script.sh`: a file we cannot see into
    return None


def _product_subcommand(words: List[str]) -> Optional[str]:
    """The subcommand these words run this product with ("" for the dump), or None."""
    name = _binary_name(words[0])
    if name == PRODUCT_NAME or name.endswith(ARTIFACT_SUFFIX):
        return words[1] if len(words) > 1 else ""
    if name.startswith(PYTHONS):
        rest = words[1:]
        while rest and rest[0].startswith("-") and rest[0] != "-m":
            rest = rest[1:]
        if len(rest) >= 2 and rest[0] == "-m" and rest[1].split(".")[0] == PRODUCT_MODULE:
            return rest[2] if len(rest) > 2 else ""
        if rest and (rest[0].endswith(ARTIFACT_SUFFIX) or _binary_name(rest[0]) == PRODUCT_NAME):
            return rest[1] if len(rest) > 1 else ""
    return None


def _simple_echoes(words: List[str], reads: List[str], depth: int) -> bool:
    if any(names_git_path(word) for word in words + reads):
        return True
    words = _unwrap(words)
    if not words:
        return False
    name = _binary_name(words[0])
    if name in SHELLS:
        script = _shell_script(words[1:])
        return script is not None and _echoes(script, depth + 1)
    if name == "eval":
        return _echoes(" ".join(words[1:]), depth + 1)
    if name == SLOPRAIL_BINARY or name.startswith(SLOPRAIL_PREFIX):
        return True
    if name == "git":
        return _git_subcommand(words[1:]) in GIT_HISTORY_SUBCOMMANDS
    subcommand = _product_subcommand(words)
    if subcommand is not None:
        return subcommand not in PRODUCT_SILENT_COMMANDS  # "" (the dump) included
    return False


def _echoes(command: str, depth: int) -> bool:
    if depth > _MAX_DEPTH:
        return True
    try:
        tokens = _tokens(command)
    except ValueError:  # an unclosed quote or escape: unreadable, so not trusted
        return bool(command.strip())
    return any(_simple_echoes(words, reads, depth) for words, reads in _simple_commands(tokens))


def echoes_record(command: str) -> bool:
    """Whether the shell ``command`` prints agent-written text back: git's history or any
    ``.git`` path, sloprail's ``sr``/``sr-*``, this product's transcript readers."""
    if not isinstance(command, str):
        return True
    return _echoes(command, 0)
