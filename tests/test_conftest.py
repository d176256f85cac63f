"""The suite's own set-up (tests/conftest.py): one BLAS and OpenMP thread in each test
process and in each process a test starts, so that two pytest-xdist processes on two
cores do not oversubscribe them; the processes a test starts write their bytecode; and
hypothesis examples have no deadline."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from threadpoolctl import threadpool_info

ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
POOLS = ("import numpy, sklearn.neighbors; from threadpoolctl import threadpool_info; "
         "print(sorted({(p['internal_api'], p['num_threads']) for p in threadpool_info()}))")


@pytest.mark.slow
def test_a_test_process_and_the_processes_it_starts_run_one_blas_and_openmp_thread(monkeypatch):
    import sklearn.neighbors  # noqa: F401  (loads OpenMP, as the tests' fits do)

    assert {p["num_threads"] for p in threadpool_info()} == {1}
    assert {p["internal_api"] for p in threadpool_info()} >= {"openblas", "openmp"}
    child = subprocess.run([sys.executable, "-c", POOLS], capture_output=True, text=True,
                           check=True)
    assert child.stdout.strip() == "[('openblas', 1), ('openmp', 1)]"
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if (cores or 1) > 1:  # the child read the variables: without them, more threads
        for name in ONE_THREAD:
            monkeypatch.delenv(name)
        child = subprocess.run([sys.executable, "-c", POOLS], capture_output=True,
                               text=True, check=True)
        assert child.stdout.strip() != "[('openblas', 1), ('openmp', 1)]"


def test_the_processes_a_test_starts_write_their_bytecode(monkeypatch):
    """A ``python -m paretostab`` a test starts compiles the package once for all the
    suite's processes, not once each, even where the run's environment sets
    ``PYTHONDONTWRITEBYTECODE=1`` (set here, then the suite's set-up run again)."""
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    runpy.run_path(str(Path(__file__).with_name("conftest.py")))
    writes = [sys.executable, "-c", "import sys; print(sys.dont_write_bytecode)"]
    child = subprocess.run(writes, capture_output=True, text=True, check=True)
    assert child.stdout.strip() == "False"
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")  # the child reads the variable
    child = subprocess.run(writes, capture_output=True, text=True, check=True)
    assert child.stdout.strip() == "True"


@settings(max_examples=1)  # a test's own settings keep the suite's default deadline
@given(st.integers())
def test_a_slow_hypothesis_example_is_not_a_failure(number):
    time.sleep(0.3)  # past hypothesis' default deadline of 200 ms (and its grace, 250 ms)
    assert settings().deadline is None
