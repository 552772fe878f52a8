"""The end-to-end suite's one switch: ``$TERMSPRAWL_SKIP_E2E`` (a reason) skips every test
in this folder before any fixture starts a client (see clients.py)."""

import os
from pathlib import Path

import pytest

from .clients import HERE, SKIP_E2E_ENV


def pytest_collection_modifyitems(config, items):
    reason = os.environ.get(SKIP_E2E_ENV, "").strip()
    if not reason:
        return
    mark = pytest.mark.skip(reason="%s=%s" % (SKIP_E2E_ENV, reason))
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(mark)
