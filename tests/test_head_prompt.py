"""The bounded search for a typed prompt past the head (harness/claude/session_scan.py,
its window reader in byte_windows.py)."""

import io
import json

from termsprawl_context import byte_windows
from termsprawl_context.harness.claude import session_scan as M


def line(record):
    return json.dumps(record).encode() + b"\n"


def user(text, **extra):
    record = {"type": "user", "message": {"content": text}}
    record.update(extra)
    return line(record)


def lines_of(data, start, limit, leftover=b""):
    return list(byte_windows.iter_lines_within(io.BytesIO(data), leftover, start, limit))


def test_lines_within_a_limit():
    data = b"aa\nbbb\ncc\ntorn"
    assert lines_of(data, 0, 100) == [b"aa", b"bbb", b"cc", b"torn"]
    assert lines_of(data, 0, 7) == [b"aa", b"bbb"]  # "cc" is still open at the limit
    assert lines_of(data, 3, 100) == [b"bbb", b"cc", b"torn"]
    assert lines_of(data, 5, 100, leftover=b"bb") == [b"bbb", b"cc", b"torn"]  # the head read "bb" already
    assert lines_of(data, 14, 100) == []


def test_lines_cross_read_blocks(monkeypatch):
    monkeypatch.setattr(byte_windows, "WINDOW_BLOCK_BYTES", 3)
    data = b"".join(b"%d-line\n" % i for i in range(20))
    assert lines_of(data, 0, len(data)) == [b"%d-line" % i for i in range(20)]


def test_prompt_past_head(monkeypatch):
    head = user("<command-name>/clear</command-name>") + user("ctx", isCompactSummary=True)
    rest = (
        line({"type": "assistant", "message": {"content": "ok"}})
        + user("<ide_selection>x</ide_selection>")
        + user("the real ask")
    )
    data = head + rest
    monkeypatch.setattr(M, "HEAD_MAX_LINES", 2)  # the head is its first two lines

    def title(head_read, bound):
        monkeypatch.setattr(M, "HEAD_BLOCK_BYTES", head_read)  # where the head's read stops
        monkeypatch.setattr(M, "HEAD_MAX_BYTES", bound)
        meta = M.read_session_metadata(io.BytesIO(data), len(data))
        return meta.title if meta.title_source == "prompt" else ""

    assert title(len(head), len(data)) == "the real ask"
    assert title(len(head), len(data) - 1) == ""  # beyond the bound
    # the head's read stopped mid-line: its bytes are handed over
    assert title(len(head) + 10, len(data)) == "the real ask"
