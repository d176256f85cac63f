"""Many processes on one study: counted trials, claimed slots, sampler streams, stale
trials and interrupts.

``tune`` may run in several processes at once on one storage: its ``--workers``, a second
command on the same machine, commands on other machines against one database server.
What keeps them from surprising each other:

- :func:`counts` says which trials count towards ``n_trials``, and :class:`TrialSlots`
  lets a process run a trial only if fewer than ``n_trials`` trials numbered before it
  count or are running (trial numbers are given out by the storage, one at a time), so
  ``n_trials`` finished trials is what the study ends with, whoever runs them;
- :class:`StreamSampler` seeds each process's sampler apart, so that no two replay one
  stream of parameters;
- :func:`fail_stale_trials` fails the running trials of processes that are gone (killed,
  or cut off from the storage), with the reason, so that their slots are run again;
- :class:`Interrupts` takes Ctrl-C where Optuna can stop cleanly.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np
import optuna
from optuna.distributions import BaseDistribution
from optuna.exceptions import UpdateFinishedTrialError
from optuna.trial import FrozenTrial, TrialState

from paretostab._errors import Interrupted, InvalidInputError
from paretostab._optuna_internals import (
    grace_seconds,
    heartbeat_enabled,
    set_trial_user_attrs,
    stale_trial_ids,
    storage_of,
    study_id_of,
    trial_id_of,
    trials_with_heartbeat,
)
from paretostab._signals import heeded_stop_signals, interrupts_unsaid, raise_if_stopped
from paretostab._tuning.notes import note_failures

__all__ = ["POLL_SECONDS", "Interrupts", "StreamSampler", "TrialSlots", "counted_trials",
           "counts", "fail_stale_trials", "free_grid_point", "process_ended", "release"]

POLL_SECONDS = 2.0
"""How often a process whose remaining slots are all running checks them again."""


def counts(trial: FrozenTrial, state: TrialState | None = None) -> bool:
    """Whether ``trial`` counts towards the study's ``n_trials``.

    A completed trial counts, and so does a trial its own computation failed (an error,
    an undefined value: it has a user attribute ``fail_reason``). A trial that failed
    because it was interrupted or went stale has ``counted`` = False beside its reason,
    and one that Optuna failed outside its computation has no reason: neither counts,
    and its slot is run again. Pruned trials (:class:`TrialSlots` prunes a trial that
    started when the study had its trials) never count. ``state``: the state the trial
    is being finished in, where it is not stored yet (a sampler's ``after_trial``).
    """
    state = trial.state if state is None else state
    if state == TrialState.COMPLETE:
        return True
    return (state == TrialState.FAIL and "fail_reason" in trial.user_attrs
            and trial.user_attrs.get("counted", True) is not False)


def counted_trials(study: optuna.Study, trials: list[FrozenTrial] | None = None) -> int:
    """The number of the study's trials that count towards ``n_trials`` (:func:`counts`):
    of the study, or of its ``trials`` when the caller has just read them."""
    trials = study.get_trials(deepcopy=False) if trials is None else trials
    return sum(counts(t) for t in trials)


def release(storage: optuna.storages.BaseStorage, trial_id: int, reason: str) -> None:
    """Record why a running trial is failed and that it does not count (its slot is run
    again), and free its grid point (:func:`free_grid_point`); the caller then fails it."""
    set_trial_user_attrs(storage, trial_id, {"fail_reason": reason, "counted": False})
    free_grid_point(storage, trial_id, storage.get_trial_system_attrs(trial_id))


def free_grid_point(storage: optuna.storages.BaseStorage, trial_id: int,
                    system_attrs: Mapping[str, object]) -> None:
    """Free the point of a grid (``sampler = "grid"``) that a trial finishing without
    counting holds, so that a later trial runs it.

    Optuna's ``GridSampler`` takes the ``grid_id`` of every finished trial as done — of
    a pruned, an interrupted or a stale one too — and would end the study without ever
    running that point. So the trial's ``grid_id`` becomes None: every finished trial
    that holds a grid point counts (:func:`counts`), and each point is held by at most
    one counted or running trial (:meth:`TrialSlots.claim`).
    """
    if system_attrs.get("grid_id") is not None:
        storage.set_trial_system_attr(trial_id, "grid_id", None)


def process_ended(pid: int) -> bool:
    """Whether process ``pid`` of this host has ended (a zombie has)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # another user's process
        return False
    stat = Path(f"/proc/{pid}/stat")
    with contextlib.suppress(OSError):
        return stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"
    return False


def fail_stale_trials(study: optuna.Study, trials: list[FrozenTrial] | None = None,
                      silent_since: dict[int, float] | None = None) -> list[int]:
    """Fail the study's running trials whose process is gone, and return their numbers.

    A trial is stale when the process that runs it (user attribute ``process``: host and
    pid, recorded when it claims its slot) has ended on this host, or when the storage
    has heartbeats and none came for its grace period (a process killed on another
    machine, or cut off from the storage). Each stale trial gets a ``fail_reason`` that
    says so and ``counted`` = False before it is failed; when two processes see it
    together, one fails it. Optuna's own stale check (before every trial of
    ``study.optimize``) would fail it without a reason, so this runs first. ``trials``:
    the study's trials if the caller has just read them.

    A stale trial whose process had written its dashboard note (killed while recording
    it) gets that note replaced by one that says it failed
    (:func:`~paretostab._tuning.notes.failed_note`).

    Optuna's check passes over a trial that never recorded a heartbeat: that of a
    process killed between Optuna creating its trial and the trial's first heartbeat,
    which then runs for ever. ``silent_since`` (trial id → ``time.monotonic()`` when this
    caller first saw it running without a heartbeat; kept by the caller across calls and
    updated here, as :class:`TrialSlots` does) makes such a trial stale once it has been
    watched for the grace period.
    """
    storage = storage_of(study)
    host = socket.gethostname()
    stale: dict[int, tuple[int, str]] = {}
    trials = study.get_trials(deepcopy=False) if trials is None else trials
    running = [t for t in trials if t.state == TrialState.RUNNING]
    for trial in running:
        owner = trial.user_attrs.get("process")
        if owner and owner.get("host") == host and process_ended(int(owner["pid"])):
            stale[trial_id_of(trial)] = (trial.number, (
                f"went stale: its process (pid {owner['pid']} on {host}) ended before "
                "finishing it"))
    if heartbeat_enabled(storage):
        numbers = {trial_id_of(t): t.number for t in running}
        grace = grace_seconds(storage)
        for trial_id in stale_trial_ids(storage, study_id_of(study)):
            number = numbers.get(trial_id)
            if number is None:  # started after ``trials`` were read
                number = storage.get_trial_number_from_id(trial_id)
            stale.setdefault(trial_id, (number, (
                f"went stale: no heartbeat from its process for the grace period, {grace} s "
                "(killed, or cut off from the storage)")))
        if silent_since is not None:
            stale = {**_never_beating(storage, numbers, silent_since), **stale}
    failed = []
    for trial_id, (number, reason) in stale.items():
        try:
            release(storage, trial_id, reason)
            if storage.set_trial_state_values(trial_id, state=TrialState.FAIL):
                failed.append((trial_id, number, reason))
        except UpdateFinishedTrialError:  # another process failed it first
            continue
    if failed:  # killed after its note was written: the note says it failed
        note_failures(storage, study_id_of(study), failed)
    return [number for _, number, _ in failed]


def _never_beating(storage, numbers: dict[int, int],
                   silent_since: dict[int, float]) -> dict[int, tuple[int, str]]:
    """The running trials (``numbers``: trial id → number) that have had no heartbeat
    since ``silent_since`` first saw them, for the grace period of the storage (an
    RDBStorage, perhaps in Optuna's cache): trial id → (number, reason). Updates
    ``silent_since`` to the running trials without a heartbeat."""
    if not numbers:  # nothing runs: no query
        silent_since.clear()
        return {}
    grace = grace_seconds(storage)
    beating = trials_with_heartbeat(storage, numbers)
    now = time.monotonic()
    silent = numbers.keys() - beating
    for trial_id in silent_since.keys() - silent:
        del silent_since[trial_id]
    return {trial_id: (numbers[trial_id], (
        f"went stale: no heartbeat ever came from its process, watched for {grace} s "
        "(it ended or stopped while starting the trial)"))
        for trial_id in silent if now - silent_since.setdefault(trial_id, now) >= grace}


class TrialSlots:
    """``n_trials`` slots of a study, shared by every process that runs it.

    Before each trial a process :meth:`wait` s for a free slot (fewer counted and running
    trials than ``n_trials``; while the remaining slots are all held by running trials,
    it waits for them to finish or go stale, since a failed one frees its slot) and
    stops when the study has its trials. After Optuna has created the trial, the trial
    :meth:`claim` s its slot: it runs only if fewer than ``n_trials`` trials numbered
    before it count or are running — two processes that saw the same free slot get
    consecutive numbers, and the second is pruned without running. So the study ends
    with exactly ``n_trials`` counted trials.

    On a storage without heartbeats a running trial of a process gone on another machine
    cannot be told from a live one: there a process does not wait for running trials; it
    stops, and the slots they hold are run again by a later ``tune`` if they fail.
    """

    def __init__(self, study: optuna.Study, n_trials: int, *,
                 poll_seconds: float = POLL_SECONDS) -> None:
        if not poll_seconds > 0:
            raise InvalidInputError(f"poll_seconds must be > 0 (a wait that never sleeps "
                                    f"reads the storage without pause); got {poll_seconds!r}.")
        self.study = study
        self.n_trials = n_trials
        self.poll_seconds = poll_seconds
        self.heartbeats = heartbeat_enabled(storage_of(study))
        self.seen: list[FrozenTrial] = []
        self._silent_since: dict[int, float] = {}  # for fail_stale_trials

    def wait(self, interrupts: Interrupts, deadline: float | None = None) -> bool:
        """Block until this process may start a trial (True), or until the study has its
        trials, or its running trials hold the remaining slots on a storage without
        heartbeats, or ``deadline`` (``time.monotonic()``) has passed (False)."""
        while True:
            trials = self.study.get_trials(deepcopy=False)
            if fail_stale_trials(self.study, trials, self._silent_since):
                trials = self.study.get_trials(deepcopy=False)
            done = counted_trials(self.study, trials)
            running = sum(t.state == TrialState.RUNNING for t in trials)
            if done >= self.n_trials:
                return False
            if done + running < self.n_trials:
                return True
            if not self.heartbeats or (deadline is not None and time.monotonic() >= deadline):
                return False
            with interrupts.computation():
                time.sleep(self.poll_seconds)

    def claim(self, trial: optuna.Trial) -> str | None:
        """None if ``trial`` (just created, not started) holds a slot, else why it does
        not run. It holds one if fewer than ``n_trials`` trials numbered before it count
        or are running and, in a grid study, none of them holds its grid point (two
        processes that create trials at once may be given one point; the later trial
        gives it up). Its process (host and pid) is then recorded for
        :func:`fail_stale_trials`. The study's trials as this read them stay in
        :attr:`seen` (the trial's front check reads them instead of the study again)."""
        trials = self.seen = self.study.get_trials(deepcopy=False)
        held = [t for t in trials if t.number < trial.number
                and (counts(t) or t.state == TrialState.RUNNING)]
        if len(held) >= self.n_trials:
            return (f"not run: the study had its {self.n_trials} trials, finished or "
                    "running, when this one started")
        point = trials[trial.number].system_attrs.get("grid_id")
        twin = next((t for t in held if point is not None
                     and t.system_attrs.get("grid_id") == point), None)
        if twin is not None:
            return f"not run: its grid point is trial {twin.number}'s"
        trial.set_user_attr("process", {"host": socket.gethostname(), "pid": os.getpid()})
        return None


class StreamSampler(optuna.samplers.BaseSampler):
    """The spec's sampler, seeded apart in each process.

    The process that runs trial 0 seeds it with the spec's seed, so a single
    uninterrupted one-process study replays exactly; every other process — a resume,
    a second ``tune``, the other ``--workers`` — seeds it with fresh entropy, so that no
    two processes draw the same stream of parameters (with one seed, TPE's random
    start-up trials would repeat). The sampler is made at the process's first trial,
    when the storage has given that trial its number.
    """

    def __init__(self, make: Callable[[int | None], optuna.samplers.BaseSampler],
                 seed: int | None) -> None:
        self._make = make
        self._seeded = make(seed)  # made now: an unknown name or a missing package fails here
        self._sampler: optuna.samplers.BaseSampler | None = None

    @property
    def sampler(self) -> optuna.samplers.BaseSampler:
        """This process's sampler (one with fresh entropy if asked before a first trial)."""
        if self._sampler is None:
            # a fresh SeedSequence's entropy is an int (numpy types it as any entropy given)
            entropy = cast(int, np.random.SeedSequence().entropy)
            self._sampler = self._make(int(entropy % 2**32))
        return self._sampler

    def before_trial(self, study: optuna.Study, trial: FrozenTrial) -> None:
        if self._sampler is None and trial.number == 0:
            self._sampler = self._seeded
        self.sampler.before_trial(study, trial)

    def infer_relative_search_space(self, study: optuna.Study,
                                    trial: FrozenTrial) -> dict[str, BaseDistribution]:
        return self.sampler.infer_relative_search_space(study, trial)

    def sample_relative(self, study: optuna.Study, trial: FrozenTrial,
                        search_space: dict[str, BaseDistribution]) -> dict[str, Any]:
        return self.sampler.sample_relative(study, trial, search_space)

    def sample_independent(self, study: optuna.Study, trial: FrozenTrial, param_name: str,
                           param_distribution: BaseDistribution) -> Any:
        return self.sampler.sample_independent(study, trial, param_name, param_distribution)

    def after_trial(self, study: optuna.Study, trial: FrozenTrial, state: TrialState,
                    values: Sequence[float] | None) -> None:
        if not counts(trial, state):  # pruned, interrupted, failed outside its computation
            free_grid_point(storage_of(study), trial_id_of(trial), trial.system_attrs)
        self.sampler.after_trial(study, trial, state, values)

    def reseed_rng(self) -> None:
        self.sampler.reseed_rng()


class Interrupts:
    """Ctrl-C (SIGINT), SIGTERM and SIGHUP during a study, taken where it is safe.

    Optuna's trial loop is not safe against an interrupt that lands while it samples a
    trial or writes it to the storage: Optuna 5's ``_run_trial`` then fails with an
    ``UnboundLocalError`` in place of the ``KeyboardInterrupt``. While :meth:`handling` a
    study, a stop signal (:func:`~paretostab._signals.heeded_stop_signals`: one the
    process was started ignoring stays ignored) that lands in a :meth:`computation` (a
    trial's protocol and measures, a wait for a slot) raises an
    :class:`~paretostab._errors.Interrupted` there (a trial is recorded as failed, with
    ``reason``); one that lands anywhere else stops the study after the trial in progress
    and is raised when ``study.optimize`` has returned, or at the start of the next
    computation if it comes first. So is one whose exception a garbage collector's
    callback, run inside the computation, swallowed (a worker once ran on until
    it was killed, its trial left running), and it is not printed
    (:func:`~paretostab._signals.interrupts_unsaid`); a trial's protocol raises that one
    at the end of the run it was swallowed in (``on_run``), not after its last run. A
    second signal is not deferred.
    Without a study (the parent of ``--workers``, which only waits), the signal is kept
    and raised at the next computation or at the end of the block.
    """

    REASONS = {signal.SIGINT: "interrupted (Ctrl-C)",
               **({signal.SIGTERM: "interrupted (SIGTERM: its process was asked to end)"}
                  if hasattr(signal, "SIGTERM") else {}),
               **({signal.SIGHUP: "interrupted (SIGHUP: its terminal or session closed)"}
                  if hasattr(signal, "SIGHUP") else {})}
    """A trial's ``fail_reason`` when a signal interrupts it."""

    def __init__(self) -> None:
        self.computing = False
        self.pending: int | None = None  # the deferred signal
        self.reason: str | None = None  # set by whoever sends the signal, if it knows why
        self._study: optuna.Study | None = None
        self._previous: dict = {}

    @contextlib.contextmanager
    def handling(self, study: optuna.Study | None) -> Iterator[None]:
        """Handle the stop signals as above during the block (in the main thread;
        elsewhere Python delivers no signal and nothing changes); raise the deferred
        interrupt at its end. One swallowed before the block is raised at its start."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        raise_if_stopped()
        self._study, self.pending = study, None
        self._previous = {signum: signal.signal(signum, self._handle)
                          for signum in heeded_stop_signals()}
        try:
            with interrupts_unsaid():
                yield
        finally:
            self._restore()
        raise_if_stopped(self.pending)

    @contextlib.contextmanager
    def computation(self) -> Iterator[None]:
        """A block that a stop signal interrupts at once."""
        raise_if_stopped(self.pending)
        self.computing = True
        try:
            yield
        except KeyboardInterrupt:  # the stop is raised: no longer pending
            self.pending = None
            raise
        finally:
            self.computing = False

    def _restore(self) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous = {}

    def _handle(self, signum, frame) -> None:
        self._restore()
        self.reason = self.reason or self.REASONS.get(signum, "interrupted")
        self.pending = signum  # raised later if the exception below is swallowed
        if self._study is not None:
            with contextlib.suppress(RuntimeError):  # outside Optuna's trial loop
                self._study.stop()
        if self.computing:
            raise Interrupted(signum)
