"""Node ids: the one predicate every id passes before it becomes part of a file name."""

# First character alphanumeric, at most 128, no dots, slashes or spaces: an id never names
# a parent directory, a hidden file or a path outside its folder. The pattern is the rule
# as documented; the predicate applies it without ``re``, which the dump would pay for.
SAFE_ID_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}\Z"
SAFE_ID_SHOWN = SAFE_ID_PATTERN[: -len("\\Z")]  # for messages
SAFE_ID_MAX_LENGTH = 128

_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_ID_CHARS = _ALNUM | frozenset("_-")


def shown_id(value: str) -> str:
    """An id as messages show it: quoted, so spaces and odd characters are visible."""
    import json  # only messages pay for json

    return json.dumps(value, ensure_ascii=False)


def is_safe_id(value: object) -> bool:
    """True for a string that may be used as a node id (and so as a file name)."""
    return (
        isinstance(value, str)
        and 0 < len(value) <= SAFE_ID_MAX_LENGTH
        and value[0] in _ALNUM
        and all(c in _ID_CHARS for c in value)
    )
