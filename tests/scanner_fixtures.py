"""The session listing's two scanners (harness/claude/session_scan.py): a fixture that runs a
test module under both, the fast one and the plain one it must equal."""

import pytest

from termsprawl_context.harness.claude import session_scan


@pytest.fixture(params=["fast", "plain"])
def both_scanners(request, monkeypatch):
    """Runs a test under ``session_scan.FAST_SCANNER`` and ``PLAIN_SCANNER`` (the switch
    ``session_scan.scanner``). A module opts in with
    ``pytestmark = pytest.mark.usefixtures("both_scanners")``."""
    chosen = session_scan.FAST_SCANNER if request.param == "fast" else session_scan.PLAIN_SCANNER
    monkeypatch.setattr(session_scan, "scanner", chosen)
    return chosen
