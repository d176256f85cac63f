"""The processes that run a study's trials: this one, or ``workers`` processes beside it.

:func:`run_study` is the entry point (of :func:`paretostab.tune`): it checks its options,
loads the data once, opens the artifact store and the storage, creates or resumes the
study, then runs trials here (:func:`run_trials`) or starts ``workers`` processes
(:func:`run_workers`), each running trials the same way with its own storage connection,
sampler stream and run cache, and follows the study until they end. Every process takes
its trial slots from the study's ``n_trials``
(:class:`~paretostab._tuning.coordination.TrialSlots`). The workers are forked from a
fork server that imported their libraries once (:func:`worker_context`), with their
parent's environment and ignored signals of the moment they start.

The workers share the data instead of holding a copy each: the parent writes the problem
once (``joblib.dump``) to a file in a folder of its own in the temporary folder
(``TMPDIR``), and every worker maps it read-only (``joblib.load(..., mmap_mode="r")``),
the similarity's data included; joblib hands the mapped arrays on to a trial's own worker
processes (``n_jobs``) by their file, without writing them again at every trial. The
pages of the file are the machine's page cache, shared by every process that maps it
and, on disk, given back under memory pressure. A file rather than named shared memory
(``/dev/shm``, which nothing frees but its removal or a reboot): the parent removes the
folder when it ends, also by Ctrl-C, SIGTERM or SIGHUP; when it is killed (kill -9), its
workers remove it as they end.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import multiprocessing.forkserver
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING, cast

import joblib
import optuna
from optuna.trial import FrozenTrial, TrialState

from paretostab._errors import (
    InvalidInputError,
    MemoryLimitError,
    ParetostabError,
    StoreError,
    WorkerError,
)
from paretostab._faults import (
    DEFAULT_STORAGE_WAIT,
    ENVIRONMENT_FAILURES_IN_A_ROW,
    GRACE_SECONDS,
    HEARTBEAT_SECONDS,
    causes,
    one_line,
    owned_folder,
)
from paretostab._problem import Problem
from paretostab._progress import NoProgress, Progress, bar_class, progress_bar
from paretostab._run_cache import DEFAULT_CACHE_BYTES
from paretostab._signals import (
    DEFAULT_STOP_WAIT,
    STOP_SIGNALS,
    heeded_stop_signals,
    stop_signals,
)
from paretostab._storage import (
    DEFAULT_STORAGE,
    artifact_notice,
    artifact_store,
    check_heartbeat,
    default_artifact_dir,
    open_storage,
)
from paretostab._tuning.cluster import check_backend, runs_on
from paretostab._tuning.coordination import (
    Interrupts,
    TrialSlots,
    counted_trials,
    fail_stale_trials,
)
from paretostab._tuning.objective import TrialObjective
from paretostab._tuning.study import (
    FEATURE_COLORS,
    chance_flags_of,
    create_or_load_study,
    front_points,
    recorded_chance,
    resample_seed,
)
from paretostab._validation import COUNT, WAIT_SECONDS, Interval
from paretostab.evaluation import outer_study_name
from paretostab.front import dominance_area, pareto_front
from paretostab.maps import study_palette
from paretostab.spec import StudySpec, grid_size

if TYPE_CHECKING:  # ForkServerContext: not on Windows
    from multiprocessing.context import ForkServerContext, SpawnContext

__all__ = ["FOLLOW_SECONDS", "MAX_STUDY_NAME", "WORKER_MODULES", "TuneSettings", "run_study",
           "run_trials", "run_workers", "worker_context"]

#: How often :func:`run_workers` shows progress while its workers run, besides as each
#: ends (it then returns at once, not at the next tick).
FOLLOW_SECONDS = 1.0
#: The run cache's memory budget of a process, in bytes.
CACHE_BYTES = Interval("integer", 0, why=" (the run cache's memory budget per process)")

MAX_STUDY_NAME = 512
"""The longest study name Optuna's RDB storages hold (their ``study_name`` column)."""


@dataclass(frozen=True)
class TuneSettings:
    """What every process of one :func:`run_study` call needs besides the problem.

    ``verbosity`` is Optuna's log level in the process that called :func:`run_study`: its
    workers log as it does (the library sets no log level; the command line does).
    ``scheduler``: the address of the Dask scheduler whose cluster runs the trials' runs
    (:mod:`~paretostab._tuning.cluster`); None: this machine's processes.
    """

    storage: str
    artifacts: str | None
    study_name: str | None
    n_trials: int
    timeout: float | None = None
    n_jobs: int | None = None
    cache_bytes: int = DEFAULT_CACHE_BYTES
    heartbeat_interval: int = HEARTBEAT_SECONDS
    grace_period: int = GRACE_SECONDS
    storage_wait: float = DEFAULT_STORAGE_WAIT
    verbosity: int = optuna.logging.INFO
    scheduler: str | None = None

    def open_study(self, problem: Problem, *, wait_to_open: bool = False) -> optuna.Study:
        """The study of the problem's spec in the storage (created — with the colour
        order of the problem's features — or resumed), with these heartbeats and this
        wait for a database outage (also to open it with ``wait_to_open``: a worker opens
        a storage its parent has reached)."""
        return create_or_load_study(problem.spec, storage=open_storage(
            self.storage, heartbeat_interval=self.heartbeat_interval,
            grace_period=self.grace_period, storage_wait=self.storage_wait,
            wait_to_open=wait_to_open), study_name=self.study_name, problem=problem)

    @property
    def artifact_location(self) -> str:
        """The artifact store as a person names it: the folder or ``s3://`` address."""
        return str(self.artifacts or default_artifact_dir(self.storage))


@contextlib.contextmanager
def quiet_optuna() -> Iterator[None]:
    """Optuna's INFO lines — one for a new study, one per finished trial — held back while
    :func:`paretostab.tune` runs (``progress=False`` printed a line per trial;
    the progress reports the trials): Optuna's default level, INFO, becomes WARNING for
    the call, its workers log as it then does (:class:`TuneSettings`), and the caller's
    level is restored after. Another level the caller set (DEBUG to see every line,
    ERROR) is kept."""
    before = optuna.logging.get_verbosity()
    if before == optuna.logging.INFO:
        optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        yield
    finally:
        optuna.logging.set_verbosity(before)


def run_study(spec: StudySpec, *, storage: str | None = None, study_name: str | None = None,
         n_trials: int | None = None, timeout: float | None = None, n_jobs: int | None = None,
         workers: int = 1, artifacts: str | None = None,
         cache_bytes: int = DEFAULT_CACHE_BYTES, progress: bool | None = None,
         heartbeat_interval: int = HEARTBEAT_SECONDS, grace_period: int = GRACE_SECONDS,
         storage_wait: float = DEFAULT_STORAGE_WAIT, stop_wait: float = DEFAULT_STOP_WAIT,
         data: object = None, backend: str = "local", scheduler: str | None = None
         ) -> optuna.Study:
    """Run (or resume) the spec's study until it has ``n_trials`` counted trials: the
    engine of :func:`paretostab.tune`, whose docstring says what each option does;
    returns the Optuna study (on the whole data; one fold's study for one fold)."""
    protocol = spec.protocol
    if protocol.outer_fold is not None and study_name is None:  # one fold's study alone
        study_name = outer_study_name(spec.name, protocol.outer_fold)
    url = storage or spec.storage or DEFAULT_STORAGE
    total = spec.trials if n_trials is None else n_trials
    workers = COUNT.integer("workers", workers)
    total = COUNT.integer("n_trials", total)
    if spec.sampler == "grid" and total > grid_size(spec):
        raise InvalidInputError(f"n_trials: the grid has {grid_size(spec)} points, each run "
                                f"once; got {total}.")
    if study_name is not None and not study_name.strip():  # `--study-name "$UNSET"`
        raise InvalidInputError(f"study name: a name or none (the spec's, {spec.name!r}); "
                                f"got the blank {study_name!r}.")
    name = study_name or spec.name
    if len(name) > MAX_STUDY_NAME:
        raise InvalidInputError(
            f"study name: at most {MAX_STUDY_NAME} characters (what Optuna's database "
            f"storages hold); got {len(name)} ({name[:40]}…).")
    cache_bytes = CACHE_BYTES.integer("cache_bytes", cache_bytes)
    for name, seconds in (("storage_wait", storage_wait), ("stop_wait", stop_wait)):
        WAIT_SECONDS.check(name, seconds)  # before the data are loaded, as those below
    check_heartbeat(heartbeat_interval, grace_period)
    check_backend(backend, scheduler, n_jobs)
    settings = TuneSettings(storage=url, artifacts=artifacts, study_name=study_name,
                            n_trials=total, timeout=timeout,
                            n_jobs=-1 if backend == "dask" else n_jobs,
                            cache_bytes=cache_bytes, heartbeat_interval=heartbeat_interval,
                            grace_period=grace_period, storage_wait=storage_wait,
                            verbosity=optuna.logging.get_verbosity(), scheduler=scheduler)
    problem = Problem.from_spec(spec, data)
    artifact_store(url, artifacts, create=False)  # all checked before anything is made
    study = settings.open_study(problem)
    store = artifact_store(url, artifacts)
    for note in (*problem.notes, artifact_notice(url, artifacts)):  # once it is all open
        if note:
            print(note, file=sys.stderr)
    start = counted_trials(study)
    if start < total:
        with progress_bar(total - start, f"study {study.study_name}", progress=progress,
                          unit="trials") as bar:
            if workers == 1:
                run_trials(study, problem, settings, store,
                           callbacks=[lambda s, t: _advance(bar, s, start)])
            else:
                try:
                    run_workers(min(workers, total - start), problem, settings,
                                follow=lambda: _advance(bar, study, start),
                                stop_wait=stop_wait)
                except KeyboardInterrupt:  # a worker killed after stop_wait left its trial
                    fail_stale_trials(study)  # running: failed now, its slot run again
                    raise
    folds = protocol.outer_folds if protocol.outer_fold is None else None
    for fold in range(1, (folds or 0) + 1):  # nested evaluation: then each fold's study
        run_study(replace(spec, protocol=replace(protocol, outer_fold=fold)),
             storage=storage, study_name=outer_study_name(study.study_name, fold),
             n_trials=n_trials, timeout=timeout, n_jobs=n_jobs, workers=workers,
             artifacts=artifacts, cache_bytes=cache_bytes, progress=progress,
             heartbeat_interval=heartbeat_interval, grace_period=grace_period,
             storage_wait=storage_wait, stop_wait=stop_wait, data=data, backend=backend,
             scheduler=scheduler)
    return study


def run_trials(study: optuna.Study, problem: Problem, settings: TuneSettings, store, *,
               callbacks: Sequence[Callable[[optuna.Study, FrozenTrial], None]] = (),
               in_worker: bool = False) -> None:
    """Run the study's trials in this process while it has free slots.

    Each trial claims its slot, then runs the :class:`TrialObjective`; Ctrl-C is taken
    where it is safe (:class:`Interrupts`): an interrupted trial is failed by Optuna,
    with its reason and ``counted`` = False, and the interrupt is re-raised. A failed
    trial is one line on stderr. ``in_worker``: this process is a worker of a ``tune``
    process, and is interrupted when that process ends."""
    slots = TrialSlots(study, settings.n_trials)
    objective = TrialObjective(problem, store=store, resamples_seed=resample_seed(study),
                               palette=study_palette(study.user_attrs.get(FEATURE_COLORS),
                                                     problem.X, problem.y),
                               n_jobs=settings.n_jobs,
                               cache_bytes=settings.cache_bytes, slots=slots)
    interrupts = objective.interrupts
    if in_worker:
        _end_with_parent(interrupts)
    deadline = None if settings.timeout is None else time.monotonic() + settings.timeout

    def next_slot(study: optuna.Study, trial: FrozenTrial) -> None:
        _say_failed(trial)
        if objective.environment_failures >= ENVIRONMENT_FAILURES_IN_A_ROW:
            last = objective.last_failure.rstrip(".")
            memory = any(isinstance(cause, MemoryLimitError)
                         for cause in causes(objective.last_error))
            named = memory or "storage " in last or settings.artifact_location in last
            raise (MemoryLimitError if memory else StoreError)(
                f"{objective.environment_failures} trials in a row could not be run or "
                "recorded" + ("" if named else
                              f" (artifact store {settings.artifact_location})")
                + f", the last one: {last}. "
                + (_RESUME.replace("fix the store", "free memory or follow that advice")
                   if memory else _RESUME))
        if objective.first_failures >= ENVIRONMENT_FAILURES_IN_A_ROW:
            raise InvalidInputError(
                f"the study's first {objective.first_failures} trials failed, the last "
                f"one: {objective.last_failure.rstrip('.')}. Trials that fail before any "
                "completes do not count: fix the cause, then run the same command.")
        if not slots.wait(interrupts, deadline):
            study.stop()

    with interrupts.handling(study), _store_failures(), runs_on(settings.scheduler,
                                                                  objective.problem):
        if slots.wait(interrupts, deadline):
            study.optimize(objective, catch=(Exception,), timeout=settings.timeout,
                           callbacks=[*callbacks, next_slot])


_RESUME = "Completed trials are kept: fix the store, then run the same command to resume."


@contextlib.contextmanager
def _store_failures():
    """Raise a :class:`~paretostab._errors.StoreError` that ends the block — from under
    whatever Optuna raised while it failed to write the trial (an ``UnboundLocalError``
    in its trial loop when the storage fails twice) — as itself, saying that a resume
    goes on."""
    try:
        yield
    except Exception as exc:
        error = next((c for c in causes(exc) if isinstance(c, StoreError)), None)
        if error is None:
            raise
        if "resume" in str(error):
            raise error from None
        raise StoreError(f"{str(error).rstrip('.')}. {_RESUME}") from None


def _say_failed(trial: optuna.trial.FrozenTrial) -> None:
    """One line on stderr for a failed trial, with its reason (also the trial's
    ``fail_reason``)."""
    if trial.state == TrialState.FAIL:
        reason = trial.user_attrs.get("fail_reason", "no reason recorded")
        bar_class().write(f"trial {trial.number} failed: {reason}", file=sys.stderr)


def _advance(bar: Progress, study: optuna.Study, start: int) -> None:
    """Move the progress bar (or lines) to the counted trials; show the front's size, how
    many of its trials are flagged (at chance level, or a selection that ignores the
    labels: :func:`~paretostab._tuning.study.chance_flags_of`) and its dominance area.
    Reads the study's trials once; not at all without progress (``progress=False``),
    where there is nothing to show (after every trial, a read of every trial)."""
    if isinstance(bar, NoProgress):
        return
    every = study.get_trials(deepcopy=False)
    bar.n = min(bar.total, counted_trials(study, every) - start)
    trials, points = front_points(study, every)
    if len(points):
        front = pareto_front(points)
        records = recorded_chance([trials[i] for i in front])
        flags = chance_flags_of(records)
        flagged = {} if flags is None else {"flagged": sum(map(flags.flagged, records))}
        bar.set_postfix(front=len(front), **flagged, area=f"{dominance_area(points):.3f}")
    bar.refresh()


# --------------------------------------------------------------------------- workers


def run_workers(workers: int, problem: Problem, settings: TuneSettings, *,
                follow: Callable[[], None], stop_wait: float = DEFAULT_STOP_WAIT) -> None:
    """Start ``workers`` processes running trials (:func:`run_trials`) on the problem's
    data mapped from one file (:func:`_shared_data`), and call ``follow`` every
    :data:`FOLLOW_SECONDS` and as each ends, until they have all ended. Ctrl-C, SIGTERM or
    SIGHUP is passed on to each of them once (they stop after their trial's computation
    is interrupted), then awaited for ``stop_wait`` seconds in all and killed
    (:func:`run_study` then fails the trial a killed one left running). The signal is
    taken in the wait between two calls of ``follow`` (:class:`Interrupts`), never inside
    a clean-up that the garbage collector runs, which would swallow it and print a
    traceback; one the process was started ignoring stays ignored, by the workers too. A
    worker's error is raised as a :class:`~paretostab._errors.WorkerError`."""
    context = worker_context()
    errors = context.SimpleQueue()
    state = _StartState.now()
    with _shared_data(problem) as path:
        processes = [context.Process(target=_worker, args=(path, settings, errors, state),
                                     name=f"worker-{i}") for i in range(workers)]
        for process in processes:
            process.start()
        interrupts = Interrupts()  # a signal is raised here in the wait, not in follow()
        try:
            with interrupts.handling(None):
                while running := [p.sentinel for p in processes if p.is_alive()]:
                    with interrupts.computation():  # a second, or until a worker ends
                        multiprocessing.connection.wait(running, timeout=FOLLOW_SECONDS)
                    follow()
        except KeyboardInterrupt as interrupt:
            signum = getattr(interrupt, "signum", signal.SIGINT)
            for process in processes:
                if process.is_alive():
                    os.kill(cast(int, process.pid), signum)  # started: it has a pid
            deadline = time.monotonic() + stop_wait  # for them all, not for each
            for process in processes:
                process.join(max(0.0, deadline - time.monotonic()))
                if process.is_alive():
                    process.kill()
                    process.join()  # ended, as fail_stale_trials then sees it
            raise
    follow()
    messages = []
    while not errors.empty():
        message = errors.get()
        if message not in messages:
            messages.append(message)
    failed = [p for p in processes if p.exitcode != 0]
    if failed:
        raise WorkerError(messages[0] if messages else (
            f"{failed[0].name} ended with exit code {failed[0].exitcode} "
            "(killed?) without an error message"))


#: What a worker imports beyond what the fork server preloads by itself: the trials
#: (scikit-learn, the selectors), their maps (matplotlib) and what opening a database
#: storage imports (SQLAlchemy's ORM and the alembic modules of Optuna's schema check).
#: A module that cannot be imported is left out (``set_forkserver_preload``).
WORKER_MODULES = ("paretostab._tuning.processes", "paretostab.plot", "sqlalchemy.orm",
                  "alembic.command", "alembic.config", "alembic.migration", "alembic.script",
                  "alembic.runtime.environment")


def worker_context() -> ForkServerContext | SpawnContext:
    """How the workers start: forked from a fork server that imported
    :data:`WORKER_MODULES` once, where the platform has one (POSIX), else each in a
    fresh interpreter (spawn, Windows).

    A fork server is a fresh process that ``tune`` starts with its first workers (and that
    ends with it, kill -9 included): each worker then starts with the libraries already
    imported, and shares their memory with the others until it writes to it, where a
    spawned one imports them again (2–3 s of CPU each; four spawned workers took about
    370 MiB more, PSS, in docs/benchmarks.md's "Workers' memory").
    Unlike ``fork``, no thread, lock or database connection of the parent reaches a
    worker. What a worker gets from its parent at its start, and not from the server
    started earlier, is in :class:`_StartState` (and Python passes the working folder and
    ``sys.path``).

    The server is started here (:func:`_start_fork_server`); where it cannot start (a
    temporary folder that takes no socket), the workers are spawned, as CPython does
    since gh-155717."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(WORKER_MODULES))
    try:
        _start_fork_server()
    except OSError:
        return multiprocessing.get_context("spawn")
    return context


#: The longest path of a Unix socket in bytes, its final NUL included (``sun_path``).
_SOCKET_PATH_BYTES = 108 if sys.platform.startswith("linux") else 104

#: What Python adds to the temporary folder for the fork server's socket: a folder
#: ``/pymp-…`` and in it a file ``/listener-…``, each name ending in 8 random characters
#: (``tempfile``'s).
_SOCKET_SUFFIX_BYTES = len("/pymp-") + 8 + len("/listener-") + 8


def _start_fork_server() -> None:
    """Start this process's fork server unless it runs, with its socket in a folder short
    enough for one.

    Python makes the socket ``listener-…`` in a folder ``pymp-…`` of ``TMPDIR`` (each
    name ending in 8 random characters): a ``TMPDIR`` of more than 75 bytes on Linux (71
    on macOS) makes a path too long for a Unix socket (``OSError: AF_UNIX path too
    long``; long ones are common on clusters and in test runners). There the socket goes
    under ``/tmp``, as Python 3.14 does (CPython gh-132124); what paretostab writes still
    goes to ``TMPDIR``. Python keeps the folder of its first socket for the process's
    life: if it was made earlier, in a folder too long, this raises the ``OSError``."""
    socket_path_bytes = len(os.fsencode(tempfile.gettempdir())) + _SOCKET_SUFFIX_BYTES
    chosen = tempfile.tempdir
    if socket_path_bytes >= _SOCKET_PATH_BYTES:
        tempfile.tempdir = "/tmp"
    try:
        multiprocessing.forkserver.ensure_running()
    finally:
        tempfile.tempdir = chosen


@dataclass(frozen=True)
class _StartState:
    """What a worker takes from the process that starts it, as a spawned one would: the
    environment (credentials, ``TMPDIR``, Optuna's and boto3's settings) and the stop
    signals that process ignores (:func:`~paretostab._signals.heeded_stop_signals`:
    ``nohup``, a shell's background job). A fork server was started once, with the
    parent's state of that moment: in a notebook, a later change of either would
    otherwise not reach the workers."""

    environment: dict[str, str]
    ignored: tuple[int, ...]

    @classmethod
    def now(cls) -> _StartState:
        heeded = heeded_stop_signals()
        return cls(dict(os.environ), tuple(s for s in STOP_SIGNALS if s not in heeded))

    def restore(self) -> None:
        """Take this state in the worker: its environment (``tempfile`` reads ``TMPDIR``
        again: the server may have cached a folder, as matplotlib makes one where its
        configuration folder cannot be written), the ignored stop signals ignored, the
        others as a fresh interpreter has them (Ctrl-C raising ``KeyboardInterrupt``,
        SIGTERM and SIGHUP ending it)."""
        os.environ.clear()
        os.environ.update(self.environment)
        tempfile.tempdir = None
        for signum in STOP_SIGNALS:
            signal.signal(signum, signal.SIG_IGN if signum in self.ignored else
                          signal.default_int_handler if signum == signal.SIGINT else
                          signal.SIG_DFL)


@contextlib.contextmanager
def _shared_data(problem: Problem):
    """The file that the workers map the problem from (``joblib.dump``: every array in it
    stored raw, mapped by ``joblib.load(path, mmap_mode="r")``), in a folder of its own in
    the temporary folder, removed when the block ends (one left by a ``tune`` killed with
    kill -9 is removed by the next: :func:`~paretostab._faults.owned_folder`). A temporary
    folder that cannot take it (full, missing, forbidden) is a
    :class:`~paretostab._errors.StoreError`."""
    folder = None
    try:
        try:
            folder = owned_folder("paretostab-data-")
            joblib.dump(problem, folder / "problem.joblib")
        except OSError as exc:
            raise StoreError(
                f"the data for the worker processes could not be written to the temporary "
                f"folder {tempfile.gettempdir()} ({one_line(exc)}); set TMPDIR to a folder "
                f"with {problem.X.nbytes / 2**20:.0f} MiB free.") from None
        yield folder / "problem.joblib"
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def _worker(path: Path, settings: TuneSettings, errors, state: _StartState) -> None:
    """One tuning process (``--workers``): its own storage connection, sampler stream and
    run cache; the problem's data mapped read-only from the file ``path`` its parent
    wrote (loaded once, in the parent), which it removes when it ends after its parent was
    killed. Its error goes to the parent through ``errors`` (the parent prints it) and it
    exits with code 1. In a process group of its own, it gets Ctrl-C from the parent
    (once), not from the terminal; SIGTERM and SIGHUP stop it as Ctrl-C does, whoever
    sends them, unless the parent was started ignoring them: the worker inherits that
    ``SIG_IGN`` and keeps it (:func:`~paretostab._signals.heeded_stop_signals`), and its
    environment (``state``: :class:`_StartState`)."""
    state.restore()
    os.setpgrp()
    try:
        with stop_signals():
            optuna.logging.set_verbosity(settings.verbosity)  # as its parent logs
            problem = joblib.load(path, mmap_mode="r")
            study = settings.open_study(problem, wait_to_open=True)
            run_trials(study, problem, settings, artifact_store(settings.storage,
                                                                settings.artifacts),
                       in_worker=True)
    except KeyboardInterrupt:  # the parent reports
        return
    except BaseException as exc:
        errors.put(str(exc) if isinstance(exc, ParetostabError) else
                   f"a worker failed: {type(exc).__name__}: {exc}")
        sys.exit(1)
    finally:
        parent = cast(BaseProcess, multiprocessing.parent_process())  # a worker has one
        if not parent.is_alive():  # killed: no one else will
            shutil.rmtree(path.parent, ignore_errors=True)


def _end_with_parent(interrupts: Interrupts) -> None:
    """Interrupt this worker process when the ``tune`` process that started it ends (even
    by kill -9) with a stop signal that it handles, and end it 10 s later if the interrupt
    has not (or if it ignores all three)."""
    parent = cast(BaseProcess, multiprocessing.parent_process())  # a worker has one

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        interrupts.reason = "interrupted: the tune process that started its worker ended"
        handled = [signum for signum in STOP_SIGNALS if callable(signal.getsignal(signum))]
        if handled:  # SIGINT may be one the worker ignores: another of ours
            os.kill(os.getpid(), handled[0])
        time.sleep(10.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="end-with-parent").start()
