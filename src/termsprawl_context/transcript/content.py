"""What text a message's content holds: the content-to-text rules, each once.

- ``display_text``: the dump's rule (text blocks only, tool calls, results and thinking
  never print);
- ``first_content_text``: the session title's rule (the first non-empty text);
- ``text_with_thinking``: the parse seam's rule (the seed's ``msg_text``, thinking kept).

They live here, with no imports at all, because the dump prints through
``display_text`` on every turn an agent takes and must not pay for the whole record
model to do it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, Optional


def display_text(content: Any) -> Optional[str]:
    """The dump's text rule (the context layer's, exact): a string content as is (even
    empty), else the ``text`` blocks' string texts joined by newlines; None when there
    are none. Bare strings in a list do not count here."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts = [
        block["text"]
        for block in content
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
    ]
    return "\n".join(texts) if texts else None


def text_with_thinking(content: Any) -> str:
    """The parse seam's text rule (the seed's ``msg_text``): a message's content as one
    string, KEEPING thinking blocks.

    A string is returned as is; in a list, text blocks and thinking blocks (wrapped as
    ``<thinking>\\n...\\n</thinking>``) are joined by newlines and every other block is
    skipped; anything else is "". The dump drops thinking; this seam keeps it because
    hand-off extraction needs the rejected hypotheses.
    """
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


def first_content_text(content: Any) -> str:
    """The session-title rule's text of a message's content (the seed's
    extractTextFromMessage): a string content as is, else the first non-empty string
    ``text`` of a ``text`` block; "" otherwise."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                value = block.get("text")
                if isinstance(value, str) and value:
                    return value
    return ""
