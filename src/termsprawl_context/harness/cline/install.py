"""The hook scripts ``init`` writes for Cline CLI (3.0.65): ``.clinerules/hooks/TaskStart``
and ``TaskResume``, executable, each running the hook command with Cline's payload on stdin.
Their stdout is dropped: 3.0.65 passes no hook output to the model (the person sees the
hook's warnings on stderr)."""

import os

from termsprawl_context.harness.cline import facts


# The second line (the first is the interpreter's): the managed-file marker.
MARKER = "# termsprawl-context: managed file, written by `termsprawl-context init`; edits are replaced."
SCRIPT_MODE = 0o755


def hook_script(command: str) -> bytes:
    return (
        "#!/bin/sh\n%s\n# Cline CLI 3.0.65 hook: records this session as the termsprawl node.\n%s >/dev/null\n"
        % (MARKER, command)
    ).encode("utf-8")


def hook_scripts(command: str) -> list:
    """``(relative path, content, mode)`` of each script running ``command`` (``Harness.owned_files``)."""
    # The command may `exec`: in a group, the redirection still holds for what it runs.
    content = hook_script("{ %s; }" % command)
    return [(os.path.join(facts.HOOK_DIR, event), content, SCRIPT_MODE) for event in facts.HOOK_EVENTS]
