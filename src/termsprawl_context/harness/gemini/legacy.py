"""The head of an older single-JSON Gemini CLI chat (``session-*.json``: one object,
``{"sessionId", "projectHash", "startTime", ..., "messages": [...]}``, written by
``JSON.stringify(conversation, null, 2)``, so its first line is ``{`` alone): what a
listing or a sniff needs, read from the first ``HEAD_BYTES`` only, never the whole file
(one may be many megabytes; its messages come after these keys)."""

import json


HEAD_BYTES = 1 << 16
_KEYS = ("sessionId", "projectHash")
_DECODER = json.JSONDecoder()


def _string_after(text: str, key: str) -> "object":
    """The JSON string value of the first top-level-looking ``"key":``, else None."""
    at = text.find('"%s"' % key)
    if at < 0:
        return None
    rest = text[at + len(key) + 2 :].lstrip()
    if not rest.startswith(":"):
        return None
    try:
        value, _end = _DECODER.raw_decode(rest[1:].lstrip())
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def head_facts(path: str) -> "dict":
    """``{"sessionId", "projectHash"}`` when the file's head opens an object naming both (strings), else {}."""
    text = read_head(path).decode("utf-8", "replace")
    if not text.lstrip().startswith("{"):
        return {}
    messages = text.find('"messages"')
    scope = text if messages < 0 else text[:messages]
    found = {key: _string_after(scope, key) for key in _KEYS}
    return found if all(isinstance(v, str) and v for v in found.values()) else {}


def read_head(path: str) -> bytes:
    """A file's first ``HEAD_BYTES`` (b"" when it cannot be read as a regular file)."""
    from termsprawl_context.jsonl import try_open_regular

    f = try_open_regular(path)
    if f is None:
        return b""
    try:
        with f:
            return f.read(HEAD_BYTES)
    except OSError:
        return b""
