"""The 60-second mid-write guard: freshness.sh's contract, exit codes and texts."""

import os
import time

import pytest

from termsprawl_context.errors import EXIT_FAILURE, EXIT_OK, EXIT_TOO_FRESH, NotFound
from termsprawl_context.store.freshness import (
    FRESHNESS_SECONDS,
    check_fresh,
    freshness_age,
)


def warning(path, age):
    return "WARNING \u2014 %s was modified %ds ago (< 60 s threshold); skipping in-progress transcript." % (path, age)


def note(path, age):
    return (
        "NOTE \u2014 %s modified %ds ago (< 60 s); proceeding anyway "
        "(--allow-in-progress, PreCompact capture path)." % (path, age)
    )


@pytest.fixture
def touched(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text("{}\n")
    return str(path)


def test_the_threshold_is_a_minute():
    assert FRESHNESS_SECONDS == 60


def test_just_touched_is_too_fresh(touched):
    code, message = check_fresh(touched, False)
    assert code == EXIT_TOO_FRESH == 9
    age = freshness_age(touched)
    assert message in (warning(touched, age), warning(touched, age - 1))


def test_just_touched_with_the_flag_proceeds_with_a_note(touched):
    mtime = os.stat(touched).st_mtime_ns // 10**9
    code, message = check_fresh(touched, True, now=mtime + 3.9)
    assert code == EXIT_OK
    assert message == note(touched, 3)


def test_old_file_is_silent(touched):
    old = time.time() - 120
    os.utime(touched, (old, old))
    assert check_fresh(touched, False) == (EXIT_OK, None)
    assert check_fresh(touched, True) == (EXIT_OK, None)


def test_the_boundary_is_whole_seconds(touched):
    os.utime(touched, ns=(1000 * 10**9 + 999999999, 1000 * 10**9 + 999999999))
    assert freshness_age(touched, now=1059.999) == 59
    assert check_fresh(touched, False, now=1059.999) == (EXIT_TOO_FRESH, warning(touched, 59))
    assert check_fresh(touched, False, now=1060.0) == (EXIT_OK, None)


def test_a_future_mtime_counts_as_fresh_as_the_seed_does(touched):
    os.utime(touched, (2000, 2000))
    assert freshness_age(touched, now=1990) == -10
    assert check_fresh(touched, False, now=1990) == (EXIT_TOO_FRESH, warning(touched, -10))


def test_missing_directory_and_fifo_are_not_found(tmp_path):
    fifo = tmp_path / "f.jsonl"
    os.mkfifo(str(fifo))
    for path in (str(tmp_path / "missing.jsonl"), str(tmp_path), str(fifo)):
        assert check_fresh(path, False) == (EXIT_FAILURE, "file not found: %s" % path)
        with pytest.raises(NotFound) as caught:
            freshness_age(path)
        assert caught.value.exit_code == 1


def test_a_link_to_a_file_is_its_file(tmp_path, touched):
    link = tmp_path / "link.jsonl"
    link.symlink_to(touched)
    old = time.time() - 300
    os.utime(touched, (old, old))
    assert check_fresh(str(link), False) == (EXIT_OK, None)
