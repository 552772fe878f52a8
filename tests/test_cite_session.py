"""Citations across a session's records and a project's sessions, and provenance: the
reference's citation_subagent, citation_sessions and provenance tables.

citation_subagent_test was written before "own record first" and provenance; its rows
marked with a warning in the notes are tested under the newer code's rule, and say so."""

import contextlib
import json
import os
import time

import pytest

import cite_fixtures as fx
from cite_fixtures import both_searches  # noqa: F401 (a fixture, used by name)
from termsprawl_context import cite, errors
from termsprawl_context.cite.resolution import (
    HINT_DELEGATION,
    HINT_DISPATCH_PROMPT,
    HINT_OWN_DISPATCH_PROMPT,
    SUBAGENT_USER_ADVICE,
    SUBAGENT_USER_RULE,
    unresolved_user_hint,
)
from termsprawl_context.cite.search import session_candidates
from termsprawl_context.cite.search import Match
from termsprawl_context.errors import (
    CitationAmbiguous,
    CitationError,
    CitationNotFound,
    CitationRefused,
    EXIT_CITE_REFUSED,
    NO_SESSION_ROOT,
    NoSessionRoot,
)
from termsprawl_context.transcript.shell import command_paths
from termsprawl_context.harness.claude import HARNESS as CLAUDE
from termsprawl_context.harness.claude.subagents import subagent_tree
from termsprawl_context.cite import CitationRequest

# The whole module runs under both searches: the byte prefilter and the plain one.
pytestmark = pytest.mark.usefixtures("both_searches")

U, T = cite.SOURCE_USER, cite.SOURCE_TOOL_RESULT
BOTH = [U, T]


def req(quote, sources=(U,)):
    return CitationRequest(quote, list(sources))


# --- citation_subagent_test.go -------------------------------------------------------------------
@pytest.fixture
def session(tmp_path):
    rootp = fx.write(
        tmp_path / "the-session.jsonl", [fx.user_msg("u1", "research the retry policy"), fx.record("a1", "u1")]
    )
    sub = fx.write_subagent(
        tmp_path,
        "the-session",
        "a1b2",
        [
            fx.user_msg("s0", "DISPATCHMARKER: read the retry config", isSidechain=True, agentId="a1b2"),
            fx.tool_call("s1", "s0", "toolu_sub", "Bash", "cat retry.yaml", sidechain=True),
            fx.tool_answer("s2", "s1", "toolu_sub", "SUBOUTPUTMARKER backoff: exponential", sidechain=True),
        ],
    )
    fx.write_subagent_meta(tmp_path, "the-session", "a1b2", {"agentType": "Explore", "toolUseId": "toolu_dispatch"})
    return rootp, sub


def test_tool_result_in_a_subagent_record(session):
    rootp, sub = session
    for start in (rootp, sub):
        got = cite.resolve_citation(start, req("SUBOUTPUTMARKER backoff", [T]))
        assert (got.path, got.line, got.source_types) == (sub, 3, [T])
        assert got.message == "SUBOUTPUTMARKER backoff: exponential" and got.call == "Bash: cat retry.yaml"


def test_in_a_nested_subagent_record(tmp_path, session):
    rootp, sub = session
    nested = fx.write(
        tmp_path / "the-session" / "subagents" / "agent-a1b2" / "subagents" / "agent-c3d4.jsonl",
        [
            fx.user_msg("n0", "list things", isSidechain=True),
            fx.tool_call("n1", "n0", "toolu_nested", "Bash", "ls", sidechain=True),
            fx.tool_answer("n2", "n1", "toolu_nested", "NESTEDMARKER.md", sidechain=True),
        ],
    )
    assert subagent_tree(rootp) == [nested, sub]  # WalkDir: the agent-a1b2/ dir before its file
    for start in (rootp, nested):
        assert cite.resolve_citation(start, req("NESTEDMARKER", [T])).path == nested
    assert CLAUDE.session_root(nested) == rootp


def test_one_record_refuses_a_subagents_user_pool(session):
    rootp, sub = session
    with pytest.raises(CitationRefused) as caught:
        cite.resolve_in_record(sub, req("DISPATCHMARKER"))
    assert "sub-agent's record" in str(caught.value)
    with pytest.raises(CitationRefused):
        cite.resolve_in_record(sub, req("SUBOUTPUTMARKER", [U, T]))
    assert cite.resolve_in_record(sub, req("SUBOUTPUTMARKER", [T])).line == 3
    assert cite.resolve_in_record(rootp, req("research the retry policy")).line == 1


def test_user_pool_never_reads_a_subagent(session):
    rootp, sub = session
    for start in (rootp, sub):
        for quote in ("DISPATCHMARKER", "SUBOUTPUTMARKER"):
            with pytest.raises(CitationNotFound):
                cite.resolve_citation(start, req(quote))
        got = cite.resolve_citation(start, req("research the retry policy"))
        assert (got.path, got.line) == (rootp, 1)


def test_dispatch_prompt_hints(session):
    rootp, sub = session
    with pytest.raises(CitationNotFound) as caught:
        cite.resolve_citation(rootp, req("DISPATCHMARKER"))
    assert HINT_DISPATCH_PROMPT + SUBAGENT_USER_RULE in str(caught.value)
    with pytest.raises(CitationNotFound) as caught:
        cite.resolve_citation(sub, req("DISPATCHMARKER"))
    assert HINT_OWN_DISPATCH_PROMPT + SUBAGENT_USER_ADVICE in str(caught.value)
    assert unresolved_user_hint(sub, "never said") == SUBAGENT_USER_ADVICE
    assert unresolved_user_hint(rootp, "never said") == ""


def test_orphan_subagent_refuses_the_user_pool(tmp_path):
    orphan = fx.write_subagent(
        tmp_path,
        "gone-session",
        "a1b2",
        [
            fx.user_msg("s0", "ORPHANPROMPT do it", isSidechain=True),
            fx.tool_call("s1", "s0", "toolu_o", "Bash", "make", sidechain=True),
            fx.tool_answer("s2", "s1", "toolu_o", "ORPHANOUTPUT done", sidechain=True),
        ],
    )
    with pytest.raises(CitationRefused) as caught:
        cite.resolve_citation(orphan, req("ORPHANPROMPT"))
    assert "sub-agent" in str(caught.value) and caught.value.exit_code == EXIT_CITE_REFUSED
    # The whole request fails, even when the tool pool would match (rule 5).
    with pytest.raises(CitationRefused):
        cite.resolve_citation(orphan, req("ORPHANOUTPUT", BOTH))
    assert cite.resolve_citation(orphan, req("ORPHANOUTPUT", [T])).path == orphan
    with pytest.raises(NoSessionRoot) as caught:
        cite.cite_in_session(orphan, "ORPHANPROMPT", [U])
    assert str(caught.value) == NO_SESSION_ROOT


def test_a_known_subagent_is_never_a_root(tmp_path):
    # ResolveSubagentCitation: a caller known to be a sub-agent whose record answers as its own root.
    odd = fx.write(tmp_path / "looks-like-a-root.jsonl", [fx.user_msg("u1", "PROMPTMARKER")])
    assert cite.resolve_citation(odd, req("PROMPTMARKER")).line == 1
    with pytest.raises(CitationRefused):
        cite.resolve_citation(odd, req("PROMPTMARKER"), subagent=True)


def test_own_record_first_changes_ambiguity(tmp_path, session):
    # Warning row (IsAmbiguousAcrossRecords): the old test expected root:3 and sub:3 to be
    # ambiguous; under own-record-first each caller's own output answers.
    rootp, sub = session
    out = "retries: 5 with TWICEMARKER backoff"
    fx.write(
        rootp,
        [
            fx.user_msg("u1", "research the retry policy"),
            fx.tool_call("a1", "u1", "toolu_root", "Bash", "cat retry.yaml"),
            fx.tool_answer("r1", "a1", "toolu_root", out),
        ],
    )
    fx.write(
        sub,
        [
            fx.user_msg("s0", "DISPATCHMARKER", isSidechain=True),
            fx.tool_call("s1", "s0", "toolu_sub", "Bash", "cat retry.yaml", sidechain=True),
            fx.tool_answer("s2", "s1", "toolu_sub", out, sidechain=True),
        ],
    )
    assert (cite.resolve_citation(rootp, req("TWICEMARKER", [T])).path, 3) == (rootp, 3)
    assert cite.resolve_citation(sub, req("TWICEMARKER", [T])).path == sub
    assert cite.cite_in_session(rootp, "TWICEMARKER", [T]) == [Match(rootp, 3)]
    assert cite.cite_in_session(sub, "TWICEMARKER", [T]) == [Match(sub, 3)]
    assert cite.cite_in_session(rootp, "DISPATCHMARKER", BOTH) == []
    assert cite.cite_in_session(sub, "research the retry policy") == [Match(rootp, 1)]
    # Two sub-agents holding the same output, asked from the root (which has none): ambiguous.
    fx.write(rootp, [fx.user_msg("u1", "research the retry policy")])
    other = fx.write_subagent(
        tmp_path,
        "the-session",
        "e5f6",
        [
            fx.tool_call("t1", None, "toolu_2", "Bash", "cat retry.yaml", sidechain=True),
            fx.tool_answer("t2", "t1", "toolu_2", out, sidechain=True),
        ],
    )
    with pytest.raises(CitationAmbiguous) as caught:
        cite.resolve_citation(rootp, req("TWICEMARKER", [T]))
    assert [m.path for m in caught.value.matches] == [sub, other]


def test_subagent_safety_properties_hold(tmp_path, session):
    rootp, sub = session
    fx.write(
        sub,
        [
            fx.user_msg("s0", "go", isSidechain=True),
            fx.tool_answer("s1", "s0", "toolu_h", "PreToolUse:Bash hook error: SUBREFUSED", sidechain=True),
            fx.tool_answer(
                "s2", "s1", "toolu_ask", 'The user answered: "ok?"="SUBFORGED yes". Read the answers.', sidechain=True
            ),
            fx.tool_answer("s3", "s2", "toolu_b", "the build\nfinished WRAPMARKER green", sidechain=True),
            fx.tool_call("s4", "s3", "toolu_w", "Bash", "make", sidechain=True),
            fx.tool_answer("s5", "s4", "toolu_w", "the build\nfinished WRAPCALLED green", sidechain=True),
        ],
    )
    for quote in ("SUBREFUSED", "SUBFORGED"):
        with pytest.raises(CitationNotFound):
            cite.resolve_citation(rootp, req(quote, [T]))
    with pytest.raises(CitationNotFound):
        cite.resolve_citation(rootp, req("SUBFORGED"))
    # Warning row: the old fixture's result has no call; under the newer code it is refused.
    with pytest.raises(CitationNotFound):
        cite.resolve_citation(rootp, req("build finished WRAPMARKER", [T]))
    assert cite.resolve_citation(rootp, req("build finished WRAPCALLED", [T])).line == 6


def test_orphan_tool_pool(tmp_path):
    # Warning row (CiteInSessionOrphanRefusesOnlyTheUserPool): a call-less answer is not citable.
    orphan = fx.write_subagent(
        tmp_path,
        "gone",
        "a1b2",
        [
            fx.user_msg("s0", "x", isSidechain=True),
            fx.tool_answer("s1", "s0", "toolu_x", "ORPHANOUTPUT", sidechain=True),
        ],
    )
    assert cite.cite_in_session(orphan, "ORPHANOUTPUT", [T]) == []
    with pytest.raises(NoSessionRoot):
        cite.cite_in_session(orphan, "x", [U])


# --- citation_sessions_test.go ------------------------------------------------------------------
def _age(path, seconds):
    stamp = time.time() - seconds
    os.utime(path, (stamp, stamp))


@pytest.fixture
def project(tmp_path):
    directory = tmp_path / "proj"
    directory.mkdir()
    return directory


def test_current_session_answers_first(project):
    cur = fx.write(project / "cur.jsonl", [fx.user_msg("u1", "the SAMEQUOTE here")])
    old = fx.write(project / "old.jsonl", [fx.user_msg("o1", "the SAMEQUOTE here")])
    _age(cur, 3600)  # older on disk, still first: it is the current one
    assert cite.resolve_across_sessions(cur, str(project), req("SAMEQUOTE")).path == cur
    got = cite.resolve_across_sessions(cur, str(project), req("the SAMEQUOTE here"))
    assert got.path == cur and old


def test_falls_back_to_earlier_sessions_newest_first(project):
    cur = fx.write(project / "cur.jsonl", [fx.user_msg("u1", "nothing here")])
    a = fx.write(project / "a-older.jsonl", [fx.user_msg("a1", "EARLIERQUOTE said")])
    z = fx.write(project / "z-newer.jsonl", [fx.user_msg("z1", "EARLIERQUOTE said")])
    _age(a, 7200)
    _age(z, 3600)
    got = cite.resolve_across_sessions(cur, str(project), req("EARLIERQUOTE"))
    assert (got.path, got.line) == (z, 1)
    assert session_candidates(cur, str(project)) == [cur, z, a]
    _age(a, 3600)  # a tie: by name
    assert session_candidates(cur, str(project))[1:] == sorted([a, z])
    fx.write(z, [fx.user_msg("z1", "other words")])
    _age(z, 1)
    assert cite.resolve_across_sessions(cur, str(project), req("EARLIERQUOTE")).path == a


def test_the_first_session_holding_the_quote_must_hold_it_once(project):
    cur = fx.write(project / "cur.jsonl", [fx.user_msg("u1", "TWICEQUOTE a"), fx.user_msg("u2", "TWICEQUOTE b")])
    fx.write(project / "old.jsonl", [fx.user_msg("o1", "TWICEQUOTE once")])
    with pytest.raises(CitationAmbiguous) as caught:
        cite.resolve_across_sessions(cur, str(project), req("TWICEQUOTE"))
    assert "ambiguous" in str(caught.value)


def test_model_text_and_pools_across_sessions(project):
    cur = fx.write(
        project / "cur.jsonl",
        [
            fx.user_msg("u1", "run it"),
            fx.assistant_text("a0", "u1", "MODELTEXT claims"),
            fx.tool_call("a1", "a0", "c1", "Bash", "make test"),
            fx.tool_answer("r1", "a1", "c1", "GREENRUN ok"),
        ],
    )
    with pytest.raises(CitationNotFound):
        cite.resolve_across_sessions(cur, str(project), req("MODELTEXT", BOTH))
    with pytest.raises(CitationNotFound):
        cite.resolve_across_sessions(cur, str(project), req("GREENRUN"))
    assert cite.resolve_across_sessions(cur, str(project), req("GREENRUN", [T])).source_types == [T]
    with pytest.raises(CitationNotFound) as caught:
        cite.resolve_across_sessions(cur, str(project), req("NOWHERE"))
    assert str(caught.value) == (
        'citation user "NOWHERE" does not resolve in any session of this project: the quote is '
        "not there word for word"
    )


def test_unreadable_transcripts_are_named(project):
    good = fx.write(project / "good.jsonl", [fx.user_msg("g1", "real quote here")])
    _age(good, 3600)
    bad = project / "bad.jsonl"
    os.mkfifo(str(bad))  # never opened as a transcript; root ignores chmod 0, a FIFO refuses everyone
    assert cite.resolve_across_sessions("", str(project), req("real quote")).path == good
    with pytest.raises(CitationNotFound) as caught:
        cite.resolve_across_sessions("", str(project), req("absent"))
    assert "could not read: %s (transcript: open %s:" % (bad, bad) in str(caught.value)


def test_no_or_missing_project_dir(project):
    cur = fx.write(project / "cur.jsonl", [fx.user_msg("u1", "CURQUOTE")])
    assert cite.resolve_across_sessions(cur, "", req("CURQUOTE")).path == cur
    assert cite.resolve_across_sessions(cur, str(project / "absent"), req("CURQUOTE")).path == cur
    with pytest.raises(errors.UsageError):
        cite.resolve_across_sessions("", "", req(""))


def test_a_subagent_as_current_session_searches_its_root(project):
    rootp = fx.write(project / "s1.jsonl", [fx.user_msg("u1", "ROOTWORDS from the person")])
    sub = fx.write_subagent(project, "s1", "a1", [fx.user_msg("s0", "go", isSidechain=True)])
    newer = fx.write(project / "s2.jsonl", [fx.user_msg("n1", "ROOTWORDS from the person")])
    _age(rootp, 3600)
    assert newer and session_candidates(sub, str(project))[:2] == [sub, newer]
    got = cite.resolve_across_sessions(sub, str(project), req("ROOTWORDS"))
    assert got.path == rootp  # the current session (the sub-agent's) answers first


def test_orphan_sessions_are_skipped_for_the_user_pool(project):
    fx.write_subagent(project, "gone", "a1b2", [fx.user_msg("s0", "SKIPQUOTE", isSidechain=True)])
    orphan = str(project / "gone" / "subagents" / "agent-a1b2.jsonl")
    with pytest.raises(CitationNotFound):
        cite.resolve_across_sessions(orphan, str(project), req("SKIPQUOTE"))


def test_across_sessions_prefilter_is_the_plain_answer(project):
    for i in range(6):
        path = fx.write(
            project / ("s%d.jsonl" % i),
            [
                fx.user_msg("u%d" % i, "words of session %d" % i),
                fx.tool_call("a%d" % i, None, "c%d" % i, "Bash", "ls"),
                fx.tool_answer("r%d" % i, "a%d" % i, "c%d" % i, "OUTPUTWORD %d" % (i % 3)),
            ],
        )
        _age(path, 100 * i)
    for quote, sources in (("session 4", [U]), ("OUTPUTWORD 2", [T]), ("OUTPUTWORD", [T]), ("nope", BOTH)):
        outcomes = []
        for search in (contextlib.nullcontext, fx.plain_search):
            with search():
                try:
                    outcomes.append(cite.resolve_across_sessions("", str(project), req(quote, sources)))
                except CitationError as exc:
                    outcomes.append((type(exc), str(exc)))
        assert outcomes[0] == outcomes[1]


# --- provenance_test.go ----------------------------------------------------------------------------
def test_an_orphan_tool_result_is_not_citable(tmp_path):
    path = fx.write(
        tmp_path / "p.jsonl",
        [
            fx.user_msg("u1", "hi"),
            fx.tool_answer("r1", "u1", "toolu_elsewhere", "ORPHANMARKER"),
            fx.tool_call("a1", "r1", "toolu_here", "Bash", "make"),
            fx.tool_answer("r2", "a1", "toolu_here", "KNOWNMARKER"),
        ],
    )
    with pytest.raises(CitationNotFound):
        cite.resolve_citation(path, req("ORPHANMARKER", [T]))
    assert cite.tool_result_at(path, 2) == ("", False)
    assert cite.resolve_citation(path, req("KNOWNMARKER", [T])).line == 4


def test_delegation_and_task_output_are_never_citable(tmp_path):
    path = fx.write(
        tmp_path / "p.jsonl",
        [
            fx.user_msg("u1", "hi"),
            fx.named_call("a1", "u1", "toolu_bg", "Bash", {"command": "make test", "run_in_background": True}),
            fx.tool_answer("r1", "a1", "toolu_bg", "Command running in background with ID: bash_1"),
            fx.named_call("a2", "r1", "toolu_to", "TaskOutput", {"task_id": "bash_1"}),
            fx.tool_answer("r2", "a2", "toolu_to", "BASHTASKMARKER 12 passed"),
            fx.named_call("a3", "r2", "toolu_ag", "Agent", {"prompt": "look"}),
            fx.tool_answer("r3", "a3", "toolu_ag", "AGENTREPLYMARKER found it"),
        ],
    )
    with pytest.raises(CitationNotFound) as caught:
        cite.resolve_citation(path, req("BASHTASKMARKER", [T]))
    assert "TaskOutput returned" in str(caught.value)
    with pytest.raises(CitationNotFound) as caught:
        cite.resolve_citation(path, req("AGENTREPLYMARKER", [T]))
    assert HINT_DELEGATION in str(caught.value)


HARNESS_LINES = [
    json.dumps(
        {
            "parentUuid": None,
            "isSidechain": False,
            "userType": "external",
            "cwd": "/w",
            "sessionId": "sess-1",
            "version": "2.1.282",
            "type": "user",
            "uuid": "h1",
            "message": {"role": "user", "content": "hello"},
        }
    ),
    json.dumps(
        {
            "parentUuid": "h1",
            "isSidechain": False,
            "userType": "external",
            "cwd": "/w",
            "sessionId": "sess-1",
            "version": "2.1.282",
            "type": "assistant",
            "uuid": "h2",
            "message": {"content": "hi"},
        }
    ),
]


def test_reading_an_agent_transcript_is_not_tool_output(tmp_path):
    agent = tmp_path / "other" / "agent.jsonl"
    agent.parent.mkdir()
    agent.write_text("\n".join(HARNESS_LINES) + "\n")
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    os.symlink(str(agent), str(tasks / "bg1.output"))
    (tmp_path / "notes.txt").write_text("PLAINMARKER\n")
    path = fx.write(
        tmp_path / "p.jsonl",
        [
            fx.named_call("a1", None, "c1", "Read", {"file_path": str(agent)}),
            fx.tool_answer("r1", "a1", "c1", "READ1 the agent said"),
            fx.tool_call("a2", "r1", "c2", "Bash", "cat %s" % (tasks / "bg1.output")),
            fx.tool_answer("r2", "a2", "c2", "CAT2 the agent said"),
            fx.named_call("a3", "r2", "c3", "Read", {"file_path": str(tmp_path / "notes.txt")}),
            fx.user_msg("u1", "hi"),
            fx.tool_answer("r3", "u1", "c3", "PLAINMARKER"),
        ],
    )
    for quote in ("READ1", "CAT2"):
        with pytest.raises(CitationNotFound) as caught:
            cite.resolve_citation(path, req(quote, [T]))
        assert "agent transcript" in str(caught.value)
    assert cite.resolve_citation(path, req("PLAINMARKER", [T])).line == 7


def test_a_transcript_read_back_is_recognised_by_its_text(tmp_path, monkeypatch):
    config = tmp_path / "cfg"
    (config / "projects" / "-w").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    data_line = json.dumps({"uuid": "d1", "type": "user", "message": {"n": 1}, "value": "DATAMARKER 42"})
    path = fx.write(
        tmp_path / "p.jsonl",
        [
            fx.tool_call("a1", None, "c1", "Bash", "cat /gone/file.jsonl"),
            fx.tool_answer("r1", "a1", "c1", "GONEMARKER\n" + "\n".join(HARNESS_LINES)),
            fx.tool_call("a2", "r1", "c2", "Bash", "cat agent.jsonl"),
            fx.tool_answer("r2", "a2", "c2", "RELMARKER " + HARNESS_LINES[0]),
            fx.tool_call("a3", "r2", "c3", "Bash", "cat data.jsonl"),
            fx.tool_answer("r3", "a3", "c3", data_line),
            fx.tool_call("a4", "r3", "c4", "Bash", "echo BUILD-OK-5512 # not reading %s/projects" % config),
            fx.tool_answer("r4", "a4", "c4", "BUILD-OK-5512"),
            fx.named_call("a5", "r4", "c5", "Read", {"file_path": str(config / "projects" / "-w" / "x.jsonl")}),
            fx.tool_answer("r5", "a5", "c5", "STOREMARKER"),
            fx.tool_call("a6", "r5", "c6", "Bash", "grep -l x %s/projects/*/*.jsonl" % config),
            fx.tool_answer("r6", "a6", "c6", "GLOBMARKER"),
        ],
    )
    (config / "projects" / "-w" / "x.jsonl").write_text("{}\n")
    for quote in ("GONEMARKER", "RELMARKER", "STOREMARKER", "GLOBMARKER"):
        with pytest.raises(CitationNotFound) as caught:
            cite.resolve_citation(path, req(quote, [T]))
        assert "agent transcript" in str(caught.value), quote
    assert cite.resolve_citation(path, req("DATAMARKER 42", [T])).line == 6
    assert cite.resolve_citation(path, req("BUILD-OK-5512", [T])).line == 8


def test_a_long_record_resolves(tmp_path):
    lines = []
    for i in range(3000):
        lines.append(fx.tool_call("a%d" % i, None, "c%d" % i, "Bash", "cat f | grep -n x -- f"))
        lines.append(fx.tool_answer("r%d" % i, "a%d" % i, "c%d" % i, "line %d" % i))
    lines += [fx.tool_call("z", None, "cz", "Bash", "make"), fx.tool_answer("rz", "z", "cz", "LONGMARKER passed")]
    path = fx.write(tmp_path / "long.jsonl", lines)
    assert cite.resolve_citation(path, req("LONGMARKER", [T])).line == 6002


@pytest.mark.parametrize(
    "command, paths",
    [
        ("cat /a/agent.jsonl", ["/a/agent.jsonl"]),
        ("tool --file=/a/agent.jsonl -v", ["/a/agent.jsonl"]),
        ("echo 'a # b' /a/x.jsonl", ["/a/x.jsonl"]),
        ("echo ok # cat /a/x.jsonl", []),
        ('grep -n x -- "/a/with space.jsonl" 2>/dev/null', ["/a/with space.jsonl", "/dev/null"]),
        ("cat x.output >out/y", ["x.output", "out/y"]),
        ("make test", []),
    ],
)
def test_command_paths(command, paths):
    assert command_paths(command) == paths
