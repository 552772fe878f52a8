"""Gemini CLI behind ``harness/base.py``'s interface. Observed on Gemini CLI 0.61.0 (against a
scripted local model server) and read in its bundle (``chatRecordingService.ts``:
``loadConversationRecord``); the older single-JSON chats from public samples.

The chat file is a log: a changed message is appended again (same ``id``; the last copy wins, in
its own place: 0.61 only rewrites the last message, see ``chat.newest_messages``), ``{"$set": {...}}`` updates
metadata or replaces the message list, ``{"$rewindTo": id}`` drops that message and all after it.
One deliberate difference from the client: a ``$set.messages`` list orders the messages it names
and adds new ones but never drops one already seen (kept before the listed message that followed
it). On resume 0.61 rebuilds that list from the model's history, which skips a user message
opening with ``<hook_context>`` (with a SessionStart hook, the first typed prompt: applied
literally, it would be lost) and copies each tool result under ``<message id>_response``; the
copies are dropped by call id (one result per call, at the last message holding it).
"""

import os

from termsprawl_context.harness.base import Harness, Q_ALL, Session, folder_files, listing
from termsprawl_context.harness.gemini.chat import Chat, first_chat, head_facts, header_of
from termsprawl_context.harness.gemini.chat import is_legacy, read_head, resumed_chat
from termsprawl_context.harness.gemini import facts
from termsprawl_context.harness.gemini.normalise import entries, entries_reverse


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
        if is_legacy(path):
            return head_facts(path).get("sessionId", "")
        chat = header_of(path)
        return chat.session_id if chat is not None else ""

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
        return [child for child in chats if (header_of(child) or Chat()).kind == facts.KIND_SUBAGENT]

    def stable_id(self, path):
        """The header's session id when the file name agrees (a main chat is named for its first 8 characters,
        a sub-agent's for all): a resume goes on in the same file."""
        chat = header_of(path)
        if chat is None:
            return None
        name = os.path.basename(path)
        short = facts.SESSION_FILE_PREFIX, "-" + chat.session_id[:8] + facts.TRANSCRIPT_SUFFIX
        if name == chat.session_id + facts.TRANSCRIPT_SUFFIX or (name.startswith(short[0]) and name.endswith(short[1])):
            return chat.session_id
        return None

    def subagent_parent(self, path):
        """A sub-agent's chat lies in ``chats/<parent id>/``; its parent, the main chat naming that id."""
        chat = header_of(path)
        if chat is None:
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
        from termsprawl_context.harness.gemini.project import merge_project_settings

        return merge_project_settings(settings, read_command)

    def read_tool(self, project):
        from termsprawl_context.harness.gemini.project import read_tool

        return read_tool(project)

    def gone_note(self, project, peer, path):
        from termsprawl_context.harness.gemini.project import gone_chat_note

        return gone_chat_note(project, peer, path)

    def hook_entry(self, command):
        return {"matcher": "*", "hooks": [{"type": "command", "command": command, "timeout": facts.HOOK_TIMEOUT_MS}]}


HARNESS = GeminiHarness()
