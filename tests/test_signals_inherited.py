"""Stop signals as the shell meant them (issue 36, points 1 and 2).

A signal ignored when ``tune`` starts — ``nohup`` ignores SIGHUP, a shell ignores SIGINT
for its background jobs — stays ignored by ``tune`` and by every worker it starts; a stop
signal whose exception a garbage collector's clean-up swallows is neither printed as a
traceback nor lost: the process stops at the next safe point, its trials finished or
failed, none left running. Real processes, real signals, a real ``nohup``.
"""

from __future__ import annotations

import gc
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from paretostab._errors import Interrupted
from paretostab._signals import (
    STOP_SIGNALS,
    heeded_stop_signals,
    raise_if_stopped,
    stop_signals,
)
from paretostab._storage import open_storage
from paretostab._tuning import run_study
from paretostab._tuning.coordination import Interrupts, counted_trials, counts
from paretostab.spec import load_spec
from tests.studies import storage_url
from tests.user_studies import MySelector, selector_spec, trial_pids
from tests.waiting import WAIT_SECONDS, heeding_stop_signals, wait_until

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")


class SlowCleanUp:
    """An object in a reference cycle whose clean-up (``__del__``, run by the garbage
    collector, which ignores its exceptions) takes a while in Python code: where a stop
    signal lands. ``signum``: a signal it sends to its own process first."""

    def __init__(self, signum: int | None = None) -> None:
        self.cycle, self.signum = self, signum

    def __del__(self) -> None:
        if self.signum is not None:
            os.kill(os.getpid(), self.signum)
        total = 0
        for i in range(300_000):  # the handler runs in here
            total += i


class SlowToCollect(MySelector):
    """A user's selector whose fit spends its time in the garbage collector's clean-ups."""

    def fit(self, X, y):
        for _ in range(3):  # each collection of a process with scikit-learn loaded: ~0.1 s
            SlowCleanUp()
            gc.collect()
        return super().fit(X, y)


class SwallowsAStop(MySelector):
    """A user's selector whose first fit in this process runs a clean-up in which a
    SIGTERM lands (its exception swallowed); ``fits`` counts its fits."""

    fits = 0

    def fit(self, X, y):
        type(self).fits += 1
        if type(self).fits == 1:
            SlowCleanUp(signal.SIGTERM)
            gc.collect()
        return super().fit(X, y)


class DeafForMinutes(MySelector):
    """A user's selector whose fit does not take signals for minutes, as a long native
    call (a solver that never returns to Python) does not; a file ``deaf-PID`` in the
    working folder says its process is deaf."""

    def fit(self, X, y):
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        Path(f"deaf-{os.getpid()}").touch()
        time.sleep(300.0)
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        return super().fit(X, y)


class Gathering(MySelector):
    """A user's selector whose fits wait until ``peers`` processes have begun one: each
    leaves a file ``fitting-PID`` in the working folder. A study of it has every worker
    running a trial at once however late one of them starts (the first worker cannot run
    the whole study before the last has begun)."""

    def __init__(self, n_keep=3, peers=1):
        super().__init__(n_keep)
        self.peers = peers

    def fit(self, X, y):
        Path(f"fitting-{os.getpid()}").touch()
        wait_until(lambda: len(list(Path().glob("fitting-*"))) >= self.peers,
                   what=f"{self.peers} processes fitting")
        return super().fit(X, y)


def ignoring(signum):
    """``preexec_fn`` of a process started with ``signum`` ignored, as a shell starts a
    background job with SIGINT ignored."""
    return lambda: signal.signal(signum, signal.SIG_IGN)


# --------------------------------------------------------------------------- in one process


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGHUP], ids=["SIGINT", "SIGHUP"])
def test_an_ignored_stop_signal_is_left_ignored_and_does_nothing(signum):
    previous = signal.signal(signum, signal.SIG_IGN)
    try:
        assert signum not in heeded_stop_signals()
        interrupts = Interrupts()
        with stop_signals(), interrupts.handling(optuna.create_study()):
            assert signal.getsignal(signum) == signal.SIG_IGN
            with interrupts.computation():
                os.kill(os.getpid(), signum)
                sum(range(100_000))  # where a handler would run
        assert interrupts.pending is None and signal.getsignal(signum) == signal.SIG_IGN
    finally:
        signal.signal(signum, previous)


@pytest.mark.slow
def test_a_signal_swallowed_inside_a_computation_stops_the_study_after_it():
    """Before: the Interrupted raised inside a garbage collector's clean-up was swallowed
    and the computation, then the study, went on (a worker ran until it was killed)."""
    interrupts, reached = Interrupts(), []
    study = optuna.create_study()
    with pytest.raises(Interrupted) as raised, interrupts.handling(study):
        with interrupts.computation():
            SlowCleanUp(signal.SIGTERM)
            gc.collect()
            reached.append("the computation goes on to its end")
        assert interrupts.pending == signal.SIGTERM
    assert raised.value.signum == signal.SIGTERM and reached


@pytest.mark.slow
def test_a_signal_swallowed_in_a_trials_run_stops_the_trial_after_that_run(tmp_path,
                                                                            monkeypatch):
    """Before: the trial ran the rest of its protocol first (with 100 runs of a second
    each, 100 s after the Ctrl-C; 8 s for a worker of the garbage-collecting test below)."""
    monkeypatch.setattr(SwallowsAStop, "fits", 0)
    spec = load_spec(selector_spec(tmp_path, "swallowed",
                                   "tests.test_signals_inherited:SwallowsAStop", trials=2))
    url = storage_url(tmp_path)
    with pytest.raises(Interrupted) as raised:
        run_study(spec, storage=url, progress=False)
    assert raised.value.signum == signal.SIGTERM
    assert SwallowsAStop.fits == 1  # of the protocol's 3 runs, only the one it landed in
    trial, = optuna.load_study(study_name="swallowed", storage=open_storage(url)).trials
    assert trial.state == TrialState.FAIL and not counts(trial)
    assert trial.user_attrs["fail_reason"] == Interrupts.REASONS[signal.SIGTERM]


@pytest.mark.slow
def test_a_signal_swallowed_by_a_clean_up_is_not_printed_and_is_raised_after():
    """Before: "Exception ignored in: <function SlowCleanUp.__del__ …>" and a traceback."""
    script = ("import gc, signal\n"
              "from paretostab._signals import raise_if_stopped, stop_signals\n"
              "from tests.test_signals_inherited import SlowCleanUp\n"
              "with stop_signals():\n"
              "    SlowCleanUp(signal.SIGHUP)\n"
              "    gc.collect()\n"
              "    try:\n"
              "        raise_if_stopped()\n"
              "    except KeyboardInterrupt as stop:\n"
              "        print(stop.signum)\n")
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=ENV,
                            capture_output=True, text=True, timeout=WAIT_SECONDS,
                            preexec_fn=heeding_stop_signals)  # not nohup's SIGHUP ignored
    assert result.returncode == 0 and result.stdout.split() == [str(int(signal.SIGHUP))], (
        result.stderr)
    assert "Exception ignored" not in result.stderr and "Traceback" not in result.stderr


def test_raise_if_stopped_raises_a_swallowed_signal_once():
    with stop_signals():
        SlowCleanUp(signal.SIGTERM)
        gc.collect()
        with pytest.raises(Interrupted):
            raise_if_stopped()
        raise_if_stopped()  # raised: not again


# --------------------------------------------------------------------------- real tune processes


@pytest.mark.slow
@pytest.mark.parametrize(("signum", "workers"), [
    (signal.SIGHUP, 1), (signal.SIGHUP, 2), (signal.SIGINT, 2)],
    ids=["nohup-SIGHUP", "nohup-SIGHUP-workers", "ignored-SIGINT-workers"])
def test_a_stop_signal_ignored_when_tune_starts_stays_ignored_by_its_workers(
        tmp_path, signum, workers):
    """``nohup tune … &`` then ``kill -HUP`` (an ssh session closing), or SIGINT to a
    background job of a shell that ignores it: the signal reaches the parent and every
    worker, and the study goes on to its end. Before: "Interrupted (SIGHUP)", exit 129."""
    if signum == signal.SIGHUP and shutil.which("nohup") is None:
        pytest.skip("no nohup on this machine")
    spec = selector_spec(tmp_path, "ignoring", "tests.test_signals_inherited:Gathering",
                         trials=6, fixed={"peers": workers})
    url = storage_url(tmp_path)
    launcher = ["nohup"] if signum == signal.SIGHUP else []
    process = subprocess.Popen(
        [*launcher, sys.executable, "-m", "paretostab", "tune", str(spec), "--storage", url,
         "--workers", str(workers)], cwd=tmp_path, env=ENV, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=None if launcher else ignoring(signum))
    try:
        wait_until(lambda: len(trial_pids(url, "ignoring")) >= workers,
                   what="every process running trials", process=process)
        for pid in {process.pid, *trial_pids(url, "ignoring")}:
            os.kill(pid, signum)
        _, err = process.communicate(timeout=600)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err[-3000:]
    assert "Interrupted" not in err and "Traceback" not in err, err[-3000:]
    study = optuna.load_study(study_name="ignoring", storage=open_storage(url))
    assert counted_trials(study) == 6
    assert not any("interrupted" in t.user_attrs.get("fail_reason", "") for t in study.trials)


def tune_with_two_workers(folder: Path, spec: Path, url: str, *options: str
                          ) -> subprocess.Popen:
    """``tune SPEC --storage URL --workers 2 OPTIONS`` started as a terminal's shell
    starts it (the stop signals heeded), its output piped."""
    return subprocess.Popen(
        [sys.executable, "-m", "paretostab", "tune", str(spec), "--storage", url,
         "--workers", "2", *options], cwd=folder, env=ENV, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, preexec_fn=heeding_stop_signals)


@pytest.mark.slow
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGHUP, 129), (signal.SIGTERM, 143)],
                         ids=["SIGHUP", "SIGTERM"])
def test_a_stop_signal_to_a_workers_parent_while_they_collect_garbage_stops_it_cleanly(
        tmp_path, signum, code):
    """The workers spend their trials in garbage collector clean-ups, where a signal's
    exception is swallowed. Before: "Exception ignored in: …" tracebacks, a worker that
    ran on until its parent killed it 30 s later, its trial left RUNNING, a leaked
    semaphore. Now one line, the signal's exit code, nothing running."""
    spec = selector_spec(tmp_path, "collecting", "tests.test_signals_inherited:SlowToCollect")
    url = storage_url(tmp_path)
    process = tune_with_two_workers(tmp_path, spec, url)
    try:
        wait_until(lambda: len(trial_pids(url, "collecting")) == 2,
                   what="both workers running trials", process=process)  # in their collections
        process.send_signal(signum)
        _, err = process.communicate(timeout=600)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == code, err[-3000:]
    for said in ("Traceback", "Exception ignored", "leaked"):
        assert said not in err, err[-3000:]
    assert [line for line in err.splitlines() if "Interrupted" in line] == [
        f"Interrupted ({signal.Signals(signum).name}): completed trials are kept; run the "
        "same command to resume."]
    study = optuna.load_study(study_name="collecting", storage=open_storage(url))
    assert not study.get_trials(states=(TrialState.RUNNING,))


@pytest.mark.slow
def test_a_worker_killed_after_the_stop_wait_leaves_no_trial_running(tmp_path):
    """Workers that do not take the signal the parent passes on (a long native call) are
    killed ``--stop-wait`` seconds later (2 here, 30 by default), all of them (not 2 s
    each); their trials are failed as stale when ``tune`` exits, not left RUNNING until a
    later ``tune`` finds them. The parent ends well before the default's 30 s: a
    ``--stop-wait`` not heeded fails the test."""
    spec = selector_spec(tmp_path, "deaf", "tests.test_signals_inherited:DeafForMinutes")
    url = storage_url(tmp_path)
    process = tune_with_two_workers(tmp_path, spec, url, "--stop-wait", "2")
    try:
        wait_until(lambda: len(list(tmp_path.glob("deaf-*"))) == 2,
                   what="both workers deaf in their fits", process=process)  # not merely running trials
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=25)  # 2 s, a kill and a clean-up; not 30 s
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 143 and "Traceback" not in err, err[-3000:]
    study = optuna.load_study(study_name="deaf", storage=open_storage(url))
    assert not study.get_trials(states=(TrialState.RUNNING,))
    failed = study.get_trials(states=(TrialState.FAIL,))
    assert len(failed) == 2 and not any(map(counts, failed))
    reasons = [t.user_attrs["fail_reason"] for t in failed]
    assert all(reason.startswith("went stale: its process") for reason in reasons), reasons
