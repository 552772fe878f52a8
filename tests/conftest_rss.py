"""Peak memory of a process, measured the one way that is true after fork and exec.

``ru_maxrss`` is inherited across ``fork`` on Linux (a child started from a 200 MB test
runner reports 200 MB), so the high-water mark is read from ``/proc/self/status``
(``VmHWM``, reset by ``exec``); ``ru_maxrss`` only where there is no ``/proc``.
Imported by probes run in child processes, so it uses the standard library only.
"""

import os
import resource
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def peak_rss_mb():
    """This process's peak resident set size, in MiB."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    unit = 1024 * 1024 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB elsewhere
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // unit


def rss_env():
    """The environment for a probe child: this folder importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = HERE + os.pathsep + env.get("PYTHONPATH", "")
    return env
