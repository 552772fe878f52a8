"""GitHub Copilot CLI behind the harness interface: its session folders, its
``events.jsonl`` records as ``Entry`` values (``events``), its ``sessionStart`` hook
payload and answer, and the hook file ``init`` owns (facts in ``facts``, 1.0.102).

What its records cannot answer: its sub-agents have no transcript of their own (their
lines are inlined, with ``agentId``, in the session's file), so ``subagent_paths`` is a
named refusal (``supports(Q_SUBAGENTS)`` is False); the entries say which lines are a
sub-agent's.
"""

from __future__ import annotations

import json
import os

from termsprawl_context.harness.base import INSTALLED_COMMAND, Q_ENTRIES, Q_IDENTITY, head_record, relay_to_person
from termsprawl_context.harness.blocks import as_str
from termsprawl_context.harness.linelog import LineLogHarness
from termsprawl_context.harness.copilot import facts
from termsprawl_context.harness.copilot.events import line_entries


def _is_start(record: dict) -> bool:
    return record.get("type") == facts.KIND_SESSION_START and isinstance(record.get("data"), dict)


class CopilotHarness(LineLogHarness):
    name, label, command = facts.NAME, facts.LABEL, "copilot"
    transcript_suffix = facts.EVENTS_FILE
    line_converter = staticmethod(line_entries)
    hook_event_session_start = facts.HOOK_EVENT
    # 1.0.102 sets $COPILOT_HOOK_DIR to the folder of the hook file it runs
    # (<project>/.github/hooks), so the project is two folders up, wherever the session started.
    hook_start_dir = '"$COPILOT_HOOK_DIR/../.."'
    instruction_file = "AGENTS.md"  # 1.0.102 also reads CLAUDE.md, GEMINI.md, .github/copilot-instructions.md
    init_options = ("copilot_hook", "agents_md")
    # Permissions (1.0.102, headless): a rule matches the executable and its subcommand,
    # never its flags, and lives only on the command line (`--allow-tool` / `--deny-tool`):
    # the narrowest is the executable allowed and each writing subcommand denied; every
    # reading one (`show`, `search`, `sessions`: other projects' sessions too) stays allowed.
    setup_steps = (
        "Copilot CLI loads the project's hook only in a trusted folder: trust it at the first start "
        "(`--trust-folder`; COPILOT_ALLOW_ALL=true headless). It asks before every shell command, the read "
        "command included; to let it read its peers unasked, start it with "
        "`--allow-tool 'shell(<project>/.termsprawl/bin/termsprawl-context)'` and `--deny-tool "
        "'shell(<project>/.termsprawl/bin/termsprawl-context links:*)'` (the same for index, init, hook, mcp): "
        "its rules match the command and subcommand, not the flags, so every reading subcommand stays allowed"
    )
    unrecorded_at_root = (
        "Copilot CLI did not run the project's hook: the folder is not trusted, or it was started before "
        "`init`: quit it and start %(start)s at the project root, trusting the folder"
    )

    home_variables = ((facts.HOME_ENV, ""),)
    home_default = facts.HOME_SUBDIR
    store_subdirs = (facts.SESSION_STATE_SUBDIR,)

    def _events_path(self, session_id, environ=None):
        """The record of the session ``session_id`` (checked), or "" when it cannot name one."""
        roots = self.store_roots(environ) if facts.is_session_id(session_id) else []
        return os.path.join(roots[0], session_id, facts.EVENTS_FILE) if roots else ""

    def _head(self, path):
        # ``session.start``'s data names the session, and its context the directory.
        data = head_record(path, _is_start).get("data", {})
        context = data.get("context")
        return as_str(data.get("sessionId")), as_str(context.get("cwd") if isinstance(context, dict) else None)

    def session_id_of(self, path):
        folder, name = os.path.split(path)
        found = os.path.basename(folder)
        return found if name == facts.EVENTS_FILE and facts.is_session_id(found) else ""

    def sniff(self, first):
        return _is_start(first) and "copilotVersion" in first["data"]

    answers = (Q_ENTRIES, Q_IDENTITY)

    def subagent_parent(self, path):
        return (False, "") if self.stable_id(path) else None

    # --- hooks -------------------------------------------------------------------------------
    def is_hook_payload(self, payload, environ=None):
        """A ``sessionStart`` payload: a ``sessionId`` and no Claude-shaped fields, whose
        session folder is in this store (or run from Copilot CLI's hook environment)."""
        session_id = payload.get(facts.PAYLOAD_SESSION_ID)
        if not facts.is_session_id(session_id) or "session_id" in payload or "transcript_path" in payload:
            return False
        env = os.environ if environ is None else environ
        path = self._events_path(session_id, env)
        return env.get(facts.HOOK_ENV) == "1" or bool(path and os.path.isdir(os.path.dirname(path)))

    def hook_payload(self, payload, environ=None):
        """The payload in the shape the recorder checks: ``session_id``, the
        ``transcript_path`` its id names in this store, ``cwd`` and ``source``."""
        session_id = payload.get(facts.PAYLOAD_SESSION_ID)
        adapted = dict(payload)
        if isinstance(session_id, str) and "session_id" not in payload:
            adapted["session_id"] = session_id
            path = self._events_path(session_id, environ)
            if path:
                adapted["transcript_path"] = path
        source = payload.get("source")
        adapted["source"] = facts.PAYLOAD_SOURCES.get(source, "") if isinstance(source, str) else ""
        adapted["cwd"] = as_str(payload.get("cwd"))
        return adapted

    def session_start_output(self, system_message=None, additional_context=None, session_title=None):
        """1.0.102 passes a top-level ``additionalContext`` to the model (a user message of
        its own before the first prompt, on resume too) and shows nothing else: a warning
        for the person goes to the model, to pass on."""
        text = relay_to_person(additional_context, system_message)
        return {"additionalContext": text} if text else {}

    def owned_files(self, project, command=""):
        """The project hook file that runs ``hook`` at every session start (whole, ours)."""
        command = "exec %s/%s hook --harness %s" % (self.hook_start_dir, INSTALLED_COMMAND, self.name)
        hook = {"type": "command", "bash": command, "timeoutSec": facts.HOOK_TIMEOUT_SECONDS}
        body = json.dumps({"version": 1, "hooks": {facts.HOOK_EVENT: [hook]}}, indent=2)
        text = facts.MANAGED_MARKER + "\n" + body[1:].lstrip("\n") + "\n"
        return [(facts.HOOK_FILE, text.encode("utf-8"), 0o644)]


HARNESS = CopilotHarness()
