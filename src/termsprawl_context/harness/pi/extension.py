"""The project extension ``init`` writes for pi (``facts.EXTENSION_FILE``), as text.

pi 0.73.1 loads ``<project>/.pi/extensions/*.ts`` with no trust step. On ``session_start``
the extension knows its session (``ctx.sessionManager.getSessionId()`` and
``getSessionFile()``, the final path already, before the file is written), so it runs the
project's ``hook --harness pi`` with a Claude-shaped payload on stdin; ``before_agent_start``
then hands the hook's ``additionalContext`` to the model once, as a message the person is
not shown (``display: false``, recorded as a ``custom_message``). The command is found by
walking up from the session's directory, as every CLI's hook command does.
"""

from __future__ import annotations

from termsprawl_context.harness.pi import facts


_SOURCE = """%(marker)s
// Records this pi session as a termsprawl node ($TERMSPRAWL_NODE_ID) and tells the model
// which agents it is linked to. `termsprawl-context init` wrote it and owns it.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";

const COMMAND = %(command)s;

function findCommand(start: string): string | undefined {
  let dir = start;
  for (;;) {
    const candidate = join(dir, COMMAND);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export default function (pi: any) {
  let context: string | undefined;
  pi.on("session_start", async (event: any, ctx: any) => {
    context = undefined;
    const command = findCommand(ctx.cwd);
    const file = ctx.sessionManager.getSessionFile();
    if (!command || !file) return;
    const payload = {
      session_id: ctx.sessionManager.getSessionId(),
      transcript_path: file,
      cwd: ctx.cwd,
      source: event && typeof event.reason === "string" ? event.reason : "",
    };
    const run = spawnSync(command, ["hook", "--harness", %(name)s], {
      input: JSON.stringify(payload),
      encoding: "utf8",
      timeout: 30000,
    });
    try {
      const answer = JSON.parse(run.stdout || "{}");
      if (typeof answer.additionalContext === "string") context = answer.additionalContext;
    } catch {
      context = undefined;
    }
    if (run.stderr && ctx.hasUI) ctx.ui.notify(run.stderr.trim(), "warning");
  });
  pi.on("before_agent_start", async () => {
    if (!context) return;
    const content = context;
    context = undefined;
    return { message: { customType: "termsprawl", content, display: false } };
  });
}
"""


def extension_source(installed_command: str) -> str:
    """The extension's text, running ``installed_command`` (relative to the project)."""
    import json

    return _SOURCE % {
        "marker": facts.MANAGED_MARKER,
        "command": json.dumps(installed_command),
        "name": json.dumps(facts.NAME),
    }
