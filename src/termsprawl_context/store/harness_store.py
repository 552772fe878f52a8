"""cli/'s old import path for names that moved (issue 28): the lead deletes this module
once cli/ imports them from their homes (``errors.NotRecorded``, ``harness.chosen``,
``harness.require_native_records``, ``store.search.search_other``, ``Harness.describe``)."""

from termsprawl_context.errors import NotRecorded
from termsprawl_context.harness import chosen as _chosen
from termsprawl_context.harness import get as _get
from termsprawl_context.harness import require_native_records as require_claude_record
from termsprawl_context.store.catalog import HarnessSession
from termsprawl_context.store.search import search_other

__all__ = ["HarnessSession", "NotRecorded", "require_claude_record", "chosen_harnesses", "describe", "search_other"]


def chosen_harnesses(name, include_claude=True):
    return _chosen(name, include_claude)


def describe(session):
    return _get(session.harness).describe(session.path, session.mtime, session.size, session.session_id)
