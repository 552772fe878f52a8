"""read_hook_input: the seed's ReadHookInputFrom table, then every hostile payload we
could think of: each refused by a named class with its message, never a traceback."""

import io
import json
import os

import pytest

from termsprawl_context.errors import Refusal
from termsprawl_context.store.hook_input import (
    HOOK_INPUT_MAX_BYTES,
    HookInput,
    HookInputError,
    checked_hook_input,
    parse_payload,
    read_payload_bytes,
)
from termsprawl_context.harness import get


def parse_hook_input(data, projects_dir, environ=None):
    """The seed's hook-input parse: the payload parsed, then checked."""
    return checked_hook_input(parse_payload(data), *get(None).hook_roots(projects_dir, environ))


def read_hook_input(stream, projects_dir, environ=None):
    """The seed's ReadHookInputFrom: the payload read (bounded), then checked."""
    return parse_hook_input(read_payload_bytes(stream), projects_dir, environ)


SID = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"


@pytest.fixture
def store(tmp_path):
    """A config dir with its projects dir; returns (config, projects, environ)."""
    config = tmp_path / "claude"
    projects = config / "projects"
    (projects / "-home-me-proj").mkdir(parents=True)
    return config, projects, {"CLAUDE_CONFIG_DIR": str(config)}


def read(payload, projects, environ=None):
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return read_hook_input(io.BytesIO(data), str(projects), environ if environ is not None else {})


def refused(cls, payload, projects, environ=None):
    with pytest.raises(cls) as caught:
        read(payload, projects, environ)
    assert isinstance(caught.value, HookInputError)
    assert isinstance(caught.value, Refusal)
    assert caught.value.exit_code == 1
    assert "\n" not in str(caught.value)
    return str(caught.value)


# --- the seed's table ---------------------------------------------------------------------


def test_valid_input_under_the_config_dir_itself(store):
    config, projects, env = store
    path = str(config / "project" / "test.jsonl")
    got = read({"session_id": "abc-123", "transcript_path": path}, projects, env)
    assert (got.session_id, got.transcript_path) == ("abc-123", path)


def test_valid_input_every_field(store):
    _, projects, env = store
    path = str(projects / "-home-me-proj" / (SID + ".jsonl"))
    payload = {
        "session_id": SID,
        "transcript_path": path,
        "cwd": "/home/me/proj",
        "hook_event_name": "SessionStart",
        "source": "startup",
        "permission_mode": "default",
    }
    got = read(payload, projects, env)
    assert isinstance(got, HookInput)
    assert got == HookInput(SID, path, "/home/me/proj", "SessionStart", "startup", payload)


def test_missing_transcript_path(store):
    _, projects, env = store
    assert refused(HookInputError, {"session_id": "abc-123"}, projects, env) == "transcript_path is required"
    refused(HookInputError, {"session_id": "abc-123", "transcript_path": ""}, projects, env)
    refused(HookInputError, {"session_id": "abc-123", "transcript_path": None}, projects, env)


def test_missing_session_id(store):
    _, projects, env = store
    path = str(projects / "p" / "x.jsonl")
    assert refused(HookInputError, {"transcript_path": path}, projects, env) == "session_id is required"
    refused(HookInputError, {"session_id": "", "transcript_path": path}, projects, env)
    refused(HookInputError, {"session_id": None, "transcript_path": path}, projects, env)
    # session_id is checked before transcript_path, as in the seed
    refused(HookInputError, {}, projects, env)


def test_invalid_json(store):
    _, projects, env = store
    message = refused(HookInputError, b"not json", projects, env)
    assert message.startswith("failed to parse hook input: ")
    refused(HookInputError, b"", projects, env)
    refused(HookInputError, b'{"session_id": "a"', projects, env)
    refused(HookInputError, b'\xef\xbb\xbf{"session_id": "a"}', projects, env)  # a BOM, as Go


def test_path_outside_the_store(store):
    _, projects, env = store
    message = refused(HookInputError, {"session_id": "a", "transcript_path": "/tmp/evil.jsonl"}, projects, env)
    assert message == "invalid transcript_path: must be under Claude projects directory (%s)" % projects


def test_relative_path(store):
    _, projects, env = store
    for path in ("relative/path.jsonl", "x.jsonl", "./x.jsonl", "~/x.jsonl"):
        message = refused(HookInputError, {"session_id": "a", "transcript_path": path}, projects, env)
        assert message == "invalid transcript_path: must be an absolute path"


@pytest.mark.parametrize(
    "template",
    [
        "{tmp}/../../../etc/passwd",
        "/a/../../etc/passwd",
        "{projects}/../escape.jsonl",
        "{projects}/p/../q/x.jsonl",
        "/..",
    ],
)
def test_traversal(store, tmp_path, template):
    _, projects, env = store
    path = template.format(tmp=tmp_path, projects=projects)
    message = refused(HookInputError, {"session_id": "a", "transcript_path": path}, projects, env)
    assert message == "invalid transcript_path: must not contain '..' components"


# --- session ids ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "session_id",
    ["../../tmp/evil", "abc def", "abc\n", "\nabc", "abc/def", "abc.def", "ab\u00e9c", "abc\x00", " abc", "a;rm -rf"],
)
def test_invalid_session_ids(store, session_id):
    _, projects, env = store
    path = str(projects / "p" / "x.jsonl")
    message = refused(HookInputError, {"session_id": session_id, "transcript_path": path}, projects, env)
    assert message == "invalid session_id: must contain only alphanumeric, hyphen, or underscore characters"


@pytest.mark.parametrize("session_id", [SID, "abc_DEF-123", "a", "agent-a0074ac"])
def test_valid_session_ids(store, session_id):
    _, projects, env = store
    path = str(projects / "p" / "x.jsonl")
    assert read({"session_id": session_id, "transcript_path": path}, projects, env).session_id == session_id


# --- wrong JSON types ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "payload, message",
    [
        (b"[1, 2]", "failed to parse hook input: expected a JSON object, got array"),
        (b"null", "failed to parse hook input: expected a JSON object, got null"),
        (b"42", "failed to parse hook input: expected a JSON object, got number"),
        (b'"text"', "failed to parse hook input: expected a JSON object, got string"),
        (b"true", "failed to parse hook input: expected a JSON object, got boolean"),
        (b'{"session_id": 123}', "failed to parse hook input: session_id must be a string, not number"),
        (b'{"session_id": ["a"]}', "failed to parse hook input: session_id must be a string, not array"),
        (
            b'{"session_id": "a", "transcript_path": {"p": 1}}',
            "failed to parse hook input: transcript_path must be a string, not object",
        ),
        (b'{"session_id": "a", "cwd": false}', "failed to parse hook input: cwd must be a string, not boolean"),
        (b'{"session_id": "a", "source": 1.5}', "failed to parse hook input: source must be a string, not number"),
        (
            b'{"session_id": "a", "hook_event_name": []}',
            "failed to parse hook input: hook_event_name must be a string, not array",
        ),
    ],
)
def test_wrong_types(store, payload, message):
    _, projects, env = store
    assert refused(HookInputError, payload, projects, env) == message


def test_non_standard_json_is_refused(store):
    _, projects, env = store
    refused(HookInputError, b'{"session_id": "a", "x": NaN}', projects, env)
    refused(HookInputError, b'{"session_id": "a", "x": Infinity}', projects, env)
    message = refused(HookInputError, b'{"a": ' + b"[" * 200000 + b"]" * 200000 + b"}", projects, env)
    assert message.startswith("failed to parse hook input: ")


def test_invalid_utf8_costs_a_character(store):
    _, projects, env = store
    path = str(projects / "p" / "x.jsonl")
    data = b'{"session_id": "a", "transcript_path": "%s", "cwd": "/h\xffme"}' % path.encode()
    assert read(data, projects, env).cwd == "/h\ufffdme"


def test_other_fields_may_be_anything(store):
    _, projects, env = store
    path = str(projects / "p" / "x.jsonl")
    payload = {"session_id": "a", "transcript_path": path, "tool_input": {"x": [1]}, "parent_pid": 7}
    got = read(payload, projects, env)
    assert got.raw["tool_input"] == {"x": [1]}
    assert (got.cwd, got.hook_event_name, got.source) == ("", "", "")


# --- size ---------------------------------------------------------------------------------


class EndlessStream:
    """A stdin that never ends; counts what was read from it."""

    def __init__(self):
        self.read_bytes = 0

    def read(self, size=-1):
        assert size is not None and size > 0, "an unbounded read of stdin"
        self.read_bytes += size
        return b" " * size


def test_over_1_mib_is_refused_after_reading_at_most_limit_plus_one(store):
    _, projects, env = store
    stream = EndlessStream()
    with pytest.raises(HookInputError) as caught:
        read_hook_input(stream, str(projects), env)
    assert stream.read_bytes == HOOK_INPUT_MAX_BYTES + 1
    assert HOOK_INPUT_MAX_BYTES == 1 << 20
    assert str(caught.value) == "failed to read hook input: larger than 1048576 bytes (1 MiB)"
    assert isinstance(caught.value, HookInputError)


def test_exactly_1_mib_plus_one_byte_of_json(store):
    _, projects, env = store
    path = str(projects / "p" / "x.jsonl")
    body = json.dumps({"session_id": "a", "transcript_path": path}).encode()
    exact = body + b" " * (HOOK_INPUT_MAX_BYTES - len(body))
    assert len(exact) == HOOK_INPUT_MAX_BYTES
    assert read(exact, projects, env).session_id == "a"
    refused(HookInputError, exact + b" ", projects, env)


def test_read_errors_are_refusals(store):
    _, projects, env = store

    class Broken:
        def read(self, size=-1):
            raise OSError(5, "Input/output error")

    with pytest.raises(HookInputError) as caught:
        read_hook_input(Broken(), str(projects), env)
    assert str(caught.value).startswith("failed to read hook input: ")


# --- symlinks and roots -------------------------------------------------------------------


def test_symlinked_folder_escaping_the_store(store, tmp_path):
    _, projects, env = store
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(str(outside), str(projects / "escape"))
    for path in (projects / "escape" / "x.jsonl", projects / "escape" / "new" / "deeper" / "x.jsonl"):
        refused(HookInputError, {"session_id": "a", "transcript_path": str(path)}, projects, env)


def test_symlinked_file_escaping_the_store(store, tmp_path):
    _, projects, env = store
    secret = tmp_path / "secret.jsonl"
    secret.write_text("{}\n")
    link = projects / "-home-me-proj" / (SID + ".jsonl")
    os.symlink(str(secret), str(link))
    refused(HookInputError, {"session_id": SID, "transcript_path": str(link)}, projects, env)


def test_symlinks_staying_inside_are_fine(store, tmp_path):
    config, projects, env = store
    os.symlink(str(projects / "-home-me-proj"), str(projects / "alias"))
    path = str(projects / "alias" / (SID + ".jsonl"))
    assert read({"session_id": SID, "transcript_path": path}, projects, env).transcript_path == path
    # the store itself behind a symlink: both sides are resolved
    os.symlink(str(projects), str(tmp_path / "projects-link"))
    path = str(tmp_path / "projects-link" / "-home-me-proj" / (SID + ".jsonl"))
    assert read({"session_id": SID, "transcript_path": path}, tmp_path / "projects-link", {}).session_id == SID
    assert read({"session_id": SID, "transcript_path": path}, projects, {}).session_id == SID


def test_not_yet_existing_folder_is_judged_lexically(store):
    _, projects, env = store
    path = str(projects / "-brand-new" / (SID + ".jsonl"))
    assert read({"session_id": SID, "transcript_path": path}, projects, {}).transcript_path == path


def test_prefix_of_a_sibling_is_not_inside(store, tmp_path):
    _, projects, _ = store
    sibling = str(projects) + "-evil/x.jsonl"
    refused(HookInputError, {"session_id": "a", "transcript_path": sibling}, projects, {})
    # the projects dir itself is not a transcript path
    refused(HookInputError, {"session_id": "a", "transcript_path": str(projects)}, projects, {})


def test_config_dir_root_only_when_set(store):
    config, projects, env = store
    path = str(config / "elsewhere" / "x.jsonl")
    assert read({"session_id": "a", "transcript_path": path}, projects, env).session_id == "a"
    refused(HookInputError, {"session_id": "a", "transcript_path": path}, projects, {})
    refused(HookInputError, {"session_id": "a", "transcript_path": path}, projects, {"CLAUDE_CONFIG_DIR": "  "})


def test_environ_defaults_to_the_process_environment(store, monkeypatch):
    config, projects, _ = store
    path = str(config / "elsewhere" / "x.jsonl")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    data = json.dumps({"session_id": "a", "transcript_path": path}).encode()
    assert read_hook_input(io.BytesIO(data), str(projects)).session_id == "a"
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    with pytest.raises(HookInputError):
        read_hook_input(io.BytesIO(data), str(projects))


def test_no_store_at_all():
    with pytest.raises(HookInputError) as caught:
        parse_hook_input(b'{"session_id": "a", "transcript_path": "/anywhere/x.jsonl"}', "", {})
    assert str(caught.value) == "invalid transcript_path: must be under Claude projects directory"


def test_nul_in_path(store):
    _, projects, env = store
    path = str(projects / "p" / "x.jsonl") + "\x00.txt"
    refused(HookInputError, {"session_id": "a", "transcript_path": path}, projects, env)


def test_parse_hook_input_on_bytes(store):
    _, projects, env = store
    path = str(projects / "p" / "x.jsonl")
    data = json.dumps({"session_id": "a", "transcript_path": path}).encode()
    assert parse_hook_input(data, str(projects), env).transcript_path == path
