"""Shared fixtures: the repo's paths, a freshly built artifact, the real corpus.

Tests that run the command run the built one-file artifact, built once per session
from ``src/`` by ``build_zipapp.build`` into a temp dir, so they always test the code
under review; CI separately checks the committed ``dist/`` copy is byte-identical.
"""

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "src"
# The real transcripts live beside the checkout, never in it; a user's clone has none.
CORPUS = REPO.parent / "shared" / "corpus"

if str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))


def snapshot(*roots):
    """Every entry under ``roots``: kind and mode, bytes (or link target), inode and
    mtime. Equal before and after a run means the run created, changed, rewrote and
    removed nothing there."""
    found = {}
    for root in roots:
        for directory, dirs, files in os.walk(str(root)):
            for name in dirs + files:
                path = os.path.join(directory, name)
                st = os.lstat(path)
                body = None
                if stat.S_ISLNK(st.st_mode):
                    body = os.readlink(path)
                elif stat.S_ISREG(st.st_mode):
                    with open(path, "rb") as f:
                        body = f.read()
                found[path] = (st.st_mode, body, st.st_ino, st.st_mtime_ns)
    return found


# Set (by .ci/run) to 1: a missing corpus fails the run instead of skipping its tests.
REQUIRE_CORPUS_ENV = "TERMSPRAWL_REQUIRE_CORPUS"
NO_CORPUS = "no ../shared/corpus beside this checkout"


def corpus_required():
    return os.environ.get(REQUIRE_CORPUS_ENV) == "1"


class CorpusMissing(Exception):
    """Raised at collection when the corpus is required but absent: the run fails."""


def corpus_files():
    """Every ``*.jsonl`` of the shared corpus, sorted; empty where it is absent (and
    ``CorpusMissing`` instead when ``$TERMSPRAWL_REQUIRE_CORPUS`` is 1)."""
    files = sorted(p for p in CORPUS.rglob("*.jsonl") if p.is_file()) if CORPUS.is_dir() else []
    if not files and corpus_required():
        raise CorpusMissing("%s (%s=1)" % (NO_CORPUS, REQUIRE_CORPUS_ENV))
    return files


def corpus_params(paths, width=40):
    """``parametrize`` cases, one per corpus file; without the corpus, one skipped case that
    says why (an empty list would skip as "got empty parameter set", naming no cause)."""
    if not paths:
        return [pytest.param(None, marks=pytest.mark.skip(reason=NO_CORPUS), id="no-corpus")]
    return [pytest.param(p, id=p.name[-width:]) for p in paths]


@pytest.fixture(scope="session")
def corpus():
    files = corpus_files()
    if not files:
        pytest.skip(NO_CORPUS)
    return files


@pytest.fixture(scope="session")
def pyz(tmp_path_factory):
    """Path of a one-file artifact freshly built from src/."""
    sys.path.insert(0, str(REPO))
    try:
        import build_zipapp
    finally:
        sys.path.remove(str(REPO))
    out = tmp_path_factory.mktemp("artifact") / "termsprawl-context.pyz"
    build_zipapp.build(out)
    return out


@pytest.fixture
def empty_home(tmp_path_factory):
    """An empty, read-only directory to stand in for HOME: nothing may be written there."""
    home = tmp_path_factory.mktemp("home")
    home.chmod(0o555)
    yield home
    home.chmod(0o755)


@pytest.fixture
def run_pyz(pyz, empty_home):
    """Run the artifact with python3 in a clean environment; returns CompletedProcess
    with bytes stdout/stderr. Extra env entries may be passed (None removes one)."""

    def run(args, cwd=None, env=None, stdin=None, timeout=60):
        base = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(empty_home),
            "LANG": "C",
        }
        for key, value in (env or {}).items():
            if value is None:
                base.pop(key, None)
            else:
                base[key] = value
        return subprocess.run(
            [sys.executable, str(pyz)] + [str(a) for a in args],
            cwd=str(cwd) if cwd else None,
            env=base,
            input=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=timeout,
        )

    return run


def one_error_line(done, *words):
    """The one stderr line of a refusal, holding every one of ``words``."""
    err = done.stderr.decode("utf-8", "replace")
    assert err.startswith("termsprawl-context: ") and err.count("\n") == 1, err
    for word in words:
        assert word in err, err
    return err
