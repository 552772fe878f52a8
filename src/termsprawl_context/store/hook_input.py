"""A hook payload (JSON on stdin), read with a size bound and validated: its session id
and transcript path become file names and files to read, so the id must be safe
characters and the path absolute, free of ``..`` and inside the store (symlinks resolved).
Every failure is a named refusal with the seed's message, never a traceback.
"""

import os
import re
from collections import namedtuple
from typing import Any, BinaryIO, Dict, List

from termsprawl_context.errors import HookInputError
from termsprawl_context.jsonl import json_type_name, loads_strict


# A payload larger than this is refused, not cut. A real one is a few hundred bytes (a
# session id, paths, an event name); no harness sends a MiB. Parsed whole, a payload at
# the limit costs at most about 30 MiB however dense its values (under the 64 MB bound).
HOOK_INPUT_MAX_BYTES = 1 << 20

# Session ids become file names: letters, digits, hyphen, underscore only. fullmatch,
# because Python's "$" would also accept a trailing newline.
_SAFE_SESSION_ID = re.compile(r"[a-zA-Z0-9\-_]+")

# The payload fields read as strings; any other JSON type there is refused.
_STRING_FIELDS = ("session_id", "transcript_path", "cwd", "hook_event_name", "source")


HookInput = namedtuple("HookInput", "session_id transcript_path cwd hook_event_name source raw")


def read_payload_bytes(stream: BinaryIO) -> bytes:
    """All of ``stream`` when at most ``HOOK_INPUT_MAX_BYTES``, in one read of one byte more
    (a buffered stream, as stdin is, reads until it has them or the stream ends)."""
    limit = HOOK_INPUT_MAX_BYTES
    try:
        data = stream.read(limit + 1)
    except (OSError, ValueError) as exc:
        raise HookInputError("failed to read hook input: %s" % exc) from None
    if len(data) > limit:
        raise HookInputError("failed to read hook input: larger than %d bytes (%d MiB)" % (limit, limit >> 20))
    return data


def parse_payload(data: bytes) -> Dict[str, Any]:
    """The payload as a dict whose string fields are strings or null."""
    try:
        # Invalid UTF-8 costs a character (U+FFFD), not the payload, as in the seed.
        value = loads_strict(data.decode("utf-8", "replace"))
    except ValueError as exc:
        raise HookInputError("failed to parse hook input: %s" % exc) from None
    except RecursionError:
        raise HookInputError("failed to parse hook input: JSON nested too deeply") from None
    if not isinstance(value, dict):
        raise HookInputError("failed to parse hook input: expected a JSON object, got %s" % json_type_name(value))
    for key in _STRING_FIELDS:
        field = value.get(key)
        if field is not None and not isinstance(field, str):
            raise HookInputError(
                "failed to parse hook input: %s must be a string, not %s" % (key, json_type_name(field))
            )
    return value


def _clean(path: str) -> str:
    cleaned = os.path.normpath(path)
    if cleaned.startswith("//"):
        cleaned = "/" + cleaned.lstrip("/")  # POSIX keeps "//"; Go's Clean does not
    return cleaned


def _real(path: str) -> str:
    """``path`` with its existing parts' symlinks resolved, the rest as written (a fresh
    session's folder may not exist yet): a missing file is judged where it lands."""
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return _clean(path)


def checked_hook_input(payload: Dict[str, Any], roots: List[str], where: str) -> HookInput:
    """A parsed payload's session id and transcript path checked, in the seed's order: the
    path must be absolute, free of ``..`` and inside one of ``roots`` (symlinks resolved on
    both sides), named ``where`` (``Harness.hook_roots``)."""
    session_id = payload.get("session_id") or ""
    if not session_id:
        raise HookInputError("session_id is required")
    if _SAFE_SESSION_ID.fullmatch(session_id) is None:
        raise HookInputError("invalid session_id: must contain only alphanumeric, hyphen, or underscore characters")
    path = payload.get("transcript_path") or ""
    if not path:
        raise HookInputError("transcript_path is required")
    if not os.path.isabs(path):
        raise HookInputError("invalid transcript_path: must be an absolute path")
    # Checked on the path as given: after cleaning, an absolute path never holds "..",
    # so the seed's check could not fire; a payload that spells one out is refused.
    if ".." in re.split(r"[/\\]" if os.sep == "\\" else "/", path):
        raise HookInputError("invalid transcript_path: must not contain '..' components")
    if "\0" in path:
        raise HookInputError("invalid transcript_path: must not contain NUL characters")
    resolved = _real(_clean(path))
    prefixes = [root if root.endswith(os.sep) else root + os.sep for root in (_real(_clean(r)) for r in roots if r)]
    if not any(resolved.startswith(prefix) for prefix in prefixes):
        raise HookInputError("invalid transcript_path: must be under %s" % where)
    cwd, event, source = (payload.get(key) or "" for key in ("cwd", "hook_event_name", "source"))
    return HookInput(session_id, path, cwd, event, source, payload)
