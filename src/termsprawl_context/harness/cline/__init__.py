"""Cline CLI behind the interface (observed on Cline CLI 3.0.65; ``facts.py`` has the
store, ``records.py`` the bounded whole-file reads and the entries, ``install.py`` the
hook scripts ``init`` writes).

A session's path is its messages file, one JSON document read whole within the 16 MiB line
bound; its messages are found in its bytes and parsed one by one, the dump's and the
hand-off's from the end (``entries_reverse``).
Sub-agents are not answered: 3.0.65 was not seen to write one (``supports``).

The node: the TaskStart hook (and TaskResume, a TUI resume) gets
``sessionContext.rootSessionId``; ``hook_payload`` turns that into the interface's
``session_id`` and ``transcript_path``. Nothing the hook prints reaches the model, and
Cline auto-approves every tool by default (no per-command rule exists in 3.0.65), so the
model reads its peers as it runs any command.
"""

import os

from termsprawl_context.harness.base import Q_ENTRIES, Q_IDENTITY, Harness, user_dir
from termsprawl_context.harness.blocks import as_str
from termsprawl_context.harness.cline import facts, records, spans
from termsprawl_context.jsonl import parse_object


class ClineHarness(Harness):
    name, label, command = facts.NAME, facts.LABEL, "cline"
    transcript_suffix = facts.MESSAGES_SUFFIX
    instruction_file = facts.INSTRUCTION_FILE
    hook_event_session_start = "TaskStart"
    init_options = ("cline_hooks", "agents_md")
    setup_steps = (
        "Cline CLI runs the project's hook scripts (.clinerules/hooks/) with no trust step; it auto-approves "
        "every command by default (3.0.65 has no per-command rule), so start it from the project folder"
    )
    unrecorded_at_root = (
        "Cline CLI did not run the project's TaskStart hook: it was started before `init`, or in another "
        "workspace: quit it and start %(start)s at the project root"
    )

    def store_roots(self, environ=None):
        found = user_dir(environ, facts.SESSIONS_VARIABLES, facts.SESSIONS_DEFAULT)
        return [found] if found else []

    def config_dirs(self, environ=None):
        return [os.path.dirname(os.path.dirname(root)) for root in self.store_roots(environ)]

    def _head(self, path):
        # The id is proven from the messages file itself (``stable_id``); the manifest has the cwd.
        return "", as_str(records.manifest_of(path).get("cwd"))

    def _read(self, path):
        """``(bytes, message spans, session id, cwd)`` of a messages file."""
        data = records.read_bytes(path)
        session_id = spans.session_id_of_document(data) or self.session_id_of(path)
        return data, spans.message_spans(data), session_id, self._head(path)[1]

    def entries(self, path):
        data, found, session_id, cwd = self._read(path)
        parsed = ((i, parse_object(data[a:b])) for i, (a, b) in enumerate(found))
        return records.message_entries(session_id, cwd, parsed)

    def entries_reverse(self, path):
        data, found, session_id, cwd = self._read(path)
        return self._backward(data, found, session_id, cwd)

    def _backward(self, data, found, session_id, cwd):
        for index in range(len(found) - 1, -1, -1):
            start, end = found[index]
            one = [(index, parse_object(data[start:end]))]
            for entry in reversed(list(records.message_entries(session_id, cwd, one))):
                yield entry

    answers = (Q_ENTRIES, Q_IDENTITY)

    def stable_id(self, path):
        """The messages file's ``sessionId``, when its folder and name agree with it."""
        try:
            session_id = spans.session_id_of_document(records.read_bytes(path))
        except OSError:
            return None
        if not facts.is_session_id(session_id):
            return None
        folder = os.path.basename(os.path.dirname(os.path.abspath(path)))
        return session_id if folder == session_id and self.session_id_of(path) == session_id else None

    def is_hook_payload(self, payload, environ=None):
        return False  # the hook script names it (`hook --harness cline`)

    def hook_payload(self, payload, environ=None):
        """TaskStart's and TaskResume's payload in the interface's fields: the session is
        ``sessionContext.rootSessionId`` (``taskId`` is one run's), its path follows."""
        context = payload.get("sessionContext")
        session_id = context.get("rootSessionId") if isinstance(context, dict) else None
        if not isinstance(session_id, str) or payload.get("session_id"):
            return payload
        roots = payload.get("workspaceRoots")
        cwd = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else ""
        roots = self.store_roots(environ)
        found = dict(
            payload, session_id=session_id, cwd=payload.get("cwd") or cwd, hook_event_name=self.hook_event_session_start
        )
        found["source"] = "resume" if payload.get("hookName") == facts.HOOK_RESUME else "startup"
        if roots and facts.is_session_id(session_id):
            found["transcript_path"] = facts.messages_path(roots[0], session_id)
        return found

    def owned_files(self, project, command=""):
        from termsprawl_context.harness.cline.install import hook_scripts

        return hook_scripts(command)


HARNESS = ClineHarness()
