"""Concurrent writers never expose a torn file and never leave a temp file behind.

The readers overlap the writers by construction, not by luck: the writers start only
once every reader is reading, and the readers keep reading until the writers are done
(then read once more)."""

import os
import subprocess
import sys
import textwrap
import time

from conftest import SRC

WRITER = textwrap.dedent("""
    import sys
    sys.path.insert(0, {src!r})
    from termsprawl_context.workspace import index, links
    import os, time
    cwd, me, rounds, sync = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    readers = int(sys.argv[5])
    while len([n for n in os.listdir(sync) if n.startswith("ready-")]) < readers:
        time.sleep(0.01)  # every reader is reading before anything is written
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
    cwd, sync, me = sys.argv[1], sys.argv[2], sys.argv[3]
    done_flag = os.path.join(sync, "writers-done")
    seen_index = 0
    open(os.path.join(sync, "ready-" + me), "w").close()

    def read_once():
        global seen_index
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
            return  # not written yet
        path = index.read_transcript_path(cwd, "shared")
        if path is None or not path.startswith("/path/w") or not data.rstrip().endswith(b"}}"):
            raise SystemExit("torn index file: %r" % data)
        seen_index += 1

    while not os.path.exists(done_flag):
        read_once()
    read_once()  # after the last write: the index is there to be read
    print(seen_index)
""")


def test_concurrent_writers_and_readers(tmp_path):
    writer = WRITER.format(src=str(SRC))
    reader = READER.format(src=str(SRC))
    sync = tmp_path / "sync"
    sync.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    cwd = str(project)
    readers = [
        subprocess.Popen([sys.executable, "-c", reader, cwd, str(sync), "r%d" % i], stdout=subprocess.PIPE)
        for i in range(2)
    ]
    procs = [
        subprocess.Popen([sys.executable, "-c", writer, cwd, "w%d" % i, "300", str(sync), str(len(readers))])
        for i in range(4)
    ]
    try:
        assert [p.wait(timeout=300) for p in procs] == [0, 0, 0, 0]
    finally:
        (sync / "writers-done").touch()  # the readers stop after one more round
    deadline = time.time() + 300
    outs = [r.communicate(timeout=max(1, deadline - time.time()))[0] for r in readers]
    assert [r.returncode for r in readers] == [0, 0]
    assert sum(int(o) for o in outs) > 0  # the readers really did read while writers wrote
    leftovers = [n for base, _, names in os.walk(cwd) for n in names if n.endswith(".tmp")]
    assert leftovers == []
    assert sorted(os.listdir(os.path.join(cwd, ".termsprawl", "links")))[-1] == "aaa--w3.json"
