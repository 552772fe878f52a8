"""What ``init`` reports: one ``Step`` per file it handles, with its outcome."""

from typing import NamedTuple


# Step outcomes, as printed.
WRITTEN = "written"
UNCHANGED = "unchanged"
KEPT = "kept"  # the user edited it; left alone
FAILED = "failed"
SKIPPED = "skipped"
OUTCOMES = (WRITTEN, UNCHANGED, KEPT, FAILED, SKIPPED)


class Step(NamedTuple):
    what: str  # "command", "discovery", "memory", "gitignore", "hook"
    path: str  # relative to the project
    outcome: str  # one of OUTCOMES
    detail: str = ""


def failed(what: str, path: str, error: Exception) -> Step:
    """The step of a write that raised ``error``: its OS reason, else its message."""
    return Step(what, path, FAILED, getattr(error, "strerror", None) or str(error))
