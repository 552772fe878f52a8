"""Mistral Vibe 3.0.3's unified session store, read into ``Entry`` values.

``~/.vibe/logs/session/unified/<session id>/`` (``$VIBE_HOME`` moves ``~/.vibe``) holds
``meta.json`` (``environment.working_directory``, ``title``), ``CURRENT`` (the live
generation: ``{"generation", "session_id", "store_format":
"mistral.vibe.unified-session-store/v1", "store_format_minor": 10}``),
``generations/<gen>/manifest.json`` (``projection_state.chunks``: content-addressed
``chunks/<sha256>.json`` files, each a JSON list of projection entries;
``recovery_journal_segment.path``: the journal since that snapshot) and
``journal/<seq>.jsonl`` (hash-chained records; ``projection_delta`` ones carry
``payload.delta``: ``{"op": "append_entry", "entry"}`` and envelope ops). Only the segment
after the latest snapshot is kept, so the conversation is the projection chunks, then the
journal's appended entries (the last copy of an id wins).

Projection entries: ``{"type":"message","role":"user","source":"turn_start"}`` is a typed
prompt (``source`` anything else, e.g. an injected turn: harness text); role ``assistant``
the model's text; ``{"type":"effect","detail":{"kind":"tool","toolName","input"},
"state":{"outputText"}}`` a tool call and its result (a ``post_tool`` hook's added context
is appended to that output); ``notice`` entries (hook runs, warnings): system.

Every file is read whole but bounded: one chunk, manifest or journal line at most
``jsonl.MAX_LINE_BYTES`` and the line budget's decode cost; an unreadable one is skipped.
"""

from __future__ import annotations

import json
import os

from termsprawl_context.harness.blocks import as_str, iso_ms, new_entry

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Iterator, List


META_FILE = "meta.json"
CURRENT_FILE = "CURRENT"
GENERATIONS_DIR, CHUNKS_DIR = "generations", "chunks"
MANIFEST_FILE = "manifest.json"
STORE_FORMAT = "mistral.vibe.unified-session-store/v1"
SOURCE_TYPED = "turn_start"
OP_APPEND = "append_entry"
KIND_DELTA = "projection_delta"
_NAME_CHARS = frozenset("0123456789abcdefABCDEF")


def read_json(path: str) -> "object":
    """The JSON value of a small store file, or None (missing, not regular, too long or
    too costly to decode, junk)."""
    from termsprawl_context.jsonl import read_within_bound, readable, try_open_regular

    f = try_open_regular(path)
    if f is None:
        return None
    try:
        with f:
            data = read_within_bound(f)
    except OSError:
        return None
    if not data or not readable(data):
        return None
    try:
        return json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None


def _safe_name(name: object, digits_only: bool = False) -> str:
    """A store file name we build a path from: no separators, no dots' tricks."""
    if not isinstance(name, str) or not name or name.startswith(".") or "/" in name or "\\" in name:
        return ""
    if digits_only and not set(name) <= _NAME_CHARS:
        return ""
    return name


def _sources(folder: str) -> "tuple":
    """``(chunk paths, journal path)`` of the live generation ([], "" when unreadable)."""
    current = read_json(os.path.join(folder, CURRENT_FILE))
    if not isinstance(current, dict) or current.get("store_format") != STORE_FORMAT:
        return [], ""
    generation = _safe_name(current.get("generation"), digits_only=True)
    manifest = read_json(os.path.join(folder, GENERATIONS_DIR, generation, MANIFEST_FILE)) if generation else None
    if not isinstance(manifest, dict):
        return [], ""
    projection = manifest.get("projection_state")
    chunks = projection.get("chunks") if isinstance(projection, dict) else None
    names = [_safe_name(c, digits_only=True) for c in chunks] if isinstance(chunks, list) else []
    paths = [os.path.join(folder, CHUNKS_DIR, n + ".json") for n in names if n]
    segment = manifest.get("recovery_journal_segment")
    relative = segment.get("path") if isinstance(segment, dict) else None
    journal = ""
    if isinstance(relative, str) and relative.startswith("journal/") and ".." not in relative:
        journal = os.path.join(folder, *relative.split("/"))
    return paths, journal


def _journal_entries(path: str) -> "List[dict]":
    from termsprawl_context.jsonl import iter_lines, parse_object, try_open_regular

    found = []  # type: List[dict]
    f = try_open_regular(path) if path else None
    if f is None:
        return found
    try:
        with f:
            for line in iter_lines(f):
                record = parse_object(line.raw)
                payload = record.get("payload") if record is not None and record.get("type") == KIND_DELTA else None
                delta = payload.get("delta") if isinstance(payload, dict) else None
                for op in delta if isinstance(delta, list) else ():
                    if isinstance(op, dict) and op.get("op") == OP_APPEND and isinstance(op.get("entry"), dict):
                        found.append(op["entry"])
    except OSError:
        pass
    return found


def session_entries(folder: str) -> "Iterator[dict]":
    """The projection entries of the session in ``folder``, oldest first, each id once
    (its last copy, in the place it first took)."""
    chunks, journal = _sources(folder)
    later = {}  # type: dict
    order = []  # type: List[dict]
    for entry in _journal_entries(journal):
        key = entry.get("id")
        if isinstance(key, str) and key in later:
            later[key].update(entry)
            continue
        if isinstance(key, str):
            later[key] = entry
        order.append(entry)
    seen = set()
    for path in chunks:
        value = read_json(path)
        for entry in value if isinstance(value, list) else ():
            if not isinstance(entry, dict):
                continue
            key = entry.get("id")
            if isinstance(key, str):
                seen.add(key)
            yield later.get(key, entry) if isinstance(key, str) else entry
    for entry in order:
        key = entry.get("id")
        if not (isinstance(key, str) and key in seen):
            yield entry


def _texts(content: object) -> list:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    found = []
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and isinstance(block.get("text"), str) and block["text"]:
            found.append({"type": "text", "text": block["text"]})
    return found


def projection_entries(entry: dict, session: str, cwd: str, number: int) -> list:
    """The ``Entry`` values of one projection entry (``number`` its place, as ``line``)."""
    kind = entry.get("type")
    uuid = as_str(entry.get("id"))
    fields = {"uuid": uuid, "session_id": session, "cwd": cwd, "timestamp": iso_ms(entry.get("createdAt"))}
    if kind == "message":
        role = entry.get("role")
        blocks = _texts(entry.get("content"))
        if role == "assistant":
            return [new_entry("assistant", blocks, entry, number, -1, **fields)]
        if role == "user":
            typed = entry.get("source") == SOURCE_TYPED
            return [new_entry("user", blocks, entry, number, -1, is_meta=not typed, **fields)]
        return [new_entry("system", blocks, entry, number, -1, **fields)]
    if kind == "effect":
        detail, state = entry.get("detail"), entry.get("state")
        if not isinstance(detail, dict) or detail.get("kind") != "tool":
            return [new_entry("system", [], entry, number, -1, **fields)]
        call = {"type": "tool_use", "id": uuid, "name": as_str(detail.get("toolName")), "input": detail.get("input")}
        output = state.get("outputText") if isinstance(state, dict) else None
        failed = isinstance(state, dict) and state.get("status") not in ("completed", None)
        result = {"type": "tool_result", "tool_use_id": uuid, "content": output or "", "is_error": failed}
        return [
            new_entry("assistant", [call], entry, number, -1, **fields),
            new_entry("user", [result], entry, number, -1, **fields),
        ]
    return [new_entry("system", [], entry, number, -1, **fields)]
