"""Progress in a notebook: the bar tqdm can draw there, and never a warning (issue 33: a
``TqdmWarning`` in the first notebook cell, from ``tqdm.auto`` without ipywidgets); no
progress makes nothing a killed process leaves behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import types
import warnings
from pathlib import Path

import pytest
from tqdm.std import TqdmWarning
from tqdm.std import tqdm as console_bar

from paretostab._progress import NoProgress, ProgressLines, bar_class, progress_bar

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def notebook(monkeypatch):
    """A Jupyter kernel as tqdm recognises one, without ipywidgets."""
    shell = type("ZMQInteractiveShell", (), {"config": {"IPKernelApp": {}}})()
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: shell  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    monkeypatch.setitem(sys.modules, "ipykernel.zmqshell", types.ModuleType("zmqshell"))
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # not installed
    for name in ("tqdm.auto", "tqdm.autonotebook", "tqdm.notebook"):
        monkeypatch.delitem(sys.modules, name, raising=False)


def test_the_fake_notebook_is_one_for_tqdm(notebook):
    """What the test below guards against: tqdm.auto warns in it."""
    with pytest.warns(TqdmWarning, match="IProgress not found"):
        import tqdm.auto  # noqa: F401


@pytest.mark.parametrize("progress", [None, True, False])
def test_no_warning_in_a_notebook_without_ipywidgets(notebook, progress, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert bar_class() is console_bar
        with progress_bar(3, "replicates", progress=progress, unit="runs") as bar:
            bar.update(3)
    err = capsys.readouterr().err
    assert ("replicates" in err) == (progress is not False)
    assert "tqdm.auto" not in sys.modules


def test_no_progress_says_nothing_and_lines_skip_the_last_step(capsys):
    with progress_bar(5, "x", progress=False) as bar:
        bar.set_postfix(front=2)
        bar.update(5)
        bar.refresh()
    assert isinstance(bar, NoProgress) and bar.n == bar.total == 5
    assert capsys.readouterr().err == ""
    with ProgressLines(4, "replicates", unit="runs", every=2, seconds=3600) as lines:
        lines.update(2)
        lines.update(2)  # the last step: its line is the final one
    out = capsys.readouterr().err.splitlines()
    assert [line.split(",")[0] for line in out] == ["replicates: 2/4 runs",
                                                     "replicates: 4/4 runs"]
    assert out[-1].split(", ")[-1].startswith("done in")


NOTEBOOK_TUNE = '''
import sys, types, warnings
warnings.simplefilter("error")
shell = type("ZMQInteractiveShell", (), {"config": {"IPKernelApp": {}}})()
ipython = types.ModuleType("IPython")
ipython.get_ipython = lambda: shell
ipython.version_info = (8, 30, 0)  # matplotlib asks
sys.modules.update({"IPython": ipython, "ipykernel": types.ModuleType("ipykernel"),
                    "ipykernel.zmqshell": types.ModuleType("zmqshell"), "ipywidgets": None})
import paretostab
spec = {"study": {"name": "nb", "trials": 2, "seed": 0, "sampler": "random"},
        "data": {"source": "simulated:n_other=20,n_per_class=15"},
        "protocol": {"runs": 3, "replicates": 3},
        "selector": {"name": "hybrid_rfe", "fixed": {"n_features": 3},
                     "search": {"reg": {"low": 0.01, "high": 100.0, "log": True}}},
        "objective": {"stability": "iw"}}
for progress in (False, True):
    study = paretostab.tune({**spec, "study": {**spec["study"], "name": f"nb-{progress}"}},
                            storage=sys.argv[1], progress=progress)
    study.report(progress=progress)
'''


@pytest.mark.slow
def test_importing_and_running_in_a_notebook_warns_nothing(tmp_path):
    """The first cell of a notebook without ipywidgets: import, tune and report, every
    warning an error."""
    import subprocess

    run = subprocess.run([sys.executable, "-c", NOTEBOOK_TUNE,
                          f"sqlite:///{tmp_path / 'nb.db'}"], capture_output=True, text=True,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Warning" not in run.stderr and "Trial 0 finished" not in run.stderr


@pytest.mark.slow
def test_a_process_killed_after_no_progress_leaves_no_leaked_semaphore():
    """A process whose start method is spawn, as ``tune``'s ``--workers`` are, that ran
    steps without progress (a worker's runs), then killed with kill -9. Before: its
    disabled tqdm bar had made tqdm's lock, a named semaphore (registered with Python's
    resource tracker under spawn), and the tracker printed "There appear to be 1 leaked
    semaphore objects to clean up at shutdown" after ``tune``'s own last line."""
    script = ("import multiprocessing, os, signal\n"
              "multiprocessing.set_start_method('spawn')\n"
              "from paretostab._progress import progress_bar\n"
              "with progress_bar(3, 'runs', progress=False) as bar:\n"
              "    bar.update(3)\n"
              "os.kill(os.getpid(), signal.SIGKILL)\n")
    killed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=120, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert killed.returncode == -signal.SIGKILL
    assert "leaked" not in killed.stderr and "resource_tracker" not in killed.stderr
