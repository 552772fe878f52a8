"""Gemini CLI behind ``harness/base.py``'s interface. Observed on Gemini CLI 0.61.0 (against a scripted local model
server) and read in its bundle (``chatRecordingService.ts``: ``loadConversationRecord``); the older single-JSON chats
from public samples.

The chat file is a log: a changed message is appended again (same ``id``; the last copy wins, in its own place: 0.61
only rewrites the last message, see ``chat.newest_messages``), ``{"$set": {...}}`` updates metadata or replaces the
message list, ``{"$rewindTo": id}`` drops that message and all after it. One deliberate difference from the client: a
``$set.messages`` list orders the messages it names and adds new ones but never drops one already seen (kept before the
listed message that followed it). On resume 0.61 rebuilds that list from the model's history, which skips a user message
opening with ``<hook_context>`` (with a SessionStart hook, the first typed prompt: applied literally, it would be lost)
and copies each tool result under ``<message id>_response``; the copies are dropped by call id (one result per call, at
the last message holding it).
"""

import os

from termsprawl_context.harness.base import Harness, Q_ALL, Session, folder_files, listing
from termsprawl_context.harness.gemini.chat import first_chat, head_facts, header_of, is_legacy, read_head, resumed_chat
from termsprawl_context.harness.gemini import facts
from termsprawl_context.harness.gemini.normalise import entries, entries_reverse

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, Dict, Tuple


CHAT_SUFFIXES = (facts.TRANSCRIPT_SUFFIX, facts.LEGACY_SUFFIX)


class GeminiHarness(Harness):
    name = facts.NAME
    label = "Gemini CLI"
    transcript_suffix = facts.TRANSCRIPT_SUFFIX
    hook_settings_file = facts.SETTINGS_FILE
    instruction_file = facts.MEMORY_FILE
    # Observed on 0.61: the hook's shell gets the CLI's own $PWD, stale when the CLI was started by a program that
    # changed directory without setting it; the CLI replaces $GEMINI_PROJECT_DIR in the command text with the
    # session's directory, shell-quoted (so it is left unquoted here), and sets it in the hook's environment too.
    hook_start_dir = "$" + facts.PROJECT_DIR_ENV

    command = "gemini"
    init_options = ("gemini_hook", "gemini_md")
    import_option = "gemini_md"
    init_option_help = (
        "register a SessionStart hook for Gemini CLI in DIR/%(settings)s (kept out of git; Gemini CLI runs "
        "project hooks only in a trusted folder)",
        "add the line %(import)s to DIR/%(instruction)s (created if absent), so Gemini CLI reads the markers "
        "at launch",
    )
    instruction_import_prefix = facts.MEMORY_IMPORT_PREFIX
    hook_next_steps = """gemini: the hook runs when Gemini CLI trusts this folder (it asks at the first start;
      GEMINI_CLI_TRUST_WORKSPACE=true for one headless run); start it from the project folder as
      `TERMSPRAWL_NODE_ID=dave gemini` and its sessions are nodes like any other; it reads its
      peers with the trusted read-only tool read_peers (no prompt, headless or not).
"""
    setup_steps = (
        'Gemini CLI asks, at the first start in this folder, whether to trust it: trust it ("Don\'t trust" '
        "means no project settings, so no hook; `/permissions` changes it later); start it from the project "
        "folder, not a subdirectory"
    )
    unrecorded_at_root = (
        "Gemini CLI did not run the project's hook: the folder is not trusted (\"Don't trust\"), or it was "
        "started before `init`: trust the folder (`/permissions` in Gemini CLI), then quit it and start "
        "%(start)s at the project root"
    )

    home_variables = facts.HOME_VARIABLES
    home_default = facts.CONFIG_DIR_NAME
    store_subdirs = ("tmp",)  # ~/.gemini/tmp/<project name>/chats/

    def _session_files(self, environ=None):
        return [s.path for s in self.sessions(environ)]

    def _head(self, path):
        """The launch directory ``tmp/<project>/.project_root`` names (a chat's lines name none), its bytes kept
        as the OS keeps a path's; "" when that file is missing, unreadable or empty."""
        folder = os.path.dirname(os.path.abspath(path))
        for _ in range(2):  # chats/, or chats/<parent id>/ for a sub-agent's
            if os.path.basename(folder) == facts.CHATS_SUBDIR:
                root_file = os.path.join(os.path.dirname(folder), facts.PROJECT_ROOT_FILE)
                return "", read_head(root_file).decode("utf-8", "surrogateescape").strip()
            folder = os.path.dirname(folder)
        return "", ""

    def sessions(self, environ=None):
        """Each main chat (``tmp/<project>/chats/session-*``), each session once: a resume's stub (a later file
        of the same project and id, see ``resumed_chat``) is not a session of its own."""
        seen = set()
        for root in self.store_roots(environ):
            for path in folder_files(root, facts.CHATS_SUBDIR):
                name = os.path.basename(path)
                if not (name.startswith(facts.SESSION_FILE_PREFIX) and name.endswith(CHAT_SUFFIXES)):
                    continue
                session_id = self.session_id_of(path)
                if session_id and (os.path.dirname(path), session_id) in seen:
                    continue
                seen.add((os.path.dirname(path), session_id))
                yield Session(self.name, session_id, path)

    def session_id_of(self, path):  # the header's: the file name holds its first 8 characters only
        return head_facts(path).get(facts.HEADER_SESSION_ID, "") if is_legacy(path) else header_of(path).session_id

    def sniff(self, first):  # a chat's first record, its header (a legacy object's too)
        return isinstance(first.get(facts.HEADER_SESSION_ID), str) and isinstance(first.get("projectHash"), str)

    def sniff_file(self, path):  # an older single-JSON chat by its head alone (over any line bound)
        return is_legacy(path) and bool(head_facts(path))

    def entries(self, path):
        return entries(path)

    def entries_reverse(self, path):
        return entries_reverse(path)

    answers = Q_ALL

    def subagent_paths(self, path):
        """The ``kind: subagent`` chats in ``chats/<session id>/``; None when the header names no session."""
        session = self.stable_id(path)
        if session is None:
            return None
        folder = facts.subagent_dir(path, session)
        children = [os.path.join(folder, name) for name in (listing(folder) if folder else [])]
        chats = [child for child in children if child.endswith(facts.TRANSCRIPT_SUFFIX) and not os.path.islink(child)]
        return [child for child in chats if header_of(child).kind == facts.KIND_SUBAGENT]

    def stable_id(self, path):
        """The header's session id when the file name agrees (a main chat is named for its first 8 characters,
        a sub-agent's for all): a resume goes on in the same file."""
        session = header_of(path).session_id
        name = os.path.basename(path)
        short = name.startswith(facts.SESSION_FILE_PREFIX) and name.endswith(
            "-" + session[:8] + facts.TRANSCRIPT_SUFFIX
        )
        return session if session and (short or name == session + facts.TRANSCRIPT_SUFFIX) else None

    def subagent_parent(self, path):
        """A sub-agent's chat lies in ``chats/<parent id>/``; its parent, the main chat naming that id."""
        chat = header_of(path)
        if not chat.session_id:
            return None
        folder = os.path.dirname(os.path.abspath(path))
        if chat.kind != facts.KIND_SUBAGENT and os.path.basename(folder) == facts.CHATS_SUBDIR:
            return False, ""
        chats, parent_id = os.path.split(folder)
        return True, first_chat(chats, parent_id) if os.path.basename(chats) == facts.CHATS_SUBDIR else ""

    def session_ids(self, path):
        """The header's session id, then (a sub-agent's) the session whose folder holds it."""
        found = self.stable_id(path)
        if found is None:
            return None
        parent = self.subagent_parent(path)  # None when the chat was emptied since stable_id read it
        folder = os.path.basename(os.path.dirname(os.path.abspath(path)))
        return [found] + ([folder] if parent and parent[0] and folder != found else [])

    def hook_subagent(self, payload):
        """A sub-agent's chat lies in chats/<parent id>/, not in chats/ itself."""
        path = payload.get("transcript_path")
        if not isinstance(path, str) or not path.endswith(facts.TRANSCRIPT_SUFFIX):
            return ""
        folder, name = os.path.split(path)
        return "" if os.path.basename(folder) == facts.CHATS_SUBDIR else name[: -len(facts.TRANSCRIPT_SUFFIX)]

    def hook_transcript(self, path, session_id, source, store=""):
        """The resume's payload names a stub; the conversation is in the session's first file."""
        return resumed_chat(path, session_id) if source == "resume" else path

    def merge_project_settings(self, settings, read_command):
        """What ``init --gemini-hook`` adds to ``.gemini/settings.json`` besides the hook, for Gemini CLI 0.61 (read in
        its bundle, run in tests/e2e/), each only where the file says nothing at that key (what the person wrote is
        kept, and reported):

        - the read as a tool that asks nothing: ``mcpServers.termsprawl`` (the command's one-tool ``mcp`` server),
          ``trust: true``. 0.61 asks before every ``run_shell_command`` in its TUI and offers no shell tool headless by
          default; a prefix allow rule would also admit ``... links add``; its policy engine's project tier is off
          (``disableWorkspacePolicies`` in ``config/policy.ts``; ``policyPaths`` would replace the person's
          ``~/.gemini/policies``). A trusted MCP server's tools run with no prompt in both.
        - ``general.sessionRetention.enabled: false``: 0.61's start-up cleanup (``cleanupExpiredSessions``) takes a
          resumed session's header-only stub for a corrupt file and deletes every file of the project sharing its
          8-character id, the conversation the node reads included (it walks this project's ``chats/`` only)."""
        import json

        notes = []  # type: list
        merged = settings
        # ``sh -c command`` (the walk up to the installed command), trusted: its tool runs unasked.
        entry = {"command": "sh", "args": ["-c", read_command], "trust": True}
        present, current = _at(settings, MCP_PATH)  # present: a non-object on the way too
        if not present:
            merged = _with(merged, MCP_PATH, entry)
        elif current != entry:
            notes.append("%s is yours: kept as it is" % ".".join(MCP_PATH))
        present, current = _at(settings, RETENTION_PATH)
        if not present:
            merged = _with(merged, RETENTION_PATH, False)
        elif current is not False:
            notes.append("%s is yours (%s): kept as it is" % (".".join(RETENTION_PATH), json.dumps(current)))
        return (None if merged is settings else merged), notes

    def read_tool(self, project):
        """The tool name to give the model when the project registers the read server, else ""."""
        entry = _at(_project_settings(project), MCP_PATH)[1]
        return MCP_TOOL if isinstance(entry, dict) and entry.get("trust") is True else ""

    def gone_note(self, project, peer, path):
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

    hook_timeout = facts.HOOK_TIMEOUT_MS  # milliseconds (0.61)


MCP_SERVER_NAME = "termsprawl"  # the command's `mcp` answers under this name (no underscore: FQNs split on it)
MCP_PATH = ("mcpServers", MCP_SERVER_NAME)
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


def _project_settings(project: str) -> "Any":
    """The project's settings as JSON, or None (missing, not a regular file: a FIFO would block, too long, junk)."""
    import json

    from termsprawl_context.jsonl import open_regular

    try:
        with open_regular(os.path.join(project, facts.SETTINGS_FILE)) as f:
            data = f.read(_MAX_SETTINGS_BYTES + 1)
        return json.loads(data.decode("utf-8")) if len(data) <= _MAX_SETTINGS_BYTES else None
    except (OSError, ValueError, RecursionError):
        return None


HARNESS = GeminiHarness()
