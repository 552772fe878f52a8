"""The managed block in an AGENTS.md (issue 31, item 2), run from the built artifact: only
a real block is ours (markers on lines of their own, outside a code block, in order, once
each); anything else is refused by name and the file left byte for byte, by ``init`` (the
root file with ``--agents-md``, ``.termsprawl/AGENTS.md`` always) and by the hook, which
records all the same and says so; appending or refreshing keeps every byte around it."""

import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import one_error_line, snapshot
from termsprawl_context import errors
from termsprawl_context.workspace import discovery
from termsprawl_context.workspace.agents_block import upsert_block

OPEN = discovery.MARKER_OPEN
CLOSE = discovery.MARKER_CLOSE
ROOT_AGENTS = "AGENTS.md"
STATE_AGENTS = ".termsprawl/AGENTS.md"

# The reproducer: prose that names the markers, the person's rules between them.
MENTIONS = (
    "# Team rules\n"
    "\n"
    "termsprawl keeps its block between `%s` and its closing marker.\n"
    "1. Never run migrations on prod.\n"
    "2. Ask before deleting a branch.\n"
    "3. Keep secrets out of logs.\n"
    "4. Review every schema change.\n"
    "5. Tag releases from main only.\n"
    "The closing marker is `%s`; leave both alone.\n"
    "\n"
    "\n"
) % (OPEN, CLOSE)

BLOCK_LINES = "%s\nstale\n%s" % (OPEN, CLOSE)

REFUSED = [
    ("mentioned in prose", MENTIONS.encode(), "not on a line of its own"),
    ("out of order", ("a\n%s\nmine\n%s\nb\n" % (CLOSE, OPEN)).encode(), "before"),
    ("open twice", ("%s\n%s\nx\n%s\n" % (OPEN, OPEN, CLOSE)).encode(), "2 times"),
    ("close twice", ("%s\nx\n%s\ny\n%s\n" % (OPEN, CLOSE, CLOSE)).encode(), "2 times"),
    ("open with no close", ("notes\n%s\nmine\n" % OPEN).encode(), "no " + CLOSE),
    ("close with no open", ("notes\nmine\n%s\n" % CLOSE).encode(), "no " + OPEN),
    ("a block plus a mention", ("%s\nx\n%s\nsee `%s`\n" % (OPEN, CLOSE, OPEN)).encode(), "not on a line of its own"),
    ("in a code block", ("```\n%s\nexample\n%s\n```\n" % (OPEN, CLOSE)).encode(), "inside a code block"),
    ("indented: code", ("    %s\nx\n    %s\n" % (OPEN, CLOSE)).encode(), "not on a line of its own"),
    ("CRLF, no final newline", MENTIONS.replace("\n", "\r\n").rstrip().encode(), "not on a line of its own"),
    ("BOM, blank lines", b"\xef\xbb\xbf" + MENTIONS.encode() + b"\n\n  \n", "not on a line of its own"),
    ("undecodable bytes", b"caf\xe9 " + MENTIONS.encode(), "not on a line of its own"),
    ("no marker, an unclosed fence", b"notes\n~~~~sh\nls\n~~~\n", "ends inside a code block (opened on line 2)"),
]


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.mark.parametrize("name, body, words", REFUSED, ids=[r[0] for r in REFUSED])
def test_init_agents_md_refuses_what_is_not_a_block_and_writes_nothing(project, run_pyz, name, body, words):
    (project / ROOT_AGENTS).write_bytes(body)
    before = snapshot(project)
    done = run_pyz(["init", "--cwd", project, "--agents-md"])
    assert done.returncode == 1 and done.stdout == b""
    one_error_line(done, ROOT_AGENTS, words, "left untouched")
    assert (project / ROOT_AGENTS).read_bytes() == body
    assert snapshot(project) == before


@pytest.mark.parametrize("name, body, words", REFUSED, ids=[r[0] for r in REFUSED])
def test_init_refuses_a_state_agents_md_that_is_not_a_block(project, run_pyz, name, body, words):
    (project / ".termsprawl").mkdir()
    (project / STATE_AGENTS).write_bytes(body)
    before = snapshot(project)
    done = run_pyz(["init", "--cwd", project])
    assert done.returncode == 1 and done.stdout == b""
    one_error_line(done, STATE_AGENTS, words, "left untouched")
    assert snapshot(project) == before


def test_the_hook_records_but_leaves_a_state_agents_md_with_mentions_alone(tmp_path, run_pyz):
    project = tmp_path / "project"
    (project / ".termsprawl").mkdir(parents=True)
    (project / STATE_AGENTS).write_bytes(MENTIONS.encode())
    sid = "0f3c2a41-1111-4222-8333-444455556666"
    record = tmp_path / "claude" / "projects" / "-project" / (sid + ".jsonl")
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({"type": "user", "sessionId": sid, "message": {"content": "hi"}}) + "\n")
    payload = {"session_id": sid, "transcript_path": str(record), "cwd": str(project), "source": "startup"}
    env = {
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "CLAUDE_PROJECT_DIR": str(project),
        "TERMSPRAWL_NODE_ID": "alice",
    }
    done = run_pyz(["hook"], env=env, stdin=json.dumps(payload).encode())
    assert done.returncode == 0
    err = one_error_line(done, STATE_AGENTS, "not on a line of its own", "left untouched")
    assert err.startswith("termsprawl-context: hook: ")
    shown = json.loads(done.stdout)["systemMessage"]
    assert STATE_AGENTS in shown and "left untouched" in shown
    assert (project / STATE_AGENTS).read_bytes() == MENTIONS.encode()
    index = json.loads((project / ".termsprawl" / "transcripts" / "alice.json").read_text())
    assert index["path"] == str(record)  # recorded all the same
    assert (project / ".claude" / "skills" / "termsprawl-context" / "SKILL.md").is_file()
    doctor = run_pyz(["doctor", "--cwd", project, "--self", "alice"])
    assert ("note: %s names %s not on a line of its own (line 3)" % (STATE_AGENTS, OPEN)).encode() in doctor.stdout


KEPT_ON_APPEND = [
    ("no final newline", b"# Mine\n\nkeep this", b"\n\n"),
    ("trailing blank lines", b"# Mine\n\nkeep this\n\n\n  \n", b"\n"),
    ("one newline", b"# Mine\nkeep this\n", b"\n"),
    ("CRLF", b"# Mine\r\n\r\nkeep this\r\n", b"\r\n"),
    ("a closed fence", b"```sh\nls\n```\n", b"\n"),
    ("BOM", b"\xef\xbb\xbf# Mine\nkeep this\n", b"\n"),
    ("undecodable", b"caf\xe9\n\t\n", b"\n"),
]


@pytest.mark.parametrize("name, body, gap", KEPT_ON_APPEND, ids=[r[0] for r in KEPT_ON_APPEND])
def test_appending_the_block_keeps_every_byte(project, run_pyz, name, body, gap):
    (project / ROOT_AGENTS).write_bytes(body)
    done = run_pyz(["init", "--cwd", project, "--agents-md"])
    assert done.returncode == 0, done.stderr
    eol = b"\r\n" if b"\r\n" in body else b"\n"
    block = discovery.STANDALONE_BLOCK.encode().replace(b"\n", eol)
    assert (project / ROOT_AGENTS).read_bytes() == body + gap + block + eol
    again = run_pyz(["init", "--cwd", project, "--agents-md"])
    assert again.returncode == 0 and b"unchanged  AGENTS.md" in again.stdout
    assert (project / ROOT_AGENTS).read_bytes() == body + gap + block + eol


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_a_real_block_is_refreshed_in_place_and_nothing_else_moves(project, run_pyz, eol):
    head = "\ufeff# Mine  %s%s" % (eol, eol)
    tail = "%s%s  trailing words%s%s%s" % (eol, eol, eol, eol, eol)
    (project / ROOT_AGENTS).write_bytes((head + BLOCK_LINES.replace("\n", eol) + tail).encode())
    done = run_pyz(["init", "--cwd", project, "--agents-md"])
    assert done.returncode == 0, done.stderr
    block = discovery.STANDALONE_BLOCK.replace("\n", eol)
    assert (project / ROOT_AGENTS).read_bytes() == (head + block + tail).encode()


def test_upsert_names_what_is_wrong():
    with pytest.raises(errors.ManagedBlockRefused) as info:
        upsert_block(MENTIONS, discovery.MANAGED_BLOCK, "X.md")
    assert info.value.exit_code == 1
    assert info.value.message.startswith("X.md names %s not on a line of its own (line 3)" % OPEN)
    assert "\n" not in info.value.message


# --- any text: refused by name, or every byte outside the block kept -------------------------

PIECES = [OPEN, CLOSE, "`%s`" % OPEN, "x %s" % CLOSE, "```", "~~~~", "    ", "text", "", " \t", "\ufeff", "é\udce9"]


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(PIECES), max_size=10), st.sampled_from(["\n", "\r\n", "\r"]), st.booleans())
def test_any_text_is_refused_or_kept_around_one_block(pieces, eol, final):
    content = eol.join(pieces) + (eol if final else "")
    try:
        out = upsert_block(content, discovery.STANDALONE_BLOCK, "A.md")
    except errors.ManagedBlockRefused as refusal:
        assert refusal.message.startswith("A.md ") and "\n" not in refusal.message
        return
    span = discovery.managed_block_span(content, "A.md")
    if span is None:
        assert out.startswith(content)
    else:
        assert out.startswith(content[: span[0]]) and out.endswith(content[span[1] :])
    assert out.count(OPEN) == 1 and out.count(CLOSE) == 1
    assert upsert_block(out, discovery.STANDALONE_BLOCK, "A.md") == out


def test_init_agents_md_names_every_cli_that_reads_it(project, run_pyz):
    from termsprawl_context.harness import available

    done = run_pyz(["init", "--cwd", project, "--agents-md"])
    assert done.returncode == 0, done.stderr
    line = [x for x in done.stdout.decode().splitlines() if "managed block for agents that read AGENTS.md" in x]
    assert len(line) == 1, done.stdout
    readers = [h.label for h in available() if "agents_md" in h.init_options]
    assert len(readers) >= 7 and all(label in line[0] for label in readers), line


def test_init_finding_no_cli_names_every_registered_one(project, run_pyz, tmp_path):
    from termsprawl_context.harness import available

    done = run_pyz(["init", "--cwd", project], env={"PATH": str(tmp_path / "empty-path")})
    said = (done.stdout + done.stderr).decode()
    line = [x for x in said.splitlines() if "found no supported agent CLI here" in x]
    assert len(line) == 1, said
    for harness in available():
        assert harness.command in line[0] and "--" + harness.cli_option in line[0], (harness.name, line)


def test_init_help_for_agents_md_names_every_cli_that_reads_it(run_pyz):
    from termsprawl_context.harness import available

    done = run_pyz(["init", "--help"], env={"COLUMNS": "1000"})
    (line,) = [x for x in done.stdout.decode().splitlines() if x.strip().startswith("--agents-md ")]
    for harness in available():
        assert (harness.label in line) == ("agents_md" in harness.init_options), (harness.label, line)
