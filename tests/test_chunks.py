"""chunks.iter_chunks: whole lines of any byte range, a line over the bound never held."""

import io
import os

from hypothesis import given, settings, strategies as st

from termsprawl_context.store.chunks import chunk_lines, iter_chunks


def oracle(data, start, stop, max_line):
    """(offset, line) of every line beginning in [start, stop) no longer than max_line."""
    out = []
    offset = 0
    if not data:
        return out
    pieces = data.split(b"\n")
    if data.endswith(b"\n"):
        pieces.pop()
    for piece in pieces:
        if start <= offset and (stop is None or offset < stop) and len(piece) <= max_line:
            out.append((offset, piece))
        offset += len(piece) + 1
    return out


def lines_of(f, **kwargs):
    for at, buf, begin, end in iter_chunks(f, **kwargs):
        assert buf[end - 1 : end] == b"\n" or at + end - begin == os.fstat(f.fileno()).st_size
        assert end - begin <= kwargs["max_line"] + kwargs["block_size"] + 1
    return list(chunk_lines(iter_chunks(f, **kwargs)))


# Files of a few short lines (some empty, some over a small bound), a final newline or not,
# then a block size and a line bound: what every reader test here draws.
FILE_SHAPES = (
    st.lists(st.sampled_from([b"", b"a", b"{}", b"xyz" * 5, b"q" * 40]), max_size=12),
    st.booleans(),
    st.integers(1, 17),
    st.integers(1, 50),
)


@settings(max_examples=400, deadline=None)
@given(
    *FILE_SHAPES,
    st.integers(0, 200),
    st.one_of(st.none(), st.integers(0, 200)),
)
def test_any_range_any_block_size_matches_the_oracle(
    tmp_path_factory, lines, final_newline, block, max_line, start, stop
):
    data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    path = tmp_path_factory.mktemp("c") / "f"
    path.write_bytes(data)
    with open(str(path), "rb") as f:
        got = lines_of(f, start=start, stop=stop, max_line=max_line, block_size=block)
    assert got == oracle(data, start, stop, max_line)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from([b"", b"a", b"{}", b"x" * 30]), max_size=15),
    st.lists(st.integers(0, 400), max_size=4),
    st.integers(1, 9),
    st.integers(5, 25),
)
def test_ranges_cut_anywhere_share_out_every_line_once(tmp_path_factory, lines, cuts, block, max_line):
    data = b"\n".join(lines)
    path = tmp_path_factory.mktemp("c") / "f"
    path.write_bytes(data)
    bounds = [0] + sorted(set(c % (len(data) + 1) for c in cuts)) + [None]
    got = []
    with open(str(path), "rb") as f:
        for lo, hi in zip(bounds, bounds[1:]):
            if hi is not None and hi <= lo:
                continue
            got += lines_of(f, start=lo, stop=hi, max_line=max_line, block_size=block)
    assert got == oracle(data, 0, None, max_line)


def test_a_newline_less_file_is_read_past_not_held(tmp_path):
    path = tmp_path / "big"
    with open(str(path), "wb") as f:
        f.write(b'{"a":1}\n')
        f.write(b"x" * (3 << 20))  # no newline: bigger than the bound below
        f.write(b'\n{"b":2}\n')
        f.write(b"y" * (3 << 20))
    with open(str(path), "rb") as f:
        chunks = [
            (at, bytes(buf[begin:end]), len(buf))
            for at, buf, begin, end in iter_chunks(f, max_line=1 << 20, block_size=1 << 16)
        ]
    assert [(at, data) for at, data, _ in chunks] == [(0, b'{"a":1}\n'), (8 + (3 << 20) + 1, b'{"b":2}\n')]
    assert max(size for _, _, size in chunks) <= (1 << 20) + (1 << 16)  # the buffer never grew past the bound


def test_reads_do_not_move_a_shared_file_position(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"one\ntwo\n")
    with open(str(path), "rb") as f:
        f.seek(3)
        assert list(chunk_lines(iter_chunks(f))) == [(0, b"one"), (4, b"two")]
        assert f.tell() == 3
    assert list(chunk_lines(iter_chunks(io.BytesIO(b"a\nb"), block_size=2))) == [(0, b"a"), (2, b"b")]
