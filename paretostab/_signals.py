"""Stop signals: a process asked to stop by Ctrl-C, SIGTERM or SIGHUP stops alike.

:func:`stop_signals` makes SIGTERM and SIGHUP stop a process as Ctrl-C does, with an
:class:`~paretostab._errors.Interrupted` naming the signal (a ``KeyboardInterrupt``), so
that a command cleans up the same way whatever asked it to stop and exits with the
signal's code; :func:`raise_if_stopped` raises one whose exception a clean-up swallowed.

A signal the process was started ignoring stays ignored (:func:`heeded_stop_signals`):
``nohup`` ignores SIGHUP so that a study outlives the ssh session that
started it, and a shell ignores SIGINT for its background jobs.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator

from paretostab._errors import Interrupted

__all__ = ["DEFAULT_STOP_WAIT", "STOP_SIGNALS", "heeded_stop_signals", "interrupts_unsaid",
           "raise_if_stopped", "stop_signals"]

DEFAULT_STOP_WAIT = 30.0
"""Seconds that the workers of ``tune --workers`` which a stop signal has not stopped are
waited for, all together, before they are killed (``--stop-wait``)."""

STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                     if hasattr(signal, name))
"""The signals that ask a process to stop: Ctrl-C, SIGTERM, SIGHUP (where the platform
has them)."""


#: The stop signals whose exception a clean-up swallowed (:func:`interrupts_unsaid`).
_received: list[int] = []


def heeded_stop_signals() -> tuple[int, ...]:
    """The :data:`STOP_SIGNALS` this process does not ignore: the ones whose handler may
    be replaced. A signal ignored when a process starts (``SIG_IGN``, inherited: ``nohup``
    for SIGHUP, a non-interactive shell's background job for SIGINT) was ignored on
    purpose by whoever started it, and stays ignored — in the worker processes too, which
    inherit it (``nohup tune`` once stopped when its ssh session closed)."""
    return tuple(signum for signum in STOP_SIGNALS
                 if signal.getsignal(signum) != signal.SIG_IGN)


def _raise_interrupted(signum, frame) -> None:
    raise Interrupted(signum)


def raise_if_stopped(deferred: int | None = None) -> None:
    """Raise the :class:`~paretostab._errors.Interrupted` of the ``deferred`` signal, if
    given, else of a stop signal whose exception was swallowed (:func:`interrupts_unsaid`),
    once: a signal handler's exception is raised in whatever the main thread runs, and
    Python ignores exceptions in a weakref callback or a ``__del__`` (a database driver's
    clean-up). A loop that waits calls it after each wait."""
    signum = deferred if deferred is not None else (_received[-1] if _received else None)
    _received.clear()  # raised once
    if signum is not None:
        raise Interrupted(signum)


@contextlib.contextmanager
def interrupts_unsaid() -> Iterator[None]:
    """During the block, an :class:`~paretostab._errors.Interrupted` raised where Python
    ignores exceptions (a garbage collector's weakref callback, a ``__del__``) is not
    printed ("Exception ignored in: …" and a traceback) but kept for
    :func:`raise_if_stopped`, which raises it where it can be handled. Other such
    exceptions are shown as before."""
    shown = sys.unraisablehook

    def kept(unraisable) -> None:
        if isinstance(unraisable.exc_value, Interrupted):
            _received.append(unraisable.exc_value.signum)
        else:
            shown(unraisable)

    sys.unraisablehook = kept
    try:
        yield
    finally:
        sys.unraisablehook = shown


@contextlib.contextmanager
def stop_signals() -> Iterator[None]:
    """During the block, each of :func:`heeded_stop_signals` raises an
    :class:`~paretostab._errors.Interrupted` (a ``KeyboardInterrupt``) naming it, as Ctrl-C
    raises a ``KeyboardInterrupt`` by default: a command cleans up the same way whatever
    asked it to stop, and exits with the signal's code; one that a clean-up swallowed is
    kept for :func:`raise_if_stopped` (:func:`interrupts_unsaid`). Only in the main thread
    (where Python delivers signals); the previous handlers come back at the end."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _received.clear()
    previous = {signum: signal.signal(signum, _raise_interrupted)
                for signum in heeded_stop_signals()}
    try:
        with interrupts_unsaid():
            yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        _received.clear()
