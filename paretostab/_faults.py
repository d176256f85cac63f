"""Faults of the environment: which errors come from it, and waiting out a database outage.

A study runs for hours against stores it does not own: an artifact folder on a disk that
fills, an S3 bucket with a quota, a database server that restarts or fails over. Two
kinds of error come from them, and ``tune`` treats each its own way:

- an **environment error** (:func:`environment_error`): a store that is full, read-only
  or refuses us (``ENOSPC``, ``EDQUOT``, ``EROFS``, ``EACCES``…, an S3 client error, a
  SQLite file on a full disk), a machine without the memory a trial needs (a
  :class:`~paretostab._errors.MemoryLimitError`, refused before the trial's work), or a
  Dask cluster that is gone (an error of Dask distributed's own: a closed connection, a
  client whose scheduler is gone; ``tune --backend dask``). Trying
  again at once fails again: a trial it hits fails
  with the error as its reason, does not count, and ``tune`` stops after a few in a row
  (:data:`ENVIRONMENT_FAILURES_IN_A_ROW`);
- a **transient database error** (:func:`transient_database_error`): a connection
  refused or reset, a server shutting down or starting up, a serialisation failure or a
  deadlock. Trying again later succeeds: :class:`Retrying` calls again with backoff for
  a limited time (:data:`DEFAULT_STORAGE_WAIT`), saying once when it starts waiting and
  once when the database is back.

A process killed with kill -9 cannot clean up: the folders a process writes for a while
(the data its ``--workers`` map, a report's staging folder) are made by
:func:`owned_folder`, named for their owner, and the next process that makes one removes
those whose owner has died.

A process asked to stop (a signal) is :mod:`paretostab._signals`' concern.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from paretostab._errors import MemoryLimitError, StoreError

__all__ = ["DEFAULT_STORAGE_WAIT", "ENVIRONMENT_FAILURES_IN_A_ROW", "GRACE_SECONDS",
           "HEARTBEAT_SECONDS", "Retrying", "causes", "environment_error", "one_line",
           "owned_folder", "server_unavailable", "transient_database_error"]

DEFAULT_STORAGE_WAIT = 300.0
"""Seconds a process waits for an unreachable database (a restart, a failover) before it
gives up (``tune --storage-wait``)."""

ENVIRONMENT_FAILURES_IN_A_ROW = 3
"""Trials in a row a process lets an environment error fail before it stops."""

HEARTBEAT_SECONDS = 10
"""How often the process running a trial records that it is alive, on an RDB storage
(``tune --heartbeat-interval``)."""

GRACE_SECONDS = 60
"""How long a running trial may go without a heartbeat before another process fails it
as stale and runs its slot again: a process killed with kill -9, or a machine lost
(``tune --grace-period``)."""

_WAITED_OUT = ("Completed trials are kept: once the database is back, run the same command "
               "to resume.")
# What the error of a database unreachable for longer than the wait ends with, in every
# process that gives up (tune, each of its --workers)

_ENVIRONMENT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES,
                                 errno.EPERM, errno.EIO, errno.EFBIG})
# SQLite's errors of the file it writes (sqlite3.OperationalError, by message)
_SQLITE_ENVIRONMENT = ("database or disk is full", "attempt to write a readonly database",
                       "disk i/o error", "unable to open database file")
_SQLITE_TRANSIENT = ("database is locked", "database table is locked")
# SQLSTATE classes and codes that a later attempt can pass: connection exceptions (08…),
# a server shutting down or starting up (57P01–57P03), too many connections (53300), a
# serialisation failure or deadlock (40001, 40P01)
_TRANSIENT_SQLSTATES = ("08", "57P01", "57P02", "57P03", "53300", "40001", "40P01")
# SQLAlchemy's own errors after a lost connection: a pool emptied of its stale connections,
# a session whose connection dropped mid-transaction
_SQLALCHEMY_TRANSIENT = ("DisconnectionError", "InvalidatePoolError", "PendingRollbackError")
# What SQLAlchemy's errors of a lost connection mean; they carry no message of their own
_SQLALCHEMY_MEANING = {
    "DisconnectionError": "a connection to the database was lost",
    "InvalidatePoolError": "the connections to the database were dropped after one was lost",
}
# A server's answer that it cannot serve now (admin shutdown, crash shutdown, starting up,
# too many connections)
_UNAVAILABLE_SQLSTATES = ("57P01", "57P02", "57P03", "53300")
# MySQL client and server error codes of the same kinds: cannot connect (2002, 2003),
# server gone or connection lost (2006, 2013), deadlock or lock wait (1213, 1205)
_TRANSIENT_MYSQL = frozenset({2002, 2003, 2006, 2013, 1205, 1213})


def causes(exc: BaseException | None) -> Iterator[BaseException]:
    """``exc`` and the exceptions it was raised from or while handling, nearest first;
    not the one it was raised while handling ``from None`` (its raiser said it is not the
    cause: a :class:`~paretostab._errors.ParetostabError` that replaces a failure by its
    reason, raised while the failure is being handled)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)


def one_line(exc: BaseException) -> str:
    """An exception as ``Type: message`` on one line (a database driver's message may
    span several); a :class:`~paretostab._errors.StoreError`, whose message names the
    store, as its message."""
    text = " ".join(str(exc).split()) if exc.args else ""  # SQLAlchemy's no message: "()"
    if isinstance(exc, StoreError) and text:
        return text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _sqlite_error(exc: BaseException) -> str | None:
    """The lower-case message of a SQLite error, else None."""
    if type(exc).__module__ == "sqlite3" and type(exc).__name__ == "OperationalError":
        return str(exc).lower()
    return None


def environment_error(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it was raised from) says a store cannot be written: a full,
    read-only or forbidden file system, an S3 client error, a SQLite file that cannot be
    written, or a :class:`~paretostab._errors.StoreError` — or that the machine has not the
    memory the work needs (a :class:`~paretostab._errors.MemoryLimitError`), or that the
    Dask cluster the trial's runs went to is gone (:func:`_of_dask`). Such an error
    repeats when the same work is tried again."""
    for cause in causes(exc):
        if isinstance(cause, StoreError | MemoryLimitError) or _of_dask(cause):
            return True
        if isinstance(cause, OSError) and cause.errno in _ENVIRONMENT_ERRNOS:
            return True
        if type(cause).__module__.startswith("botocore"):
            return True
        message = _sqlite_error(cause)
        if message is not None and message.startswith(_SQLITE_ENVIRONMENT):
            return True
    return False


def _of_dask(exc: BaseException) -> bool:
    """Whether ``exc`` is Dask distributed's own: of one of its types (a
    ``CommClosedError``, a ``KilledWorker``…) or raised by its code, the client's, not a
    task's (the ``AttributeError`` of a client whose scheduler is gone). A task's error
    re-raised by the client ends in the task's code, where it was raised: it is the
    trial's own."""
    if type(exc).__module__.startswith("distributed."):
        return True
    last = exc.__traceback__
    while last is not None and last.tb_next is not None:
        last = last.tb_next
    return last is not None and str(last.tb_frame.f_globals.get("__name__", "")
                                    ).startswith("distributed.")


def _sqlstate(exc: BaseException) -> str | None:
    """The SQLSTATE of a PostgreSQL driver's error (psycopg 3 ``sqlstate``, psycopg2
    ``pgcode``), else None."""
    return getattr(exc, "sqlstate", None) or getattr(exc, "pgcode", None)


def transient_database_error(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it was raised from) is a database error that a later
    attempt can pass: a connection refused, reset or closed by the server, a server
    shutting down or starting up, a failover, a serialisation failure or a deadlock, a
    locked SQLite file. An error of the request itself (a value too long, a missing
    table, a wrong password) is not."""
    for cause in causes(exc):
        transient = _transient(cause)
        if transient is not None:
            return transient
    return False


def _transient(exc: BaseException) -> bool | None:
    """Whether ``exc`` itself (not what it was raised from) is a transient database error
    (:func:`transient_database_error`); None when it is no database error that says."""
    message = _sqlite_error(exc)
    if message is not None:
        return message.startswith(_SQLITE_TRANSIENT)
    module = type(exc).__module__
    if getattr(exc, "connection_invalidated", False):  # SQLAlchemy's DBAPIError
        return True
    if module == "sqlalchemy.exc" and type(exc).__name__ in _SQLALCHEMY_TRANSIENT:
        return True
    if module.startswith(("psycopg", "pg8000")):
        state = _sqlstate(exc)
        if state is None:  # no answer from a server: refused, reset, closed
            return type(exc).__name__ in ("OperationalError", "InterfaceError")
        return state.startswith(_TRANSIENT_SQLSTATES)
    if module.startswith(("MySQLdb", "pymysql", "mysql")):
        code = exc.args[0] if exc.args else None
        return code in _TRANSIENT_MYSQL
    return None


def server_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it was raised from) is a database server's own answer that
    it cannot serve now — shutting down, starting up, too many connections — as opposed
    to no answer at all (a wrong host or port, which waiting does not mend)."""
    return any(str(_sqlstate(cause) or "").startswith(_UNAVAILABLE_SQLSTATES)
               for cause in causes(exc))


class Retrying:
    """Calls to a database, tried again with backoff while they fail transiently.

    A call that fails with a :func:`transient_database_error` is tried again after 0.5,
    1, 2, 4… seconds (at most ``longest_pause``) until it succeeds or ``wait`` seconds
    have passed since the outage began; then the last error is raised as a
    :class:`~paretostab._errors.StoreError` naming the database, as is at once an
    :func:`environment_error` (a SQLite file on a full disk). One line on stderr says
    when a process starts waiting, one when the database is back. The threads of one
    process (a trial and its heartbeat) share an outage: it is announced once. A call
    made inside another call of the same thread is not retried apart: the outer call is.

    Parameters
    ----------
    name : str
        The database as a person reads it (its URL without password).
    wait : float
        Seconds to wait for it (0: raise at the first failure).
    transient : callable
        Which errors are waited out (default :func:`transient_database_error`).
    """

    def __init__(self, name: str, wait: float = DEFAULT_STORAGE_WAIT, *,
                 longest_pause: float = 15.0, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep,
                 transient: Callable[[BaseException], bool] = transient_database_error
                 ) -> None:
        if not wait >= 0:
            raise ValueError(f"wait must be >= 0 seconds; got {wait!r}")
        self.name, self.wait, self.longest_pause = name, wait, longest_pause
        self.transient = transient
        self._clock, self._sleep = clock, sleep
        self._lock = threading.Lock()
        self._outage_start: float | None = None
        self._depth = threading.local()

    def __call__(self, call: Callable, *args, **kwargs):
        """``call(*args, **kwargs)``, retried as above."""
        depth = getattr(self._depth, "value", 0)
        if depth:
            return call(*args, **kwargs)
        self._depth.value = 1
        try:
            return self._retried(call, args, kwargs)
        finally:
            self._depth.value = 0

    def _retried(self, call: Callable, args, kwargs):
        pause = 0.5
        while True:
            try:
                result = call(*args, **kwargs)
            except Exception as exc:
                if not self.transient(exc):  # first: an outage's error may carry an older one
                    if environment_error(exc) and not isinstance(exc, StoreError):
                        raise StoreError(f"storage {self.name}: cannot write it: "
                                         f"{one_line(_root(exc))}") from exc
                    raise
                waited = self._failed(exc)
                if waited >= self.wait:
                    raise StoreError(
                        f"storage {self.name}: unreachable for {waited:.0f} s "
                        f"(--storage-wait {self.wait:g}): {_outage(exc)}. {_WAITED_OUT}"
                    ) from exc
                self._sleep(min(pause, self.longest_pause, self.wait - waited))
                pause *= 2
                continue
            self._recovered()
            return result

    def _failed(self, exc: BaseException) -> float:
        """Note a failure: seconds since the outage began (announced if it just did)."""
        now = self._clock()
        with self._lock:
            if self._outage_start is None:
                self._outage_start = now
                print(f"storage {self.name}: unreachable ({_outage(exc)}); "
                      f"waiting up to {self.wait:g} s for it", file=sys.stderr, flush=True)
            return now - self._outage_start

    def _recovered(self) -> None:
        if self._outage_start is None:
            return
        with self._lock:
            if self._outage_start is not None:
                print(f"storage {self.name}: reachable again after "
                      f"{self._clock() - self._outage_start:.0f} s", file=sys.stderr,
                      flush=True)
                self._outage_start = None


def _root(exc: BaseException) -> BaseException:
    """The innermost cause of ``exc`` that says something: the driver's own error, which
    says what happened (SQLAlchemy's pool errors carry no text)."""
    said = [cause for cause in causes(exc) if one_line(cause) != type(cause).__name__]
    return said[-1] if said else exc


def _outage(exc: BaseException) -> str:
    """What made a database unreachable, in one line: the innermost of the
    transient errors ``exc`` was raised from that says something (the driver's), not an
    older error that the failing call was handling (a ``UniqueViolation`` of a race that
    was lost before the server went away); SQLAlchemy's pool errors, which say nothing, in
    words."""
    transient = [cause for cause in causes(exc) if _transient(cause)] or [exc]
    said = [cause for cause in transient if one_line(cause) != type(cause).__name__]
    if said:
        return one_line(said[-1])
    last = transient[-1]
    meaning = _SQLALCHEMY_MEANING.get(type(last).__name__)
    return one_line(last) + (f": {meaning}" if meaning else "")


def _alive(pid: int) -> bool:
    """Whether process ``pid`` of this machine runs (another user's included)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it exists
        return True
    return True


def owned_folder(prefix: str, parent: str | Path | None = None) -> Path:
    """A new folder in ``parent`` (default: the temporary folder) named ``prefix``, its
    owner — this process's id and this machine's name, ``<pid>@<host>`` — and random
    characters (:func:`tempfile.mkdtemp`). First the folders of the same ``prefix`` in
    ``parent`` whose owner was a process of this machine that no longer runs (killed with
    kill -9 before it could remove them) are removed; a folder of another
    machine (a shared file system) or of a running process is left. An ``OSError`` of
    making the folder is raised as is.

    Parameters
    ----------
    prefix : str
        What the folder is for (``"paretostab-data-"``, ``".report-"``).
    parent : str or Path, optional
        Where to make it.
    """
    where = Path(parent if parent is not None else tempfile.gettempdir())
    host = socket.gethostname().replace(os.sep, "_")
    owned = re.compile(re.escape(prefix) + r"(\d+)@(.+)-[^-]+")
    try:
        found = list(where.iterdir())
    except OSError:  # a folder it cannot list: mkdtemp says what is wrong
        found = []
    for folder in found:
        match = owned.fullmatch(folder.name)
        if (match and match.group(2) == host and folder.is_dir()
                and not _alive(int(match.group(1)))):
            shutil.rmtree(folder, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}@{host}-", dir=where))
