"""pi behind the harness interface: its session files, their lines as ``Entry`` values
(``records``), the extension's hook payload and answer, and the extension ``init`` owns
(facts in ``facts``, 0.73.1).

What its records cannot answer: pi has no sub-agents (``supports(Q_SUBAGENTS)`` is False);
it has no permission system either (every tool call runs, nothing asks), so ``init``
writes no permission rule for it.
"""

from __future__ import annotations

from termsprawl_context.harness.base import (
    INSTALLED_COMMAND,
    Harness,
    Q_ENTRIES,
    Q_IDENTITY,
    head_record,
    relay_to_person,
    user_dir,
)
from termsprawl_context.harness.blocks import as_str
from termsprawl_context.harness.linelog import LineLogHarness
from termsprawl_context.harness.pi import facts
from termsprawl_context.harness.pi.records import line_entries


class PiHarness(LineLogHarness):
    name, label, command = facts.NAME, facts.LABEL, "pi"
    line_converter = staticmethod(line_entries)
    hook_event_session_start = "session_start"
    instruction_file = "AGENTS.md"  # 0.73.1 reads AGENTS.md (or CLAUDE.md) from the cwd and its parents
    init_options = ("pi_extension", "agents_md")
    setup_steps = (
        "pi loads the project's extension .pi/extensions/termsprawl.ts at every start (no trust step); "
        "pi has no permission system: every command the model runs, runs, the read command included"
    )
    unrecorded_at_root = (
        "pi did not run the project's extension: it was started before `init`, or with extensions off "
        "(`--no-extensions`): quit it and start %(start)s at the project root"
    )

    home_variables = ((facts.AGENT_DIR_ENV, ""),)
    home_default = facts.AGENT_SUBDIR

    def store_roots(self, environ=None):
        found = user_dir(environ, facts.SESSIONS_VARIABLES, facts.SESSIONS_DEFAULT)
        return [found] if found else []

    def _head(self, path):
        header = head_record(path, lambda record: record.get("type") == facts.KIND_HEADER)
        return as_str(header.get("id")), as_str(header.get("cwd"))

    def session_id_of(self, path):
        stem = Harness.session_id_of(self, path)  # <ISO time>_<id>
        return stem.rsplit("_", 1)[1] if "_" in stem else ""

    def sniff(self, first):
        return (
            first.get("type") == facts.KIND_HEADER and first.get("version") == 3 and isinstance(first.get("cwd"), str)
        )

    answers = (Q_ENTRIES, Q_IDENTITY)

    def subagent_parent(self, path):
        return (False, "") if self.stable_id(path) else None

    # --- hooks -------------------------------------------------------------------------------
    def hook_payload(self, payload, environ=None):
        """The extension's payload with ``source`` in the recorder's words."""
        source = payload.get("source")
        adapted = dict(payload)
        adapted["source"] = facts.REASON_SOURCES.get(source, "") if isinstance(source, str) else ""
        return adapted

    def session_start_output(self, system_message=None, additional_context=None, session_title=None):
        """What the extension reads: ``additionalContext``, handed to the model as a hidden
        message; a warning for the person goes to the model, to pass on (pi's ``-p`` shows
        no notification)."""
        text = relay_to_person(additional_context, system_message)
        return {"additionalContext": text} if text else {}

    def owned_files(self, project, command=""):
        """The project extension that runs ``hook`` at every session start (whole, ours)."""
        from termsprawl_context.harness.pi.extension import extension_source

        return [(facts.EXTENSION_FILE, extension_source(INSTALLED_COMMAND).encode("utf-8"), 0o644)]


HARNESS = PiHarness()
