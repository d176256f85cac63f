"""Waiting for another process, and Ctrl-C that reaches it, in tests (issue 38, point 3).

A test that waits for another process waits for a condition — a trial count in the
storage, a line it prints, a file — never for a duration: a busy machine (two cores shared
with other work) makes any duration too short. The bound of a wait, :data:`WAIT_SECONDS`,
is one only a real failure reaches (a process that hangs or died), and the failure says
what was waited for.

A shell that ignores a stop signal — ``nohup`` SIGHUP, a background job ``bash -c '… &'``
SIGINT — passes that disposition on to pytest and to every process a test starts, and
``tune`` keeps a stop signal it was started ignoring: a test of Ctrl-C or SIGHUP then
sends a signal that nothing heeds. Those tests set the dispositions themselves:
:func:`heeding_stop_signals` in a process they start, :func:`stop_signals_heeded` in
their own.
"""

from __future__ import annotations

import contextlib
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import optuna

from paretostab._errors import InvalidInputError
from paretostab._storage import open_storage

__all__ = ["WAIT_SECONDS", "complete_trials_in", "current", "ended_after", "heeding_stop_signals",
           "stop_signals_heeded", "wait_until"]

WAIT_SECONDS = 600.0
"""How long a wait may last before it fails: ten minutes, which a process that does its
work reaches on no machine that runs the suite at all (a fresh-clone run on a busy 2-core
machine took 1 h 49 min, its slowest wait some seconds)."""


def wait_until(condition: Callable[[], object], *, what: str,
               timeout: float = WAIT_SECONDS, poll: float = 0.3,
               process: subprocess.Popen | None = None) -> None:
    """Return once ``condition()`` is true; fail, naming ``what`` was waited for, after
    ``timeout`` seconds, or at once when ``process`` (the one expected to bring the
    condition about) has ended without it.

    Parameters
    ----------
    condition : callable
        Polled every ``poll`` seconds, first at once.
    what : str
        What the condition means, for the failure: "both workers running trials".
    timeout, poll : float
        Seconds.
    process : subprocess.Popen, optional
        Its exit code and the end of its piped standard error are in the failure.
    """
    deadline = time.monotonic() + timeout
    while not condition():
        if process is not None and process.poll() is not None and not condition():
            _, err = process.communicate()
            raise AssertionError(f"waited for {what}, in vain: the process ended first "
                                 f"(exit code {process.returncode}){_tail(err)}")
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:.0f} s for {what}, in vain")
        time.sleep(poll)


def _tail(err: str | bytes | None) -> str:
    """The end of a process's standard error, for a failure; nothing when not piped."""
    if not err:
        return ""
    text = err.decode(errors="replace") if isinstance(err, bytes) else err
    return "; its standard error ended:\n" + text[-3000:]


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


def heeding_stop_signals() -> None:
    """``preexec_fn`` of a process a test sends a stop signal to: SIGINT, SIGHUP and SIGTERM
    at their defaults (a Python process turns SIGINT into KeyboardInterrupt), whatever the
    test's shell ignored."""
    for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)


@contextlib.contextmanager
def stop_signals_heeded() -> Iterator[None]:
    """This process heeds SIGINT (Python's handler: KeyboardInterrupt, as a terminal's
    Ctrl-C), SIGHUP and SIGTERM (their defaults) inside the block, whatever the test's
    shell ignored; the previous dispositions after it."""
    wanted = {signal.SIGINT: signal.default_int_handler, signal.SIGHUP: signal.SIG_DFL,
              signal.SIGTERM: signal.SIG_DFL}
    previous = {signum: signal.signal(signum, handler) for signum, handler in wanted.items()}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def current(url, name):
    """The study as it is now, or None before tune has made it (a poll never creates the
    storage: it opens it with must_exist, and waits while another process creates the
    schema)."""
    try:
        return optuna.load_study(study_name=name, storage=open_storage(url, must_exist=True))
    except (InvalidInputError, KeyError):
        return None


def complete_trials_in(database: Path) -> int:
    """How many trials of the SQLite file ``database`` are complete, 0 before ``tune`` has
    made it (read-only: a poll never races the schema creation)."""
    try:
        connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
        with contextlib.closing(connection):
            return connection.execute(
                "SELECT COUNT(*) FROM trials WHERE state = 'COMPLETE'").fetchone()[0]
    except sqlite3.Error:  # the file or its tables do not exist yet
        return 0
