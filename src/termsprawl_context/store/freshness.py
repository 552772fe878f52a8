"""The mid-write guard: a transcript modified less than ``FRESHNESS_SECONDS`` ago is
probably still being written (its last line may be torn), so callers stop (exit 9) unless
they read mid-write on purpose (``--allow-in-progress``, the PreCompact capture path):
then they get a note and go on (exit 0).
"""

import os
import stat
import time
from typing import Any, Optional, Tuple

from termsprawl_context.errors import EXIT_FAILURE, EXIT_OK, EXIT_TOO_FRESH, NotFound


FRESHNESS_SECONDS = 60

TOO_FRESH = "WARNING \u2014 {path} was modified {age}s ago (< {limit} s threshold); " "skipping in-progress transcript."
PROCEEDING = (
    "NOTE \u2014 {path} modified {age}s ago (< {limit} s); proceeding anyway "
    "(--allow-in-progress, PreCompact capture path)."
)


def freshness_age(path: Any, now: Optional[float] = None) -> int:
    """Whole seconds since ``path`` was modified, as ``date +%s`` minus ``stat -c %Y``
    (negative for a future mtime); ``NotFound`` unless it is (a link to) a regular file."""
    text = os.fsdecode(path) if isinstance(path, (bytes, os.PathLike)) else str(path)
    try:
        st = os.stat(path)
    except (OSError, ValueError, TypeError):
        raise NotFound("file not found: %s" % (text,)) from None
    if not stat.S_ISREG(st.st_mode):
        raise NotFound("file not found: %s" % (text,))
    mtime = st.st_mtime_ns // 1000000000
    current = int(time.time() // 1) if now is None else int(now // 1)
    return current - mtime


def check_fresh(path: Any, allow_in_progress: bool = False, now: Optional[float] = None) -> Tuple[int, Optional[str]]:
    """(exit code, message for stderr or None): 0 when at least a minute old, else 9 and a
    warning (0 and a note with ``allow_in_progress``); a future mtime is younger, as the
    seed's ``AGE < 60`` says."""
    text = os.fsdecode(path) if isinstance(path, (bytes, os.PathLike)) else str(path)
    try:
        age = freshness_age(path, now)
    except NotFound as refusal:
        return EXIT_FAILURE, refusal.message
    if age >= FRESHNESS_SECONDS:
        return EXIT_OK, None
    template = PROCEEDING if allow_in_progress else TOO_FRESH
    message = template.format(path=text, age=age, limit=FRESHNESS_SECONDS)
    return (EXIT_OK if allow_in_progress else EXIT_TOO_FRESH), message
