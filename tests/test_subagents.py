"""Claude Code's sub-agent records (harness/claude/subagents.py): both layouts, nested delegations, meta companions, parents, traversal ids."""

import json
import os
import re

import pytest

from record_fixtures import Project, named_call, root, sidechain_root, user_msg
from termsprawl_context.errors import NoParent
from termsprawl_context.harness.claude import HARNESS as CLAUDE
from termsprawl_context.harness.claude.subagents import (
    AgentMeta,
    NotAnAgentId,
    SubagentsUnreadable,
    child_records,
    is_subagent_record,
    is_subagent_transcript,
    parent_of,
    read_agent_meta,
    session_dir_of_subagent,
    subagent_transcript_path,
    subagent_tree,
)

REAL_META = {
    "agentType": "Explore",
    "description": "Find X",
    "toolUseId": "toolu_01SXSiDCznzQRW5TuHWxiPv5",
    "spawnDepth": 1,
}


@pytest.fixture
def project(tmp_path):
    return Project(tmp_path / "projects" / "-a-project")


# --- subagent_transcript_path -------------------------------------------------------------------


def test_transcript_path_flat_layout():
    assert (
        subagent_transcript_path("/cfg/projects/-a-project/7173666c.jsonl", "a6e302233716d506d")
        == "/cfg/projects/-a-project/7173666c/subagents/agent-a6e302233716d506d.jsonl"
    )


@pytest.mark.parametrize(
    "agent_id",
    [
        "../../../../../-another-project/victim",
        "../../../-another-project/victim",
        "..",
        ".",
        "a/b",
        "a\\b",
        "../sibling",
        "..\\sibling",
    ],
)
def test_transcript_path_refuses_traversal(agent_id):
    with pytest.raises(NotAnAgentId) as info:
        subagent_transcript_path("/cfg/projects/-a-project/7173666c.jsonl", agent_id)
    assert info.value.message.startswith(
        'transcript: sub-agent transcript path: the reported agent id is not an agent id: "'
    )
    assert info.value.message.endswith(json.dumps(agent_id))  # Go's %q agrees with JSON on these


def test_transcript_path_refuses_empty():
    with pytest.raises(NotAnAgentId) as info:
        subagent_transcript_path("/p/s.jsonl", "")
    assert (
        info.value.message
        == "transcript: sub-agent transcript path: the reported agent id is not an agent id: it is empty"
    )
    with pytest.raises(NoParent) as info:
        subagent_transcript_path("", "abc")
    assert info.value.message == "transcript: sub-agent transcript path: no transcript path given"


@pytest.mark.parametrize("agent_id", ["..x", "a..b", "x..", "...", "acompact-2aaa241e456ebc94"])
def test_transcript_path_allows_dotted_names(agent_id):
    path = subagent_transcript_path("/p/s.jsonl", agent_id)
    assert path == "/p/s/subagents/agent-%s.jsonl" % agent_id
    assert os.path.dirname(os.path.normpath(path)) == "/p/s/subagents"


# --- session_dir_of_subagent --------------------------------------------------------------------


@pytest.mark.parametrize(
    "path, expected",
    [
        ("/p/sess/subagents/agent-a.jsonl", "/p/sess"),
        ("/p/sess/subagents/workflows/wf_1/agent-a.jsonl", "/p/sess"),
        ("/p/sess/subagents/agent-a/subagents/agent-b.jsonl", "/p/sess/subagents/agent-a"),
        ("/home/subagents/proj/sess/subagents/agent-a.jsonl", "/home/subagents/proj/sess"),  # deepest first
        ("/p/sess.jsonl", ""),
        ("agent-a.jsonl", ""),
        ("subagents/agent-a.jsonl", ""),
        ("/subagents/agent-a.jsonl", "/"),
        ("/p/subagentsX/agent-a.jsonl", ""),
    ],
)
def test_session_dir_of_subagent(path, expected):
    assert session_dir_of_subagent(path) == expected


# --- enumeration -----------------------------------------------------------------------------


def test_child_records_one_level_sorted_no_metas(project):
    parent = project.write("sess", [root("r")])
    b = project.write_subagent("sess", "bbb", [sidechain_root("b1", "bbb")])
    a = project.write_subagent("sess", "aaa", [sidechain_root("a1", "aaa")])
    project.write_meta(a, REAL_META)
    project.write_subagent("sess/subagents/agent-aaa", "nested", [sidechain_root("n1", "nested")])
    (project.dir / "sess" / "subagents" / "notes.txt").write_text("x")
    (project.dir / "sess" / "subagents" / "agent-dir.jsonl").mkdir()
    assert child_records(parent) == [a, b]
    assert child_records(project.write("lonely", [root("x")])) == []
    assert subagent_tree(project.write("lonely2", [root("y")])) == []


def test_tree_nested_and_workflows_in_walk_order(project):
    parent = project.write("sess", [root("r")])
    a = project.write_subagent("sess", "a1b2", [sidechain_root("s0", "a1b2")])
    nested = project.write_subagent("sess/subagents/agent-a1b2", "c3d4", [sidechain_root("n0", "c3d4")])
    deeper = project.write_subagent("sess/subagents/agent-a1b2/subagents/agent-c3d4", "e5", [sidechain_root("d", "e5")])
    wf = project.write_subagent("sess", "w1", [sidechain_root("w0", "w1")], under=("subagents", "workflows", "wf_7"))
    z = project.write_subagent("sess", "zz", [sidechain_root("z0", "zz")])
    project.write_meta(z, REAL_META)
    # The directory agent-a1b2/ sorts before the file agent-a1b2.jsonl, so its records come first.
    assert subagent_tree(parent) == [deeper, nested, a, z, wf]  # "agent-zz.jsonl" < "workflows"
    assert child_records(parent) == [a, z]
    assert subagent_tree(a) == [deeper, nested]


def test_tree_does_not_follow_symlinked_directories(project, tmp_path):
    parent = project.write("sess", [root("r")])
    outside = Project(tmp_path / "elsewhere")
    outside.write_subagent("x", "stolen", [sidechain_root("s", "stolen")])
    os.makedirs(str(project.dir / "sess" / "subagents"))
    os.symlink(str(tmp_path / "elsewhere" / "x" / "subagents"), str(project.dir / "sess" / "subagents" / "link"))
    assert subagent_tree(parent) == []


def test_unlistable_subagents_dir_is_an_error(project):
    parent = project.write("sess", [root("r")])
    (project.dir / "sess").mkdir()
    (project.dir / "sess" / "subagents").write_text("a file where a directory should be")
    assert child_records(parent) == []  # not a directory: nothing was dispatched there
    assert subagent_tree(parent) == []
    if os.geteuid() != 0:
        (project.dir / "sess" / "subagents").unlink()
        (project.dir / "sess" / "subagents").mkdir(mode=0)
        try:
            with pytest.raises(SubagentsUnreadable):
                child_records(parent)
        finally:
            (project.dir / "sess" / "subagents").chmod(0o755)


# --- meta -------------------------------------------------------------------------------------


def test_read_agent_meta(project):
    sub = project.write_subagent("sess", "a1", [sidechain_root("s", "a1")])
    assert read_agent_meta(sub) is None
    project.write_meta(sub, REAL_META)
    assert read_agent_meta(sub) == AgentMeta("Explore", "Find X", "toolu_01SXSiDCznzQRW5TuHWxiPv5", 1)
    project.write_meta(sub, {"TOOLUSEID": "t", "agentType": None, "other": [1]})
    assert read_agent_meta(sub) == AgentMeta("", "", "t", 0)
    assert read_agent_meta("/p/not-a-record.txt") is None


@pytest.mark.parametrize(
    "text, kind",
    [
        ("{not json", "parse"),
        ("[1]", "parse"),
        ('{"spawnDepth":"1"}', "parse"),
        ('{"spawnDepth":1.5}', "parse"),
        ('{"toolUseId":7}', "parse"),
        ('{"description":true}', "parse"),
    ],
)
def test_malformed_meta_is_an_error(project, text, kind):
    sub = project.write_subagent("sess", "a1", [sidechain_root("s", "a1")])
    meta = project.write_meta(sub, text)
    with pytest.raises(SubagentsUnreadable) as info:
        read_agent_meta(sub)
    assert info.value.message.startswith("transcript: %s sub-agent meta %s: " % (kind, meta))


def test_meta_that_is_a_directory_is_a_read_error(project):
    sub = project.write_subagent("sess", "a1", [sidechain_root("s", "a1")])
    os.mkdir(sub[: -len(".jsonl")] + ".meta.json")
    with pytest.raises(SubagentsUnreadable) as info:
        read_agent_meta(sub)
    assert info.value.message.startswith("transcript: read sub-agent meta ")


# --- is this a sub-agent's record -------------------------------------------------------------


def test_is_subagent_transcript(project):
    plain = project.write("plain", [root("r")])
    assert is_subagent_transcript(plain) is False and is_subagent_record(plain) is False
    side = project.write("side", [{"type": "summary", "summary": "x"}, sidechain_root("s", "a1")])
    assert is_subagent_transcript(side) is True and is_subagent_record(side) is True
    with_meta = project.write("with-meta", [root("r2")])  # isSidechain false, but a meta file beside it
    project.write_meta(with_meta, REAL_META)
    assert is_subagent_transcript(with_meta) is True
    bad_meta = project.write("bad-meta", [root("r3")])
    project.write_meta(bad_meta, "{torn")
    assert is_subagent_transcript(bad_meta) is False
    later = project.write("later", [root("r4"), sidechain_root("s4", "x")])  # only the first entry decides
    assert is_subagent_transcript(later) is False
    assert is_subagent_transcript(str(project.dir / "absent.jsonl")) is False
    filed = project.write_subagent("sess", "filed", [root("r5")])  # filed as one: the place says so
    assert is_subagent_transcript(filed) is False and is_subagent_record(filed) is True


# --- session_root -------------------------------------------------------------------------------


def test_session_root_climbs_every_layout(project):
    parent = project.write("the-session", [root("u1")])
    flat = project.write_subagent("the-session", "a1b2", [sidechain_root("s0", "a1b2")])
    nested = project.write_subagent("the-session/subagents/agent-a1b2", "c3d4", [sidechain_root("n0", "c3d4")])
    wf = project.write_subagent(
        "the-session", "w1", [sidechain_root("w0", "w1")], under=("subagents", "workflows", "wf_3")
    )
    for path in (parent, flat, nested, wf):
        assert CLAUDE.session_root(path) == parent
    assert CLAUDE.session_root(str(project.dir / "not-there.jsonl")) == str(project.dir / "not-there.jsonl")


def test_orphans_have_no_root(project):
    orphan = project.write_subagent("gone-session", "a1b2", [sidechain_root("s0", "a1b2")])
    assert CLAUDE.session_root(orphan) == ""
    nested_orphan = project.write_subagent("gone/subagents/agent-mid", "leaf", [sidechain_root("l", "leaf")])
    assert CLAUDE.session_root(nested_orphan) == ""  # its dispatcher agent-mid.jsonl is not on disk
    os.makedirs(str(project.dir / "dir-session.jsonl"))
    in_dir = project.write_subagent("dir-session", "a", [sidechain_root("s", "a")])
    assert CLAUDE.session_root(in_dir) == ""  # a directory is not a record
    loose = project.write("loose", [sidechain_root("s", "a")])  # a sidechain record filed nowhere
    assert CLAUDE.session_root(loose) == ""


# --- parent_of (describe_test.go) ---------------------------------------------------------------


@pytest.fixture
def family(project):
    parent = project.write(
        "the-session",
        [
            user_msg("u1", "research the retry policy"),
            named_call("a1", "u1", "toolu_dispatch", "Task", {"prompt": "read the retry config"}),
        ],
    )
    mid = project.write_subagent(
        "the-session",
        "mid",
        [
            sidechain_root("m0", "mid"),
            named_call("m1", "m0", "toolu_nested", "Task", {"prompt": "deeper"}, isSidechain=True),
        ],
    )
    project.write_meta(mid, dict(REAL_META, toolUseId="toolu_dispatch"))
    leaf = project.write_subagent("the-session/subagents/agent-mid", "leaf", [sidechain_root("l0", "leaf")])
    project.write_meta(leaf, dict(REAL_META, toolUseId="toolu_nested", spawnDepth=2))
    return project, parent, mid, leaf


def test_parent_in_the_root(family):
    _, parent, mid, _ = family
    assert parent_of(mid) == parent


def test_nested_leaf_names_the_middle(family):
    _, _, mid, leaf = family
    assert parent_of(leaf) == mid


def test_root_has_no_parent(family):
    _, parent, _, _ = family
    assert parent_of(parent) == ""


def test_meta_without_tool_use_id(family):
    project, _, _, _ = family
    sub = project.write_subagent("the-session", "anon", [sidechain_root("x", "anon")])
    project.write_meta(sub, {"agentType": "Explore"})
    assert parent_of(sub) == ""


def test_id_nowhere(family):
    project, _, _, _ = family
    sub = project.write_subagent("the-session", "lost", [sidechain_root("x", "lost")])
    project.write_meta(sub, dict(REAL_META, toolUseId="toolu_nowhere"))
    assert parent_of(sub) == ""


def test_id_also_in_own_file_still_names_the_parent(family):
    project, parent, _, _ = family
    sub = project.write_subagent(
        "the-session",
        "echo",
        [
            sidechain_root("x", "echo"),
            named_call("x1", "x", "toolu_dispatch", "Bash", {"command": "ls"}, isSidechain=True),
        ],
    )
    project.write_meta(sub, dict(REAL_META, toolUseId="toolu_dispatch"))
    assert parent_of(sub) == parent


def test_parent_whose_call_id_is_spelled_with_an_escape(family):
    """The dispatching call is found however its JSON spells the id (``\\u0074`` is "t"):
    the byte search before the parse does not miss it."""
    project, parent, mid, _ = family
    path = project.dir / "the-session.jsonl"
    path.write_text(path.read_text().replace('"toolu_dispatch"', '"\\u0074oolu_dispatch"'))
    assert "toolu_dispatch" not in path.read_text()
    assert parent_of(mid) == parent


def test_parent_in_the_workflow_layout(family):
    project, _, mid, _ = family
    wf = project.write_subagent(
        "the-session", "w1", [sidechain_root("w0", "w1")], under=("subagents", "workflows", "wf_9")
    )
    project.write_meta(wf, dict(REAL_META, toolUseId="toolu_nested"))
    assert parent_of(wf) == mid


def test_id_only_in_text_is_not_a_dispatch(family):
    project, _, _, _ = family
    project.write("the-session", [user_msg("u1", "I mention toolu_text but call nothing")])
    sub = project.write_subagent("the-session", "t", [sidechain_root("x", "t")])
    project.write_meta(sub, dict(REAL_META, toolUseId="toolu_text"))
    assert parent_of(sub) == ""


def test_parent_with_malformed_meta_is_an_error(family):
    project, _, _, _ = family
    sub = project.write_subagent("the-session", "bad", [sidechain_root("x", "bad")])
    project.write_meta(sub, "{torn")
    with pytest.raises(SubagentsUnreadable):
        parent_of(sub)


# --- the real corpus ----------------------------------------------------------------------------

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _first_session_id(path):
    with open(str(path), "rb") as f:
        for raw in f:
            try:
                value = json.loads(raw)
            except ValueError:
                continue
            if isinstance(value, dict) and isinstance(value.get("sessionId"), str) and value["sessionId"]:
                return value["sessionId"]
    return ""


def test_corpus_subagent_records(corpus, tmp_path):
    """Each real sub-agent file is one by what it says of itself; laid out as Claude Code
    files it (links in a tmp store), it climbs to its session's root whenever the
    corpus holds that session's record; flattened as the corpus keeps it, no layout
    names a root, and the answer is "" rather than a guess."""
    sessions = {}
    for path in corpus:
        ids = _UUID.findall(path.name)
        if ids and not path.name.split("__")[-1].startswith("agent-"):
            sessions[ids[-1]] = path
    agents = [p for p in corpus if p.name.split("__")[-1].startswith("agent-")]
    assert agents
    resolved = 0
    for path in agents:
        assert is_subagent_record(str(path)), path
        assert CLAUDE.session_root(str(path)) == ""
        session = _first_session_id(path)
        if session not in sessions:
            continue
        store = Project(tmp_path / ("store-%d" % resolved))
        root_link = store.dir / (session + ".jsonl")
        os.symlink(str(sessions[session]), str(root_link))
        name = path.name.split("__")[-1]
        sub_link = store.dir / session / "subagents" / name
        sub_link.parent.mkdir(parents=True)
        os.symlink(str(path), str(sub_link))
        assert CLAUDE.session_root(str(sub_link)) == str(root_link)
        assert child_records(str(root_link)) == [str(sub_link)]
        resolved += 1
    assert resolved > 0  # the corpus holds the sessions of some of its sub-agents
    for path in sessions.values():
        if not is_subagent_record(str(path)):
            assert CLAUDE.session_root(str(path)) == str(path)


def test_claude_codes_provider_answers_the_interfaces_sub_agent_questions_as_its_readers():
    """Claude Code behind harness/base.py: its sub-agents, a sub-agent's parent and the
    root climbed through the interface are what its own readers say (issue 28)."""
    import os

    from termsprawl_context.harness import get
    from termsprawl_context.harness.base import Harness
    from termsprawl_context.harness.claude.subagents import subagent_tree

    fixtures = os.path.join(os.path.dirname(__file__), "fixtures", "cc-2.1.328")
    parent = os.path.join(fixtures, "dca23ce2-d761-4d72-ba0e-6c1ad59828a9.jsonl")
    provider = get(None)
    children = provider.subagent_paths(parent)
    assert children == child_records(parent) and len(children) == 1
    assert provider.subagent_tree(parent) == subagent_tree(parent) == children
    assert provider.subagent_parent(children[0]) == (True, parent)
    assert provider.subagent_parent(parent) == (False, "")
    assert provider.session_root(children[0]) == parent  # the interface's climb, through subagent_parent
    assert provider.is_subagent(children[0]) and not provider.is_subagent(parent)
    assert (
        provider.session_transcripts(children[0])
        == Harness.session_transcripts(provider, children[0])
        == [parent] + children
    )
    assert provider.session_transcripts(parent) == Harness.session_transcripts(provider, parent) == [parent] + children
    assert provider.subagent_id_of(children[0]) == os.path.basename(children[0])[len("agent-") : -len(".jsonl")]
    assert provider.subagent_id_of(parent) == ""
    assert provider.stable_id(parent)
