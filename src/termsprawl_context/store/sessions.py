"""Sessions described by their providers (``Harness.describe``): the listing of a store
(``sessions``), one session found (``find``), and the title of one session wherever it is
named (``find --json``, ``show``, ``search``'s hits). The sessions are ``store.catalog``'s.
"""

from collections import namedtuple
from typing import Any, Callable, List, Optional, Tuple

from termsprawl_context import harness as harnesses
from termsprawl_context.errors import SessionIdNotFound
from termsprawl_context.model import SessionInfo
from termsprawl_context.store import catalog
from termsprawl_context.store import parallel
from termsprawl_context.store.paths import ROOTED
from termsprawl_context.transcript.titles import Title


# Describing a session costs about the same whatever its size (head and tail only), so
# a listing is shared between processes by its number of sessions. A helper costs about
# 2 ms (fork, collect, unpack) and a session 0.2-0.7 ms of CPU, so two processes break
# even near 10 sessions (benchmarks/bench_sessions_cli.py prints both figures); the
# threshold is several times that, since a small listing is fast either way.
PARALLEL_MIN_SESSIONS = 64


# The sessions listed, the directories that could not be listed, and ``render(session)`` of
# each session in the same order when the scan was given a renderer (else None).
ScanResult = namedtuple("ScanResult", "sessions skipped rendered", defaults=(None,))


def _shared(describe: Callable[[str], Any], paths: List[str]) -> List[Any]:
    return parallel.map_shared(describe, paths, [1] * len(paths), PARALLEL_MIN_SESSIONS)


def scan_sessions(
    projects_dir: str,
    project: Optional[str] = None,
    summaries: bool = True,
    render: Optional[Callable[[SessionInfo], Any]] = None,
    provider: Any = ROOTED,
) -> ScanResult:
    """Every session of ``provider``'s store (only ``project``'s folder when given), oldest
    first by mtime, as its provider describes a store (``summaries``: titled by every
    summary the listing reads, else each by its own file). A missing store is empty."""
    skipped: List[str] = []
    paths = catalog.store_paths(provider, projects_dir, project, skipped)
    found, texts = provider.describe_store(paths, projects_dir, render, summaries, _shared)
    return ScanResult(found, skipped, texts if render is not None else None)


def describe_resolved(resolved: catalog.Resolved, projects_dir: str) -> Tuple[SessionInfo, Tuple[str, ...]]:
    """The session ``catalog.resolve`` found, described alone (with the id it was found by),
    and the paths of its other copies. A copy that vanished or stopped being a session
    since the walk gives way to the next best one (``SessionIdNotFound`` when none is left)."""
    provider = harnesses.get(resolved.harness)
    ranked = (resolved.path,) + resolved.copies
    for number, path in enumerate(ranked):
        found, _ = provider.describe_store([path], projects_dir, summaries=False)
        if found:
            return found[0]._replace(session_id=resolved.session_id), ranked[:number] + ranked[number + 1 :]
    raise SessionIdNotFound(resolved.session_id)


def session_title(path: str, session_id: str = "", harness: str = ROOTED.name) -> Title:
    """The title of the session at ``path`` and its source as ``harness`` describes it (``NO_TITLE`` if unread)."""
    info = harnesses.get(harness).describe(path, session_id=session_id)
    return Title(info.title, info.title_source)


def with_session_title(info: SessionInfo) -> SessionInfo:
    """``info`` (one session described alone) titled as ``sessions`` would title it."""
    title = session_title(info.transcript_path, info.session_id, info.harness)
    return info._replace(title=title.text, title_source=title.source) if title.source else info
