"""A trial's own failure is not a store's (issue 36, point 6): feature names with ``$``
are drawn as written; a map that cannot be drawn fails its trial, not the study as a
store fault."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from optuna.artifacts import get_all_artifact_meta
from optuna.trial import TrialState

from paretostab._storage import open_storage
from paretostab._tuning import run_study
from paretostab._tuning.coordination import counted_trials, counts
from paretostab.spec import parse_spec
from tests.test_tuning import storage_url, tiny

DOLLARS = ["cost$_a_b$", r"x$\foo$"]


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
