"""The registry of the agent harnesses whose records we read, one package each binding a
``base.Harness`` to ``HARNESS`` (every fact of a CLI lives there). A record naming no harness
is ``UNNAMED``'s; ``native()``'s records are the model's own shape. Lazy, for the dump's path:
``get(name)`` imports the package on first use; one this build lacks is None, not an ImportError.
"""

__all__ = [
    "KNOWN_HARNESSES",
    "UNNAMED",
    "available",
    "chosen",
    "for_path",
    "for_payload",
    "get",
    "native",
    "require_native_records",
]


CLAUDE_CODE = "claude-code"
CODEX_CLI = "codex-cli"
# The harness of a record that names none: every file read before harnesses were named.
UNNAMED = CLAUDE_CODE
# name -> package under harness/, in the order listings and ``for_payload`` try them (``UNNAMED``'s first).
_MODULES = (
    (CLAUDE_CODE, "claude"),
    (CODEX_CLI, "codex"),
    ("gemini-cli", "gemini"),
    ("copilot-cli", "copilot"),
    ("pi", "pi"),
    ("opencode", "opencode"),
    ("cline", "cline"),
    ("qwen-code", "qwen"),
    ("factory-droid", "droid"),
    ("mistral-vibe", "vibe"),
)
KNOWN_HARNESSES = tuple(name for name, _module in _MODULES)

_loaded = {}  # type: dict


def get(name):
    """The ``Harness`` named ``name`` (``None``: ``UNNAMED``'s), or None when this build reads none such."""
    if name is None:
        name = UNNAMED
    if name not in _loaded:
        import importlib

        module = dict(_MODULES).get(name)
        try:
            found = importlib.import_module("termsprawl_context.harness." + module) if module else None
        except ImportError:
            found = None
        _loaded[name] = getattr(found, "HARNESS", None)
    return _loaded[name]


def native():
    """The harness whose records are the model's own shape (``native_records``): citations', skills' and the seed's."""
    return get(CLAUDE_CODE)


def available():
    """Every harness this build can read, in registry order."""
    return [h for h in (get(name) for name in KNOWN_HARNESSES) if h is not None]


def for_path(path, environ=None):
    """The harness whose store holds ``path``, else whose record its first object is, else ``UNNAMED``'s."""
    others = [harness for harness in available() if harness.name != UNNAMED]
    for harness in others:
        if harness.owns_path(path, environ):
            return harness
    from termsprawl_context.harness.base import head_record

    first = head_record(path, lambda record: True)
    for harness in others:
        if first and harness.sniff(first):
            return harness
    for harness in others:
        sniff_file = getattr(harness, "sniff_file", None)
        if sniff_file is not None and sniff_file(path):
            return harness  # a file that is one JSON object (no first line to parse)
    return get(UNNAMED)


def for_payload(payload, environ=None):
    """The harness a hook payload came from, else ``UNNAMED``'s (its checks refuse it); imported in
    registry order, so ``UNNAMED``'s payloads, the common case, import no other."""
    for name in KNOWN_HARNESSES:
        harness = get(name)
        if harness is not None and harness.is_hook_payload(payload, environ):
            return harness
    return get(UNNAMED)


def chosen(name, include_native=True):
    """The providers ``--harness NAME`` chooses (None or "all": every one; ``include_native`` False
    leaves out ``native_records`` ones, whose store the seed's readers walk); NotFound for an unknown one."""
    found = [get(name)] if name and name != "all" else available()
    if None in found:
        from termsprawl_context.errors import NotFound

        raise NotFound("unknown harness %s (known: %s)" % (name, ", ".join(h.name for h in available())))
    return [h for h in found if include_native or not h.native_records]


def require_native_records(path, command):
    """``errors.NotRecorded`` for a command reading the model's own record shape (citations, uuid
    ancestry, background-agent signals) on a transcript of another shape: no answer from a misread."""
    import os

    found = for_path(os.path.abspath(path)) if path else None
    if found is not None and not found.native_records:
        from termsprawl_context.errors import NotRecorded

        raise NotRecorded(command, found.label, path)
