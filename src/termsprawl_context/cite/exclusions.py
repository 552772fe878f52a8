"""Why a tool result is not tool output: its call is not in the record, delegates to a
model, reads a transcript back, or prints the record back (the echo rule)."""

from __future__ import annotations

from termsprawl_context.cite.transcripts import is_transcript_path
from termsprawl_context import model as cc
from termsprawl_context.transcript.shell import command_paths

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations are never evaluated
    from typing import Optional

    from termsprawl_context.cite.records import Call
    from termsprawl_context.model import ToolCall


def _call_reads_transcript(found: Call) -> bool:
    data = found.call.input if isinstance(found.call.input, dict) else {}
    candidates = [data[k] for k in cc.INPUT_PATH_KEYS if isinstance(data.get(k), str) and data.get(k)]
    command = data.get(cc.INPUT_COMMAND)
    if isinstance(command, str):
        candidates.extend(command_paths(command))
    return any(is_transcript_path(p, found.cwd) for p in candidates)


def _call_echoes(call: ToolCall) -> bool:
    if call.name != cc.TOOL_BASH:
        return False
    from termsprawl_context import cite  # the package's attribute, which a test may swap (imported by now)

    classifier = cite.command_echoes
    if classifier is None:
        return True  # fail closed: no classifier, every shell result is an echo
    data = call.input if isinstance(call.input, dict) else {}
    command = data.get(cc.INPUT_COMMAND)
    return bool(classifier(command if isinstance(command, str) else ""))


# Why a result is not tool output, in the order asked.
EXCLUDED_NO_CALL = "no-call"
EXCLUDED_DELEGATION = "delegation"
EXCLUDED_TASK_OUTPUT = "task-output"
EXCLUDED_TRANSCRIPT = "transcript"
EXCLUDED_ECHO = "echo"
# AskUserQuestion's result is the agent's questions and the person's picks, never a tool's
# own output (the reference left it citable; its follow-up and idle forms carry the
# questions without the envelope's prefix, so the questions cited as tool output).
EXCLUDED_ASK = "ask"


def exclusion(found: Optional[Call]) -> str:
    """Why a call's result is not tool output (one of ``EXCLUDED_*``; "" when it is)."""
    if found is None:
        return EXCLUDED_NO_CALL
    name = found.call.name
    if name in cc.DELEGATION_TOOLS:
        return EXCLUDED_DELEGATION
    if name == cc.TOOL_TASK_OUTPUT:
        return EXCLUDED_TASK_OUTPUT
    if name == cc.TOOL_ASK_USER_QUESTION:
        return EXCLUDED_ASK
    if _call_reads_transcript(found):
        return EXCLUDED_TRANSCRIPT
    if _call_echoes(found.call):
        return EXCLUDED_ECHO
    return ""
