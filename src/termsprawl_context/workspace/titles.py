"""Node titles from the app's ``.termsprawl/project.json`` (never written here): the app's
whole project (up to 16 MiB), so only the titles are kept, reused while the file's identity
holds. A file too large or dense for the JSON reader's budget gives none (ids shown).
"""

from __future__ import annotations

import os

from termsprawl_context.jsonl import parse_object
from termsprawl_context.workspace.files import read_small_file
from termsprawl_context.workspace.layout import PROJECT_FILE, state_path

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Dict, Optional, Tuple  # noqa: F401 (also used in type comments, which ruff does not read)


# cwd -> (the file's identity when read, node id -> title or None)
_CACHE = {}  # type: Dict[str, Tuple[Optional[tuple], Dict[str, Optional[str]]]]


def titles_of(project: Optional[dict]) -> Dict[str, Optional[str]]:
    """node id -> ``data.title`` (None when no string) of each id's first ``nodes[]`` entry with object ``data``."""
    nodes = project.get("nodes") if project is not None else None
    titles = {}  # type: Dict[str, Optional[str]]
    if not isinstance(nodes, list):
        return titles
    for node in nodes:
        if not isinstance(node, dict):
            continue
        node_id, data = node.get("id"), node.get("data")
        if isinstance(node_id, str) and node_id not in titles and isinstance(data, dict):
            title = data.get("title")
            titles[node_id] = title if isinstance(title, str) else None
    return titles


def node_title(cwd: str, node_id: str) -> Optional[str]:
    """The node's title, or None when the file, the node or the title is missing or malformed."""
    if not isinstance(node_id, str):
        return None
    path = state_path(cwd, PROJECT_FILE)
    try:
        st = os.stat(path)
        identity = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)  # type: Optional[tuple]
    except (OSError, ValueError):
        identity = None
    cached = _CACHE.get(cwd)
    if cached is not None and identity is not None and cached[0] == identity:
        return cached[1].get(node_id)
    data = read_small_file(path)
    project = parse_object(data) if data is not None else None  # pretty-printed over many lines is fine: one value
    del data
    titles = titles_of(project)
    _CACHE[cwd] = (identity, titles)
    return titles.get(node_id)
