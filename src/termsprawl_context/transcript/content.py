"""What text a message's content holds: the dump's rule and the session title's. No
imports: the dump prints through ``display_text`` and must not load the record model.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, Optional


def display_text(content: Any) -> Optional[str]:
    """A string content as is, else its ``text`` blocks' string texts joined by newlines, or None."""
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
    """The seed's extractTextFromMessage: a string content, else the first non-empty ``text``."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                value = block.get("text")
                if isinstance(value, str) and value:
                    return value
    return ""
