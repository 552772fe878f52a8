"""Claude Code behind ``harness/base.py``'s interface (its records are the model's shape:
``entries`` is ``model.entry_of`` line by line). Its facts, permission rules and hook payload
and output are in ``facts.py``, session listing in ``session_scan.py``."""

import os

from termsprawl_context.harness import base
from termsprawl_context.harness.claude import facts
from termsprawl_context.jsonl import iter_lines, iter_lines_reverse, open_regular, parse_object
from termsprawl_context.model import FIELD_CWD, FIELD_SESSION_ID, FIELD_TYPE, FIELD_UUID, Session, entry_of


def _lazy(module, function):
    """A method calling ``module.function``, imported at the first call (most runs need few of these)."""

    def method(self, *args, **kwargs):
        import importlib

        return getattr(importlib.import_module(module), function)(*args, **kwargs)

    return method


class ClaudeCodeHarness(base.Harness):
    """Claude Code behind the interface."""

    name = "claude-code"
    label = "Claude Code"
    transcript_suffix = facts.TRANSCRIPT_SUFFIX
    hook_settings_file = facts.SETTINGS_LOCAL_FILE
    instruction_file = facts.MEMORY_FILE
    # Started in a subdirectory, Claude Code may name it as its project: the walk starts there.
    hook_start_dir = '"${%s:-$PWD}"' % facts.PROJECT_DIR_ENV
    hook_names_itself = False
    native_records = True
    root_option = "projects-dir"
    project_folder = staticmethod(facts.project_folder)  # its store's folder for a working directory
    project_dir_env = facts.PROJECT_DIR_ENV
    hook_title_field = facts.HOOK_OUTPUT_SESSION_TITLE
    command = "claude"
    init_options = ("hook", "claude_md")
    init_option_help = (
        "register the SessionStart hook in DIR/%(settings)s (kept out of git)",
        # (the file `workspace.discovery.RULES_FILE` names; a test holds the two equal)
        "write the instruction block to DIR/.claude/rules/termsprawl-context.md, which Claude Code loads at launch "
        "from the project root or any folder below it, with no import to approve",
    )
    instruction_import_prefix = facts.MEMORY_IMPORT_PREFIX
    skill_dir_variable = facts.SKILL_DIR_VARIABLE
    shared_settings_file = facts.SETTINGS_FILE_SHARED
    settings_allow_keys = (facts.SETTINGS_PERMISSIONS, facts.SETTINGS_ALLOW)
    skill_file = staticmethod(facts.skill_file)
    rules_file = staticmethod(facts.rules_file)
    read_rules = staticmethod(facts.read_rules)
    skill_rule = staticmethod(facts.skill_rule)
    rule_matches = staticmethod(facts.bash_rule_matches)
    setup_steps = (
        "Claude Code asks, at the first start in this folder, to trust it and its hooks: accept both "
        "(from a subdirectory it reads the project's settings only in a git repository: start it at the "
        "project root)"
    )
    unrecorded_at_root = (
        "its SessionStart hook did not record it: the project's hooks were not accepted, it was started "
        "before `init`, or without a node id (its message then said so): quit it and start "
        "%(start)s at the project root, accepting the project's hooks"
    )

    # Observed with the 2.1.328 TUI: an `@` import of a file outside the working directory
    # asks once per folder; files it loads itself (CLAUDE.md, .claude/CLAUDE.md of each
    # folder above) never ask.
    subdir_import_note = (
        'Claude Code was started in %(dir)s, below the project root: there it asks "Allow external CLAUDE.md '
        'file imports?" for the CLAUDE.md line that imports the instruction block, and the default "No" is '
        "saved for that folder, so the block never reaches its model from there: remove that line (`init "
        "--claude-md` writes the block to .claude/rules/, which Claude Code loads from any folder with no "
        "prompt), or answer Yes, or start it at the project root"
    )

    def store_roots(self, environ=None):
        projects = facts.projects_dir(None, environ)
        return [projects] if projects else []

    def is_session_file_name(self, name):
        """``<36-character stem>.jsonl``, not an ``agent-`` file (only the length is checked, as the seed does)."""
        return (
            name.endswith(facts.TRANSCRIPT_SUFFIX)
            and not name.startswith(facts.AGENT_FILE_PREFIX)
            and len(name) - len(facts.TRANSCRIPT_SUFFIX) == facts.SESSION_ID_LENGTH
        )

    def config_dirs(self, environ=None):
        found = facts.config_dir(environ)
        return [found] if found else []

    def project_sessions(self, project, environ=None, since=0.0):
        """Sessions of the project's folder and of folders named as below it (the name is lossy: ``cwd`` decides)."""
        root = facts.projects_dir(None, environ)
        real = base.resolve_dir(project)
        own = facts.encode_project_dir(real)
        folders = [n for n in base.listing(root) if n == own or n.startswith(own + "-")] if root else []
        found = []
        for folder in folders:
            names = base.listing(os.path.join(root, folder))
            paths = [os.path.join(root, folder, n) for n in names if n.endswith(facts.TRANSCRIPT_SUFFIX)]
            for mtime, path in base.recent_files(paths, since):
                cwd = base.head_value(path, lambda record: record.get(FIELD_CWD))
                if folder != own and not (cwd and base.under(base.resolve_dir(cwd), real)):
                    continue
                session = Session(self.name, os.path.basename(path)[: -len(facts.TRANSCRIPT_SUFFIX)], path)
                found.append(base.ProjectSession(session, mtime, cwd or project))
        found.sort(key=lambda one: one.mtime, reverse=True)
        return found

    describe = _lazy("termsprawl_context.harness.claude.session_scan", "describe_alone")
    describe_store = _lazy("termsprawl_context.harness.claude.session_scan", "describe_store")

    def rank_copies(self, paths, greatest_timestamp):
        """As ``locate`` ranks holders: greatest timestamp first, ties by the smaller path."""
        if len(paths) < 2:
            return list(paths)
        return sorted(sorted(paths), key=greatest_timestamp, reverse=True)  # stable: ties keep path order

    def sniff(self, first):
        return FIELD_TYPE in first and (FIELD_UUID in first or FIELD_SESSION_ID in first)

    def entries(self, path):
        with open_regular(path) as f:
            for line in iter_lines(f):
                record = parse_object(line.raw)
                if record is not None:
                    yield entry_of(record, line.number, line.offset)

    def entries_reverse(self, path):
        with open_regular(path) as f:
            for offset, raw in iter_lines_reverse(f):
                record = parse_object(raw)
                if record is not None:
                    yield entry_of(record, 0, offset)

    def record_entries(self, path, mark="", calls=False):
        """Fail-closed (``transcript.record.iter_entries``): the whole record is checked before the first entry."""
        from termsprawl_context.transcript import record

        return record.entries_after(lambda: record.iter_entries(path), mark, calls, lambda: record.check_readable(path))

    last_turns = _lazy("termsprawl_context.transcript.turns", "read_turns")  # the seed's: raw records from the end

    def hook_transcript(self, path, session_id, source, store=""):
        """Where a resumed session's record really is (the payload may name another folder)."""
        from termsprawl_context.harness.claude.belongs import relocate_record

        return relocate_record(store or facts.projects_dir(None), path, source)

    # --- sub-agents and identity ------------------------------------------------------------
    subagent_paths = _lazy("termsprawl_context.harness.claude.subagents", "child_records")
    subagent_tree = _lazy("termsprawl_context.harness.claude.subagents", "subagent_tree")
    dispatcher = _lazy("termsprawl_context.harness.claude.subagents", "find_parent")
    check_session = _lazy("termsprawl_context.harness.claude.belongs", "check_belongs_to_session")
    check_tree = _lazy("termsprawl_context.harness.claude.belongs", "check_belongs_to_tree")

    def subagent_parent(self, path):
        """The record a ``subagents`` folder is filed under (``<session>.jsonl`` beside ``<session>/``)."""
        from termsprawl_context.harness.claude.subagents import is_subagent_record, session_dir_of_subagent

        if not is_subagent_record(path):
            return False, ""
        folder = session_dir_of_subagent(path)
        above = folder + facts.TRANSCRIPT_SUFFIX if folder else ""
        return True, above if above and os.path.isfile(above) else ""

    def subagent_id_of(self, path):
        """``agent-<id>.jsonl``: the id."""
        from termsprawl_context.harness.claude.subagents import is_agent_file_name

        name = os.path.basename(path)
        return name[len(facts.AGENT_FILE_PREFIX) : -len(facts.TRANSCRIPT_SUFFIX)] if is_agent_file_name(name) else ""

    def session_transcripts(self, path):
        """A record filed under no ``subagents`` folder tops its own tree (root or orphan: not read)."""
        from termsprawl_context.harness.claude.subagents import session_dir_of_subagent, subagent_tree

        if session_dir_of_subagent(path):
            return base.Harness.session_transcripts(self, path)
        return [path] + subagent_tree(path)

    def stable_id(self, path):
        """``identity`` in its own project folder; None when the walk is degraded (not proven)."""
        found, degraded, _unreadable, _folder = self.identity(path)
        return None if degraded is not None or not found else found

    def subagent_meta(self, path):
        """``agent-<id>.meta.json``: agent_type, description, tool_use_id, spawn_depth."""
        from termsprawl_context.harness.claude.subagents import read_agent_meta

        meta = read_agent_meta(path)
        return None if meta is None else meta._asdict()

    def identity(self, path, projects_dir=""):
        """The origin record's uuid, walked back across restarts through its project folder's transcripts."""
        from termsprawl_context.harness.claude.belongs import start_cwd
        from termsprawl_context.harness.claude.continuation import project_dir_of_record, resolve_stable_session_id

        folder = project_dir_of_record(path)
        cwd = start_cwd(path) if projects_dir else ""
        if cwd:
            folder = self.project_folder(os.path.abspath(projects_dir), cwd)
        answer = resolve_stable_session_id(folder, path)
        return answer.id, answer.degraded, answer.unreadable_siblings, folder

    answers = base.Q_ALL  # every reader was written against Claude Code's records

    legacy_hook_commands = ('"$CLAUDE_PROJECT_DIR"/.termsprawl/bin/termsprawl-context hook',)

    def hook_entry(self, command):
        return {"hooks": [{"type": "command", "command": command, "timeout": 10}]}

    def hook_roots(self, store, environ=None):
        """The store walked, plus ``$CLAUDE_CONFIG_DIR`` itself when it is set (the seed's legacy root)."""
        config = ((os.environ if environ is None else environ).get(facts.CONFIG_DIR_ENV) or "").strip()
        where = "Claude projects directory (%s)" % store if store else "Claude projects directory"
        return [root for root in (store, config) if root], where

    def harness_text_turns(self, path, limit):
        """Of the lines the dump prints (each user/assistant one with text), those no person or model wrote."""
        from termsprawl_context import model
        from termsprawl_context.transcript import entry as records
        from termsprawl_context.transcript.content import display_text
        from termsprawl_context.transcript.turns import TURN_ROLES

        not_theirs = printed = 0
        for entry in self.entries_reverse(path):
            if entry.type in TURN_ROLES and display_text(entry.content) is not None:  # as ``entry_turn`` reads
                printed += 1
                not_theirs += records.speaker(entry) not in (model.PERSON, model.ASSISTANT)
                if printed >= limit:
                    break
        return not_theirs


HARNESS = ClaudeCodeHarness()
