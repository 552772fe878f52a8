"""Claude Code's own facts, in one place: the store, the folder encoding, record field
names, title record kinds, the text the harness injects into a conversation, the settings
file and hook entry, the skill path (the hook's payload and JSON output: claude_hooks.py).

Observed on Claude Code 1.0 through 2.x records and documented behaviour; when Claude
Code changes shape, this module is what changes. Nothing here reads a file: paths are
computed from an environment mapping so that tests inject one.
"""

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Mapping, Optional

# The facts other modules read, packed (one a line would be a sixth of the file).
# fmt: off
__all__ = [
    "AGENT_FILE_PREFIX", "AGENT_LAUNCH_WORD", "AGENT_META_SUFFIX", "ANSWER_JOIN", "ANSWER_PREFIXES",
    "ANSWER_PREVIEW_MARK", "ANSWER_TRAILERS", "COMMAND_ARGS_TAG", "COMMAND_NAME_TAG", "COMPACTION_PREFIX",
    "CONFIG_DIR_ENV", "DELEGATION_TOOLS", "FIELD_AGENT_ID", "FIELD_AI_TITLE", "FIELD_ATTACHMENT", "FIELD_CUSTOM_TITLE",
    "FIELD_CWD", "FIELD_GIT_BRANCH", "FIELD_IS_COMPACT_SUMMARY", "FIELD_IS_META", "FIELD_IS_SIDECHAIN",
    "FIELD_IS_VISIBLE_IN_TRANSCRIPT_ONLY", "FIELD_LEAF_UUID", "FIELD_LOGICAL_PARENT_UUID", "FIELD_MESSAGE",
    "FIELD_ORIGIN", "FIELD_PARENT_UUID", "FIELD_PROMPT_SOURCE", "FIELD_RENDERED_ROLE", "FIELD_SESSION_ID",
    "FIELD_SUMMARY", "FIELD_TIMESTAMP", "FIELD_TOOL_USE_RESULT", "FIELD_TURN_COMPANION", "FIELD_TURN_ORIGIN",
    "FIELD_TYPE", "FIELD_UUID", "HARNESS", "HOOK_EVENT_SESSION_START", "HOOK_REFUSAL_MARK", "HOOK_REFUSAL_PREFIX",
    "INJECTED_PREFIXES", "INPUT_COMMAND", "INPUT_FILE_PATH", "INPUT_PATH_KEYS", "INPUT_QUESTION", "INPUT_QUESTIONS",
    "INPUT_RUN_IN_BACKGROUND", "LOCAL_COMMAND_ANSWERS", "LOCAL_COMMAND_CAVEAT", "LOCAL_COMMAND_CAVEAT_OPEN",
    "LOCAL_COMMAND_OPEN", "MEMORY_FILE", "MEMORY_IMPORT_PREFIX", "META_AGENT_TYPE", "META_DESCRIPTION",
    "META_SPAWN_DEPTH", "META_TOOL_USE_ID", "NOTICE_PREFIXES", "NOT_RUN_DENIED", "NOT_RUN_DENIED_OPENING",
    "NOT_RUN_HOOK", "NOT_RUN_PREFIXES", "ORIGIN_KIND", "ORIGIN_KINDS_PERSON", "ORIGIN_KIND_TASK", "PROJECTS_SUBDIR",
    "PROJECT_CONFIG_DIR", "PROJECT_DIR_ENV", "PROMPT_COMMAND_OPEN", "PROMPT_SOURCES_PERSON", "PROMPT_SOURCE_SYSTEM",
    "QUEUED_COMMAND", "QUEUED_PROMPT_MODE", "SETTINGS_LOCAL_FILE", "SETTINGS_LOCAL_NAME",
    "SUBAGENTS_DIR", "TASK_NOTIFICATION_MODE", "TASK_NOTIFICATION_OPEN", "TASK_STATUS_TAG",
    "TASK_SUMMARY_TAG", "TASK_TERMINAL_STATUSES", "TITLE_AI", "TITLE_CUSTOM", "TITLE_SUMMARY", "TOOL_ASK_USER_QUESTION",
    "TOOL_BASH", "TOOL_TASK_OUTPUT", "TRANSCRIPT_SUFFIX", "TURN_ORIGINS_PERSON", "TURN_ORIGIN_TASK", "TYPE_ASSISTANT",
    "TYPE_ATTACHMENT", "TYPE_SYSTEM", "TYPE_USER", "config_dir", "current_session_path", "encode_project_dir",
    "is_plain_name", "project_dir", "projects_dir", "resolve_work_dir", "rules_file", "skill_file",
]
# fmt: on


# --- the store --------------------------------------------------------------------------
CONFIG_DIR_ENV = "CLAUDE_CONFIG_DIR"  # overrides ~/.claude
CONFIG_DIR_NAME = ".claude"
PROJECTS_SUBDIR = "projects"
SUBAGENTS_DIR = "subagents"  # <session>/subagents/agent-<id>.jsonl
WORKFLOWS_DIR = "workflows"  # <session>/subagents/workflows/wf_<id>/agent-<id>.jsonl
WORKFLOW_PREFIX = "wf_"
AGENT_FILE_PREFIX = "agent-"
TRANSCRIPT_SUFFIX = ".jsonl"
AGENT_META_SUFFIX = ".meta.json"  # agent-<id>.meta.json beside agent-<id>.jsonl
# The meta companion's fields: {agentType, description, toolUseId, spawnDepth}. toolUseId is
# the id of the tool_use, in the dispatching record, that started the sub-agent.
META_AGENT_TYPE = "agentType"
META_DESCRIPTION = "description"
META_TOOL_USE_ID = "toolUseId"
META_SPAWN_DEPTH = "spawnDepth"

# --- the running session ---------------------------------------------------------------
# Claude Code (2.1.132 and later) sets this in the environment of the Bash tool's
# subprocesses, matching the hook payload's session_id.
SESSION_ID_ENV = "CLAUDE_CODE_SESSION_ID"
# Ours, not Claude Code's: the record a hook resolved, for a tool that hook started (the
# reference's SR_TRANSCRIPT); used verbatim when the harness names no session.
TRANSCRIPT_ENV = "TERMSPRAWL_TRANSCRIPT"

# --- the project ------------------------------------------------------------------------
PROJECT_DIR_ENV = "CLAUDE_PROJECT_DIR"  # set by Claude Code for hooks and tools
PROJECT_CONFIG_DIR = ".claude"
SETTINGS_LOCAL_NAME = "settings.local.json"
# Personal settings: Claude Code keeps the file out of git when it creates it (through
# the user's global excludes); a file made by anything else is not, so init does it.
SETTINGS_LOCAL_FILE = os.path.join(PROJECT_CONFIG_DIR, SETTINGS_LOCAL_NAME)
SKILLS_DIR = os.path.join(PROJECT_CONFIG_DIR, "skills")
SKILL_FILE_NAME = "SKILL.md"
MEMORY_FILE = "CLAUDE.md"  # read at launch; imports other files with @path
HOOK_EVENT_SESSION_START = "SessionStart"

# --- record fields ----------------------------------------------------------------------
FIELD_TYPE = "type"
FIELD_UUID = "uuid"
FIELD_PARENT_UUID = "parentUuid"
FIELD_LOGICAL_PARENT_UUID = "logicalParentUuid"  # set on the first record after a compaction
FIELD_SESSION_ID = "sessionId"
FIELD_TIMESTAMP = "timestamp"
FIELD_CWD = "cwd"
FIELD_GIT_BRANCH = "gitBranch"
FIELD_IS_SIDECHAIN = "isSidechain"
FIELD_IS_META = "isMeta"
FIELD_IS_COMPACT_SUMMARY = "isCompactSummary"
FIELD_IS_VISIBLE_IN_TRANSCRIPT_ONLY = "isVisibleInTranscriptOnly"
FIELD_AGENT_ID = "agentId"
FIELD_MESSAGE = "message"
FIELD_TOOL_USE_RESULT = "toolUseResult"
FIELD_ATTACHMENT = "attachment"
# Fields of the title and summary records.
FIELD_CUSTOM_TITLE = "customTitle"  # on custom-title records
FIELD_AI_TITLE = "aiTitle"  # on ai-title records
FIELD_SUMMARY = "summary"  # on summary records
FIELD_LEAF_UUID = "leafUuid"  # a summary naming another session's leaf message

# The record types that carry a conversation turn; others are kept verbatim as unknown.
TYPE_USER = "user"
TYPE_ASSISTANT = "assistant"
TYPE_SYSTEM = "system"
TYPE_ATTACHMENT = "attachment"

# Title records: the person's /rename, the harness's generated title, the 1.x summary.
TITLE_CUSTOM = "custom-title"
TITLE_AI = "ai-title"
TITLE_SUMMARY = "summary"

# An attachment that is a prompt the person typed while the agent was busy.
QUEUED_COMMAND = "queued_command"
QUEUED_PROMPT_MODE = "prompt"

# --- text the harness injects into user-role messages -------------------------------------
# A user-role text that, once trimmed, starts with one of these was written by the
# harness, not typed by the person (the citation pool's exact list).
INJECTED_PREFIXES = (
    "<task-notification>",
    "[SYSTEM NOTIFICATION - NOT USER INPUT]",
    "<system-reminder>",
    "<local-command",  # <local-command-stdout>, <local-command-stderr>, <local-command-caveat>
    "<command-name>",
    "<command-message>",
    "<command-args>",
)
# Notices the harness adds beside a typed prompt (IDE context, caveats before local command
# output, interruption markers): not typed by the person either, but outside the citation
# pool's exact list, so kept apart.
NOTICE_PREFIXES = (
    "<ide_opened_file>",
    "<ide_selection>",
    "<ide_diagnostics>",
    "Caveat: The messages below were generated by the user while running local commands.",
    "[Request interrupted by user",
    # Output of a command the person ran in bash mode (``!ls``): the shell's, not theirs.
    "<bash-stdout>",
    "<bash-stderr>",
    "<user-prompt-submit-hook>",  # a UserPromptSubmit hook's output shown beside the prompt
)
# The caveat record the harness writes before a local command's envelope and output
# (``<local-command-caveat>Caveat: ...`` since 2.1.x, the bare ``Caveat: ...`` before).
LOCAL_COMMAND_CAVEAT_OPEN = "<local-command-caveat>"
LOCAL_COMMAND_CAVEAT = "Caveat: The messages below were generated by the user while running local commands."
# A local command's envelope opens with its name; a command whose expansion reaches the
# model (a custom command, /init, /review) opens with its message instead (observed from
# 1.0.x to 2.1.328: ``<command-message>review</command-message>\n<command-name>/review...``).
LOCAL_COMMAND_OPEN = "<command-name>"
PROMPT_COMMAND_OPEN = "<command-message>"
# What a local command answered, written as a plain user text after its envelope by older
# clients (held-out store: a session titled "Unknown skill: hookify" after /hookify).
LOCAL_COMMAND_ANSWERS = ("Unknown skill: ", "Unknown command: ")
# A slash command the person ran, as the harness records it in a user-role text:
# ``<command-message>…</command-message><command-name>/x</command-name><command-args>…</command-args>``.
COMMAND_NAME_TAG = "command-name"
COMMAND_ARGS_TAG = "command-args"
# Explicit "who produced this turn" fields of a user record (2.1.328; absent in the
# corpus's 1.0.24 to 2.1.114 files). transcript.entry's SIGNALS table says what each means.
FIELD_PROMPT_SOURCE = "promptSource"  # "typed" | "sdk" | "system"
FIELD_TURN_ORIGIN = "turnOrigin"  # "human" | "sdk" | "task_notification"
FIELD_ORIGIN = "origin"  # {"kind": "human"} | {"kind": "task-notification", "producer", "runId"}
ORIGIN_KIND = "kind"
FIELD_TURN_COMPANION = "turnCompanion"  # true on a slash command's expansion (with isMeta)
PROMPT_SOURCES_PERSON = ("typed", "sdk")
PROMPT_SOURCE_SYSTEM = "system"
TURN_ORIGINS_PERSON = ("human", "sdk")
TURN_ORIGIN_TASK = "task_notification"
ORIGIN_KINDS_PERSON = ("human",)
ORIGIN_KIND_TASK = "task-notification"
# An attachment's text as the model saw it, and in which role (2.1.328): never typed.
FIELD_RENDERED = "rendered"
FIELD_RENDERED_ROLE = "renderedRole"
# A task notification's parts that may be shown: what finished and how; never its ids or
# output file (internal paths under /tmp/claude-<uid>/).
TASK_SUMMARY_TAG = "summary"
TASK_STATUS_TAG = "status"
# The compaction summary's opening words (older records lack isCompactSummary).
COMPACTION_PREFIX = "This session is being continued from a previous conversation"

# --- tool calls that never ran ------------------------------------------------------------
# A tool_result marked is_error whose body opens with one of these
# is the harness saying the call did not run, not the tool's own output; measured on real
# records. Kind name -> openings.
NOT_RUN_HOOK = "hook"  # a PreToolUse hook blocked the call
NOT_RUN_PERMISSION = "permission"  # the person did not grant it
NOT_RUN_INTERRUPTED = "interrupted"
NOT_RUN_TOOL_ERROR = "tool_use_error"  # the tool refused its input before running
NOT_RUN_SAFETY = "safety_check"  # the shell tool's own safety check
NOT_RUN_DENIED_OPENING = "Permission to use "
NOT_RUN_DENIED = " has been denied"  # the rest of "Permission to use <tool> has been denied"
NOT_RUN_PREFIXES = (
    (NOT_RUN_HOOK, ("Tool call blocked by a PreToolUse hook: ",)),
    (
        NOT_RUN_PERMISSION,
        (
            "The user doesn't want to ",
            NOT_RUN_DENIED_OPENING,  # counts only with NOT_RUN_DENIED after it
            "Claude requested permissions to use ",
            "This command requires approval",
            "This Bash command contains multiple operations. The following part requires approval: ",
            "Tool permission request",
        ),
    ),
    (NOT_RUN_INTERRUPTED, ("[Request interrupted by user for tool use]",)),
    (NOT_RUN_TOOL_ERROR, ("<tool_use_error>",)),
    (NOT_RUN_SAFETY, ("Contains brace with quote character",)),
)

# --- the harness interface (harness/base.py) ------------------------------------------------
from termsprawl_context.harness.base import Harness, ProjectSession, Session  # noqa: E402
from termsprawl_context.harness.base import head_value, recent_files, under  # noqa: E402


class ClaudeCodeHarness(Harness):
    """Claude Code behind the interface: its records already are the record model's
    shape, so ``entries`` is ``entry_of`` line by line."""

    name = "claude-code"
    label = "Claude Code"
    transcript_suffix = TRANSCRIPT_SUFFIX
    hook_settings_file = SETTINGS_LOCAL_FILE
    instruction_file = MEMORY_FILE
    hook_event_session_start = HOOK_EVENT_SESSION_START
    # Started in a subdirectory, Claude Code may name it as its project: the walk starts there.
    hook_start_dir = '"${%s:-$PWD}"' % PROJECT_DIR_ENV
    hook_names_itself = False
    command = "claude"
    cli_option = "claude"
    init_options = ("hook", "claude_md")
    init_option_help = (
        "register the SessionStart hook in DIR/%(settings)s (kept out of git)",
        # (the file `workspace.discovery.CLAUDE_RULES_FILE` names; a test holds the two equal)
        "write the instruction block to DIR/.claude/rules/termsprawl-context.md, which Claude Code loads at launch "
        "from the project root or any folder below it, with no import to approve",
    )
    instruction_import_prefix = property(lambda self: MEMORY_IMPORT_PREFIX)  # type: ignore[assignment]  # below
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
        projects = projects_dir(None, environ)
        return [projects] if projects else []

    def config_dirs(self, environ=None):
        found = config_dir(environ)
        return [found] if found else []

    def project_sessions(self, project, environ=None, since=0.0):
        """Sessions of the project's folder in the store, and of every folder whose name
        starts with it (a subdirectory's, the name being lossy: its records' ``cwd`` decides)."""
        root = projects_dir(None, environ)
        own = encode_project_dir(resolve_work_dir(project))
        try:
            folders = [n for n in os.listdir(root) if n == own or n.startswith(own + "-")] if root else []
        except OSError:
            folders = []
        real = resolve_work_dir(project)
        found = []
        for folder in folders:
            try:
                names = os.listdir(os.path.join(root, folder))
            except OSError:
                continue
            paths = [os.path.join(root, folder, n) for n in names if n.endswith(TRANSCRIPT_SUFFIX)]
            for mtime, path in recent_files(paths, since):
                cwd = head_value(path, lambda record: record.get(FIELD_CWD))
                if folder != own and not (cwd and under(resolve_work_dir(cwd), real)):
                    continue
                session = Session(self.name, os.path.basename(path)[: -len(TRANSCRIPT_SUFFIX)], path)
                found.append(ProjectSession(session, mtime, cwd or project))
        found.sort(key=lambda one: one.mtime, reverse=True)
        return found

    def sessions(self, environ=None):
        for root in self.store_roots(environ):
            try:
                folders = sorted(os.listdir(root))
            except OSError:
                continue
            for folder in folders:
                try:
                    names = sorted(os.listdir(os.path.join(root, folder)))
                except OSError:
                    continue
                for name in names:
                    if name.endswith(TRANSCRIPT_SUFFIX):
                        yield Session(self.name, name[: -len(TRANSCRIPT_SUFFIX)], os.path.join(root, folder, name))

    def sniff(self, first):
        return FIELD_TYPE in first and (FIELD_UUID in first or FIELD_SESSION_ID in first)

    def entries(self, path):
        from termsprawl_context.jsonl import iter_lines, open_regular, parse_object
        from termsprawl_context.transcript.entry import entry_of

        with open_regular(path) as f:
            for line in iter_lines(f):
                record = parse_object(line.raw)
                if record is not None:
                    yield entry_of(record, line.number, line.offset)

    def supports(self, question):
        return True  # every reader was written against Claude Code's records

    # (init plants Claude Code's hook through workspace/hook_settings.py's own HOOK_ENTRY.)

    def session_start_output(self, system_message=None, additional_context=None, session_title=None):
        from termsprawl_context.harness.claude_hooks import session_start_output

        return session_start_output(system_message, additional_context, session_title)


HARNESS = ClaudeCodeHarness()


# --- memory (CLAUDE.md) ---------------------------------------------------------------------
# CLAUDE.md files are read at launch from the working directory up to (not including)
# the root; a line `@path` imports another file (relative to the importing file), but not
# inside a code span or block. Claude Code never reads AGENTS.md, nor files in dot-folders
# unless imported.
MEMORY_IMPORT_PREFIX = "@"

# --- skills -----------------------------------------------------------------------------
# SKILL.md opens with YAML frontmatter: `name` (lowercase, digits, hyphens; the folder's
# name), `description` (what the model matches a request against to load the skill:
# what it does and when to use it, up to 1024 characters) and `allowed-tools` (tools the
# skill may use without a permission prompt while active, e.g. `Bash(cmd:*)` for one
# command with any arguments).
SKILL_NAME_FIELD = "name"
SKILL_DESCRIPTION_FIELD = "description"
SKILL_ALLOWED_TOOLS_FIELD = "allowed-tools"
SKILL_DESCRIPTION_MAX = 1024

_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def config_dir(environ: "Optional[Mapping[str, str]]" = None) -> str:
    """The harness's configuration directory: ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``;
    "" when no home can be found."""
    env = os.environ if environ is None else environ
    explicit = (env.get(CONFIG_DIR_ENV) or "").strip()
    if explicit:
        return explicit
    home = env.get("HOME") or ""
    if not home and environ is None:
        home = os.path.expanduser("~")  # HOME unset: the password database's answer
        if home == "~":
            home = ""
    if not home:
        return ""
    return os.path.join(home, CONFIG_DIR_NAME)


def projects_dir(explicit: "Optional[str]" = None, environ: "Optional[Mapping[str, str]]" = None) -> str:
    """The projects directory: ``explicit`` if given, else ``<config dir>/projects``.

    Made absolute, so every path printed from it can be opened from anywhere."""
    if explicit:
        return os.path.abspath(explicit)
    base = config_dir(environ)
    return os.path.abspath(os.path.join(base, PROJECTS_SUBDIR)) if base else ""


def encode_project_dir(directory: str) -> str:
    """The harness's folder name for a working directory: every character that is not
    an ASCII letter or digit becomes ``-``, one for one. Lossy by the harness's design:
    ``/a/b-c`` and ``/a/b/c`` share a folder."""
    return "".join(c if c in _ALNUM else "-" for c in directory)


def resolve_work_dir(directory: str) -> str:
    """``directory`` with symlinks resolved; a missing tail is re-joined onto its
    longest existing ancestor, resolved. "" stays ""; any failure returns the input."""
    if not directory:
        return ""
    try:
        absolute = os.path.abspath(directory)
        existing, tail = absolute, []
        while not os.path.exists(existing):
            parent, name = os.path.split(existing)
            if parent == existing:
                break
            tail.append(name)
            existing = parent
        resolved = os.path.realpath(existing)
        return os.path.join(resolved, *reversed(tail)) if tail else resolved
    except (OSError, ValueError):
        return directory


def project_dir(config: str, directory: str) -> str:
    """Where the harness keeps the transcripts of sessions run in ``directory``."""
    if not config:
        return ""
    return os.path.join(config, PROJECTS_SUBDIR, encode_project_dir(resolve_work_dir(directory)))


def skill_file(name: str) -> str:
    """A project's skill file for ``name``, relative to the project directory."""
    return os.path.join(SKILLS_DIR, name, SKILL_FILE_NAME)


# 2.1.328 loads every `.claude/rules/*.md` of the launch folder and of each folder above it
# with no prompt; an `@` import of a file outside the launch folder asks "Allow external
# CLAUDE.md file imports?" there, and its default No is saved (seen in its TUI).
RULES_DIR = os.path.join(PROJECT_CONFIG_DIR, "rules")


def rules_file(name: str) -> str:
    """A project's rules file for ``name``, relative to the project directory."""
    return os.path.join(RULES_DIR, name + ".md")


# --- tools, results and notices the citations and background-agent readers know --------
TOOL_BASH = "Bash"
TOOL_ASK_USER_QUESTION = "AskUserQuestion"
TOOL_TASK_OUTPUT = "TaskOutput"  # returns a background task's output (maybe an agent's reply)
DELEGATION_TOOLS = ("Agent", "Task")  # dispatch a sub-agent; the result is its model-written reply
# Tool inputs that name a file the call reads.
INPUT_COMMAND = "command"
INPUT_PATH_KEYS = ("file_path", "path", "notebook_path")
INPUT_FILE_PATH = "file_path"
INPUT_RUN_IN_BACKGROUND = "run_in_background"
# An AskUserQuestion answer comes back as a tool result opening (somewhere) with one of
# these, then `"<question>"="<answer>", ...`, then one of the trailers.
ANSWER_PREFIXES = (
    "The user answered:",
    "Your questions have been answered:",
    "User has answered your questions:",
)  # the last: 2.0.x-2.1.14 (corpus)
ANSWER_TRAILERS = (
    ". Read the answers",
    ". You can now continue with these answers",
    ". You can now continue with the user's answers",
)
ANSWER_JOIN = '"="'
# 2.1.328 writes the preview of the option picked after its answer: the model's text.
ANSWER_PREVIEW_MARK = '" selected preview:\n'
INPUT_QUESTIONS = "questions"  # an AskUserQuestion call's input: [{"question": ..., "options": ...}]
INPUT_QUESTION = "question"
# A PreToolUse hook that blocked a call: the tool result "PreToolUse:<Tool> hook error: <reason>".
HOOK_REFUSAL_PREFIX = "PreToolUse:"
HOOK_REFUSAL_MARK = " hook error: "
# A background task's end, as the harness tells the model (a user text or a queued
# command in task-notification mode).
TASK_NOTIFICATION_OPEN = "<task-notification>"
TASK_NOTIFICATION_MODE = "task-notification"
TASK_TERMINAL_STATUSES = ("completed", "failed", "killed", "stopped")
# The receipt of a background Agent call names the agent: "... launched ...\nagentId: <id>".
AGENT_LAUNCH_WORD = "launched"


def is_plain_name(value: str) -> bool:
    """A non-empty single path component: no separator of either kind, not ``.``/``..``.
    Ids that become file names must be one (a session id, an agent id)."""
    return bool(value) and "/" not in value and "\\" not in value and value not in (".", "..")


def current_session_candidates(environ: "Optional[Mapping[str, str]]" = None, cwd: str = ""):
    """Where the running session's own record may be, in the order to try it: for each
    directory from ``cwd`` (default: the process's) up to the filesystem root,
    ``(<its project dir>/<session id>.jsonl, that directory)``; then every
    ``<config>/projects/*/<session id>.jsonl``, sorted, with "" for the directory (no
    tree to check). Nothing when the environment names no session, or names one that
    is not a plain name. Lazy: the projects directory is listed only if reached."""
    env = os.environ if environ is None else environ
    session_id = (env.get(SESSION_ID_ENV) or "").strip()
    if not is_plain_name(session_id):
        return
    name = session_id + TRANSCRIPT_SUFFIX
    config = config_dir(environ)
    if not cwd:
        try:
            cwd = os.getcwd()
        except OSError:
            return
    current = os.path.normpath(os.path.abspath(cwd))
    while True:
        folder = project_dir(config, current)
        if folder:
            yield os.path.join(folder, name), current
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    if not config:
        return
    projects = os.path.join(config, PROJECTS_SUBDIR)
    try:
        folders = sorted(os.listdir(projects))
    except OSError:
        return
    for folder in folders:
        yield os.path.join(projects, folder, name), ""


def current_session_path(environ: "Optional[Mapping[str, str]]" = None, cwd: str = "", accept=None) -> str:
    """The running session's own record (the reference's CurrentSessionPath), or "": the
    first of ``current_session_candidates`` that ``accept(path, session id, tree)``
    takes (default: a regular file is there; the store's
    ``identity.current_session_path`` adds the belongs-to checks), else
    ``$TERMSPRAWL_TRANSCRIPT`` verbatim."""
    env = os.environ if environ is None else environ
    session_id = (env.get(SESSION_ID_ENV) or "").strip()
    for candidate, tree in current_session_candidates(environ, cwd):
        if not os.path.isfile(candidate):
            continue
        if accept is None or accept(candidate, session_id, tree):
            return candidate
    return env.get(TRANSCRIPT_ENV) or ""
