"""``show``, ``search`` and session naming (store/catalog.py), against oracles that read
every line of every session."""

import json
import os
import shutil

import pytest

from termsprawl_context import handoff as h, handoff_render
from termsprawl_context.cli import main
from termsprawl_context.jsonl import iter_lines, open_regular, parse_object
from termsprawl_context.store import catalog as resolve, chunks, search
from termsprawl_context.store.sessions import session_title
from termsprawl_context import model
from conftest import NO_CORPUS, corpus_files
from oracles import read_turns_forward_oracle

SESSIONS = [p for p in corpus_files() if not p.name.split("__")[-1].startswith("agent-")]


def fake_id(n):
    return "%08x-0000-4000-8000-%012x" % (n, n)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """The corpus's sessions as a store, one mtime apart, oldest first in corpus order,
    plus a hand-made session holding escaped and non-ASCII text. The oracle tests need
    the corpus: without it (a user's clone) they skip, saying so."""
    if not SESSIONS:
        pytest.skip(NO_CORPUS)
    projects = tmp_path_factory.mktemp("store") / "projects"
    folder = projects / "-work-demo"
    folder.mkdir(parents=True)
    paths = []
    for i, source in enumerate(SESSIONS):
        target = folder / (fake_id(i + 1) + ".jsonl")
        shutil.copyfile(str(source), str(target))
        paths.append(target)
    tricky = folder / (fake_id(999) + ".jsonl")
    lines = [
        json.dumps({"type": "user", "uuid": "t1", "message": {"content": 'Ünïcode CAFÉ 日本語 say "hi" <tag> a/b'}}),
        json.dumps({"type": "user", "uuid": "t2", "message": {"content": "escaped \u0041SCII"}}).replace(
            "ASCII", "A\\u0053CII"
        ),
        json.dumps(
            {
                "type": "assistant",
                "uuid": "t3",
                "message": {"content": [{"type": "text", "text": "KELVIN \u212a and \u0130stanbul"}]},
            },
            ensure_ascii=False,
        ),
        json.dumps(
            {
                "type": "assistant",
                "uuid": "t4",
                "message": {
                    "content": [
                        {"type": "tool_use", "id": "x", "name": "Bash", "input": {"command": "grep NEEDLE file"}}
                    ]
                },
            }
        ),
        json.dumps(
            {
                "type": "user",
                "uuid": "t5",
                "message": {
                    "content": [{"type": "tool_result", "tool_use_id": "x", "content": "found the needle here"}]
                },
            }
        ),
        json.dumps({"type": "user", "uuid": "t6", "isSidechain": True, "message": {"content": "sidechain needle"}}),
        "not json but needle",
        json.dumps({"type": "user", "uuid": "t7", "message": {"content": "torn needle"}})[:-3],
    ]
    tricky.write_text("\n".join(lines), encoding="utf-8")
    paths.append(tricky)
    for i, path in enumerate(paths):
        os.utime(str(path), (1_700_000_000 + i, 1_700_000_000 + i))
    return projects, paths


_PARSED = {}


def every_entry(path):
    """Every line of the file parsed (cached: the files do not change)."""
    if path not in _PARSED:
        with open_regular(str(path)) as f:
            _PARSED[path] = [
                model.entry_of(o, line.number, line.offset)
                for line in iter_lines(f)
                for o in [parse_object(line.raw)]
                if o is not None
            ]
    return _PARSED[path]


def oracle_search(text, paths, kinds=search.DEFAULT_KINDS, limit=10**9, regex=False):
    """Every line of every session parsed, newest session first."""
    matcher = search.Matcher(text, regex)
    hits = []
    for path in sorted(paths, key=lambda p: -os.stat(str(p)).st_mtime):
        for entry in every_entry(str(path)):
            line = entry
            for kind, body in search.entry_texts(entry, kinds):
                found = matcher.find(body)
                if found:
                    hits.append((str(path), line.line, kind, search.snippet(*found)))
                    break
    return hits[:limit]


NEEDLES = [
    "the",
    "needle",
    "café",
    "CAFÉ",
    "日本",
    'say "hi"',
    "<tag>",
    "a/b",
    "ascii",
    "k",
    "i",
    "İ",
    "ünï",
    '"',
    "test",
    "e t",
    "TODO",
    "zzzz-not-anywhere",
]


CASES = (
    [(n, search.DEFAULT_KINDS) for n in NEEDLES]
    + [(n, search.KINDS) for n in ("needle", "ascii", '"', "k")]
    + [(n, (search.KIND_TOOL,)) for n in ("needle", "the", "日本")]
)


@pytest.mark.parametrize("needle, kinds", CASES)
def test_search_matches_the_oracle(store, needle, kinds):
    projects, paths = store
    got = [
        (h.path, h.line, h.kind, h.snippet)
        for h in search.search_store(needle, str(projects), kinds=kinds, limit=10**9)
    ]
    assert got == oracle_search(needle, paths, kinds)


def test_search_finds_escaped_and_non_ascii_spellings(store):
    projects, paths = store
    tricky = str(paths[-1])

    def found(text, kinds=search.KINDS):
        return [(h.path, h.line) for h in search.search_store(text, str(projects), kinds=kinds)]

    assert found("escaped ascii") == [(tricky, 2)]
    assert (tricky, 3) in found("kelvin k and istanbul") or (tricky, 3) in found("kelvin k")
    assert found("NEEDLE", (search.KIND_TOOL,)) == [(tricky, 4), (tricky, 5)]
    assert found("sidechain needle") == [] and found("torn needle") == []


@pytest.mark.parametrize("pattern", [r"need\w+", r"^found", r"caf[eé]", r"\d{4}-\d\d"])
def test_search_regex_matches_the_oracle(store, pattern):
    projects, paths = store
    got = [
        (h.path, h.line, h.kind, h.snippet)
        for h in search.search_store(pattern, str(projects), kinds=search.KINDS, limit=10**9, regex=True)
    ]
    assert got == oracle_search(pattern, paths, search.KINDS, regex=True)


def test_search_limit_and_newest_first(store):
    projects, paths = store
    hits = list(search.search_store("the", str(projects), limit=7))
    assert [(h.path, h.line, h.kind, h.snippet) for h in hits] == oracle_search("the", paths, limit=7)
    # Titled as `find` and `show` title it, the folder's summaries included (issue 23: search titled without them).
    assert hits[0].title == session_title(hits[0].path).text


def test_lower_to_ascii_is_complete():
    """Every character outside ASCII whose lowercase holds ASCII is named, and no
    caseless character the prefilter trusts is what another character lowercases to."""
    import sys

    found = tuple(chr(c) for c in range(0x80, sys.maxunicode + 1) if any(ord(x) < 0x80 for x in chr(c).lower()))
    assert found == search.LOWER_TO_ASCII
    images = {x for c in range(sys.maxunicode + 1) for x in chr(c).lower() if chr(c).lower() != chr(c)}
    assert not [x for x in images if search._caseless(x)], "a caseless character is another's lowercase"


def test_search_cli(store, capsys):
    projects, paths = store
    assert main(["search", "needle", "--projects-dir", str(projects), "--in", "tool", "--json"]) == 0
    rows = [json.loads(row) for row in capsys.readouterr().out.splitlines()]
    assert [(r["path"], r["line"], r["kind"]) for r in rows] == [
        (str(paths[-1]), 4, "tool"),
        (str(paths[-1]), 5, "tool"),
    ]
    assert (
        main(["search", "zzzz-not-anywhere", "--projects-dir", str(projects)]) == 0
    )  # no results: exit 0, nothing on stdout (the contract's row)
    assert capsys.readouterr() == ("", "termsprawl-context: no match for zzzz-not-anywhere\n")
    assert main(["search", "needle", "--projects-dir", str(projects), "--in", "tool", "--limit", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith(str(paths[-1]) + ":")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["search", ""], "search: TEXT must not be empty"),
        (
            ["search", "x", "--in", "humans"],
            "search: --in takes a comma-separated subset of person,assistant,tool (got 'humans')",
        ),
        (["search", "x", "--limit", "0"], "search: argument --limit: expected a positive integer, got '0'"),
        (["search", "(", "--regex"], None),
        (["show", ""], "show: SESSION must not be empty"),
        (["show", "x", "--turns", "-3"], "show: argument --turns: expected a positive integer, got '-3'"),
        (["show", "x", "--format", "yaml"], None),
        (["show", "x", "--max-chars", "ten"], "show: argument --max-chars: expected a positive integer, got 'ten'"),
    ],
)
def test_usage_errors(store, argv, message, capsys):
    projects, _ = store
    assert main(argv + ["--projects-dir", str(projects)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("termsprawl-context: ")
    if message:
        assert err == "termsprawl-context: %s\n" % message


def test_missing_projects_dir_is_exit_1(tmp_path, capsys):
    for argv in (["show", "latest"], ["search", "x"]):
        assert main(argv + ["--projects-dir", str(tmp_path / "nope")]) == 1
        assert capsys.readouterr().err == "termsprawl-context: projects directory not found: %s\n" % (tmp_path / "nope")


# --- show -------------------------------------------------------------------------------------


def expected_show(path, turns=h.DEFAULT_TURNS, max_chars=h.DEFAULT_MAX_CHARS, tools=False):
    chosen = read_turns_forward_oracle(str(path), turns, tools=tools)
    # The title rule is `sessions`' own (issue 15: one rule wherever a session is named).
    title = session_title(str(path)).text or os.path.basename(str(path))[:36]
    return handoff_render.apply_budget(
        [h.PeerHandoff(os.path.basename(str(path))[:36], title, str(path), chosen)], max_chars
    )[0]


@pytest.mark.parametrize("options", [[], ["--turns", "3", "--max-chars", "500"], ["--all", "--turns", "10"]])
def test_show_matches_the_oracle_for_every_session(store, options, capsys):
    projects, paths = store
    for path in paths:
        assert main(["show", str(path), "--format", "json"] + options) == 0
        got = json.loads(capsys.readouterr().out)
        turns = int(options[options.index("--turns") + 1]) if "--turns" in options else h.DEFAULT_TURNS
        chars = int(options[options.index("--max-chars") + 1]) if "--max-chars" in options else h.DEFAULT_MAX_CHARS
        want = handoff_render.handoff_data([expected_show(path, turns, chars, "--all" in options)])["peers"][0]
        assert got == want
        assert sum(len(t["text"]) for t in got["turns"]) <= chars


def test_show_names_a_session_by_id_prefix_path_or_latest(store, capsys):
    projects, paths = store
    newest = paths[-1]
    outputs = []
    for name in ("latest", fake_id(999), fake_id(999)[:8], str(newest)):
        assert main(["show", name, "--projects-dir", str(projects)]) == 0
        outputs.append(capsys.readouterr().out)
    assert len(set(outputs)) == 1
    assert outputs[0].startswith(handoff_render.SESSION_HEADING) and "transcript: %s\n" % newest in outputs[0]
    assert main(["show", "0000", "--projects-dir", str(projects)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        "termsprawl-context: ambiguous session ID '0000' matches %d sessions: %s, " % (len(paths), fake_id(1))
    )
    assert main(["show", "ffff", "--projects-dir", str(projects)]) == 1
    assert capsys.readouterr().err == "termsprawl-context: session not found: ffff\n"
    assert main(["show", str(projects / "nope.jsonl")]) == 1


def test_resolve_uuid_for_locate_and_assemble(store):
    projects, paths = store
    assert resolve.resolve_uuid("latest", str(projects)) == fake_id(999)
    assert resolve.resolve_uuid(fake_id(999)[:9], str(projects)) == fake_id(999)
    assert resolve.resolve_uuid("no-such", str(projects)) == "no-such"  # left for locate to refuse
    full = "12345678-1234-1234-1234-123456789abc"
    assert resolve.resolve_uuid(full, str(projects)) == full
    with pytest.raises(resolve.AmbiguousSession):
        resolve.resolve_uuid("0000", str(projects))


def test_latest_matches_the_newest_mtime(store):
    projects, paths = store
    before = os.stat(str(paths[3])).st_mtime
    os.utime(str(paths[3]), (1_800_000_000, 1_800_000_000))
    try:
        assert resolve.latest_session(str(projects)).path == str(paths[3])
    finally:
        os.utime(str(paths[3]), (before, before))
    with pytest.raises(resolve.SessionIdNotFound):
        resolve.latest_session(str(projects), project="/somewhere/else")


def test_show_artifact(run_pyz, store):
    projects, paths = store
    done = run_pyz(["show", "latest", "--projects-dir", projects, "--all"])
    assert done.returncode == 0 and done.stderr == b""
    assert b"## tool_call" in done.stdout and b"## tool_result" in done.stdout
    done = run_pyz(["search", "needle", "--projects-dir", projects, "--in", "tool"])
    assert done.returncode == 0 and done.stdout.count(b"\n") == 2


def test_session_files_walk_matches_the_store_scan(tmp_path):
    """The fast walk lists what store.sessions' walk lists: nested folders, no FIFOs, no
    agent files, no directories through symlinks, newest first."""
    projects = tmp_path / "projects"
    (projects / "a" / "deep").mkdir(parents=True)
    (projects / "b").mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / (fake_id(50) + ".jsonl")).write_text("{}\n")
    os.symlink(str(outside), str(projects / "linked"))
    for i, folder in enumerate(["a", "a/deep", "b", "b", "a"]):
        path = projects / folder / (fake_id(i + 1) + ".jsonl")
        path.write_text("{}\n")
        os.utime(str(path), (5000 - i * 7 % 3, 5000 - i * 7 % 3))
    (projects / "b" / "agent-abcdef1.jsonl").write_text("{}\n")
    os.mkfifo(str(projects / "b" / (fake_id(77) + ".jsonl")))
    (projects / "a" / (fake_id(88) + ".jsonl")).mkdir()
    expected = []
    for path in [entry.path for entry in resolve.walk(str(projects))]:
        st = os.stat(path)
        if __import__("stat").S_ISREG(st.st_mode):
            expected.append(resolve.Candidate(os.path.basename(path)[: -len(".jsonl")], path, mtime=st.st_mtime))
    expected.sort(key=lambda s: (-s.mtime, s.path))
    assert resolve.session_files(str(projects)) == expected and len(expected) == 5
    assert [s.session_id for s in resolve.session_files(str(projects), prefix=fake_id(2)[:9])] == [fake_id(2)]


@pytest.mark.parametrize("chunk", [7, 97, 4096])
def test_search_across_chunk_boundaries_matches_the_oracle(store, tmp_path, monkeypatch, chunk):
    _, every = store
    by_size = sorted(every[:-1], key=lambda p: p.stat().st_size)
    small = by_size[len(by_size) // 2 : len(by_size) // 2 + 3] + every[-1:]  # the tricky file, and a few
    projects = tmp_path / "projects"
    (projects / "-w").mkdir(parents=True)
    paths = []
    for path in small:
        copy = projects / "-w" / path.name
        shutil.copy2(str(path), str(copy))
        paths.append(copy)
    monkeypatch.setattr(search, "CHUNK_BYTES", chunk)
    for needle in ("needle", "the", "ascii", "日本"):
        got = [
            (h.path, h.line, h.kind, h.snippet)
            for h in search.search_store(needle, str(projects), kinds=search.KINDS, limit=10**9)
        ]
        assert got == oracle_search(needle, paths, search.KINDS)


def test_search_passes_over_lines_longer_than_the_bound(tmp_path, monkeypatch):
    monkeypatch.setattr(search, "CHUNK_BYTES", 16)
    monkeypatch.setattr(chunks, "MAX_LINE_BYTES", 200)
    folder = tmp_path / "projects" / "-w"
    folder.mkdir(parents=True)
    lines = [
        json.dumps({"type": "user", "uuid": "u%d" % i, "message": {"content": text}})
        for i, text in enumerate(["needle one", "needle " + "x" * 400, "needle three", "y" * 300 + " needle"])
    ]
    (folder / (fake_id(1) + ".jsonl")).write_text("\n".join(lines) + "\n")
    hits = list(search.search_store("needle", str(tmp_path / "projects")))
    assert [(h.line, h.snippet) for h in hits] == [(1, "needle one"), (3, "needle three")]


def test_show_settles_copies_of_one_id_as_find_does(tmp_path):
    """One id in two project folders: `show`'s resolver answers with the latest
    descendant (the copy holding the later timestamp), as `find` and `locate` do, even
    when the other copy's file was written more recently."""
    import os

    from termsprawl_context.store.catalog import resolve as find_resolve

    sid = "0b1e6c55-4a2e-4f7e-9d55-2f4b7f0e6a11"
    store = tmp_path / "projects"
    longer, backup = store / "-w-app", store / "projects.bak" / "-w-app"
    for folder, stamp in ((longer, "2026-03-02T00:00:00Z"), (backup, "2026-03-01T00:00:00Z")):
        folder.mkdir(parents=True)
        (folder / (sid + ".jsonl")).write_text(
            '{"type":"user","uuid":"u-%s","sessionId":"%s","timestamp":"%s","message":{"content":"hi"}}\n'
            % (stamp, sid, stamp)
        )
    os.utime(str(backup / (sid + ".jsonl")), (2_000_000_000, 2_000_000_000))  # the stale copy written last
    expected = str(longer / (sid + ".jsonl"))
    assert find_resolve(sid[:8], str(store))[:2] == (sid, expected)
    assert main(["find", sid[:8], "--projects-dir", str(store)]) == 0


@pytest.mark.parametrize("first_batch", [1, 64 << 10, 10**12])
def test_search_shared_between_processes_matches_the_oracle(store, monkeypatch, first_batch):
    """Batches searched in forked helpers (every batch above the threshold) give the
    oracle's answer in the oracle's order, limits included."""
    from termsprawl_context.store import parallel

    projects, paths = store
    shared = []

    def spy(func, items, weights, min_weight):
        shared.append(len(items))
        return parallel.map_shared(func, items, weights, min_weight, jobs=2)

    monkeypatch.setattr(search, "map_shared", spy)
    monkeypatch.setattr(search, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(search, "FIRST_BATCH_BYTES", first_batch)
    for needle, limit in (("the", 10**9), ("the", 7), ("needle", 10**9), ("ascii", 3), ("日本", 10**9)):
        got = [
            (h.path, h.line, h.kind, h.snippet)
            for h in search.search_store(needle, str(projects), kinds=search.KINDS, limit=limit)
        ]
        assert got == oracle_search(needle, paths, search.KINDS, limit=limit)
    assert any(n >= 2 for n in shared)


def _escaped(text, upper=False):
    return "".join(("\\u%04X" if upper else "\\u%04x") % ord(c) for c in text)


@pytest.mark.parametrize("chunk", [7, 64, 1 << 20])
def test_search_finds_needles_spelled_by_escapes(tmp_path, monkeypatch, chunk):
    """A needle written wholly or partly as ``\\u00XX`` escapes (either hex case, at a
    line's start or end, across block edges) is found as the oracle finds it."""
    monkeypatch.setattr(search, "CHUNK_BYTES", chunk)
    folder = tmp_path / "projects" / "-w"
    folder.mkdir(parents=True)
    bodies = [
        _escaped("zanzibar"),
        "say " + _escaped("ZANZ", upper=True) + "ibar",
        "zan" + _escaped("z") + "ibar!",
        "nothing here",
        "u00 and 007 but " + _escaped("<>") + " zan zibar",
    ]
    lines = [
        json.dumps({"type": "user", "uuid": "e%d" % i, "message": {"content": "@"}}).replace("@", body)
        for i, body in enumerate(bodies)
    ]
    path = folder / (fake_id(1) + ".jsonl")
    path.write_text("\n".join(lines) + "\n")
    got = [(h.path, h.line, h.snippet) for h in search.search_store("Zanzibar", str(tmp_path / "projects"))]
    assert got == [(p, line, snip) for p, line, _kind, snip in oracle_search("Zanzibar", [path])]
    assert [line for _p, line, _s in got] == [1, 2, 3]
