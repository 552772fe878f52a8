"""Sub-agent records: where a session's delegated work is filed, and how to climb back.

Claude Code files a sub-agent's record under the record that dispatched it:
``<project>/<session>/subagents/agent-<id>.jsonl``, nested again for a sub-agent that
dispatched another (``.../agent-<a>/subagents/agent-<b>.jsonl``), and a workflow's agents
under ``subagents/workflows/wf_<id>/``. Beside each sits ``agent-<id>.meta.json``, whose
``toolUseId`` names the tool_use, in the dispatching record, that started it.

These answers decide whose record a sub-agent's words are read from, so they fail closed:
an agent id that could climb out of its directory is refused, an unparseable meta file is an
error (not "no meta"), and an orphan's root is "" rather than a guess.
"""

import os
from typing import List, NamedTuple, Optional, Tuple

from termsprawl_context.bytescan import Needles
from termsprawl_context.errors import (
    NO_TRANSCRIPT_PATH,
    NoParent,
    NotAnAgentId,
    RecordUnreadable,
    SubagentsUnreadable,
    os_reason,
)
from termsprawl_context.harness.claude import facts as cc
from termsprawl_context.jsonl import loads_strict, open_regular
from termsprawl_context.transcript.tool_blocks import tool_use_ids
from termsprawl_context.transcript import record


NOT_AN_AGENT_ID = "the reported agent id is not an agent id"
_PATH_CONTEXT = "transcript: sub-agent transcript path: "


class AgentMeta(NamedTuple):
    """A delegation's companion record: role, task, dispatching tool_use id, nesting depth."""

    agent_type: str
    description: str
    tool_use_id: str
    spawn_depth: int


def record_stem(path: str) -> str:
    """``path`` without its ``.jsonl``: the directory its own sub-agents nest in."""
    return path[: -len(cc.TRANSCRIPT_SUFFIX)] if path.endswith(cc.TRANSCRIPT_SUFFIX) else path


def is_agent_file_name(name: str) -> bool:
    """``agent-<something>.jsonl`` (the two cannot overlap): the name of a sub-agent's record."""
    return name.startswith(cc.AGENT_FILE_PREFIX) and name.endswith(cc.TRANSCRIPT_SUFFIX)


def child_records(path: str) -> List[str]:
    """The ``agent-*.jsonl`` files in ``<path minus .jsonl>/subagents/``, sorted (unlistable: SubagentsUnreadable)."""
    folder = os.path.join(record_stem(path), cc.SUBAGENTS_DIR)
    try:
        with os.scandir(folder) as entries:
            names = [e.name for e in entries if is_agent_file_name(e.name) and not e.is_dir()]
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        raise SubagentsUnreadable("transcript: enumerate sub-agents in %s: %s" % (folder, os_reason(exc))) from None
    return [os.path.join(folder, name) for name in sorted(names)]


def subagent_tree(path: str) -> List[str]:
    """Every sub-agent record beneath ``path`` (nested and workflow layouts) in the reference's
    walk order: depth first, each directory's entries by name, symlinks not followed. []
    when nothing was dispatched; SubagentsUnreadable when a directory cannot be listed."""
    top = os.path.join(record_stem(path), cc.SUBAGENTS_DIR)
    if not os.path.isdir(top):
        return []
    found = []
    pending = [(top, True)]  # a stack, next entry last: a deep tree needs no recursion
    while pending:
        child, is_dir = pending.pop()
        if not is_dir:
            if is_agent_file_name(os.path.basename(child)):
                found.append(child)
            continue
        try:
            with os.scandir(child) as entries:
                listed = sorted((e.name, e.is_dir(follow_symlinks=False)) for e in entries)  # a symlink is no dir
        except OSError as exc:
            why = "transcript: enumerate sub-agents under %s: open %s: %s" % (top, child, os_reason(exc))
            raise SubagentsUnreadable(why) from None
        pending.extend((os.path.join(child, name), is_dir) for name, is_dir in reversed(listed))
    return found


def session_dir_of_subagent(path: str, outermost: bool = False) -> str:
    """The directory a sub-agent's record nests under (its dispatcher's path minus ``.jsonl``),
    or "": ``outermost``, its session's, above every dispatching sub-agent. Searched from the
    record outwards, so a session directory that itself holds a ``subagents`` component cannot
    capture it."""
    found = ""
    current = os.path.dirname(path)
    while True:
        parent, name = os.path.split(current)
        if name == cc.SUBAGENTS_DIR:
            found = parent or found  # "" names no directory: the one below stands
            if not outermost or not os.path.basename(found).startswith(cc.AGENT_FILE_PREFIX) or not parent:
                return found
        if parent == current or not current:
            return found
        current = parent


# Each meta key (compared case-insensitively, as Go's decoder does) -> its field, its type.
_META_FIELDS = {
    cc.META_AGENT_TYPE.casefold(): ("agent_type", str),
    cc.META_DESCRIPTION.casefold(): ("description", str),
    cc.META_TOOL_USE_ID.casefold(): ("tool_use_id", str),
    cc.META_SPAWN_DEPTH.casefold(): ("spawn_depth", int),
}


def read_agent_meta(path: str) -> Optional[AgentMeta]:
    """The meta companion of the record at ``path``; None when there is none. One that cannot be
    read or decoded as the reference's struct would be is SubagentsUnreadable."""
    if not path.endswith(cc.TRANSCRIPT_SUFFIX):
        return None
    meta = record_stem(path) + cc.AGENT_META_SUFFIX
    try:
        with open_regular(meta) as f:
            data = f.read(record.MAX_RECORD_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SubagentsUnreadable("transcript: read sub-agent meta %s: %s" % (meta, os_reason(exc)), meta) from None
    if len(data) > record.MAX_RECORD_BYTES:
        raise SubagentsUnreadable(
            "transcript: read sub-agent meta %s: longer than %d bytes" % (meta, record.MAX_RECORD_BYTES), meta
        )
    fields = {"agent_type": "", "description": "", "tool_use_id": "", "spawn_depth": 0}
    try:  # as Go's decoder does: null is the zero value, a wrong type is an error
        value = loads_strict(data.decode("utf-8", "replace"))
        if not isinstance(value, (dict, type(None))):
            raise ValueError("the meta file is not a JSON object")
        for key, item in (value or {}).items():
            field, kind = _META_FIELDS.get(key.casefold(), ("", None))
            if kind is None or item is None:
                continue
            if isinstance(item, bool) or not isinstance(item, kind):
                raise ValueError("%s is not %s" % (key, "an integer" if kind is int else "a string"))
            fields[field] = item
    except (ValueError, RecursionError) as exc:
        raise SubagentsUnreadable("transcript: parse sub-agent meta %s: %s" % (meta, exc), meta) from None
    return AgentMeta(**fields)  # type: ignore[arg-type]


def is_subagent_transcript(path: str) -> bool:
    """A meta companion that parses, else its first entry's ``isSidechain``; unreadable: False."""
    try:
        if read_agent_meta(path) is not None:
            return True
    except SubagentsUnreadable:
        pass
    try:
        first = next(record.iter_entries(path), None)
    except RecordUnreadable:
        return False
    return first is not None and first.is_sidechain


def is_subagent_record(path: str) -> bool:
    """Filed as a sub-agent's (``agent-*.jsonl`` under ``subagents``) or saying it is one."""
    filed = is_agent_file_name(os.path.basename(path)) and bool(session_dir_of_subagent(path))
    return filed or is_subagent_transcript(path)


def subagent_transcript_path(session_path: str, agent_id: str) -> str:
    """Where sub-agent ``agent_id`` of ``session_path`` wrote its record (the flat layout). An id
    that is empty, holds a path separator or is ``.``/``..`` is NotAnAgentId: it would climb
    out into another conversation (``..x`` and ``a..b`` are names)."""
    if not session_path:
        raise NoParent(_PATH_CONTEXT + NO_TRANSCRIPT_PATH)
    if not agent_id:
        raise NotAnAgentId(_PATH_CONTEXT + NOT_AN_AGENT_ID + ": it is empty")
    if not cc.is_plain_name(agent_id):
        raise NotAnAgentId(_PATH_CONTEXT + NOT_AN_AGENT_ID + ": " + record.go_quote(agent_id))
    return os.path.join(
        record_stem(session_path), cc.SUBAGENTS_DIR, cc.AGENT_FILE_PREFIX + agent_id + cc.TRANSCRIPT_SUFFIX
    )


def parent_of(path: str) -> str:
    """The IMMEDIATE parent of the sub-agent at ``path``: the session's record (root first)
    holding the tool_use its meta's ``toolUseId`` names. "" when none can be named (a link is
    never invented); an unparseable meta file is SubagentsUnreadable."""
    try:
        return find_parent(path)[0]
    except NoParent:
        return ""


def find_parent(path: str) -> Tuple[str, str]:
    """``(parent_of(path), the toolUseId it holds)``; NoParent saying why when there is none."""
    meta = read_agent_meta(path)
    if meta is None:
        raise _no_parent("%s has no sub-agent meta file beside it: no dispatch to trace" % path)
    if not meta.tool_use_id:
        raise _no_parent("the meta file of %s names no toolUseId: the dispatch cannot be traced" % path)
    folder = session_dir_of_subagent(path, outermost=True)
    if not folder:
        raise _no_parent("%s is under no subagents directory: its session's records cannot be searched" % path)
    root = folder + cc.TRANSCRIPT_SUFFIX
    needles = Needles.for_values([meta.tool_use_id])  # only the lines that may spell it are parsed
    for candidate in ([root] if os.path.isfile(root) else []) + subagent_tree(root):
        if record.same_file(candidate, path):
            continue
        try:
            for line in record.iter_raw_lines(candidate):
                entry = record.entry_at(line, record.decode_line(line.raw)) if needles.in_line(line.raw) else None
                if entry is not None and meta.tool_use_id in tool_use_ids(entry):
                    return candidate, meta.tool_use_id
        except RecordUnreadable:
            pass  # an unreadable record holds no dispatch we can name
    raise _no_parent("no record of the session at %s holds the tool_use %s" % (root, meta.tool_use_id))


def _no_parent(why: str) -> NoParent:
    return NoParent("transcript: parent: " + why)
