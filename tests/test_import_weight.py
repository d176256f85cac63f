"""What importing a light part of the package loads.

Reading a spec, naming the metrics or k̄'s column, loading a RunSet, the run cache's
budget (the command line's default) and the command line itself need neither
scikit-learn (whose estimators come with it), joblib nor the selectors, which import
every estimator: each module is imported in a fresh interpreter and what it loaded is
listed. (The selector registry, POT and scikit-learn's metrics are imported by the
functions that use them.)
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("sklearn", "joblib", "paretostab.selectors", "paretostab._protocol")
LIGHT = ("paretostab", "paretostab.spec", "paretostab._vocabulary", "paretostab._runset",
         "paretostab._metrics", "paretostab._run_cache", "paretostab._cli")


def loaded(module: str) -> list[str]:
    """The modules of :data:`HEAVY` a fresh interpreter holds after ``import module``."""
    code = (f"import json, sys; import {module}; print(json.dumps(sorted("
            f"m for m in sys.modules if m.startswith({HEAVY!r}))))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=False, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("module", LIGHT)
def test_a_light_module_loads_no_scikit_learn_joblib_or_selector(module):
    assert loaded(module) == []


@pytest.mark.slow
def test_importing_the_package_loads_no_pandas_scipy_or_measure():
    """Its names are imported on first use (``paretostab._lazy``)."""
    code = ("import json, sys; import paretostab; print(json.dumps(sorted(m for m in "
            "sys.modules if m.split('.')[0] in ('pandas', 'scipy', 'sklearn') or "
            "m.startswith(('paretostab.measures', 'paretostab._api')))))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, cwd=ROOT)
    assert json.loads(result.stdout) == []


def test_every_name_the_package_exports_is_read_from_it():
    import paretostab

    assert all(getattr(paretostab, name) is not None for name in paretostab.__all__)
    assert paretostab.tune.__module__ == "paretostab._api"
    assert paretostab.stability.__module__.startswith("paretostab.measures")


def test_a_lazily_exported_name_is_its_module_s_current_one(monkeypatch):
    """Read from its module at each reading, not kept in the package from the first: a
    test that patches the module where a function is defined (as
    ``tests/test_storage.py`` patches ``paretostab.report._build``) reaches every caller
    that reads the package, and its undoing too, whichever test read the name first."""
    import paretostab.report
    import paretostab.report._build

    first = paretostab.report.analysed_study
    monkeypatch.setattr(paretostab.report._build, "analysed_study", len)
    assert paretostab.report.analysed_study is len
    monkeypatch.undo()
    assert paretostab.report.analysed_study is first


@pytest.mark.slow
def test_the_check_sees_what_the_protocol_loads():
    assert set(HEAVY) <= set(loaded("paretostab._protocol"))
