"""The summary index (store/summary_index.py): which summary is "written last", the
lookup by a session's own message uuids, and the fast window-uuid reader checked
against the plain one (every line parsed), on made-up lines and on the real corpus."""

import json
import random

import pytest

from termsprawl_context.store import summary_index as SI
from termsprawl_context.store.summary_index import LinkedSummary, SummaryIndex, written_after
from termsprawl_context.transcript import titles as T

U = ["%08x-0000-4000-8000-%012x" % (i, i) for i in range(10)]


def linked(summary, leaf, mtime=1.0, path="/p/a.jsonl", position=0):
    return LinkedSummary(summary, leaf, mtime, path, position)


def test_written_after_rule():
    """Later mtime wins; same mtime, the smaller path (locate's tie rule); same file,
    the later line."""
    assert written_after(linked("x", U[0], mtime=2.0), linked("y", U[0], mtime=1.0))
    assert not written_after(linked("x", U[0], mtime=1.0), linked("y", U[0], mtime=2.0))
    assert written_after(linked("x", U[0], path="/p/a.jsonl"), linked("y", U[0], path="/p/b.jsonl"))
    assert not written_after(linked("x", U[0], path="/p/b.jsonl"), linked("y", U[0], path="/p/a.jsonl"))
    assert written_after(linked("x", U[0], position=3), linked("y", U[0], position=1))
    assert not written_after(linked("x", U[0], position=1), linked("y", U[0], position=1))


def test_index_keeps_the_summary_written_last_per_leaf():
    index = SummaryIndex()
    index.add_file("/p/old.jsonl", 10.0, [("Old name", U[1]), ("", U[2]), ("No leaf", "")])
    index.add_file("/p/new.jsonl", 20.0, [("First in new", U[1]), ("Second in new", U[1])])
    index.add_file("/p/same-time-b.jsonl", 20.0, [("B's", U[3])])
    index.add_file("/p/same-time-a.jsonl", 20.0, [("A's", U[3])])
    assert len(index) == 2  # empty summaries and empty leaves are not links
    assert index.get(U[1]).summary == "Second in new"
    assert index.get(U[3]).summary == "A's"
    assert index.get(U[2]) is None
    # A session holding several summarised messages: the summary written last.
    # same mtime: the smaller path ("/p/new.jsonl" < "/p/same-time-a.jsonl"), whatever the position
    assert index.title_for([U[0], U[3], U[1]]) == "Second in new"
    assert index.title_for([U[3]]) == "A's"
    index.add_file("/p/newest.jsonl", 30.0, [("Newest", U[4])])
    assert index.title_for([U[1], U[4], U[3]]) == "Newest"
    assert index.title_for([U[9]]) == "" and SummaryIndex().title_for(U) == ""


def test_index_sessions_uses_the_listing_fields():
    class Info:
        def __init__(self, path, mtime, links):
            self.transcript_path, self.mtime, self.summary_links = path, mtime, links

    index = SI.index_sessions([Info("/p/a", 5.0, ((" A ", U[0]),)), Info("/p/b", 6.0, ()), Info("/p/c", 7.0, (("C", U[0]),))])
    assert index.get(U[0]) == LinkedSummary("C", U[0], 7.0, "/p/c", 0)


def test_apply_to_title():
    index = SummaryIndex()
    index.add_file("/p/x", 1.0, [("Linked", U[0])])
    prompt = T.Title("a prompt", T.TITLE_PROMPT)
    assert SI.apply_to_title(prompt, [U[0]], index) == T.Title("Linked", T.TITLE_SUMMARY)
    assert SI.apply_to_title(prompt, [U[1]], index) == prompt
    for kept in (T.Title("Mine", T.TITLE_CUSTOM), T.Title("AI", T.TITLE_AI)):
        assert SI.apply_to_title(kept, [U[0]], index) == kept
    # a local summary or a first message yields to the linked summary
    assert SI.apply_to_title(T.Title("local", T.TITLE_SUMMARY), [U[0]], index).text == "Linked"
    assert SI.apply_to_title(T.NO_TITLE, [U[0]], index) == T.Title("Linked", T.TITLE_SUMMARY)


# --- window uuids: the fast reader against the plain one ----------------------------------


def message(uuid, parent, kind="user", **extra):
    record = {"parentUuid": parent, "isSidechain": False, "type": kind, "message": {"content": "x"}, "uuid": uuid}
    record.update(extra)
    return json.dumps(record, separators=(",", ":")).encode()


ODD_LINES = [
    message(U[1], U[0]),
    message(U[2], None),
    b'{"type":"summary","summary":"S","leafUuid":"%s"}' % U[3].encode(),
    b'{"type":"file-history-snapshot","messageId":"m","snapshot":{}}',
    b'{"isSidechain":false,"parentUuid":"%s","uuid":"%s"}' % (U[4].encode(), U[5].encode()),  # parent not first
    b'{"parentUuid":"not-a-uuid","uuid":"%s"}' % U[6].encode(),  # parent not 36 uuid characters
    b'{"parentUuid":"%s","uuid":"%s"}' % (U[7].upper().encode(), U[8].encode()),  # upper-case hex
    b'{"\\u0070arentUuid":"%s","uuid":"%s"}' % (U[9].encode(), U[0].encode()),  # escaped key
    b'{"parentUuid":5,"uuid":7}',  # wrong types
    b"not json",
    b"",
    b'{"parentUuid":"%s"' % U[1].encode(),  # torn
    b'{"type":"progress","data":{"uuid":"%s"}}' % U[2].encode(),  # a nested uuid is not the line's
    b'{"type":"last-prompt","lastPrompt":"go"}',
    message(U[3], U[2], kind="assistant"),
    b'{"type":"x","note":"\\"uuid\\":\\"%s\\""}' % U[4].encode(),
]


def spans_of(lines):
    data = b"\n".join(lines)
    return data, SI.line_spans(data, 0, len(data))


def test_line_spans_and_ends():
    assert SI.line_spans(b"a\nbb\n\nc", 0, 7) == [(0, 1), (2, 4), (5, 5), (6, 7)]
    assert SI.line_spans(b"a\n", 0, 2) == [(0, 1)]
    assert SI.line_spans(b"xa\nb", 1, 4) == [(1, 2), (3, 4)]
    assert SI.ends_to_spans([1, 4, 5]) == [(0, 1), (2, 4), (5, 5)]


def test_window_uuids_on_odd_lines():
    data, spans = spans_of(ODD_LINES)
    fast = SI.window_uuids(data, spans)
    assert fast == SI.window_uuids_plain(ODD_LINES)
    assert U[0] in fast and U[2] in fast and U[4] in fast and U[9] in fast  # parents, however spelled
    assert fast[-1] == U[3]  # the leaf: the last line with a uuid
    assert U[5] not in fast and U[1] not in fast[-1:]


def test_window_uuids_agree_with_the_plain_reader_on_random_windows():
    rng = random.Random(15)
    for _ in range(300):
        lines = [rng.choice(ODD_LINES) for _ in range(rng.randint(0, 12))]
        data, spans = spans_of(lines)
        assert SI.window_uuids(data, spans) == SI.window_uuids_plain([data[s:e] for s, e in spans])


def test_window_uuids_agree_on_every_corpus_file(corpus):
    for path in corpus:
        data = path.read_bytes()
        spans = SI.line_spans(data, 0, len(data))
        assert SI.window_uuids(data, spans) == SI.window_uuids_plain([data[s:e] for s, e in spans]), path.name


def test_pack_round_trip():
    assert list(SI.unpack(SI.pack(U[:3]))) == U[:3]
    assert list(SI.unpack(SI.pack([]))) == []


@pytest.mark.parametrize("offset", [0, 5])
def test_window_uuids_respect_spans(offset):
    lines = [message(U[1], U[0]), message(U[2], U[1])]
    data = b"x" * offset + b"\n".join(lines)
    spans = SI.line_spans(data, offset, len(data))
    assert SI.window_uuids(data, spans) == [U[0], U[1], U[2]]
