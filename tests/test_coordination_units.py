"""The parts of coordination.py in one process and in seconds: releasing a trial and its
grid point, the wrapped sampler's end of a trial, a zombie process, the grace period and
deadline at their bounds, and stop signals sent to this very process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from paretostab._errors import Interrupted, InvalidInputError
from paretostab._faults import GRACE_SECONDS, HEARTBEAT_SECONDS
from paretostab._optuna_internals import grace_seconds, storage_of, trial_id_of
from paretostab._problem import Problem
from paretostab._signals import STOP_SIGNALS
from paretostab._storage import open_storage
from paretostab._tuning import coordination, create_or_load_study
from paretostab._tuning.coordination import (
    Interrupts,
    StreamSampler,
    TrialSlots,
    fail_stale_trials,
    process_ended,
    release,
)
from paretostab._tuning.processes import TuneSettings
from tests.clock import FakeClock
from tests.studies import storage_url, tiny
from tests.waiting import stop_signals_heeded, wait_until


def grid_study(points: int = 2) -> optuna.Study:
    """An in-memory study whose sampler is a grid over ``x`` = 0, 1, …, wrapped as tune
    wraps the spec's sampler."""
    grid = {"x": list(range(points))}
    return optuna.create_study(sampler=StreamSampler(
        lambda seed: optuna.samplers.GridSampler(grid, seed=seed), 0))


# ------------------------------------------------------------------ grid points


def test_release_records_the_reason_and_frees_the_trials_grid_point():
    """A released trial does not count, says why, and no longer holds its grid point."""
    study = grid_study()
    trial = study.ask()
    storage, trial_id = storage_of(study), trial_id_of(trial)
    assert storage.get_trial_system_attrs(trial_id)["grid_id"] == 0
    release(storage, trial_id, "interrupted (Ctrl-C)")
    assert storage.get_trial_system_attrs(trial_id)["grid_id"] is None
    assert storage.get_trial(trial_id).user_attrs == {"fail_reason": "interrupted (Ctrl-C)",
                                                      "counted": False}


def test_the_wrapped_grid_sampler_reruns_a_pruned_point_and_ends_with_its_grid():
    """A pruned trial frees its point, which a later trial runs; the wrapped grid sampler
    still stops the study once every point has run."""
    study = grid_study(points=2)

    def objective(trial):
        x = trial.suggest_categorical("x", [0, 1])
        if trial.number == 0:
            raise optuna.TrialPruned("not run")
        return float(x)

    study.optimize(objective, n_trials=6)
    trials = study.get_trials(deepcopy=False)
    assert [t.state for t in trials] == [TrialState.PRUNED, TrialState.COMPLETE,
                                         TrialState.COMPLETE]
    assert trials[0].system_attrs["grid_id"] is None
    assert sorted(t.params["x"] for t in trials[1:]) == [0, 1]


def test_processes_after_the_first_seed_their_samplers_apart():
    """The process that runs trial 0 takes the spec's seed; any other draws fresh entropy
    as a 32-bit seed: 20 such processes get 20 different seeds (two alike has
    probability 4e-8)."""
    seeds = []

    def make(seed):
        seeds.append(seed)
        return optuna.samplers.RandomSampler(seed=seed)

    first = StreamSampler(make, 7)
    study = optuna.create_study(sampler=first)
    study.ask()
    assert seeds == [7]  # trial 0's process made no other sampler
    for _ in range(20):
        assert StreamSampler(make, 7).sampler is not None
    fresh = seeds[2::2]  # each sampler is made seeded at once, then fresh when asked
    assert seeds[1::2] == [7] * 20
    assert len(set(fresh)) == 20 and all(0 <= seed < 2**32 for seed in fresh)


def test_the_wrapped_sampler_reseeds_the_spec_sampler():
    """Optuna reseeds a study's sampler (for example for each thread of ``n_jobs``): the
    wrapper passes it on to the sampler it wraps."""
    class Counting(optuna.samplers.RandomSampler):
        reseeded = 0

        def reseed_rng(self):
            self.reseeded += 1
            super().reseed_rng()

    stream = StreamSampler(lambda seed: Counting(seed=seed), 0)
    stream.reseed_rng()
    stream.reseed_rng()
    assert stream.sampler.reseeded == 2


def test_a_trial_at_another_grid_point_than_a_running_one_holds_its_slot():
    """Two running trials at grid points 0 and 1: the second is no twin of the first."""
    study = grid_study(points=2)
    study.ask()
    second = study.ask()
    assert study.get_trials()[1].system_attrs["grid_id"] == 1
    assert TrialSlots(study, 2).claim(second) is None


# ------------------------------------------------------------------ stale trials


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="no /proc on this system")
def test_a_zombie_process_has_ended():
    """A child that has exited but is not yet reaped (state Z) is an ended process."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        stat = Path(f"/proc/{child.pid}/stat")
        wait_until(lambda: stat.read_text().rsplit(")", 1)[1].split()[0] == "Z",
                   what="the child to exit (state Z)", poll=0.01)
        assert process_ended(child.pid)
    finally:
        child.wait()
    assert process_ended(child.pid)


def test_a_process_of_another_user_has_not_ended(monkeypatch):
    """A pid that exists but may not be signalled (another user's process) is alive: its
    trial is not failed as stale."""
    def refuse(pid, signum):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "kill", refuse)
    assert process_ended(os.getpid()) is False


@pytest.mark.parametrize(("stat", "ended"), [
    ("4242 (python) Z 1 4242", True),
    ("4242 (my (odd)) name) Z 1 4242", True),  # the state follows the last ")"
    ("4242 (my (odd)) name) S 1 4242", False),
    (None, False),  # no /proc entry to read: taken as alive
])
def test_a_process_has_ended_when_proc_says_zombie(monkeypatch, stat, ended):
    """A pid that may be signalled has ended only if /proc says it is a zombie (state Z,
    the field after the command name, which may itself hold parentheses)."""
    class Stat:
        def __init__(self, path):
            pass

        def read_text(self):
            if stat is None:
                raise FileNotFoundError("no /proc")
            return stat

    monkeypatch.setattr(os, "kill", lambda pid, signum: None)
    monkeypatch.setattr(coordination, "Path", Stat)
    assert process_ended(4242) is ended


def test_the_default_grace_period_outlasts_a_late_heartbeat(tmp_path):
    """The study tune opens with its defaults keeps a live trial whose heartbeat comes one
    interval late (a slow write) from going stale: its grace period is the package's
    default, longer than the two intervals of silence of a late heartbeat (Optuna's own
    default, which the storage would fall back to, is exactly two)."""
    settings = TuneSettings(storage=storage_url(tmp_path), artifacts=None, study_name=None,
                            n_trials=1)
    study = settings.open_study(Problem.from_spec(tiny()))
    assert grace_seconds(storage_of(study)) == GRACE_SECONDS > 2 * HEARTBEAT_SECONDS


@pytest.mark.filterwarnings("ignore:Heartbeat of storage:UserWarning")  # asked by hand
def test_a_stale_trial_begun_after_the_trials_were_read_is_failed_under_its_number(
        tmp_path, monkeypatch):
    """The storage names a stale trial that the caller's list of trials (read before it
    began) does not hold: it is failed, and returned under its own number."""
    storage = open_storage(storage_url(tmp_path), heartbeat_interval=1, grace_period=1)
    study = create_or_load_study(tiny(), storage=storage)
    study.ask()
    before = study.get_trials(deepcopy=False)
    trial = study.ask()
    monkeypatch.setattr(coordination, "stale_trial_ids",
                        lambda storage, study_id: [trial_id_of(trial)])
    assert fail_stale_trials(study, before) == [trial.number] == [1]
    assert study.get_trials()[1].state == TrialState.FAIL


@pytest.mark.filterwarnings("ignore:Heartbeat of storage:UserWarning")  # asked by hand
def test_a_trial_that_never_beat_is_stale_once_watched_for_exactly_its_grace_period(
        tmp_path, monkeypatch):
    """Watched for the grace period (here 1 s, to the tick), a silent trial is stale."""
    storage = open_storage(storage_url(tmp_path), heartbeat_interval=1, grace_period=1)
    study = create_or_load_study(tiny(), storage=storage)
    trial = study.ask()
    monkeypatch.setattr(coordination, "time", FakeClock(101.0))
    watched = {trial_id_of(trial): 100.5}
    assert fail_stale_trials(study, silent_since=watched) == []  # 0.5 s: not yet
    watched = {trial_id_of(trial): 100.0}
    assert fail_stale_trials(study, silent_since=watched) == [trial.number]
    assert study.get_trials()[0].state == TrialState.FAIL


# ------------------------------------------------------------------ slots


@pytest.mark.filterwarnings("ignore:Heartbeat of storage:UserWarning")  # asked by hand
def test_a_wait_for_running_trials_ends_at_its_deadline_without_polling(tmp_path,
                                                                        monkeypatch):
    """With every slot held by a running trial, a wait whose deadline is now returns False
    at once; one a poll away polls once, then returns False."""
    storage = open_storage(storage_url(tmp_path), heartbeat_interval=30, grace_period=60)
    study = create_or_load_study(tiny(), storage=storage)
    study.ask(), study.ask()
    clock = FakeClock(50.0)
    monkeypatch.setattr(coordination, "time", clock)
    slots = TrialSlots(study, 2, poll_seconds=0.25)
    assert not slots.wait(Interrupts(), deadline=50.0)
    assert clock.slept == []
    assert not slots.wait(Interrupts(), deadline=50.25)
    assert clock.slept == [0.25]


@pytest.mark.parametrize("poll_seconds", [0.0, -1.0, float("nan")])
def test_a_wait_that_would_never_sleep_is_refused(poll_seconds):
    with pytest.raises(InvalidInputError, match="poll_seconds must be > 0"):
        TrialSlots(optuna.create_study(), 2, poll_seconds=poll_seconds)
    assert TrialSlots(optuna.create_study(), 2).poll_seconds > 0


@pytest.mark.filterwarnings("ignore:Heartbeat of storage:UserWarning")  # asked by hand
def test_a_wait_frees_the_slot_of_a_stale_trial_at_once(tmp_path, monkeypatch):
    """The only slot is held by a trial whose heartbeats stopped: the wait fails it and
    counts again, finding the slot free, without polling."""
    storage = open_storage(storage_url(tmp_path), heartbeat_interval=30, grace_period=60)
    study = create_or_load_study(tiny(), storage=storage)
    stale = study.ask()
    monkeypatch.setattr(coordination, "stale_trial_ids",
                        lambda storage, study_id: [trial_id_of(stale)])
    clock = FakeClock(50.0)
    monkeypatch.setattr(coordination, "time", clock)
    assert TrialSlots(study, 1).wait(Interrupts(), deadline=50.0)
    assert study.get_trials()[0].state == TrialState.FAIL and clock.slept == []


# ------------------------------------------------------------------ interrupts


@pytest.mark.parametrize(("signum", "reason"), [
    (signal.SIGINT, "interrupted (Ctrl-C)"),
    (signal.SIGTERM, "interrupted (SIGTERM: its process was asked to end)"),
    (signal.SIGHUP, "interrupted (SIGHUP: its terminal or session closed)"),
])
def test_a_signal_in_a_computation_interrupts_it_at_once_with_its_reason(signum, reason):
    """A stop signal inside a computation raises Interrupted there, with the signal's
    reason, and leaves the block at once."""
    interrupts, reached = Interrupts(), []
    with stop_signals_heeded(), pytest.raises(Interrupted) as raised, \
            interrupts.handling(optuna.create_study()):
        with interrupts.computation():
            assert interrupts.computing
            os.kill(os.getpid(), signum)
            reached.append("after the signal")
    assert raised.value.signum == signum and reached == []
    assert interrupts.reason == reason and interrupts.pending is None
    assert not interrupts.computing


def test_a_signal_before_any_computation_is_deferred_to_the_end_of_handling():
    """A fresh Interrupts is not computing: a signal before the first computation is
    deferred, not raised where it lands."""
    interrupts, reached = Interrupts(), []
    with pytest.raises(Interrupted) as raised, interrupts.handling(optuna.create_study()):
        os.kill(os.getpid(), signal.SIGTERM)
        reached.append("after the signal")
        assert interrupts.pending == signal.SIGTERM
    assert raised.value.signum == signal.SIGTERM and reached == ["after the signal"]


def test_a_deferred_signal_stops_the_study_after_the_trial_in_progress():
    """A signal outside a computation lets the trial finish, then ends the study's
    optimize (5 trials asked, 1 run) and is raised after it."""
    interrupts = Interrupts()
    study = optuna.create_study()

    def objective(trial):
        if trial.number == 0:
            os.kill(os.getpid(), signal.SIGTERM)
        return 1.0

    with pytest.raises(Interrupted), interrupts.handling(study):
        study.optimize(objective, n_trials=5)
    assert [t.state for t in study.trials] == [TrialState.COMPLETE]


def test_handling_gives_the_previous_handlers_back_after_a_block_without_a_signal():
    """A study that ends without a stop signal (quietly or by its own error) leaves every
    stop signal's handler as it found it, and raises no Interrupted."""
    def own(signum, frame):
        pass

    previous = {signum: signal.signal(signum, own) for signum in STOP_SIGNALS}
    try:
        interrupts = Interrupts()
        with interrupts.handling(optuna.create_study()):
            assert all(signal.getsignal(signum) != own for signum in STOP_SIGNALS)
        assert {signum: signal.getsignal(signum) for signum in STOP_SIGNALS} == dict.fromkeys(
            STOP_SIGNALS, own)
        with pytest.raises(ZeroDivisionError), interrupts.handling(optuna.create_study()):
            raise ZeroDivisionError("the study's own error")
        assert {signum: signal.getsignal(signum) for signum in STOP_SIGNALS} == dict.fromkeys(
            STOP_SIGNALS, own)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def test_a_handler_installed_after_a_deferred_signal_is_kept():
    """The deferred signal gives the previous handlers back at once; a handler the block
    then installs is its own, and the end of handling leaves it in place."""
    previous = signal.getsignal(signal.SIGTERM)

    def own(signum, frame):
        pass

    try:
        with pytest.raises(Interrupted), Interrupts().handling(optuna.create_study()):
            os.kill(os.getpid(), signal.SIGTERM)
            assert signal.getsignal(signal.SIGTERM) == previous
            signal.signal(signal.SIGTERM, own)
        assert signal.getsignal(signal.SIGTERM) == own
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_signal_keeps_the_reason_its_sender_gave():
    """A reason set before the signal (by whoever sent it) is the one kept."""
    interrupts = Interrupts()
    interrupts.reason = "went stale: its parent process ended"
    with stop_signals_heeded(), pytest.raises(Interrupted), \
            interrupts.handling(optuna.create_study()):
        with interrupts.computation():
            os.kill(os.getpid(), signal.SIGINT)
    assert interrupts.reason == "went stale: its parent process ended"


def test_a_signal_after_a_computation_is_deferred_to_the_end_of_handling():
    """Outside a computation (also after one has ended) a signal stops the study and is
    raised when the handled block ends, not where it landed."""
    interrupts, reached = Interrupts(), []
    with pytest.raises(Interrupted) as raised, interrupts.handling(optuna.create_study()):
        with interrupts.computation():
            pass
        os.kill(os.getpid(), signal.SIGTERM)
        reached.append("after the signal")
        assert interrupts.pending == signal.SIGTERM
    assert raised.value.signum == signal.SIGTERM and reached == ["after the signal"]
    assert interrupts.reason == "interrupted (SIGTERM: its process was asked to end)"


def test_a_second_signal_is_not_deferred():
    """After a deferred signal the previous handlers are back: a second signal goes to
    them at once."""
    received = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: received.append(signum))
    try:
        interrupts = Interrupts()
        with pytest.raises(Interrupted), interrupts.handling(optuna.create_study()):
            os.kill(os.getpid(), signal.SIGTERM)
            assert interrupts.pending == signal.SIGTERM and received == []
            os.kill(os.getpid(), signal.SIGTERM)
            assert received == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_handling_outside_the_main_thread_runs_its_block_and_leaves_the_handlers():
    """Python delivers signals to the main thread only: in another thread ``handling``
    runs its block and installs nothing."""
    before = signal.getsignal(signal.SIGTERM)
    ran = []

    def body():
        with Interrupts().handling(optuna.create_study()):
            ran.append(signal.getsignal(signal.SIGTERM))

    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    assert ran == [before]
