"""Work a module fixture does once for the whole run, however many pytest-xdist processes
run the module's tests.

A module fixture is set up in every process that runs one of its module's tests: with
``-n 2`` the load distribution gives both processes tests of the wheel, the CLI output and
the documentation modules, and each built the wheel and its virtual environment (26 s),
ran the CLI's studies (25 s) and built the site (21 s) again. :func:`made_once` makes such
a folder in the run's shared temporary folder, the first process to ask under a file lock
while the others wait for it, and hands every process the same folder. The fixtures that
use it only read what it holds.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

try:
    import fcntl
except ImportError:  # no POSIX file locks: each process makes its own folder
    fcntl = None  # type: ignore[assignment]

__all__ = ["made_once"]


def made_once(tmp_path_factory: pytest.TempPathFactory, name: str,
              make: Callable[[Path], object]) -> Path:
    """The folder ``name`` that ``make(folder)`` filled, made once in this run.

    Parameters
    ----------
    tmp_path_factory : pytest.TempPathFactory
        The run's; under pytest-xdist its base folder's parent is the one every process of
        the run shares.
    name : str
        The folder's name, unique in the run.
    make : callable
        Fills the empty folder it is given; a folder it fails to fill (it raised) is made
        again by the next process that asks.

    Returns
    -------
    Path
        The filled folder, for reading only: other processes read it at the same time.
    """
    if fcntl is None or "PYTEST_XDIST_WORKER" not in os.environ:
        folder = tmp_path_factory.mktemp(name, numbered=True)
        make(folder)
        return folder
    shared = tmp_path_factory.getbasetemp().parent
    folder, done = shared / name, shared / f"{name}.done"
    with open(shared / f"{name}.lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # what a failed attempt left
            folder.mkdir()
            make(folder)
            done.touch()
    return folder
