"""A trial's own failure is not a store's (issue 36, points 6 and 11): feature names with
``$`` are drawn as written; a map that cannot be drawn fails its trial, not the study as a
store fault; a user's selector that fails in the first trials stops ``tune`` with its
error, and a rerun after its fix runs the slots those trials did not use up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import optuna
import pandas as pd
import pytest
from optuna.artifacts import get_all_artifact_meta
from optuna.trial import TrialState

from paretostab._errors import InvalidInputError
from paretostab._faults import ENVIRONMENT_FAILURES_IN_A_ROW
from paretostab._storage import open_storage
from paretostab._tuning import run_study
from paretostab._tuning.coordination import counted_trials, counts
from paretostab.spec import parse_spec
from tests.studies import storage_url, tiny
from tests.user_studies import BROKEN, DOLLARS, FIXED, write_selector

ROOT = Path(__file__).resolve().parents[1]


def dollar_spec(tmp_path: Path, trials: int = 4):
    """A study of a CSV whose two informative features are named as math text."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    frame = pd.DataFrame(X, columns=[*DOLLARS, "c", "d", "e"]).assign(label=y)
    frame.to_csv(tmp_path / "dollars.csv", index=False)
    return parse_spec({
        "study": {"name": "dollars", "trials": trials, "seed": 0, "sampler": "random"},
        "data": {"source": str(tmp_path / "dollars.csv"), "label": "label"},
        "protocol": {"runs": 4, "n_jobs": 1},
        "selector": {"name": "t_test", "search": {"n_features": [1, 2]}},
        "objective": {"stability": "iw"}})


def test_feature_names_with_dollars_are_drawn_as_written(tmp_path):
    """Every trial completes and the first one's map is stored, its legend naming the
    features as the data do (matplotlib read them as math text: "Double subscript")."""
    url = storage_url(tmp_path)
    study = run_study(dollar_spec(tmp_path), storage=url, artifacts=str(tmp_path / "art"),
                      progress=False)
    assert [t.state for t in study.trials] == [TrialState.COMPLETE] * 4
    metas = get_all_artifact_meta(study.trials[0], storage=open_storage(url))
    assert "image/png" in [meta.mimetype for meta in metas]


def test_a_map_of_dollar_names_shows_them_literally(tmp_path):
    """The legend's and the overview's texts are the names, ``$`` and all, drawn as
    plain text (the PNG is rendered)."""
    from paretostab._runset import RunSet
    from paretostab.maps import selection_overview, stability_map
    from paretostab.plot import selection_overview_figure, stability_map_figure

    runs = RunSet(selection_matrix=np.ones((3, 2), dtype=bool),
                  importance_matrix=np.ones((3, 2)), rank_matrix=None, scores=np.ones(3),
                  seeds=np.zeros(3, dtype=np.uint32), fit_seconds=np.zeros(3),
                  metric="accuracy", resampling="bootstrap", selector="t_test")
    figure = stability_map_figure(stability_map(runs, feature_names=DOLLARS))
    figure.savefig(tmp_path / "map.png")
    # what matplotlib draws of a text: (the string, whether it is math)
    legend = figure.axes[0].get_legend().get_texts()
    assert [t._preprocess_math(t.get_text()) for t in legend] == [
        (f"{name} (p = 1.00)", False) for name in DOLLARS]
    overview = selection_overview([runs], ["7"], feature_names=DOLLARS)
    figure = selection_overview_figure(overview)
    figure.savefig(tmp_path / "overview.png")
    ticks = figure.axes[0].get_yticklabels()
    assert [t._preprocess_math(t.get_text()) for t in ticks] == [(n, False) for n in DOLLARS]


def failing_draws(monkeypatch, fail):
    """The trials' map drawing (not the start-up's) raising when ``fail(n)`` for the n-th
    trial map drawn."""
    import paretostab.plot

    original, drawn = paretostab.plot.stability_map_figure, []

    def draw(map_data, **options):
        if options.get("title", "").startswith("Trial 0 · accuracy 1 ·"):  # the start-up
            return original(map_data, **options)
        drawn.append(options["title"])
        if fail(len(drawn)):
            raise ValueError("this map cannot be drawn")
        return original(map_data, **options)

    monkeypatch.setattr(paretostab.plot, "stability_map_figure", draw)
    return drawn


def test_a_map_that_cannot_be_drawn_is_its_trials_failure_not_the_stores(tmp_path,
                                                                         monkeypatch):
    """Every map failing: the first trials fail with the drawing's error, which stops
    ``tune`` as their own (not "fix the store"); they do not count."""
    failing_draws(monkeypatch, lambda n: True)
    url = storage_url(tmp_path)
    with pytest.raises(InvalidInputError, match="this map cannot be drawn") as raised:
        run_study(tiny(study={"trials": 6}), storage=url, progress=False)
    assert "store" not in str(raised.value)
    trials = optuna.load_study(study_name="tiny", storage=open_storage(url)).trials
    assert [t.state for t in trials] == [TrialState.FAIL] * ENVIRONMENT_FAILURES_IN_A_ROW
    assert all(t.user_attrs["fail_reason"] == "ValueError: this map cannot be drawn"
               and not counts(t) for t in trials)


@pytest.mark.slow
def test_a_map_that_cannot_be_drawn_later_counts_as_its_trials_failure(tmp_path,
                                                                       monkeypatch):
    """Once a trial completed, a map that cannot be drawn fails its trial, which counts
    (the same setting would fail again), and the study goes on to its trials."""
    drawn = failing_draws(monkeypatch, lambda n: n >= 2)
    study = run_study(tiny(study={"trials": 8}), storage=storage_url(tmp_path),
                      progress=False)
    failed = [t for t in study.trials if t.state == TrialState.FAIL]
    assert len(drawn) >= 2 and len(failed) == len(drawn) - 1
    assert all(t.user_attrs["fail_reason"] == "ValueError: this map cannot be drawn"
               and counts(t) for t in failed)
    assert counted_trials(study) == 8


def tune(folder: Path) -> subprocess.CompletedProcess:
    """``python -m paretostab tune mine.toml`` in ``folder``, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "paretostab", "tune", "mine.toml", "--storage",
         "sqlite:///mine.db", "--quiet"], cwd=folder, capture_output=True, text=True,
        timeout=600, env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(folder)])})


@pytest.mark.slow
def test_a_selector_failing_in_every_trial_stops_tune_and_its_fix_runs_the_slots(tmp_path):
    """A module on the path given as "module:Class": tune stops after the first trials
    with the selector's error (exit 2, one error line), and, the class fixed, the same
    command runs all the study's trials."""
    write_selector(tmp_path, BROKEN["raises in fit"])
    (tmp_path / "mine.toml").write_text(
        '[study]\nname = "mine"\ntrials = 5\nseed = 0\nsampler = "random"\n'
        '[data]\nsource = "breast_cancer"\n[protocol]\nruns = 3\nn_jobs = 1\n'
        '[selector]\nname = "mysel:Mine"\n[selector.search]\nn_keep = [2, 5]\n'
        '[objective]\nstability = "nogueira"\n', encoding="utf-8")
    first = tune(tmp_path)
    assert first.returncode == 2, first.stderr
    errors = [line for line in first.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "RuntimeError: my selector is broken" in errors[0]
    assert "first 3 trials failed" in errors[0] and "Traceback" not in first.stderr
    write_selector(tmp_path, FIXED)
    second = tune(tmp_path)
    assert second.returncode == 0, second.stderr
    study = optuna.load_study(study_name="mine", storage=f"sqlite:///{tmp_path / 'mine.db'}")
    assert counted_trials(study) == 5
    assert sum(t.state == TrialState.COMPLETE for t in study.trials) == 5


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["wrong-shaped support", "no support", "selects nothing",
                                  "NaN weights"])
def test_a_selector_failing_in_every_trial_stops_tune_with_its_error(tmp_path, monkeypatch,
                                                                     kind):
    """The other ways a user's selector fails every trial stop the study the same way,
    with nothing counted."""
    folder = tmp_path / kind.replace(" ", "_")
    folder.mkdir()
    write_selector(folder, BROKEN[kind])
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.delitem(sys.modules, "mysel", raising=False)
    spec = parse_spec({"study": {"name": "mine", "trials": 5, "seed": 0, "sampler": "random"},
                       "data": {"source": "breast_cancer"},
                       "protocol": {"runs": 3, "n_jobs": 1},
                       "selector": {"name": "mysel:Mine", "search": {"n_keep": [2, 5]}},
                       "objective": {"stability": "nogueira"}})
    url = storage_url(tmp_path)
    with pytest.raises(InvalidInputError, match="first 3 trials failed"):
        run_study(spec, storage=url, progress=False)
    study = optuna.load_study(study_name="mine", storage=url)
    assert counted_trials(study) == 0 and len(study.trials) == ENVIRONMENT_FAILURES_IN_A_ROW
    monkeypatch.delitem(sys.modules, "mysel", raising=False)
