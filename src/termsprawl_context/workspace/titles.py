"""Node titles, read from the app's ``.termsprawl/project.json`` (never written here)."""

from __future__ import annotations

from termsprawl_context.jsonl import parse_object
from termsprawl_context.workspace.files import PROJECT_FILE, read_small_file, state_path

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Optional


def node_title(cwd: str, node_id: str) -> Optional[str]:
    """``data.title`` of the ``nodes[]`` entry whose ``id`` is ``node_id``, when it is a
    string; None when the file, the node or the title is missing or malformed."""
    data = read_small_file(state_path(cwd, PROJECT_FILE))
    if data is None:
        return None
    project = parse_object(data)  # pretty-printed over many lines is fine: one value
    nodes = project.get("nodes") if project is not None else None
    if not isinstance(nodes, list):
        return None
    for node in nodes:
        if isinstance(node, dict) and node.get("id") == node_id and isinstance(node.get("data"), dict):
            title = node["data"].get("title")
            return title if isinstance(title, str) else None
    return None
