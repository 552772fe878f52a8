"""Qwen Code, Factory Droid and Mistral Vibe readers on odd input (issue 30): junk, torn and
giant lines, a store file of the wrong shape, never a traceback; and ``init``'s owned-file
writer keeps a file that is not ours."""

import json
import os

from termsprawl_context.harness import get
from termsprawl_context.harness.base import Harness
from termsprawl_context.jsonl import MAX_LINE_BYTES
from termsprawl_context.transcript.speakers import typed_texts
from termsprawl_context.transcript.tool_blocks import assistant_text
from termsprawl_context.workspace import init_steps, install
from termsprawl_context.workspace.harness_install import write_owned_files

QWEN_LINES = [
    {"uuid": "u1", "sessionId": "s1", "type": "user", "provenance": "real_user", "cwd": "/p",
     "message": {"role": "user", "parts": [{"text": "typed one"}]}},
    {"uuid": "n1", "sessionId": "s1", "type": "user", "subtype": "notification", "provenance": "system",
     "message": {"role": "user", "parts": [{"text": "<task-notification>done</task-notification>"}]}},
    {"uuid": "a1", "sessionId": "s1", "type": "assistant", "message": {"role": "model", "parts": [{"text": "answer one"}]}},
]  # fmt: skip
DROID_LINES = [
    {"type": "session_start", "id": "s1", "cwd": "/p", "hostId": "h"},
    {"type": "message", "id": "context-m1", "message": {"role": "user", "content": [{"type": "text", "text": "<system-reminder>x"}]}},
    {"type": "message", "id": "m1", "message": {"role": "user", "content": [{"type": "text", "text": "typed one"}]}},
    {"type": "message", "id": "h1", "message": {"role": "user", "content": [], "hookEventName": "SessionStart"}},
    {"type": "message", "id": "a1", "message": {"role": "assistant", "content": [{"type": "text", "text": "answer one"}]}},
]  # fmt: skip


def _write_lines(path, records, junk=b""):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = b"".join(json.dumps(r).encode() + b"\n" for r in records)
    with open(path, "wb") as f:
        f.write(junk + data + b'{"type": "user", "message": {"ro')  # a torn last line


def _said(harness, path):
    forward = list(harness.entries(path))
    backward = list(harness.entries_reverse(path) or reversed(forward))
    assert [e.uuid for e in backward] == [e.uuid for e in reversed(forward)]
    typed = [t for e in forward for t in typed_texts(e)]
    return typed, [assistant_text(e) for e in forward if assistant_text(e)]


def test_qwen_and_droid_keep_the_person_s_words_apart_from_harness_text(tmp_path):
    giant = b'{"type": "user", "x": "' + b"a" * (MAX_LINE_BYTES + 10) + b'"}\n' + b"\xff\xfe junk\n"
    qwen = str(tmp_path / "q" / "projects" / "-p" / "chats" / "s1.jsonl")
    _write_lines(qwen, QWEN_LINES, giant)
    droid = str(tmp_path / "d" / "s1.jsonl")
    _write_lines(droid, DROID_LINES, b"")
    assert _said(get("qwen-code"), qwen) == (["typed one"], ["answer one"])
    assert _said(get("factory-droid"), droid) == (["typed one"], ["answer one"])
    # Identity reads only the file's head: past a giant first line it refuses (None), never guesses.
    assert get("qwen-code").stable_id(qwen) is None and get("factory-droid").stable_id(droid) == "s1"


def test_vibe_store_of_the_wrong_shape_reads_as_nothing(tmp_path):
    folder = tmp_path / "unified" / "s1"
    folder.mkdir(parents=True)
    meta = folder / "meta.json"
    meta.write_text(json.dumps({"session_id": "s1", "environment": {"working_directory": "/p"}, "config": {}}))
    vibe = get("mistral-vibe")
    for current in (b"", b"[1]", b'{"generation": "../x", "store_format": "mistral.vibe.unified-session-store/v1"}'):
        (folder / "CURRENT").write_bytes(current)
        assert list(vibe.entries(str(meta))) == []
    (folder / "CURRENT").write_text(
        json.dumps({"generation": "01", "store_format": "mistral.vibe.unified-session-store/v1"})
    )
    (folder / "generations" / "01").mkdir(parents=True)
    manifest = {
        "projection_state": {"chunks": ["ab", "../../etc"]},
        "recovery_journal_segment": {"path": "journal/2.jsonl"},
    }
    (folder / "generations" / "01" / "manifest.json").write_text(json.dumps(manifest))
    (folder / "chunks").mkdir()
    entry = {
        "type": "message",
        "role": "user",
        "source": "turn_start",
        "id": "u1",
        "content": [{"type": "text", "text": "typed one"}],
    }
    injected = dict(entry, id="u2", source="harness", content=[{"type": "text", "text": "injected"}])
    (folder / "chunks" / "ab.json").write_text(json.dumps([entry, injected, 7]))
    (folder / "journal").mkdir()
    delta = {
        "type": "projection_delta",
        "payload": {
            "delta": [
                {
                    "op": "append_entry",
                    "entry": {
                        "type": "message",
                        "role": "assistant",
                        "id": "a1",
                        "content": [{"type": "text", "text": "answer one"}],
                    },
                }
            ]
        },
    }
    (folder / "journal" / "2.jsonl").write_text(json.dumps(delta) + "\n{torn")
    assert _said(vibe, str(meta)) == (["typed one"], ["answer one"])


class _Owner(Harness):
    label = "Test CLI"
    name = "test-cli"

    def owned_files(self, project, command=""):
        return [(os.path.join(".cli", "hooks.toml"), b"# managed by termsprawl-context\n[[hooks]]\n", 0o644)]


def test_owned_files_are_written_or_refused_never_overwritten(tmp_path):
    project = str(tmp_path)
    os.makedirs(os.path.join(project, ".termsprawl"))
    target = tmp_path / ".cli" / "hooks.toml"
    assert [s.outcome for s in write_owned_files(project, _Owner())] == [init_steps.WRITTEN]
    assert [s.outcome for s in write_owned_files(project, _Owner())] == [init_steps.UNCHANGED]
    target.write_bytes(b"# managed by termsprawl-context\nold = 1\n")  # ours, an older version
    assert [s.outcome for s in write_owned_files(project, _Owner())] == [init_steps.WRITTEN]
    target.write_bytes(b"the person's own\n")
    assert [s.outcome for s in write_owned_files(project, _Owner())] == [init_steps.FAILED]
    assert target.read_bytes() == b"the person's own\n"


def test_vibe_s_hook_file_runs_the_installed_command(tmp_path):
    from termsprawl_context.harness.base import INSTALLED_COMMAND
    from termsprawl_context.workspace.project import INSTALLED_COMMAND as INSTALLED

    assert INSTALLED_COMMAND == INSTALLED
    project = tmp_path / "it's here"
    [(relative, content, mode)] = get("mistral-vibe").owned_files(str(project))
    assert relative == os.path.join(".vibe", "hooks.toml") and mode == 0o644
    assert content.startswith(b"# termsprawl-context:") and b'type = "post_tool"' in content
    # The command line is a JSON string, which is a TOML basic string: the quote survives.
    command = json.loads(content.split(b"command = ", 1)[1].strip())
    quoted = "'%s'" % str(project).replace("'", "'\"'\"'")
    assert command == "%s/.termsprawl/bin/termsprawl-context' hook --cwd %s --harness mistral-vibe" % (
        quoted[:-1],
        quoted,
    )


def test_vibe_s_hook_file_names_the_project_so_init_keeps_it_out_of_git(tmp_path):
    project = str(tmp_path)
    os.makedirs(os.path.join(project, ".termsprawl"))
    steps = write_owned_files(project, get("mistral-vibe"))
    assert [(s.outcome, s.path) for s in steps] == [
        (init_steps.WRITTEN, os.path.join(".vibe", "hooks.toml")),
        (init_steps.WRITTEN, os.path.join(".vibe", ".gitignore")),
    ]
    assert (tmp_path / ".vibe" / ".gitignore").read_text().splitlines() == [
        install.HOOK_GITIGNORE_COMMENT % "Mistral Vibe",
        "hooks.toml",
    ]
    assert [s.outcome for s in write_owned_files(project, get("mistral-vibe"))] == [init_steps.UNCHANGED] * 2
