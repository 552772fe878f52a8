"""Codex CLI's own facts, and its rollouts normalised into the record model's ``Entry``.

Observed on Codex CLI 0.169.0 run against a scripted Responses API server
(``../shared/reference/other-harnesses.md``), and on the 0.47 shape public files show.
A rollout is ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl``; every
line is an envelope ``{"timestamp", "type", "payload"}`` (0.169 adds ``ordinal`` and
``metadata``). What the model saw and said is the ``response_item`` lines; ``event_msg``
lines repeat them for the UI and are never read (so nothing counts twice).

How records become entries (``harness/base.py`` has the shape):

- ``message`` role ``user``: each ``input_text`` block is the person's, or harness
  context when it opens with one of ``CONTEXT_PREFIXES`` (instruction files, the
  environment block, sub-agent notifications) or is marked as a hook's text; the
  person's blocks and the harness's become two entries (the harness's ``is_meta``), the
  compaction bridge one ``is_compact_summary``.
- role ``developer``: permissions, skills, a SessionStart hook's context: ``is_meta``.
- role ``assistant``: the model's text; ``reasoning``: a thinking block (never printed);
  ``function_call`` / ``custom_tool_call`` / ``local_shell_call``: a ``tool_use``;
  their outputs: a ``tool_result`` matched by ``call_id``.
- ``compacted``: the bridge text that continues the conversation (``is_compact_summary``).
  The summary the model wrote for it is recorded just before as an ordinary assistant
  message: it is the compaction's, not an answer, so it is classed with it. 0.169 tells
  them apart before the ``compacted`` line exists: every answer is announced by an
  ``item_completed`` ``AgentMessage`` event just before it is recorded, the summary
  never is.
- A fork (``session_meta.history_base``) does not copy its parent's history: the
  parent's rollout is read first, up to ``end_byte_offset``, then the fork's own lines.
  The inherited entries keep the parent's ``session_id`` and have no line in the fork's
  file (``line`` 0, ``offset`` -1).
- A sub-agent thread (``parent_thread_id``, ``thread_source: "subagent"``) is its own
  file; its turns are a sub-agent's (``is_sidechain``, ``agent_id`` its thread id), as
  Claude Code's sub-agent transcripts are.
"""

from __future__ import annotations

import os

from termsprawl_context.harness.base import Harness, Session

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Iterator, List, Optional

    from termsprawl_context.transcript.entry import Entry

NAME = "codex-cli"

# --- the store --------------------------------------------------------------------------
HOME_ENV = "CODEX_HOME"  # overrides ~/.codex
HOME_DIR_NAME = ".codex"
SESSIONS_SUBDIR = "sessions"  # sessions/YYYY/MM/DD/rollout-*.jsonl
ARCHIVED_SUBDIR = "archived_sessions"  # `codex` moves archived threads here, same names
ROLLOUT_PREFIX = "rollout-"
TRANSCRIPT_SUFFIX = ".jsonl"
THREAD_ID_CHARS = 36  # a UUID (v7 in 0.169): the file name's last 36 characters

# --- the running session ----------------------------------------------------------------
# Set in the shell tool's subprocesses (0.169): the thread id, in a main thread both.
THREAD_ID_ENV = "CODEX_THREAD_ID"
SESSION_ID_ENV = "CODEX_SESSION_ID"

# --- the project ------------------------------------------------------------------------
PROJECT_CONFIG_DIR = ".codex"
HOOKS_FILE = os.path.join(PROJECT_CONFIG_DIR, "hooks.json")  # loaded only in a trusted project
INSTRUCTION_FILE = "AGENTS.md"  # read from the git root down to the cwd; no import syntax
HOOK_TIMEOUT_SECONDS = 30
# SessionStart's `source` (0.169): "startup", "resume", and "fork" for `exec fork` (a new
# thread: the matcher "startup|resume" misses it; "*" matched all three).
HOOK_SOURCES = ("startup", "resume", "fork")
HOOK_MATCHER = "*"
HOOK_AGENT_ID = "agent_id"  # in a sub-agent thread's hook payload: the child's thread id
# What the person's config needs for project hooks to run (0.169; `codex_hooks` is the
# deprecated spelling).
FEATURES_TABLE = "features"
HOOKS_FEATURE = "hooks"

# --- envelope and record fields ---------------------------------------------------------
FIELD_TYPE = "type"
FIELD_PAYLOAD = "payload"
FIELD_TIMESTAMP = "timestamp"
KIND_SESSION_META = "session_meta"
KIND_RESPONSE_ITEM = "response_item"
KIND_EVENT = "event_msg"  # UI duplicates of the response items: read only for which answers were shown
EVENT_ITEM_COMPLETED = "item_completed"
EVENT_AGENT_MESSAGE = "AgentMessage"
KIND_TURN_CONTEXT = "turn_context"
KIND_COMPACTED = "compacted"
ITEM_MESSAGE = "message"
ITEM_REASONING = "reasoning"
ITEM_CALLS = ("function_call", "custom_tool_call", "local_shell_call")
ITEM_OUTPUTS = ("function_call_output", "custom_tool_call_output")
ROLE_USER = "user"
ROLE_ASSISTANT = "assistant"
ROLE_DEVELOPER = "developer"
ROLE_SYSTEM = "system"
# session_meta payload fields
META_ID = "id"
META_CWD = "cwd"
META_CLI_VERSION = "cli_version"
META_ORIGINATOR = "originator"
META_FORKED_FROM = "forked_from_id"
META_HISTORY_BASE = "history_base"  # {thread_id, end_ordinal_exclusive, end_byte_offset}
META_END_BYTE_OFFSET = "end_byte_offset"
META_PARENT_THREAD = "parent_thread_id"
META_THREAD_SOURCE = "thread_source"
THREAD_SOURCE_SUBAGENT = "subagent"
META_SOURCE = "source"  # "exec", "cli", or {"subagent": {"thread_spawn": {parent_thread_id, ...}}}
# 0.169 marks where a user-role block came from.
PASSTHROUGH = "internal_chat_message_metadata_passthrough"
ITEM_KINDS = "content_item_kinds"
# The kind 0.169 gives the person's own text; every other kind it names on a user-role block is
# the client's (hooks.additional_context, agents_md.instructions, environments.environment_context,
# generic.turn_aborted, multi_agent.subagent_notification, ...). "unknown" (and no kind) says
# nothing: the prefixes decide.
PERSON_KIND = "user.text"
UNKNOWN_KIND = "unknown"

# --- harness text in user-role messages -------------------------------------------------
# 0.169: the instruction files, then the environment; sub-agent results; 0.47 and near:
# `<user_instructions>` held AGENTS.md.
CONTEXT_PREFIXES = (
    "# AGENTS.md instructions for ",
    "<environment_context>",
    "<subagent_notification>",
    "<user_instructions>",
    "<turn_aborted>",  # 0.169, after an interrupted turn
)
# The bridge a compaction leaves: the summary, presented as another model's.
COMPACTION_PREFIX = "Another language model started to solve this problem"

# Forks of forks are read parent first; a chain longer than this (or a loop) stops.
MAX_FORK_DEPTH = 16


def home_dir(environ=None) -> str:
    """``$CODEX_HOME``, else ``~/.codex``; "" when no home can be found."""
    env = os.environ if environ is None else environ
    explicit = (env.get(HOME_ENV) or "").strip()
    if explicit:
        return os.path.abspath(explicit)
    home = env.get("HOME") or ""
    if not home and environ is None:
        home = os.path.expanduser("~")
        if home == "~":
            home = ""
    return os.path.abspath(os.path.join(home, HOME_DIR_NAME)) if home else ""


def thread_id_of(path: str) -> str:
    """The thread id a rollout's file name ends with, or ""."""
    name = os.path.basename(path)
    if not (name.startswith(ROLLOUT_PREFIX) and name.endswith(TRANSCRIPT_SUFFIX)):
        return ""
    stem = name[: -len(TRANSCRIPT_SUFFIX)]
    if len(stem) < len(ROLLOUT_PREFIX) + THREAD_ID_CHARS:
        return ""
    tail = stem[-THREAD_ID_CHARS:]
    return tail if tail.count("-") == 4 and all(c in "0123456789abcdefABCDEF-" for c in tail) else ""


def _listdir(path: str) -> List[str]:
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


def rollouts_under(root: str) -> Iterator[str]:
    """Every ``YYYY/MM/DD/rollout-*.jsonl`` under a sessions root, oldest folder first."""
    for year in _listdir(root):
        for month in _listdir(os.path.join(root, year)):
            for day in _listdir(os.path.join(root, year, month)):
                folder = os.path.join(root, year, month, day)
                for name in _listdir(folder):
                    if name.startswith(ROLLOUT_PREFIX) and name.endswith(TRANSCRIPT_SUFFIX):
                        yield os.path.join(folder, name)


def find_rollout(thread_id: str, roots: List[str]) -> str:
    """The rollout of ``thread_id`` under any of ``roots``, or ""."""
    if not thread_id or len(thread_id) != THREAD_ID_CHARS:
        return ""
    for root in roots:
        for path in rollouts_under(root):
            if thread_id_of(path) == thread_id:
                return path
    return ""


def _sessions_root_of(path: str) -> str:
    """The sessions root a rollout at ``root/YYYY/MM/DD/name`` lies in."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(path)))))


# --- records -> entries -----------------------------------------------------------------------


def _str(value) -> str:
    return value if isinstance(value, str) else ""


def _rollout_line(raw: bytes):
    """(record, its type, its payload) of a rollout line whose payload is an object; None
    for any other line (torn, not JSON, no payload): every reader skips those alike."""
    from termsprawl_context.jsonl import parse_object

    record = parse_object(raw)
    if record is None:
        return None
    payload = record.get(FIELD_PAYLOAD)
    if not isinstance(payload, dict):
        return None
    return record, record.get(FIELD_TYPE), payload


def _block_kinds(payload: dict) -> List[str]:
    """Per content block: the kind 0.169 marked it with ("" where it names none)."""
    passthrough = payload.get(PASSTHROUGH)
    kinds = passthrough.get(ITEM_KINDS) if isinstance(passthrough, dict) else None
    if not isinstance(kinds, list):
        return []
    return [kind if isinstance(kind, str) and kind != UNKNOWN_KIND else "" for kind in kinds]


def _marked_texts(payload: dict) -> List[tuple]:
    """``(text, kind)`` for each text block of a message, its kind aligned by block."""
    from termsprawl_context.transcript.entry import result_texts

    content = payload.get("content")
    if not isinstance(content, list):
        return [(text, "") for text in result_texts(content)]
    kinds = _block_kinds(payload)
    found = []
    for i, block in enumerate(content):
        text = block.get("text") if isinstance(block, dict) else None
        if isinstance(text, str) and text:
            found.append((text, kinds[i] if i < len(kinds) else ""))
    return found


def context_kind(text: str, marked: str = "") -> str:
    """"compaction" for the compaction bridge, "context" for other harness text in a
    user-role message, "" for the person's own words: the block's 0.169 kind decides
    where it names one, else a marker at the start."""
    head = text.lstrip()
    if head.startswith(COMPACTION_PREFIX):
        return "compaction"
    if marked:
        return "" if marked == PERSON_KIND else "context"
    if head.startswith(CONTEXT_PREFIXES):
        return "context"
    return ""


def _tool_input(arguments):
    """A call's arguments as the model sent them: a JSON object string is parsed."""
    if isinstance(arguments, str):
        from termsprawl_context.jsonl import parse_object

        parsed = parse_object(arguments)
        return parsed if parsed is not None else arguments
    return arguments


def _tool_output(output):
    """(text, is_error) of a call's output: 0.169 writes the text; 0.47 a JSON string
    ``{"output": ..., "metadata": {"exit_code": N}}``."""
    if isinstance(output, str):
        if output.startswith("{"):
            from termsprawl_context.jsonl import parse_object

            parsed = parse_object(output)
            if parsed is not None and isinstance(parsed.get("output"), str):
                meta = parsed.get("metadata")
                code = meta.get("exit_code") if isinstance(meta, dict) else None
                return parsed["output"], isinstance(code, int) and not isinstance(code, bool) and code != 0
        return output, False
    if isinstance(output, dict):
        return _str(output.get("content") or output.get("output")), output.get("success") is False
    return "", False


class _Thread(object):
    """What the lines of one rollout say about the thread they belong to."""

    __slots__ = ("session_id", "cwd", "sidechain", "agent_id")

    def __init__(self, session_id: str) -> None:
        self.session_id, self.cwd, self.sidechain, self.agent_id = session_id, "", False, ""


def _entry(kind: str, blocks, thread: _Thread, timestamp: str, line: int, offset: int, record: dict,
           uuid: str = "", meta: bool = False, compaction: bool = False):
    from termsprawl_context.transcript.entry import Entry

    role = "assistant" if kind == "assistant" else "user"
    message = {"role": role, "content": blocks}
    return Entry(kind, uuid, "", "", thread.session_id, timestamp, thread.cwd, "", thread.sidechain, meta,
                 compaction, False, thread.agent_id, message, blocks, None, None, line, offset, record)


def _item_entries(payload: dict, thread: _Thread, timestamp: str, line: int, offset: int, record: dict) -> list:
    # A message's texts (and a reasoning summary's) follow the tool-result rule: a string,
    # or the non-empty string ``text`` of each block.
    from termsprawl_context.transcript.entry import result_texts

    item = _str(payload.get(FIELD_TYPE))
    uuid = _str(payload.get("id"))
    args = (thread, timestamp, line, offset, record)
    if item == ITEM_MESSAGE:
        role = _str(payload.get("role"))
        content = payload.get("content")
        texts = result_texts(content)
        if role == ROLE_ASSISTANT:
            blocks = [{"type": "text", "text": t} for t in texts]
            return [_entry("assistant", blocks, *args, uuid=uuid)] if blocks else []
        if role in (ROLE_DEVELOPER, ROLE_SYSTEM):
            blocks = [{"type": "text", "text": t} for t in texts]
            return [_entry("user", blocks, *args, uuid=uuid, meta=True)] if blocks else []
        if role != ROLE_USER:
            return []
        person, context, bridge = [], [], []
        for text, marked in _marked_texts(payload):
            kind = context_kind(text, marked)
            (bridge if kind == "compaction" else context if kind == "context" else person).append(
                {"type": "text", "text": text})
        found = []
        if context:
            found.append(_entry("user", context, *args, meta=True))
        if bridge:
            found.append(_entry("user", bridge, *args, compaction=True))
        if person:
            found.append(_entry("user", person, *args, uuid=uuid))
        return found
    if item == ITEM_REASONING:
        summary = result_texts(payload.get("summary"))
        if not summary:
            return []
        return [_entry("assistant", [{"type": "thinking", "thinking": "\n".join(summary)}], *args, uuid=uuid)]
    if item in ITEM_CALLS:
        call_id = _str(payload.get("call_id")) or uuid
        name = _str(payload.get("name")) or ("shell" if item == "local_shell_call" else "")
        raw = payload.get("arguments") if "arguments" in payload else payload.get("input", payload.get("action"))
        block = {"type": "tool_use", "id": call_id, "name": name, "input": _tool_input(raw)}
        return [_entry("assistant", [block], *args, uuid=uuid)]
    if item in ITEM_OUTPUTS:
        text, is_error = _tool_output(payload.get("output"))
        block = {"type": "tool_result", "tool_use_id": _str(payload.get("call_id")), "content": text,
                 "is_error": is_error}
        return [_entry("user", [block], *args, uuid=uuid)]
    return []


def _is_subagent(payload: dict) -> bool:
    if payload.get(META_THREAD_SOURCE) == THREAD_SOURCE_SUBAGENT or _str(payload.get(META_PARENT_THREAD)):
        return True
    source = payload.get(META_SOURCE)
    return isinstance(source, dict) and "subagent" in source


def _is_text_answer(entry) -> bool:
    return entry.type == "assistant" and bool(entry.content) and entry.content[0].get("type") == "text"


def _classed(entry, announced: bool, announces: bool, bridge: "Optional[str]"):
    """An assistant text as an answer or as a compaction's summary. 0.169 announces each
    answer with an ``AgentMessage`` event among the lines just before it (since the
    previous item); in a file that announces answers, one it does not announce is the
    compaction's summary (also when the ``compacted`` line after it was never written).
    Without announcements (0.47) it is a summary only when the next item is the
    ``compacted`` record whose bridge holds its text."""
    if announced:
        return entry
    if announces:
        return _as_summary(entry)
    if bridge and entry.content[0].get("text", "") in bridge:
        return _as_summary(entry)
    return entry


# How far into a rollout we look for an announcement, to know whether it announces answers.
ANNOUNCE_PROBE_BYTES = 1 << 20


def announces_answers(path: str) -> bool:
    """Whether the rollout announces its answers (an ``AgentMessage`` event within its
    first ``ANNOUNCE_PROBE_BYTES``): the one rule both reading directions share."""
    from termsprawl_context.jsonl import iter_lines, open_regular

    try:
        with open_regular(path) as f:
            for line in iter_lines(f):
                if line.offset >= ANNOUNCE_PROBE_BYTES:
                    return False
                if b"AgentMessage" not in line.raw:
                    continue
                parts = _rollout_line(line.raw)
                if parts is not None and parts[1] == KIND_EVENT and _announced_message(parts[2]):
                    return True
    except OSError:
        return False
    return False


def _thread_of(path: str, meta: dict) -> _Thread:
    thread = _Thread(_str(meta.get(META_ID)) or thread_id_of(path))
    thread.cwd = _str(meta.get(META_CWD))
    if meta and _is_subagent(meta):
        thread.sidechain, thread.agent_id = True, thread.session_id
    return thread


def rollout_entries(path: str, roots: "Optional[List[str]]" = None, end: int = -1, depth: int = 0) -> Iterator[Entry]:
    """The normalised entries of the rollout at ``path`` (up to byte ``end`` when given),
    a fork's inherited history first. Raises OSError when ``path`` cannot be opened.
    Only the first line's ``session_meta`` names the thread."""
    from termsprawl_context.jsonl import iter_lines, open_regular

    announces = announces_answers(path)
    with open_regular(path) as f:
        meta = {}  # type: dict
        thread = _Thread(thread_id_of(path))
        held = None  # an unannounced assistant text, until the next item says what it was
        announced = set()  # AgentMessage ids seen since the last item
        for line in iter_lines(f):
            if end >= 0 and line.offset + len(line.raw) >= end:
                break  # history_base ends at a line boundary: this line is the fork's, not ours
            parts = _rollout_line(line.raw)
            if parts is None:
                continue
            record, kind, payload = parts
            if kind == KIND_EVENT:
                shown = _announced_message(payload)
                if shown:
                    announced.add(shown)
                continue
            timestamp = _str(record.get(FIELD_TIMESTAMP))
            if kind == KIND_SESSION_META:
                if line.number == 1:
                    meta = payload
                    thread = _thread_of(path, meta)
                    base = payload.get(META_HISTORY_BASE)
                    if isinstance(base, dict) and depth < MAX_FORK_DEPTH:
                        for inherited in _inherited(path, payload, base, roots, depth):
                            yield inherited
                continue
            if kind == KIND_TURN_CONTEXT:
                thread.cwd = _str(payload.get(META_CWD)) or thread.cwd
                continue
            if kind == KIND_COMPACTED:
                bridge = _str(payload.get("message"))
                if held is not None:
                    yield _classed(held, False, False, bridge)
                    held = None
                announced = set()
                if bridge:
                    yield _entry("user", [{"type": "text", "text": bridge}], thread, timestamp, line.number,
                                 line.offset, record, compaction=True)
                continue
            if kind != KIND_RESPONSE_ITEM:
                continue
            found = _item_entries(payload, thread, timestamp, line.number, line.offset, record)
            if not found:
                continue
            if held is not None:
                yield _classed(held, False, False, None)
                held = None
            for entry in found:
                if not _is_text_answer(entry):
                    yield entry
                elif entry.uuid and entry.uuid in announced:
                    yield entry  # an answer the person was shown
                elif announces:
                    yield _as_summary(entry)
                else:
                    held = entry
            announced = set()
    if held is not None:
        yield _classed(held, False, False, None)


def rollout_entries_reverse(path: str, roots: "Optional[List[str]]" = None, end: int = -1,
                            depth: int = 0) -> Iterator[Entry]:
    """``rollout_entries`` newest first, reading from the end (the dump and the hand-off
    stop after the tail): the same entries, with ``line`` 0 (only offsets are known from
    the end) and the session's ``cwd`` from its first line. A fork's parent is read,
    backwards from the fork point, only once the fork's own lines are exhausted."""
    from termsprawl_context.jsonl import iter_lines_reverse, open_regular

    meta = meta_of(path)
    thread = _thread_of(path, meta)
    announces = announces_answers(path)
    pending = None  # the latest assistant text, until the lines before it say whether it was announced
    pending_bridge = None  # the bridge of a `compacted` that came right after it
    bridge = None  # the bridge of a `compacted` seen since the last item
    with open_regular(path) as f:
        for offset, raw in iter_lines_reverse(f, end if end >= 0 else None):
            if end >= 0 and offset + len(raw) >= end:
                continue  # a line the fork point cuts: the forward reader stops before it
            parts = _rollout_line(raw)
            if parts is None:
                continue
            record, kind, payload = parts
            if kind == KIND_EVENT:
                shown = _announced_message(payload)
                if pending is not None and shown and shown == pending.uuid:
                    yield pending
                    pending = None
                continue
            if kind in (KIND_SESSION_META, KIND_TURN_CONTEXT):
                continue
            timestamp = _str(record.get(FIELD_TIMESTAMP))
            if kind == KIND_COMPACTED:
                if pending is not None:
                    yield _classed(pending, False, announces, pending_bridge)
                    pending = None
                text = _str(payload.get("message"))
                if text:
                    yield _entry("user", [{"type": "text", "text": text}], thread, timestamp, 0, offset, record,
                                 compaction=True)
                bridge = text
                continue
            if kind != KIND_RESPONSE_ITEM:
                continue
            found = _item_entries(payload, thread, timestamp, 0, offset, record)
            if not found:
                continue
            if pending is not None:
                yield _classed(pending, False, announces, pending_bridge)
                pending = None
            for entry in reversed(found):
                if _is_text_answer(entry):
                    pending, pending_bridge = entry, bridge
                else:
                    yield entry
            bridge = None
    if pending is not None:
        yield _classed(pending, False, announces, pending_bridge)
    base = meta.get(META_HISTORY_BASE)
    if isinstance(base, dict) and depth < MAX_FORK_DEPTH:
        for inherited in _inherited(path, meta, base, roots, depth, reverse=True):
            yield inherited


def _as_summary(entry):
    return entry._replace(type="user", is_compact_summary=True)


def _announced_message(payload: dict) -> str:
    """The id of the assistant message an ``item_completed`` event shows (0.169), or ""."""
    if payload.get(FIELD_TYPE) != EVENT_ITEM_COMPLETED:
        return ""
    item = payload.get("item")
    if not isinstance(item, dict) or item.get(FIELD_TYPE) != EVENT_AGENT_MESSAGE:
        return ""
    return _str(item.get("id"))


def _inherited(path: str, payload: dict, base: dict, roots, depth: int, reverse: bool = False) -> Iterator[Entry]:
    """A fork's parent history: the parent's rollout up to ``end_byte_offset``."""
    end = base.get(META_END_BYTE_OFFSET)
    parent_id = _str(base.get("thread_id")) or _str(payload.get(META_FORKED_FROM))
    if not isinstance(end, int) or isinstance(end, bool) or end <= 0 or not parent_id:
        return
    search = [_sessions_root_of(path)] + [r for r in (roots or []) if r]
    parent = find_rollout(parent_id, list(dict.fromkeys(search)))
    if not parent or os.path.abspath(parent) == os.path.abspath(path):
        return
    try:
        read = rollout_entries_reverse if reverse else rollout_entries
        for entry in read(parent, roots, end, depth + 1):
            # Not a line of this file: a <path>:<line> must never point into the wrong one.
            yield entry._replace(line=0, offset=-1)
    except OSError:
        return  # the parent is gone: the fork's own lines still read


def meta_of(path: str) -> dict:
    """The ``session_meta`` payload on a rollout's first line ({} when absent or odd)."""
    from termsprawl_context.jsonl import iter_lines, open_regular

    try:
        with open_regular(path) as f:
            for line in iter_lines(f):
                parts = _rollout_line(line.raw)
                return parts[2] if parts is not None and parts[1] == KIND_SESSION_META else {}
    except OSError:
        return {}
    return {}


class CodexHarness(Harness):
    name = NAME
    label = "Codex CLI"
    transcript_suffix = TRANSCRIPT_SUFFIX
    hook_settings_file = HOOKS_FILE
    instruction_file = INSTRUCTION_FILE

    def store_roots(self, environ=None):
        home = home_dir(environ)
        return [os.path.join(home, SESSIONS_SUBDIR), os.path.join(home, ARCHIVED_SUBDIR)] if home else []

    def sessions(self, environ=None):
        for root in self.store_roots(environ):
            for path in rollouts_under(root):
                thread = thread_id_of(path)
                if thread:
                    yield Session(self.name, thread, path)

    def session_id_of(self, path):
        return thread_id_of(path)

    def sniff(self, first):
        payload = first.get(FIELD_PAYLOAD)
        return first.get(FIELD_TYPE) == KIND_SESSION_META and isinstance(payload, dict) and (
            META_CLI_VERSION in payload or META_ORIGINATOR in payload)

    def entries(self, path):
        return rollout_entries(path, self.store_roots())

    def entries_reverse(self, path):
        return rollout_entries_reverse(path, self.store_roots())

    def last_turns(self, path, limit):
        from termsprawl_context.transcript.turns import entries_turns

        try:
            return entries_turns(self.entries_reverse(path), limit, newest_first=True)
        except OSError:
            return []

    def supports(self, question):
        from termsprawl_context.harness.base import Q_ENTRIES, Q_IDENTITY, Q_SUBAGENTS

        return question in (Q_ENTRIES, Q_SUBAGENTS, Q_IDENTITY)

    def subagent_paths(self, path):
        """The rollouts whose ``session_meta`` names this thread as their parent, in the
        sessions root the rollout lies in (a child is written beside its parent)."""
        thread = meta_of(path).get(META_ID) if meta_of(path) else None
        if not thread or thread != thread_id_of(path):
            return None
        found = []
        for candidate in rollouts_under(_sessions_root_of(path)):
            if candidate == path or thread_id_of(candidate) == thread:
                continue
            meta = meta_of(candidate)
            if meta and _str(meta.get(META_PARENT_THREAD)) == thread:
                found.append(candidate)
        return sorted(found)

    def stable_id(self, path):
        """The thread id: a resumed thread appends to its own rollout, so the file's
        first record names the conversation; only when it agrees with the file name."""
        meta = meta_of(path)
        thread = _str(meta.get(META_ID)) if meta else ""
        return thread if thread and thread == thread_id_of(path) else None

    def hook_subagent(self, payload):
        # A sub-agent thread's hook payload keeps its parent's session_id and adds the
        # child's thread id as agent_id (0.169).
        value = payload.get(HOOK_AGENT_ID)
        return value if isinstance(value, str) else ""

    def hook_entry(self, command):
        return {"matcher": HOOK_MATCHER, "hooks": [{"type": "command", "command": command,
                                                    "timeout": HOOK_TIMEOUT_SECONDS}]}


HARNESS = CodexHarness()
