"""Slash commands that reached the model, local commands (``/compact``) and their output,
and a task notification's one line.
"""

from __future__ import annotations

from termsprawl_context import model
from termsprawl_context.model import INJECTED, PERSON
from termsprawl_context.transcript.speakers import SIGNAL_PERSON, SIGNAL_TASK, content_texts, not_the_person
from termsprawl_context.transcript.speakers import text_kind, turn_signal

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Optional

    from termsprawl_context.model import Entry


def _tag_text(text: str, tag: str) -> str:
    """The text between the first ``<tag>`` and ``</tag>``, "" when absent."""
    opening, closing = "<%s>" % tag, "</%s>" % tag
    start = text.find(opening)
    if start < 0:
        return ""
    start += len(opening)
    end = text.find(closing, start)
    return text[start:end] if end >= 0 else ""


def command_as_typed(text: str) -> str:
    """``/name args`` of a slash command's envelope (older records omit the slash), or ""."""
    name = _tag_text(text, model.COMMAND_NAME_TAG).strip()
    if not name:
        return ""
    name = name if name.startswith("/") else "/" + name
    args = _tag_text(text, model.COMMAND_ARGS_TAG).strip()
    return name + " " + args if args else name


def slash_command(entry: Entry) -> str:
    """The slash command the person ran, as typed (``/review parser.py``), when this user entry
    is the envelope of one that reached the model: its signals say the person started the
    turn (2.1.328 writes ``turnOrigin`` there, none on a local command's), or without signals
    it opens with ``<command-message>`` (a local command's with ``<command-name>``, 1.0.x to
    2.1.328); else ""."""
    if entry.type != model.TYPE_USER or not_the_person(entry):
        return ""
    signal = turn_signal(entry)
    for text in content_texts(entry.content):
        head = text.lstrip()
        if text_kind(head) == INJECTED and (signal == SIGNAL_PERSON or head.startswith(model.PROMPT_COMMAND_OPEN)):
            typed = command_as_typed(head)
            if typed:
                return typed
    return ""


def is_local_command(entry: Entry) -> bool:
    """A local command's caveat or envelope: its child is the command's output, not typed."""
    if entry.type != model.TYPE_USER or slash_command(entry):
        return False
    opens = (model.LOCAL_COMMAND_OPEN, model.LOCAL_COMMAND_CAVEAT_OPEN, model.LOCAL_COMMAND_CAVEAT)
    return any(text.lstrip().startswith(opens) for text in content_texts(entry.content))


def output_parent(entry: Entry) -> str:
    """The parent uuid that, were it a local command, would make this entry's typed text its
    output, or "" (a streaming reader keeps it to look the parent up later)."""
    if entry.type != model.TYPE_USER or not entry.parent_uuid or turn_signal(entry) == SIGNAL_PERSON:
        return ""
    if not any(text_kind(text) == PERSON for text in content_texts(entry.content)):
        return ""  # the envelope after its caveat, or wrapped output: the text rules see to those
    return entry.parent_uuid


def is_local_command_output(entry: Entry, parent: Optional[Entry]) -> bool:
    """Whether ``entry``'s typed text is local command ``parent``'s output (``Unknown skill: x``)."""
    if parent is None:
        return False
    uuid = output_parent(entry)
    return bool(uuid) and uuid == parent.uuid and is_local_command(parent)


def task_notification_line(entry: Entry) -> str:
    """A task notification's ``<summary>`` and ``<status>`` as one line (never its ids), or ""."""
    if entry.type != model.TYPE_USER or turn_signal(entry) != SIGNAL_TASK:
        return ""
    for text in content_texts(entry.content):
        if model.TASK_NOTIFICATION_OPEN not in text:
            continue
        summary = " ".join(_tag_text(text, model.TASK_SUMMARY_TAG).split())
        status = " ".join(_tag_text(text, model.TASK_STATUS_TAG).split())
        if summary and status:
            return summary if status in summary else "%s (%s)" % (summary, status)
        if summary or status:
            return summary or "a background task ended: %s" % status
    return ""
