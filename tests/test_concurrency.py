"""Concurrent writers never expose a torn file and never leave a temp file behind."""

import os
import subprocess
import sys
import textwrap

from conftest import SRC

WRITER = textwrap.dedent("""
    import sys
    sys.path.insert(0, {src!r})
    from termsprawl_context.workspace import index, links
    cwd, me, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for i in range(rounds):
        links.add_link(cwd, "aaa", "bbb")
        links.add_link(cwd, me, "aaa")
        if i % 3 == 0:
            links.remove_link(cwd, "aaa", "bbb")
        assert index.record_transcript_path(cwd, "shared", "/path/%s/%d.jsonl" % (me, i) + "x" * (i % 50))
""")

READER = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, {src!r})
    from termsprawl_context.workspace import index, links
    cwd, rounds = sys.argv[1], int(sys.argv[2])
    seen_index = 0
    for _ in range(rounds):
        d = links.links_dir(cwd)
        for name in (os.listdir(d) if os.path.isdir(d) else []):
            if not name.endswith(".json"):
                continue
            try:
                with open(os.path.join(d, name), "rb") as f:
                    data = f.read()
            except FileNotFoundError:
                continue  # removed between listing and reading: fine; torn is not
            if links.parse_link_file(data) is None:
                raise SystemExit("torn or invalid link file: %s %r" % (name, data))
        for link in links.list_links(cwd):
            assert link.a < link.b
        try:
            with open(index.index_file_path(cwd, "shared"), "rb") as f:
                data = f.read()
        except FileNotFoundError:
            continue  # not written yet
        path = index.read_transcript_path(cwd, "shared")
        if path is None or not path.startswith("/path/w") or not data.rstrip().endswith(b"}}"):
            raise SystemExit("torn index file: %r" % data)
        seen_index += 1
    print(seen_index)
""")


def test_concurrent_writers_and_readers(tmp_path):
    cwd = str(tmp_path)
    writer = WRITER.format(src=str(SRC))
    reader = READER.format(src=str(SRC))
    procs = [subprocess.Popen([sys.executable, "-c", writer, cwd, "w%d" % i, "300"]) for i in range(4)]
    readers = [subprocess.Popen([sys.executable, "-c", reader, cwd, "400"], stdout=subprocess.PIPE) for _ in range(2)]
    assert [p.wait(timeout=300) for p in procs] == [0, 0, 0, 0]
    outs = [r.communicate(timeout=300)[0] for r in readers]
    assert [r.returncode for r in readers] == [0, 0]
    assert sum(int(o) for o in outs) > 0  # the readers really did read while writers wrote
    leftovers = [n for base, _, names in os.walk(cwd) for n in names if n.endswith(".tmp")]
    assert leftovers == []
    assert sorted(os.listdir(os.path.join(cwd, ".termsprawl", "links")))[-1] == "aaa--w3.json"
