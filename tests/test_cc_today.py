"""The record model on transcripts the real Claude Code 2.1.328 wrote (tests/fixtures/cc-2.1.328,
made by tests/e2e/make_cc_fixtures.py): who typed what, slash commands as typed, task
notifications as one line, local commands left out, search in sub-agent records, and the
seed's guards (slash envelope not citable, a sub-agent's reply not tool output, its tools'
output resolved in its own record, a fork converging on the original's identity)."""

import json
import shutil
from pathlib import Path

import pytest

from termsprawl_context import handoff as h, handoff_render
from termsprawl_context.jsonl import iter_lines, open_regular, parse_object
from termsprawl_context.store import search
from termsprawl_context import model
from termsprawl_context.transcript import entry as records, slash_commands, tool_blocks
from termsprawl_context.transcript.speakers import (
    SIGNAL_PERSON,
    content_texts,
    not_the_person,
    turn_signal,
    typed_texts,
)
from oracles import read_turns_forward_oracle
from scanner_fixtures import both_scanners  # noqa: F401 (a fixture, used by name)

# The listing runs under both scanners: the fast one and the plain one.
pytestmark = pytest.mark.usefixtures("both_scanners")

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "cc-2.1.328"
MARKER = "SUB-TOOL-OUTPUT-42"


def _session_files():
    return sorted(p for p in FIXTURES.glob("*.jsonl"))


def _entries(path):
    with open_regular(str(path)) as f:
        return [
            model.entry_of(parse_object(line.raw), line.number, line.offset)
            for line in iter_lines(f)
            if parse_object(line.raw) is not None
        ]


def _with(predicate):
    """The one fixture session whose entries satisfy ``predicate``."""
    found = [p for p in _session_files() if predicate(_entries(p))]
    assert len(found) == 1, found
    return found[0]


def _user_texts(entries):
    return [" ".join(content_texts(e.content)) for e in entries if e.type == "user"]


SLASH = _with(
    lambda es: any("<command-name>/review</command-name>" in t for t in _user_texts(es))
    and "/hookify" in _user_texts(es)
)
INTERACTIVE = _with(lambda es: any(e.record.get("promptSource") == "typed" for e in es))
AGENT = [p for p in _session_files() if (FIXTURES / p.stem / "subagents").is_dir()][0]
BACKGROUND = _with(lambda es: any("run_in_background" in json.dumps(e.content) for e in es if e.type == "assistant"))
FORK = _with(lambda es: "a prompt in the fork" in _user_texts(es))
SUBAGENT = sorted((FIXTURES / AGENT.stem / "subagents").glob("agent-*.jsonl"))[0]


@pytest.fixture
def store(tmp_path):
    """The fixtures as a store of one project folder."""
    folder = tmp_path / "projects" / "-tmp-proj"
    shutil.copytree(str(FIXTURES), str(folder))
    (folder / "README.md").unlink()
    return tmp_path / "projects", folder


def test_signals_decide_who_speaks():
    speakers = {}
    for e in _entries(SLASH):
        if e.type == "user":
            speakers.setdefault(records.speaker(e), []).append(" ".join(content_texts(e.content))[:40])
    assert [t[:23] for t in speakers[model.COMMAND]] == ["<command-message>review"]
    assert all(not t.startswith("Review the file") for t in speakers[model.PERSON])
    assert any(t.startswith("Review the file") for t in speakers[model.META])  # the expansion (turnCompanion)
    assert any(t.startswith("<command-name>/context") for t in speakers[model.INJECTED])
    assert any(t.startswith("<command-name>/compact") for t in speakers[model.INJECTED])
    for path in (AGENT, BACKGROUND):
        notes = [e for e in _entries(path) if records.speaker(e) == model.TASK_NOTIFICATION]
        assert len(notes) == 1 and typed_texts(notes[0]) == [] and not_the_person(notes[0])


def test_every_signal_in_the_table_is_a_field_the_client_writes():
    written = set()
    for path in _session_files():
        for e in _entries(path):
            written.update(k for k in e.record if k in {s[0] for s in model.SIGNALS})
            if isinstance(e.attachment, dict):
                written.update(k for k in e.attachment if k in {s[0] for s in model.SIGNALS})
    assert {
        "promptSource",
        "turnOrigin",
        "origin",
        "turnCompanion",
        "isCompactSummary",
        "isVisibleInTranscriptOnly",
    } <= written


def test_show_prints_the_slash_command_as_typed_once_and_no_local_command():
    turns = h.read_harness_turns(str(SLASH))
    assert [(t.role, t.text) for t in turns if t.role == "user"] == [
        ("user", "/review parser.py"),
        ("user", "/hookify"),
        ("user", "and one more typed prompt after the compaction"),
    ]
    assert [t._replace(line=0) for t in read_turns_forward_oracle(str(SLASH))] == turns
    shown = handoff_render.render([h.PeerHandoff("s", "t", str(SLASH), turns)], handoff_render.FORMAT_MARKDOWN)
    for harness_text in (
        "Review the file",
        "/context",
        "/compact",
        "Context Usage",
        "Compacted",
        "Caveat",
        "<command-",
        "<local-command",
        "This session is being continued",
    ):
        assert harness_text not in shown


def test_a_task_notification_is_one_line_without_ids_or_paths():
    for path in (AGENT, BACKGROUND, FORK):
        turns = h.read_harness_turns(str(path))
        tasks = [t for t in turns if t.role == h.ROLE_TASK]
        assert len(tasks) == 1 and "\n" not in tasks[0].text
        assert "finished" in tasks[0].text or "completed" in tasks[0].text
        note = [e for e in _entries(path) if records.speaker(e) == model.TASK_NOTIFICATION][0]
        raw = " ".join(content_texts(note.content))
        for secret in ("/tmp/claude-", "<task-id>", "toolu_", raw.split("<task-id>")[1].split("<")[0]):
            assert secret not in tasks[0].text
        assert all(t.role != "user" or "<task-notification>" not in t.text for t in turns)


def test_cli_show_and_handoff_json(run_pyz, store):
    projects, folder = store
    out = run_pyz(["show", SLASH.stem, "--projects-dir", projects, "--format", "json"])
    assert out.returncode == 0, out.stderr
    peer = json.loads(out.stdout)
    assert [t["text"] for t in peer["turns"] if t["role"] == "user"][0] == "/review parser.py"
    out = run_pyz(["show", AGENT.stem, "--projects-dir", projects])
    assert out.returncode == 0 and b"## task" in out.stdout and b"/tmp/claude-" not in out.stdout


def test_search_finds_a_sub_agents_tool_output_in_its_own_record(run_pyz, store):
    projects, folder = store
    hits = list(search.search_store(MARKER, str(projects), kinds=search.KINDS))
    assert [(Path(hit.path).name, hit.line, hit.kind, hit.session_id) for hit in hits] == [
        (SUBAGENT.name, _marker_line(SUBAGENT), search.KIND_TOOL, AGENT.stem)
    ]
    assert hits[0].agent_id == SUBAGENT.stem[len("agent-") :]
    assert list(search.search_store(MARKER, str(projects), kinds=search.KINDS, subagents=False)) == []
    out = run_pyz(["search", MARKER, "--projects-dir", projects, "--in", "tool"])
    assert out.returncode == 0
    assert out.stdout.decode().startswith(
        "%s:%d\t" % (folder / AGENT.stem / "subagents" / SUBAGENT.name, _marker_line(SUBAGENT))
    )
    out = run_pyz(["search", MARKER, "--projects-dir", projects, "--in", "tool", "--no-subagents"])
    assert (out.returncode, out.stdout) == (0, b"") and b"no match" in out.stderr  # no results: exit 0
    # With no --in (the issue's own command): a sub-agent's record is searched for every
    # kind, its tools' output included; the session's own record keeps the default kinds.
    out = run_pyz(["search", MARKER, "--projects-dir", projects])
    assert out.returncode == 0, out.stderr
    assert out.stdout.decode().startswith(
        "%s:%d\t" % (folder / AGENT.stem / "subagents" / SUBAGENT.name, _marker_line(SUBAGENT))
    )
    assert out.stdout.decode().split("\t")[1] == search.KIND_TOOL
    assert list(search.search_store(MARKER, str(projects))) == []  # the API's default stays human,assistant


def _marker_line(path):
    for e in _entries(path):
        if any(MARKER in t for r in tool_blocks.tool_results(e) for t in tool_blocks.result_texts(r.content)):
            return e.line
    raise AssertionError("no marker output in %s" % path)


def test_the_seeds_guards_hold(run_pyz, store):
    projects, folder = store
    slash = folder / SLASH.name
    # the slash envelope is not in the user pool; the person's plain prompt is
    assert run_pyz(["cite", slash, "/review parser.py"]).returncode == 10
    assert run_pyz(["cite", slash, "one more typed prompt"]).returncode == 0
    agent = folder / AGENT.name
    sub = folder / AGENT.stem / "subagents" / SUBAGENT.name
    reply = [tool_blocks.assistant_text(e) for e in _entries(SUBAGENT) if tool_blocks.assistant_text(e)][-1]
    # the sub-agent's reply is not tool output of the session; its tools' output resolves in its own record
    assert run_pyz(["cite", agent, reply, "--source", "tool_result"]).returncode == 10
    assert run_pyz(["cite", agent, MARKER, "--source", "tool_result"]).returncode == 10
    out = run_pyz(["cite", sub, MARKER, "--source", "tool_result"])
    assert out.returncode == 0 and out.stdout.decode().strip() == "%s:%d" % (sub, _marker_line(SUBAGENT))
    # the fork converges on the original's identity
    fork = run_pyz(["identity", folder / FORK.name, "--projects-dir", projects])
    original = run_pyz(["identity", agent, "--projects-dir", projects])
    assert fork.returncode == original.returncode == 0 and fork.stdout == original.stdout


def test_doctor_counts_what_the_handoff_prints_and_the_dumps_harness_turns(tmp_path):
    from termsprawl_context import doctor
    from termsprawl_context.transcript.turns import read_turns
    from termsprawl_context.workspace import index, links

    project = tmp_path / "project"
    project.mkdir()
    links.add_link(str(project), "me", "peer")
    assert index.record_transcript_path(str(project), "peer", str(SLASH))
    p = doctor.diagnose(str(project), "me").peers[0]
    assert p.handoff_turns == len(h.read_harness_turns(str(SLASH))) == 6
    # the dump prints the command envelopes, the expansion, caveats, local output, the compaction summary
    dumped = read_turns(str(SLASH))
    harness = [
        t
        for t in dumped
        if t.role == "user" and t.text not in ("/hookify", "and one more typed prompt after the compaction")
    ]
    assert p.turns == len(dumped) and p.harness_turns == len(harness) >= 8
    text = doctor.format_doctor(doctor.diagnose(str(project), "me"))
    assert "of which harness text (not the person's or the assistant's): %d" % p.harness_turns in text
    assert "hand-off turns (--format): 6" in text


def _user(uid, parent, content, **extra):
    record = {
        "type": "user",
        "uuid": uid,
        "parentUuid": parent,
        "timestamp": "2025-01-01T00:00:0%d.000Z" % int(uid[1]),
        "message": {"role": "user", "content": content},
    }
    record.update(extra)
    return json.dumps(record) + "\n"


CAVEAT = "<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>"
LOCAL = (
    "<command-name>/hookify</command-name>\n<command-message>hookify</command-message>\n<command-args></command-args>"
)


def test_a_local_commands_plain_output_is_not_a_prompt(tmp_path):
    """Older clients wrote a local command's answer as plain text under its envelope."""
    from termsprawl_context.store import sessions as S

    lines = (
        _user("u1", None, CAVEAT, isMeta=True)
        + _user("u2", "u1", LOCAL)
        + _user("u3", "u2", "Unknown skill: hookify")
        + _user("u4", "u3", "now the real question")
    )
    folder = tmp_path / "projects" / "-p"
    folder.mkdir(parents=True)
    path = folder / "5e550001-aaaa-4bbb-8ccc-000000000001.jsonl"
    path.write_text(lines)
    assert [t.text for t in h.read_harness_turns(str(path))] == ["now the real question"]
    assert [t.text for t in read_turns_forward_oracle(str(path))] == ["now the real question"]
    info = S.scan_sessions(str(tmp_path / "projects")).sessions[0]
    assert (info.title, info.title_source) == ("now the real question", "prompt")
    # the same answer typed after the command's own output record is the person's
    path.write_text(
        _user("u1", None, LOCAL)
        + _user("u2", "u1", "<local-command-stdout>ok</local-command-stdout>")
        + _user("u3", "u2", "Unknown skill: is what I saw")
    )
    assert [t.text for t in h.read_harness_turns(str(path))] == ["Unknown skill: is what I saw"]
    # alone, the harness's text titles nothing
    path.write_text(_user("u1", None, CAVEAT, isMeta=True))
    assert S.scan_sessions(str(tmp_path / "projects")).sessions[0].title == ""


def test_a_summary_past_the_head_names_the_session_it_points_at(tmp_path):
    from termsprawl_context.harness.claude import session_scan as M
    from termsprawl_context.store import sessions as S

    folder = tmp_path / "projects" / "-p"
    folder.mkdir(parents=True)
    body = [_user("u0", None, "first prompt")]
    body += [
        json.dumps(
            {
                "type": "assistant",
                "uuid": "a%03d" % i,
                "parentUuid": "u0",
                "message": {"role": "assistant", "content": [{"type": "text", "text": "x"}]},
            }
        )
        + "\n"
        for i in range(M.HEAD_MAX_LINES + 5)
    ]
    body.append(
        json.dumps({"type": "summary", "summary": "Named late", "leafUuid": "a%03d" % (M.HEAD_MAX_LINES + 4)}) + "\n"
    )
    path = folder / "5e550001-aaaa-4bbb-8ccc-000000000002.jsonl"
    path.write_text("".join(body))
    info = S.scan_sessions(str(tmp_path / "projects")).sessions[0]
    assert (info.title, info.title_source) == ("Named late", "summary")
    assert info.summary_links == ()  # the seed's field (the head's links) is unchanged
    assert S.session_title(str(path)) == (info.title, info.title_source)


def test_tail_summary_links_on_the_corpus(corpus):
    from termsprawl_context.harness.claude import session_scan as M
    from termsprawl_context.harness.claude.session_scan import FAST_SCANNER as FAST, PLAIN_SCANNER as PLAIN

    seen = 0
    for path in corpus:
        with open_regular(str(path)) as f:
            import os

            size = os.fstat(f.fileno()).st_size
            window = M.windows.read_tail(f, size, M.TAIL_MAX_BYTES)
        links = PLAIN.tail(window, "", window.first_whole_line()).summary_links
        assert FAST.tail(window, "", window.first_whole_line()).summary_links == links, path.name
        seen += len(links)
    assert seen >= 5


def _typed_prompts(path):
    """The oracle: every prompt the person typed in a fixture, in file order (a slash command
    that reached the model as typed), from the records' own signals and texts."""
    found = []
    for e in _entries(path):
        command = slash_commands.slash_command(e)
        if command:
            found.append(command)
        elif records.speaker(e) == model.PERSON and turn_signal(e) == SIGNAL_PERSON:
            found.append("\n".join(typed_texts(e)))
    return found


def test_the_handoff_of_nine_linked_peers(run_pyz, tmp_path):
    """Nine peers linked to the lead, each one of the real client's transcripts (a copy):
    no harness text under a user heading, and every typed prompt."""
    from termsprawl_context.workspace import index, links

    sources = (_session_files() * 3)[:9]
    project = tmp_path / "project"
    project.mkdir()
    for i, source in enumerate(sources):
        copy = tmp_path / ("peer-%d.jsonl" % i)
        shutil.copyfile(str(source), str(copy))
        links.add_link(str(project), "lead", "peer-%d" % i)
        assert index.record_transcript_path(str(project), "peer-%d" % i, str(copy))
    out = run_pyz(["--cwd", project, "--self", "lead", "--format", "json", "--max-chars", "1000000"])
    assert out.returncode == 0 and out.stderr == b""
    peers = json.loads(out.stdout)["peers"]
    assert len(peers) == 9
    for peer, source in zip(sorted(peers, key=lambda p: int(p["id"].split("-")[1])), sources):
        users = [t["text"] for t in peer["turns"] if t["role"] == "user"]
        assert users == _typed_prompts(source), source.name
        for text in users:
            assert not text.lstrip().startswith(("<", "Caveat", "This session is being continued", "[Request"))
        for t in peer["turns"]:
            assert "/tmp/claude-" not in t["text"] and "<task-notification>" not in t["text"]
    markdown = run_pyz(["--cwd", project, "--self", "lead", "--max-chars", "1000000"]).stdout.decode()
    assert markdown.count("# linked context from ") == 9 and "/review parser.py" in markdown


def test_an_interactive_session_typed_prompts_command_local_command_and_interruption():
    """Typed in the terminal interface: promptSource typed / turnOrigin human; /context's
    output (written as isMeta) and the interruption marker are the harness's."""
    speakers = [records.speaker(e) for e in _entries(INTERACTIVE) if e.type == "user"]
    assert model.COMMAND in speakers and model.PERSON in speakers
    turns = h.read_harness_turns(str(INTERACTIVE))
    assert [t.text for t in turns if t.role == "user"] == [
        "/review parser.py",
        "hello typed interactively",
        "run the long sleep",
    ]
    shown = handoff_render.render([h.PeerHandoff("s", "t", str(INTERACTIVE), turns)], handoff_render.FORMAT_MARKDOWN)
    for harness_text in ("Request interrupted", "Context Usage", "Review the file", "<command-"):
        assert harness_text not in shown
    assert any("[Request interrupted by user" in t for t in _user_texts(_entries(INTERACTIVE)))
