"""Codex CLI behind ``harness/base.py``'s interface. Observed on Codex CLI 0.169.0 run against a scripted Responses API
server (``../shared/reference/other-harnesses.md``), and on the 0.47 shape public files show.

A rollout is ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl``; every line is an envelope
``{"timestamp", "type", "payload"}`` (0.169 adds ``ordinal`` and ``metadata``). What the model saw and said is the
``response_item`` lines (``item_entries``): user-role text is the person's or the harness's context, role ``developer``
holds permissions, skills and a SessionStart hook's context. ``event_msg`` lines repeat them for the UI and are read
only for which answers were shown (so nothing counts twice). A ``compacted`` line holds the bridge text that continues
the conversation; the summary the model wrote for it is recorded just before as an ordinary assistant message
(``classed`` tells it from an answer). A fork (``session_meta.history_base``) does not copy its parent's history: the
parent's rollout is read first, up to ``end_byte_offset`` (``rollout_entries``). A sub-agent thread
(``parent_thread_id``, ``thread_source: "subagent"``) is its own file; its turns are a sub-agent's (``is_sidechain``),
as Claude Code's sub-agent transcripts are.
"""

from __future__ import annotations

import os

from termsprawl_context.harness.base import Harness, Q_ALL, Session, depth_first, relay_to_person
from termsprawl_context.harness.blocks import new_entry, text_blocks
from termsprawl_context.harness.codex import facts
from termsprawl_context.model import as_str

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Iterator, List, Optional

    from termsprawl_context.model import Entry


class CodexHarness(Harness):
    name, label, command = facts.NAME, "Codex CLI", "codex"
    hook_settings_file = facts.HOOKS_FILE
    instruction_file = facts.INSTRUCTION_FILE
    init_options = ("codex_hook", "agents_md")
    init_option_help = (
        "register a SessionStart hook for Codex CLI in DIR/%(settings)s (kept out of git; Codex runs it in a "
        "project whose hooks you trusted; no `[features]` entry is needed)",
        "add the managed block to DIR/%(instruction)s (created if absent): the one file outside .termsprawl/ "
        "init writes only when asked",
    )
    hook_next_steps = """codex: the hook runs once Codex CLI trusts this project and its hooks (it asks at the first
      start; `codex exec --trust --dangerously-bypass-hook-trust` in scripts); start it
      as `TERMSPRAWL_NODE_ID=carol codex` and its sessions are nodes like any other.
"""
    setup_steps = (
        "Codex CLI asks, at the first start in this folder, to trust the project, then to review its "
        'hooks: trust both ("Continue without trusting" means the hook never runs; `codex exec --trust` '
        "in scripts)"
    )
    unrecorded_at_root = (
        "Codex CLI did not run the project's hook: the project or its hooks were not trusted (\"Continue "
        "without trusting (hooks won't run)\"), or it was started before `init`: quit it and start "
        "%(start)s at the project root, trusting the project and its hooks"
    )

    home_variables = ((facts.HOME_ENV, ""),)
    home_default = facts.HOME_DIR_NAME
    store_subdirs = (facts.SESSIONS_SUBDIR, "archived_sessions")  # `codex` moves archived threads there

    def _session_files(self, environ=None):
        """Rollouts of the live store (archived ones are never a project's current session)."""
        home = self.home(environ)
        return list(facts.rollouts_under(os.path.join(home, facts.SESSIONS_SUBDIR))) if home else []

    def _head(self, path):
        """A sub-agent thread names no working directory here, so ``project_sessions`` leaves it out."""
        meta = meta_of(path)
        return facts.thread_id_of(path), "" if meta.get(facts.META_PARENT_THREAD) else as_str(meta.get(facts.META_CWD))

    def sessions(self, environ=None):
        for root in self.store_roots(environ):
            for path in facts.rollouts_under(root):
                thread = facts.thread_id_of(path)
                if thread:
                    yield Session(self.name, thread, path)

    def session_id_of(self, path):
        return facts.thread_id_of(path)

    def sniff(self, first):
        payload = first.get("payload")
        keys = payload if isinstance(payload, dict) else {}
        opens = first.get(facts.FIELD_TYPE) == facts.KIND_SESSION_META
        return opens and ("cli_version" in keys or "originator" in keys)

    def entries(self, path):
        return rollout_entries(path, self.store_roots())

    def entries_reverse(self, path):
        return rollout_entries_reverse(path, self.store_roots())

    answers = Q_ALL

    def subagent_paths(self, path):
        """The rollouts beside this one (in its sessions root) whose ``session_meta`` names it their parent."""
        thread = self.stable_id(path)
        return None if thread is None else _children_index(facts.sessions_root_of(path)).get(thread, [])

    def subagent_tree(self, path):
        """``subagent_paths`` of the whole tree from one walk (each rollout's first line read once)."""
        thread = self.stable_id(path)
        if thread is None:
            return None
        index = _children_index(facts.sessions_root_of(path))
        return depth_first(index.get(thread, []), lambda child: index.get(facts.thread_id_of(child), []), {path})

    def stable_id(self, path):
        """The first record's thread id when the file name agrees (a resumed thread appends to its rollout)."""
        thread = as_str(meta_of(path).get("id"))
        return thread if thread and thread == facts.thread_id_of(path) else None

    def subagent_parent(self, path):
        """A sub-agent thread's ``session_meta`` names its parent thread (0.169), its rollout found by ``find_rollout``."""
        if self.stable_id(path) is None:
            return None
        meta = meta_of(path)
        if not is_subagent_meta(meta):
            return False, ""
        # ``parent_thread_id``, else (0.169) ``source.subagent.thread_spawn``'s.
        source = meta.get("source")
        spawn = source.get("subagent") if isinstance(source, dict) else None
        spawn = spawn.get("thread_spawn") if isinstance(spawn, dict) else None
        parent = as_str(meta.get(facts.META_PARENT_THREAD)) or as_str(
            spawn.get(facts.META_PARENT_THREAD) if isinstance(spawn, dict) else ""
        )
        return True, facts.find_rollout(parent, path, self.store_roots()) if parent != facts.thread_id_of(path) else ""

    def session_ids(self, path):
        """The thread id, then the session a sub-agent thread runs in (its parent's), as ``session_meta`` names them."""
        thread = self.stable_id(path)
        if thread is None:
            return None
        session = as_str(meta_of(path).get("session_id"))
        return [thread] + ([session] if session and session != thread else [])

    def work_dirs(self, path):
        """``session_meta``'s ``cwd`` (a resume keeps its thread's directory)."""
        cwd = as_str(meta_of(path).get(facts.META_CWD))
        return [cwd] if cwd else None

    def hook_subagent(self, payload):
        # A sub-agent thread's hook payload keeps its parent's session_id and adds the
        # child's thread id as agent_id (0.169).
        return as_str(payload.get("agent_id"))

    def session_start_output(self, system_message=None, additional_context=None, session_title=None):
        """Claude Code's shape; a warning for the person also goes to the model, to pass on: Codex 0.169's TUI
        draws a SessionStart ``systemMessage`` only under the first prompt (`↳ Hook · ...`) and ``codex exec``
        nowhere, while ``additionalContext`` reaches the model as a developer message."""
        context = relay_to_person(additional_context, system_message)
        return Harness.session_start_output(self, system_message, context, session_title)


def _children_index(root: str) -> dict:
    """Per parent thread id, the rollouts under ``root`` whose ``session_meta`` names it, sorted."""
    index = {}  # type: dict
    for candidate in facts.rollouts_under(root):
        parent = as_str(meta_of(candidate).get(facts.META_PARENT_THREAD))
        if parent and parent != facts.thread_id_of(candidate):
            index.setdefault(parent, []).append(candidate)
    return {parent: sorted(children) for parent, children in index.items()}


# --- a rollout into entries --------------------------------------------------------------
def rollout_line(raw: bytes) -> "Optional[tuple]":
    """(record, type, payload) of a rollout line whose payload is an object, else None."""
    from termsprawl_context.jsonl import parse_object

    record = parse_object(raw) or {}
    payload = record.get("payload")
    return (record, record.get(facts.FIELD_TYPE), payload) if isinstance(payload, dict) else None


def _marked_texts(payload: dict) -> List[tuple]:
    """``(text, kind)`` for each text block of a message: the kind 0.169 marked its block with ("" where
    none). The person's own text is ``user.text``; every other kind is the client's (hooks.additional_context,
    agents_md.instructions, environments.environment_context, generic.turn_aborted,
    multi_agent.subagent_notification, ...); "unknown" (and no kind) says nothing: the prefixes decide."""
    from termsprawl_context.transcript.tool_blocks import result_texts

    content = payload.get("content")
    if not isinstance(content, list):
        return [(text, "") for text in result_texts(content)]
    passthrough = payload.get("internal_chat_message_metadata_passthrough")
    kinds = passthrough.get("content_item_kinds") if isinstance(passthrough, dict) else None
    kinds = kinds if isinstance(kinds, list) else []
    found = []
    for i, block in enumerate(content):
        text = block.get("text") if isinstance(block, dict) else None
        if isinstance(text, str) and text:
            kind = kinds[i] if i < len(kinds) else ""
            found.append((text, kind if isinstance(kind, str) and kind != "unknown" else ""))
    return found


def context_kind(text: str, marked: str = "") -> str:
    """ "compaction", "context" (other harness text) or "" (the person's words) for a user-role text: its
    0.169 block kind decides where it names one, else its opening marker."""
    head = text.lstrip()
    if head.startswith(facts.COMPACTION_PREFIX):
        return "compaction"
    if marked:
        return "" if marked == "user.text" else "context"
    folded = text.strip().lower()  # framed as one of Codex's other contextual fragments
    framed = any(
        folded.startswith(start.lower()) and folded.endswith(end.lower()) for start, end in facts.CONTEXT_FRAMES
    )
    return "context" if head.startswith(facts.CONTEXT_PREFIXES) or framed else ""


def _unwrapped(text: str) -> "Optional[str]":
    """The command's own output past Codex's header lines, or None when it opens without them. 0.169's exec_command
    output opens with header lines (``Chunk ID: ...``, ``Wall time: ...``, ``Process exited with code N``, ...), then a
    line ``Output:`` and the output; earlier unified exec wrote ``Exit code: N`` / ``Wall time: ...`` first."""
    if not text.startswith(("Chunk ID: ", "Exit code: ", "Wall time: ")):
        return None
    at = text.find("\nOutput:\n")
    return text[at + len("\nOutput:\n") :] if at >= 0 else None


def compaction_entry(text: str, thread: dict, record: dict, line: int, offset: int):
    """The entry a ``compacted`` line's bridge stands as."""
    stamp = as_str(record.get("timestamp"))
    return new_entry(
        "user", text_blocks([text]), record, line, offset, timestamp=stamp, is_compact_summary=True, **thread
    )


def item_entries(payload: dict, thread: dict, record: dict, line: int, offset: int) -> list:
    # A message's texts (and a reasoning summary's) follow the tool-result rule: a string,
    # or the non-empty string ``text`` of each block.
    from termsprawl_context.jsonl import parse_object
    from termsprawl_context.transcript.tool_blocks import result_texts

    item = as_str(payload.get(facts.FIELD_TYPE))
    uuid = as_str(payload.get("id"))
    timestamp = as_str(record.get("timestamp"))

    def _entry(kind: str, blocks: list, **flags):
        return new_entry(kind, blocks, record, line, offset, timestamp=timestamp, **thread, **flags)

    if item == "message":
        role = as_str(payload.get("role"))
        blocks = text_blocks(result_texts(payload.get("content")))
        if role == "assistant":
            return [_entry("assistant", blocks, uuid=uuid)] if blocks else []
        if role in ("developer", "system"):
            return [_entry("user", blocks, uuid=uuid, is_meta=True)] if blocks else []
        if role != "user":
            return []
        texts = {"context": [], "compaction": [], "": []}  # type: dict
        for text, marked in _marked_texts(payload):
            texts[context_kind(text, marked)].append(text)
        flags = (("context", {"is_meta": True}), ("compaction", {"is_compact_summary": True}), ("", {"uuid": uuid}))
        return [_entry("user", text_blocks(texts[kind]), **flag) for kind, flag in flags if texts[kind]]
    if item == "reasoning":
        summary = result_texts(payload.get("summary"))
        if not summary:
            return []
        return [_entry("assistant", [{"type": "thinking", "thinking": "\n".join(summary)}], uuid=uuid)]
    if item in ("function_call", "custom_tool_call", "local_shell_call"):
        call_id = as_str(payload.get("call_id")) or uuid
        name = as_str(payload.get("name")) or ("shell" if item == "local_shell_call" else "")
        raw = payload.get("arguments") if "arguments" in payload else payload.get("input", payload.get("action"))
        # The arguments as the model sent them: a JSON object string is parsed.
        parsed = parse_object(raw) if isinstance(raw, str) else None
        block = {"type": "tool_use", "id": call_id, "name": name, "input": raw if parsed is None else parsed}
        return [_entry("assistant", [block], uuid=uuid)]
    if item in ("function_call_output", "custom_tool_call_output"):
        # 0.169's output is text (or an object), 0.47's the JSON ``{output, metadata: {exit_code}}``.
        result = payload.get("output")
        parsed = parse_object(result) if isinstance(result, str) and result.startswith("{") else None
        if parsed is not None and isinstance(parsed.get("output"), str):
            meta = parsed.get("metadata")
            code = meta.get("exit_code") if isinstance(meta, dict) else None
            text, is_error = parsed["output"], isinstance(code, int) and not isinstance(code, bool) and code != 0
        elif isinstance(result, dict):
            text, is_error = as_str(result.get("content") or result.get("output")), result.get("success") is False
        else:
            text, is_error = as_str(result), False
        call_id = as_str(payload.get("call_id"))
        block = {"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": is_error}
        output = _unwrapped(text)
        if output is not None:
            block["output"] = output
        return [_entry("user", [block], uuid=uuid)]
    return []


def is_subagent_meta(payload: dict) -> bool:
    """Whether a ``session_meta`` payload is a sub-agent thread's."""
    if payload.get("thread_source") == "subagent" or as_str(payload.get(facts.META_PARENT_THREAD)):
        return True
    source = payload.get("source")  # "exec", "cli", or {"subagent": {"thread_spawn": {parent_thread_id, ...}}}
    return isinstance(source, dict) and "subagent" in source


def is_text_answer(entry) -> bool:
    return entry.type == "assistant" and bool(entry.content) and entry.content[0].get("type") == "text"


def classed(entry, announces: bool, bridge: "Optional[str]") -> list:
    """An unannounced assistant text (none when None), as an answer or a compaction's summary. 0.169 announces
    each answer with an ``AgentMessage`` event just before it: in such a file an unannounced one is the summary
    (even when the ``compacted`` line after it was never written). Without announcements (0.47) it is one only
    when the next ``compacted`` bridge holds its text."""
    if entry is None:
        return []
    if announces or (bridge and entry.content[0].get("text", "") in bridge):
        return [entry._replace(type="user", is_compact_summary=True)]
    return [entry]


# How far into a rollout we look for an announcement, to know whether it announces answers.
ANNOUNCE_PROBE_BYTES = 1 << 20


def _head_lines(path: str):
    """A rollout's lines from its start, as far as the caller reads; none once it cannot be read."""
    from termsprawl_context.jsonl import iter_lines, open_regular

    try:
        with open_regular(path) as f:
            yield from iter_lines(f)
    except OSError:
        return


def announces_answers(path: str) -> bool:
    """Whether an ``AgentMessage`` event is within the rollout's first ``ANNOUNCE_PROBE_BYTES``."""
    for line in _head_lines(path):
        if line.offset >= ANNOUNCE_PROBE_BYTES:
            return False
        if b"AgentMessage" in line.raw:
            parts = rollout_line(line.raw)
            if parts is not None and parts[1] == facts.KIND_EVENT and announced_message(parts[2]):
                return True
    return False


def thread_of(path: str, meta: dict) -> dict:
    """A rollout's ``session_meta`` as ``new_entry``'s fields for the thread its lines belong to."""
    session = as_str(meta.get("id")) or facts.thread_id_of(path)
    subagent = bool(meta) and is_subagent_meta(meta)
    cwd = as_str(meta.get(facts.META_CWD))
    return {"session_id": session, "cwd": cwd, "is_sidechain": subagent, "agent_id": session if subagent else ""}


def announced_message(payload: dict) -> str:
    """The id of the assistant message an ``item_completed`` event shows (0.169), or ""."""
    item = payload.get("item") if payload.get(facts.FIELD_TYPE) == "item_completed" else None
    return as_str(item.get("id")) if isinstance(item, dict) and item.get(facts.FIELD_TYPE) == "AgentMessage" else ""


def meta_of(path: str) -> dict:
    """The ``session_meta`` payload on a rollout's first line ({} when absent or odd)."""
    for line in _head_lines(path):
        parts = rollout_line(line.raw)
        return parts[2] if parts is not None and parts[1] == facts.KIND_SESSION_META else {}
    return {}


def rollout_entries(path: str, roots: "Optional[List[str]]" = None, end: int = -1, depth: int = 0) -> Iterator[Entry]:
    """The entries of the rollout at ``path`` (up to byte ``end``), a fork's inherited history first; only the
    first line's ``session_meta`` names the thread. OSError when unopenable."""
    from termsprawl_context.jsonl import iter_lines, open_regular

    announces = announces_answers(path)
    with open_regular(path) as f:
        thread = thread_of(path, {})
        held = None  # an unannounced assistant text, until the next item says what it was
        announced = set()  # AgentMessage ids seen since the last item
        for line in iter_lines(f):
            if end >= 0 and line.offset + len(line.raw) >= end:
                break  # history_base ends at a line boundary: this line is the fork's, not ours
            envelope = rollout_line(line.raw)
            if envelope is None:
                continue
            record, kind, payload = envelope
            if kind == facts.KIND_EVENT:
                announced.add(announced_message(payload))  # "" for other events: no answer's uuid is "" here
                continue
            if kind == facts.KIND_SESSION_META:
                if line.number == 1:
                    thread = thread_of(path, payload)
                    yield from _inherited(path, payload, roots, depth)
                continue
            if kind == "turn_context":
                thread["cwd"] = as_str(payload.get(facts.META_CWD)) or thread["cwd"]
                continue
            if kind == "compacted":
                bridge = as_str(payload.get("message"))
                yield from classed(held, announces, bridge)
                held = None
                announced = set()
                if bridge:
                    yield compaction_entry(bridge, thread, record, line.number, line.offset)
                continue
            if kind != "response_item":
                continue
            found = item_entries(payload, thread, record, line.number, line.offset)
            if not found:
                continue
            yield from classed(held, announces, None)  # no `compacted` followed it
            held = None
            for entry in found:
                if is_text_answer(entry) and not (entry.uuid and entry.uuid in announced):
                    held = entry  # an unannounced text: the next item or `compacted` classes it
                else:
                    yield entry  # (an answer the person was shown)
            announced = set()
    yield from classed(held, announces, None)


def rollout_entries_reverse(
    path: str, roots: "Optional[List[str]]" = None, end: int = -1, depth: int = 0
) -> Iterator[Entry]:
    """``rollout_entries`` newest first from the end, ``line`` 0, the ``cwd`` from the first line; a fork's
    parent is read back from the fork point once its own lines end."""
    from termsprawl_context.jsonl import iter_lines_reverse, open_regular

    meta = meta_of(path)
    thread = thread_of(path, meta)
    announces = announces_answers(path)
    pending = None  # the latest assistant text, until the lines before it say whether it was announced
    pending_bridge = None  # the bridge of a `compacted` that came right after it
    bridge = None  # the bridge of a `compacted` seen since the last item
    with open_regular(path) as f:
        for offset, raw in iter_lines_reverse(f, end if end >= 0 else None):
            if end >= 0 and offset + len(raw) >= end:
                continue  # a line the fork point cuts: the forward reader stops before it
            envelope = rollout_line(raw)
            if envelope is None:
                continue
            record, kind, payload = envelope
            if kind == facts.KIND_EVENT:
                if pending is not None and pending.uuid and announced_message(payload) == pending.uuid:
                    yield pending
                    pending = None
                continue
            if kind == "compacted":
                yield from classed(pending, announces, pending_bridge)
                pending = None
                text = as_str(payload.get("message"))
                if text:
                    yield compaction_entry(text, thread, record, 0, offset)
                bridge = text
                continue
            if kind != "response_item":
                continue
            found = item_entries(payload, thread, record, 0, offset)
            if not found:
                continue
            yield from classed(pending, announces, pending_bridge)
            pending = None
            for entry in reversed(found):
                if is_text_answer(entry):
                    pending, pending_bridge = entry, bridge
                else:
                    yield entry
            bridge = None
    yield from classed(pending, announces, pending_bridge)
    yield from _inherited(path, meta, roots, depth, reverse=True)


def _parent_of(path: str, payload: dict, roots) -> tuple:
    """``(parent rollout, fork point)`` a ``session_meta``'s ``history_base`` names, the point clamped to the
    parent's size (both directions read the same bytes); ``("", 0)`` when none."""
    base = payload.get("history_base")  # {thread_id, end_ordinal_exclusive, end_byte_offset}
    base = base if isinstance(base, dict) else {}
    end = base.get("end_byte_offset")
    parent_id = as_str(base.get("thread_id")) or as_str(payload.get("forked_from_id"))
    if not isinstance(end, int) or isinstance(end, bool) or end <= 0 or not parent_id:
        return "", 0
    parent = facts.find_rollout(parent_id, path, roots or [])
    try:
        return (parent, min(end, os.path.getsize(parent))) if parent else ("", 0)
    except OSError:
        return "", 0


def _inherited(path: str, payload: dict, roots, depth: int, reverse: bool = False) -> Iterator[Entry]:
    """A fork's parent history up to ``end_byte_offset``; nothing past a loop or ``MAX_FORK_DEPTH``."""
    if depth >= facts.MAX_FORK_DEPTH:
        return
    parent, end = _parent_of(path, payload, roots)
    if not parent or end <= 0:
        return
    if depth == 0:  # a fork chain that loops inherits nothing
        seen, ancestor = {os.path.realpath(path)}, parent
        while ancestor and len(seen) <= facts.MAX_FORK_DEPTH:
            real = os.path.realpath(ancestor)
            if real in seen:
                return
            seen.add(real)
            ancestor = _parent_of(ancestor, meta_of(ancestor), roots)[0]
    try:
        read = rollout_entries_reverse if reverse else rollout_entries
        for entry in read(parent, roots, end, depth + 1):
            # Not a line of this file: a <path>:<line> must never point into the wrong one.
            yield entry._replace(line=0, offset=-1)
    except OSError:
        return  # the parent is gone: the fork's own lines still read


HARNESS = CodexHarness()
