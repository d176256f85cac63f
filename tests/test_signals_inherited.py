"""Stop signals as the shell meant them (issue 36, point 1).

A signal ignored when ``tune`` starts — ``nohup`` ignores SIGHUP, a shell ignores SIGINT
for its background jobs — stays ignored by ``tune`` and by every worker it starts. Real
processes, real signals, a real ``nohup``.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import optuna
import pytest

from paretostab._signals import heeded_stop_signals, stop_signals
from paretostab._storage import open_storage
from paretostab._tuning.coordination import Interrupts, counted_trials
from tests.test_coordination import current, wait_for
from tests.test_tuning import storage_url, write_spec

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")


def ignoring(signum):
    """``preexec_fn`` of a process started with ``signum`` ignored, as a shell starts a
    background job with SIGINT ignored."""
    return lambda: signal.signal(signum, signal.SIG_IGN)


def trial_pids(url: str, name: str) -> set[int]:
    study = current(url, name)
    return set() if study is None else {
        t.user_attrs["process"]["pid"] for t in study.get_trials(deepcopy=False)
        if "process" in t.user_attrs}


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


# --------------------------------------------------------------------------- real tune processes


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
    spec = write_spec(tmp_path, "ignoring", trials=6)
    url = storage_url(tmp_path)
    launcher = ["nohup"] if signum == signal.SIGHUP else []
    process = subprocess.Popen(
        [*launcher, sys.executable, "-m", "paretostab", "tune", str(spec), "--storage", url,
         "--workers", str(workers)], cwd=tmp_path, env=ENV, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=None if launcher else ignoring(signum))
    try:
        wait_for(lambda: len(trial_pids(url, "ignoring")) >= workers, seconds=240,
                 what="every process running trials")
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
