"""links list|add|remove|peers and index get|set, run from the built artifact.

Exit codes: 0 done; 2 usage (including BadNodeId and SelfLink); 1 the world (WriteFailed, no entry)."""

import json
import os

import pytest

from termsprawl_context.workspace import index, links


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "project"
    path.mkdir()
    return path


def ok(done):
    assert done.returncode == 0, done.stderr
    assert done.stderr == b"", done.stderr
    return done.stdout.decode()


def refused(done, code, message):
    assert done.returncode == code, (done.returncode, done.stderr)
    assert done.stdout == b""
    err = done.stderr.decode()
    if message.endswith("..."):  # argparse's wording of the rest varies across Python versions
        assert err.startswith("termsprawl-context: %s" % message[:-3]) and err.count("\n") == 1, err
    else:
        assert err == "termsprawl-context: %s\n" % message


# --- links ------------------------------------------------------------------------------------


def test_add_list_peers_remove(project, run_pyz):
    out = ok(run_pyz(["links", "add", "node-b", "node-a"], cwd=project))
    assert out == "linked node-b and node-a (%s)\n" % os.path.join(".termsprawl", "links", "node-a--node-b.json")
    assert links.list_links(str(project)) == [
        links.Link("node-a", "node-b", str(project / ".termsprawl" / "links" / "node-a--node-b.json"))
    ]
    # As the app does on a link, the discovery markers are planted.
    assert (project / ".termsprawl" / "AGENTS.md").is_file()
    assert (project / ".claude" / "skills" / "termsprawl-context" / "SKILL.md").is_file()
    ok(run_pyz(["links", "add", "node-a", "node-b", "--cwd", project]))  # idempotent
    ok(run_pyz(["links", "add", "node-a", "node-c", "--cwd", project]))
    assert ok(run_pyz(["links", "list", "--cwd", project])) == "node-a -- node-b\nnode-a -- node-c\n"
    assert ok(run_pyz(["links", "peers", "node-a", "--cwd", project])) == "node-b\nnode-c\n"
    assert ok(run_pyz(["links", "peers", "node-z", "--cwd", project])) == ""
    assert ok(run_pyz(["links", "remove", "node-c", "node-a", "--cwd", project])) == (
        "removed the link between node-c and node-a\n"
    )
    assert ok(run_pyz(["links", "remove", "node-c", "node-a", "--cwd", project])) == (
        "no link file %s (nothing to remove)\n" % os.path.join(".termsprawl", "links", "node-a--node-c.json")
    )
    assert links.peers_of(str(project), "node-a") == ["node-b"]


def test_json_outputs_follow_the_contract(project, run_pyz):
    """One object on one line for a single answer (add, remove); JSON Lines for a list
    (list, peers), an ignored link file named on stderr as without --json."""
    added = ok(run_pyz(["links", "add", "b", "a", "--cwd", project, "--json"]))
    path = str(project / ".termsprawl" / "links" / "a--b.json")
    assert added.count("\n") == 1 and json.loads(added) == {"linked": ["a", "b"], "path": path}
    (project / ".termsprawl" / "links" / "junk.json").write_text("not json")
    done = run_pyz(["links", "list", "--cwd", project, "--json"])
    assert [json.loads(line) for line in done.stdout.splitlines()] == [{"a": "a", "b": "b", "path": path}]
    assert done.stderr == b"termsprawl-context: links list: ignored (not valid link files): junk.json\n"
    peers = ok(run_pyz(["links", "peers", "a", "--cwd", project, "--json"]))
    assert [json.loads(line) for line in peers.splitlines()] == [{"node": "a", "peer": "b"}]
    assert json.loads(ok(run_pyz(["links", "remove", "a", "b", "--cwd", project, "--json"]))) == {
        "removed": True,
        "a": "a",
        "b": "b",
        "still_linked": False,
    }


def test_list_names_ignored_files_on_stderr(project, run_pyz):
    links.add_link(str(project), "a", "b")
    (project / ".termsprawl" / "links" / "zz.json").write_text('{"version": 2, "a": "x", "b": "y"}')
    done = run_pyz(["links", "list", "--cwd", project])
    assert done.returncode == 0 and done.stdout == b"a -- b\n"
    assert done.stderr == b"termsprawl-context: links list: ignored (not valid link files): zz.json\n"


def test_list_of_a_project_without_state_is_empty(project, run_pyz):
    assert ok(run_pyz(["links", "list", "--cwd", project])) == ""
    assert ok(run_pyz(["links", "list", "--cwd", project, "--json"])) == ""  # no results: nothing


BAD_ID = 'invalid node id: "%s" (a node id matches [A-Za-z0-9][A-Za-z0-9_-]{0,127})'


@pytest.mark.parametrize(
    "argv, code, message",
    [
        (["links", "add", "a", "../etc"], 2, "links add: " + BAD_ID % "../etc"),
        (["links", "add", "bad id", "a"], 2, "links add: " + BAD_ID % "bad id"),
        (["links", "add", "a", "a"], 2, "links add: cannot link a node to itself"),
        (["links", "remove", "a", "_x"], 2, "links remove: " + BAD_ID % "_x"),
        (["links", "remove", "a", "a"], 2, "links remove: cannot link a node to itself"),
        (["links", "peers", ".hidden"], 2, "links peers: " + BAD_ID % ".hidden"),
        (["links"], 2, "links: the following arguments are required: list|add|remove|peers"),
        (["links", "add", "a"], 2, "links add: the following arguments are required: PEER"),
        (["links", "bogus"], 2, "links: argument list|add|remove|peers: invalid choice: 'bogus' (choose from ..."),
    ],
)
def test_links_refusals_write_nothing(project, run_pyz, argv, code, message):
    done = run_pyz(argv + ["--cwd", project] if len(argv) > 2 else argv, cwd=project)
    refused(done, code, message)
    assert os.listdir(str(project)) == []


def test_add_write_failure_is_io_exit_1(project, run_pyz):
    (project / ".termsprawl").mkdir()
    (project / ".termsprawl" / "links").write_text("a file where the folder goes")
    done = run_pyz(["links", "add", "a", "b", "--cwd", project])
    assert done.returncode == 1 and done.stdout == b""
    err = done.stderr.decode()
    assert err.startswith("termsprawl-context: links add: cannot write ") and err.count("\n") == 1


def test_remove_warns_when_another_file_still_links(project, run_pyz):
    links.add_link(str(project), "a", "b")
    (project / ".termsprawl" / "links" / "hand-made.json").write_text('{"version": 1, "a": "b", "b": "a"}')
    done = run_pyz(["links", "remove", "a", "b", "--cwd", project])
    assert done.returncode == 0 and done.stdout == b"removed the link between a and b\n"
    assert b"still links a and b" in done.stderr


# --- index ------------------------------------------------------------------------------------


def test_index_set_get_round_trip(project, run_pyz, tmp_path):
    transcript = tmp_path / "s.jsonl"
    transcript.write_text("{}\n")
    assert ok(run_pyz(["index", "set", "node-a", transcript, "--cwd", project])) == ""
    assert index.read_transcript_path(str(project), "node-a") == str(transcript)
    assert ok(run_pyz(["index", "get", "node-a", "--cwd", project])) == str(transcript) + "\n"


def test_index_set_stores_relative_paths_as_given(project, run_pyz):
    (project / "logs").mkdir()
    (project / "logs" / "s.jsonl").write_text("{}\n")
    ok(run_pyz(["index", "set", "n", "logs/s.jsonl"], cwd=project))
    assert ok(run_pyz(["index", "get", "n"], cwd=project)) == "logs/s.jsonl\n"
    assert index.resolve_transcript_path(str(project), "logs/s.jsonl") == str(project / "logs" / "s.jsonl")


def test_index_set_notes_a_path_that_is_not_there_yet(project, run_pyz):
    done = run_pyz(["index", "set", "n", "/nowhere/s.jsonl", "--cwd", project])
    assert done.returncode == 0 and done.stdout == b""
    assert (
        done.stderr == b"termsprawl-context: index set: note: /nowhere/s.jsonl is not a file (yet); recorded anyway\n"
    )
    assert index.read_transcript_path(str(project), "n") == "/nowhere/s.jsonl"


@pytest.mark.parametrize(
    "argv, code, message",
    [
        (["index", "get", "nobody"], 1, "index get: no transcript path recorded for nobody in {cwd}"),
        (["index", "get", "../x"], 2, "index get: " + BAD_ID % "../x"),
        (["index", "set", "../x", "/p.jsonl"], 2, "index set: " + BAD_ID % "../x"),
        (["index", "set", "n", ""], 2, "index set: PATH must not be empty"),
        (["index", "set", "n"], 2, "index set: the following arguments are required: PATH"),
        (["index"], 2, "index: the following arguments are required: get|set"),
    ],
)
def test_index_refusals(project, run_pyz, argv, code, message):
    done = run_pyz(argv + ["--cwd", project] if len(argv) > 1 else argv)
    refused(done, code, message.replace("{cwd}", str(project)))
    assert os.listdir(str(project)) == []


def test_index_set_write_failure_exit_1(project, run_pyz):
    (project / ".termsprawl").write_text("a file where the folder goes")
    done = run_pyz(["index", "set", "n", "/p.jsonl", "--cwd", project])
    refused(
        done, 1, "index set: cannot write %s under %s" % (os.path.join(".termsprawl", "transcripts", "n.json"), project)
    )


def test_help_exits_0(run_pyz):
    for argv in (["links", "--help"], ["links", "add", "--help"], ["index", "set", "--help"]):
        done = run_pyz(argv)
        assert done.returncode == 0 and done.stdout.startswith(b"usage: termsprawl-context ") and done.stderr == b""
    words = run_pyz(["index", "set", "--help"]).stdout.decode().split()
    assert "relative PATH is taken from the project directory" in " ".join(words)


# --- one project, found from anywhere inside it -------------------------------------------------


def test_commands_in_a_subdirectory_use_the_project(project, run_pyz):
    (project / ".termsprawl").mkdir()
    sub = project / "src" / "lib"
    sub.mkdir(parents=True)
    assert run_pyz(["links", "add", "alice", "bob"], cwd=sub).returncode == 0
    assert (project / ".termsprawl" / "links" / "alice--bob.json").is_file()
    assert run_pyz(["links", "peers", "alice"], cwd=sub).stdout == b"bob\n"
    assert run_pyz(["index", "set", "alice", "/x/a.jsonl"], cwd=sub).returncode == 0
    assert run_pyz(["index", "get", "alice"], cwd=sub).stdout == b"/x/a.jsonl\n"
    doctor = run_pyz(["doctor", "--self", "alice"], cwd=sub)
    assert doctor.stdout.decode().startswith("project: %s\n" % project)
    assert sorted(os.listdir(str(project / "src"))) == ["lib"] and os.listdir(str(sub)) == []


@pytest.mark.parametrize("argv", [["links", "add", "alice", "bob"], ["index", "set", "alice", "/x/a.jsonl"]])
def test_writing_into_a_directory_inside_a_project_is_refused(project, run_pyz, argv):
    (project / ".termsprawl").mkdir()
    sub = project / "src"
    sub.mkdir()
    done = run_pyz(argv + ["--cwd", sub])
    command = " ".join(argv[:2])
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode() == (
        "termsprawl-context: %s: %s lies inside the project %s (it has .termsprawl/); use --cwd %s, or omit --cwd "
        "to use it from anywhere inside\n" % (command, sub, project, project)
    )
    assert os.listdir(str(sub)) == []


def test_outside_any_project_the_working_directory_is_used(project, run_pyz):
    assert run_pyz(["links", "add", "alice", "bob"], cwd=project).returncode == 0
    assert (project / ".termsprawl" / "links" / "alice--bob.json").is_file()


def test_doctor_empty_variable_is_its_own_error(project, run_pyz):
    done = run_pyz(["doctor"], cwd=project, env={"TERMSPRAWL_NODE_ID": ""})
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr == (
        b"termsprawl-context: doctor: $TERMSPRAWL_NODE_ID is set but empty; give --self NODE or "
        b"set it to this agent's node id\n"
    )
