"""Cite's byte prefilters keep bytescan's escape rule: a record whose words, markers or
ids a JSON writer spelled with escapes (``\\u00XX`` for an ASCII character, ``\\/``) is
found exactly as the parse of every line finds it, by the library and by the command."""

import json
import os

import pytest

import cite_fixtures as fx
import oracles
from cite_fixtures import both_searches  # noqa: F401 (a fixture, used by name)
from termsprawl_context import cite
from termsprawl_context.cite.resolution import HINT_DELEGATION, HINT_TRANSCRIPT, excluded_result_hint
from termsprawl_context.cite.pools import looks_like_record, looks_like_transcript, quote_needle
from termsprawl_context.cite.search import Match

# The whole module runs under both searches: the byte prefilter and the plain one.
pytestmark = pytest.mark.usefixtures("both_searches")

U, T = cite.SOURCE_USER, cite.SOURCE_TOOL_RESULT
PROMPT = "deploy the server now"


def escaped(line, plain, spelled):
    """``line`` (one JSON line) with ``plain`` written as ``spelled`` (an escaped spelling
    of the same string), checked to parse to the same value."""
    assert plain in line
    out = line.replace(plain, spelled)
    assert json.loads(out) == json.loads(line)
    return out


def write(tmp_path, name, lines):
    return fx.write(tmp_path / name, lines)


def oracle(path, quote, sources):
    """The plain parse: every entry held, every call known."""
    return oracles.cite_in_record(oracles.load_record(path), quote, sources)


def tool_record(tmp_path, call_line=None, result_body="ok\nALLTESTSPASSED in 3s\n", call_id="toolu_1"):
    call = fx.tool_call("a1", "u1", call_id, "Bash", "make test")
    return write(
        tmp_path,
        "tool.jsonl",
        [
            fx.user_msg("u1", "run the tests"),
            call_line(call) if call_line else call,
            fx.tool_answer("r1", "a1", call_id, result_body),
        ],
    )


def test_a_tool_call_block_written_with_an_escape_grounds_its_output(tmp_path, run_pyz):
    # '"tool\u005fuse"' is the block type "tool_use": the call is in the record
    path = tool_record(tmp_path, lambda line: escaped(line, '"tool_use"', '"tool\\u005fuse"'))
    want = [Match(path, 3)]
    assert oracle(path, "ALLTESTSPASSED in 3s", [T]) == want
    assert cite.cite(path, "ALLTESTSPASSED in 3s", [T]) == want
    got = cite.resolve_in_record(path, cite.CitationRequest("ALLTESTSPASSED in 3s", [T]))
    assert (got.line, got.call) == (3, "Bash: make test")
    done = run_pyz(["cite", path, "ALLTESTSPASSED in 3s", "--source", "tool_result"])
    assert (done.returncode, done.stdout, done.stderr) == (0, (path + ":3\n").encode(), b"")


@pytest.mark.parametrize("spelled", ["d\\u0065ploy", "\\u0064eploy", "deplo\\u0079", "depl\\u006Fy"])
def test_a_quote_with_an_escaped_letter_is_found(tmp_path, run_pyz, spelled):
    line = escaped(fx.user_msg("u1", "please %s, thanks" % PROMPT), "deploy", spelled)
    path = write(tmp_path, "r.jsonl", [line])
    # the run the prefilter looks for is the escaped one
    assert quote_needle(PROMPT) == (b"deploy" if fx.pools.PREFILTER else None)
    assert oracle(path, PROMPT, [U]) == cite.cite(path, PROMPT) == [Match(path, 1)]
    done = run_pyz(["cite", path, PROMPT])
    assert (done.returncode, done.stdout) == (0, (path + ":1\n").encode()), done.stderr


def test_across_sessions_a_session_spelling_the_quote_with_escapes_is_searched(tmp_path, run_pyz):
    project = tmp_path / "project"
    project.mkdir()
    current = write(project, "current.jsonl", [fx.user_msg("c1", "something else entirely")])
    older = write(project, "older.jsonl", [escaped(fx.user_msg("o1", "please %s" % PROMPT), "deploy", "depl\\u006fy")])
    os.utime(older, (1000, 1000))
    got = cite.resolve_across_sessions(current, str(project), cite.CitationRequest(PROMPT, [U]))
    assert (got.path, got.line) == (older, 1)
    done = run_pyz(["cite", current, PROMPT, "--across", str(project)])
    assert (done.returncode, done.stdout) == (0, (older + ":1\n").encode()), done.stderr


def test_result_at_finds_a_call_whose_id_is_written_with_an_escaped_slash(tmp_path, run_pyz):
    # JSON may write "/" as "\/": the id's bytes are not in the call's line
    path = tool_record(tmp_path, lambda line: escaped(line, '"toolu/1"', '"toolu\\/1"'), call_id="toolu/1")
    assert cite.tool_result_at(path, 3) == ("ok\nALLTESTSPASSED in 3s\n", True)
    done = run_pyz(["result-at", path, "3"])
    assert (done.returncode, done.stdout) == (0, b"ok\nALLTESTSPASSED in 3s\n"), done.stderr


def test_the_hint_finds_an_excluded_result_spelling_the_quote_with_escapes(tmp_path, run_pyz):
    # a sub-agent's reply (model-written) holding the words: not tool output, and the hint says why
    reply = escaped(
        fx.tool_answer("r1", "a1", "toolu_t", "the reply says REPLYWORDS here"), "REPLYWORDS", "REPLYW\\u004fRDS"
    )
    path = write(
        tmp_path,
        "r.jsonl",
        [fx.user_msg("u1", "go"), fx.named_call("a1", "u1", "toolu_t", "Task", {"prompt": "look"}), reply],
    )
    assert oracle(path, "REPLYWORDS here", [T]) == cite.cite(path, "REPLYWORDS here", [T]) == []
    assert excluded_result_hint(path, "REPLYWORDS here") == HINT_DELEGATION
    done = run_pyz(["cite", path, "REPLYWORDS here", "--source", "tool_result"])
    assert done.returncode == 10 and b"sub-agent's reply" in done.stderr, done.stderr


def test_a_transcript_read_back_with_an_escaped_key_is_not_tool_output(tmp_path):
    record = json.dumps(
        {"type": "user", "uuid": "x1", "parentUuid": None, "sessionId": "s1", "version": "2", "message": {}}
    )
    body = escaped(record, '"sessionId"', '"session\\u0049d"') + "\nTRANSCRIPTWORDS read back\n"
    assert looks_like_transcript(body)
    assert any(looks_like_record(line) for line in body.split("\n"))  # what the rule reads, unfiltered
    path = write(
        tmp_path,
        "r.jsonl",
        [
            fx.user_msg("u1", "show me"),
            fx.tool_call("a1", "u1", "toolu_1", "Bash", "cat notes.txt"),
            fx.tool_answer("r1", "a1", "toolu_1", body),
        ],
    )
    assert cite.cite(path, "TRANSCRIPTWORDS read back", [T]) == oracle(path, "TRANSCRIPTWORDS read back", [T]) == []
    assert excluded_result_hint(path, "TRANSCRIPTWORDS read back") == HINT_TRANSCRIPT


def test_a_local_commands_escaped_marker_keeps_its_output_out_of_the_persons_words(tmp_path):
    command = escaped(
        fx.user_msg("u1", "<command-name>/hookify</command-name>"), "<command-name>", "<command\\u002dname>"
    )
    path = write(tmp_path, "r.jsonl", [command, fx.user_msg("u2", "Unknown skill: hookify", parent="u1")])
    assert cite.cite(path, "Unknown skill: hookify") == []
    assert oracle(path, "Unknown skill: hookify", [U]) == []
