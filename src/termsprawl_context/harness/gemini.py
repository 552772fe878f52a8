"""Gemini CLI's own facts, in one place: its store, its chat files, how their lines
resolve into a conversation, and how each message normalises into the record model's
``Entry`` (the shape ``harness/base.py`` describes: Claude Code's).

Observed on Gemini CLI 0.61.0 (run against a scripted local model server) and read in its
bundle (``chatRecordingService.ts``: ``loadConversationRecord``); the older single-JSON
chat files from public samples. When Gemini CLI changes shape, this module is what
changes.

The chat file is a log, not a list: a message is appended again whenever it changes (the
same ``id``; the last line wins, in the place the id first took), ``{"$set": {...}}``
updates metadata or replaces the whole message list, and ``{"$rewindTo": id}`` drops that
message and everything after it. The resolution here follows the client's, with one
deliberate difference: a ``$set.messages`` list updates the messages it names and adds
new ones, but never drops one already seen. On resume 0.61 rebuilds that list from the
model's history, which skips a user message opening with ``<hook_context>`` (so, with a
SessionStart hook, the first typed prompt) and adds a copy of each tool result under
``<gemini message id>_response``; a reader that applied the list literally would lose the
first prompt. The copies are dropped by call id (one result per call).

Memory: the resolution keeps, per message id, where its winning line is (offset, size,
index inside a ``$set`` list), never the lines; the winners are then read again one line
at a time. Time is one forward pass over the file: the last line wins, so no tail of the
file alone can say which message is where (an id's place is its first appearance).
"""

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, Iterable, Iterator, List, Mapping, Optional, Tuple

    from termsprawl_context.transcript.entry import Entry

NAME = "gemini-cli"
LABEL = "Gemini CLI"

# --- the store --------------------------------------------------------------------------
HOME_ENV = "GEMINI_CLI_HOME"  # replaces the home directory the store lives under
CONFIG_DIR_NAME = ".gemini"
TMP_SUBDIR = "tmp"  # ~/.gemini/tmp/<project name>/chats/
CHATS_SUBDIR = "chats"
PROJECTS_FILE = "projects.json"  # {"projects": {"<abs launch dir>": "<project name>"}}
PROJECT_ROOT_FILE = ".project_root"  # in tmp/<project name>/: the launch directory
SESSION_FILE_PREFIX = "session-"  # session-<YYYY-MM-DDTHH-MM>-<first 8 of the id>.jsonl
TRANSCRIPT_SUFFIX = ".jsonl"
LEGACY_SUFFIX = ".json"  # older versions: one JSON object with a `messages` array
# A sub-agent's chat: chats/<parent session id>/<child session id>.jsonl.
_ID_CHARS = frozenset("0123456789abcdefABCDEF-ghijklmnopqrstuvwxyzGHIJKLMNOPQRSTUVWXYZ_")

# --- the running session -----------------------------------------------------------------
# Hooks get these (and CLAUDE_PROJECT_DIR, for compatibility); the shell tool's subprocess
# gets only GEMINI_CLI=1, so a tool cannot learn its session from the environment.
SESSION_ID_ENV = "GEMINI_SESSION_ID"
PROJECT_DIR_ENV = "GEMINI_PROJECT_DIR"
TOOL_ENV = "GEMINI_CLI"

# --- line kinds --------------------------------------------------------------------------
FIELD_ID = "id"
FIELD_TYPE = "type"
FIELD_CONTENT = "content"
# 0.61: a user message whose content the client expanded (an @ reference's file text between
# "--- Content from referenced files ---" and "--- End of content ---") keeps what the person
# typed here; absent when the two are the same.
FIELD_DISPLAY = "displayContent"
FIELD_TIMESTAMP = "timestamp"
FIELD_THOUGHTS = "thoughts"
FIELD_TOOL_CALLS = "toolCalls"
FIELD_MESSAGES = "messages"
SET_KEY = "$set"
REWIND_KEY = "$rewindTo"
# The header (first line, and again at each resume).
HEADER_SESSION_ID = "sessionId"
HEADER_PROJECT_HASH = "projectHash"
HEADER_START_TIME = "startTime"
HEADER_KIND = "kind"  # "main" | "subagent"
KIND_SUBAGENT = "subagent"
SUMMARY_KEY = "summary"  # in $set: the session's title

TYPE_USER = "user"
TYPE_GEMINI = "gemini"
SYNTHETIC_TYPES = ("info", "error", "warning")  # the CLI's own notes, never the person's

# Text the harness puts into user-role messages.
SESSION_CONTEXT_OPEN = "<session_context>"  # the first message: environment, GEMINI.md text
HOOK_CONTEXT_OPEN = "<hook_context>"  # a SessionStart hook's additionalContext, before the prompt
HOOK_CONTEXT_CLOSE = "</hook_context>"
HOOK_CONTEXT_GAP = "\n\n"  # between the hook's block and the typed prompt
# Chat compression (read in the 0.61 bundle, not observed in a run): the history is replaced
# by the model's summary as a user message holding a <state_snapshot>...</state_snapshot>,
# then this fixed model reply, each recorded as a new message at the log's end.
STATE_SNAPSHOT_OPEN = "<state_snapshot>"
STATE_SNAPSHOT_CLOSE = "</state_snapshot>"
COMPRESSION_ACK = "Got it. Thanks for the additional context!"
# The id 0.61 gives the tool-result copy it rebuilds on resume.
RESPONSE_COPY_SUFFIX = "_response"

# --- project files (init) ----------------------------------------------------------------
PROJECT_CONFIG_DIR = ".gemini"
SETTINGS_FILE = os.path.join(PROJECT_CONFIG_DIR, "settings.json")  # read only in a trusted folder
MEMORY_FILE = "GEMINI.md"  # read at launch (git root and the launch directory); `@./path` imports
MEMORY_IMPORT_PREFIX = "@./"
HOOK_EVENT_SESSION_START = "SessionStart"
HOOK_MATCHER_ANY = "*"
# Gemini's hook timeout is in milliseconds (Claude Code's and Codex's are seconds).
HOOK_TIMEOUT_MS = 30000
TRUST_ENV = "GEMINI_CLI_TRUST_WORKSPACE"  # "true": trust the folder for one headless run

# --- hook payload ------------------------------------------------------------------------
# SessionStart stdin: {session_id, transcript_path (the chat file), cwd, hook_event_name,
# timestamp, source: "startup" | "resume"}; the answer's hookSpecificOutput.additionalContext
# reaches the model as the <hook_context> prefix of the first prompt.
HOOK_SOURCES = ("startup", "resume")


# --- where --------------------------------------------------------------------------------
def config_dir(environ: "Optional[Mapping[str, str]]" = None) -> str:
    """``$GEMINI_CLI_HOME/.gemini``, else ``~/.gemini``; "" when no home can be found."""
    env = os.environ if environ is None else environ
    home = (env.get(HOME_ENV) or "").strip() or env.get("HOME") or ""
    if not home and environ is None:
        home = os.path.expanduser("~")
        if home == "~":
            home = ""
    return os.path.abspath(os.path.join(home, CONFIG_DIR_NAME)) if home else ""


def store_root(environ: "Optional[Mapping[str, str]]" = None) -> str:
    """Where every project's chats live (``~/.gemini/tmp``); "" without a home."""
    base = config_dir(environ)
    return os.path.join(base, TMP_SUBDIR) if base else ""


def chat_files(environ: "Optional[Mapping[str, str]]" = None) -> "Iterator[Tuple[str, str]]":
    """``(project name, path)`` of every main chat file in the store (sub-agent chats sit in
    folders beside them), sorted by project then name. Never raises."""
    root = store_root(environ)
    try:
        projects = sorted(os.listdir(root)) if root else []
    except OSError:
        projects = []
    for project in projects:
        chats = os.path.join(root, project, CHATS_SUBDIR)
        try:
            names = sorted(os.listdir(chats))
        except OSError:
            continue
        for name in names:
            if name.startswith(SESSION_FILE_PREFIX) and name.endswith((TRANSCRIPT_SUFFIX, LEGACY_SUFFIX)):
                yield project, os.path.join(chats, name)


def subagent_dir(chat_path: str, session_id: str) -> str:
    """The folder holding the sub-agent chats of the session ``session_id`` whose chat is
    ``chat_path`` (``chats/<session id>/``); "" for an id that cannot be a folder name
    (the CLI's ids are UUIDs: letters, digits and hyphens)."""
    if not session_id or session_id.strip("-") == "" or any(c not in _ID_CHARS for c in session_id):
        return ""
    return os.path.join(os.path.dirname(chat_path), session_id)


# --- one chat file, resolved -----------------------------------------------------------------
class Where(object):
    """Where a message's winning copy is: its line (number, byte offset, size in bytes)
    and, for a copy inside a ``$set.messages`` list, its index there (-1 otherwise)."""

    __slots__ = ("line", "offset", "size", "index", "ids")

    def __init__(self, line: int, offset: int, size: int, index: int = -1, ids: tuple = ()) -> None:
        self.line, self.offset, self.size, self.index = line, offset, size, index
        self.ids = ids  # the (kind, call id) pairs the message gives, when the resolution kept them


class Chat(object):
    """A chat file's resolution: its header facts and its messages, in order, as places."""

    __slots__ = ("session_id", "kind", "start_time", "summary", "places")

    def __init__(self) -> None:
        self.session_id = ""
        self.kind = ""
        self.start_time = ""
        self.summary = ""
        self.places = {}  # type: dict  # message id -> Where, in first-appearance order


def _text(value: "Any") -> str:
    return value if isinstance(value, str) else ""


def apply_record(chat: Chat, record: dict, where: Where, with_ids: bool = False) -> None:
    """One parsed line of a chat file, applied to ``chat`` (the client's rules, but a
    ``$set.messages`` list never drops a message already seen). ``with_ids``: each place
    also keeps the tool call ids its message gives (``message_ids``)."""
    places = chat.places
    rewind = record.get(REWIND_KEY)
    if isinstance(rewind, str):
        if rewind in places:
            drop, found = [], False
            for key in places:
                found = found or key == rewind
                if found:
                    drop.append(key)
            for key in drop:
                del places[key]
        else:
            places.clear()  # the client's rule for an id it does not know
        return
    message_id = record.get(FIELD_ID)
    if isinstance(message_id, str):
        if with_ids:
            where.ids = message_ids(record)
        places[message_id] = where  # a known id keeps its place (dicts keep first insertion)
        return
    update = record.get(SET_KEY)
    if isinstance(update, dict):
        messages = update.get(FIELD_MESSAGES)
        if isinstance(messages, list):
            for index, message in enumerate(messages):
                if isinstance(message, dict) and isinstance(message.get(FIELD_ID), str):
                    places[message[FIELD_ID]] = Where(where.line, where.offset, where.size, index,
                                                      message_ids(message) if with_ids else ())
        if isinstance(update.get(SUMMARY_KEY), str):
            chat.summary = update[SUMMARY_KEY]
        if isinstance(update.get(HEADER_SESSION_ID), str) and not chat.session_id:
            chat.session_id = update[HEADER_SESSION_ID]
        return
    if isinstance(record.get(HEADER_SESSION_ID), str):
        chat.session_id = chat.session_id or record[HEADER_SESSION_ID]
        chat.kind = chat.kind or _text(record.get(HEADER_KIND))
        chat.start_time = chat.start_time or _text(record.get(HEADER_START_TIME))
        if isinstance(record.get(SUMMARY_KEY), str):
            chat.summary = record[SUMMARY_KEY]


def resolve_lines(f, with_ids: bool = False) -> Chat:
    """Resolve an open chat file (a ``.jsonl`` log) from its start, one bounded line at a time."""
    from termsprawl_context.jsonl import iter_lines, parse_object

    chat = Chat()
    for line in iter_lines(f):
        record = parse_object(line.raw)
        if record is not None:
            apply_record(chat, record, Where(line.number, line.offset, len(line.raw)), with_ids)
    return chat


def _winners(f, chat: Chat, newest_first: bool = False) -> "Iterator[Tuple[dict, Where]]":
    """Each resolved message as its object, in order (or newest first), read back line by
    line. The last two lines read are kept parsed: a resume's ``$set.messages`` line holds
    many winners in a row, and the messages it skipped sit between them."""
    for message, where, _index in _indexed_winners(f, chat, newest_first):
        yield message, where


def _indexed_winners(f, chat: Chat, newest_first: bool = False) -> "Iterator[Tuple[dict, Where, int]]":
    """``_winners`` with each message's place in the conversation (0 for the first)."""
    from termsprawl_context.jsonl import parse_object

    cache = []  # type: list  # [(offset, parsed or None)], newest last, at most two
    places = list(enumerate(chat.places.values()))
    for index, where in reversed(places) if newest_first else places:
        parsed = None
        for offset, value in cache:
            if offset == where.offset:
                parsed = value
                break
        else:
            f.seek(where.offset)
            parsed = parse_object(f.read(where.size))
            cache.append((where.offset, parsed))
            del cache[:-2]
        if parsed is None:
            continue  # the file changed under us: what was there is gone
        if where.index < 0:
            yield parsed, where, index
            continue
        update = parsed.get(SET_KEY)
        messages = update.get(FIELD_MESSAGES) if isinstance(update, dict) else None
        if isinstance(messages, list) and where.index < len(messages) and isinstance(messages[where.index], dict):
            yield messages[where.index], where, index


def legacy_messages(data: bytes) -> "Tuple[Chat, List[dict]]":
    """An older single-JSON chat (``{sessionId, ..., messages: [...]}``): its facts and
    messages (an id given twice keeps its first place and its last value); nothing when
    the text is no such object."""
    from termsprawl_context.jsonl import affordable, loads_strict

    chat = Chat()
    try:
        text = data.decode("utf-8", "replace")
        value = loads_strict(text) if affordable(text) else None
    except (ValueError, RecursionError):
        value = None
    if not isinstance(value, dict):
        return chat, []
    chat.session_id = _text(value.get(HEADER_SESSION_ID))
    chat.kind = _text(value.get(HEADER_KIND))
    chat.start_time = _text(value.get(HEADER_START_TIME))
    chat.summary = _text(value.get(SUMMARY_KEY))
    messages = value.get(FIELD_MESSAGES)
    by_id = {}  # type: dict
    for message in messages if isinstance(messages, list) else []:
        if isinstance(message, dict) and isinstance(message.get(FIELD_ID), str):
            by_id[message[FIELD_ID]] = message
    return chat, list(by_id.values())


# --- one message -> entries -----------------------------------------------------------------
def parts_of(content: "Any") -> "List[dict]":
    """A message's content as a list of parts (a string is one text part; bare strings in
    a list are text parts; anything else is dropped)."""
    if isinstance(content, str):
        return [{"text": content}] if content else []
    if isinstance(content, dict):
        return [content]
    if not isinstance(content, list):
        return []
    return [{"text": p} if isinstance(p, str) else p for p in content if isinstance(p, (str, dict))]


def split_hook_context(text: str) -> "Tuple[str, str]":
    """``(hook block, typed text)`` of a first prompt the CLI prefixed with a SessionStart
    hook's context (``<hook_context>...</hook_context>\\n\\n<prompt>``); ("", text) when it
    holds none."""
    if not text.startswith(HOOK_CONTEXT_OPEN):
        return "", text
    end = text.find(HOOK_CONTEXT_CLOSE)
    if end < 0:
        return text, ""  # all of it is the hook's (the close never came)
    end += len(HOOK_CONTEXT_CLOSE)
    rest = text[end:]
    if rest.startswith(HOOK_CONTEXT_GAP):
        rest = rest[len(HOOK_CONTEXT_GAP):]
    return text[:end], rest


def is_compression_summary(texts: "List[str]") -> bool:
    """A user message that is the compression's summary (both snapshot tags in one text:
    the model may write a scratchpad before it), not anything the person typed."""
    return any(STATE_SNAPSHOT_OPEN in t and STATE_SNAPSHOT_CLOSE in t for t in texts)


def response_body(response: "Any") -> "Tuple[str, bool]":
    """A ``functionResponse.response``'s text and whether it reports an error: its string
    ``output`` (or ``error``), else the object as JSON."""
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


def _result_block(part: dict, is_error: bool = False) -> "Optional[Tuple[str, dict]]":
    response = part.get("functionResponse")
    if not isinstance(response, dict):
        return None
    call_id = _text(response.get("id"))
    body, failed = response_body(response.get("response"))
    return call_id, {"type": "tool_result", "tool_use_id": call_id, "content": body,
                     "is_error": failed or is_error}


def _thought_text(thought: "Any") -> str:
    if not isinstance(thought, dict):
        return ""
    subject, description = _text(thought.get("subject")), _text(thought.get("description"))
    return "**%s** %s" % (subject, description) if subject and description else subject or description


CALL, RESULT = "call", "result"  # what a call id names, for giving each once


def _gemini_calls(message: dict, parts: "List[dict]") -> "Tuple[List[dict], List[Tuple[dict, bool]]]":
    """A model message's tool calls (its ``functionCall`` parts, then ``toolCalls``) and the
    result parts its ``toolCalls`` carry, each with whether the call failed."""
    calls = [part["functionCall"] for part in parts if isinstance(part.get("functionCall"), dict)]
    results = []  # type: List[Tuple[dict, bool]]
    tool_calls = message.get(FIELD_TOOL_CALLS)
    for call in tool_calls if isinstance(tool_calls, list) else []:
        if isinstance(call, dict):
            calls.append(call)
            failed = call.get("status") == "error"
            for part in parts_of(call.get("result")):
                results.append((part, failed))
    return calls, results


def _response_id(part: "Any") -> "Optional[str]":
    response = part.get("functionResponse") if isinstance(part, dict) else None
    return _text(response.get("id")) if isinstance(response, dict) else None


def message_ids(message: dict) -> tuple:
    """The ``(CALL or RESULT, call id)`` pairs a message gives, in the order ``Normaliser``
    meets them (what the newest-first reading needs to give each once, as forward)."""
    kind = message.get(FIELD_TYPE)
    parts = parts_of(message.get(FIELD_CONTENT))
    found = []
    if kind == TYPE_USER:
        result_parts = parts
    elif kind == TYPE_GEMINI:
        calls, results = _gemini_calls(message, parts)
        found = [(CALL, _text(call.get("id"))) for call in calls]
        result_parts = [part for part, _failed in results]
    else:
        return ()
    for part in result_parts:
        call_id = _response_id(part)
        if call_id is not None:
            found.append((RESULT, call_id))
    return tuple(pair for pair in found if pair[1])


def _typed_display(message: dict) -> "List[str]":
    """What the person typed, where the client kept it apart from what it sent (``[]``
    when it did not): the texts of ``displayContent``, less a hook's context."""
    texts = [p["text"] for p in parts_of(message.get(FIELD_DISPLAY)) if isinstance(p.get("text"), str) and p["text"]]
    if texts:
        texts[0] = split_hook_context(texts[0])[1]
    return [t for t in texts if t]


class Normaliser(object):
    """Turns a chat's resolved messages into entries, in order, remembering the tool calls
    and results already given (so a resume's copies are given once)."""

    def __init__(self, session_id: str, agent_id: str = "") -> None:
        self.session_id, self.agent_id = session_id, agent_id
        self.given = set()  # type: set  # (CALL or RESULT, call id) already given

    def give(self, kind: str, call_id: str) -> bool:
        """Whether this call (or result) is given here: the first time its id is met."""
        if not call_id:
            return True
        if (kind, call_id) in self.given:
            return False  # a copy of one already given
        self.given.add((kind, call_id))
        return True

    def _entry(self, kind: str, uuid: str, message: dict, where: Where, blocks: "List[dict]", role: str,
               meta: bool = False, summary: bool = False) -> "Entry":
        from termsprawl_context.transcript.entry import Entry

        body = {"role": role, "content": blocks}
        # A sub-agent's chat is all sub-agent: its "user" messages are the parent model's
        # prompt and the CLI's nudges, never the person (Claude Code's sidechain, in its own file).
        return Entry(kind, uuid, "", "", self.session_id, _text(message.get(FIELD_TIMESTAMP)), "", "",
                     bool(self.agent_id), meta,
                     summary, False, self.agent_id, body, blocks, None, None, where.line, where.offset, message)

    def _results(self, message: dict, where: Where, parts: "List[dict]", uuid: str, failed: bool = False):
        blocks = []
        for part in parts:
            found = _result_block(part, failed) if isinstance(part, dict) else None
            if found is None:
                continue
            call_id, block = found
            if self.give(RESULT, call_id):
                blocks.append(block)
        if blocks:
            yield self._entry("user", uuid, message, where, blocks, "user")

    def entries(self, message: dict, where: Where) -> "Iterator[Entry]":
        kind = _text(message.get(FIELD_TYPE))
        message_id = _text(message.get(FIELD_ID))
        parts = parts_of(message.get(FIELD_CONTENT))
        if kind == TYPE_USER:
            texts = [p["text"] for p in parts if isinstance(p.get("text"), str) and p["text"]]
            if texts:
                first = texts[0]
                if first.lstrip().startswith(SESSION_CONTEXT_OPEN):
                    yield self._entry("user", message_id, message, where, _texts(texts), "user", meta=True)
                elif is_compression_summary(texts):
                    yield self._entry("user", message_id, message, where, _texts(texts), "user", summary=True)
                else:
                    hook, typed = split_hook_context(first)
                    if hook:
                        yield self._entry("user", message_id + "#" + HOOK_CONTEXT_OPEN.strip("<>"), message,
                                          where, _texts([hook]), "user", meta=True)
                    rest = ([typed] if typed else []) + texts[1:]
                    shown = _typed_display(message)
                    if shown:
                        yield self._entry("user", message_id, message, where, _texts(shown), "user")
                        added = [t for t in rest if t not in shown]
                        if added:
                            yield self._entry("user", message_id + "#" + FIELD_DISPLAY, message, where,
                                              _texts(added), "user", meta=True)
                    elif rest:
                        yield self._entry("user", message_id, message, where, _texts(rest), "user")
            for entry in self._results(message, where, parts, message_id):
                yield entry
        elif kind == TYPE_GEMINI:
            blocks = []  # type: List[dict]
            thoughts = message.get(FIELD_THOUGHTS)
            for thought in thoughts if isinstance(thoughts, list) else []:
                text = _thought_text(thought)
                if text:
                    blocks.append({"type": "thinking", "thinking": text})
            for part in parts:
                if isinstance(part.get("text"), str) and part["text"]:
                    if part.get("thought") is True:
                        blocks.append({"type": "thinking", "thinking": part["text"]})
                    else:
                        blocks.append({"type": "text", "text": part["text"]})
            calls, results = _gemini_calls(message, parts)
            for call in calls:
                call_id = _text(call.get("id"))
                if self.give(CALL, call_id):
                    blocks.append({"type": "tool_use", "id": call_id, "name": _text(call.get("name")),
                                   "input": call.get("args")})
            if blocks:
                # The compression's fixed reply is the CLI's line, not the model answering anyone.
                ack = [b.get("text") for b in blocks] == [COMPRESSION_ACK]
                yield self._entry("system" if ack else "assistant", message_id, message, where, blocks,
                                  "assistant", meta=ack)
            for part, failed in results:
                for entry in self._results(message, where, [part], message_id + RESPONSE_COPY_SUFFIX, failed):
                    yield entry
        elif kind in SYNTHETIC_TYPES:
            texts = [p["text"] for p in parts if isinstance(p.get("text"), str) and p["text"]]
            if texts:
                yield self._entry("system", message_id, message, where, _texts(texts), "system")


class NewestFirstNormaliser(Normaliser):
    """``Normaliser`` for messages met newest first: a call (or result) is given where the
    forward reading gives it, at the first message holding its id (known from the
    resolution's ``message_ids``), and once there."""

    def __init__(self, session_id: str, agent_id: str, first_holder: dict) -> None:
        Normaliser.__init__(self, session_id, agent_id)
        self.first_holder = first_holder  # (kind, call id) -> index of the first message holding it
        self.index = -1

    def at(self, index: int) -> None:
        self.index, self.given = index, set()

    def give(self, kind: str, call_id: str) -> bool:
        if call_id and self.first_holder.get((kind, call_id)) != self.index:
            return False
        return Normaliser.give(self, kind, call_id)


def entries_reverse(path: str) -> "Iterator[Entry]":
    """``reversed(list(entries(path)))`` without normalising more than the consumer takes:
    the log is resolved in one pass (keeping each message's call ids), then messages are
    read back newest first. Raises OSError as ``entries`` does."""
    from termsprawl_context.jsonl import open_regular

    if is_legacy(path):
        return iter(list(entries(path))[::-1])  # one object read whole anyway (bounded)
    f = open_regular(path)
    try:
        chat = resolve_lines(f, with_ids=True)
    except BaseException:
        f.close()
        raise
    first_holder = {}  # type: dict
    for index, where in enumerate(chat.places.values()):
        for pair in where.ids:
            first_holder.setdefault(pair, index)

    def generate():
        normaliser = NewestFirstNormaliser(chat.session_id, chat.session_id if chat.kind == KIND_SUBAGENT else "",
                                           first_holder)
        with f:
            for message, where, index in _indexed_winners(f, chat, newest_first=True):
                normaliser.at(index)
                for entry in reversed(list(normaliser.entries(message, where))):
                    yield entry

    return generate()


def _texts(texts: "Iterable[str]") -> "List[dict]":
    return [{"type": "text", "text": text} for text in texts]


def entries_of_messages(chat: Chat, messages: "Iterable[Tuple[dict, Where]]") -> "Iterator[Entry]":
    normaliser = Normaliser(chat.session_id, chat.session_id if chat.kind == KIND_SUBAGENT else "")
    for message, where in messages:
        for entry in normaliser.entries(message, where):
            yield entry


def is_legacy(path: str) -> bool:
    return path.endswith(LEGACY_SUFFIX)


def read_chat(path: str) -> "Tuple[Chat, Iterator[Entry]]":
    """A chat file's facts and its entries, in conversation order (a generator reading the
    open file: consume it before the next call). Raises OSError when ``path`` cannot be
    opened as a regular file; odd content only shrinks the answer."""
    from termsprawl_context.jsonl import MAX_LINE_BYTES, open_regular

    f = open_regular(path)
    if is_legacy(path):
        with f:
            data = f.read(MAX_LINE_BYTES + 1)
        chat, messages = legacy_messages(data if len(data) <= MAX_LINE_BYTES else b"")
        return chat, entries_of_messages(chat, ((m, Where(0, -1, 0)) for m in messages))
    try:
        chat = resolve_lines(f)
    except BaseException:
        f.close()
        raise

    def generate():
        with f:
            for entry in entries_of_messages(chat, _winners(f, chat)):
                yield entry

    return chat, generate()


def last_turns(path: str, limit: int) -> "list":
    """The dump's last ``limit`` turns of a chat, oldest first: what
    ``transcript.turns.entries_turns(entries(path), limit)`` gives, from the messages at
    the end only (after the resolution's one pass). Exact, because a message's printable
    text depends on that message alone: the tool calls and results that ``Normaliser``
    gives once per call id never print. [] when the file cannot be read."""
    from termsprawl_context.jsonl import MAX_LINE_BYTES, try_open_regular
    from termsprawl_context.transcript.turns import entries_turns

    if limit <= 0:
        return []
    f = try_open_regular(path)
    if f is None:
        return []
    found = []  # type: list  # newest message first, each message's turns in order
    count = 0
    try:
        with f:
            if is_legacy(path):
                data = f.read(MAX_LINE_BYTES + 1)
                chat, messages = legacy_messages(data if len(data) <= MAX_LINE_BYTES else b"")
                newest = ((m, Where(0, -1, 0)) for m in reversed(messages))
            else:
                chat = resolve_lines(f)
                newest = _winners(f, chat, newest_first=True)
            normaliser = Normaliser(chat.session_id, chat.session_id if chat.kind == KIND_SUBAGENT else "")
            for message, where in newest:
                turns = entries_turns(normaliser.entries(message, where), limit)
                if turns:
                    found.append(turns)
                    count += len(turns)
                    if count >= limit:
                        break
    except OSError:
        return []
    ordered = [turn for turns in reversed(found) for turn in turns]
    return ordered[-limit:]


def entries(path: str) -> "Iterator[Entry]":
    """The chat's entries, forward (see ``read_chat``)."""
    _chat, found = read_chat(path)
    return found


def header_of(path: str) -> "Optional[Chat]":
    """The facts of a chat file's first header line (session id, kind, start time), or None."""
    from termsprawl_context.jsonl import iter_lines, parse_object, try_open_regular

    f = try_open_regular(path)
    if f is None:
        return None
    with f:
        for line in iter_lines(f):
            record = parse_object(line.raw)
            if record is None:
                continue
            chat = Chat()
            apply_record(chat, record, Where(line.number, line.offset, len(line.raw)))
            return chat if chat.session_id else None
    return None


def resumed_chat(path: str, session_id: str) -> str:
    """The chat file a resumed session really writes to, for a SessionStart payload naming
    ``path``. Observed on 0.61: at ``gemini -r`` the hook's transcript_path is a new file
    (``session-<now>-<id8>.jsonl``, a header and the session context, nothing more) while
    the conversation goes on in the session's first file. So: of the files in ``path``'s
    folder named for the same id whose header names ``session_id``, the earliest by name
    (the name opens with the start time); ``path`` itself when there is none."""
    folder, name = os.path.split(path)
    short = session_id[:8]
    if not short or not name.startswith(SESSION_FILE_PREFIX):
        return path
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return path
    tail = "-" + short + TRANSCRIPT_SUFFIX
    for candidate in names:
        if candidate.startswith(SESSION_FILE_PREFIX) and candidate.endswith(tail):
            full = os.path.join(folder, candidate)
            if os.path.islink(full):
                continue  # the payload's path was checked inside the store; a link may lead out
            chat = header_of(full)
            if chat is not None and chat.session_id == session_id:
                return full
    return path


def sniff(first: dict) -> bool:
    """A chat file's first record: the header (sessionId and projectHash), or a legacy
    object holding both and a messages list."""
    return isinstance(first.get(HEADER_SESSION_ID), str) and isinstance(first.get(HEADER_PROJECT_HASH), str)


# --- the harness interface (harness/base.py) ------------------------------------------------
from termsprawl_context.harness.base import Harness, Session  # noqa: E402


class GeminiHarness(Harness):
    """Gemini CLI behind the interface."""

    name = NAME
    label = LABEL
    transcript_suffix = TRANSCRIPT_SUFFIX
    hook_settings_file = SETTINGS_FILE
    instruction_file = MEMORY_FILE
    hook_event_session_start = HOOK_EVENT_SESSION_START
    # Observed on 0.61: the hook's shell gets the CLI's own $PWD, stale when the CLI was
    # started by a program that changed directory without setting it; the CLI replaces
    # $GEMINI_PROJECT_DIR in the command text with the session's directory, shell-quoted
    # (so it is left unquoted here), and sets it in the hook's environment too.
    hook_start_dir = "$" + PROJECT_DIR_ENV

    def store_roots(self, environ=None):
        root = store_root(environ)
        return [root] if root else []

    def sessions(self, environ=None):
        """Each session once: a resume's stub (a later file of the same project and id,
        see ``resumed_chat``) is not a session of its own."""
        seen = set()
        for project, path in chat_files(environ):
            chat = header_of(path) if not is_legacy(path) else None
            session_id = chat.session_id if chat is not None else ""
            if session_id and (project, session_id) in seen:
                continue
            seen.add((project, session_id))
            yield Session(self.name, session_id, path)

    def session_id_of(self, path):
        return ""  # the file name holds only the id's first 8 characters: read the header

    def sniff(self, first):
        return sniff(first)

    def entries(self, path):
        return entries(path)

    def last_turns(self, path, limit):
        return last_turns(path, limit)

    def entries_reverse(self, path):
        return entries_reverse(path)

    def supports(self, question):
        from termsprawl_context.harness.base import Q_ENTRIES, Q_IDENTITY, Q_SUBAGENTS

        return question in (Q_ENTRIES, Q_SUBAGENTS, Q_IDENTITY)

    def subagent_paths(self, path):
        """The sub-agent chats in ``chats/<session id>/`` beside the chat, whose headers say
        ``kind: subagent``; None when the chat's header names no session."""
        chat = header_of(path) if not is_legacy(path) else None
        if chat is None or self.stable_id(path) is None:
            return None
        folder = subagent_dir(path, chat.session_id)
        try:
            names = sorted(os.listdir(folder)) if folder else []
        except OSError:
            names = []
        found = []
        for name in names:
            child = os.path.join(folder, name)
            if name.endswith(TRANSCRIPT_SUFFIX) and not os.path.islink(child):
                header = header_of(child)
                if header is not None and header.kind == KIND_SUBAGENT:
                    found.append(child)
        return found

    def stable_id(self, path):
        """The header's session id, when the file name agrees with it (a main chat is
        named for its first 8 characters, a sub-agent's for all of it): a resume goes on
        in the same file, so its first header names the conversation."""
        chat = header_of(path) if not is_legacy(path) else None
        if chat is None:
            return None
        name = os.path.basename(path)
        if name == chat.session_id + TRANSCRIPT_SUFFIX:
            return chat.session_id
        if name.startswith(SESSION_FILE_PREFIX) and name.endswith("-" + chat.session_id[:8] + TRANSCRIPT_SUFFIX):
            return chat.session_id
        return None

    def hook_subagent(self, payload):
        """A sub-agent's chat lies in chats/<parent id>/, not in chats/ itself."""
        path = payload.get("transcript_path")
        if not isinstance(path, str) or not path.endswith(TRANSCRIPT_SUFFIX):
            return ""
        folder, name = os.path.split(path)
        if os.path.basename(folder) == CHATS_SUBDIR:
            return ""
        return name[: -len(TRANSCRIPT_SUFFIX)]

    def hook_transcript(self, path, session_id, source):
        """The resume's payload names a stub; the conversation is in the session's first file."""
        return resumed_chat(path, session_id) if source == "resume" else path

    def hook_entry(self, command):
        return {"matcher": HOOK_MATCHER_ANY,
                "hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_MS}]}


HARNESS = GeminiHarness()
