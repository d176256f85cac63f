"""Data shared, not copied, between tune's worker processes (issue 21, point 5).

The parent writes the problem once to a file in a folder of its own; every ``--workers``
process, and joblib's processes for a trial's runs under it, map that file read-only;
the folder goes when ``tune`` ends: normally, by SIGTERM, or (its workers remove it) when
the parent is killed. What this saves is measured by ``benchmarks/bench_workers_memory.py``.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import joblib
import numpy as np
import pytest
from joblib import Parallel, delayed

from paretostab import _run_cache as run_cache
from paretostab._errors import StoreError
from paretostab._problem import Problem
from paretostab._run_cache import RunCache
from paretostab._tuning import run_study
from paretostab._tuning.coordination import counted_trials, process_ended
from paretostab._tuning.processes import _shared_data
from tests.studies import storage_url, tiny, write_spec
from tests.waiting import WAIT_SECONDS, current, wait_until

DATA_FOLDERS = "paretostab-data-*"


def test_a_worker_maps_the_data_read_only_and_hashes_them_once(monkeypatch):
    spec = tiny(objective={"stability": "iw", "record": ["nogueira", "pogr"],
                           "similarity": "pearson"})
    problem = Problem.from_spec(spec)
    with _shared_data(problem) as path:
        mapped = joblib.load(path, mmap_mode="r")
        similarity = [v for v in vars(mapped.similarity).values() if isinstance(v, np.ndarray)]
        assert similarity  # the similarity's copy of the data
        for array in (mapped.X, mapped.y, *similarity):
            assert isinstance(array, np.memmap) and array.mode == "r"
            assert not array.flags.writeable
        assert np.array_equal(mapped.X, problem.X) and np.array_equal(mapped.y, problem.y)
        trials = mapped.read_only()
        assert np.shares_memory(trials.X, mapped.X)  # not copied into the worker
        assert np.asarray(trials.X, dtype=float) is trials.X  # what run_protocol hands on
        hashed = []
        original = run_cache._fingerprint
        monkeypatch.setattr(run_cache, "_fingerprint",
                            lambda *a: hashed.append(1) or original(*a))
        cache = RunCache()
        params = {"n_stable": 2, "epsilon": 0.1}
        first = trials.run(params, random_state=0, cache=cache)
        assert trials.run(params, random_state=0, cache=cache).same_runs(first)
        assert len(hashed) == 1 and cache.hits == first.runs  # taken not to change
        assert first.same_runs(problem.run(params, random_state=0))
    assert not path.parent.exists()


def file_of(X: np.ndarray) -> str | None:
    """The file ``X`` is mapped from, in the process that runs this."""
    return X.filename if isinstance(X, np.memmap) else None


def test_joblib_hands_the_mapped_data_on_to_its_processes_by_their_file():
    """A trial's runs (``n_jobs`` > 1) reach joblib's processes as a map of the same file,
    not as a copy written again at every trial."""
    with _shared_data(Problem.from_spec(tiny())) as path:
        X = joblib.load(path, mmap_mode="r").read_only().X
        files = Parallel(n_jobs=2)(delayed(file_of)(X) for _ in range(4))
    assert files == [str(path)] * 4


@pytest.mark.slow
def test_the_data_folder_goes_when_tune_ends(tmp_path, monkeypatch):
    made = []
    real = tempfile.mkdtemp
    monkeypatch.setattr(tempfile, "mkdtemp", lambda *a, **k: made.append(real(*a, **k))
                        or made[-1])
    study = run_study(tiny(), storage=storage_url(tmp_path), n_trials=3, workers=2, progress=False)
    # two workers racing for the last slot: the loser's trial is pruned unrun, not counted
    assert counted_trials(study) == 3
    folders = [Path(f) for f in made if Path(f).name.startswith("paretostab-data-")]
    assert len(folders) == 1 and not folders[0].exists()


def test_a_temporary_folder_without_room_for_the_data_is_one_error(tmp_path, monkeypatch):
    def full(value, filename, **options):
        Path(filename).write_bytes(b"half")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(joblib, "dump", full)
    with pytest.raises(StoreError, match=r"could not be written to the temporary folder .*"
                       r"No space left on device.*set TMPDIR to a folder with \d+ MiB free"):
        with _shared_data(Problem.from_spec(tiny())):
            pass
    assert not list(tmp_path.iterdir())


def mapping(pid: int, name: str) -> bool:
    """Whether process ``pid`` maps a file called ``name``."""
    try:
        return any(line.rstrip().endswith("/" + name)
                   for line in Path(f"/proc/{pid}/maps").read_text().splitlines())
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/PID/maps")
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL])
def test_the_workers_map_one_file_which_a_stop_of_their_parent_removes(tmp_path, stop):
    """Each worker maps the parent's file instead of holding a copy; SIGTERM to the
    parent, or kill -9 of it, leaves no folder behind."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    spec_path = write_spec(tmp_path, "mapped", trials=400)
    url = storage_url(tmp_path)
    parent = subprocess.Popen(
        [sys.executable, "-m", "paretostab", "tune", str(spec_path), "--storage", url,
         "--workers", "2"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env={**os.environ, "TMPDIR": str(temporary)})

    def worker_pids():
        study = current(url, "mapped")
        return set() if study is None else {
            t.user_attrs["process"]["pid"] for t in study.get_trials()
            if "process" in t.user_attrs} - {parent.pid}

    workers = set()
    try:
        wait_until(lambda: len(worker_pids()) == 2, what="both workers running trials",
                   process=parent)
        workers = worker_pids()
        assert len(list(temporary.glob(DATA_FOLDERS))) == 1
        assert all(mapping(pid, "problem.joblib") for pid in workers)
    finally:
        parent.send_signal(stop)
        _, err = parent.communicate(timeout=WAIT_SECONDS)
    wait_until(lambda: all(process_ended(pid) for pid in workers),
               what="the workers to end")
    if stop == signal.SIGTERM:
        assert parent.returncode == 143 and "Traceback" not in err, err[-3000:]
    assert not list(temporary.glob(DATA_FOLDERS))
