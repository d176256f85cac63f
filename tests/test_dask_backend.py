"""A trial's runs on a Dask cluster (issue 21, point 7): ``tune --backend dask``.

The cluster is a ``distributed.LocalCluster`` of two worker processes on loopback,
started here; the results must be the local backend's, and each Dask worker keeps its own
part of the run cache.
"""

from __future__ import annotations

import os
import socket
import sys

import pytest

from paretostab._cli import main
from paretostab._errors import InvalidInputError
from paretostab._problem import Problem
from paretostab._run_cache import RunCache
from paretostab._tuning import run_study
from paretostab._tuning.cluster import runs_on
from tests.extras import need
from tests.studies import storage_url, tiny, write_spec


@pytest.fixture(scope="module")
def cluster():
    distributed = need("distributed")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  host="127.0.0.1", dashboard_address=None) as local:
        yield local


def cached_runs() -> dict[int, int]:
    """This process's id and the prepared runs it holds for other processes' caches."""
    from paretostab import _run_cache as run_cache

    return {os.getpid(): sum(len(cache) for cache in run_cache._REMOTE_CACHES.values())}


@pytest.mark.slow
def test_a_protocol_on_the_cluster_is_the_local_one_and_each_worker_keeps_its_runs(cluster):
    from distributed import Client

    problem = Problem.from_spec(tiny(protocol={"runs": 8})).read_only()
    params = {"n_stable": 2, "epsilon": 0.1}
    local = problem.run(params, random_state=4)
    cache = RunCache()
    with runs_on(cluster.scheduler_address, problem):
        for _ in range(3):  # the data scattered once; the runs prepared, then cached
            assert problem.run(params, random_state=4, n_jobs=-1, cache=cache).same_runs(local)
    assert len(cache) == 0 and cache.hits > 0  # no run prepared here: the workers have them
    with Client(cluster.scheduler_address, set_as_default=False) as client:
        held = {pid: n for worker in client.run(cached_runs).values() for pid, n in worker.items()}
    assert os.getpid() not in held and len(held) == 2
    assert sum(held.values()) >= 8 and all(held.values())  # each worker its own runs


@pytest.mark.slow
def test_tune_on_the_cluster_records_the_local_study(tmp_path, cluster):
    spec = tiny(study={"trials": 3})
    local = run_study(spec, storage=storage_url(tmp_path, "local.db"), progress=False)
    remote = run_study(spec, storage=storage_url(tmp_path, "dask.db"), progress=False,
                  backend="dask", scheduler=cluster.scheduler_address)

    def recorded(study):
        return [(t.state, t.params, t.values, t.user_attrs["measures"],
                 t.user_attrs["mean_selected"]) for t in study.trials]

    assert recorded(remote) == recorded(local)


@pytest.mark.parametrize("options, message", [
    ({"backend": "spark"}, "backend must be one of ('local', 'dask'); got 'spark'"),
    ({"scheduler": "tcp://127.0.0.1:8786"}, "a scheduler is for backend 'dask'"),
    ({"backend": "dask"}, "backend 'dask' needs the address of a Dask scheduler"),
    ({"backend": "dask", "scheduler": "tcp://127.0.0.1:8786", "n_jobs": 2},
     "leave n_jobs (--n-jobs) unset"),
])
def test_backend_options_are_checked_before_anything_is_made(tmp_path, options, message):
    with pytest.raises(InvalidInputError) as caught:
        run_study(tiny(), storage=storage_url(tmp_path), progress=False, **options)
    assert message in str(caught.value)
    assert not (tmp_path / "study.db").exists()


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def error_lines(capsys, tmp_path, *extra) -> list[str]:
    """``tune --backend dask`` on a small spec: the lines of stderr (exit code 2)."""
    spec = write_spec(tmp_path, "remote", trials=2)
    with pytest.raises(SystemExit) as exited:
        main(["tune", str(spec), "--storage", storage_url(tmp_path), "--backend", "dask",
              *extra])
    assert exited.value.code == 2
    return capsys.readouterr().err.splitlines()


def test_tune_without_dask_distributed_says_which_extra_to_install(tmp_path, capsys,
                                                                   monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed.comm", None)  # as if not installed
    lines = error_lines(capsys, tmp_path, "--scheduler", "tcp://127.0.0.1:8786")
    assert lines == ["error: backend 'dask' needs Dask distributed: pip install "
                     "'paretostab[dask]'."]


@pytest.mark.slow
def test_an_unreachable_scheduler_is_one_error_line_before_any_trial(tmp_path, capsys):
    dask = need("dask")
    need("distributed")
    address = f"tcp://127.0.0.1:{closed_port()}"
    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        lines = error_lines(capsys, tmp_path, "--scheduler", address)
    assert len(lines) == 1 and lines[0].startswith(
        f"error: scheduler '{address}': no Dask scheduler could be reached there (OSError: "
        "Timed out trying to connect"), lines
    assert not (tmp_path / "study.db").exists()  # checked before the study is made
