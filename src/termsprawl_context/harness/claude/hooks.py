"""Claude Code's SessionStart hook: the payload's fields and sources, and the JSON output
it reads (observed on 2.1.x and documented); ``Harness.session_start_output`` builds its answer.
Only the hook command imports this, so the dump pays nothing for it."""

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
