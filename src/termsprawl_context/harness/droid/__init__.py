"""Factory Droid behind the interface (``records.py`` has the lines).

Observed on Factory Droid 0.225.2 (``droid exec`` with a BYOK ``customModels`` entry, no
login; ``../shared/reference/more-clis.md`` §7). Store: ``~/.factory/sessions/<enc cwd>/<session
id>.jsonl``, ``<enc cwd>`` the project's absolute path with every non-alphanumeric character
replaced by ``-``. A node is recorded by a SessionStart hook in the project's
``.factory/settings.json`` (Claude's format; payload ``session_id``, ``transcript_path``;
``source`` "startup"); ``hookSpecificOutput.additionalContext`` reaches the model as a user
message. Droid cannot resume offline (``exec -s`` fetches the session from Factory's cloud),
so each headless run is a session of its own.

Permissions: Droid's ``Execute`` tool makes the model declare a ``riskLevel``; ``droid exec``
runs what the model calls low-risk at its default autonomy and refuses the rest. Its only
command rules (``commandAllowlist``/``commandDenylist``) live in the home folder's settings and
match by prefix in a way that admitted ``links add`` too: no rule admits exactly the read
command, so ``init`` writes none (the read runs when the model rates it low-risk, as a
read-only command is).
"""

from __future__ import annotations

import os

from termsprawl_context.harness.base import Q_ENTRIES, Q_IDENTITY, head_record
from termsprawl_context.harness.blocks import as_str
from termsprawl_context.harness.droid.records import KIND_SESSION_START, line_to_entries
from termsprawl_context.harness.linelog import LineLogHarness


NAME = "factory-droid"
HOME_DIR_NAME = ".factory"
SETTINGS_FILE = os.path.join(".factory", "settings.json")


class DroidHarness(LineLogHarness):
    name, label, command = NAME, "Factory Droid", "droid"
    hook_settings_file = SETTINGS_FILE
    instruction_file = "AGENTS.md"  # Droid reads the project's AGENTS.md (no import syntax)
    # Droid sets $FACTORY_PROJECT_DIR (= the project) in the hook's environment (0.225.2).
    hook_start_dir = '"${FACTORY_PROJECT_DIR:-$PWD}"'
    init_options = ("droid_hook", "agents_md")
    init_option_help = (
        "register a SessionStart hook for Factory Droid in DIR/.factory/settings.json (kept out of git; no permission rule: Droid runs a command by the risk level its model declares)",
        "add the managed block to DIR/AGENTS.md (created if absent), which Factory Droid reads at launch",
    )
    setup_steps = (
        "Factory Droid runs the project's hook from .factory/settings.json; it runs the read command when its "
        "model rates it low-risk (no rule admits exactly that command), and resumes only with a Factory login"
    )
    unrecorded_at_root = (
        "Factory Droid did not run the project's hook: it was started before `init`: quit it and start "
        "%(start)s at the project root"
    )

    home_default = HOME_DIR_NAME
    store_subdirs = ("sessions",)
    line_converter = staticmethod(line_to_entries)

    def _head(self, path):
        start = head_record(path, lambda record: record.get("type") == KIND_SESSION_START)
        return as_str(start.get("id")), as_str(start.get("cwd"))

    def sniff(self, first):
        return first.get("type") == KIND_SESSION_START and "hostId" in first and isinstance(first.get("id"), str)

    # Sub-agents: none were seen in its records (0.225.2 exec): a named refusal.
    answers = (Q_ENTRIES, Q_IDENTITY)

    def subagent_parent(self, path):
        return (False, "") if self.stable_id(path) is not None else None


HARNESS = DroidHarness()
