"""What ``init`` plants for OpenCode (1.18.33): the project plugin that records the node,
and the permission rule that lets the model read its linked peers unasked.

- ``.opencode/plugins/termsprawl.js``: plain JS, loaded at start with no trust step. On
  ``session.created`` for a main session (a sub-agent's has ``parentID``) it runs the hook
  command with ``{"session_id", "cwd"}`` on stdin, in the project folder, and adds the
  hook's answer (its ``additionalContext`` and ``systemMessage``) to the system prompt of
  that session's model calls (``experimental.chat.system.transform``, which 1.18.33 passes
  the session id; seen to reach the model, the title request's too). A resumed session
  (``run -s``) fires no ``session.created``: it gets no such line, only ``AGENTS.md``.
- ``opencode.json`` ``permission.bash``: ``{"*": "ask", "<read command>": "allow"}``.
  1.18.33 runs every bash command unasked by default; its patterns are globs over the
  whole command, so this admits exactly the read command and asks for every other one
  (``opencode run`` cannot ask: it rejects them).
"""

import json

from termsprawl_context.harness.base import INSTALLED_COMMAND
from termsprawl_context.harness.opencode import facts


MARKER = "// termsprawl-context: managed file, written by `termsprawl-context init`; edits are replaced."
PLUGIN_MODE = 0o644
# The dump, as the model runs it from the project root (the node from $TERMSPRAWL_NODE_ID).
READ_COMMAND = INSTALLED_COMMAND + " --format markdown"

_PLUGIN = """%(marker)s
// OpenCode 1.18.33 project plugin: records this session as the termsprawl node it runs as,
// and puts the hook's answer (the node, its linked agents, the read command) into the
// system prompt of the session's model calls.
import { spawn } from "node:child_process";

const COMMAND = %(command)s;
const context = new Map(); // session id -> Promise of the text for the model ("" for none)

function runHook(directory, payload) {
  return new Promise((resolve) => {
    let out = "";
    let child;
    try {
      child = spawn("/bin/sh", ["-c", COMMAND], { cwd: directory, stdio: ["pipe", "pipe", "ignore"] });
    } catch (e) {
      return resolve("");
    }
    child.stdout.on("data", (chunk) => { out += chunk; });
    child.on("error", () => resolve(""));
    child.on("close", () => {
      try {
        const answer = JSON.parse(out || "{}");
        const specific = answer.hookSpecificOutput || {};
        resolve([answer.systemMessage, specific.additionalContext].filter((t) => typeof t === "string").join("\\n"));
      } catch (e) {
        resolve("");
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(payload);
  });
}

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
    const pending = runHook(ctx.directory, payload);
    context.set(info.id, pending);
    await pending;
  },
  "experimental.chat.system.transform": async (input, output) => {
    const pending = input && context.get(input.sessionID);
    const text = pending ? await pending : "";
    if (text && output && Array.isArray(output.system)) output.system.push(text);
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
