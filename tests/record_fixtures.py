"""Record lines as the reference's fixture helpers write them (go-transcript-package.md,
go-transcript-citations.md section 20), and a project folder to write them into."""

import json
import os
from pathlib import Path

ROOT_TS = "2026-08-13T09:00:00.000Z"
RECORD_TS = "2026-08-13T09:01:00.000Z"
BOUNDARY_TS = "2026-08-13T10:00:00.000Z"


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"))


def preamble():
    return {"type": "custom-title", "customTitle": "a conversation", "sessionId": "s"}


def root(u, **extra):
    line = {
        "type": "user",
        "uuid": u,
        "parentUuid": None,
        "isSidechain": False,
        "timestamp": ROOT_TS,
        "message": {"role": "user", "content": "start"},
    }
    line.update(extra)
    return line


def record(u, p, **extra):
    line = {
        "type": "assistant",
        "uuid": u,
        "parentUuid": p,
        "isSidechain": False,
        "timestamp": RECORD_TS,
        "message": {"role": "assistant", "content": "working"},
    }
    line.update(extra)
    return line


def boundary(u, lp, **extra):
    line = {
        "type": "system",
        "subtype": "compact_boundary",
        "uuid": u,
        "parentUuid": None,
        "logicalParentUuid": lp,
        "isSidechain": False,
        "timestamp": BOUNDARY_TS,
    }
    line.update(extra)
    return line


def user_msg(u, text, **extra):
    line = {
        "type": "user",
        "uuid": u,
        "parentUuid": None,
        "isSidechain": False,
        "message": {"role": "user", "content": text},
    }
    line.update(extra)
    return line


def named_call(u, parent, call_id, name, raw_input, **extra):
    line = {
        "type": "assistant",
        "uuid": u,
        "parentUuid": parent or None,
        "isSidechain": False,
        "message": {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": call_id, "name": name, "input": raw_input}],
        },
    }
    line.update(extra)
    return line


def tool_call(u, parent, call_id, name, cmd, **extra):
    return named_call(u, parent, call_id, name, {"command": cmd}, **extra)


def tool_answer(u, parent, call_id, body, is_error=None, **extra):
    block = {"type": "tool_result", "tool_use_id": call_id, "content": body}
    if is_error is not None:
        block["is_error"] = is_error
    line = {
        "type": "user",
        "uuid": u,
        "parentUuid": parent or None,
        "isSidechain": False,
        "message": {"role": "user", "content": [block]},
    }
    line.update(extra)
    return line


def sidechain_root(u, agent_id, session="the-session", text="do the delegated thing"):
    return {
        "type": "user",
        "uuid": u,
        "parentUuid": None,
        "isSidechain": True,
        "agentId": agent_id,
        "sessionId": session,
        "timestamp": ROOT_TS,
        "message": {"role": "user", "content": text},
    }


def lines_text(lines):
    return "".join((line if isinstance(line, str) else dumps(line)) + "\n" for line in lines)


class Project:
    """A project folder under a tmp dir: ``write(name, lines)`` -> ``<dir>/<name>.jsonl``."""

    def __init__(self, folder):
        self.dir = Path(folder)
        self.dir.mkdir(parents=True, exist_ok=True)

    def write(self, name, lines):
        path = self.dir / (name + ".jsonl")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(lines_text(lines))
        return str(path)

    def write_subagent(self, parent, agent_id, lines, under=("subagents",)):
        path = self.dir.joinpath(parent, *under) / ("agent-%s.jsonl" % agent_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(lines_text(lines))
        return str(path)

    def write_meta(self, transcript, meta):
        meta_path = transcript[: -len(".jsonl")] + ".meta.json"
        with open(meta_path, "w") as f:
            f.write(meta if isinstance(meta, str) else json.dumps(meta))
        return meta_path


def touch_dir(path):
    os.makedirs(str(path), exist_ok=True)
    return str(path)
