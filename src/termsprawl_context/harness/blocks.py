"""Values the record model's shapes take that several CLIs' records give alike: a
millisecond epoch as a transcript time stamp, and a tool call's ``tool_use`` block."""

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any


def iso_ms(value: "Any") -> str:
    """A millisecond epoch as ``model.iso_utc`` writes seconds ("" when it is none)."""
    from termsprawl_context.model import iso_utc

    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1e14:
        return ""
    return iso_utc(int(value) / 1000)


def tool_use(call_id: str, name: str, arguments: "Any") -> dict:
    """The ``tool_use`` block of a call whose arguments are kept when JSON-shaped (else {})."""
    return {
        "type": "tool_use",
        "id": call_id,
        "name": name,
        "input": arguments if isinstance(arguments, (dict, list, str)) else {},
    }
