"""OpenCode behind the interface (observed on OpenCode 1.18.33; ``facts.py`` has the store,
``db.py`` the read-only queries, ``records.py`` rows to entries).

A session lives in a database, not a file: its path is ``<database>#<session id>``
(``facts.session_path``), which names it unambiguously inside the store. The dump and
the hand-off read its tail with ``ORDER BY ... DESC`` (``entries_reverse``): the cost is
the tail's rows, not the session's. A Python without ``sqlite3`` reads no OpenCode session
(``errors.DatabaseUnreadable.no_sqlite``, by name; ``supports`` says no) and every other CLI as before.

The node: OpenCode passes a plugin its session on ``session.created`` (the project plugin
``init`` writes, ``.opencode/plugins/termsprawl.js``), which runs the hook command with
``{"session_id", "cwd"}``; the transcript path follows from the id (``hook_payload``); the
hook's answer (Claude Code's shape) goes into the session's system prompt (``install.py``).
"""

import os

from termsprawl_context.harness.base import Q_ALL, Harness, ProjectSession, Session, under
from termsprawl_context.harness.opencode import db, facts, records


class OpenCodeHarness(Harness):
    name = facts.NAME
    label = facts.LABEL
    transcript_suffix = ""
    instruction_file = facts.INSTRUCTION_FILE
    hook_event_session_start = "session.created"
    command = "opencode"
    init_options = ("opencode_plugin", "agents_md")
    owned_option = "opencode_plugin"
    setup_steps = (
        "OpenCode loads the project plugin at its next start in the project folder (no trust step); "
        "start it from the project folder"
    )
    unrecorded_at_root = (
        "OpenCode did not run the project's plugin (.opencode/plugins/termsprawl.js): it was started before "
        "`init`, or with OPENCODE_DISABLE_PROJECT_CONFIG set: quit it and start %(start)s at the project root"
    )

    # --- the store ----------------------------------------------------------------------
    home_variables = ((facts.DATA_HOME_ENV, facts.DATA_SUBDIR),)
    home_default = facts.DATA_DEFAULT

    def _database(self, environ=None):
        home = self.home(environ)
        return os.path.join(home, facts.DB_NAME) if home else ""

    def _db(self, path):
        found, session_id = facts.split_path(path)
        if not found:
            raise db.DatabaseUnreadable(path, "not an OpenCode session path (<database>#<session id>)")
        return found, session_id

    def sessions(self, environ=None):
        """Every session row (sub-agents' too: each is a session of its own), newest first."""
        path = self._database(environ)
        if not path or not os.path.exists(path):
            return iter(())
        try:
            rows = db.session_rows(path, self.label)
        except OSError:
            rows = []
        return iter([Session(self.name, row[0], facts.session_path(path, row[0])) for row in rows if row[0]])

    def session_stat(self, path):
        """``(mtime, size)`` of a session: its row's last update, and the database's size
        (a session has no file of its own); None when the database or the row is not there.
        A database that cannot be read now (locked, torn, no ``sqlite3``) answers with its
        file's own time, so the reader that opens it refuses by name (``db``)."""
        found, session_id = facts.split_path(path)
        try:
            st = os.stat(found) if found else None
        except OSError:
            return None
        if st is None or (st.st_mode & 0o170000) != 0o100000:
            return None
        try:
            row = db.session_row(found, self.label, session_id)
        except OSError:
            return st.st_mtime, st.st_size
        if row is None:
            return None
        return (row[5] / 1000.0 if isinstance(row[5], (int, float)) else st.st_mtime), st.st_size

    def project_sessions(self, project, environ=None, since=0.0):
        """Main sessions whose ``directory`` is in the project, updated after ``since``."""
        path = self._database(environ)
        if not path or not os.path.exists(path):
            return []
        try:
            rows = db.session_rows(path, self.label)
        except OSError:
            return []
        real = os.path.realpath(project)
        found = []
        for session_id, parent, directory, _title, _created, updated in rows:
            if parent or not isinstance(directory, str) or not isinstance(updated, (int, float)):
                continue
            if updated / 1000.0 > since and under(os.path.realpath(directory), real):
                found.append(
                    ProjectSession(
                        Session(self.name, session_id, facts.session_path(path, session_id)),
                        updated / 1000.0,
                        directory,
                    )
                )
        return found

    def session_id_of(self, path):
        return facts.split_path(path)[1]

    def owns_path(self, path, environ=None):
        found = facts.split_path(path)[0]
        return bool(found) and Harness.owns_path(self, found, environ)

    # --- records ------------------------------------------------------------------------
    def _session(self, path):
        found, session_id = self._db(path)
        row = db.session_row(found, self.label, session_id)
        if row is None:
            raise db.DatabaseUnreadable(found, "no session %s" % session_id)
        directory = row[2] if isinstance(row[2], str) else ""
        return found, records.Session(session_id, directory, bool(row[1]))

    def entries(self, path):
        found, session = self._session(path)
        return self._forward(found, session)

    def _forward(self, found, session):
        line = 1
        rows = db.message_rows(found, self.label, session.session_id)
        for message_id, data, parts in records.group_messages(rows):
            made = records.message_entries(session, message_id, data, parts, line)
            line += len(made)
            for entry in made:
                yield entry

    def entries_reverse(self, path):
        found, session = self._session(path)
        return self._backward(found, session)

    def _backward(self, found, session):
        rows = db.message_rows(found, self.label, session.session_id, newest_first=True)
        for message_id, data, parts in records.group_messages(rows):
            parts.reverse()
            for entry in reversed(records.message_entries(session, message_id, data, parts, 0)):
                yield entry

    answers = Q_ALL

    def supports(self, question):
        return db.has_sqlite() and question in self.answers

    def subagent_paths(self, path):
        """The sessions whose ``parent_id`` is this one (the ``task`` tool's sub-agents)."""
        found, session_id = facts.split_path(path)
        if not found or not db.has_sqlite():
            return None
        try:
            if db.session_row(found, self.label, session_id) is None:
                return None
            return [facts.session_path(found, child) for child in db.child_ids(found, self.label, session_id)]
        except OSError:
            return None

    def stable_id(self, path):
        found, session_id = facts.split_path(path)
        try:
            return session_id if found and db.session_row(found, self.label, session_id) is not None else None
        except OSError:
            return None

    def subagent_parent(self, path):
        found, session_id = facts.split_path(path)
        try:
            row = db.session_row(found, self.label, session_id) if found else None
            if row is None:
                return None
            if not row[1]:
                return False, ""
            parent = db.session_row(found, self.label, row[1])
        except OSError:
            return None
        return True, facts.session_path(found, row[1]) if parent is not None else ""

    def work_dirs(self, path):
        found, session_id = facts.split_path(path)
        try:
            row = db.session_row(found, self.label, session_id) if found else None
        except OSError:
            return None
        return [row[2]] if row is not None and isinstance(row[2], str) and row[2] else None

    # --- hooks --------------------------------------------------------------------------
    def is_hook_payload(self, payload, environ=None):
        return False  # the plugin's command names it (`hook --harness opencode`)

    def hook_payload(self, payload, environ=None):
        """The plugin's ``{"session_id", "cwd"}`` with the session's path added (the plugin
        cannot know where the database is)."""
        session_id = payload.get("session_id")
        if isinstance(session_id, str) and session_id and not payload.get("transcript_path"):
            found = self._database(environ)
            if found:
                payload = dict(payload, transcript_path=facts.session_path(found, session_id))
        return payload

    config_file = facts.CONFIG_FILE

    def merge_config(self, settings):
        from termsprawl_context.harness.opencode.install import merge_permission

        return merge_permission(settings)

    def owned_files(self, project, command=""):
        from termsprawl_context.harness.opencode.install import plugin_file

        return [plugin_file(command)]


HARNESS = OpenCodeHarness()
