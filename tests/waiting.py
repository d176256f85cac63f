"""Waiting for another process, and Ctrl-C that reaches it, in tests (issue 38, point 3).

A test that waits for another process waits for a condition — a trial count in the
storage, a line it prints, a file — never for a duration: a busy machine (two cores shared
with other work) makes any duration too short. The bound of a wait, :data:`WAIT_SECONDS`,
is one only a real failure reaches (a process that hangs or died), and the failure says
what was waited for.

A shell that ignores SIGINT — ``nohup``, or a background job ``bash -c '… &'`` — passes
that disposition on to pytest and to every process a test starts; a Ctrl-C test then
sends a signal that nothing heeds. The Ctrl-C tests set SIGINT's disposition themselves:
:func:`heeding_ctrl_c` in a process they start, :func:`ctrl_c_heeded` in their own.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import time
from collections.abc import Callable, Iterator

__all__ = ["WAIT_SECONDS", "ctrl_c_heeded", "ended_after", "heeding_ctrl_c", "wait_until"]

WAIT_SECONDS = 600.0
"""How long a wait may last before it fails: ten minutes, which a process that does its
work reaches on no machine that runs the suite at all (a fresh-clone run on a busy 2-core
machine took 1 h 49 min, its slowest wait some seconds)."""


def wait_until(condition: Callable[[], object], *, what: str,
               timeout: float = WAIT_SECONDS, poll: float = 0.3) -> None:
    """Return once ``condition()`` is true; fail, naming ``what`` was waited for, after
    ``timeout`` seconds.

    Parameters
    ----------
    condition : callable
        Polled every ``poll`` seconds, first at once.
    what : str
        What the condition means, for the failure: "both workers running trials".
    timeout, poll : float
        Seconds.
    """
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:.0f} s for {what}, in vain")
        time.sleep(poll)


@contextlib.contextmanager
def ended_after(*processes: subprocess.Popen) -> Iterator[None]:
    """Kill those of ``processes`` still running when the block ends (it failed before
    they ended): a failed test leaves no process behind to load the machine."""
    try:
        yield
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.communicate()


def heeding_ctrl_c() -> None:
    """``preexec_fn`` of a process a Ctrl-C test starts: SIGINT to its default, which a
    Python process turns into KeyboardInterrupt, whatever the test's shell ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextlib.contextmanager
def ctrl_c_heeded() -> Iterator[None]:
    """This process turns SIGINT into KeyboardInterrupt (Python's handler) inside the
    block, as a terminal's Ctrl-C does, whatever the test's shell ignored; the previous
    disposition after it."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
