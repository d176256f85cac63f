"""Nothing read from a storage chooses code (issue 36): a stored spec's ``[selector] name``
``"module:Class"`` is imported only for the spec the caller gave, a registered entry point,
a module of the packages paretostab trusts, or with ``--trust-stored-code``; otherwise it
is refused in one line before any import."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path

import optuna
import pytest

import paretostab
from paretostab._errors import InvalidInputError
from paretostab.report._load import check_stored_code
from paretostab.selectors import ENTRY_POINT_GROUP

ROOT = Path(paretostab.__file__).resolve().parents[1]
MARKER = "imported.txt"
SELECTOR_MODULE = f'''
import pathlib
pathlib.Path({MARKER!r}).write_text("the module ran")
from sklearn.feature_selection import SelectKBest


class Chosen(SelectKBest):
    pass
'''


def _spec(selector: str, name: str = "shared") -> dict:
    return {"study": {"name": name, "trials": 2, "seed": 0, "sampler": "random"},
            "data": {"source": "breast_cancer"},
            "protocol": {"runs": 4, "replicates": 3},
            "selector": {"name": selector, "search": {"k": [2, 5]}},
            "objective": {"stability": "nogueira"}}


def _stored_study(folder: Path, selector: str, name: str = "shared") -> str:
    """A storage whose study's stored spec names ``selector``, written as anyone who can
    write to a shared database writes it."""
    url = f"sqlite:///{folder / 'shared.db'}"
    (folder / "shared-artifacts").mkdir(exist_ok=True)  # as tune makes it
    study = optuna.create_study(storage=url, study_name=name,
                                directions=["maximize", "maximize"])
    study.set_user_attr("spec", _spec(selector, name))
    study.set_user_attr("objective", "nogueira")
    return url


def _cli(folder: Path, *argv: str) -> subprocess.CompletedProcess:
    """``python -m paretostab`` run in ``folder``, which ``-m`` puts on the import path."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "paretostab", *argv], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.slow
@pytest.mark.parametrize("command", [["choose", "--gamma", "0.5"], ["report"]])
def test_a_stored_module_in_the_working_folder_is_not_imported(command, tmp_path):
    (tmp_path / "evilmod.py").write_text(SELECTOR_MODULE)
    url = _stored_study(tmp_path, "evilmod:Chosen")
    refused = _cli(tmp_path, *command, "--storage", url)
    # before: evilmod was imported (the marker written) while the spec was parsed
    assert not (tmp_path / MARKER).exists()
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and refused.stderr.startswith("error: ")
    assert "'evilmod:Chosen'" in refused.stderr and "--trust-stored-code" in refused.stderr
    allowed = _cli(tmp_path, *command, "--storage", url, "--trust-stored-code")
    assert (tmp_path / MARKER).exists()  # asked for: imported (the study has no trial yet)
    assert "evilmod" not in allowed.stderr


@pytest.mark.slow
def test_python_calls_refuse_a_stored_module_unless_trusted(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # as python -m and a notebook's folder
    monkeypatch.delitem(sys.modules, "evilmod", raising=False)
    (tmp_path / "evilmod.py").write_text(SELECTOR_MODULE)
    url = _stored_study(tmp_path, "evilmod:Chosen")
    _stored_study(tmp_path, "evilmod:Chosen", "other")
    for call in (lambda: paretostab.choose(url, 0.5, study_name="shared"),
                 lambda: paretostab.study_report(url, study_name="shared"),
                 lambda: paretostab.compare(["shared", "other"], [url], out=tmp_path / "c")):
        with pytest.raises(InvalidInputError, match="'evilmod:Chosen'.*trust_stored_code"):
            call()
    assert not (tmp_path / MARKER).exists()
    with pytest.raises(InvalidInputError, match="trust_stored_code must be True or False"):
        paretostab.choose(url, 0.5, study_name="shared", trust_stored_code="evilmod:Chosen")
    with pytest.raises(InvalidInputError, match="no completed trial"):
        paretostab.choose(url, 0.5, study_name="shared", trust_stored_code=True)
    assert (tmp_path / MARKER).exists()
    monkeypatch.delitem(sys.modules, "evilmod")


@pytest.mark.slow
def test_the_spec_given_to_tune_is_its_own_to_import(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "ownmod", raising=False)
    (tmp_path / "ownmod.py").write_text(SELECTOR_MODULE)
    tuned = paretostab.tune(_spec("ownmod:Chosen", "own"),
                            storage=f"sqlite:///{tmp_path / 'own.db'}", progress=False)
    assert tuned.selectors == ("ownmod:Chosen",)
    assert tuned.choose(0.5).trial in (0, 1)  # the caller gave it: no option needed
    with pytest.raises(InvalidInputError, match="'ownmod:Chosen'"):
        paretostab.choose(tuned.storage, 0.5)  # the same storage read by URL: not given
    assert paretostab.choose(tuned.storage, 0.5, trust_stored_code=True).trial in (0, 1)
    monkeypatch.delitem(sys.modules, "ownmod")


def test_registered_and_trusted_packages_are_imported(monkeypatch):
    check_stored_code("s", _spec("sklearn.feature_selection:SelectKBest"), ())
    check_stored_code("s", _spec("lasso"), ())
    check_stored_code("s", {"selector": {"name": ["lasso", "paretostab.selectors:HybridRFE"]}},
                      ())
    with pytest.raises(InvalidInputError, match="'plugin.mod:Sel'"):
        check_stored_code("s", {"selector": {"name": ["lasso", "plugin.mod:Sel"]}}, ())
    registered = importlib.metadata.EntryPoint("sel", "plugin.mod:Sel", ENTRY_POINT_GROUP)
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda group: [registered] if group == ENTRY_POINT_GROUP else [])
    check_stored_code("s", {"selector": {"name": ["lasso", "plugin.mod:Sel"]}}, ())
