"""The summary index (harness/claude/summary_index.py): which summary is "written last", the
lookup by a session's own message uuids, and the fast window-uuid reader checked
against the plain one (every line parsed), on made-up lines and on the real corpus."""

import json
import random


from termsprawl_context.harness.claude import summary_index as SI
from termsprawl_context.harness.claude.summary_index import LinkedSummary, SummaryIndex, written_after
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

    index = SI.index_sessions(
        [Info("/p/a", 5.0, ((" A ", U[0]),)), Info("/p/b", 6.0, ()), Info("/p/c", 7.0, (("C", U[0]),))]
    )
    assert index.get(U[0]) == LinkedSummary("C", U[0], 7.0, "/p/c", 0)


def test_apply_to_title():
    index = SummaryIndex()
    index.add_file("/p/x", 1.0, [("Linked", U[0])])
    names_u0, names_u1 = SI.pack([U[0].encode()]), SI.pack([U[1].encode(), U[2].encode()])
    prompt = T.Title("a prompt", T.TITLE_PROMPT)
    assert SI.apply_to_title(prompt, names_u0, index) == T.Title("Linked", T.TITLE_SUMMARY)
    assert SI.apply_to_title(prompt, names_u1, index) == prompt
    for kept in (T.Title("Mine", T.TITLE_CUSTOM), T.Title("AI", T.TITLE_AI)):
        assert SI.apply_to_title(kept, names_u0, index) == kept
    # a local summary, a command or a first message yields to the linked summary
    for weaker in (T.TITLE_SUMMARY, T.TITLE_COMMAND, T.TITLE_FIRST_MESSAGE):
        assert SI.apply_to_title(T.Title("x", weaker), names_u0, index).text == "Linked"
    assert SI.apply_to_title(T.NO_TITLE, names_u0, index) == T.Title("Linked", T.TITLE_SUMMARY)
    assert SI.apply_to_title(prompt, b"", index) == prompt


# --- a session's own uuids: candidates from the bytes, confirmed by the plain rule ------------


def message(uuid, parent, kind="user", **extra):
    record = {"parentUuid": parent, "isSidechain": False, "type": kind, "message": {"content": "x"}, "uuid": uuid}
    record.update(extra)
    return json.dumps(record, separators=(",", ":")).encode()


ODD_LINES = [
    message(U[1], U[0]),
    b'{"type":"summary","summary":"S","leafUuid":"%s"}' % U[3].encode(),
    b'{"type":"file-history-snapshot","messageId":"m","snapshot":{}}',
    json.dumps({"uuid": U[5], "parentUuid": U[4]}).encode(),  # JSON's optional spaces
    b'{"uuid":"short-id"}',
    b'{"uuid":"%s"}' % U[7].upper().encode(),
    b'{"uuid":"\\"quoted\\\\"}',  # escapes in the value
    b'{"\\u0075uid":"%s"}' % U[9].encode(),  # an escaped key
    b'{"uuid":7}',  # not a string
    b"not json",
    b"",
    b'{"uuid":"%s","isSidechain":tr' % U[8].encode(),  # torn: not a record
    b'{"type":"progress","data":{"uuid":"%s"}}' % U[2].encode(),  # a nested uuid
    message(U[3], U[2], kind="assistant"),
    b'{"type":"x","note":"\\"uuid\\":\\"%s\\""}' % U[4].encode(),  # quoted in a string
]


def window(lines):
    data = bytearray(b"\n".join(lines) + b"\n")  # the listing's reused buffers are bytearrays
    return data, SI.whole_lines(data, 0, len(data))


def test_whole_lines():
    assert SI.whole_lines(b"a\nbb\n\nc", 0, 7) == [b"a", b"bb", b"", b"c"]
    assert SI.whole_lines(b"a\n", 0, 2) == [b"a"]
    assert SI.whole_lines(b"xa\nb", 1, 4) == [b"a", b"b"]


def test_own_uuids_on_odd_lines():
    data, lines = window([ln for ln in ODD_LINES if b"\\u00" not in ln])
    plain = SI.own_uuids_plain(lines)
    assert plain == [
        U[1].encode(),
        U[5].encode(),
        b"short-id",
        U[7].upper().encode(),
        b'"quoted\\',
        U[8].encode(),  # a torn line, by the keys its bytes show
        U[2].encode(),  # a nested record's uuid is the session's too
        U[3].encode(),
    ]
    assert SI.own_uuids(data, 0, len(data)) == SI.pack(plain)
    # an escape that may spell the key: the window is parsed, line by line
    data, lines = window(ODD_LINES)
    assert SI.own_uuids(data, 0, len(data)) == SI.pack(SI.own_uuids_plain(lines))
    assert U[9].encode() in SI.own_uuids_plain(lines)
    assert SI.own_uuids(data, 0, len(data), escaped=True) == SI.own_uuids(data, 0, len(data))


def test_own_uuids_agree_with_the_plain_rule_on_random_windows():
    rng = random.Random(15)
    for _ in range(300):
        data, lines = window([rng.choice(ODD_LINES) for _ in range(rng.randint(0, 12))])
        assert SI.own_uuids(data, 0, len(data)) == SI.pack(SI.own_uuids_plain(lines))


def test_own_uuids_agree_with_the_plain_rule_on_every_corpus_file(corpus):
    for path in corpus:
        data = path.read_bytes()
        plain = SI.own_uuids_plain(SI.whole_lines(data, 0, len(data)))
        assert SI.own_uuids(data, 0, len(data)) == SI.pack(plain), path.name


def test_title_named_in_packed_uuids():
    lines = [message(U[1], U[0]), ODD_LINES[-3]]  # U[2] in a nested object
    data = bytearray(b"".join(ln + b"\n" for ln in lines))
    packed = SI.own_uuids(data, 0, len(data))
    index = SummaryIndex()
    assert index.title_for(index.named_in(packed)) == ""
    index.add_file("/other.jsonl", 5.0, [("Names U1", U[1]), ("Names U9", U[9])])
    assert index.title_for(index.named_in(packed)) == "Names U1"
    index.add_file("/newer.jsonl", 9.0, [("Names nested U2", U[2])])
    assert index.title_for(index.named_in(packed)) == "Names nested U2"
    assert index.named_in(packed) == [U[1], U[2]]
    assert index.title_for(index.named_in(b"")) == "" and index.named_in(b"") == []
