"""The real Gemini CLI 0.61 as a node, against the scripted model server (gemini_server.py).

One project, set up with the built artifact's ``init --hook --gemini-hook --gemini-md``, in
a scratch HOME (no network; ``GEMINI_API_KEY`` is any value, the base URL is ours). Node
``alice`` is a Claude Code transcript; node ``carol`` is Gemini CLI, started with
``TERMSPRAWL_NODE_ID=carol``; the two are linked. Then, in order:

1. carol's first prompt: the SessionStart hook records carol (its real payload), its
   context line reaches the model as the ``<hook_context>`` of the first prompt, and the
   scripted model runs the exact command that line names through ``run_shell_command``:
   the tool output in the next request holds alice's words.
2. ``gemini -r latest``: a second prompt in the same session (the resume's payload names a
   stub file; the index keeps the conversation's file).
3. The Claude side reads carol through the artifact: the dump and the hand-off hold carol's
   typed prompts and answers, and none of Gemini's harness text.
"""

import json
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from clients import client_bin  # noqa: E402
from gemini_server import GeminiServer, Say, Shell, request_texts  # noqa: E402

from termsprawl_context.harness import gemini  # noqa: E402
from termsprawl_context.harness.gemini import facts  # noqa: E402
from termsprawl_context.transcript.speakers import typed_texts  # noqa: E402
from termsprawl_context.transcript.tool_blocks import assistant_text  # noqa: E402

RUN_TIMEOUT = 120
ALICE_WORDS = "alice-says: the migration is blocked on the schema review"
ALICE_ANSWER = "alice-answers: I will wait for the review"
CAROL_ONE = "carol-prompt-one: what is alice doing?"
CAROL_ANSWER_ONE = "carol-answer-one: alice waits for a schema review"
CAROL_TWO = "carol-prompt-two: and after that?"
CAROL_ANSWER_TWO = "carol-answer-two: she merges"
HARNESS_TEXT = (facts.HOOK_CONTEXT_OPEN, facts.SESSION_CONTEXT_OPEN, "termsprawl: you are agent node")
# The hook's context line ends with the exact command that reads the node's peers.
COMMAND_IN_CONTEXT = re.compile(r"run: ([^\n]+?)</hook_context>")  # one line; the MCP server's instructions say it too


def claude_transcript(path):
    records = [
        {
            "type": "user",
            "uuid": "u1",
            "sessionId": "s-alice",
            "timestamp": "2026-12-01T00:00:00Z",
            "message": {"role": "user", "content": ALICE_WORDS},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "sessionId": "s-alice",
            "timestamp": "2026-12-01T00:00:01Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": ALICE_ANSWER}]},
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def run_shell_from_context(body):
    """The model's move: run the command the hook's context line names."""
    found = COMMAND_IN_CONTEXT.search("\n".join(request_texts(body)))
    assert found, "no termsprawl context line reached the model: %s" % "\n".join(request_texts(body))[-1500:]
    return Shell(found.group(1).strip())


class World(object):
    def __init__(self, root, pyz):
        self.root, self.pyz = root, str(pyz)
        self.home = root / "home"
        self.project = root / "proj"
        (self.home / ".gemini").mkdir(parents=True)
        self.project.mkdir()
        # Gemini CLI 0.61 refuses a base URL alone ("gateway" auth); the API-key type uses it.
        (self.home / ".gemini" / "settings.json").write_text(
            json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}})
        )
        subprocess.run(["git", "init", "-q", str(self.project)], check=True)
        self.gemini = client_bin("gemini")

    def env(self, **extra):
        env = {
            k: v for k, v in os.environ.items() if not k.startswith(("GEMINI_", "GOOGLE_", "TERMSPRAWL_", "CLAUDE_"))
        }
        # A stale $PWD, as a program that changed directory without setting it leaves: the
        # hook command must not depend on it (Gemini CLI hands its own $PWD to the hook).
        env.update(HOME=str(self.home), NO_COLOR="1", PWD=str(self.root))
        env.update(extra)
        return env

    def tool(self, *args, stdin=None):
        done = subprocess.run(
            [sys.executable, self.pyz] + [str(a) for a in args],
            cwd=str(self.project),
            env=self.env(),
            capture_output=True,
            timeout=60,
            input=stdin,
        )
        assert b"Traceback" not in done.stderr
        return done

    def run_gemini(self, server, *args, node="carol"):
        env = self.env(
            GEMINI_API_KEY="x",
            GOOGLE_GEMINI_BASE_URL=server.url,
            GEMINI_CLI_TRUST_WORKSPACE="true",
            TERMSPRAWL_NODE_ID=node,
        )
        done = subprocess.run(
            [self.gemini] + list(args) + ["--yolo", "-o", "json"],
            cwd=str(self.project),
            env=env,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
        return done

    def index_entry(self, node):
        return json.loads((self.project / ".termsprawl" / "transcripts" / (node + ".json")).read_text())

    def chats(self):
        return sorted((self.home / ".gemini" / "tmp").glob("*/chats/session-*.jsonl"))


@pytest.fixture(scope="module")
def world(tmp_path_factory, pyz):
    world = World(tmp_path_factory.mktemp("gemini-e2e"), pyz)
    done = world.tool("init", "--cwd", world.project, "--hook", "--gemini-hook", "--gemini-md")
    assert done.returncode == 0, done.stderr
    alice = world.root / "alice.jsonl"
    claude_transcript(alice)
    assert world.tool("index", "set", "alice", alice).returncode == 0
    assert world.tool("links", "add", "alice", "carol").returncode == 0
    with GeminiServer([run_shell_from_context, Say(CAROL_ANSWER_ONE)]) as first:
        world.first = first
        world.first_run = world.run_gemini(first, "-p", CAROL_ONE)
    world.after_first = world.index_entry("carol")
    world.chats_after_first = world.chats()
    with GeminiServer([Say(CAROL_ANSWER_TWO)]) as second:
        world.second = second
        world.second_run = world.run_gemini(second, "-r", "latest", "-p", CAROL_TWO)
    world.after_resume = world.index_entry("carol")
    return world


def test_hook_records_the_gemini_session_as_a_node(world):
    entry = world.after_first
    assert entry["harness"] == facts.NAME
    assert world.chats_after_first == [world.chats_after_first[0]] and entry["path"] == str(world.chats_after_first[0])
    assert gemini.header_of(entry["path"]).session_id == json.loads(world.first_run.stdout)["session_id"]


def test_context_line_reaches_the_model_and_the_peer_read_returns_alices_words(world):
    first_request, after_tool = world.first.requests[0][1], world.first.requests[1][1]
    first_texts = "\n".join(request_texts(first_request))
    assert "<hook_context>termsprawl: you are agent node carol; linked agents: alice." in first_texts
    assert CAROL_ONE in first_texts
    # GEMINI.md's import put the managed block into the model's context too.
    assert "termsprawl:context-links" in first_texts
    outputs = [
        json.dumps(p["functionResponse"])
        for c in after_tool["contents"]
        for p in c.get("parts") or []
        if "functionResponse" in p
    ]
    assert outputs and ALICE_WORDS in outputs[-1] and ALICE_ANSWER in outputs[-1]


def test_resume_keeps_the_conversation_file_and_the_first_prompt(world):
    # The resume's payload names session-<now>-<id8>.jsonl: the same file when the resume
    # comes within the minute the session started, else a stub beside it (tests/test_gemini.py
    # has one from a real run). Either way the node still points at the conversation.
    assert len(world.chats()) in (1, 2) and world.after_resume == world.after_first
    path = world.after_resume["path"]
    found = list(gemini.entries(path))
    assert [t for e in found for t in typed_texts(e)] == [CAROL_ONE, CAROL_TWO]
    assert [assistant_text(e) for e in found if assistant_text(e)] == [CAROL_ANSWER_ONE, CAROL_ANSWER_TWO]
    # What the client itself sent the model on resume lacks the first prompt (its hazard).
    resumed = "\n".join(request_texts(world.second.requests[0][1]))
    assert CAROL_TWO in resumed and CAROL_ONE not in resumed


def test_claude_side_dump_reads_carols_prompts_and_answers_without_harness_text(world):
    done = world.tool("--cwd", world.project, "--self", "alice")
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert out.startswith("# linked context from carol")
    for words in (CAROL_ONE, CAROL_ANSWER_ONE, CAROL_TWO, CAROL_ANSWER_TWO):
        assert words in out
    assert out.index(CAROL_ONE) < out.index(CAROL_ANSWER_ONE) < out.index(CAROL_TWO) < out.index(CAROL_ANSWER_TWO)
    for text in HARNESS_TEXT:
        assert text not in out


def test_claude_side_handoff_reads_carols_prompts_and_answers(world):
    done = world.tool("--cwd", world.project, "--self", "alice", "--format", "json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout.decode())
    peers = answer["peers"] if isinstance(answer, dict) and "peers" in answer else answer
    carol = [p for p in peers if p["id"] == "carol"][0]
    turns = [(t["role"], t["text"]) for t in carol["turns"]]
    assert turns == [
        ("user", CAROL_ONE),
        ("assistant", CAROL_ANSWER_ONE),
        ("user", CAROL_TWO),
        ("assistant", CAROL_ANSWER_TWO),
    ]
    assert not any(text in json.dumps(carol) for text in HARNESS_TEXT)


def test_show_sessions_and_search_read_the_gemini_store(world):
    path = world.after_resume["path"]
    session_id = gemini.header_of(path).session_id
    listed = world.tool("sessions", "--harness", facts.NAME, "--json")
    assert listed.returncode == 0, listed.stderr
    rows = [json.loads(line) for line in listed.stdout.decode().splitlines()]
    # One row for the session, however many files the resume left (the stub is not one).
    assert [(r["session_id"], r["transcript_path"]) for r in rows if r["session_id"] == session_id] == [
        (session_id, path)
    ]
    shown = world.tool("show", session_id)
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout.decode()
    for words in (CAROL_ONE, CAROL_ANSWER_ONE, CAROL_TWO, CAROL_ANSWER_TWO):
        assert words in out
    for text in HARNESS_TEXT:
        assert text not in out
    found = world.tool("search", "carol-prompt-two")
    assert found.returncode == 0 and found.stdout.decode().startswith(path + ":")
    unfound = world.tool("search", "hook_context")  # harness text is not the conversation: no results
    assert (unfound.returncode, unfound.stdout) == (0, b"")


def test_readers_hold_on_torn_copies_of_the_real_chat(world, tmp_path):
    data = open(world.after_resume["path"], "rb").read()
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(data)
    # `index set` names the harness from the file's first record: a Gemini header.
    assert world.tool("index", "set", "torn", torn).returncode == 0
    assert world.index_entry("torn")["harness"] == facts.NAME
    assert world.tool("links", "add", "alice", "torn").returncode == 0
    cuts = sorted({len(data) // 3, len(data) // 2, len(data) - 7} | {data.rfind(b"\n", 0, len(data) - 1) + 1})
    shown_prompts = set()
    for cut in cuts:
        torn.write_bytes(data[:cut])
        done = world.tool("--cwd", world.project, "--self", "alice")
        assert done.returncode == 0 and done.stderr == b""
        shown = done.stdout.decode()
        for text in HARNESS_TEXT:
            assert text not in shown
        shown_prompts.update(
            words for words in (CAROL_ONE, CAROL_TWO) if words in shown.split("# linked context from torn")[-1]
        )
    # The last cut is inside the last line only: both prompts are still read from the torn copy.
    assert shown_prompts == {CAROL_ONE, CAROL_TWO}
    assert world.tool("links", "remove", "alice", "torn").returncode == 0


def test_hook_refusal_is_shown_and_the_client_goes_on(world):
    """A Gemini session started without a node id: the hook records nothing, says why on
    the user's side, and the client still answers."""
    with GeminiServer([Say("fine")]) as server:
        done = world.run_gemini(server, "-p", "no node here", node="")
    assert "TERMSPRAWL_NODE_ID is set but empty" in done.stderr
    assert json.loads(done.stdout)["response"] == "fine"
    assert world.index_entry("carol") == world.after_first  # the node was not moved


def test_subagent_chat_is_the_subagents_and_the_node_stays_on_the_session(world):
    from gemini_server import Call

    from termsprawl_context.model import SIDECHAIN
    from termsprawl_context.transcript.entry import speaker
    from termsprawl_context.transcript.tool_blocks import tool_calls

    task = "sub-task: count the files under src"
    with GeminiServer(
        [Call("invoke_agent", {"agent_name": "generalist", "prompt": task}), Say("erin-answer")],
        [Call("complete_task", {"result": "child-result: 3 files"})],
    ) as server:
        done = world.run_gemini(server, "-p", "erin-prompt: delegate the count", node="erin")
        assert server.subagent_requests, "the sub-agent never asked the model"
    session_id = json.loads(done.stdout)["session_id"]
    entry = world.index_entry("erin")
    assert entry["harness"] == facts.NAME and gemini.header_of(entry["path"]).session_id == session_id
    main = list(gemini.entries(entry["path"]))
    assert [t for e in main for t in typed_texts(e)] == ["erin-prompt: delegate the count"]
    assert [c.name for e in main for c in tool_calls(e)] == ["invoke_agent"]
    children = sorted(os.listdir(facts.subagent_dir(entry["path"], session_id)))
    assert len(children) == 1
    child = list(gemini.entries(os.path.join(facts.subagent_dir(entry["path"], session_id), children[0])))
    assert child and {speaker(e) for e in child} == {SIDECHAIN}
    assert {e.agent_id for e in child} == {children[0][: -len(facts.TRANSCRIPT_SUFFIX)]}
    assert task in [b.get("text") for e in child for b in e.content]
    assert [c.input for e in child for c in tool_calls(e)] == [{"result": "child-result: 3 files"}]
    # The record commands, through the artifact: the chat's sub-agents and its conversation id.
    listed = world.tool("subagents", entry["path"])
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.decode().splitlines() == [
        os.path.join(facts.subagent_dir(entry["path"], session_id), children[0])
    ]
    identity = world.tool("identity", entry["path"])
    assert identity.returncode == 0 and identity.stdout.decode() == session_id + "\n"
