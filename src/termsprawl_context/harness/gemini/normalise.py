"""A Gemini CLI chat's messages → the record model's ``Entry`` list, forward and newest first: each message's
parts (its content as parts, the hook block and compression summary in a user message, tool calls and
results, and the call ids a message gives) into entries."""

from termsprawl_context.harness.blocks import new_entry, part_text, text_blocks
from termsprawl_context.harness.gemini import chat as chat_file, facts
from termsprawl_context.harness.gemini.chat import Chat, Where
from termsprawl_context.model import as_str

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, Iterator, List, Optional, Tuple

    from termsprawl_context.model import Entry


# Every message of an older single-JSON chat is on the file's one record: line 1 (a line of 0 would
# read as a fork's inherited history, which `search` skips); no offset of its own.
LEGACY_WHERE = Where(1, -1, 0)


class Normaliser(object):
    """A chat's resolved messages as entries, each tool call and result given once (a resume copies them).
    Read forward with ``last_holder`` (``(CALL or RESULT, call id)`` -> index of the last message holding
    it, by the resolution's ``message_ids``), each is given where the reading from the end gives it: at
    that message (``index`` names the message being read)."""

    def __init__(self, chat: Chat, last_holder: "Optional[dict]" = None) -> None:
        # A sub-agent's chat is all sub-agent: its entries name the agent (its session id), and its "user" messages are
        # the parent model's prompt and the CLI's nudges, never the person (Claude Code's sidechain, in its own file).
        agent = chat.session_id if chat.kind == facts.KIND_SUBAGENT else ""
        self.thread = {"session_id": chat.session_id, "is_sidechain": bool(agent), "agent_id": agent}
        self.last_holder, self.index = last_holder, -1
        self.given = set()  # type: set  # (CALL or RESULT, call id) already given

    def give(self, kind: str, call_id: str) -> bool:
        """Whether this call (or result) is given here: the first time its id is met (at its last holder)."""
        if not call_id:
            return True
        pair = (kind, call_id)
        fresh = pair not in self.given and (self.last_holder is None or self.last_holder.get(pair) == self.index)
        self.given.add(pair)  # a later copy is not given again
        return fresh

    def _entry(self, kind: str, uuid: str, message: dict, where: Where, blocks: "List[dict]", **flags) -> "Entry":
        stamp = as_str(message.get("timestamp"))
        return new_entry(
            kind, blocks, message, where.line, where.offset, uuid=uuid, timestamp=stamp, **self.thread, **flags
        )

    def _results(self, message: dict, where: Where, parts: "List[dict]", uuid: str, failed: bool = False):
        blocks = []
        for part in parts:  # dicts all (``parts_of``)
            response = part.get("functionResponse")
            if not isinstance(response, dict) or not self.give(RESULT, as_str(response.get("id"))):
                continue
            body, is_error = response_body(response.get("response"))
            block = {"type": "tool_result", "tool_use_id": as_str(response.get("id")), "content": body}  # type: dict
            block["is_error"] = is_error or failed
            output = _unwrapped(body)
            if output is not None:
                block["output"] = output
            blocks.append(block)
        if blocks:
            yield self._entry("user", uuid, message, where, blocks)

    def entries(self, message: dict, where: Where) -> "Iterator[Entry]":
        kind = as_str(message.get(facts.FIELD_TYPE))
        message_id = as_str(message.get(facts.FIELD_ID))
        parts = parts_of(message.get("content"))
        if kind == facts.TYPE_USER:
            texts = part_texts(parts)
            if texts:
                context = texts[0].lstrip().startswith(facts.SESSION_CONTEXT_OPEN)
                # A compression's summary: both snapshot tags in one text (a scratchpad may come first).
                snapshot = (facts.STATE_SNAPSHOT_OPEN, facts.STATE_SNAPSHOT_CLOSE)
                summary = not context and any(snapshot[0] in t and snapshot[1] in t for t in texts)
                if context or summary or is_cli_prompt(message, texts):
                    flags = {"is_meta": not summary, "is_compact_summary": summary}
                    yield self._entry("user", message_id, message, where, text_blocks(texts), **flags)
                else:
                    # A typed message: a hook's context first (meta), then the words; the client's expansion is
                    # meta too where ``displayContent`` keeps it apart.
                    hook, typed = split_hook_context(texts[0])
                    hooks = ([hook] if hook else []) + [t for t in texts[1:] if is_hook_block(t)]
                    if hooks:
                        hook_id = message_id + "#" + facts.HOOK_CONTEXT_OPEN.strip("<>")
                        yield self._entry("user", hook_id, message, where, text_blocks(hooks), is_meta=True)
                    rest = ([typed] if typed else []) + [t for t in texts[1:] if not is_hook_block(t)]
                    shown = typed_display(message)
                    if shown:
                        yield self._entry("user", message_id, message, where, text_blocks(shown))
                        added = [t for t in rest if t not in shown]
                        if added:
                            added_id = message_id + "#" + facts.FIELD_DISPLAY
                            yield self._entry("user", added_id, message, where, text_blocks(added), is_meta=True)
                    elif rest:
                        yield self._entry("user", message_id, message, where, text_blocks(rest))
            yield from self._results(message, where, parts, message_id)
        elif kind == "gemini":
            blocks = []  # type: List[dict]
            thoughts = message.get("thoughts")
            for thought in thoughts if isinstance(thoughts, list) else []:
                if isinstance(thought, dict):
                    subject, description = as_str(thought.get("subject")), as_str(thought.get("description"))
                    text = "**%s** %s" % (subject, description) if subject and description else subject or description
                    if text:
                        blocks.append({"type": "thinking", "thinking": text})
            blocks.extend(block for block in map(part_text, parts) if block is not None)
            calls, results = gemini_calls(message, parts)
            for call in calls:
                call_id = as_str(call.get("id"))
                if self.give(CALL, call_id):
                    name = as_str(call.get("name"))
                    blocks.append({"type": "tool_use", "id": call_id, "name": name, "input": call.get("args")})
            if blocks:
                # The compression's fixed reply is the CLI's line, not the model answering anyone.
                ack = [b.get("text") for b in blocks] == [facts.COMPRESSION_ACK]
                yield self._entry(
                    "system" if ack else "assistant", message_id, message, where, blocks, is_meta=ack, role="assistant"
                )
            for part, failed in results:  # "_response": the id of the copy 0.61 rebuilds on resume
                yield from self._results(message, where, [part], message_id + "_response", failed)
        elif kind in ("info", "error", "warning"):  # the CLI's own notes, never the person's
            texts = part_texts(parts)
            if texts:
                yield self._entry("system", message_id, message, where, text_blocks(texts), role="system")


def entries_reverse(path: str) -> "Iterator[Entry]":
    """``reversed(list(entries(path)))``, read from the end only as far as the consumer takes (``line`` 0);
    each call and result at the newest message holding it. OSError as ``entries``."""
    from termsprawl_context.jsonl import open_regular

    if chat_file.is_legacy(path):
        return iter(list(entries(path))[::-1])  # one object read whole anyway (bounded)
    f = open_regular(path)

    def generate():
        with f:
            normaliser = Normaliser(chat_file.header_of(path))
            for message, where in chat_file.newest_messages(f):
                yield from reversed(list(normaliser.entries(message, where)))

    return generate()


def entries(path: str) -> "Iterator[Entry]":
    """A chat's entries in order (a generator over the open file: consume it before the next call). OSError
    when ``path`` is no regular file; odd content only shrinks it."""
    import os

    from termsprawl_context.jsonl import open_regular, read_within_bound

    f = open_regular(path)
    if chat_file.is_legacy(path):
        with f:
            chat, messages = chat_file.legacy_messages(read_within_bound(f))
        legacy = Normaliser(chat)
        return (entry for message in messages for entry in legacy.entries(message, LEGACY_WHERE))
    try:
        st = os.fstat(f.fileno())
        key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        if not (_LAST and _LAST[0][0] == key):
            del _LAST[:]  # the old one goes before the new one is built
            _LAST.append((key, chat_file.resolve_lines(f, ids_of=message_ids)))
        chat = _LAST[0][1]
    except BaseException:
        f.close()
        raise
    last_holder = {pair: index for index, where in enumerate(chat.wheres()) for pair in where.ids}  # the last wins

    def generate():
        normaliser = Normaliser(chat, last_holder)
        with f:
            for message, where, index in chat_file.winners(f, chat):
                normaliser.index, normaliser.given = index, set()
                yield from normaliser.entries(message, where)

    return generate()


# The last forward resolution and the file it is of: a second reader of the same file while the first is
# still reading it (``search`` titles the session it found a hit in) shares it, rather than holding a
# second one (the resolution holds a few words per message).
_LAST = []  # type: list  # [(file key, Chat)], at most one


# --- one message's parts ------------------------------------------------------------------------------------
def parts_of(content: "Any") -> "List[dict]":
    """A message's content as parts (a string, bare or in the list, is a text part; others go)."""
    if isinstance(content, str):
        return [{"text": content}] if content else []
    if isinstance(content, dict):
        return [content]
    if not isinstance(content, list):
        return []
    return [{"text": p} if isinstance(p, str) else p for p in content if isinstance(p, (str, dict))]


def part_texts(parts: "List[dict]") -> "List[str]":
    """The non-empty string texts of a message's parts, in order."""
    return [p["text"] for p in parts if isinstance(p.get("text"), str) and p["text"]]


def split_hook_context(text: str) -> "Tuple[str, str]":
    """``(hook block, typed text)`` of a first prompt the CLI prefixed with a SessionStart hook's context
    (``<hook_context>...</hook_context>\\n\\n<prompt>``); ("", text) when none."""
    if not text.startswith(facts.HOOK_CONTEXT_OPEN):
        return "", text
    end = text.find(facts.HOOK_CONTEXT_CLOSE)
    if end < 0:
        return text, ""  # all of it is the hook's (the close never came)
    end += len(facts.HOOK_CONTEXT_CLOSE)
    rest = text[end:]
    if rest.startswith(facts.HOOK_CONTEXT_GAP):
        rest = rest[len(facts.HOOK_CONTEXT_GAP) :]
    return text[:end], rest


def is_cli_prompt(message: dict, texts: "List[str]") -> bool:
    """A user message 0.61 wrote itself (not the person): the IDE's editor context or its delta, the loop-recovery
    feedback, ``/directory add``'s context; or a prompt the client sent on the person's behalf under their prompt's
    ``displayContent`` (an AfterAgent hook's blocking reason, the loop feedback, the next-speaker "Please continue."),
    which then holds neither that typed text nor an @ reference's expansion of it."""
    first = texts[0] if texts else ""
    if first.startswith(facts.CLI_PROMPT_OPENINGS):
        return True
    # `/directory add`'s context (getDirectoryContextString): both lines, the first one first.
    if first.startswith("- **Workspace Directories:**\n") and "\n- **Directory Structure:**\n" in first:
        return True
    shown = typed_display(message)
    if not shown or not texts:
        return False
    sent = split_hook_context(first)[1]
    return not (shown[0] in sent or any("--- Content from referenced files ---" in t for t in texts))


def is_hook_block(text: str) -> bool:
    """A text part that is only a hook's context block (a BeforeAgent hook's, a part of its own; a
    SessionStart hook's, in the TUI a message of its own)."""
    return text.startswith(facts.HOOK_CONTEXT_OPEN) and text.rstrip().endswith(facts.HOOK_CONTEXT_CLOSE)


def response_body(response: "Any") -> "Tuple[str, bool]":
    """``(text, is an error)`` of a ``functionResponse.response``: ``output``, ``error``, else JSON."""
    if isinstance(response, dict):
        if isinstance(response.get("output"), str):
            return response["output"], False
        if isinstance(response.get("error"), str):
            return response["error"], True
    if isinstance(response, str):
        return response, False
    import json

    try:
        return json.dumps(response, ensure_ascii=False, sort_keys=True), False
    except (TypeError, ValueError):
        return "", False


def _unwrapped(body: str) -> "Optional[str]":
    """The tool's output inside ``<untrusted_context>`` (the shell's ``Output: `` alone), or None: 0.61 wraps
    a tool's output (wrapUntrusted) in those tags, and the shell tool's own text opens ``Output: `` (then
    ``Error: ``, ``Exit Code: ``, ``Process Group PGID: `` lines)."""
    opening, closing = "<untrusted_context>\n", "\n</untrusted_context>"
    if not (body.startswith(opening) and body.endswith(closing)):
        return None
    inner = body[len(opening) : len(body) - len(closing)]
    if not inner.startswith("Output: "):
        return inner
    lines = inner[len("Output: ") :].split("\n")
    sections = ("Error: ", "Exit Code: ", "Signal: ", "Background PIDs: ", "Process Group PGID: ")
    end = next((i for i, line in enumerate(lines) if i and line.startswith(sections)), len(lines))
    return "\n".join(lines[:end])


CALL, RESULT = "call", "result"  # what a call id names, for giving each once


def gemini_calls(message: dict, parts: "List[dict]") -> "Tuple[List[dict], List[Tuple[dict, bool]]]":
    """A model message's calls and the result parts its ``toolCalls`` carry, with whether each failed."""
    calls = [part["functionCall"] for part in parts if isinstance(part.get("functionCall"), dict)]
    results = []  # type: List[Tuple[dict, bool]]
    tool_calls = message.get("toolCalls")
    for call in tool_calls if isinstance(tool_calls, list) else []:
        if isinstance(call, dict):
            calls.append(call)
            failed = call.get("status") == "error"
            for part in parts_of(call.get("result")):
                results.append((part, failed))
    return calls, results


def message_ids(message: dict) -> tuple:
    """The ``(CALL or RESULT, call id)`` pairs a message gives, in ``Normaliser``'s order (so the newest-first
    reading gives each once where forward does)."""
    kind = message.get(facts.FIELD_TYPE)
    parts = parts_of(message.get("content"))
    found = []
    if kind == "gemini":
        calls, results = gemini_calls(message, parts)
        found = [(CALL, as_str(call.get("id"))) for call in calls]
        parts = [part for part, _failed in results]
    elif kind != facts.TYPE_USER:
        return ()
    responses = [part.get("functionResponse") for part in parts]  # dicts all (``parts_of``)
    found += [(RESULT, as_str(response.get("id"))) for response in responses if isinstance(response, dict)]
    return tuple(pair for pair in found if pair[1])


def typed_display(message: dict) -> "List[str]":
    """What the person typed where the client kept it apart (``displayContent``, less a hook's context), or []."""
    texts = part_texts(parts_of(message.get(facts.FIELD_DISPLAY)))
    if texts:
        texts[0] = split_hook_context(texts[0])[1]
    return [t for t in texts if t]
