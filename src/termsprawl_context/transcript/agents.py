"""Sub-agent ids named by a transcript entry, and the rule an id must pass.

An agent id becomes part of a file name (``agent-<id>.jsonl``), so only ids of safe
characters are ever returned; anything else is dropped without a word, as the seed does.
"""

import re
from typing import Any, List, Mapping

# Every observed format: pure hex ("a0074ac", 7-17+ chars), "acompact-2aaa241e456ebc94",
# "aprompt_suggestion-ba74af", legacy 8-char hex.
MIN_AGENT_ID_LENGTH = 6
_AGENT_ID = re.compile(r"[A-Za-z0-9_-]+")


def is_valid_agent_id(value: Any) -> bool:
    """True for a string of at least 6 characters, all of ``[A-Za-z0-9_-]``."""
    return isinstance(value, str) and len(value) >= MIN_AGENT_ID_LENGTH and _AGENT_ID.fullmatch(value) is not None


def _agent_id_of(holder: Any) -> str:
    """``holder.toolUseResult.agentId`` when every step is the right type, else ""."""
    if not isinstance(holder, dict):
        return ""
    result = holder.get("toolUseResult")
    if not isinstance(result, dict):
        return ""
    agent_id = result.get("agentId")
    return agent_id if isinstance(agent_id, str) else ""


def extract_agent_ids(entry: Mapping[str, Any]) -> List[str]:
    """The valid agent ids a ``user`` entry carries, in the seed's order: the root
    ``toolUseResult.agentId`` first, then each ``tool_result`` block whose ``content`` is
    an object holding ``toolUseResult.agentId``. Not deduplicated; [] for other entries.
    The format depends on the Claude Code version, so both places are always checked."""
    if not isinstance(entry, dict) or entry.get("type") != "user":
        return []
    found = []
    root = _agent_id_of(entry)
    if is_valid_agent_id(root):
        found.append(root)
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, dict) or block.get("type") != "tool_result":
                continue
            nested = _agent_id_of(block.get("content"))
            if is_valid_agent_id(nested):
                found.append(nested)
    return found
