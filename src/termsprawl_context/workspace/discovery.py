"""Discovery markers: how an agent whose cwd is the project learns the command exists.

Two files, both best-effort and rewritten only when their content would change: a
managed block in ``.termsprawl/AGENTS.md`` (user prose around it is kept) and a skill
file under ``.claude/skills/termsprawl-context/``. The texts are the context layer's.
"""

import os

from termsprawl_context.workspace.files import STATE_DIR, read_managed_file, write_atomic

MARKER_OPEN = "<!-- termsprawl:context-links -->"
MARKER_CLOSE = "<!-- /termsprawl:context-links -->"
COMMAND_LINE = '.termsprawl/bin/termsprawl-context --cwd . --self "$TERMSPRAWL_NODE_ID"'

MANAGED_BLOCK = "\n".join(
    [
        MARKER_OPEN,
        "Linked agent context: run",
        "`%s`" % COMMAND_LINE,
        "to print peer transcripts. Only read what that command prints.",
        MARKER_CLOSE,
    ]
)

SKILL_BODY = (
    "\n".join(
        [
            "---",
            "name: termsprawl-context",
            "description: When you need another termsprawl agent's conversation.",
            "---",
            "# termsprawl context",
            "",
            "Run `%s`" % COMMAND_LINE,
            "to print the recent turns of agents linked to this node. Only read what",
            "that command prints.",
        ]
    )
    + "\n"
)

AGENTS_FILE = os.path.join(STATE_DIR, "AGENTS.md")
SKILL_FILE = os.path.join(".claude", "skills", "termsprawl-context", "SKILL.md")

# JavaScript's String.prototype.trim set (WhiteSpace and LineTerminator), which the
# context layer trims with; Python's str.strip differs at the edges (U+FEFF, U+001C..F).
_JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def upsert_managed_agents_block(content: str) -> str:
    """``content`` with the managed block inserted or refreshed; idempotent.

    The block is the first open marker up to the first close marker after it; text
    before it (trailing whitespace trimmed) and after it (trimmed) is kept, the parts
    joined by a blank line, the whole ending in one newline."""
    start = content.find(MARKER_OPEN)
    end = content.find(MARKER_CLOSE)
    if start >= 0 and end > start:
        before = content[:start].rstrip(_JS_WHITESPACE)
        after = content[end + len(MARKER_CLOSE):].strip(_JS_WHITESPACE)
    else:
        before, after = content.rstrip(_JS_WHITESPACE), ""
    return "\n\n".join(part for part in (before, MANAGED_BLOCK, after) if part) + "\n"


def _refresh(cwd: str, relative: str, render) -> bool:
    """Rewrite one marker file if its content changes; True when written. Best-effort:
    a file that cannot be read whole (too large, a FIFO, a symlink) is left alone, and
    so is anything the write layer refuses (outside the project, the home's .claude/)."""
    path = os.path.join(cwd, relative)
    try:
        data = read_managed_file(path)
        # surrogateescape keeps a user's undecodable bytes exactly as they were.
        current = data.decode("utf-8", "surrogateescape") if data is not None else ""
        wanted = render(current)
        if data is not None and wanted == current:
            return False
        write_atomic(cwd, path, wanted.encode("utf-8", "surrogateescape"))
        return True
    except (OSError, ValueError):
        return False


def ensure_context_discovery(cwd: str) -> None:
    """Plant or refresh both markers under ``cwd``; never raises, never writes elsewhere."""
    if not cwd:
        return
    _refresh(cwd, AGENTS_FILE, upsert_managed_agents_block)
    _refresh(cwd, SKILL_FILE, lambda _current: SKILL_BODY)
