"""Writing to the terminal: UTF-8 whatever the locale, any string encodable, quiet on a
closed pipe. Shared by every command so no two print differently."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Optional, TextIO

PROG = "termsprawl-context"


def encode_text(text: str) -> bytes:
    """UTF-8 bytes of ``text``; lone surrogates (from JSON escapes like ``\\ud83d``)
    become U+FFFD rather than an error."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        import re  # rare path: only text holding lone surrogates pays for re

        return re.sub("[\ud800-\udfff]", "\ufffd", text).encode("utf-8")


def write_out(text: str, stream: Optional[TextIO] = None) -> None:
    """Write ``text`` to stdout (or ``stream``) as UTF-8 bytes and flush.

    A BrokenPipeError propagates; ``main`` ends quietly on it."""
    target = sys.stdout if stream is None else stream
    data = encode_text(text)
    buffer = getattr(target, "buffer", None)
    if buffer is None:
        target.write(data.decode("utf-8"))
        target.flush()
        return
    target.flush()
    buffer.write(data)
    buffer.flush()


def error_line(message: str) -> None:
    """One ``termsprawl-context: <message>`` line on stderr."""
    try:
        write_out("%s: %s\n" % (PROG, message), sys.stderr)
    except OSError:
        pass  # stderr closed too: nothing left to tell


def silence_stdout() -> None:
    """After a closed pipe, point stdout at /dev/null so the interpreter's exit-time
    flush does not raise a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
