"""Record builders for the citation, query and background-agent tests: the Go
reference's fixture helpers (go-transcript-citations.md, section 20), one JSON line each."""

import contextlib
import json
import os

import pytest

from termsprawl_context.cite import pools


@pytest.fixture(params=[True, False], ids=["prefilter", "plain"])
def both_searches(request, monkeypatch):
    """Runs a cite test under both searches: the byte prefilter, and the plain one that
    parses every line (``cite.pools.PREFILTER``, the fast path's one switch). A
    module opts in with ``pytestmark = pytest.mark.usefixtures("both_searches")``."""
    monkeypatch.setattr(pools, "PREFILTER", request.param)
    return request.param


@contextlib.contextmanager
def plain_search():
    """Within the block, cite parses every line (the plain search)."""
    kept = pools.PREFILTER
    pools.PREFILTER = False
    try:
        yield
    finally:
        pools.PREFILTER = kept


def line(obj):
    return json.dumps(obj, ensure_ascii=False)


def user_msg(u, text, parent=None, **flags):
    obj = {
        "type": "user",
        "uuid": u,
        "parentUuid": parent,
        "isSidechain": False,
        "message": {"role": "user", "content": text},
    }
    obj.update(flags)
    return line(obj)


def root(u="u1"):
    return user_msg(u, "start")


def record(u, parent=None):
    return line(
        {
            "type": "assistant",
            "uuid": u,
            "parentUuid": parent,
            "isSidechain": False,
            "message": {"role": "assistant", "content": "working"},
        }
    )


def assistant_text(u, parent, text):
    return line(
        {
            "type": "assistant",
            "uuid": u,
            "parentUuid": parent,
            "isSidechain": False,
            "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
        }
    )


def named_call(u, parent, call_id, name, raw_input, cwd=None, sidechain=False):
    obj = {
        "type": "assistant",
        "uuid": u,
        "parentUuid": parent,
        "isSidechain": sidechain,
        "message": {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": call_id, "name": name, "input": raw_input}],
        },
    }
    if cwd:
        obj["cwd"] = cwd
    return line(obj)


def tool_call(u, parent, call_id, name, cmd, **kw):
    return named_call(u, parent, call_id, name, {"command": cmd}, **kw)


def tool_use_msg(u, parent, name, cmd):
    """Assistant with one tool_use whose id is ``t-<u>``."""
    return tool_call(u, parent, "t-" + u, name, cmd)


def tool_answer(u, parent, call_id, body, is_error=False, sidechain=False):
    block = {"type": "tool_result", "tool_use_id": call_id, "content": body}
    if is_error:
        block["is_error"] = True
    return line(
        {
            "type": "user",
            "uuid": u,
            "parentUuid": parent,
            "isSidechain": sidechain,
            "message": {"role": "user", "content": [block]},
        }
    )


def tool_result_msg(u, parent, body):
    """User tool_result answering the call ``t-<parent>`` (the newest helper)."""
    return tool_answer(u, parent, "t-" + parent, body)


def queued_command_msg(u, parent, prompt, mode="prompt"):
    return line(
        {
            "type": "attachment",
            "uuid": u,
            "parentUuid": parent,
            "isSidechain": False,
            "attachment": {
                "type": "queued_command",
                "prompt": prompt,
                "source_uuid": "src-" + u,
                "commandMode": mode,
                "origin": {"kind": "human"},
                "humanTurn": True,
            },
        }
    )


def task_notification_attachment(u, parent, prompt):
    return queued_command_msg(u, parent, prompt, mode="task-notification")


def preamble():
    return line({"type": "custom-title", "customTitle": "a conversation", "sessionId": "s"})


BG_INPUT = {"prompt": "go", "run_in_background": True}


def launch(n, tool_id, agent):
    return [
        named_call("a-%s" % n, "", tool_id, "Agent", BG_INPUT),
        tool_answer(
            "r-%s" % n, "a-%s" % n, tool_id, "Async agent launched successfully.\nagentId: %s (internal ID)" % agent
        ),
    ]


def notification(agent, status):
    prompt = (
        "<task-notification>\n<task-id>%s</task-id>\n<status>%s</status>\n<summary>x</summary>\n"
        "</task-notification>" % (agent, status)
    )
    return line(
        {
            "type": "attachment",
            "uuid": "n-%s%s" % (agent, status),
            "parentUuid": None,
            "isSidechain": False,
            "attachment": {"type": "queued_command", "prompt": prompt, "commandMode": "task-notification"},
        }
    )


def write(path, lines):
    """Write ``lines`` (each + newline) to ``path``, making its directory; returns str(path)."""
    path = str(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for item in lines:
            f.write(item + "\n")
    return path


def write_subagent(tmp, parent, agent_id, lines):
    return write(os.path.join(str(tmp), parent, "subagents", "agent-%s.jsonl" % agent_id), lines)


def write_subagent_meta(tmp, parent, agent_id, meta):
    path = os.path.join(str(tmp), parent, "subagents", "agent-%s.meta.json" % agent_id)
    with open(path, "w") as f:
        json.dump(meta, f)
    return path
