"""Claude Code's own facts, observed on 1.0 through 2.x and documented: the store and its
folder encoding, sub-agent files, the running session, the project's settings, memory, skill
files and permission rules, the hook's payload and output (its record shape is ``model.py``'s).
Nothing here reads a file: paths come from an environment mapping, so tests inject one.
"""

import os

from termsprawl_context.harness.base import home_dir, listing, resolve_dir

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Mapping, Optional


# --- the store --------------------------------------------------------------------------
CONFIG_DIR_ENV = "CLAUDE_CONFIG_DIR"  # overrides ~/.claude
CONFIG_DIR_NAME = ".claude"
PROJECTS_SUBDIR = "projects"
# <session>/subagents/agent-<id>.jsonl; a workflow's: <session>/subagents/workflows/wf_<id>/agent-<id>.jsonl
SUBAGENTS_DIR = "subagents"
AGENT_FILE_PREFIX = "agent-"
TRANSCRIPT_SUFFIX = ".jsonl"
SESSION_ID_LENGTH = 36  # a session file's stem is a UUID
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

# --- the SessionStart hook (observed on 2.1.x and documented) ---------------------------------
# The payload's fields (store/hook_input reads them): session_id, transcript_path, cwd,
# hook_event_name and, for SessionStart, source.
HOOK_SOURCES = ("startup", "resume", "clear", "compact")  # SessionStart's `source`
SOURCE_STARTUP = "startup"
SOURCE_CLEAR = "clear"  # /clear: a new session id and transcript in the same process
# A command hook's JSON output (stdout, exit 0): Claude Code parses stdout as JSON when
# it is one object, so nothing else may be printed there. Documented for SessionStart:
# `systemMessage` (common field: shown to the user, not to the model) and, under
# `hookSpecificOutput` (which must name its `hookEventName`), `additionalContext` (added to
# the model's context before the first prompt) and `sessionTitle` (sets the session's
# title, as /rename does; honoured from SessionStart since about v2.1.152, and Claude
# Code then writes a custom-title record into the transcript).
HOOK_OUTPUT_SPECIFIC = "hookSpecificOutput"
HOOK_OUTPUT_EVENT_NAME = "hookEventName"  # required inside hookSpecificOutput
HOOK_OUTPUT_SESSION_TITLE = "sessionTitle"  # the session's title
# The common fields every event accepts, and SessionStart's specific ones, with their
# JSON types: what a test checks hook output against.
HOOK_OUTPUT_COMMON_FIELDS = {
    "continue": bool,
    "stopReason": str,
    "suppressOutput": bool,
    "systemMessage": str,
    HOOK_OUTPUT_SPECIFIC: dict,
}
SESSION_START_SPECIFIC_FIELDS = {
    HOOK_OUTPUT_EVENT_NAME: str,
    "additionalContext": str,
    HOOK_OUTPUT_SESSION_TITLE: str,
}

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
SKILL_DESCRIPTION_MAX = 1024

_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def config_dir(environ: "Optional[Mapping[str, str]]" = None) -> str:
    """``$CLAUDE_CONFIG_DIR`` as written, else ``~/.claude``; "" without a home."""
    env = os.environ if environ is None else environ
    explicit = (env.get(CONFIG_DIR_ENV) or "").strip()
    if explicit:
        return explicit
    home = home_dir(environ)
    return os.path.join(home, CONFIG_DIR_NAME) if home else ""


def projects_dir(explicit: "Optional[str]" = None, environ: "Optional[Mapping[str, str]]" = None) -> str:
    """``explicit``, else ``<config dir>/projects``; absolute, so a path printed from it opens anywhere."""
    if explicit:
        return os.path.abspath(explicit)
    base = config_dir(environ)
    return os.path.abspath(os.path.join(base, PROJECTS_SUBDIR)) if base else ""


def encode_project_dir(directory: str) -> str:
    """The store's folder name for a working directory: each character but an ASCII letter or
    digit becomes ``-``. Lossy by the harness's design: ``/a/b-c`` and ``/a/b/c`` share one."""
    return "".join(c if c in _ALNUM else "-" for c in directory)


def project_folder(projects: str, directory: str) -> str:
    """The folder of store ``projects`` holding the transcripts of sessions run in ``directory``, symlinks resolved."""
    return os.path.join(projects, encode_project_dir(resolve_dir(directory)))


def project_dir(config: str, directory: str) -> str:
    """``project_folder`` of the store in config folder ``config`` ("": none)."""
    return project_folder(os.path.join(config, PROJECTS_SUBDIR), directory) if config else ""


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


# --- permission rules (what ``init`` writes and ``doctor`` checks) ---------------------------
# Observed with 2.1.328 (--permission-mode default, print and interactive mode alike):
# settings' "permissions": {"allow": [...]} holds rules `Bash(<command>)` (that command
# exactly, its words parsed as the shell would, quotes dropped), `Bash(<prefix> *)` (the
# prefix, then any arguments: `*` matches anything, spaces included), `Bash(<prefix>:*)`
# (the older spelling of the same prefix rule), bare `Bash` or `Bash(*)` (every command),
# and `Skill(<name>)` (the Skill tool may load that skill; without it print mode refuses).
# A command holding a shell variable (`$VAR`, `${VAR}`) never matches any rule, and a
# chained command (`&&`, `;`, a redirection) is asked about for each other part. A skill's
# `allowed-tools` takes the same rules while the skill runs, with ${CLAUDE_SKILL_DIR}
# replaced by the skill's folder, as in its text.
SETTINGS_PERMISSIONS = "permissions"
SETTINGS_ALLOW = "allow"
SETTINGS_FILE_SHARED = os.path.join(PROJECT_CONFIG_DIR, "settings.json")
SKILL_DIR_VARIABLE = "${CLAUDE_SKILL_DIR}"
BASH_TOOL = "Bash"


def read_rules(command: str, options) -> list:
    shapes = [command] + ["%s %s *" % (command, option) for option in options]
    return ["%s(%s)" % (BASH_TOOL, shape) for shape in shapes]


def skill_rule(name: str) -> str:
    return "Skill(%s)" % name


def bash_rule_matches(rule: str, command: str) -> bool:
    """Would ``rule`` let ``command`` (simple, no variables) run unasked? ``<prefix>:*`` is
    ``<prefix> *``, which also matches the prefix alone. Errs towards yes: it is used to warn."""
    import re

    rule = rule.strip()
    if rule == BASH_TOOL:
        return True
    if not (rule.startswith(BASH_TOOL + "(") and rule.endswith(")")):
        return False
    pattern = rule[len(BASH_TOOL) + 1 : -1].strip()
    if pattern.endswith(":*"):
        pattern = pattern[:-2] + " *"
    if pattern.endswith(" *") and command == pattern[:-2]:
        return True
    regex = ".*".join(re.escape(part) for part in pattern.split("*"))
    return re.fullmatch(regex, command, re.DOTALL) is not None


def is_plain_name(value: str) -> bool:
    """A non-empty single path component (not ``.``/``..``): what an id that becomes a file name must be."""
    return bool(value) and "/" not in value and "\\" not in value and value not in (".", "..")


def _candidates(session_id: str, environ: "Optional[Mapping[str, str]]", cwd: str):
    """``(<project dir>/<id>.jsonl, dir)`` for each directory from ``cwd`` up to the root, then
    every ``<config>/projects/*/<id>.jsonl`` sorted, with "" (no tree to check). Lazy."""
    config = config_dir(environ)
    if not config or not is_plain_name(session_id):
        return
    name = session_id + TRANSCRIPT_SUFFIX
    if not cwd:
        try:
            cwd = os.getcwd()
        except OSError:
            return
    current = os.path.normpath(os.path.abspath(cwd))
    while True:
        yield os.path.join(project_dir(config, current), name), current
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    projects = os.path.join(config, PROJECTS_SUBDIR)
    for folder in listing(projects):
        yield os.path.join(projects, folder, name), ""


def current_session_path(environ: "Optional[Mapping[str, str]]" = None, cwd: str = "", accept=None) -> str:
    """The running session's record (the reference's CurrentSessionPath): the first candidate
    file (``_candidates``, when the environment names a plain id) ``accept(path, session id,
    tree)`` takes (``belongs`` adds its checks), else ``$TERMSPRAWL_TRANSCRIPT`` verbatim, else ""."""
    env = os.environ if environ is None else environ
    session_id = (env.get(SESSION_ID_ENV) or "").strip()
    for candidate, tree in _candidates(session_id, environ, cwd):
        if os.path.isfile(candidate) and (accept is None or accept(candidate, session_id, tree)):
            return candidate
    return env.get(TRANSCRIPT_ENV) or ""
