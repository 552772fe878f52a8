"""Claude Code's SessionStart hook: the payload's fields and sources, and the JSON output
it reads (observed on 2.1.x and documented); ``hooks.py`` builds its answer from these.
Only the hook command imports this, so the dump pays nothing for it."""

from termsprawl_context.harness.claude.facts import HOOK_EVENT_SESSION_START

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Optional


# --- hook payload and output --------------------------------------------------------------
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
HOOK_OUTPUT_SYSTEM_MESSAGE = "systemMessage"  # shown to the user
HOOK_OUTPUT_SPECIFIC = "hookSpecificOutput"
HOOK_OUTPUT_EVENT_NAME = "hookEventName"  # required inside hookSpecificOutput
HOOK_OUTPUT_ADDITIONAL_CONTEXT = "additionalContext"  # added to the model's context
HOOK_OUTPUT_SESSION_TITLE = "sessionTitle"  # the session's title
# The common fields every event accepts, and SessionStart's specific ones, with their
# JSON types: what a test checks hook output against.
HOOK_OUTPUT_COMMON_FIELDS = {
    "continue": bool,
    "stopReason": str,
    "suppressOutput": bool,
    HOOK_OUTPUT_SYSTEM_MESSAGE: str,
    HOOK_OUTPUT_SPECIFIC: dict,
}
SESSION_START_SPECIFIC_FIELDS = {
    HOOK_OUTPUT_EVENT_NAME: str,
    HOOK_OUTPUT_ADDITIONAL_CONTEXT: str,
    HOOK_OUTPUT_SESSION_TITLE: str,
}


def session_start_output(
    system_message: "Optional[str]" = None,
    additional_context: "Optional[str]" = None,
    session_title: "Optional[str]" = None,
) -> dict:
    """A SessionStart hook's JSON output object holding only the fields given ({} when none)."""
    output = {}  # type: dict
    specific = {}  # type: dict
    if additional_context:
        specific[HOOK_OUTPUT_ADDITIONAL_CONTEXT] = additional_context
    if session_title:
        specific[HOOK_OUTPUT_SESSION_TITLE] = session_title
    if specific:
        output[HOOK_OUTPUT_SPECIFIC] = dict([(HOOK_OUTPUT_EVENT_NAME, HOOK_EVENT_SESSION_START)], **specific)
    if system_message:
        output[HOOK_OUTPUT_SYSTEM_MESSAGE] = system_message
    return output
