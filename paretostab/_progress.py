"""Progress of a long command on stderr: a bar on a terminal, plain lines elsewhere.

Under ``nohup``, CI, a batch scheduler or a notebook cell that captures the output, stderr
is not a terminal and a redrawn bar shows nothing useful; :class:`ProgressLines` writes a
plain line instead, at a steady pace (every :data:`EVERY` steps or every
:data:`DEFAULT_SECONDS` seconds — the environment variable :data:`SECONDS_VARIABLE` sets
other seconds — whichever comes first), then a final line (a tiny study of 12 trials)::

    study a: 10/12 trials, front 2, area 0.241, 1 s elapsed, about 0 s left
    study a: 12/12 trials, front 3, area 0.245, done in 2 s

:func:`progress_bar` chooses between them; ``tune``, the report's replicates and refits
and ``compare`` use it with their ``progress`` parameter: None (the default) a tqdm bar
on a terminal and plain lines otherwise, True the bar, False nothing.

The bar is tqdm's console bar, or its notebook widget in a Jupyter kernel that has
ipywidgets (:func:`bar_class`); ``tqdm.auto`` is not used: in a notebook without
ipywidgets it warns (``TqdmWarning``) as soon as it is imported, whatever the bar.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from types import TracebackType
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from tqdm.std import tqdm

__all__ = ["DEFAULT_SECONDS", "EVERY", "SECONDS_VARIABLE", "NoProgress", "Progress",
           "ProgressLines", "bar_class", "duration", "progress_bar"]

EVERY = 10
"""A plain line at least every this many steps."""
SECONDS_VARIABLE = "PARETOSTAB_PROGRESS_SECONDS"
"""Environment variable: the seconds between plain lines at most (default
:data:`DEFAULT_SECONDS`)."""
DEFAULT_SECONDS = 30.0
"""The seconds between plain lines at most, unless :data:`SECONDS_VARIABLE` is set."""


def duration(seconds: float) -> str:
    """``seconds`` as a person reads it: ``42 s``, ``3 min 14 s``, ``2 h 05 min``."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


class ProgressLines:
    """A progress reporter writing plain lines to stderr, with the interface of the tqdm
    bar the commands use (``n``, :meth:`update`, :meth:`set_postfix`, :meth:`refresh`,
    :meth:`close`, a context manager).

    A line gives the steps done of ``total``, the postfix, the time elapsed and an
    estimate of the time left (from the pace so far); it is written when ``every`` steps
    have been done since the last one, or ``seconds`` have passed (checked by a
    background thread too, so that a long step still shows the time going). Leaving the
    ``with`` block, or :meth:`close`, writes the final line (``done in …``, or ``stopped
    after …`` when the block ends with an exception); with nothing to do (``total`` 0)
    nothing is written.

    Parameters
    ----------
    total : int
        The steps to do.
    description : str
        What the line starts with (``study tiny``, ``replicates``).
    unit : str
        The steps' name, plural (``trials``).
    every : int
        A line at least every this many steps.
    seconds : float, optional
        A line at least every this many seconds (default: the environment variable
        :data:`SECONDS_VARIABLE`, else :data:`DEFAULT_SECONDS`); 0 writes one at every
        step.
    """

    def __init__(self, total: int, description: str, *, unit: str = "steps",
                 every: int = EVERY, seconds: float | None = None) -> None:
        if seconds is None:
            seconds = float(os.environ.get(SECONDS_VARIABLE, DEFAULT_SECONDS))
        self.total, self.description, self.unit = int(total), description, unit
        self.every, self.seconds = every, seconds
        self.n = 0
        self.postfix = ""
        self._start = self._written_at = time.monotonic()
        self._written_n = 0
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._ticker = None
        if seconds > 0 and self.total > 0:
            self._ticker = threading.Thread(target=self._tick, daemon=True,
                                            name=f"progress of {description}")
            self._ticker.start()

    def __enter__(self) -> ProgressLines:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close(stopped=kind is not None)

    def update(self, n: int = 1) -> None:
        """``n`` more steps done."""
        self.n += n
        self.refresh()

    def set_postfix(self, **values: object) -> None:
        """What follows the count on the next lines (``front 4, area 0.612``)."""
        self.postfix = ", ".join(f"{k} {v}" for k, v in values.items())

    def refresh(self) -> None:
        """Write a line if one is due (``every`` steps or ``seconds`` since the last) and
        steps remain: the last step's line is the final one (:meth:`close`)."""
        if self.n < self.total and (self.n - self._written_n >= self.every
                                    or time.monotonic() - self._written_at >= self.seconds):
            self._write()

    def close(self, *, stopped: bool = False) -> None:
        """Write the final line (once) and stop the background thread."""
        if self._closed.is_set():
            return
        self._closed.set()
        if self._ticker is not None:
            self._ticker.join()
        if not (self.total or self.n):  # nothing to do: nothing to say
            return
        elapsed = duration(time.monotonic() - self._start)
        self._write(f"stopped after {elapsed}" if stopped else f"done in {elapsed}")

    def line(self, end: str | None = None) -> str:
        """The line as it would be written now; ``end`` replaces the times."""
        parts = [f"{self.description}: {self.n}/{self.total} {self.unit}"]
        if self.postfix:
            parts.append(self.postfix)
        if end is None:
            elapsed = time.monotonic() - self._start
            parts.append(f"{duration(elapsed)} elapsed")
            if 0 < self.n < self.total:
                parts.append(f"about {duration(elapsed / self.n * (self.total - self.n))} left")
        else:
            parts.append(end)
        return ", ".join(parts)

    def _write(self, end: str | None = None) -> None:
        with self._lock:
            print(self.line(end), file=sys.stderr, flush=True)
            self._written_n, self._written_at = self.n, time.monotonic()

    def _tick(self) -> None:
        while not self._closed.wait(self.seconds):
            if time.monotonic() - self._written_at >= self.seconds:
                self._write()


class NoProgress:
    """The reporter of ``progress=False``: it counts its steps and says nothing. Not a
    disabled tqdm bar: that makes tqdm's process-wide lock, a named semaphore, which a
    process started by spawn or a fork server (a ``tune --workers`` worker) registers with Python's
    resource tracker; killed with kill -9, it leaves the semaphore to the tracker, which
    then prints "UserWarning: resource_tracker: There appear to be 1 leaked semaphore
    objects to clean up at shutdown" after ``tune``'s own last line."""

    def __init__(self, total: int) -> None:
        self.total, self.n = int(total), 0

    def __enter__(self) -> NoProgress:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        """Nothing to close."""

    def update(self, n: int = 1) -> None:
        self.n += n

    def set_postfix(self, **values: object) -> None:
        """Nothing to show."""

    def refresh(self) -> None:
        """Nothing to show."""

    def close(self) -> None:
        """Nothing to close."""


class Progress(Protocol):
    """What :func:`progress_bar` gives, a tqdm bar or :class:`ProgressLines`: steps done
    ``n`` of ``total``, and a context manager."""

    n: int
    total: int

    def update(self, n: int = 1) -> object: ...

    def set_postfix(self, **values: object) -> object: ...

    def refresh(self) -> object: ...

    def close(self) -> object: ...

    def __enter__(self) -> Progress: ...

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> object: ...


def bar_class() -> type[tqdm]:
    """tqdm's notebook bar in a Jupyter kernel with ipywidgets (the widget it draws), its
    console bar otherwise — what ``tqdm.auto`` chooses, without its warnings: a notebook
    without ipywidgets gets the console bar silently."""
    if "ipykernel" in sys.modules:
        from tqdm.notebook import IProgress  # None: no ipywidgets

        if IProgress is not None:
            from tqdm.notebook import tqdm as notebook_bar

            return notebook_bar
    from tqdm.std import tqdm as console_bar

    return console_bar


def progress_bar(total: int, description: str, *, progress: bool | None = None,
                 unit: str = "steps", leave: bool = True, every: int = EVERY) -> Progress:
    """A progress reporter for ``total`` steps.

    Parameters
    ----------
    total : int
        The steps to do.
    description : str
        What the bar or the line starts with.
    progress : bool, optional
        None (default): a tqdm bar when stderr is a terminal, :class:`ProgressLines`
        otherwise; True: the bar (:func:`bar_class`); False: nothing
        (:class:`NoProgress`).
    unit : str
        The steps' name, in the plain lines and the bar's rate (``runs/s``).
    leave : bool
        Whether the bar stays once closed.
    every : int
        A plain line at least every this many steps (:class:`ProgressLines`).

    Returns
    -------
    tqdm.tqdm, ProgressLines or NoProgress
        Each with ``n``, ``update``, ``set_postfix``, ``refresh`` and ``close``,
        and a context manager.
    """
    if progress is None and not sys.stderr.isatty():
        return ProgressLines(total, description, unit=unit, every=every)
    if progress is False:
        return NoProgress(total)
    return bar_class()(total=total, desc=description, unit=unit, leave=leave)
