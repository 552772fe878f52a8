"""The real Gemini CLI's TUI in a pseudo-terminal (stdlib ``pty``): start it, type a prompt,
wait until the scripted model has been asked enough times, and keep everything it drew."""

import os
import pty
import re
import select
import signal
import time

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
# What 0.61's TUI draws when a tool call waits for the person (the window title and the dialog).
CONFIRMATION_MARKS = ("Action Required", "Allow execution", "Allow once")


def _as_a_person_runs_it(env):
    """The environment without CI's markers: ink (the TUI of Gemini CLI 0.61 and others) draws
    only its last frame when it sees CI, CONTINUOUS_INTEGRATION or a CI_* variable (is-in-ci),
    so under `CI=true bash .ci/run` the start screen never appeared; a person's terminal has none."""
    return {k: v for k, v in env.items() if k not in ("CI", "CONTINUOUS_INTEGRATION") and not k.startswith("CI_")}


class Tui(object):
    def __init__(self, argv, cwd, env):
        env = _as_a_person_runs_it(env)
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become the CLI
            os.chdir(cwd)
            os.execve(argv[0], argv, env)
        self.screen = b""

    def pump(self, seconds, until=None):
        """Read what it draws for up to ``seconds``, or until ``until()`` holds."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if until is not None and until():
                return True
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if ready:
                try:
                    self.screen += os.read(self.fd, 65536)
                except OSError:
                    return False
        return until() if until is not None else True

    def type(self, text):
        os.write(self.fd, text.encode())
        self.pump(1)
        os.write(self.fd, b"\r")

    def text(self):
        return ANSI.sub("", self.screen.decode("utf-8", "replace"))

    def close(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except OSError:
            pass
        os.close(self.fd)
