"""One line bound and one cost model for every reader (issue 23, item 4): the fail-open
readers skip exactly the lines the fail-closed reader refuses, on real files at the edges
the unification moved (a plain line of 8 to 11 MiB, once skipped by the fail-open readers;
one past the budget; one past the bound)."""

import io
import json

import pytest

from termsprawl_context import jsonl
from termsprawl_context.store import search
from termsprawl_context.store.background import SignalsUnknown, background_agent_signals
from termsprawl_context.store.chunks import chunk_lines, iter_chunks
from termsprawl_context.errors import RecordUnreadable
from termsprawl_context.transcript.record import MAX_RECORD_BYTES, read_entries

MiB = 1 << 20


def record(uuid, size, text_char=b"x"):
    """A user entry line of exactly ``size`` bytes whose text is ``text_char`` repeated."""
    head = b'{"type":"user","uuid":"%s","message":{"content":"needle ' % uuid.encode()
    tail = b'"}}'
    return head + text_char * (size - len(head) - len(tail)) + tail


def small(uuid):
    return json.dumps({"type": "user", "uuid": uuid, "message": {"content": "needle " + uuid}}).encode()


# Each big line: its size, whether every reader reads it, and why not.
EDGES = [
    ("nine", 9 * MiB, True),  # over the old fail-open bound (8 MiB), well within the budget
    ("twelve", 12 * MiB, False),  # within the bound, past the decoding budget (3 bytes a byte)
    ("bound", jsonl.MAX_LINE_BYTES, False),  # the longest line held, far past the budget
    ("over", jsonl.MAX_LINE_BYTES + 1, False),  # past the bound: never held
]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("bound")
    made = {}
    for name, size, _ in EDGES:
        path = root / (name + ".jsonl")
        path.write_bytes(small("a") + b"\n" + record(name, size) + b"\n" + small("b") + b"\n")
        made[name] = str(path)
    return made


def fail_open_uuids(path):
    """The uuids the forward, reverse and chunked fail-open readers parse, each in file order."""
    with jsonl.open_regular(path) as f:
        forward = [jsonl.parse_object(line.raw) for line in jsonl.iter_lines(f)]
    with jsonl.open_regular(path) as f:
        reverse = [jsonl.parse_object(raw) for _, raw in jsonl.iter_lines_reverse(f)][::-1]
    with jsonl.open_regular(path) as f:
        chunked = [jsonl.parse_object(raw) for _, raw in chunk_lines(iter_chunks(f))]
    return [[o["uuid"] for o in objs if o is not None] for objs in (forward, reverse, chunked)]


@pytest.mark.parametrize("name,size,read", EDGES)
def test_both_policies_agree_on_each_edge(files, name, size, read):
    path = files[name]
    expected = ["a", name, "b"] if read else ["a", "b"]
    assert fail_open_uuids(path) == [expected] * 3
    if read:
        assert [e.uuid for e in read_entries(path)] == expected
        return
    with pytest.raises(RecordUnreadable) as info:
        read_entries(path)
    if size > jsonl.MAX_LINE_BYTES:
        assert "line 2 is longer than %d bytes" % MAX_RECORD_BYTES in info.value.message
    else:
        assert "line 2 would take more than %d bytes to decode" % jsonl.DECODE_BUDGET_BYTES in info.value.message


@pytest.mark.parametrize("name,size,read", EDGES)
def test_search_finds_what_the_readers_read(files, name, size, read):
    """``search`` held up to 64 MiB of a line it could parse only up to 8 MiB; it now reads
    the lines every reader reads."""
    matcher = search.Matcher("needle")
    uuids = [hit[5] for hit in search.search_file(files[name], matcher, search.KINDS) or []]
    assert uuids == (["a", name, "b"] if read else ["a", "b"])


def test_background_signals_share_the_bound(tmp_path):
    path = tmp_path / "long.jsonl"
    path.write_bytes(small("a") + b"\n" + b"x" * (jsonl.MAX_LINE_BYTES + 1) + b"\n")
    with pytest.raises(SignalsUnknown) as info:
        background_agent_signals(str(path))
    assert "longer than %d bytes" % MAX_RECORD_BYTES in str(info.value)
    path.write_bytes(small("a") + b"\n" + b"x" * jsonl.MAX_LINE_BYTES)  # the longest line: read (and not JSON)
    with pytest.raises(SignalsUnknown) as info:
        background_agent_signals(str(path))
    assert "not a JSON record" in str(info.value)


def test_read_within_bound_takes_a_document_up_to_the_bound():
    assert jsonl.read_within_bound(io.BytesIO(b"x" * jsonl.MAX_LINE_BYTES)) == b"x" * jsonl.MAX_LINE_BYTES
    assert jsonl.read_within_bound(io.BytesIO(b"x" * (jsonl.MAX_LINE_BYTES + 1))) == b""


def test_a_str_is_costed_as_its_utf8():
    wide = '{"a":"' + "\U0001f600" * (3 * MiB) + '"}'  # 12 MiB of UTF-8, 4 bytes a character in CPython
    assert not jsonl.readable(wide) and not jsonl.readable(wide.encode())
    assert jsonl.parse_object(wide) is None
