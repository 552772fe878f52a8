"""Project state under .termsprawl/: ids, index, links, discovery markers, titles."""

import json
import os

import pytest
from hypothesis import given, settings, strategies as st

from termsprawl_context.workspace import discovery, files, index, links, titles
from termsprawl_context import errors
from termsprawl_context.errors import EXIT_FAILURE, EXIT_USAGE
from termsprawl_context.workspace.ids import is_safe_id
from termsprawl_context.workspace.agents_block import upsert_block
from termsprawl_context.harness import get


# --- ids ------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["a", "node-a", "A_b-9", "x" * 128, "0"])
def test_safe_ids(value):
    assert is_safe_id(value)


@pytest.mark.parametrize(
    "value", ["", "-a", "_a", "../etc", "bad id", "a.b", "a/b", "x" * 129, "node\n", "é", None, 5, ["a"]]
)
def test_unsafe_ids(value):
    assert not is_safe_id(value)


# --- transcript index -----------------------------------------------------------------


def test_index_round_trip_and_format(tmp_path):
    assert index.record_transcript_path(str(tmp_path), "node-a", "/p1.jsonl")
    assert index.read_transcript_path(str(tmp_path), "node-a") == "/p1.jsonl"
    raw = (tmp_path / ".termsprawl" / "transcripts" / "node-a.json").read_text()
    assert raw == '{\n  "version": 1,\n  "path": "/p1.jsonl"\n}\n'


def test_index_overwrite_keeps_last(tmp_path):
    index.record_transcript_path(str(tmp_path), "n", "/p1.jsonl")
    index.record_transcript_path(str(tmp_path), "n", "/p2.jsonl")
    assert index.read_transcript_path(str(tmp_path), "n") == "/p2.jsonl"
    assert os.listdir(str(tmp_path / ".termsprawl" / "transcripts")) == ["n.json"]  # no temp left


def test_index_unknown_unsafe_empty(tmp_path):
    assert index.read_transcript_path(str(tmp_path), "nobody") is None
    for bad in ("../etc", "bad id"):
        assert not index.record_transcript_path(str(tmp_path), bad, "/x.jsonl")
        assert index.read_transcript_path(str(tmp_path), bad) is None
    assert not index.record_transcript_path(str(tmp_path), "n", "")
    assert index.read_transcript_path(str(tmp_path), "n") is None
    assert not (tmp_path / ".termsprawl").exists()


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        '{"version": 2, "path": "/x"}',
        '{"version": true, "path": "/x"}',
        '{"version": "1", "path": "/x"}',
        '{"version": 1, "path": ""}',
        '{"version": 1, "path": 5}',
        '{"version": 1}',
        "[1]",
        "null",
    ],
)
def test_index_junk_reads_as_absent(tmp_path, body):
    index.record_transcript_path(str(tmp_path), "n", "/x.jsonl")
    (tmp_path / ".termsprawl" / "transcripts" / "n.json").write_text(body)
    assert index.read_transcript_path(str(tmp_path), "n") is None


def test_index_version_one_point_zero_is_one(tmp_path):
    d = tmp_path / ".termsprawl" / "transcripts"
    d.mkdir(parents=True)
    (d / "n.json").write_text('{"version": 1.0, "path": "/x"}')
    assert index.read_transcript_path(str(tmp_path), "n") == "/x"


def test_index_io_failure_is_a_quiet_no(tmp_path):
    (tmp_path / ".termsprawl").write_text("a file where the folder should be")
    assert not index.record_transcript_path(str(tmp_path), "n", "/x.jsonl")


def test_index_undecodable_path_reads_back_identical(tmp_path):
    weird = os.fsdecode(b"/tmp/\xff\xfe.jsonl")
    assert index.record_transcript_path(str(tmp_path), "n", weird)
    assert index.read_transcript_path(str(tmp_path), "n") == weird


def test_relative_index_path_resolves_against_project(tmp_path):
    assert index.resolve_transcript_path("/proj", "t/a.jsonl") == "/proj/t/a.jsonl"
    assert index.resolve_transcript_path("/proj", "/abs/a.jsonl") == "/abs/a.jsonl"


# --- links ----------------------------------------------------------------------------


def test_link_path_is_symmetric_and_canonical(tmp_path):
    p = links.link_file_path(str(tmp_path), "node-b", "node-a")
    assert p == links.link_file_path(str(tmp_path), "node-a", "node-b")
    assert ".termsprawl" in p and p.endswith("node-a--node-b.json")


def test_add_list_and_format(tmp_path):
    path = links.add_link(str(tmp_path), "bbb", "aaa")
    assert links.list_links(str(tmp_path)) == [links.Link("aaa", "bbb", path)]
    assert open(path).read() == '{\n  "version": 1,\n  "a": "aaa",\n  "b": "bbb"\n}\n'


def test_double_add_is_one_link(tmp_path):
    links.add_link(str(tmp_path), "aaa", "bbb")
    links.add_link(str(tmp_path), "bbb", "aaa")
    assert len(links.list_links(str(tmp_path))) == 1
    assert os.listdir(links.links_dir(str(tmp_path))) == ["aaa--bbb.json"]


def test_remove_twice_never_raises(tmp_path):
    links.add_link(str(tmp_path), "aaa", "bbb")
    assert links.remove_link(str(tmp_path), "aaa", "bbb")
    assert not links.remove_link(str(tmp_path), "aaa", "bbb")
    assert not links.remove_link(str(tmp_path), "../x", "bbb")
    assert not links.remove_link(str(tmp_path), "aaa", "aaa")
    assert links.list_links(str(tmp_path)) == []


def test_peers(tmp_path):
    cwd = str(tmp_path)
    links.add_link(cwd, "aaa", "ccc")
    links.add_link(cwd, "bbb", "aaa")
    assert links.peers_of(cwd, "aaa") == ["bbb", "ccc"]  # link-file-name order
    assert links.peers_of(cwd, "bbb") == ["aaa"]
    assert links.peers_of(cwd, "zzz") == []
    assert links.peers_of(cwd, "../aaa") == []


def test_self_link_refused_and_nothing_written(tmp_path):
    with pytest.raises(errors.SelfLink) as info:
        links.add_link(str(tmp_path), "aaa", "aaa")
    assert info.value.exit_code == EXIT_USAGE and info.value.message == "cannot link a node to itself"
    assert not (tmp_path / ".termsprawl").exists()


@pytest.mark.parametrize("bad", ["../etc", "aaa b"])
def test_bad_id_refused_first(tmp_path, bad):
    with pytest.raises(errors.BadNodeId) as info:
        links.add_link(str(tmp_path), bad, bad)
    assert info.value.exit_code == EXIT_USAGE and info.value.message == "invalid node id"
    assert not (tmp_path / ".termsprawl").exists()


def test_io_failure_is_reported(tmp_path):
    (tmp_path / ".termsprawl").write_text("not a folder")
    with pytest.raises(errors.WriteFailed) as info:
        links.add_link(str(tmp_path), "aaa", "bbb")
    assert info.value.exit_code == EXIT_FAILURE


def test_parse_link_file():
    assert links.parse_link_file('{"version":1,"a":"aaa","b":"bbb"}') == ("aaa", "bbb")
    for raw in [
        "not json",
        '{"version":1,"a":"aaa"}',
        '{"version":2,"a":"aaa","b":"bbb"}',
        '{"version":1,"a":"aaa","b":"aaa"}',
        '{"version":1,"a":"../etc","b":"bbb"}',
        "null",
    ]:
        assert links.parse_link_file(raw) is None


def test_invalid_link_files_are_ignored_and_named(tmp_path):
    cwd = str(tmp_path)
    links.add_link(cwd, "aaa", "bbb")
    d = tmp_path / ".termsprawl" / "links"
    (d / "junk.json").write_text("{")
    (d / "notes.txt").write_text("ignored, not .json")
    (d / "dir.json").mkdir()
    os.mkfifo(str(d / "fifo.json"))
    (d / "big.json").write_bytes(b" " * (links.MAX_LINK_FILE_BYTES + 1))
    assert [ln.a + "-" + ln.b for ln in links.list_links(cwd)] == ["aaa-bbb"]
    assert [f.name for f in links.scan_link_files(cwd) if f.pair is None] == [
        "big.json",
        "dir.json",
        "fifo.json",
        "junk.json",
    ]


def test_symlinked_state_dir_leaving_the_project_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    os.symlink(str(outside), str(project / ".termsprawl"))
    with pytest.raises(errors.WriteFailed):
        links.add_link(str(project), "aaa", "bbb")
    assert not index.record_transcript_path(str(project), "n", "/x")
    assert list(outside.iterdir()) == []


# --- discovery --------------------------------------------------------------------------


def test_block_in_empty_content():
    out = upsert_block("", discovery.MANAGED_BLOCK, discovery.AGENTS_FILE)
    assert out == discovery.MANAGED_BLOCK + "\n"
    assert discovery.MARKER_OPEN in out and discovery.MARKER_CLOSE in out


def test_existing_block_refreshed_with_prose_kept():
    old = "# my project\n\n<!-- termsprawl:context-links -->\nstale\n<!-- /termsprawl:context-links -->\n\nremember to hydrate\n"
    out = upsert_block(old, discovery.MANAGED_BLOCK, discovery.AGENTS_FILE)
    assert out.count("termsprawl:context-links") == 2
    assert out.startswith("# my project") and out.rstrip().endswith("remember to hydrate")
    assert "stale" not in out
    assert upsert_block(out, discovery.MANAGED_BLOCK, discovery.AGENTS_FILE) == out


def test_block_text_exact():
    assert discovery.MANAGED_BLOCK == (
        "<!-- termsprawl:context-links -->\nLinked agent context: run\n"
        '`.termsprawl/bin/termsprawl-context --cwd . --self "$TERMSPRAWL_NODE_ID"`\n'
        "to print peer transcripts. Only read what that command prints.\n<!-- /termsprawl:context-links -->"
    )
    assert discovery.SKILL_BODY == (
        "---\nname: termsprawl-context\ndescription: When you need another termsprawl agent's conversation.\n---\n"
        '# termsprawl context\n\nRun `.termsprawl/bin/termsprawl-context --cwd . --self "$TERMSPRAWL_NODE_ID"`\n'
        "to print the recent turns of agents linked to this node. Only read what\nthat command prints.\n"
    )


def test_ensure_discovery_writes_idempotently_and_only_under_cwd(tmp_path):
    project = tmp_path / "p"
    project.mkdir()
    before_outside = sorted(os.listdir(str(tmp_path)))
    discovery.ensure_context_discovery(str(project))
    agents = project / ".termsprawl" / "AGENTS.md"
    skill = project / ".claude" / "skills" / "termsprawl-context" / "SKILL.md"
    assert agents.read_text().count("termsprawl:context-links") == 2
    assert "name: termsprawl-context" in skill.read_text()
    stamp = (agents.stat().st_mtime_ns, skill.stat().st_mtime_ns)
    os.utime(str(agents), ns=(1, 1))
    os.utime(str(skill), ns=(1, 1))
    discovery.ensure_context_discovery(str(project))
    assert agents.stat().st_mtime_ns == 1 and skill.stat().st_mtime_ns == 1  # unchanged: not rewritten
    agents.write_text("# notes\n\n" + agents.read_text())
    discovery.ensure_context_discovery(str(project))
    assert agents.read_text().count("termsprawl:context-links") == 2 and agents.read_text().startswith("# notes")
    assert sorted(os.listdir(str(tmp_path))) == before_outside
    assert stamp


def test_discovery_keeps_undecodable_user_bytes(tmp_path):
    agents = tmp_path / ".termsprawl" / "AGENTS.md"
    agents.parent.mkdir()
    agents.write_bytes(b"caf\xe9 notes\n")
    discovery.ensure_context_discovery(str(tmp_path))
    assert agents.read_bytes().startswith(b"caf\xe9 notes\n\n<!-- termsprawl")


def test_discovery_failure_is_swallowed(tmp_path):
    (tmp_path / ".termsprawl").write_text("file, not folder")
    (tmp_path / ".claude").write_text("file, not folder")
    discovery.ensure_context_discovery(str(tmp_path))  # no raise
    discovery.ensure_context_discovery("")


# --- titles ---------------------------------------------------------------------------


def write_project(tmp_path, value):
    d = tmp_path / ".termsprawl"
    d.mkdir(exist_ok=True)
    (d / "project.json").write_text(value if isinstance(value, str) else json.dumps(value, indent=2))


def test_title_found(tmp_path):
    write_project(
        tmp_path, {"nodes": [{"id": "a", "data": {"title": "Claude A"}}, {"id": "b", "data": {"title": "Claude B"}}]}
    )
    assert titles.node_title(str(tmp_path), "b") == "Claude B"
    assert titles.node_title(str(tmp_path), "zzz") is None


@pytest.mark.parametrize(
    "value",
    [
        "not json",
        "[]",
        {"nodes": "x"},
        {"nodes": [{"id": "b", "data": {"title": 5}}]},
        {"nodes": [{"id": "b", "data": "str"}]},
        {"nodes": [{"id": "b"}]},
        {},
    ],
)
def test_title_absent_on_anything_odd(tmp_path, value):
    write_project(tmp_path, value)
    assert titles.node_title(str(tmp_path), "b") is None


def test_title_missing_file(tmp_path):
    assert titles.node_title(str(tmp_path), "b") is None


def test_atomic_write_leaves_no_temp_on_failure(tmp_path, monkeypatch):
    target = tmp_path / ".termsprawl" / "x.json"

    def boom(*args, **kwargs):
        raise OSError("simulated")

    monkeypatch.setattr(files.os, "replace", boom)
    with pytest.raises(OSError):
        files.write_atomic(str(tmp_path), str(target), b"data")
    assert os.listdir(str(target.parent)) == []


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from("aZ09_-. /\n\u00e9\u0660"), max_size=140) | st.text(max_size=20))
def test_safe_id_predicate_is_the_documented_pattern(value):
    import re

    from termsprawl_context.workspace.ids import SAFE_ID_PATTERN

    assert is_safe_id(value) == (re.match(SAFE_ID_PATTERN, value) is not None)


# --- discovery: standalone and app-managed texts, user edits, CLAUDE.md -----------------

SKILL_PATH = os.path.join(".claude", "skills", "termsprawl-context", "SKILL.md")


def _frontmatter(text):
    head = text.split("---\n")[1]
    fields = {}
    for line in head.splitlines():
        key, _, value = line.partition(": ")
        fields[key] = value
    return fields


def test_standalone_skill_names_the_hand_off_and_allows_only_reads(tmp_path):
    from termsprawl_context.harness.claude.facts import SKILL_DESCRIPTION_MAX

    discovery.ensure_context_discovery(str(tmp_path))
    text = (tmp_path / SKILL_PATH).read_text()
    assert text == discovery.STANDALONE_SKILL_BODY
    fields = _frontmatter(text)
    assert set(fields) == {"name", "description", "allowed-tools"}
    assert fields["name"] == "termsprawl-context"
    assert len(fields["description"]) <= SKILL_DESCRIPTION_MAX
    for trigger in ("another agent", "terminal", "hand-off", "pick up", "what another agent said"):
        assert trigger in fields["description"]
    # No shell variable (Claude Code matches no rule against one); ${CLAUDE_SKILL_DIR} is
    # replaced by Claude Code itself before the model reads the skill.
    command = ".termsprawl/bin/termsprawl-context --format markdown"
    from_skill_dir = "${CLAUDE_SKILL_DIR}/../../../.termsprawl/bin/termsprawl-context --format markdown"
    rules = []
    for base in (
        ".termsprawl/bin/termsprawl-context",
        "${CLAUDE_SKILL_DIR}/../../../.termsprawl/bin/termsprawl-context",
    ):
        rules += ["Bash(%s)" % base] + ["Bash(%s %s *)" % (base, o) for o in ("--format", "--turns", "--max-chars")]
    assert fields["allowed-tools"] == ", ".join(rules)
    body = text.split("---\n", 2)[2]
    assert "    " + command + "\n" in body and "    " + from_skill_dir + "\n" in body and "--cwd ." not in text
    assert "$CLAUDE_PROJECT_DIR" not in text and "${CLAUDE_PROJECT_DIR" not in text
    # Three levels up from .claude/skills/termsprawl-context/ is the project.
    assert os.path.normpath(os.path.join(str(tmp_path / SKILL_PATH), "..", "..", "..", "..")) == str(tmp_path)
    for option in ("--turns N", "--max-chars N", "--format json"):
        assert option in body
    agents = (tmp_path / ".termsprawl" / "AGENTS.md").read_text()
    assert agents == discovery.STANDALONE_BLOCK + "\n" and command in agents


def test_app_managed_project_keeps_the_context_layers_exact_texts(tmp_path):
    (tmp_path / ".termsprawl").mkdir()
    (tmp_path / ".termsprawl" / "project.json").write_text("{}")
    discovery.ensure_context_discovery(str(tmp_path))
    assert (tmp_path / SKILL_PATH).read_text() == discovery.SKILL_BODY
    assert (tmp_path / ".termsprawl" / "AGENTS.md").read_text() == discovery.MANAGED_BLOCK + "\n"
    assert discovery.skill_state(str(tmp_path)) == discovery.SKILL_CURRENT


def test_our_older_texts_are_refreshed_a_user_edit_is_kept(tmp_path):
    cwd = str(tmp_path)
    skill = tmp_path / SKILL_PATH
    skill.parent.mkdir(parents=True)
    skill.write_text(discovery.SKILL_BODY)  # what the app (or an older version) wrote
    assert discovery.skill_state(cwd) == discovery.SKILL_OLDER
    assert dict(discovery.refresh_discovery(cwd))[discovery.SKILL_FILE] == discovery.WRITTEN
    assert skill.read_text() == discovery.STANDALONE_SKILL_BODY
    edited = discovery.STANDALONE_SKILL_BODY + "\nAlso read NOTES.md first.\n"
    skill.write_text(edited)
    assert discovery.skill_state(cwd) == discovery.SKILL_EDITED
    assert dict(discovery.refresh_discovery(cwd))[discovery.SKILL_FILE] == discovery.USER_EDITED
    assert skill.read_text() == edited
    skill.unlink()
    assert discovery.skill_state(cwd) == discovery.SKILL_ABSENT


def test_every_written_skill_version_is_known():
    assert discovery.SKILL_BODY in discovery.WRITTEN_SKILL_BODIES
    assert discovery.STANDALONE_SKILL_BODY in discovery.WRITTEN_SKILL_BODIES


@pytest.mark.parametrize(
    "content, expected",
    [
        ("", "@.termsprawl/AGENTS.md\n"),
        ("# Shop\n\nUse tabs.\n", "# Shop\n\nUse tabs.\n\n@.termsprawl/AGENTS.md\n"),
        ("# Shop", "# Shop\n\n@.termsprawl/AGENTS.md\n"),
        ("# Shop\n@.termsprawl/AGENTS.md\nmore\n", "# Shop\n@.termsprawl/AGENTS.md\nmore\n"),
        ("  @.termsprawl/AGENTS.md  \n", "  @.termsprawl/AGENTS.md  \n"),
        # Inside a code block the import is not evaluated, so it does not count.
        ("```\n@.termsprawl/AGENTS.md\n```\n", "```\n@.termsprawl/AGENTS.md\n```\n\n@.termsprawl/AGENTS.md\n"),
    ],
)
def test_claude_md_import(content, expected):
    line = discovery.import_line(get("claude-code"))
    assert discovery.add_import(content, line) == expected
    assert discovery.add_import(expected, line) == expected


def test_ensure_rules_writes_the_block_and_keeps_an_edited_file(tmp_path):
    rules = tmp_path / discovery.RULES_FILE
    assert discovery.ensure_rules(str(tmp_path)) == discovery.WRITTEN
    assert rules.read_text() == discovery.wanted_block(str(tmp_path)) + "\n"
    assert discovery.ensure_rules(str(tmp_path)) == discovery.UNCHANGED
    (tmp_path / ".termsprawl").mkdir()
    (tmp_path / ".termsprawl" / "project.json").write_text("{}")  # now app-managed: the app's block
    assert discovery.ensure_rules(str(tmp_path)) == discovery.WRITTEN
    assert rules.read_text() == discovery.wanted_block(str(tmp_path)) + "\n"
    rules.write_bytes(b"# caf\xe9 mine\r\n")
    assert discovery.ensure_rules(str(tmp_path)) == discovery.USER_EDITED
    assert rules.read_bytes() == b"# caf\xe9 mine\r\n"


def test_index_entry_may_name_its_harness(tmp_path):
    """An index entry's optional "harness": absent or "claude-code" is read as before;
    a harness this build cannot read makes the entry "no entry" (fail open), and the
    dump skips that peer."""
    from termsprawl_context.workspace import index

    state = tmp_path / ".termsprawl" / "transcripts"
    state.mkdir(parents=True)
    cases = {
        "plain": {"version": 1, "path": "/t/a.jsonl"},
        "claude": {"version": 1, "path": "/t/b.jsonl", "harness": "claude-code"},
        "codex": {"version": 1, "path": "/t/c.jsonl", "harness": "codex-cli"},  # read since issue 22
        "other": {"version": 1, "path": "/t/e.jsonl", "harness": "no-such-cli"},
        "junk": {"version": 1, "path": "/t/d.jsonl", "harness": 7},
    }
    for node, body in cases.items():
        (state / (node + ".json")).write_text(json.dumps(body))
    got = {node: index.read_transcript_path(str(tmp_path), node) for node in cases}
    assert got == {"plain": "/t/a.jsonl", "claude": "/t/b.jsonl", "codex": "/t/c.jsonl", "other": None, "junk": None}
