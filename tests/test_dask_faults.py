"""A Dask scheduler gone in the middle of a study (issue 36, point 3): ``tune --backend
dask`` against a real scheduler and worker started here, the scheduler killed with kill -9
while trials run. The trials it cuts short are the environment's failures, not counted;
``tune`` stops with one ``error:`` line saying the scheduler is gone and how to resume;
the same command, the scheduler back, runs the remaining trials."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from optuna.trial import TrialState

from paretostab._faults import environment_error
from paretostab._tuning.coordination import counted_trials
from tests.extras import need
from tests.studies import storage_url, write_spec
from tests.waiting import current, wait_until

ROOT = Path(__file__).resolve().parents[1]
# Dask's wait for a lost scheduler to come back (30 s by default), shortened
ENVIRONMENT = {**os.environ, "PYTHONPATH": str(ROOT),
               "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "5s"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def cluster(address: str):
    """A Dask scheduler at ``address`` and one worker, each a process of its own."""
    port = address.rsplit(":", 1)[1]
    scheduler = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
         "--port", port, "--no-dashboard"], env=ENVIRONMENT,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
         "--no-dashboard"], env=ENVIRONMENT, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    try:
        yield scheduler
    finally:
        for process in (worker, scheduler):
            process.kill()
            process.wait(timeout=60)


@pytest.mark.slow
def test_a_scheduler_killed_mid_study_stops_tune_in_one_line_and_a_resume_finishes(
        tmp_path):
    need("distributed")
    address = f"tcp://127.0.0.1:{free_port()}"
    spec = write_spec(tmp_path, "gone", trials=20)
    url = storage_url(tmp_path)
    command = [sys.executable, "-m", "paretostab", "tune", str(spec), "--storage", url,
               "--backend", "dask", "--scheduler", address]
    with cluster(address) as scheduler:
        tune = subprocess.Popen(command, cwd=tmp_path, env=ENVIRONMENT, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            wait_until(lambda: (current(url, "gone") is not None
                                and counted_trials(current(url, "gone")) >= 2),
                       what="two trials on the cluster")
        finally:
            scheduler.kill()  # kill -9 of the scheduler, trials running
            _, err = tune.communicate(timeout=300)
    assert tune.returncode == 2, err[-3000:]
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in err, err[-3000:]
    assert f"scheduler '{address}': the Dask scheduler is gone" in errors[0]
    assert "run the same command to resume" in errors[0]
    trials = current(url, "gone").get_trials(deepcopy=False)
    failed = [t for t in trials if t.state == TrialState.FAIL]
    assert failed and all(t.user_attrs.get("counted") is False for t in failed)
    kept = counted_trials(current(url, "gone"))
    assert kept < 20

    with cluster(address):  # back: the same command runs the rest
        done = subprocess.run(command, cwd=tmp_path, env=ENVIRONMENT, text=True,
                              capture_output=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    finished = current(url, "gone").get_trials(deepcopy=False)
    assert counted_trials(current(url, "gone")) == 20
    assert sum(t.state == TrialState.COMPLETE for t in finished) == 20


def test_a_tasks_own_error_is_the_trials_and_dask_errors_the_environments():
    need("distributed")
    from distributed.comm.core import CommClosedError

    def raised(error: BaseException) -> BaseException:
        try:
            raise error
        except BaseException as exc:
            return exc

    assert environment_error(raised(CommClosedError("ConnectionPool closing.")))
    assert not environment_error(raised(AttributeError("'NoneType' object has no attribute")))
    assert not environment_error(raised(ValueError("a selector's own error")))
