"""Session discovery: the seed's extraction, scan and find tables; the bounded head and
tail reads; titles; unreadable directories,
FIFOs and directories that look like transcripts; the real corpus."""

import io
import json
import os

import pytest

from termsprawl_context.jsonl import iter_lines, open_regular, parse_object
from termsprawl_context.harness.claude.facts import encode_project_dir
from termsprawl_context.harness.claude import session_scan as M
from termsprawl_context.store import catalog as C
from termsprawl_context.harness.claude import session_scan
from termsprawl_context.store import sessions as S
from termsprawl_context.transcript.titles import is_harness_title
from termsprawl_context.model import SessionInfo, SummaryLink
from termsprawl_context.harness.claude.session_scan import (
    FIRST_USER_MESSAGE_MAX_BYTES,
    HEAD_MAX_BYTES,
    HEAD_MAX_LINES,
    MAX_BYTES_PER_SESSION,
    TAIL_MAX_BYTES,
    session_metadata,
)
from termsprawl_context.harness.claude.session_scan import session_from_path
from termsprawl_context.store import catalog
from termsprawl_context.store.catalog import AmbiguousSession, SessionIdNotFound
from termsprawl_context.store.sessions import describe_resolved, scan_sessions
from oracles import ExtractionResult, extract_metadata_from_lines, first_text, tail_lines_oracle
from scanner_fixtures import both_scanners  # noqa: F401 (a fixture, used by name)

# The whole module runs under both scanners: the fast one and the plain one.
pytestmark = pytest.mark.usefixtures("both_scanners")


def scan_all_sessions(projects_dir, project=None, stderr=None):
    """What ``sessions`` lists (cli/commands/): ``scan_sessions``, with the folders
    it could not read reported once on ``stderr``."""
    result = scan_sessions(projects_dir, project)
    catalog.report_skipped(result.skipped, "scan", stderr)
    return result.sessions


def find_session(partial, projects_dir, stderr=None):
    """What ``find`` answers (cli/commands/): the session ``catalog.resolve`` finds, described."""
    return describe_resolved(catalog.resolve(partial, projects_dir, stderr=stderr), projects_dir)[0]


def extract_session_metadata(path):
    """The seed's ExtractSessionMetadata: the head's summary, first message and summary
    links (``session_metadata``'s), empty when the file cannot be opened as a regular one."""
    meta = session_metadata(path)
    return ExtractionResult(meta.summary, meta.first_user_message, meta.summary_links)


ID1 = "12345678-1234-1234-1234-123456789abc"
ID2 = "abcdef01-2345-6789-abcd-ef0123456789"
ID3 = "fedcba98-7654-3210-fedc-ba9876543210"


def dumps(entries):
    return "".join((e if isinstance(e, str) else json.dumps(e)) + "\n" for e in entries)


def write(path, entries, mtime=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(entries), encoding="utf-8")
    if mtime is not None:
        os.utime(str(path), (mtime, mtime))
    return path


def user(text, **extra):
    entry = {"type": "user", "message": {"role": "user", "content": text}}
    entry.update(extra)
    return entry


def assistant(text, **extra):
    entry = {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}}
    entry.update(extra)
    return entry


def summary(text, leaf=None):
    entry = {"type": "summary", "summary": text}
    if leaf is not None:
        entry["leafUuid"] = leaf
    return entry


IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"}}


# --- the seed's TestExtractSessionMetadata table (file-based) -------------------------

EXTRACT_CASES = [
    ("empty file", [], "", ""),
    ("summary only", [summary("Session summary")], "Session summary", ""),
    ("summary and user", [summary("Fix the bug"), user("Please fix it")], "Fix the bug", "Please fix it"),
    (
        "user, assistant, summary",
        [user("Hello there"), assistant("Hi"), summary("Greeting")],
        "Greeting",
        "Hello there",
    ),
    ("150 characters not truncated", [user("x" * 150)], "", "x" * 150),
    ("tags stripped", [user("Fix <code>auth</code> bug")], "", "Fix auth bug"),
    ("entities decoded", [user("Fix &lt;div&gt; rendering")], "", "Fix <div> rendering"),
    ("newlines collapsed", [user("Line one\nLine two\nLine three")], "", "Line one Line two Line three"),
    ("assistant only", [assistant("Only me")], "", ""),
    ("multimodal text block", [user([{"type": "text", "text": "Describe this"}])], "", "Describe this"),
    ("image then text", [user([IMAGE, {"type": "text", "text": "What is this?"}])], "", "What is this?"),
    ("image only", [user([IMAGE])], "", ""),
    ("image-only first, text second", [user([IMAGE]), user("Second message")], "", "Second message"),
    (
        "three local summaries",
        [summary("First summary"), summary("Second summary"), summary("Third summary")],
        "Third summary",
        "",
    ),
    ("html in summary", [summary("<b>Bold</b> &amp; done")], "Bold & done", ""),
    ("all-tag text leaves it unset", [user("<br/>"), user("real")], "", "real"),
    ("a string content is taken as is", [user("<command-name>/clear</command-name>")], "", "/clear"),
]


@pytest.mark.parametrize("name, entries, want_summary, want_first", EXTRACT_CASES, ids=[c[0] for c in EXTRACT_CASES])
def test_extract_session_metadata(tmp_path, name, entries, want_summary, want_first):
    path = write(tmp_path / (ID1 + ".jsonl"), entries)
    got = extract_session_metadata(str(path))
    assert got.summary == want_summary
    assert got.first_user_message == want_first
    # the in-memory extraction agrees with the file-based one
    lines = dumps(entries).splitlines()
    assert extract_metadata_from_lines(lines) == got


def test_first_user_message_truncated_to_4096_bytes(tmp_path):
    path = write(tmp_path / (ID1 + ".jsonl"), [user("a" * 5000)])
    got = extract_session_metadata(str(path)).first_user_message
    assert FIRST_USER_MESSAGE_MAX_BYTES == 4096
    assert len(got) == 4096
    assert got.endswith("...")


def test_missing_file_gives_empty_result(tmp_path):
    assert extract_session_metadata(str(tmp_path / "nope.jsonl")) == ExtractionResult()
    assert session_metadata(str(tmp_path / "nope.jsonl")) == SessionInfo()


# --- the seed's TestExtractMetadataFromLines table -------------------------------------


def test_lines_empty():
    assert extract_metadata_from_lines([]) == ExtractionResult("", "", ())


def test_lines_leaf_summaries_become_links_in_order():
    lines = dumps([summary("Prev A", "leaf-a"), summary("Prev <i>B</i>", "leaf-b"), user("go")]).splitlines()
    got = extract_metadata_from_lines(lines)
    assert got.summary == ""
    assert got.summary_links == (SummaryLink("Prev A", "leaf-a"), SummaryLink("Prev B", "leaf-b"))
    assert got.first_user_message == "go"


def test_lines_local_and_linked():
    got = extract_metadata_from_lines(dumps([summary("Linked", "leaf-1"), summary("Local")]).splitlines())
    assert got.summary == "Local"
    assert got.summary_links == (SummaryLink("Linked", "leaf-1"),)


def test_lines_empty_summary_ignored():
    got = extract_metadata_from_lines(
        dumps([summary("Kept"), summary(""), summary("", "leaf"), {"type": "summary"}]).splitlines()
    )
    assert got == ExtractionResult("Kept", "", ())


def test_lines_invalid_json_and_blank_lines_skipped():
    lines = ["not json", "", "   ", "{broken", "[1, 2]", json.dumps(user("after junk")), json.dumps(summary("S"))]
    assert extract_metadata_from_lines(lines) == ExtractionResult("S", "after junk", ())
    assert extract_metadata_from_lines([ln.encode() for ln in lines]) == ExtractionResult("S", "after junk", ())


def test_lines_wrong_types_are_not_errors():
    lines = [
        json.dumps({"type": "summary", "summary": 5, "leafUuid": "x"}),
        json.dumps({"type": "summary", "summary": "S", "leafUuid": 7}),  # a non-string leaf: local
        json.dumps({"type": 3}),
        json.dumps({"type": "user", "message": None}),
        json.dumps(user("ok")),
    ]
    assert extract_metadata_from_lines(lines) == ExtractionResult("S", "ok", ())


# --- the head bound: the seed's first 50 lines, within HEAD_MAX_BYTES ----------------


def test_only_the_first_50_lines_are_read(tmp_path):
    filler = [assistant("x") for _ in range(HEAD_MAX_LINES)]
    path = write(tmp_path / (ID1 + ".jsonl"), filler + [user("too late"), summary("late summary")])
    got = extract_session_metadata(str(path))
    assert got == ExtractionResult("", "", ())
    path = write(tmp_path / (ID1 + ".jsonl"), filler[:-1] + [user("just in time")])
    assert extract_session_metadata(str(path)).first_user_message == "just in time"


def test_torn_last_line_counts_at_end_of_file(tmp_path):
    path = tmp_path / (ID1 + ".jsonl")
    path.write_bytes(json.dumps(user("no newline")).encode())
    assert extract_session_metadata(str(path)).first_user_message == "no newline"


class CountingFile:
    """Wraps a binary file; records every read size asked for and every byte returned."""

    def __init__(self, f):
        self._f = f
        self.requested = 0
        self.returned = 0

    def read(self, size=-1):
        assert size is not None and size >= 0, "an unbounded read"
        self.requested += size
        data = self._f.read(size)
        self.returned += len(data)
        return data

    def readinto(self, view):
        self.requested += len(view)
        got = self._f.readinto(view) or 0
        self.returned += got
        return got

    def seek(self, pos, whence=0):
        return self._f.seek(pos, whence)

    def tell(self):
        return self._f.tell()

    def fileno(self):
        return self._f.fileno()


def _metadata_counting(path):
    with open_regular(str(path)) as f:
        counter = CountingFile(f)
        meta = M.read_session_metadata(counter, os.fstat(f.fileno()).st_size, path.stem)
    return meta, counter


def test_a_20mb_first_line_is_not_read_whole(tmp_path):
    path = tmp_path / (ID1 + ".jsonl")
    giant = json.dumps(user("y" * (20 << 20)))
    path.write_text(
        giant + "\n" + json.dumps(user("second")) + "\n" + json.dumps(assistant("end", timestamp="T9")) + "\n"
    )
    meta, counter = _metadata_counting(path)
    assert counter.requested <= MAX_BYTES_PER_SESSION
    # the line longer than the bound is skipped, like the seed's scanner stops at it
    assert meta.first_user_message == ""
    assert meta.last_timestamp == "T9"  # the tail still reads


def test_a_giant_line_after_the_first_message(tmp_path):
    path = tmp_path / (ID1 + ".jsonl")
    path.write_text(
        json.dumps(user("first", cwd="/w", timestamp="T1")) + "\n" + json.dumps(assistant("z" * (3 << 20))) + "\n"
    )
    meta, counter = _metadata_counting(path)
    assert counter.requested <= MAX_BYTES_PER_SESSION
    assert (meta.first_user_message, meta.cwd, meta.first_timestamp) == ("first", "/w", "T1")
    # the tail window holds no whole line: the last timestamp falls back to the head
    assert meta.last_timestamp == "T1"


def write_sparse(path, head_entries, tail_entries, size=None):
    """A realistic head, a hole of ``size`` bytes in all, a realistic tail: st_size is
    large, disk use small. The tail's leading newline ends the hole's NUL "line"."""
    head = dumps(head_entries).encode()
    tail = ("\n" + dumps(tail_entries)).encode()
    with open(str(path), "wb") as f:
        f.write(head)
        if size is not None:
            f.truncate(size - len(tail))
            f.seek(0, 2)
        f.write(tail)
    return path


@pytest.mark.parametrize("size", [None, TAIL_MAX_BYTES, HEAD_MAX_BYTES + 7, 50 << 20])
def test_reader_never_requests_more_than_the_bound(tmp_path, size):
    path = write_sparse(
        tmp_path / (ID1 + ".jsonl"),
        [summary("S", "leaf"), user("hello", cwd="/w", timestamp="T1")] + [assistant("a" * 200)] * 60,
        [assistant("b", timestamp="T2"), {"type": "ai-title", "aiTitle": "Tail title"}],
        size,
    )
    meta, counter = _metadata_counting(path)
    assert counter.requested <= MAX_BYTES_PER_SESSION
    assert counter.returned <= MAX_BYTES_PER_SESSION
    assert (meta.first_user_message, meta.cwd, meta.first_timestamp) == ("hello", "/w", "T1")
    assert (meta.title, meta.last_timestamp) == ("Tail title", "T2")
    assert meta.summary_links == (SummaryLink("S", "leaf"),)


def _plain_head_lines(path):
    """The plain algorithm's head: the first 50 lines, read with the forward reader."""
    lines = []
    with open_regular(str(path)) as f:
        for line in iter_lines(f):
            if line.number > HEAD_MAX_LINES:
                break
            lines.append(line.raw)
    return lines


FAST, PLAIN = session_scan.FAST_SCANNER, session_scan.PLAIN_SCANNER


def test_bounded_reads_match_the_seed_on_the_corpus(corpus):
    """The bounded head read returns what the seed's extraction over the first 50 lines
    returns, the tail window holds the file's last whole lines, and the fast scanners
    answer what the plain ones do, on every real transcript."""
    compared = 0
    for path in corpus:
        plain = _plain_head_lines(path)
        meta = session_metadata(str(path), path.stem)
        if sum(len(ln) + 1 for ln in plain) <= HEAD_MAX_BYTES:
            expected = extract_metadata_from_lines(plain)
            assert (meta.summary, meta.first_user_message, meta.summary_links) == tuple(expected), path.name
            compared += 1
        with open_regular(str(path)) as f:
            size = os.fstat(f.fileno()).st_size
            window = M.read_head(f, size)
            tail_lines = list(tail_lines_oracle(f, size))
            tail_window = M.windows.read_tail(f, size, M.TAIL_MAX_BYTES)
        assert list(tail_window.lines_last_first()) == tail_lines
        assert FAST.head(window, path.stem) == PLAIN.head(window, path.stem), path.name
        first = tail_window.first_whole_line()
        assert FAST.tail(tail_window, path.stem, first) == PLAIN.tail(tail_window, path.stem, first), path.name
        assert FAST.tail_uuids(tail_window) == PLAIN.tail_uuids(tail_window), path.name
    assert compared >= 40


def window_of(lines):
    data = b"".join(line + b"\n" for line in lines)
    return M.read_head(io.BytesIO(data), len(data))


def tail_window_of(lines, junk=b""):
    """A tail window over ``lines``; with ``junk``, the window starts inside a line."""
    data = junk + b"".join(line + b"\n" for line in lines)
    return M.TailWindow(data, bool(junk))


ESCAPED_LINES = [
    b'{"type":"summary","summary":"plain summary"}',
    b'{"type":"\\u0075ser","message":{"content":"escaped user"},"\\u0063wd":"/e","timestamp":"T0"}',
    b'{"type":"summ\\u0061ry","summary":"escaped summary"}',
    b'{"type":"custom\\u002dtitle","customTitle":"escaped title"}',
    b'{"type":"user","message":{"content":"ansi \\u001b[31m only"},"cwd":"/late"}',
]


def test_escaped_keys_and_values_count():
    """A JSON string may spell any letter as a \\u escape: such lines count as written
    (the fast scanners parse every line holding such an escape)."""
    head = session_scan.scanner.head(window_of(ESCAPED_LINES), "")
    assert (head.first_user_message, head.summary, head.custom_title, head.cwd, head.first_timestamp) == (
        "escaped user",
        "escaped summary",
        "escaped title",
        "/e",
        "T0",
    )
    tail = session_scan.scanner.tail(tail_window_of(ESCAPED_LINES), "", None)
    assert (tail.custom_title, tail.last_timestamp) == ("escaped title", "T0")
    # an escaped "timestamp" key with no title anywhere
    lines = [b'{"timestamp":"T1"}', b'{"time\\u0073tamp":"T2"}', b'{"type":"x"}']
    assert session_scan.scanner.tail(tail_window_of(lines), "", None).last_timestamp == "T2"


def test_a_cut_tail_window_skips_its_first_line():
    """The line the tail window starts inside is not read: the facts are those of the
    window's whole lines."""
    lines = [json.dumps(user("u", timestamp="T1")).encode(), b'{"type":"custom-title","customTitle":"C"}']
    junk = b'"timestamp":"partial", "type":"ai-title", "aiTitle":"junk"}\n'
    whole = session_scan.scanner.tail(tail_window_of(lines), "", None)
    assert session_scan.scanner.tail(tail_window_of(lines, junk), "", None) == whole
    assert (whole.custom_title, whole.ai_title, whole.last_timestamp) == ("C", "", "T1")


def test_fast_scans_match_plain_on_shuffled_synthetic_lines():
    """Random heads and tails mixing every kind of line the facts come from, junk
    included, with and without ASCII-spelling escapes (which send both fast paths to
    the plain algorithm for the lines concerned)."""
    import random

    rng = random.Random(7)
    plain_pool = (
        [
            json.dumps(e).encode()
            for e in [
                user("first", cwd="", timestamp=""),
                user("second", cwd="/a", gitBranch="b1", timestamp="T1"),
                user("ansi \x1b[31m red", timestamp="T-ansi"),
                user("<command-name>/x</command-name>"),
                user([IMAGE]),
                user("meta", isMeta=True),
                assistant("a", cwd="/z", timestamp="T2", gitBranch="b2"),
                summary("local"),
                summary("linked", "leaf"),
                summary(""),
                {"type": "custom-title", "customTitle": "C1", "sessionId": ID1},
                {"type": "custom-title", "customTitle": "C2", "sessionId": ID2},
                {"type": "custom-title", "customTitle": "C3"},
                {"type": "ai-title", "aiTitle": "A1"},
                {"type": "ai-title", "aiTitle": "A2", "sessionId": ID1},
                {
                    "type": "progress",
                    "data": {"type": "user", "timestamp": "nested"},
                    "note": '"user" "summary" -title"',
                },
                {"summary": "not a summary line", "type": "assistant"},
                {"type": "file-history-snapshot", "snapshot": {"timestamp": "T-snap"}},
            ]
        ]
        + [b"not json", b"", b'{"type": "user"', b"[1]", b'{"type": "custom-title", "customTitle": 5}']
        + [
            # the kind search's edges: JSON's whitespace around the colon, a repeated key
            # (the last wins), a kind nested below the top level, keys in any order
            b'{"type" :\t"summary", "summary": "spaced"}',
            b'{"type":"summary","type":"user","summary":"shadowed"}',
            b'{"type":"user","type":"summary","summary":"second key wins"}',
            b'{"type":"user","x":{"type":"summary","summary":"nested"},"message":{"content":"n"}}',
            b'{"customTitle":"K","type":"custom-title"}',
            b'{"type":"custom-title","title":"no title key"}',
            b'{"aiTitle" : "spaced ai","type" : "ai-title"}',
        ]
    )
    for pool in (plain_pool, plain_pool + ESCAPED_LINES):
        for _ in range(120):
            lines = [rng.choice(pool) for _ in range(rng.randint(0, 60))]
            window = window_of(lines)
            for session_id in ("", ID1):
                assert FAST.head(window, session_id) == PLAIN.head(window, session_id)
                for junk in (b"", b'"timestamp":"partial", "type":"custom-title"}\n'):
                    tail = tail_window_of(lines, junk)
                    first = tail.first_whole_line()
                    plain_tail = PLAIN.tail(tail, session_id, first)
                    for census in (None, FAST.census(tail), True):  # True: the fast scanner parses every line
                        assert FAST.tail(tail, session_id, first, census) == plain_tail
                        assert FAST.tail_uuids(tail, census) == PLAIN.tail_uuids(tail)
                    assert FAST.tail(tail, session_id, None) == PLAIN.tail(tail, session_id, None)
                    assert FAST.tail_uuids(tail) == PLAIN.tail_uuids(tail)


# --- titles, cwd, branch, timestamps ---------------------------------------------------


def meta_of(tmp_path, entries, session_id=ID1):
    path = write(tmp_path / (session_id + ".jsonl"), entries)
    return session_metadata(str(path), session_id)


def test_custom_title_beats_ai_title_and_the_last_wins(tmp_path):
    m = meta_of(
        tmp_path,
        [
            user("hi"),
            {"type": "custom-title", "customTitle": "Old name", "sessionId": ID1},
            {"type": "custom-title", "customTitle": "New  name\n", "sessionId": ID1},
            {"type": "ai-title", "aiTitle": "AI name", "sessionId": ID1},
        ],
    )
    assert (m.title, m.title_source) == ("New name", "custom-title")
    m = meta_of(
        tmp_path, [user("hi"), {"type": "ai-title", "aiTitle": "First"}, {"type": "ai-title", "aiTitle": "Second"}]
    )
    assert (m.title, m.title_source) == ("Second", "ai-title")


def test_title_entries_naming_another_session_are_ignored(tmp_path):
    m = meta_of(
        tmp_path,
        [
            user("my prompt"),
            {"type": "custom-title", "customTitle": "Mine", "sessionId": ID1},
            {"type": "custom-title", "customTitle": "Someone else's", "sessionId": ID2},
        ],
    )
    assert m.title == "Mine"


def test_title_found_in_the_head_of_a_large_file(tmp_path):
    path = write_sparse(
        tmp_path / (ID1 + ".jsonl"),
        [user("prompt"), {"type": "custom-title", "customTitle": "Named early"}],
        [assistant("last", timestamp="T5")],
        10 << 20,
    )
    m = session_metadata(str(path), ID1)
    assert (m.title, m.title_source, m.last_timestamp) == ("Named early", "custom-title", "T5")


def test_title_outside_both_windows_is_not_seen(tmp_path):
    """The documented bound: a title in the middle of a large file is not read."""
    path = tmp_path / (ID1 + ".jsonl")
    with open(str(path), "wb") as f:
        f.write(dumps([user("the prompt")] + [assistant("x" * 100)] * 60).encode())
        f.write(dumps([{"type": "custom-title", "customTitle": "Hidden"}]).encode())
        f.write(dumps([assistant("y" * 1000)] * (TAIL_MAX_BYTES // 1000 + 5)).encode())
    m = session_metadata(str(path), ID1)
    assert (m.title, m.title_source) == ("the prompt", "prompt")


def test_title_falls_back_to_summary_then_prompt_then_first_message(tmp_path):
    m = meta_of(tmp_path, [summary("Local summary"), user("prompt")])
    assert (m.title, m.title_source) == ("Local summary", "summary")
    m = meta_of(tmp_path, [summary("Linked only", "leaf"), user("prompt")])
    assert (m.title, m.title_source) == ("prompt", "prompt")
    caveat = "Caveat: The messages below were generated by the user while running local commands."
    m = meta_of(
        tmp_path,
        [
            user(caveat, isMeta=True),
            user("<command-name>/model</command-name>\n<command-message>model</command-message>"),
            user("[Request interrupted by user]"),
            user("This session is being continued", isCompactSummary=True),
            user([{"type": "text", "text": "Real <b>question</b>"}]),
        ],
    )
    assert m.first_user_message == caveat  # the seed's rule: no isMeta filtering
    assert (m.title, m.title_source) == ("Real question", "prompt")
    m = meta_of(tmp_path, [user(caveat, isMeta=True)])
    assert (m.title, m.title_source) == ("", "")  # harness text never titles a session (issue 21)
    assert m.first_user_message == caveat
    m = meta_of(tmp_path, [assistant("nobody asked")])
    assert (m.title, m.title_source) == ("", "")


def test_cwd_branch_and_timestamps(tmp_path):
    m = meta_of(
        tmp_path,
        [
            summary("S", "leaf"),
            {"type": "file-history-snapshot", "messageId": "m", "snapshot": {"timestamp": "T-snap"}},
            user("go", cwd="/work/a", gitBranch="main", timestamp="2026-01-01T00:00:00.000Z"),
            assistant("ok", cwd="/work/b", gitBranch="feature", timestamp="2026-01-01T00:01:00.000Z"),
            {"type": "last-prompt", "lastPrompt": "go"},
        ],
    )
    assert (m.cwd, m.git_branch) == ("/work/a", "main")
    assert (m.first_timestamp, m.last_timestamp) == ("2026-01-01T00:00:00.000Z", "2026-01-01T00:01:00.000Z")
    m = meta_of(tmp_path, [user("go", cwd="/w", gitBranch=""), assistant("x", gitBranch="later")])
    assert (m.cwd, m.git_branch, m.first_timestamp, m.last_timestamp) == ("/w", "", "", "")


def test_corpus_sessions_get_a_title_or_first_message(corpus):
    """Every real session file with a user line holding text gets a non-empty title or
    first user message."""
    checked = 0
    for path in corpus:
        if path.name.startswith("agent-") or "__agent-" in path.name:
            continue
        has_text = False
        with open_regular(str(path)) as f:
            for line in iter_lines(f):
                entry = parse_object(line.raw)
                if entry and entry.get("type") == "user" and first_text(entry):
                    has_text = True
                    break
        meta = session_metadata(str(path), path.stem)
        if has_text:
            assert meta.title or meta.first_user_message, path.name
            # Untitled only when all it has is the harness's text (issue 21).
            assert meta.title_source or is_harness_title(meta.first_user_message), path.name
            checked += 1
    assert checked >= 30


# --- parseSessionFromPath ---------------------------------------------------------------


def test_session_from_path_table(tmp_path):
    projects = tmp_path / "projects"
    folder = projects / "-home-me-proj"
    session = write(folder / (ID1 + ".jsonl"), [user("hi")])
    agent = write(folder / "agent-abcd1234.jsonl", [user("hi")])
    readme = folder / "readme.txt"
    readme.write_text("x")
    short = write(folder / "short-id.jsonl", [user("hi")])
    directory = folder / (ID2 + ".jsonl")
    directory.mkdir()
    info = session_from_path(str(session), str(projects))
    assert info.session_id == ID1
    assert info.transcript_path == str(session)
    assert info.project_path == "-home-me-proj"
    assert info.size == session.stat().st_size
    assert info.mtime == session.stat().st_mtime
    assert info.first_user_message == "hi"
    for path in (agent, readme, short, directory):
        assert session_from_path(str(path), str(projects)) is None


def test_fifo_is_not_a_session(tmp_path):
    folder = tmp_path / "p"
    folder.mkdir()
    fifo = folder / (ID1 + ".jsonl")
    os.mkfifo(str(fifo))
    assert session_from_path(str(fifo), str(tmp_path)) is None  # O_NONBLOCK: no hang
    assert scan_sessions(str(tmp_path)).sessions == []


def test_unreadable_regular_file_is_listed_without_metadata(tmp_path, monkeypatch):
    path = write(tmp_path / "p" / (ID1 + ".jsonl"), [user("secret")])

    def refuse(p):
        raise PermissionError(13, "Permission denied", p)

    monkeypatch.setattr(session_scan, "open_regular", refuse)
    info = session_from_path(str(path), str(tmp_path))
    assert (info.session_id, info.first_user_message, info.size) == (ID1, "", path.stat().st_size)


# --- ScanAllSessions --------------------------------------------------------------------


def make_store(root):
    projects = root / "projects"
    write(projects / "-proj-a" / (ID1 + ".jsonl"), [user("one")], mtime=3000)
    write(projects / "-proj-a" / (ID2 + ".jsonl"), [user("two")], mtime=1000)
    write(projects / "-proj-b" / (ID3 + ".jsonl"), [user("three")], mtime=2000)
    write(projects / "-proj-a" / "agent-abcd1234.jsonl", [user("agent")])
    write(projects / "-proj-a" / ID1 / "subagents" / "agent-a0074ac.jsonl", [user("sub")])
    (projects / "-proj-b" / "readme.txt").write_text("not a session")
    return projects


def test_scan_finds_sessions_oldest_first(tmp_path):
    projects = make_store(tmp_path)
    found = scan_all_sessions(str(projects))
    assert [s.session_id for s in found] == [ID2, ID3, ID1]
    assert [s.project_path for s in found] == ["-proj-a", "-proj-b", "-proj-a"]
    assert [s.first_user_message for s in found] == ["two", "three", "one"]


def test_scan_empty_and_missing(tmp_path):
    (tmp_path / "empty").mkdir()
    assert scan_all_sessions(str(tmp_path / "empty")) == []
    assert scan_all_sessions(str(tmp_path / "missing")) == []
    assert scan_all_sessions("") == []
    (tmp_path / "file").write_text("x")
    assert scan_all_sessions(str(tmp_path / "file")) == []


def test_scan_is_recursive_and_skips_lookalike_directories(tmp_path):
    projects = tmp_path / "projects"
    write(projects / "deep" / "er" / "still" / (ID1 + ".jsonl"), [user("deep")])
    (projects / "x.jsonl").mkdir(parents=True)
    write(projects / (ID2 + ".jsonl") / (ID3 + ".jsonl"), [user("inside a dir named like a session")])
    found = scan_all_sessions(str(projects))
    assert sorted(s.session_id for s in found) == [ID1, ID3]
    assert {s.project_path for s in found} == {os.path.join("deep", "er", "still"), ID2 + ".jsonl"}


def test_symlinked_directories_are_not_followed(tmp_path):
    outside = write(tmp_path / "outside" / (ID1 + ".jsonl"), [user("outside")]).parent
    projects = tmp_path / "projects"
    projects.mkdir()
    os.symlink(str(outside), str(projects / "link"))
    os.symlink(str(outside), str(projects / (ID2 + ".jsonl")))
    assert scan_all_sessions(str(projects)) == []


def test_unreadable_directory_is_reported_once_and_the_scan_goes_on(tmp_path, monkeypatch):
    projects = make_store(tmp_path)
    blocked = str(projects / "-proj-b")
    real = C.list_directory
    calls = []

    def listing(path, *ordered):
        calls.append(path)
        if path == blocked:
            raise PermissionError(13, "Permission denied", path)
        return real(path, *ordered)

    monkeypatch.setattr(C, "list_directory", listing)
    err = io.StringIO()
    found = scan_all_sessions(str(projects), stderr=err)
    assert [s.session_id for s in found] == [ID2, ID1]
    text = err.getvalue()
    assert text.count(blocked) == 1
    assert "Could not access 1 path(s) during scan:\n  - %s\n" % blocked in text
    assert text.startswith("\n\u26a0 Warning: ")
    assert "confab" not in text
    result = scan_sessions(str(projects))
    assert result.skipped == [blocked]


def test_no_warning_when_everything_was_read(tmp_path):
    err = io.StringIO()
    scan_all_sessions(str(make_store(tmp_path)), stderr=err)
    assert err.getvalue() == ""


def test_scan_one_project(tmp_path):
    work = tmp_path / "work dir"
    work.mkdir()
    projects = tmp_path / "projects"
    folder = projects / encode_project_dir(str(work.resolve()))
    write(folder / (ID1 + ".jsonl"), [user("mine")])
    write(projects / "-other" / (ID2 + ".jsonl"), [user("theirs")])
    found = scan_all_sessions(str(projects), project=str(work))
    assert [s.session_id for s in found] == [ID1]
    assert found[0].project_path == folder.name
    assert scan_all_sessions(str(projects), project=str(tmp_path / "never-ran-here")) == []


def test_to_dict_has_every_field(tmp_path):
    info = scan_all_sessions(str(make_store(tmp_path)))[0]
    data = info.to_dict()
    assert set(S.SessionInfo._fields) <= set(data)
    assert data["modified"].endswith("Z") and data["modified"].startswith("1970-01-01T00:16:40")
    json.dumps(data)


# --- FindSessionByID --------------------------------------------------------------------


def test_find_by_full_id_and_prefixes(tmp_path):
    projects = str(make_store(tmp_path))
    for partial in (ID1, ID1[:8], ID1[:4]):
        info = find_session(partial, projects)
        assert (info.session_id, info.transcript_path) == (ID1, os.path.join(projects, "-proj-a", ID1 + ".jsonl"))


def test_find_not_found(tmp_path):
    with pytest.raises(SessionIdNotFound) as caught:
        find_session("nonexistent", str(make_store(tmp_path)))
    assert str(caught.value) == "session not found: nonexistent"
    assert caught.value.exit_code == 1
    with pytest.raises(SessionIdNotFound):
        find_session("abc", str(tmp_path / "missing"))


def test_find_ambiguous(tmp_path):
    projects = tmp_path / "projects"
    write(projects / "a" / "aaaa1111-1234-1234-1234-123456789abc.jsonl", [user("1")])
    write(projects / "b" / "aaaa2222-1234-1234-1234-123456789abc.jsonl", [user("2")])
    with pytest.raises(AmbiguousSession) as caught:
        find_session("aaaa", str(projects))
    # The seed's words, then the ids (the catalog's one ambiguity refusal, issue 23).
    assert str(caught.value) == "ambiguous session ID 'aaaa' matches 2 sessions: %s, %s" % (
        "aaaa1111-1234-1234-1234-123456789abc",
        "aaaa2222-1234-1234-1234-123456789abc",
    )
    assert caught.value.exit_code == 1
    assert len(caught.value.candidates) == 2
    with pytest.raises(AmbiguousSession):
        find_session("", str(projects))  # the empty prefix matches everything
    assert find_session("aaaa2", str(projects)).project_path == "b"


def test_find_ignores_fifos_and_directories(tmp_path):
    projects = tmp_path / "projects"
    write(projects / "a" / (ID1 + ".jsonl"), [user("1")])
    (projects / "b").mkdir()
    os.mkfifo(str(projects / "b" / (ID1[:-1] + "d.jsonl")))
    (projects / "c" / (ID1[:-1] + "e.jsonl")).mkdir(parents=True)
    assert find_session(ID1[:8], str(projects)).session_id == ID1


def test_find_reports_unreadable_directories(tmp_path, monkeypatch):
    projects = make_store(tmp_path)
    blocked = str(projects / "-proj-b")
    real = C.list_directory

    def listing(path, *ordered):
        if path == blocked:
            raise PermissionError(13, "Permission denied", path)
        return real(path, *ordered)

    monkeypatch.setattr(C, "list_directory", listing)
    err = io.StringIO()
    assert find_session(ID1[:6], str(projects), stderr=err).session_id == ID1
    assert "during search:\n  - %s\n" % blocked in err.getvalue()


def test_constants():
    assert C.UUID_LENGTH == 36
    assert HEAD_MAX_LINES == 50
    assert MAX_BYTES_PER_SESSION == HEAD_MAX_BYTES + TAIL_MAX_BYTES


# --- one census per window: a whole-file tail takes the head's -------------------------

ESCAPED_TITLE = '{"type":"custom-\\u0074itle","customTitle":"Spelled","sessionId":"%s"}' % ID1


@pytest.mark.parametrize("where", ["middle", "last line", "torn last line", "past the head's 50 lines"])
def test_a_whole_file_tail_sees_every_escape_the_head_census_holds(tmp_path, where):
    path = tmp_path / (ID1 + ".jsonl")
    body = [user("typed prompt"), assistant("ok", timestamp="T1")]
    if where == "middle":
        text = dumps([body[0], ESCAPED_TITLE, body[1]])
    elif where == "last line":
        text = dumps(body + [ESCAPED_TITLE])
    elif where == "torn last line":
        text = dumps(body) + ESCAPED_TITLE  # no newline: the head's last line is the file's end
    else:
        # 50 lines, the 50th ending in the escape's first bytes: the rest is past the head's lines
        filler = [assistant("line %d" % i) for i in range(M.HEAD_MAX_LINES - 1)]
        text = dumps(body[:1] + filler) + '{"type":"custom-\\u0074itle","customTitle":"Spelled"}'
    path.write_text(text, encoding="utf-8")
    meta = session_metadata(str(path), ID1)
    assert (meta.title, meta.title_source) == ("Spelled", "custom-title")


def test_a_tail_custom_title_outranks_head_titles_not_sought(tmp_path):
    head = [
        user("prompt"),
        {"type": "ai-title", "aiTitle": "Head AI", "sessionId": ID1},
        {"type": "custom-title", "customTitle": "Head custom", "sessionId": ID1},
    ]
    tail = [assistant("last", timestamp="T5"), {"type": "custom-title", "customTitle": "Tail custom", "sessionId": ID1}]
    path = write_sparse(tmp_path / (ID1 + ".jsonl"), head, tail, size=4 << 20)
    meta = session_metadata(str(path), ID1)
    assert (meta.title, meta.title_source) == ("Tail custom", "custom-title")
    tail = [assistant("last", timestamp="T5"), {"type": "ai-title", "aiTitle": "Tail AI", "sessionId": ID1}]
    path = write_sparse(tmp_path / (ID1 + ".jsonl"), head, tail, size=4 << 20)
    meta = session_metadata(str(path), ID1)
    assert (meta.title, meta.title_source) == ("Head custom", "custom-title")
