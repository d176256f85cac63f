"""A trial's runs on a Dask cluster: ``tune --backend dask --scheduler ADDRESS``.

With the local backend (the default) the M runs of a trial run in this machine's
processes (joblib, ``n_jobs``). With ``backend="dask"`` they go through joblib's Dask
backend to the workers of a Dask distributed cluster — for a trial too large for one
machine. Each process that runs trials (``tune`` itself, or each of its ``--workers``) is
a client of the cluster's scheduler and sends the data to every Dask worker once, when it
starts (``scatter``, broadcast), not at every trial. A run's preparation stays in the
:class:`~paretostab._run_cache.RunCache` of the Dask worker process that prepared it (the
cache travels as its token, which each process resolves to its own part): each Dask
worker keeps its own. The results are the local backend's, bit for bit: every run is
seeded by the trial, not by where it runs.

Dask distributed is an optional extra (``pip install 'paretostab[dask]'``); the scheduler
and its workers need paretostab, in the same version, where they run.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

from paretostab._errors import InvalidInputError, ParetostabError
from paretostab._faults import one_line
from paretostab._problem import Problem

__all__ = ["BACKENDS", "check_backend", "runs_on"]

BACKENDS = ("local", "dask")
"""Where a trial's runs go: this machine's processes, or a Dask cluster's workers."""


def check_backend(backend: str, scheduler: str | None, n_jobs: int | None) -> None:
    """Refuse an unknown ``backend``, a ``scheduler`` without the Dask backend or the Dask
    backend without one, an ``n_jobs`` with it (the cluster's workers decide), a missing
    Dask distributed (naming the extra to install), and a scheduler that cannot be
    reached within Dask's connect timeout (``distributed.comm.timeouts.connect``, 30 s
    unless configured): each in one line, before any trial starts."""
    if backend not in BACKENDS:
        raise InvalidInputError(f"backend must be one of {BACKENDS}; got {backend!r}.")
    if backend == "local":
        if scheduler is not None:
            raise InvalidInputError(
                f"scheduler {scheduler!r}: a scheduler is for backend 'dask' (--backend dask "
                "--scheduler ADDRESS); the local backend runs a trial's runs on this machine.")
        return
    if not scheduler:
        raise InvalidInputError(
            "backend 'dask' needs the address of a Dask scheduler (--scheduler "
            "tcp://host:8786, scheduler=...); got none.")
    if n_jobs is not None:
        raise InvalidInputError(
            f"n_jobs={n_jobs!r}: with backend 'dask' a trial's runs go to every thread of the "
            "cluster's workers; leave n_jobs (--n-jobs) unset.")
    try:
        from distributed.comm import connect
        from distributed.security import Security
    except ImportError:
        raise InvalidInputError(
            "backend 'dask' needs Dask distributed: pip install 'paretostab[dask]'.") from None

    async def reach() -> None:
        comm = await connect(scheduler, **Security().get_connection_args("client"))
        comm.abort()

    try:  # in a thread of its own: the caller may be running an event loop (Jupyter)
        with ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, reach()).result()
    except (OSError, ValueError, TypeError) as exc:
        raise ParetostabError(f"scheduler {scheduler!r}: no Dask scheduler could be reached "
                              f"there ({one_line(exc)}).") from None


@contextlib.contextmanager
def runs_on(scheduler: str | None, problem: Problem) -> Iterator[None]:
    """Within the block, run the trials' runs on the cluster of ``scheduler`` (joblib's
    Dask backend, ``problem``'s data scattered to every worker once), or on this machine
    for None. ``problem`` is the one the trials run on: the backend recognises the arrays
    each trial hands it as the ones scattered. A trial whose runs the cluster's loss cut
    short fails as an :func:`~paretostab._faults.environment_error` (not counted); when
    ``tune`` stops on such errors (a few in a row) and the client has lost its scheduler,
    the error says so, and how to resume, in one line."""
    if scheduler is None:
        yield
        return
    from distributed import Client
    from joblib import parallel_config

    with Client(scheduler, set_as_default=False) as client:
        try:
            with parallel_config(backend="dask", client=client,
                                 scatter=[problem.X, problem.y]):
                yield
        except ParetostabError:
            if client.status == "running":
                raise
            lost = True  # raised once the client is closed
        else:
            lost = False
    if lost:  # from None: what stopped tune was the scheduler's loss, not a store's fault
        raise ParetostabError(
            f"scheduler {scheduler!r}: the Dask scheduler is gone (its client lost the "
            "connection and could not reconnect); the trials it cut short are not counted. "
            "Completed trials are kept: start the scheduler and its workers again, then run "
            "the same command to resume.") from None
