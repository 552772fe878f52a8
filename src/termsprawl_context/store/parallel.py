"""Share a full scan of the store between the machine's cores, with the same answer.

``map_shared(func, items, weights, min_weight)`` is ``[func(item) for item in items]``:
when the total weight (bytes to scan) reaches ``min_weight`` and the platform can fork,
the items are dealt out by weight to forked processes that send their results back
through a pipe (``marshal``: no import cost). A helper that goes wrong in any way has its
share computed by the parent. ``func`` must write nothing and return plain data (None,
bools, numbers, str, bytes, and containers of them). ``TERMSPRAWL_JOBS`` caps the
processes (``1``: never fork).
"""

import marshal
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, List, Mapping, Optional, Sequence, Tuple


JOBS_ENV = "TERMSPRAWL_JOBS"

# Beyond a few processes a store scan is bound by memory bandwidth, not by cores.
MAX_JOBS = 4

_PIPE_READ = 1 << 20


def available_jobs(environ: "Optional[Mapping[str, str]]" = None) -> int:
    """How many processes a scan may use: ``$TERMSPRAWL_JOBS`` if a positive integer, else
    the CPUs this process may run on (at most ``MAX_JOBS``); 1 without ``os.fork``."""
    if not hasattr(os, "fork"):
        return 1
    env = os.environ if environ is None else environ
    value = env.get(JOBS_ENV, "").strip()
    if value.isdigit() and int(value) > 0:
        return min(int(value), 64)
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_JOBS))


def file_weight(path: str) -> int:
    """A file's share of the work: its size, 0 when it cannot be stat'ed (nothing to skip)."""
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def deal(weights: "Sequence[int]", parts: int) -> "List[List[int]]":
    """Item indices dealt heaviest first to the lightest of ``parts`` shares, each share in index order."""
    shares = [[] for _ in range(parts)]  # type: List[List[int]]
    loads = [0] * parts
    for index in sorted(range(len(weights)), key=lambda i: -weights[i]):
        lightest = loads.index(min(loads))
        shares[lightest].append(index)
        loads[lightest] += weights[index]
    return [sorted(share) for share in shares if share]


def _child(func, items, share, write_fd) -> None:
    """In the forked process: compute the share, send it, exit without the parent's
    clean-up (its buffered output belongs to the parent)."""
    code = 1
    try:
        view = memoryview(marshal.dumps([func(items[i]) for i in share]))
        while view:
            view = view[os.write(write_fd, view) :]
        code = 0
    except BaseException:  # a failure is reported by the exit status; the parent redoes the work
        pass
    finally:
        os._exit(code)


def _collect(pid: int, read_fd: int, expected: int) -> "Optional[list]":
    """The results a helper sent, or None if it failed in any way."""
    parts = []  # type: List[bytes]
    failed = False
    try:
        parts.extend(iter(lambda: os.read(read_fd, _PIPE_READ), b""))
    except OSError:
        failed = True
    finally:
        os.close(read_fd)
    try:
        _, status = os.waitpid(pid, 0)
    except OSError:
        status = 1
    if failed or status != 0:
        return None
    data = b"".join(parts)
    del parts[:]  # the pieces freed before the results are built: one copy of the bytes at a time
    try:
        results = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return None
    return results if isinstance(results, list) and len(results) == expected else None


def map_shared(
    func: "Callable[[Any], Any]",
    items: "Sequence[Any]",
    weights: "Sequence[int]",
    min_weight: int,
    jobs: "Optional[int]" = None,
) -> list:
    """``[func(item) for item in items]``, shared out as the module says."""
    jobs = available_jobs() if jobs is None else jobs
    if jobs <= 1 or len(items) < 2 or sum(weights) < min_weight or not hasattr(os, "fork"):
        return [func(item) for item in items]
    shares = deal(weights, min(jobs, len(items)))
    helpers: "List[Tuple[Optional[int], int, List[int]]]" = []  # (pid or None, read fd, share)
    try:
        for share in shares[1:]:
            fds: "Tuple[int, ...]" = ()
            try:
                fds = os.pipe()
                pid = os.fork()
            except OSError:
                for fd in fds:
                    os.close(fd)
                helpers.append((None, -1, share))
                continue
            read_fd, write_fd = fds
            if pid == 0:
                os.close(read_fd)
                _child(func, items, share, write_fd)
            os.close(write_fd)
            helpers.append((pid, read_fd, share))
        results = [None] * len(items)  # type: List[Any]
        for i in shares[0]:
            results[i] = func(items[i])
        while helpers:
            helper, helper_fd, share = helpers.pop(0)
            got = None if helper is None else _collect(helper, helper_fd, len(share))
            if got is None:
                got = [func(items[i]) for i in share]
            for i, value in zip(share, got):
                results[i] = value
        return results
    finally:
        for helper, helper_fd, _share in helpers:  # only on the way out of an exception
            if helper is not None:
                import signal

                try:
                    os.close(helper_fd)
                    os.kill(helper, signal.SIGKILL)
                    os.waitpid(helper, 0)
                except OSError:
                    pass
