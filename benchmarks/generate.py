#!/usr/bin/env python3
"""Deterministic generator of realistic Claude Code transcripts, 1 MB to 1 GB, streamed.

    python3 benchmarks/generate.py OUT --size 500M [--seed N] [--session-id UUID]

The shapes follow shared/corpus/real/FORMAT.md (Claude Code 2.0/2.1): summary and
file-history-snapshot lines, queue-operation pairs, user prompts as a string or as a list
of text blocks, assistant messages written one line per content block (thinking with a
signature, text, tool_use) sharing ``message.id`` and ``requestId``, progress lines, user
tool_result lines whose result is repeated in ``toolUseResult`` (median a few KB, a long
tail to hundreds of KB, as in the corpus), system/turn_duration; every line chained by
``uuid``/``parentUuid`` with increasing ISO timestamps. The same arguments always give
the same bytes: all randomness comes from ``random.Random(seed).random``/``getrandbits``,
whose sequences do not change between Python versions, and the output holds no floats.

Memory stays constant: text comes from pools built once (a few MB), and lines go
straight to disk. Sizes: plain bytes or K/M/G suffixes (powers of 1024).
"""

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

# Why these numbers: the corpus has a median tool_result line of ~2 KB, p90 ~16 KB,
# p99 ~70 KB and a max of 1.2 MB, about 6.7 tool calls per typed prompt and one
# assistant text block per two tool calls.
RESULT_MEDIAN = 1400  # bytes of tool output, before it is repeated in toolUseResult
RESULT_SIGMA = 1.3  # log-normal spread
RESULT_MAX = 600 * 1024
HUGE_RESULT_RATE = 0.006  # outliers of 100–500 KB (a big file read, a long build log)
MEAN_TOOL_ROUNDS = 5
START_MS = 1767603600000  # 2026-01-05T09:00:00Z
MODEL = "claude-opus-4-5-20251101"
VERSION = "2.0.76"

_WORDS = (
    "the a to of and in is it that for on with as this be are we not can if or by from "
    "function return value error file test build run module import class config path line "
    "request response cache index buffer stream parser token session transcript agent link "
    "peer node dump offset reverse block chunk retry timeout socket handler worker queue "
    "refactor rename extract inline migrate deploy rollback schema query commit branch merge "
    "check fails passes because instead should would could maybe first then after before "
    "résumé naïve café — → ✓ 日本語 emoji 🚀 \"quoted\" 'single' back\\slash tab\there"
).split(" ")
_WORDS_SAFE = [w for w in _WORDS if w.isalpha() and w.isascii()]  # for slugs and dir names
_CODE = (
    "def",
    "return",
    "if",
    "else:",
    "for",
    "in",
    "import",
    "from",
    "self.",
    "None",
    "True",
    "const",
    "let",
    "=>",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "==",
    "!=",
    "+=",
    "await",
    "async",
    "print(",
    '"%s"',
    "'\\n'",
    "# TODO",
    "//",
    "/*",
    "*/",
    "0x1f",
    "42",
    "len(",
    "raise",
)
_PATH_PARTS = ("src", "lib", "core", "api", "utils", "tests", "cli", "store", "server", "web")
_FILE_NAMES = (
    "main.py",
    "index.ts",
    "handler.go",
    "config.yaml",
    "README.md",
    "parser.rs",
    "store.py",
    "client.ts",
    "schema.sql",
    "Makefile",
    "utils.py",
    "app.tsx",
)
_TOOLS = ("Bash", "Read", "Read", "Grep", "Edit", "Bash", "Read", "Glob", "Write", "TodoWrite")
_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_B62_OF_BYTE = bytes(ord(_B62[b % 62]) for b in range(256))
# json.dumps turns this into an escape sequence we then swap for pre-encoded JSON text,
# so the big tool outputs are escaped once (in the pool), not once per line.
_HOLE = "\x00hole\x00"
_HOLE_JSON = json.dumps(_HOLE)[1:-1].encode()


def _uuid4(bits: int) -> str:
    """The text of a version-4 UUID made from 128 random bits (as uuid.UUID(int=bits, version=4))."""
    text = "%032x" % (bits & ~(0xC000 << 48) & ~(0xF000 << 64) | (0x8000 << 48) | (4 << 76))
    return "%s-%s-%s-%s-%s" % (text[:8], text[8:12], text[12:16], text[16:20], text[20:])


def _dumps(obj) -> str:
    # Claude Code writes JSON.stringify output: no spaces, non-ASCII as raw UTF-8.
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _escaped(text: str) -> bytes:
    return _dumps(text)[1:-1].encode("utf-8")


def parse_size(text: str) -> int:
    """``"500M"`` -> 524288000; plain digits are bytes; K, M, G (optionally + B) are
    powers of 1024."""
    value = text.strip().upper()
    if value.endswith("B") and len(value) > 1 and not value[-2].isdigit():
        value = value[:-1]
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(value[-1:], 1)
    number = value[:-1] if scale != 1 else value
    try:
        size = int(float(number) * scale)
    except ValueError:
        raise ValueError("not a size: %r (try 1048576, 1M, 500M, 1G)" % text)
    if size <= 0:
        raise ValueError("size must be positive: %r" % text)
    return size


class _Pools:
    """Text built once per seed: output lines pre-escaped for JSON, sentences for prose."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        lines = [self._code_line() for _ in range(12000)]
        self.plain = [_escaped(line) for line in lines]  # a file's lines, JSON-escaped
        arrow = "\u2192".encode("utf-8")
        # Read output is `cat -n` style: right-aligned number, an arrow, the line.
        self.numbered = [b"%6d%s%s" % (i + 1, arrow, line) for i, line in enumerate(self.plain)]
        self.sentences = [self._sentence() for _ in range(4000)]
        self.b64 = "".join(_B64[rng.getrandbits(6)] for _ in range(8192))

    def pick(self, seq):
        return seq[int(self.rng.random() * len(seq))]

    def between(self, lo: int, hi: int) -> int:
        return lo + int(self.rng.random() * (hi - lo + 1))

    def _code_line(self) -> str:
        r = self.rng.random()
        if r < 0.08:
            return ""
        words = _CODE if r < 0.6 else _WORDS
        indent = "    " * int(self.rng.random() * 4)
        return indent + " ".join(self.pick(words) for _ in range(self.between(2, 14)))

    def _sentence(self) -> str:
        words = [self.pick(_WORDS) for _ in range(self.between(4, 22))]
        if self.rng.random() < 0.15:
            words.append("`%s`" % self.path())
        return " ".join(words).capitalize() + "."

    def prose(self, lo: int, hi: int) -> str:
        parts = []
        for _ in range(self.between(lo, hi)):
            parts.append(self.pick(self.sentences))
            if self.rng.random() < 0.2:
                parts.append("\n\n")
            elif self.rng.random() < 0.08:
                parts.append("\n\n```\n%s\n```\n\n" % self.pick(self.sentences))
        return " ".join(parts).strip()

    def path(self) -> str:
        depth = self.between(1, 3)
        return "/".join([self.pick(_PATH_PARTS) for _ in range(depth)] + [self.pick(_FILE_NAMES)])

    def output(self, size: int, numbered: bool = False):
        """(JSON-escaped output of about ``size`` bytes, first line number, line count)."""
        count = max(1, size // 40)
        count = min(count, len(self.plain))
        start = int(self.rng.random() * (len(self.plain) - count + 1))
        source = self.numbered if numbered else self.plain
        return b"\\n".join(source[start : start + count]), start + 1, count

    def signature(self) -> str:
        length = self.between(300, 1200)
        start = int(self.rng.random() * (len(self.b64) - length))
        return "Eq" + self.b64[start : start + length]


class _Writer:
    """Streams lines to disk up to a byte budget, keeping the uuid chain and clock."""

    def __init__(self, f, budget: int, rng: random.Random, session_id: str) -> None:
        self.f = f
        self.budget = budget
        self.rng = rng
        self.session_id = session_id
        self.written = 0
        self.lines = 0
        self.user_turns = 0
        self.assistant_turns = 0
        self.parent: Optional[str] = None
        self.clock = START_MS + int(rng.random() * 86400000)
        self.full = False
        self.cwd = "/home/dev/projects/" + "-".join(_WORDS_SAFE[int(rng.random() * len(_WORDS_SAFE))] for _ in range(2))
        self.slug = "-".join(_WORDS_SAFE[int(rng.random() * len(_WORDS_SAFE))] for _ in range(3))

    def room(self) -> int:
        return self.budget - self.written

    def uuid(self) -> str:
        return _uuid4(self.rng.getrandbits(128))

    def token(self, prefix: str, length: int) -> str:
        """``prefix`` + ``length`` random base-62 characters (message, request, tool ids)."""
        return prefix + self.rng.getrandbits(8 * length).to_bytes(length, "big").translate(_B62_OF_BYTE).decode()

    def stamp(self, lo_ms: int, hi_ms: int) -> str:
        self.clock += lo_ms + int(self.rng.random() * (hi_ms - lo_ms))
        seconds, ms = divmod(self.clock, 1000)
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + ".%03dZ" % ms

    def envelope(self, kind: str, lo_ms: int = 20, hi_ms: int = 1500) -> Dict:
        """The keys every message-like line starts with, in Claude Code's order."""
        return {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": VERSION,
            "gitBranch": "main",
            "slug": self.slug,
            "type": kind,
            "_ts": self.stamp(lo_ms, hi_ms),
        }

    def emit(self, obj: Dict, *bodies: bytes, chain: bool = True) -> Optional[str]:
        """Write one line; ``bodies`` fill the ``_HOLE`` strings in order. Returns the
        line's uuid (and makes it the next parent) or None; sets ``full`` instead of
        writing a line that would pass the budget."""
        if self.full:
            return None
        line_uuid = None
        if "_ts" in obj:
            # uuid and timestamp go where the envelope's "_ts" placeholder stands.
            stamped = {}
            for key, value in obj.items():
                if key != "_ts":
                    stamped[key] = value
                    continue
                if chain:
                    line_uuid = stamped["uuid"] = self.uuid()
                stamped["timestamp"] = value
            obj = stamped
        text = _dumps(obj).encode("utf-8")
        pieces = text.split(_HOLE_JSON) if bodies else [text]
        size = len(text) - len(_HOLE_JSON) * len(bodies) + sum(map(len, bodies)) + 1
        if size > self.room():
            self.full = True
            return None
        for i, piece in enumerate(pieces):
            self.f.write(piece)
            if i < len(bodies):
                self.f.write(bodies[i])
        self.f.write(b"\n")
        self.written += size
        self.lines += 1
        if chain and line_uuid:
            self.parent = line_uuid
        return line_uuid


def write_transcript(path, size_bytes: int, seed: int = 0, session_id: Optional[str] = None) -> dict:
    """Write a transcript of at most ``size_bytes`` (within a few KB of it) to ``path``.

    Returns ``{"path", "bytes", "lines", "user_turns", "assistant_turns", "session_id",
    "seed"}``; the turn counts are lines the dump prints (a user string prompt or a user
    or assistant line with a text block)."""
    rng = random.Random(seed)
    pools = _Pools(rng)
    if session_id is None:
        session_id = _uuid4(rng.getrandbits(128))
    with open(str(path), "wb", buffering=1 << 20) as f:
        w = _Writer(f, int(size_bytes), rng, session_id)
        _preamble(w, pools)
        while not w.full:
            _exchange(w, pools)
    return {
        "path": str(path),
        "bytes": w.written,
        "lines": w.lines,
        "user_turns": w.user_turns,
        "assistant_turns": w.assistant_turns,
        "session_id": session_id,
        "seed": seed,
    }


def _preamble(w: _Writer, p: _Pools) -> None:
    # Resumed sessions start with summary lines whose leafUuid points elsewhere.
    for _ in range(p.between(1, 3)):
        _summary(w, p)


def _summary(w: _Writer, p: _Pools) -> None:
    w.emit({"type": "summary", "summary": p.pick(p.sentences)[:60], "leafUuid": w.uuid()}, chain=False)


def _exchange(w: _Writer, p: _Pools) -> None:
    """One typed prompt and everything it causes, up to the turn_duration line."""
    if p.rng.random() < 0.02:
        _summary(w, p)  # Claude Code appends titles of other sessions mid-file too
    prompt = p.prose(1, 6) if p.rng.random() < 0.95 else p.prose(30, 120)
    if p.rng.random() < 0.1:
        # Typed while the agent was busy: Claude Code queues it first.
        for op in ("enqueue", "dequeue"):
            entry = {
                "type": "queue-operation",
                "operation": op,
                "timestamp": w.stamp(100, 30000),
                "sessionId": w.session_id,
            }
            if op == "enqueue":
                entry["content"] = prompt
            w.emit(entry, chain=False)
    user = w.envelope("user", 30000, 600000)
    content = prompt if p.rng.random() < 0.6 else [{"type": "text", "text": prompt}]
    user["message"] = {"role": "user", "content": content}
    user["_ts"] = user.pop("_ts")
    prompt_uuid = w.emit(user)
    if prompt_uuid is None:
        return
    w.user_turns += 1
    start = w.clock
    w.emit(
        {
            "type": "file-history-snapshot",
            "messageId": prompt_uuid,
            "snapshot": {"messageId": prompt_uuid, "trackedFileBackups": {}, "timestamp": w.stamp(1, 200)},
            "isSnapshotUpdate": False,
        },
        chain=False,
    )
    rounds = 1 + int(-math.log(1.0 - p.rng.random()) * MEAN_TOOL_ROUNDS)
    for n in range(rounds):
        last = n == rounds - 1
        tools = [] if last else [p.pick(_TOOLS) for _ in range(1 if p.rng.random() < 0.85 else p.between(2, 3))]
        calls = _assistant(
            w, p, thinking=p.rng.random() < (0.6 if n == 0 else 0.2), text=last or p.rng.random() < 0.45, tools=tools
        )
        for tool_id, name, call_uuid in calls:
            _tool_result(w, p, tool_id, name, call_uuid)
        if w.full:
            return
    duration = w.envelope("system", 5, 50)
    duration.update({"subtype": "turn_duration", "durationMs": w.clock - start, "messageCount": w.lines})
    duration["isMeta"] = False
    if p.rng.random() < 0.7:
        w.emit(duration)


def _assistant(w: _Writer, p: _Pools, thinking: bool, text: bool, tools: List[str]):
    """One API response: a line per content block, sharing message.id and requestId."""
    message_id, request_id = w.token("msg_01", 22), w.token("req_011C", 20)
    usage = {
        "input_tokens": p.between(1, 12),
        "cache_creation_input_tokens": p.between(0, 30000),
        "cache_read_input_tokens": p.between(0, 150000),
        "output_tokens": p.between(20, 4000),
        "service_tier": "standard",
    }
    blocks = []
    if thinking:
        blocks.append({"type": "thinking", "thinking": p.prose(2, 14), "signature": p.signature()})
    if text:
        blocks.append({"type": "text", "text": p.prose(1, 8)})
    calls = []
    for name in tools:
        tool_id = w.token("toolu_01", 22)
        blocks.append({"type": "tool_use", "id": tool_id, "name": name, "input": _tool_input(p, name)})
        calls.append((tool_id, name))
    done = []
    for i, block in enumerate(blocks):
        line = w.envelope("assistant", 300, 9000 if i == 0 else 1200)
        del line["type"]  # assistant lines put message and requestId before type
        line["message"] = {
            "model": MODEL,
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": "tool_use" if tools and i == len(blocks) - 1 else None,
            "stop_sequence": None,
            "usage": usage,
        }
        line["requestId"] = request_id
        line["type"] = "assistant"
        line["_ts"] = line.pop("_ts")  # uuid and timestamp come last
        line_uuid = w.emit(line)
        if line_uuid is None:
            return done
        if block["type"] == "text":
            w.assistant_turns += 1
        if block["type"] == "tool_use":
            done.append((block["id"], block["name"], line_uuid))
    return done


def _tool_input(p: _Pools, name: str) -> dict:
    if name == "Bash":
        return {
            "command": "cd %s && %s" % (p.path().rsplit("/", 1)[0], p.pick(p.sentences)[:80].lower()),
            "description": p.pick(p.sentences)[:50],
        }
    if name == "Read":
        return {"file_path": "/home/dev/projects/" + p.path()}
    if name == "Grep":
        return {"pattern": p.pick(_WORDS), "path": p.path().rsplit("/", 1)[0], "output_mode": "content"}
    if name == "Glob":
        return {"pattern": "**/*." + p.pick(_FILE_NAMES).rsplit(".", 1)[-1]}
    if name == "Edit":
        return {
            "file_path": "/home/dev/projects/" + p.path(),
            "old_string": p.prose(1, 6),
            "new_string": p.prose(1, 8),
            "replace_all": False,
        }
    if name == "Write":
        return {"file_path": "/home/dev/projects/" + p.path(), "content": p.prose(10, 60)}
    return {
        "todos": [
            {
                "content": p.pick(p.sentences)[:70],
                "status": p.pick(("pending", "in_progress", "completed")),
                "activeForm": p.pick(p.sentences)[:40],
            }
            for _ in range(p.between(2, 7))
        ]
    }


def _result_size(w: _Writer, p: _Pools) -> int:
    if p.rng.random() < HUGE_RESULT_RATE:
        size = p.between(100 * 1024, 500 * 1024)
    else:
        size = int(RESULT_MEDIAN * math.exp(RESULT_SIGMA * p.rng.gauss(0.0, 1.0)))
    # Near the end of the budget, shrink results so the file ends close to its size.
    return max(40, min(size, RESULT_MAX, w.room() // 3))


def _tool_result(w: _Writer, p: _Pools, tool_id: str, name: str, call_uuid: str) -> None:
    if name == "Bash" and p.rng.random() < 0.5:
        for i in range(p.between(1, 3)):
            line = w.envelope("progress", 500, 3000)
            line["data"] = {
                "type": "bash_progress",
                "output": p.pick(p.sentences),
                "fullOutput": p.prose(1, 5),
                "elapsedTimeSeconds": i + 2,
                "totalLines": p.between(1, 200),
            }
            line["toolUseID"] = "bash-progress-%d" % i
            line["parentToolUseID"] = tool_id
            w.emit(line)
    elif p.rng.random() < 0.3:
        line = w.envelope("progress", 5, 100)
        line["data"] = {
            "type": "hook_progress",
            "hookEvent": "PostToolUse",
            "hookName": "PostToolUse:" + name,
            "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/post-tool.sh",
        }
        line["parentToolUseID"] = tool_id
        line["toolUseID"] = tool_id
        w.emit(line)
    line = w.envelope("user", 50, 4000)
    line["message"] = None  # filled below; keeps Claude Code's key order
    line["_ts"] = line.pop("_ts")
    block = {"tool_use_id": tool_id, "type": "tool_result", "content": _HOLE}
    bodies = []
    if p.rng.random() < 0.05:
        error = "<tool_use_error>%s</tool_use_error>" % p.pick(p.sentences)
        block["content"], block["is_error"] = error, True
        line["message"] = {"role": "user", "content": [block]}
        line["toolUseResult"] = "Error: " + error[16:-17]
    elif name == "Read":
        body, first, count = p.output(_result_size(w, p), numbered=True)
        plain = b"\\n".join(p.plain[first - 1 : first - 1 + count])  # the file, without numbers
        line["message"] = {"role": "user", "content": [block]}
        line["toolUseResult"] = {
            "type": "text",
            "file": {
                "filePath": "/home/dev/projects/" + p.path(),
                "content": _HOLE,
                "numLines": count,
                "startLine": first,
                "totalLines": first + count + p.between(0, 400),
            },
        }
        bodies = [body, plain]
    elif name in ("Bash", "Grep", "Glob"):
        body = p.output(_result_size(w, p))[0]
        if p.rng.random() < 0.03:
            block["content"] = [{"type": "text", "text": _HOLE}]
        else:
            block["is_error"] = False
        line["message"] = {"role": "user", "content": [block]}
        line["toolUseResult"] = {"stdout": _HOLE, "stderr": "", "interrupted": False, "isImage": False}
        bodies = [body, body]
    elif name == "TodoWrite":
        body = _escaped("Todos have been modified successfully. Ensure that you continue to use the todo list.")
        line["message"] = {"role": "user", "content": [block]}
        line["toolUseResult"] = {
            "oldTodos": [],
            "newTodos": [{"content": p.pick(p.sentences)[:70], "status": "pending", "activeForm": "Working"}],
        }
        bodies = [body]
    else:
        body = _escaped("The file %s has been updated successfully." % p.path())
        line["message"] = {"role": "user", "content": [block]}
        original = p.output(_result_size(w, p))[0]
        line["toolUseResult"] = {
            "filePath": "/home/dev/projects/" + p.path(),
            "originalFile": _HOLE,
            "userModified": False,
            "replaceAll": False,
        }
        bodies = [body, original]
    line["sourceToolAssistantUUID"] = call_uuid
    w.emit(line, *bodies)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Write a realistic Claude Code transcript (deterministic).")
    parser.add_argument("out", type=Path, help="output .jsonl path")
    parser.add_argument("--size", default="10M", help="target size: bytes or K/M/G (powers of 1024); default 10M")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--session-id", default=None)
    args = parser.parse_args(argv)
    try:
        size = parse_size(args.size)
    except ValueError as exc:
        parser.error(str(exc))
    started = time.perf_counter()
    stats = write_transcript(args.out, size, seed=args.seed, session_id=args.session_id)
    print(
        "wrote %s: %d bytes, %d lines, %d user / %d assistant printable turns in %.1f s"
        % (
            args.out,
            stats["bytes"],
            stats["lines"],
            stats["user_turns"],
            stats["assistant_turns"],
            time.perf_counter() - started,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
