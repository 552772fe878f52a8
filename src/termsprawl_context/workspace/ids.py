"""Node ids: the one predicate every id passes before it becomes part of a file name."""

import re
from typing import Any

# First character alphanumeric, at most 128, no dots, slashes or spaces: an id can
# never name a parent directory, a hidden file or a path outside the folder it is
# joined into. \Z, not $, so a trailing newline is not let through.
SAFE_ID_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}\Z"
_SAFE_ID = re.compile(SAFE_ID_PATTERN)
# The rule as a person reads it, for messages.
SAFE_ID_SHOWN = SAFE_ID_PATTERN[: -len("\\Z")]


def is_safe_id(value: Any) -> bool:
    """True for a string that may be used as a node id (and so as a file name)."""
    return isinstance(value, str) and _SAFE_ID.match(value) is not None
