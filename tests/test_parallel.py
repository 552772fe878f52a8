"""parallel.map_shared: the same results in item order, however the work is shared."""

import os

import pytest

from termsprawl_context.store import parallel
from termsprawl_context.store.parallel import JOBS_ENV, available_jobs, deal, map_shared

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")


def test_deal_balances_by_weight_and_keeps_index_order():
    shares = deal([5, 1, 1, 1, 1, 1], 2)
    assert sorted(i for s in shares for i in s) == list(range(6))
    assert shares == [[0], [1, 2, 3, 4, 5]]
    assert all(s == sorted(s) for s in deal([3, 9, 2, 7, 7, 1, 4], 3))
    assert deal([1], 4) == [[0]]


@needs_fork
@pytest.mark.parametrize("jobs", [1, 2, 3, 4])
def test_results_come_back_in_item_order(jobs):
    items = list(range(50))
    parent = os.getpid()
    got = map_shared(lambda i: (i * i, os.getpid() == parent), items, [1] * 50, 0, jobs)
    assert [value for value, _ in got] == [i * i for i in items]
    in_parent = sum(1 for _, here in got if here)
    assert (in_parent == 50) == (jobs == 1)  # the work really was shared


@needs_fork
def test_below_the_threshold_nothing_forks():
    parent = os.getpid()
    assert map_shared(lambda i: os.getpid() == parent, [1, 2, 3], [10, 10, 10], 31, 2) == [True] * 3


@needs_fork
def test_a_helper_that_fails_has_its_share_redone_by_the_parent():
    parent = os.getpid()

    def func(i):
        if os.getpid() != parent:
            if i == 7:
                raise ValueError("boom")  # the helper exits 1
            if i == 8:
                os._exit(0)  # the helper sends nothing
        return -i

    assert map_shared(func, list(range(10)), [1] * 10, 0, 2) == [-i for i in range(10)]


@needs_fork
def test_results_that_marshal_cannot_send_are_computed_here():
    parent = os.getpid()
    got = map_shared(lambda i: object if os.getpid() != parent else i, [0, 1, 2, 3], [1] * 4, 0, 2)
    assert got == [0, 1, 2, 3]


@needs_fork
def test_an_error_in_the_parent_leaves_no_helper_behind():
    parent = os.getpid()

    def func(i):
        if os.getpid() == parent:
            raise KeyError(i)
        return i

    with pytest.raises(KeyError):
        map_shared(func, list(range(6)), [1] * 6, 0, 3)
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def test_jobs_from_the_environment():
    if not hasattr(os, "fork"):
        assert available_jobs({JOBS_ENV: "8"}) == 1
        return
    assert available_jobs({JOBS_ENV: "1"}) == 1
    assert available_jobs({JOBS_ENV: "3"}) == 3
    default = available_jobs({})
    assert 1 <= default <= parallel.MAX_JOBS
    for junk in ("0", "-2", "two", ""):
        assert available_jobs({JOBS_ENV: junk}) == default
