"""What ``init`` plants for OpenCode (1.18.33): the project plugin that records the node,
and the permission rule that lets the model read its linked peers unasked.

- ``.opencode/plugins/termsprawl.js``: plain JS, loaded at start with no trust step. On
  ``session.created`` for a main session (a sub-agent's has ``parentID``) it runs the hook
  command with ``{"session_id", "cwd"}`` on stdin, in the project folder. Nothing it
  prints reaches the model (OpenCode shows a plugin's output nowhere), so the model learns
  its node from ``AGENTS.md`` and ``$TERMSPRAWL_NODE_ID``, which its shell tool inherits.
- ``opencode.json`` ``permission.bash``: ``{"*": "ask", "<read command>": "allow"}``.
  1.18.33 runs every bash command unasked by default; its patterns are globs over the
  whole command, so this admits exactly the read command and asks for every other one
  (``opencode run`` cannot ask: it rejects them).
"""

import json

from termsprawl_context.harness.opencode import facts

__all__ = ["merge_permission", "plugin_file"]

MARKER = "// termsprawl-context: managed file, written by `termsprawl-context init`; edits are replaced."
PLUGIN_MODE = 0o644
# The dump, as the model runs it from the project root (the node from $TERMSPRAWL_NODE_ID).
READ_COMMAND = ".termsprawl/bin/termsprawl-context --format markdown"

_PLUGIN = """%(marker)s
// OpenCode 1.18.33 project plugin: records this session as the termsprawl node it runs as.
import { spawn } from "node:child_process";

const COMMAND = %(command)s;

export const Termsprawl = async (ctx) => ({
  event: async ({ event }) => {
    if (!event || event.type !== "session.created") return;
    const info = (event.properties && event.properties.info) || {};
    if (!info.id || info.parentID) return; // a sub-agent's session is not the node
    const payload = JSON.stringify({
      hook_event_name: "session.created",
      session_id: info.id,
      cwd: info.directory || ctx.directory,
      source: "startup",
    });
    await new Promise((resolve) => {
      let child;
      try {
        child = spawn("/bin/sh", ["-c", COMMAND], { cwd: ctx.directory, stdio: ["pipe", "ignore", "ignore"] });
      } catch (e) {
        return resolve();
      }
      child.on("error", resolve);
      child.on("close", resolve);
      child.stdin.on("error", () => {});
      child.stdin.end(payload);
    });
  },
});
"""


def plugin_source(command: str) -> bytes:
    return (_PLUGIN % {"marker": MARKER, "command": json.dumps(command)}).encode("utf-8")


def plugin_file(command: str) -> tuple:
    """``(relative path, content, mode)`` of the plugin running ``command`` (``Harness.owned_files``)."""
    return facts.PLUGIN_FILE, plugin_source(command), PLUGIN_MODE


def merge_permission(settings: dict) -> "tuple":
    """``(merged or None when already there, notes)``: the project config with
    ``permission.bash`` asking for every command but the read command; a person's own
    ``permission`` value that is not an object, or a ``bash`` rule that is a string,
    is kept and named in the notes (never rewritten)."""
    permission = settings.get("permission", {})
    if not isinstance(permission, dict):
        return None, ["opencode.json: `permission` is not an object; kept as it is (no read rule added)"]
    bash = permission.get("bash", {})
    if not isinstance(bash, dict):
        return None, ["opencode.json: `permission.bash` is %r; kept as it is (no read rule added)" % (bash,)]
    if "*" in bash and list(bash)[-1] == READ_COMMAND and bash[READ_COMMAND] == "allow":
        return None, []
    rules = dict(bash)
    rules.setdefault("*", "ask")
    rules.pop(READ_COMMAND, None)
    rules[READ_COMMAND] = "allow"  # last: OpenCode applies the last rule that matches
    merged = dict(settings)
    merged["permission"] = dict(permission, bash=rules)
    return merged, []
