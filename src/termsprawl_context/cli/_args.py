"""The one rule for a count or line an argument gives, for the dump and the commands alike: it imports
nothing at load (the dump's hand-off options use it)."""

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Optional


def positive_int(value: str) -> "Optional[int]":
    """``value`` as a whole number of at least 1 written in ASCII digits (no sign, no other script's), else None."""
    return int(value) if value.isascii() and value.isdigit() and int(value) > 0 else None
