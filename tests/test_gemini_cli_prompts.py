"""Prompts Gemini CLI 0.61 writes itself into a chat as user messages (read in its bundle,
``packages/core``: ``GeminiClient.getIdeContextParts``, ``addDirectoryContext``,
``_recoverFromLoop``, the AfterAgent hook's continuation and the next-speaker check in
``sendMessageStream``; the TUI's SessionStart context in ``AppContainer``): none is the
person's words in the dump, the hand-off or ``show``, and the typed prompt prints once."""

import json

from termsprawl_context import handoff
from termsprawl_context.harness import gemini
from termsprawl_context.harness.gemini import facts
from termsprawl_context.transcript.speakers import typed_texts

SESSION = "5e55aaaa-0000-4000-8000-000000000001"
TYPED_ONE = "typed-one: fix the parser"
TYPED_TWO = "typed-two: now the lexer"
ANSWER_ONE, ANSWER_TWO = "answer-one: done", "answer-two: done too"
SELECTED = "selected-text: def secret(): return 42"
HOOK_REASON = "after-agent-reason: the tests still fail, keep going"
LOOP_DETAIL = "model-words: I will call read_file again"
IDE_FULL = (
    "Here is the user's editor context as a JSON object. This is for your information only.\n```json\n"
    + json.dumps(
        {"activeFile": {"path": "/p/a.py", "cursor": {"line": 3, "character": 1}, "selectedText": SELECTED}}, indent=2
    )
    + "\n```"
)
IDE_DELTA = (
    "Here is a summary of changes in the user's editor context, in JSON format. This is for your information only."
    "\n```json\n"
    + json.dumps({"changes": {"selectionChanged": {"path": "/p/a.py", "selectedText": SELECTED + " delta"}}}, indent=2)
    + "\n```"
)
DIRECTORY = "- **Workspace Directories:**\n  - /p\n  - /other\n- **Directory Structure:**\n\n/other/\n└───notes.md\n"
LOOP = (
    "System: Potential loop detected. Details: %s. Please take a step back and confirm you're making forward "
    "progress. If not, take a step back, analyze your previous actions and rethink how you're approaching the "
    "problem. Avoid repeating the same tool calls or responses without new results." % LOOP_DETAIL
)
HOOK_CONTEXT = "<hook_context>termsprawl: you are agent node carol</hook_context>"
CLI_TEXTS = (SELECTED, HOOK_REASON, LOOP_DETAIL, "/other", "Please continue.", "termsprawl: you are agent node")


def user(mid, texts, display=None):
    record = {
        "id": mid,
        "timestamp": "2026-12-01T00:00:01.000Z",
        "type": "user",
        "content": [{"text": t} for t in texts],
    }
    if display is not None:
        record["displayContent"] = [{"text": display}]
    return record


def said(mid, text):
    return {"id": mid, "timestamp": "2026-12-01T00:00:02.000Z", "type": "gemini", "content": text, "thoughts": []}


def tui_chat(tmp_path):
    """A TUI session as 0.61 writes it: the SessionStart context as a message of its own, the
    IDE's context before the first prompt, an AfterAgent hook's reason sent back under the
    first prompt's displayContent, `/directory add`, the IDE's delta, loop recovery and the
    next-speaker nudge under the second prompt's, and a BeforeAgent hook's context part."""
    records = [
        {"sessionId": SESSION, "projectHash": "ab", "startTime": "2026-12-01T00:00:00.000Z", "kind": "main"},
        user("h", [HOOK_CONTEXT]),
        user("i1", [IDE_FULL]),
        user("u1", [TYPED_ONE]),
        said("g1", "partial"),
        user("c1", [HOOK_REASON], display=TYPED_ONE),
        said("g2", ANSWER_ONE),
        user("d1", [DIRECTORY]),
        user("i2", [IDE_DELTA]),
        user("u2", [TYPED_TWO, "<hook_context>before-agent says hi</hook_context>"], display=TYPED_TWO),
        said("g3", "looping"),
        user("l1", [LOOP], display=TYPED_TWO),
        user("n1", ["Please continue."], display=TYPED_TWO),
        said("g4", ANSWER_TWO),
    ]
    path = tmp_path / "chats" / ("session-2026-12-01T00-00-%s.jsonl" % SESSION[:8])
    path.parent.mkdir()
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_the_records_model_gives_only_the_typed_prompts(tmp_path):
    path = str(tui_chat(tmp_path))
    assert [t for e in gemini.entries(path) for t in typed_texts(e)] == [TYPED_ONE, TYPED_TWO]
    backwards = list(gemini.entries_reverse(path))
    assert [t for e in reversed(backwards) for t in typed_texts(e)] == [TYPED_ONE, TYPED_TWO]


def test_handoff_prints_each_typed_prompt_once_and_no_cli_prompt(tmp_path):
    turns = [(t.role, t.text) for t in handoff.read_harness_turns(str(tui_chat(tmp_path)), facts.NAME)]
    users = [text for role, text in turns if role == "user"]
    assert users == [TYPED_ONE, TYPED_TWO]
    assert not any(cli in text for _role, text in turns for cli in CLI_TEXTS)


def test_dump_handoff_and_show_through_the_artifact(tmp_path, run_pyz):
    chat = tui_chat(tmp_path)
    project = tmp_path / "project"
    (project / ".termsprawl").mkdir(parents=True)
    assert run_pyz(["index", "set", "carol", chat], cwd=project).returncode == 0
    assert run_pyz(["links", "add", "alice", "carol"], cwd=project).returncode == 0
    outs = [
        run_pyz(["--cwd", project, "--self", "alice"]),
        run_pyz(["--cwd", project, "--self", "alice", "--format", "json"]),
        run_pyz(["show", str(chat)], cwd=project),
    ]
    outs[2].stdout = outs[2].stdout.split(b"\n", 1)[1]  # show's heading names the session by its first prompt
    for done in outs:
        assert done.returncode == 0, done.stderr
        out = done.stdout.decode()
        assert out.count(TYPED_ONE) == 1 and out.count(ANSWER_TWO) == 1
        for cli in CLI_TEXTS:
            assert cli not in out, (cli, out)


def test_a_typed_prompt_naming_the_cli_texts_is_still_the_person_s(tmp_path):
    """The rules key on where the CLI's text stands (a message's opening, a carried display),
    never on words the person may type."""
    records = [
        {"sessionId": SESSION, "projectHash": "ab", "startTime": "2026-12-01T00:00:00.000Z", "kind": "main"},
        user("u1", ["why did it say System: Potential loop detected?"]),
        user("u2", ["Please continue."]),
        user("u3", ["explain @a.py", "\n--- Content from referenced files ---", "x"], display="explain @a.py"),
    ]
    path = tmp_path / "session-2026-12-01T00-00-5e55aaaa.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert [t for e in gemini.entries(str(path)) for t in typed_texts(e)] == [
        "why did it say System: Potential loop detected?",
        "Please continue.",
        "explain @a.py",
    ]
