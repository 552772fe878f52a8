"""The first prompt the person typed, sought past a head that holds none.

A session whose first 50 lines hold no typed prompt (a compaction summary opens it,
or a run of slash commands and their output) is named by a prompt some lines further
on. The search goes on from where the head read stopped, within the head's own byte
bound counted from the file's start, so describing a session still reads no more
than it did: the head bound plus the tail window.
"""

from typing import BinaryIO, Iterator, Union

from termsprawl_context.byte_windows import iter_lines_within
from termsprawl_context.jsonl import parse_object
from termsprawl_context.transcript.titles import first_typed_prompt


def first_prompt_in(lines: Iterator[bytes]) -> str:
    """The first typed prompt among raw ``lines`` (as a title); "" when none."""
    return first_typed_prompt(parse_object(raw) for raw in lines)


def prompt_past_head(f: BinaryIO, leftover: Union[bytes, bytearray], start: int, limit: int) -> str:
    """The first typed prompt in the lines of ``f`` past a head read up to offset
    ``start`` (``leftover``: the bytes after its last whole line), within ``limit``
    bytes from the file's start; "" when none."""
    if start >= limit:
        return ""
    return first_prompt_in(iter_lines_within(f, leftover, start, limit))
