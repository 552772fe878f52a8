"""The agent harnesses whose records we read, one module each, and their registry.

Every fact that belongs to a harness (where it keeps its store, how it names folders,
the field names of its records, the text it injects into a conversation, its hook
payload and settings file) lives in that harness's module; the layers ask it, through
the interface in ``harness/base.py``: each module binds one ``base.Harness`` subclass
instance to ``HARNESS``. A record that names no harness (an index entry without
``"harness"``) is ``UNNAMED``'s; ``native()`` is the one whose records are the model's own shape.

The registry is lazy (the dump's path imports nothing it does not need): ``get(name)``
imports the module on first use, and a module this build lacks reads as "no such
harness" (None), never an ImportError.
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
# name -> module under termsprawl_context.harness, in the order listings and ``for_payload`` try
# them (``UNNAMED``'s first).
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
    """The ``Harness`` named ``name`` (``None``: ``UNNAMED``), or None when the name is no
    harness this build can read."""
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
    """The harness whose records are the record model's own shape line for line
    (``native_records``): the one citations, skills and the seed's readers are written for."""
    return get(CLAUDE_CODE)


def available():
    """Every harness this build can read, in registry order."""
    return [h for h in (get(name) for name in KNOWN_HARNESSES) if h is not None]


def for_path(path, environ=None):
    """The harness whose store holds ``path``; else the one whose records the file's first
    parsed object is; else ``UNNAMED``'s."""
    harnesses = available()
    for harness in harnesses:
        if harness.name != UNNAMED and harness.owns_path(path, environ):
            return harness
    from termsprawl_context.harness.base import head_record

    first = head_record(path, lambda record: True)
    if first:
        for harness in harnesses:
            if harness.name != UNNAMED and harness.sniff(first):
                return harness
    for harness in harnesses:
        sniff_file = getattr(harness, "sniff_file", None)
        if sniff_file is not None and sniff_file(path):
            return harness  # a file that is one JSON object (no first line to parse)
    return get(UNNAMED)


def for_payload(payload, environ=None):
    """The harness a hook payload came from (its transcript path's store), ``UNNAMED``'s
    when none claims it (so its own checks give the refusal). Each is imported only when
    asked, in registry order: ``UNNAMED``'s payloads, the common case, import no other."""
    for name in KNOWN_HARNESSES:
        harness = get(name)
        if harness is not None and harness.is_hook_payload(payload, environ):
            return harness
    return get(UNNAMED)


def chosen(name, include_native=True):
    """The providers ``--harness NAME`` chooses (None or "all": every one this build
    reads; ``include_native`` False leaves out those whose store the seed's readers walk,
    ``native_records``); a NotFound names an unknown one."""
    if name and name != "all":
        found = get(name)
        if found is None:
            from termsprawl_context.errors import NotFound

            raise NotFound("unknown harness %s (known: %s)" % (name, ", ".join(h.name for h in available())))
        return [found] if include_native or not found.native_records else []
    return [h for h in available() if include_native or not h.native_records]


def require_native_records(path, command):
    """Refuse, by name (``errors.NotRecorded``), a command whose rules read the model's own
    record shape line for line (citations, uuids and their ancestry, background-agent
    signals) on a transcript whose provider writes another shape: a grounded answer must
    not come from records read as a shape they are not."""
    import os

    found = for_path(os.path.abspath(path)) if path else None
    if found is not None and not found.native_records:
        from termsprawl_context.errors import NotRecorded

        raise NotRecorded(command, found.label, path)
