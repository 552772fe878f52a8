"""Recording a session's transcript from a Claude Code hook: the loop the desktop app
closes by itself, closed for agents run anywhere else.

This joins the two sides the layers keep apart: the harness's store (the payload's
validation, relocating a resumed session's record) and the project's state (the index,
the discovery markers). The ``hook`` command calls ``record_from_hook`` and nothing else.
"""

import os
from typing import BinaryIO, Mapping, NamedTuple, Optional

from termsprawl_context.errors import Refusal
from termsprawl_context.store.hook_input import read_hook_input
from termsprawl_context.store.identity import relocate_record
from termsprawl_context.store.paths import projects_dir
from termsprawl_context.workspace.discovery import ensure_context_discovery
from termsprawl_context.workspace.files import STATE_DIR, TRANSCRIPTS_DIR
from termsprawl_context.workspace.ids import SAFE_ID_SHOWN, is_safe_id
from termsprawl_context.workspace.index import read_transcript_path, record_transcript_path

# The node an agent speaks for, injected at its spawn (by the app, or by the user).
NODE_ID_ENV = "TERMSPRAWL_NODE_ID"
# The project root Claude Code started the session in.
PROJECT_DIR_ENV = "CLAUDE_PROJECT_DIR"


class HookRefused(Refusal):
    """The hook recorded nothing; the message says why (the hook still exits 0)."""


class NodeIdMissing(HookRefused):
    def __init__(self) -> None:
        super().__init__("%s is not set; nothing recorded (start the agent with %s=<node>)" % (NODE_ID_ENV, NODE_ID_ENV))


class NodeIdUnsafe(HookRefused):
    def __init__(self, value: str) -> None:
        super().__init__(
            "%s=%r is not a safe node id (%s); nothing recorded" % (NODE_ID_ENV, value, SAFE_ID_SHOWN)
        )


class NoProject(HookRefused):
    def __init__(self, detail: str) -> None:
        super().__init__("no project directory: %s; nothing recorded" % detail)


class IndexNotWritten(HookRefused):
    def __init__(self, cwd: str, node_id: str) -> None:
        super().__init__("could not write %s under %s; nothing recorded" % (
            os.path.join(STATE_DIR, TRANSCRIPTS_DIR, node_id + ".json"), cwd))


class HookRecord(NamedTuple):
    project: str
    node_id: str
    reported: str  # the transcript path the payload named
    recorded: str  # what the index now holds (differs when the record was relocated)
    changed: bool  # False when the index already held it


def hook_project(explicit: Optional[str], environ: Mapping[str, str], payload_cwd: str) -> str:
    """``--cwd``, else ``$CLAUDE_PROJECT_DIR``, else the payload's ``cwd``; must be a directory."""
    for candidate, named in ((explicit, "--cwd"), (environ.get(PROJECT_DIR_ENV), "$" + PROJECT_DIR_ENV),
                             (payload_cwd, "the payload's cwd")):
        if candidate:
            if not os.path.isdir(candidate):
                raise NoProject("%s %s is not a directory" % (named, candidate))
            return candidate
    raise NoProject("give --cwd, or set $%s" % PROJECT_DIR_ENV)


def record_from_hook(
    stream: BinaryIO,
    environ: Mapping[str, str],
    cwd: Optional[str] = None,
    projects: Optional[str] = None,
) -> HookRecord:
    """Read a hook payload from ``stream`` and record its transcript for the node.

    The path recorded is where the session's record really is (``relocate_record``: a
    session resumed from another directory is reported where no file exists), then the
    discovery markers are refreshed. Raises a Refusal (a HookInputError or a
    HookRefused) when nothing was recorded."""
    store = projects_dir(projects, environ)
    payload = read_hook_input(stream, store, environ)
    node_id = environ.get(NODE_ID_ENV)
    if not node_id:
        raise NodeIdMissing()
    if not is_safe_id(node_id):
        raise NodeIdUnsafe(node_id)
    project = hook_project(cwd, environ, payload.cwd)
    recorded = relocate_record(store, payload.transcript_path, payload.source)
    changed = read_transcript_path(project, node_id) != recorded
    if changed and not record_transcript_path(project, node_id, recorded):
        raise IndexNotWritten(project, node_id)
    ensure_context_discovery(project)
    return HookRecord(project, node_id, payload.transcript_path, recorded, changed)
