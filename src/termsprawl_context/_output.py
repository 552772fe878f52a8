"""The one path to stdout and stderr, so no two writers disagree on encoding or a closed stream.

- Transcript text (``write_out``) is UTF-8 whatever the locale, a lone surrogate (a JSON escape
  like ``\\ud83d``) U+FFFD; a path (``write_path``) keeps the bytes that name the real file.
- A diagnostic (``warn``, ``error_line``) is one ``termsprawl-context: ...`` line on stderr,
  paths keeping their bytes; a closed or failing stderr swallows it (never onto stdout).
- A closed stdout raises ``BrokenPipeError`` (``cli.main`` ends quietly); any other failure to
  write the answer raises ``StdoutFailed``: one stderr line, exit 74 (the dump and ``hook`` 0).

On the dump's path: standard library only, no ``typing`` or ``re`` at import.
"""

import io  # already loaded by the interpreter for its own streams: free to import
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, Optional, TextIO


PROG = "termsprawl-context"
MESSAGE_PREFIX = PROG + ": "


def encode_text(text: str) -> bytes:
    """UTF-8 bytes of transcript text; lone surrogates become U+FFFD."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        import re  # rare path: only text holding lone surrogates pays for re

        return re.sub("[\ud800-\udfff]", "\ufffd", text).encode("utf-8")


def encode_path(path: "Any") -> bytes:
    """The bytes naming ``path``: the OS's own if it came from the OS, else UTF-8 (U+FFFD for a lone surrogate)."""
    try:
        return os.fsencode(path)
    except UnicodeEncodeError:
        return encode_text(os.fspath(path))


class StdoutFailed(OSError):
    """The answer could not be written to stdout, for another reason than a closed pipe."""


class _GuardedStdout(io.RawIOBase):
    """The raw stdout: a failed write is a StdoutFailed, told apart from any other OSError."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def write(self, data: "Any") -> int:
        try:
            return os.write(self._fd, data)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise StdoutFailed(exc.errno, "cannot write to stdout: %s" % (exc.strerror or exc)) from None

    def fileno(self) -> int:
        return self._fd

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return os.isatty(self._fd)


class _Discard(object):
    """stderr when fd 2 was closed at start: diagnostics go nowhere, never to stdout."""

    encoding = "utf-8"

    @property
    def buffer(self) -> "_Discard":
        return self

    def write(self, data: "Any") -> int:
        return len(data)

    def flush(self) -> None:
        pass


class _ClosedStdout(_Discard):
    """stdout when fd 1 was closed at start: every write is a StdoutFailed, reported, not a crash."""

    def write(self, data: "Any") -> int:
        import errno

        raise StdoutFailed(errno.EBADF, "cannot write to stdout: it is closed")


def _reserve(fd: int) -> None:
    """/dev/null on ``fd`` when it is closed, so no file we open gets 0, 1 or 2 and a stray write."""
    try:
        os.fstat(fd)
    except OSError:
        try:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
        except OSError:
            pass


def guard_standard_streams() -> None:
    """Once, from ``cli.main``: closed descriptors reserved, a closed stdout failing loudly, a closed
    stderr silent, the real stdout's failures told apart; a test's own streams left as they are."""
    for fd in (0, 1, 2):
        _reserve(fd)
    if sys.stderr is None:
        sys.stderr = _Discard()  # type: ignore[assignment]
    if sys.stdout is None:
        sys.stdout = _ClosedStdout()  # type: ignore[assignment]
        return
    if sys.stdout is not sys.__stdout__:
        return
    try:
        old = sys.stdout
        fd = old.fileno()
        old.flush()
        sys.stdout = io.TextIOWrapper(
            io.BufferedWriter(_GuardedStdout(fd)),
            encoding=old.encoding,
            errors=old.errors,
            line_buffering=bool(old.line_buffering),
        )
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass


def write_bytes(data: bytes, stream: "Optional[TextIO]" = None) -> None:
    """``data`` to stdout (or ``stream``), flushed; a text-only stream (a test's) gets it decoded with
    surrogate escapes, so a path survives there too."""
    target = sys.stdout if stream is None else stream
    buffer = getattr(target, "buffer", None)
    if buffer is None:
        target.write(data.decode("utf-8", "surrogateescape"))
        target.flush()
        return
    target.flush()  # what was written as text goes first
    buffer.write(data)
    buffer.flush()


class _TextSink(object):
    """Bytes onto a text-only stream (one a test harness put in stdout's place)."""

    def __init__(self, stream: "TextIO") -> None:
        self._stream = stream

    def write(self, data: bytes) -> int:
        return self._stream.write(data.decode("utf-8", "replace"))


def byte_sink(stream: "Optional[TextIO]" = None) -> "Any":
    """``write(bytes)`` onto stdout (or ``stream``), text before it flushed: for ``assemble``'s lines."""
    target = sys.stdout if stream is None else stream
    target.flush()
    buffer = getattr(target, "buffer", None)
    return buffer if buffer is not None else _TextSink(target)


def write_out(text: str, stream: "Optional[TextIO]" = None) -> None:
    """Transcript text (any answer but a path) to stdout (or ``stream``), flushed."""
    write_bytes(encode_text(text), stream)


class Spool(object):
    """An answer written as it is made, a 64 KiB block at a time: a command streaming a whole record
    holds one block, not all of it, and pays a write a block, not a line."""

    BLOCK_BYTES = 1 << 16

    def __init__(self) -> None:
        self._parts = []  # type: list
        self._size = 0

    def add_bytes(self, data: bytes) -> None:
        self._parts.append(data)
        self._size += len(data)
        if self._size >= self.BLOCK_BYTES:
            self.flush()

    def add(self, text: str) -> None:
        self.add_bytes(encode_text(text))

    def flush(self) -> None:
        if self._parts:
            data = b"".join(self._parts)
            self._parts, self._size = [], 0
            write_bytes(data)


def write_path(path: "Any", stream: "Optional[TextIO]" = None) -> None:
    """``path`` and a newline, in the bytes that name the real file."""
    write_bytes(encode_path(path) + b"\n", stream)


def write_diagnostic(text: str, stream: "Optional[TextIO]" = None) -> None:
    """``text`` as it is to stderr (or ``stream``), paths keeping their bytes; a closed one ignored."""
    target = sys.stderr if stream is None else stream
    if target is None:
        return  # stderr closed: never fall back to stdout, where it would read as the answer
    try:
        data = text.encode("utf-8", "surrogateescape")  # surrogate escapes (paths) become their bytes
    except UnicodeEncodeError:
        data = encode_text(text)  # any other surrogate is U+FFFD
    try:
        write_bytes(data, target)
    except (OSError, ValueError):
        # stderr failing (a full disk): nothing left to tell. Its descriptor is pointed at
        # /dev/null so the interpreter's flush at exit cannot fail and turn the exit code into 120.
        if target is sys.stderr:
            silence(target)


# --- text a terminal would act on -------------------------------------------------------------
# The one rule for transcript text bound for a terminal (and for every one-line cell or
# diagnostic): the characters a terminal acts on instead of showing. The C0 controls (ESC
# opens every escape sequence: colours, cursor moves, OSC 0 window titles, OSC 52
# clipboard writes; CR and BS overwrite what was shown), DEL, and the C1 controls
# U+0080-U+009F, which a UTF-8 terminal may take as the 8-bit forms of those sequences
# (U+009B CSI, U+009D OSC, U+0090 DCS, U+009C ST). With ``line_breaks`` (one-line
# texts), also U+2028 and U+2029, where some readers break lines.
CONTROL_CODES = tuple(range(0x20)) + tuple(range(0x7F, 0xA0))
LINE_SEPARATORS = "\u2028\u2029"
_SPELLED = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"}
_TABLES = {}  # type: dict


def spell_control(code: int) -> str:
    """A control character as Python spells it: ``\\n``, ``\\x1b``, ``\\u2028``."""
    return _SPELLED.get(code) or ("\\x%02x" % code if code < 0x100 else "\\u%04x" % code)


def json_escape(code: int) -> str:
    """A character as a JSON string escape: the same value, in ASCII."""
    return "\\u%04x" % code


def _control_table(keep: str, stand_in, line_breaks: bool) -> dict:
    key = (keep, stand_in, line_breaks)
    table = _TABLES.get(key)
    if table is None:
        codes = CONTROL_CODES + (tuple(ord(c) for c in LINE_SEPARATORS) if line_breaks else ())
        table = {code: stand_in(code) if callable(stand_in) else stand_in for code in codes if chr(code) not in keep}
        _TABLES[key] = table
    return table


def terminal_safe(text: str, keep: str = "", stand_in=spell_control, line_breaks: bool = False) -> str:
    """``text`` with each character a terminal acts on (with ``line_breaks``, ``LINE_SEPARATORS`` too)
    but those in ``keep`` replaced by ``stand_in``, a string or a function of the code point. A kept
    newline keeps a CRLF's carriage return (it moves nothing a newline would not)."""
    if text.isprintable() and not (line_breaks and ("\u2028" in text or "\u2029" in text)):
        return text
    table = _control_table(keep, stand_in, line_breaks)
    if "\n" in keep and "\r\n" in text:
        return "\r\n".join(part.translate(table) for part in text.split("\r\n"))
    return text.translate(table)


def for_terminal(text: str) -> str:
    """Transcript text for a terminal: lines and tabs kept, other controls spelled out."""
    return terminal_safe(text, keep="\n\t")


def write_transcript_text(text: str) -> None:
    """Transcript text (the dump, the hand-off, ``show``): ``for_terminal`` on a terminal, else exact."""
    try:
        terminal = sys.stdout.isatty()
    except (AttributeError, ValueError, OSError):  # a closed stdout
        terminal = False
    write_out(for_terminal(text) if terminal else text)


def terminal_safe_json(document: str) -> str:
    """A JSON document with the controls JSON leaves raw (DEL, C1, U+2028, U+2029) as ``\\u`` escapes."""
    return terminal_safe(document, stand_in=json_escape, line_breaks=True)


def one_line(message: str) -> str:
    """``message``, controls spelled out: quoted text can neither split a diagnostic's line nor forge one."""
    return terminal_safe(message, keep="\t")  # a tab splits no line


def warn(message: str, stream: "Optional[TextIO]" = None) -> None:
    """One ``termsprawl-context: <message>`` line on stderr (or ``stream``); a closed stream is ignored."""
    write_diagnostic(MESSAGE_PREFIX + one_line(message) + "\n", stream)


error_line = warn  # a refusal's one line on stderr: ``termsprawl-context: <message>``


def silence(stream: "Any") -> None:
    """``stream``'s descriptor to /dev/null, so the flush at exit cannot fail again (a closed pipe, a full disk)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
