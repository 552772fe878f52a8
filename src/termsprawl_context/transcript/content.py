"""What text a message's content holds: the dump's rule (``display_text``) and the session
title's (``first_content_text``). No imports: the dump prints through ``display_text`` on
every turn an agent takes and must not pay for the whole record model to do it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, Optional


def display_text(content: Any) -> Optional[str]:
    """A string content as is (even empty), else its ``text`` blocks' string texts joined by
    newlines (bare strings do not count); None when there are none."""
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


def first_content_text(content: Any) -> str:
    """The seed's extractTextFromMessage: a string content as is, else the first non-empty
    string ``text`` of a ``text`` block, else ""."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                value = block.get("text")
                if isinstance(value, str) and value:
                    return value
    return ""
