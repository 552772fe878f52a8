"""The one output path (``_output``): paths keep their bytes, transcript text is UTF-8
with U+FFFD, diagnostics are one prefixed line and survive a closed stream."""

import io
import os

import pytest

from termsprawl_context import _output
from termsprawl_context._output import MESSAGE_PREFIX

NON_UTF8_NAME = b"caf\xe9-\xff.jsonl"  # Latin-1 bytes: not UTF-8


class BytesStream(io.TextIOWrapper):
    """A text stream over a BytesIO whose bytes the test reads back."""

    def __init__(self):
        super().__init__(io.BytesIO(), encoding="ascii", errors="strict")

    def data(self):
        self.flush()
        return self.buffer.getvalue()


class ClosedStream(object):
    def write(self, _):
        raise BrokenPipeError()

    def flush(self):
        raise BrokenPipeError()


def test_text_is_utf8_whatever_the_stream_encoding():
    stream = BytesStream()
    _output.write_out("caf\u00e9 \U0001f600\n", stream)
    assert stream.data() == "caf\u00e9 \U0001f600\n".encode("utf-8")


def test_lone_surrogate_in_text_becomes_replacement_character():
    stream = BytesStream()
    _output.write_out("lone \ud83d and \udcff here\n", stream)
    assert stream.data() == "lone \ufffd and \ufffd here\n".encode("utf-8")


def test_path_answer_keeps_its_bytes():
    name = os.fsdecode(b"/tmp/" + NON_UTF8_NAME)  # what os.listdir would hand back
    stream = BytesStream()
    _output.write_path(name, stream)
    assert stream.data() == b"/tmp/" + NON_UTF8_NAME + b"\n"


def test_path_answer_on_a_text_only_stream_round_trips():
    name = os.fsdecode(b"/tmp/" + NON_UTF8_NAME)
    stream = io.StringIO()
    _output.write_path(name, stream)
    assert stream.getvalue() == name + "\n"
    assert os.fsencode(stream.getvalue()[:-1]) == b"/tmp/" + NON_UTF8_NAME


def test_path_with_a_surrogate_no_byte_stands_for_is_replaced():
    stream = BytesStream()
    _output.write_path("/tmp/\ud83d.jsonl", stream)
    assert stream.data() == "/tmp/\ufffd.jsonl\n".encode("utf-8")


def test_warn_is_one_prefixed_line_and_keeps_path_bytes():
    stream = BytesStream()
    _output.warn("cannot read %s: gone" % os.fsdecode(b"/x/" + NON_UTF8_NAME), stream)
    assert stream.data() == MESSAGE_PREFIX.encode() + b"cannot read /x/" + NON_UTF8_NAME + b": gone\n"


def test_warn_on_a_closed_stream_is_quiet():
    _output.warn("nobody listens", ClosedStream())  # must not raise


def test_write_out_on_a_closed_stream_raises_broken_pipe():
    with pytest.raises(BrokenPipeError):
        _output.write_out("x", ClosedStream())


def test_byte_sink_passes_lines_through_untouched():
    stream = BytesStream()
    stream.write("first ")
    sink = _output.byte_sink(stream)
    sink.write(b'{"a":"\xff"}\n')
    assert stream.data() == b'first {"a":"\xff"}\n'


def test_index_get_prints_a_non_utf8_path_as_its_bytes(tmp_path, run_pyz):
    project = tmp_path / "project"
    project.mkdir()
    recorded = os.fsdecode(os.fsencode(str(tmp_path)) + b"/" + NON_UTF8_NAME)
    set_run = run_pyz(["index", "set", "alice", recorded, "--cwd", project], env={"LANG": "C.UTF-8"})
    assert set_run.returncode == 0, set_run.stderr
    got = run_pyz(["index", "get", "alice", "--cwd", project])
    assert got.returncode == 0, got.stderr
    assert got.stdout == os.fsencode(str(tmp_path)) + b"/" + NON_UTF8_NAME + b"\n"
