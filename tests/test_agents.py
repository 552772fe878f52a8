"""is_valid_agent_id and extract_agent_ids: the seed's tables, plus real transcripts."""

import pytest

from termsprawl_context.jsonl import iter_lines, open_regular, parse_object
from termsprawl_context.transcript.agents import (
    MIN_AGENT_ID_LENGTH,
    extract_agent_ids,
    is_valid_agent_id,
)


@pytest.mark.parametrize(
    "value",
    [
        "abcd1234",
        "ABCD1234",
        "12345678",
        "a3eaf63159a07953f",
        "a0074ac",
        "acompact-2aaa241e456ebc94",
        "aprompt_suggestion-ba74af",
        "abcdef",  # exactly the minimum length
    ],
)
def test_valid_agent_ids(value):
    assert is_valid_agent_id(value)


@pytest.mark.parametrize(
    "value",
    [
        "abc12",
        "abcd",
        "",
        "abc def12",
        "abc.1234",
        "abc/1234",
        "abc!1234",
        "agent@foo",
        "abc\t1234",
        # beyond the seed's table: no newline sneaking past an anchored pattern,
        # no non-ASCII letters or digits, and only strings
        "abcdef\n",
        "abcd\u00e9f",
        "\u0661\u0662\u0663\u0664\u0665\u0666",
        None,
        12345678,
        ["abcd1234"],
    ],
)
def test_invalid_agent_ids(value):
    assert not is_valid_agent_id(value)


def test_min_length_constant():
    assert MIN_AGENT_ID_LENGTH == 6
    assert is_valid_agent_id("a" * MIN_AGENT_ID_LENGTH)
    assert not is_valid_agent_id("a" * (MIN_AGENT_ID_LENGTH - 1))


def _user(tool_use_result=None, content=None):
    entry = {"type": "user", "message": {"role": "user", "content": content or []}}
    if tool_use_result is not None:
        entry["toolUseResult"] = tool_use_result
    return entry


def _nested(agent_id):
    return {"type": "tool_result", "tool_use_id": "t1", "content": {"toolUseResult": {"agentId": agent_id}}}


@pytest.mark.parametrize(
    "entry, expected",
    [
        # the seed's TestExtractAgentIDsFromMessage table
        ({"type": "assistant", "toolUseResult": {"agentId": "abcd1234"}}, []),
        (_user({"agentId": "abcd1234"}), ["abcd1234"]),
        (_user({"agentId": "a3eaf63159a07953f"}), ["a3eaf63159a07953f"]),
        (_user({"agentId": "acompact-2aaa241e456ebc94"}), ["acompact-2aaa241e456ebc94"]),
        (_user(content=[_nested("12345678")]), ["12345678"]),
        (_user({"agentId": "abc"}), []),
        (_user({"agentId": "not valid!"}), []),
        # order: root first, then blocks; not deduplicated
        (_user({"agentId": "rootid1"}, [_nested("blockid1"), _nested("rootid1")]), ["rootid1", "blockid1", "rootid1"]),
        # shapes that carry no id: string/array toolUseResult, string/list block content
        (_user("Error: File has not been read yet"), []),
        (_user([{"agentId": "abcd1234"}]), []),
        (_user(content=[{"type": "tool_result", "content": "agentId: abcd1234"}]), []),
        (_user(content=[{"type": "tool_result", "content": [{"toolUseResult": {"agentId": "abcd1234"}}]}]), []),
        (_user(content=[{"type": "text", "content": {"toolUseResult": {"agentId": "abcd1234"}}}]), []),
        (_user({"agentId": 12345678}), []),
        ({"type": "user", "message": "text", "toolUseResult": {"agentId": "abcd1234"}}, ["abcd1234"]),
        ({"type": "user", "message": {"content": "a string"}}, []),
        ({}, []),
    ],
)
def test_extract_agent_ids(entry, expected):
    assert extract_agent_ids(entry) == expected


def _ids_in(path):
    ids = []
    with open_regular(path) as f:
        for line in iter_lines(f):
            entry = parse_object(line.raw)
            if entry is not None:
                ids.extend(extract_agent_ids(entry))
    return ids


def test_real_transcripts_name_their_subagent_files(corpus):
    """Every id found in a real transcript passes the rule, and every spawned sub-agent
    file of the 2.1.x layout (``<session>/subagents/agent-<id>.jsonl``, flattened in the
    corpus as ``<session>__subagents__agent-<id>.jsonl``) is named by its parent.
    Compaction agents (``acompact-``) are not spawned by a tool call, so no parent names them."""
    by_name = {path.name: path for path in corpus}
    checked = 0
    for path in corpus:
        for agent_id in _ids_in(path):
            assert is_valid_agent_id(agent_id)
        session, sep, agent_file = path.name.partition("__subagents__agent-")
        if not sep or agent_file.startswith("acompact-"):
            continue
        parent = by_name.get(session + ".jsonl")
        if parent is None:
            continue
        assert agent_file[: -len(".jsonl")] in _ids_in(parent), path.name
        checked += 1
    assert checked >= 5
