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

from termsprawl_context.harness.base import Q_ALL, Harness, ProjectSession, Session, regular_stat, under
from termsprawl_context.harness.blocks import as_str
from termsprawl_context.harness.opencode import db, facts, records


class OpenCodeHarness(Harness):
    name, label, command = facts.NAME, facts.LABEL, "opencode"
    transcript_suffix = ""
    instruction_file = facts.INSTRUCTION_FILE
    hook_event_session_start = "session.created"
    init_options = ("opencode_plugin", "agents_md")
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

    def _session_rows(self, environ=None):
        """``(database, its session rows)``; no rows when it is not there or cannot be read now."""
        path = self._database(environ)
        try:
            return path, db.session_rows(path, self.label) if path and os.path.exists(path) else []
        except OSError:
            return path, []

    def _row(self, path):
        """``(database, row)`` of the session at ``path``; None when either is not there or
        cannot be read now (no ``sqlite3`` too)."""
        found, session_id = facts.split_path(path)
        try:
            row = db.session_row(found, self.label, session_id) if found else None
        except OSError:
            return None
        return (found, row) if row is not None else None

    def _head(self, path):
        found = self._row(path)
        return (facts.split_path(path)[1], as_str(found[1][2])) if found else ("", "")

    def sessions(self, environ=None):
        """Every session row (sub-agents' too: each is a session of its own), newest first."""
        path, rows = self._session_rows(environ)
        return iter([Session(self.name, row[0], facts.session_path(path, row[0])) for row in rows if row[0]])

    def session_stat(self, path):
        """``(mtime, size)`` of a session: its row's last update, and the database's size
        (a session has no file of its own); None when the database or the row is not there.
        A database that cannot be read now (locked, torn, no ``sqlite3``) answers with its
        file's own time, so the reader that opens it refuses by name (``db``)."""
        found, session_id = facts.split_path(path)
        st = regular_stat(found) if found else None
        if st is None:
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
        path, rows = self._session_rows(environ)
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
        found, session_id = facts.split_path(path)
        if not found:
            raise db.DatabaseUnreadable(path, "not an OpenCode session path (<database>#<session id>)")
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
        found = self._row(path)
        try:
            children = db.child_ids(found[0], self.label, found[1][0]) if found else None
        except OSError:
            return None
        return None if children is None else [facts.session_path(found[0], child) for child in children]

    def subagent_parent(self, path):
        found = self._row(path)
        if found is None:
            return None
        database, parent = found[0], found[1][1]
        if not parent:
            return False, ""
        try:
            there = db.session_row(database, self.label, parent) is not None
        except OSError:
            return None
        return True, facts.session_path(database, parent) if there else ""

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
