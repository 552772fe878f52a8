"""The transcript index: ``.termsprawl/transcripts/<node>.json`` holds ``{"version": 1,
"path"}`` and a ``"harness"`` unless it is the default one (so every version-1 file stays
valid). A relative path is from the project (a committed demo works wherever cloned).
Reads fail open: anything odd, or a harness not built in, is no entry.
"""

from __future__ import annotations

import os

from termsprawl_context.harness import KNOWN_HARNESSES, UNNAMED
from termsprawl_context.jsonl import parse_object
from termsprawl_context.workspace.files import dump_json, has_version, read_small_file, write_atomic
from termsprawl_context.workspace.ids import is_safe_id
from termsprawl_context.workspace.layout import TRANSCRIPTS_DIR, state_path

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Optional


INDEX_VERSION = 1
HARNESS_KEY = "harness"
# The node's transcript before this one, when the hook moved it to a new session:
# {"path", "harness"?}, so a hand-off can fill its window from the earlier session.
PREVIOUS_KEY = "previous"


def index_file_path(cwd: str, node_id: str) -> str:
    return state_path(cwd, TRANSCRIPTS_DIR, node_id + ".json")


def record_transcript_path(
    cwd: str, node_id: str, transcript_path: str, harness: Optional[str] = None, previous: "Optional[tuple]" = None
) -> bool:
    """Record ``transcript_path`` (written by ``harness``) for ``node_id``; False for an unsafe
    id, an empty path or an I/O failure (a hook must never fail for it)."""
    if not is_safe_id(node_id) or not isinstance(transcript_path, str) or not transcript_path:
        return False
    try:
        entry = dict(version=INDEX_VERSION, **_located(transcript_path, harness))
        if previous and previous[0] and previous[0] != transcript_path:
            entry[PREVIOUS_KEY] = _located(*previous)
        write_atomic(cwd, index_file_path(cwd, node_id), dump_json(entry))
        return True
    except (OSError, ValueError):
        return False


def _located(path: str, harness: Optional[str]) -> dict:
    """``{"path", "harness"?}``: the key left out for the default harness."""
    found = {"path": path}
    if harness and harness != UNNAMED:
        found[HARNESS_KEY] = harness
    return found


def read_index_entry(cwd: str, node_id: str) -> Optional[dict]:
    """The node's index object, or None (unsafe id, absent, junk, wrong version)."""
    data = read_small_file(index_file_path(cwd, node_id)) if is_safe_id(node_id) else None
    entry = parse_object(data) if data is not None else None
    return entry if entry is not None and has_version(entry, INDEX_VERSION) else None


def _source(located: object) -> "Optional[tuple]":
    """``(path as written, harness name)`` of a ``{"path", "harness"?}`` object (absent: the
    default harness), or None for junk or a harness this build lacks."""
    if not isinstance(located, dict):
        return None
    harness, path = located.get(HARNESS_KEY, UNNAMED), located.get("path")
    if not isinstance(harness, str) or harness not in KNOWN_HARNESSES or not isinstance(path, str) or not path:
        return None
    if harness != UNNAMED:  # (no module to load for the harness every entry names by default)
        from termsprawl_context.harness import get

        if get(harness) is None:
            return None
    return path, harness


def read_transcript_source(cwd: str, node_id: str) -> "Optional[tuple]":
    """``(path as written, harness name)`` of the node's entry, or None."""
    return _source(read_index_entry(cwd, node_id))


def read_previous_source(cwd: str, node_id: str) -> "Optional[tuple]":
    """``(path as written, harness name)`` of the node's session before its current one, or None."""
    entry = read_index_entry(cwd, node_id)
    return _source(entry.get(PREVIOUS_KEY)) if entry is not None else None


def read_transcript_path(cwd: str, node_id: str) -> Optional[str]:
    """The recorded path as written, or None (as ``read_transcript_source``)."""
    source = read_transcript_source(cwd, node_id)
    return source[0] if source else None


def resolve_transcript_path(cwd: str, recorded: str) -> str:
    """Where a recorded path points: relative paths are taken from the project dir."""
    return recorded if os.path.isabs(recorded) else os.path.join(cwd, recorded)
