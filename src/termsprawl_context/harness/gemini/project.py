"""What ``init --gemini-hook`` adds to ``.gemini/settings.json`` besides the hook, for Gemini CLI 0.61 (read
in its bundle, run in tests/e2e/), each only where the file says nothing at that key (what the person
wrote is kept, and reported):

- the read as a tool that asks nothing: ``mcpServers.termsprawl`` (the command's one-tool ``mcp``
  server), ``trust: true``. 0.61 asks before every ``run_shell_command`` in its TUI and offers no shell
  tool headless by default; a prefix allow rule would also admit ``... links add``; its policy engine's
  project tier is off (``disableWorkspacePolicies`` in ``config/policy.ts``; ``policyPaths`` would
  replace the person's ``~/.gemini/policies``). A trusted MCP server's tools run with no prompt in both.
- ``general.sessionRetention.enabled: false``: 0.61's start-up cleanup (``cleanupExpiredSessions``)
  takes a resumed session's header-only stub for a corrupt file and deletes every file of the project
  sharing its 8-character id, the conversation the node reads included (it walks this project's
  ``chats/`` only).
"""

import json
import os

from termsprawl_context.harness.gemini.facts import SETTINGS_FILE

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, Dict, List, Optional, Tuple


MCP_SERVERS_KEY = "mcpServers"
MCP_SERVER_NAME = "termsprawl"  # the command's `mcp` answers under this name (no underscore: FQNs split on it)
MCP_TOOL = "mcp_%s_read_peers" % MCP_SERVER_NAME  # the name 0.61 declares the tool under to the model
RETENTION_PATH = ("general", "sessionRetention", "enabled")
_MAX_SETTINGS_BYTES = 1 << 20


def _at(settings: "Any", path: "Tuple[str, ...]") -> "Tuple[bool, Any]":
    """``(present, value)`` of a nested key; a non-object on the way counts as present."""
    if not isinstance(settings, dict):
        return False, None
    node = settings
    for key in path:
        if not isinstance(node, dict):
            return True, node
        if key not in node:
            return False, None
        node = node[key]
    return True, node


def _with(settings: "Dict[str, Any]", path: "Tuple[str, ...]", value: "Any") -> "Dict[str, Any]":
    """A copy of ``settings`` with ``value`` at ``path``, every other key kept in its order."""
    merged = dict(settings)
    inner = merged.get(path[0])
    merged[path[0]] = _with(inner if isinstance(inner, dict) else {}, path[1:], value) if path[1:] else value
    return merged


def merge_project_settings(settings: "Dict[str, Any]", command: str) -> "Tuple[Optional[Dict[str, Any]], List[str]]":
    """``(settings with what is missing added, or None, notes)``: a note per value of the person's kept."""
    notes = []  # type: List[str]
    merged = settings
    # ``sh -c command`` (the walk up to the installed command), trusted: its tool runs unasked.
    entry = {"command": "sh", "args": ["-c", command], "trust": True}
    present, current = _at(settings, (MCP_SERVERS_KEY, MCP_SERVER_NAME))  # present: a non-object on the way too
    if not present:
        merged = _with(merged, (MCP_SERVERS_KEY, MCP_SERVER_NAME), entry)
    elif current != entry:
        notes.append("%s.%s is yours: kept as it is" % (MCP_SERVERS_KEY, MCP_SERVER_NAME))
    present, current = _at(settings, RETENTION_PATH)
    if not present:
        merged = _with(merged, RETENTION_PATH, False)
    elif current is not False:
        notes.append("%s is yours (%s): kept as it is" % (".".join(RETENTION_PATH), json.dumps(current)))
    return (None if merged is settings else merged), notes


def _project_settings(project: str) -> "Any":
    """The project's settings as JSON, or None (missing, not a regular file: a FIFO would block, too long, junk)."""
    from termsprawl_context.jsonl import try_open_regular

    f = try_open_regular(os.path.join(project, SETTINGS_FILE))
    if f is None:
        return None
    try:
        with f:
            data = f.read(_MAX_SETTINGS_BYTES + 1)
        return json.loads(data.decode("utf-8")) if len(data) <= _MAX_SETTINGS_BYTES else None
    except (OSError, ValueError, RecursionError):
        return None


def read_tool(project: str) -> str:
    """The tool name to give the model when the project registers the read server, else ""."""
    entry = _at(_project_settings(project), (MCP_SERVERS_KEY, MCP_SERVER_NAME))[1]
    return MCP_TOOL if isinstance(entry, dict) and entry.get("trust") is True else ""


def gone_chat_note(project: str, peer: str, path: str) -> str:
    """Why a peer's recorded chat is gone and the fix, or "" when it is there."""
    if os.path.lexists(path):
        return ""
    present, enabled = _at(_project_settings(project), RETENTION_PATH)  # the settings keep the chats
    fix = (
        "this project's settings now keep its chats"
        if present and enabled is False
        else "run `termsprawl-context init --gemini-hook` (it turns that cleanup off for this project)"
    )
    return (
        "peer %s's Gemini CLI chat %s is gone: Gemini CLI's start-up cleanup (general.sessionRetention) deletes "
        "every file of a resumed session, whose header-only stub it takes for a corrupt chat. Fix: %s, and start "
        "%s's session again so its hook records a chat" % (peer, path, fix, peer)
    )
