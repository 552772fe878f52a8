"""OpenCode's database, read-only: one connection per question, never a write, never a
database created (URI ``mode=ro``; a WAL database is read with its ``-wal``, as SQLite
does on open). Every row's ``data`` is fetched only when it is at most ``MAX_ROW_BYTES``
long (a longer one reads as absent), so a reader holds one bounded row at a time.

Failures are ``OSError`` subclasses (the interface's "cannot be opened"), by name: no
``sqlite3`` module in this Python, a database that is missing, locked, not a database
or half-written (``DatabaseUnreadable``).
"""

import os

from termsprawl_context.jsonl import MAX_LINE_BYTES
from termsprawl_context.errors import DatabaseUnreadable

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, Iterator, List, Optional, Tuple


MAX_ROW_BYTES = MAX_LINE_BYTES  # the line readers' one bound, for a row's JSON
# How long a reader waits on a writer's lock before it refuses (seconds).
BUSY_TIMEOUT = 2.0
SESSION_COLUMNS = "id, parent_id, directory, title, time_created, time_updated"


def has_sqlite() -> bool:
    try:
        import sqlite3  # noqa: F401
    except ImportError:
        return False
    return True


def _uri(path: str) -> str:
    # A file name may hold URI syntax; these three are the ones a path can carry.
    quoted = path.replace("%", "%25").replace("?", "%3f").replace("#", "%23")
    return "file:%s?mode=ro" % quoted


def connect(path: str, label: str) -> "Any":
    """A read-only connection; raises DatabaseUnreadable (``no_sqlite`` first, for a Python without sqlite3) (never creates the
    file: a missing or non-regular one is refused before SQLite sees it)."""
    try:
        import sqlite3
    except ImportError:
        raise DatabaseUnreadable.no_sqlite(label) from None
    try:
        st = os.stat(path)
    except (OSError, ValueError) as exc:
        raise DatabaseUnreadable(path, getattr(exc, "strerror", None) or str(exc)) from None
    if (st.st_mode & 0o170000) != 0o100000:
        raise DatabaseUnreadable(path, "not a regular file")
    try:
        conn = sqlite3.connect(_uri(os.path.abspath(path)), uri=True, timeout=BUSY_TIMEOUT)
        conn.execute("PRAGMA query_only = 1")
    except sqlite3.Error as exc:
        raise DatabaseUnreadable(path, str(exc)) from None
    return conn


def _rows(path: str, label: str, sql: str, args: tuple) -> "Iterator[tuple]":
    """The query's rows, streamed; a SQLite failure at any row becomes DatabaseUnreadable."""
    conn = connect(path, label)  # no sqlite3 refused first, when this Python has no sqlite3
    import sqlite3

    try:
        cursor = conn.execute(sql, args)
        while True:
            row = cursor.fetchone()
            if row is None:
                return
            yield row
    except sqlite3.Error as exc:
        raise DatabaseUnreadable(path, str(exc)) from None
    finally:
        conn.close()


def session_rows(path: str, label: str) -> "List[tuple]":
    """Every session ``(id, parent_id, directory, title, time_created, time_updated)``,
    newest update first."""
    return list(_rows(path, label, "SELECT %s FROM session ORDER BY time_updated DESC, id" % SESSION_COLUMNS, ()))


def session_row(path: str, label: str, session_id: str) -> "Optional[tuple]":
    for row in _rows(path, label, "SELECT %s FROM session WHERE id = ?" % SESSION_COLUMNS, (session_id,)):
        return row
    return None


def child_ids(path: str, label: str, session_id: str) -> "List[str]":
    """The sessions whose ``parent_id`` is ``session_id`` (its sub-agents), oldest first."""
    sql = "SELECT id FROM session WHERE parent_id = ? ORDER BY time_created, id"
    return [row[0] for row in _rows(path, label, sql, (session_id,)) if isinstance(row[0], str)]


def message_rows(path: str, label: str, session_id: str, newest_first: bool = False) -> "Iterator[Tuple[Any, ...]]":
    """``(message id, message data or None, part id, part data or None)`` of the session,
    in conversation order (message creation time, then part id), or its reverse: the
    database sorts (``ORDER BY ... DESC`` on its indexes), the reader holds one row."""
    order = "DESC" if newest_first else "ASC"
    bound = MAX_ROW_BYTES
    sql = (
        "SELECT m.id, CASE WHEN length(m.data) <= %d THEN m.data END, p.id, "
        "CASE WHEN length(p.data) <= %d THEN p.data END "
        "FROM message m LEFT JOIN part p ON p.message_id = m.id "
        "WHERE m.session_id = ? ORDER BY m.time_created %s, m.id %s, p.id %s" % (bound, bound, order, order, order)
    )
    return _rows(path, label, sql, (session_id,))
