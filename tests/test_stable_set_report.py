"""The chosen trial's stable set where users see it: ``Choice.stable_set`` in Python, the
report's section, ``stable_set.csv`` and ``summary.json``, ``choose --pfer/--fdp`` on the
command line; its decoy run kept in the study and reused."""

from __future__ import annotations

import html
import json

import numpy as np
import pandas as pd
import pytest

import paretostab
from paretostab._cli import main
from paretostab._errors import InvalidInputError
from paretostab._problem import Problem
from paretostab.report._study_data import DECOYS_KEY
from paretostab.selectors import SELECTORS
from paretostab.spec import parse_spec
from paretostab.stable_set import StableSet, selection_frequencies, stable_set
from tests.studies import read

SPEC = {
    "study": {"name": "stable", "trials": 4, "seed": 0, "sampler": "random"},
    "data": {"source": "simulated:n_groups=3,group_size=2,n_other=40,n_per_class=25,"
                       "mu_group=1.0"},
    "protocol": {"runs": 10, "replicates": 3, "resampling": "complementary_pairs"},
    "selector": {"name": "t_test", "search": {"n_features": [3, 6]}},
    "objective": {"stability": "nogueira"},
}


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('stable') / 'stable.db'}"
    return paretostab.tune(SPEC, storage=url, progress=False)


@pytest.mark.slow
def test_choice_stable_set_reads_the_chosen_trials_own_runs(tuned):
    choice = paretostab.choose(tuned, 0.5)
    found = choice.stable_set(pfer=1.0)
    assert isinstance(found, StableSet) and found.control == "pfer"
    assert found.resampling == "complementary_pairs" and found.assumption == "unimodal"
    runs = choice.runs
    assert runs is not None
    np.testing.assert_array_equal(found.frequencies,
                                  selection_frequencies(runs.selection_matrix))
    # the same numbers as the pure function on the trial's stored runs
    direct = stable_set(runs.selection_matrix, pfer=1.0, resampling="complementary_pairs",
                        feature_names=runs.feature_names)
    assert direct.features == found.features and direct.threshold == found.threshold
    # the whole-data fit's importances stand beside the frequencies
    frame = found.to_frame()
    chosen = frame[frame["feature"].isin(choice.features)]
    assert chosen["importance"].notna().all()
    assert "Stable set" in found._repr_html_() or "stable set" in found._repr_html_()
    with pytest.raises(InvalidInputError):
        choice.stable_set()  # neither control


def test_fdp_runs_the_decoys_once_and_keeps_them_in_the_study(tuned):
    choice = paretostab.choose(tuned, 0.5)
    study = read(tuned.storage)
    assert not any(key.startswith(DECOYS_KEY) for key in study.cache)
    first = choice.stable_set(fdp=0.5)
    assert first.control == "fdp" and first.decoy_frequencies is not None
    assert first.decoy_frequencies.size == first.frequencies.size
    kept = read(tuned.storage).cache
    key = f"{DECOYS_KEY}{choice.trial}"
    assert key in kept and len(kept[key]["selected"]) == SPEC["protocol"]["runs"]
    # a later choice reads them back: the same frequencies, nothing run again
    again = paretostab.choose(tuned.storage, 0.5).stable_set(fdp=0.5)
    np.testing.assert_array_equal(again.decoy_frequencies, first.decoy_frequencies)
    np.testing.assert_array_equal(again.frequencies, first.frequencies)


@pytest.mark.slow
def test_the_report_shows_and_writes_the_stable_sets(tuned, tmp_path):
    report = tuned.report(pfer=1.0, fdp=0.5)
    assert [s.control for s in report.stable_sets] == ["pfer", "fdp"]
    assert report.chosen.stable_set(pfer=1.0).features == report.stable_sets[0].features
    folder = report.save(tmp_path / "report")
    summary = json.loads((folder / "summary.json").read_text())
    assert [s["control"] for s in summary["stable_sets"]] == ["pfer", "fdp"]
    # the set and its numbers, not d-long lists: stable_set.csv holds every feature
    first = summary["stable_sets"][0]
    assert first["features"] == list(report.stable_sets[0].features)
    assert first["threshold"] == report.stable_sets[0].threshold
    assert "frequencies" not in first and "feature_names" not in first
    table = pd.read_csv(folder / "stable_set.csv")
    assert set(table["control"]) == {"pfer <= 1", "fdp <= 0.5"}
    assert {"feature", "frequency", "in_set"} <= set(table.columns)
    page = (folder / "index.html").read_text()
    assert "Stable set: PFER ≤ 1" in page and "Stable set: FDP ≤ 0.5" in page
    assert html.escape(report.stable_sets[0].guarantee) in page


@pytest.mark.slow
def test_a_report_without_stable_sets_writes_no_csv(tuned, tmp_path):
    report = tuned.report(pfer=None)
    assert report.stable_sets == ()
    folder = report.save(tmp_path / "none")
    assert not (folder / "stable_set.csv").exists()
    assert json.loads((folder / "summary.json").read_text())["stable_sets"] == []


def test_choose_prints_the_stable_set_with_its_assumption(tuned, capsys):
    assert main(["choose", "--storage", tuned.storage, "--gamma", "0.5", "--pfer", "1"]) == 0
    out = capsys.readouterr().out
    found = paretostab.choose(tuned, 0.5).stable_set(pfer=1.0)
    assert "stable set (PFER <= 1)" in out and found.guarantee in out
    assert main(["choose", "--storage", tuned.storage, "--gamma", "0.5", "--fdp", "0.5",
                 "--assumption", "r-concave"]) == 0
    assert "stable set (FDP <= 0.5)" in capsys.readouterr().out


def test_a_choice_reads_its_runs_once_and_only_when_asked(tuned, monkeypatch):
    """``choose`` reads no RunSet (a choice without a stable set costs no download);
    the first stable set reads the chosen trial's, once."""
    import paretostab.report._build as build

    reads = []
    original = build.read_runsets
    monkeypatch.setattr(build, "read_runsets",
                        lambda source, numbers: reads.append(numbers) or original(source,
                                                                                   numbers))
    choice = paretostab.choose(tuned.storage, 0.5)
    assert reads == []
    choice.stable_set(pfer=1.0)
    choice.stable_set(fdp=0.5)
    assert reads == [[choice.trial]] and choice.runs is choice.runs


def test_a_bad_target_is_one_line_before_any_work(tuned, capsys):
    with pytest.raises(InvalidInputError, match="pfer"):
        tuned.report(pfer=float("nan"))
    with pytest.raises(InvalidInputError, match="fdp"):
        tuned.report(pfer=None, fdp=1.5)


def test_a_choice_without_its_runs_says_why(tuned, tmp_path):
    choice = paretostab.choose(tuned.storage, 0.5, artifacts=str(tmp_path / "empty"))
    assert choice.runs is None and choice.features  # the choice stands
    with pytest.raises(InvalidInputError, match="artifact store"):
        choice.stable_set(pfer=1.0)


def test_a_scikit_learn_selector_and_three_classes(tmp_path):
    spec = {"study": {"name": "own", "trials": 2, "seed": 0, "sampler": "random"},
            "data": {"source": "wine"},
            "protocol": {"runs": 6, "replicates": 3},
            "selector": {"name": "sklearn.feature_selection:SelectKBest",
                         "fixed": {"k": 4}},
            "objective": {"stability": "nogueira"}}
    url = f"sqlite:///{tmp_path / 'own.db'}"
    tuned = paretostab.tune(spec, storage=url, progress=False)
    choice = tuned.choose(0.5)
    found = choice.stable_set(fdp=0.5)
    assert found.frequencies.size == 13 and found.decoy_frequencies is not None
    pfer = choice.stable_set(pfer=2.0)
    assert pfer.resampling == "bootstrap" and "heuristic" in pfer.guarantee


def test_the_decoy_run_is_the_same_in_one_process_or_two_and_keeps_the_real_columns(tuned):
    study = read(tuned.storage)
    number = int(study.table["trial"].iloc[0])
    problem, params = study.problem, study.params[number]
    state = problem.decoy_state(number)
    one = problem.decoy_run(params, random_state=state, n_jobs=1)
    two = problem.decoy_run(params, random_state=state, n_jobs=2)
    assert one.same_runs(two)
    d = problem.X.shape[1]
    assert one.n_features == 2 * d
    # t_test keeps n_features of the 2d columns: as many per run as the trial's setting
    assert (one.selection_matrix.sum(axis=1) == params["n_features"]).all()


def test_fdp_on_a_journal_storage(tmp_path):
    url = f"journal:{tmp_path / 'stable.log'}"
    tuned = paretostab.tune({**SPEC, "study": {**SPEC["study"], "trials": 2}}, storage=url,
                            progress=False)
    first = tuned.choose(0.5).stable_set(fdp=0.5)
    kept = read(url).cache
    assert any(key.startswith(DECOYS_KEY) for key in kept)
    again = paretostab.choose(url, 0.5).stable_set(fdp=0.5)
    np.testing.assert_array_equal(again.decoy_frequencies, first.decoy_frequencies)


#: What a registered selector needs fixed to run here quickly (a trial would suggest it).
QUICK = {"group_lasso": {"groups": "data", "target_features": 4},
         "random_forest": {"n_trees": 10}}


@pytest.mark.parametrize("name", sorted(SELECTORS))
def test_every_registered_selector_runs_with_decoys(name):
    spec = parse_spec({
        "study": {"name": "decoys", "trials": 1, "seed": 0},
        "data": {"source": "simulated:n_groups=3,group_size=2,n_other=10,n_per_class=10"},
        "protocol": {"runs": 4}, "selector": {"name": name, "fixed": QUICK.get(name, {})},
        "objective": {"stability": "nogueira"}})
    problem = Problem.from_spec(spec)
    runs = problem.decoy_run({}, random_state=problem.decoy_state(0))
    d = problem.X.shape[1]
    assert runs.selection_matrix.shape == (4, 2 * d)
    found = stable_set(np.zeros((4, d), dtype=bool), fdp=1.0,
                       decoy_selection=runs.selection_matrix)
    assert found.decoy_frequencies is not None and found.frequencies.size == d
