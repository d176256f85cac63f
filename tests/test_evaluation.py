"""Honest estimates (issue 22): the held-out split, its scores and intervals, the chance
test and the label probe — against brute force, and end to end through tune, report and
choose."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import optuna
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from paretostab import choose
from paretostab._errors import InvalidInputError
from paretostab._metrics import metric_value
from paretostab._problem import Problem
from paretostab._tuning import front_table, run_study
from paretostab.evaluation import (
    chance_p_value,
    evaluation_split,
    ignores_labels,
    no_information_value,
    outer_study_name,
    score_interval,
    wilson_interval,
)
from paretostab.report._build import build_report
from paretostab.report._refits import Refits
from paretostab.spec import parse_spec
from tests.studies import analysed, read
from tests.test_tuning import note_of


def labels(counts):
    return np.repeat(np.arange(len(counts)), counts)


# --------------------------------------------------------------------------- the split


@given(st.lists(st.integers(3, 40), min_size=2, max_size=4), st.floats(0.1, 0.5),
       st.integers(0, 2**31))
@settings(max_examples=60, deadline=None)
def test_a_held_out_part_is_stratified_disjoint_and_seeded(counts, fraction, seed):
    y = labels(counts)
    try:
        split = evaluation_split(y, holdout=fraction, seed=seed)
    except InvalidInputError as error:  # only when a class cannot be in both parts
        held = math.ceil(fraction * y.size)
        shares = [held * n / y.size for n in counts]  # a share under one half can round to 0
        assert (min(counts) < 3 or held < len(counts) or y.size - held < 2 * len(counts)
                or min(shares) < 1 or min(n - held * n / y.size for n in counts) < 3)
        assert "protocol.holdout" in str(error)
        return
    assert np.intersect1d(split.development, split.test).size == 0
    assert np.array_equal(np.union1d(split.development, split.test), np.arange(y.size))
    for c, n in enumerate(counts):  # stratified: each class's share kept to one example
        held = np.sum(y[split.test] == c)
        assert abs(held - split.test.size * n / y.size) < 1
        assert held >= 1 and n - held >= 2
    again = evaluation_split(y, holdout=fraction, seed=seed)
    assert np.array_equal(again.test, split.test)


@pytest.mark.parametrize("dtype", [np.int64, str, object])  # object: a DataFrame's column
def test_a_held_out_part_missing_a_small_class_names_it(dtype):
    """3 of 35 examples at 12 %: the stratified allocation rounds the class's share of the
    held-out part (0.43 of an example) to none."""
    y = np.repeat(np.array([7, 9]) if dtype is np.int64 else np.array(["ALL", "AML"], dtype),
                  [3, 32])
    name = "7" if dtype is np.int64 else "'ALL'"
    with pytest.raises(InvalidInputError, match=rf"class {name} \(3 of 35 examples\) gets 0 "
                       r"held out and 3 to tune on; .* at least 0\.33 or use outer_folds"):
        evaluation_split(y, holdout=0.1171875, seed=0)


def test_outer_folds_partition_the_examples():
    y = labels([23, 17])
    tests = [evaluation_split(y, outer_folds=4, outer_fold=k, seed=3).test for k in range(1, 5)]
    assert np.array_equal(np.sort(np.concatenate(tests)), np.arange(y.size))
    for k, test in enumerate(tests, start=1):
        split = evaluation_split(y, outer_folds=4, outer_fold=k, seed=3)
        assert split.description == f"outer fold {k} of 4"
        assert set(np.unique(y[test])) == {0, 1}
    assert evaluation_split(y) is None
    assert evaluation_split(y, outer_folds=4) is None  # the study on the whole data
    with pytest.raises(InvalidInputError, match="use at most 3 outer folds"):
        evaluation_split(labels([3, 10]), outer_folds=5, outer_fold=1)
    assert outer_study_name("golub", 2) == "golub/outer-2"


def test_the_spec_keys_and_their_rules():
    spec = {**STUDY, "protocol": {"runs": 4, "replicates": 3}}
    plain = parse_spec(spec)
    held = parse_spec({**spec, "protocol": {**spec["protocol"], "holdout": 0.25}})
    assert "holdout" not in plain.to_dict()["protocol"]  # absent: old hashes unchanged
    assert held.content_hash() != plain.content_hash()
    seeded = parse_spec({**spec, "protocol": {**spec["protocol"], "holdout": 0.25,
                                              "split_seed": 1}})
    assert seeded.content_hash() != held.content_hash()  # the split is the study's
    with pytest.raises(InvalidInputError, match="give one"):
        parse_spec({**spec, "protocol": {**spec["protocol"], "holdout": 0.2, "outer_folds": 3}})
    with pytest.raises(InvalidInputError, match="outer_fold: must be one of 1..outer_folds"):
        parse_spec({**spec, "protocol": {**spec["protocol"], "outer_folds": 3, "outer_fold": 4}})


# --------------------------------------------------------------------------- intervals


def brute_wilson(successes, n, level):
    """The Wilson interval as the set of p the score test does not reject, on a grid."""
    z = stats.norm.ppf((1 + level) / 2)
    grid = np.linspace(0, 1, 200001)
    p_hat = successes / n
    kept = grid[np.abs(p_hat - grid) <= z * np.sqrt(grid * (1 - grid) / n)]
    return kept.min(), kept.max()


@given(st.integers(1, 200), st.data())
@settings(max_examples=40, deadline=None)
def test_wilson_equals_the_inverted_score_test(n, data):
    successes = data.draw(st.integers(0, n))
    level = data.draw(st.sampled_from([0.8, 0.9, 0.95, 0.99]))
    low, high = wilson_interval(successes, n, level)
    b_low, b_high = brute_wilson(successes, n, level)
    assert low == pytest.approx(b_low, abs=1e-5) and high == pytest.approx(b_high, abs=1e-5)
    assert 0 <= low <= successes / n <= high <= 1


def test_a_bootstrap_interval_for_the_other_metrics_is_seeded_and_holds_the_value():
    rng = np.random.default_rng(1)
    y = labels([30, 20])
    predicted = np.where(rng.random(50) < 0.8, y, 1 - y)
    classes = np.array([0, 1])
    score = score_interval(y, predicted, "balanced_accuracy", classes, level=0.9)
    assert score.method == "bootstrap" and score.n == 50
    assert score.low <= score.value <= score.high
    assert score.value == metric_value(y, predicted, "balanced_accuracy", classes)
    assert score == score_interval(y, predicted, "balanced_accuracy", classes, level=0.9)
    accuracy = score_interval(y, predicted, "accuracy", classes, level=0.9)
    assert accuracy.method == "wilson"
    assert (accuracy.low, accuracy.high) == wilson_interval(int(np.sum(predicted == y)), 50, 0.9)


# --------------------------------------------------------------------------- chance


@given(st.integers(5, 120), st.integers(1, 119), st.data())
@settings(max_examples=50, deadline=None)
def test_the_accuracy_chance_test_is_the_exact_binomial_tail(n, majority, data):
    majority = min(majority, n - 1)
    y = labels([majority, n - majority])
    correct = data.draw(st.integers(0, n))
    p0 = max(majority, n - majority) / n
    tail = sum(math.comb(n, k) * p0**k * (1 - p0)**(n - k) for k in range(correct, n + 1))
    assert chance_p_value(correct / n, y, "accuracy") == pytest.approx(tail, rel=1e-9,
                                                                         abs=1e-12)


def test_no_information_values_are_what_ignoring_the_features_scores():
    y = labels([30, 10, 10])
    classes = np.array([0, 1, 2])
    majority = np.zeros(y.size, dtype=int)
    assert no_information_value(y, "accuracy") == metric_value(y, majority, "accuracy", classes)
    assert no_information_value(y, "f1_macro") == pytest.approx(
        metric_value(y, majority, "f1_macro", classes))
    assert no_information_value(y, "balanced_accuracy") == pytest.approx(
        metric_value(y, majority, "balanced_accuracy", classes))  # 1/K for any constant
    assert no_information_value(y, "roc_auc") == 0.5
    for metric in ("accuracy", "balanced_accuracy", "f1_macro", "roc_auc"):
        value = no_information_value(y, metric)
        assert chance_p_value(value, y, metric) >= 0.5 - 1e-9  # at chance: never significant
        assert chance_p_value(1.0, y, metric) < 1e-3
    assert math.isnan(chance_p_value(math.nan, y, "accuracy"))


@pytest.mark.parametrize("counts", [[20, 12], [15, 15, 10]])
def test_the_null_variances_of_balanced_accuracy_and_auc(counts):
    """The normal tests' null variances against simulation: predictions and scores drawn
    independently of the labels."""
    from sklearn.metrics import balanced_accuracy_score, roc_auc_score
    y = labels(counts)
    k, rng = len(counts), np.random.default_rng(0)
    balanced, auc = [], []
    for _ in range(3000):
        balanced.append(balanced_accuracy_score(y, rng.integers(0, k, y.size)))
        scores = rng.random((y.size, k))
        auc.append(np.mean([roc_auc_score(y == c, scores[:, c]) for c in range(k)])
                   if k > 2 else roc_auc_score(y == 1, scores[:, 1]))
    for metric, sample in (("balanced_accuracy", balanced), ("roc_auc", auc)):
        value = float(np.quantile(sample, 0.95))  # the simulated 5 % critical value
        assert chance_p_value(value, y, metric) == pytest.approx(0.05, abs=0.02), metric


def test_the_label_probe():
    y = labels([10, 10])
    X = np.random.default_rng(0).standard_normal((20, 6))
    assert ignores_labels(lambda labels: np.arange(6) < 3, y)  # the same whatever the labels
    informed = lambda labels: np.abs(  # noqa: E731 - the two largest |class mean difference|
        X[labels == 1].mean(0) - X[labels == 0].mean(0)) >= np.sort(np.abs(
            X[labels == 1].mean(0) - X[labels == 0].mean(0)))[-2]
    assert not ignores_labels(informed, y)


# --------------------------------------------------------------------------- end to end

STUDY = {
    "study": {"name": "held", "trials": 6, "seed": 0, "sampler": "grid"},
    "data": {"source": "breast_cancer"},
    "protocol": {"runs": 4, "replicates": 3, "holdout": 0.25},
    "selector": {"name": "hybrid_rfe", "fixed": {"n_features": 4, "epsilon": 0.05,
                                                 "alpha": 0.5, "final_reg": 1.0},
                 "search": {"n_stable": {"choices": [2, 4]},
                            "reg": {"choices": [0.1, 1.0, 10.0]}}},
    "objective": {"stability": "nogueira"},
}


@pytest.fixture(scope="module")
def held_study(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('held') / 'held.db'}"
    run_study(parse_spec(STUDY), storage=url, progress=False)
    return url


def test_the_held_out_part_never_reaches_the_search(held_study):
    problem = read(held_study).problem
    assert problem.X.shape[0] == 426 and problem.test_X.shape[0] == 143  # 569 × 0.25
    full = Problem.from_spec(parse_spec({**STUDY, "protocol": {"runs": 4}}))
    rows = {tuple(r) for r in full.X[problem.split.test]}
    assert not rows & {tuple(r) for r in problem.X}


def test_the_report_scores_the_front_on_the_held_out_part(held_study, monkeypatch):
    reader = read(held_study)
    report = analysed(held_study, replicates=3, progress=False)
    held = report.held_out
    assert held is not None and held.n_test == 143 and held.n_development == 426
    assert set(held.table["trial"]) >= set(report.front.trials)
    for number, score in held.scores.items():  # a refit on the development part, scored
        selector, columns = reader.problem.fitted_selector(reader.params[number])
        expected = np.mean(selector.predict(reader.problem.test_X[:, columns])
                           == reader.problem.test_y)
        assert score.value == pytest.approx(expected) and score.low <= score.value <= score.high
    assert "development part (426 examples" in report.data
    summary = report.to_dict()
    assert summary["held_out"]["n_test"] == 143
    assert json.loads(json.dumps(summary, default=float))["held_out"]["description"]
    # cached in the study: a second reading refits nothing
    again = Refits(read(held_study))
    monkeypatch.setattr(Problem, "held_out_score", None)  # would fail if called
    assert again.held_out_score(report.front.trials[0], 0.95) == held.scores[
        report.front.trials[0]]


def test_trials_that_ignore_the_labels_are_flagged_and_never_chosen_unless_allowed(held_study):
    reader = read(held_study)
    label_free = {n for n, p in reader.params.items() if p["n_stable"] == 4}  # N = k
    report = analysed(held_study, replicates=0, gamma=0.0, progress=False)
    flags = report.flags
    assert label_free & set(report.front.trials)  # the most stable trials: on the front
    for number in label_free & set(flags.label_free):
        assert flags.flagged(number) and "ignores the labels" in flags.reason(number)
    assert report.chosen_trial not in label_free  # γ = 0: the most stable unflagged trial
    assert report.eligible_dominance_area < report.front.dominance_area
    allowed = analysed(held_study, replicates=0, gamma=0.0, progress=False,
                       allow_chance=True)
    assert allowed.chosen_trial in label_free
    chosen = choose(held_study, 0.0)
    assert chosen.trial == report.chosen_trial and chosen.held_out["n"] == 143
    assert set(chosen.flagged) >= label_free & set(flags.label_free)
    assert choose(held_study, 0.0, allow_chance=True).trial in label_free


def test_a_choice_off_the_front_says_what_it_chose_from_and_has_its_replicates(
        held_study, monkeypatch):
    # every front trial flagged as label-free (N = k, and trial 1 by fiat): γ chooses among
    # the others, whose front lies below the study's
    front = set(analysed(held_study, replicates=0, progress=False).front.trials)
    monkeypatch.setattr(Refits, "ignores_labels", lambda self, number: number in front)
    report = analysed(held_study, replicates=3, gamma=0.0, progress=False)
    assert report.chosen_trial not in report.front.trials
    assert report.chosen_trial in report.choice_trials
    flagged = sum(report.flags.flagged(n) for n in report.front.trials)
    assert report.chosen_from.startswith("the front of the ") and (
        f"({flagged} of the {len(report.front.trials)} trials of the study's front" in
        report.chosen_from)
    assert report.trade_off.replicates == 3  # replicated although off the front
    assert all(math.isfinite(v["replicate mean"]) for v in report.trade_off.values)
    summary = report.to_dict()
    assert summary["chosen_from"] == {"description": report.chosen_from,
                                      "trials": list(report.choice_trials)}
    assert set(summary["front"]) == set(report.front.trials)  # the regions: the front's


def test_tune_flags_its_front_as_the_report_does(held_study):
    study = optuna.load_study(study_name="held", storage=held_study)
    table = front_table(study)
    report = analysed(held_study, replicates=0, progress=False)
    assert list(table["trial"]) == list(report.front.trials)
    for number, reason in zip(table["trial"], table["flagged"], strict=True):
        assert reason == report.flags.reason(number)  # the same words, the same verdict
    assert table["flagged"].str.contains("ignores the labels").any()
    trials = study.get_trials()
    flagged = [n for n, r in zip(table["trial"], table["flagged"], strict=True) if r]
    for number in flagged:  # the dashboard's trial note says it, as optuna-dashboard reads it
        assert "**flagged**: selection ignores the labels" in note_of(study, trials[number])


def test_the_report_reuses_the_label_probes_tune_recorded(held_study, monkeypatch):
    front = analysed(held_study, replicates=0, progress=False).front.trials
    monkeypatch.setattr(Problem, "ignores_labels", None)  # would fail if called
    study = Refits(read(held_study))
    assert all(isinstance(study.ignores_labels(n), bool) for n in front)


def test_cli_choose_says_what_was_held_out_and_passed_over(held_study):
    run = subprocess.run([sys.executable, "-m", "paretostab", "choose", "--gamma", "0",
                          "--storage", held_study], capture_output=True, text=True, check=True)
    assert "held out (held-out 25%, 143 examples never seen by the search)" in run.stdout
    assert "flagged, passed over by γ: trial" in run.stdout
    assert "ignores the labels" in run.stdout
    allowed = subprocess.run([sys.executable, "-m", "paretostab", "choose", "--gamma", "0",
                              "--allow-chance", "--storage", held_study],
                             capture_output=True, text=True, check=True)
    assert "flagged, chosen from by --allow-chance: trial" in allowed.stdout


def test_the_report_page_says_what_data_each_estimate_is_on(held_study, tmp_path):
    out = build_report(held_study, out=tmp_path / "report", replicates=3, progress=False)
    page = (out / "index.html").read_text()
    assert "computed on the development part (426 examples" in page
    assert "Held-out evaluation" in page and "Wilson score intervals" in page
    assert "Chance level: a prediction that ignores the features scores accuracy" in page
    summary = json.loads((out / "summary.json").read_text())
    assert summary["chance"]["dominance_area_without_flagged"] < summary["dominance_area"]


# --------------------------------------------------------------------------- nested


def simulate(n, rng, d=500, informative=3, shift=0.35):
    """Two balanced classes; ``informative`` features shifted by ±``shift``, the rest
    noise."""
    y = np.repeat([0, 1], n // 2)
    X = rng.standard_normal((n, d))
    X[:, :informative] += np.where(y[:, None] == 1, shift, -shift)
    return X, y


NESTED = {
    "study": {"name": "sim", "trials": 12, "seed": 0, "sampler": "random"},
    "data": {"source": "memory"},
    "protocol": {"runs": 8, "outer_folds": 5, "resamples": "per_trial",
                 "resampling": "subsample", "sample_fraction": 0.8},
    "selector": {"name": "t_test",
                 "search": {"n_features": [1, 60],
                            "final_reg": {"low": 1e-3, "high": 1e3, "log": True}}},
    "objective": {"stability": "nogueira"},
}


def test_nested_evaluation_estimates_what_independent_data_show(tmp_path):
    """Six simulated data sets (n = 100, d = 500, 3 informative features): the nested
    estimate of the whole procedure is close to the accuracy of its output on 6000 new
    examples of the same simulation, on average, while the best out-of-bag value of the
    front is visibly above it (the search's optimism)."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    nested, independent, best = [], [], []
    for seed in range(6):
        rng = np.random.default_rng(seed)
        X, y = simulate(100, rng)
        X_new, y_new = simulate(6000, rng)
        url = f"sqlite:///{tmp_path / f'sim{seed}.db'}"
        run_study(parse_spec(NESTED), storage=url, data=(X, y), progress=False)
        names = {s.study_name for s in optuna.get_all_study_summaries(url)}
        assert names == {"sim", *(f"sim/outer-{k}" for k in range(1, 6))}
        reader = read(url, data=(X, y))  # the outer folds' studies belong to "sim"
        report = analysed(url, data=(X, y), replicates=0, progress=False)
        assert len(report.nested.folds) == 5 and not report.nested.missing
        selector, columns = reader.problem.fitted_selector(
            reader.params[report.chosen_trial])
        nested.append(report.nested.mean)
        independent.append(np.mean(selector.predict(X_new[:, columns]) == y_new))
        best.append(report.table["accuracy"].max())
    assert abs(np.mean(nested) - np.mean(independent)) < 0.05
    assert np.mean(best) - np.mean(independent) > 0.04


def tiny_nested(outer_folds: int):
    """A nested spec that runs in seconds: 4 trials of 3 runs, t-test with k in [1, 10]."""
    return parse_spec({**NESTED, "study": {**NESTED["study"], "trials": 4},
                       "protocol": {**NESTED["protocol"], "outer_folds": outer_folds,
                                    "runs": 3},
                       "selector": {"name": "t_test", "search": {"n_features": [1, 10]}}})


def test_a_nested_report_names_missing_folds_and_the_chosen_features(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    X, y = simulate(60, rng, d=40)
    spec = tiny_nested(3)
    url = f"sqlite:///{tmp_path / 'n.db'}"
    one = parse_spec({**spec.to_dict(), "protocol": {**spec.to_dict()["protocol"],
                                                    "outer_fold": 2}})
    fold = run_study(one, storage=url, data=(X, y), progress=False)  # one fold alone
    assert fold.study_name == "sim/outer-2"
    assert fold.user_attrs["spec"]["protocol"]["outer_fold"] == 2
    run_study(spec, storage=url, data=(X, y), n_trials=4, progress=False)
    report = analysed(url, "sim", data=(X, y), replicates=0, progress=False)
    nested = report.nested
    assert list(nested.folds["fold"]) == [1, 2, 3]
    fold_reader = read(url, "sim/outer-2", data=(X, y))
    assert fold_reader.problem.y.size == 40 and fold_reader.problem.test_y.size == 20
    # each fold's refit of its chosen trial is kept in the fold's own study
    chosen = int(nested.folds.loc[nested.folds["fold"] == 2, "chosen"].item())
    assert f"paretostab:held-out:{chosen}:0.95" in fold_reader.cache
    # choose reads the study alone, not its outer folds
    from paretostab.report._load import StudySource

    monkeypatch.setattr(StudySource, "outer", lambda *a: pytest.fail("outer folds read"))
    assert choose(url, 0.5, study_name="sim", data=(X, y)).trial in set(report.table["trial"])
    monkeypatch.undo()
    assert nested.frequencies["folds"].max() <= 3
    assert set(nested.stability) == {"nogueira", "iw"}
    summary = report.to_dict()
    assert summary["nested"]["outer_folds"] == 3
    # a fold not tuned yet is named, not guessed
    storage = optuna.storages.RDBStorage(url)
    optuna.delete_study(study_name="sim/outer-3", storage=storage)
    partial = analysed(url, "sim", data=(X, y), replicates=0, progress=False)
    assert partial.nested.missing == (3,) and len(partial.nested.folds) == 2


def test_nested_evaluation_runs_with_worker_processes(tmp_path):
    """Each outer fold is a study as any other: two worker processes share its trials."""
    rng = np.random.default_rng(1)
    X, y = simulate(40, rng, d=20)
    spec = tiny_nested(2)
    url = f"sqlite:///{tmp_path / 'w.db'}"
    study = run_study(spec, storage=url, data=(X, y), workers=2, progress=False)
    for name in (study.study_name, "sim/outer-1", "sim/outer-2"):
        done = optuna.load_study(study_name=name, storage=url).get_trials(
            states=(optuna.trial.TrialState.COMPLETE,))
        assert len(done) == 4, name


@pytest.mark.parametrize("metric", ["accuracy", "balanced_accuracy"])
def test_a_held_out_score_with_three_classes(metric):
    """wine (59/71/48): the held-out part keeps every class; the refit scores it with the
    Wilson interval (accuracy) or the stratified bootstrap (balanced accuracy), and the
    chance test compares with 71/178 or 1/3."""
    spec = parse_spec({"study": {"name": "wine"}, "data": {"source": "wine"},
                       "protocol": {"runs": 3, "holdout": 0.3, "metric": metric},
                       "selector": {"name": "t_test", "fixed": {"n_features": 4}},
                       "objective": {"stability": "nogueira"}})
    problem = Problem.from_spec(spec)
    assert set(np.unique(problem.test_y)) == set(np.unique(problem.y)) and \
        len(np.unique(problem.y)) == 3
    score = problem.held_out_score({}, level=0.95)
    selector, columns = problem.fitted_selector({})
    expected = metric_value(problem.test_y, selector.predict(problem.test_X[:, columns]),
                            metric, selector.classes_)
    assert score.value == expected and score.low <= score.value <= score.high
    assert score.method == ("wilson" if metric == "accuracy" else "bootstrap")
    assert chance_p_value(score.value, problem.y, metric) < 1e-6  # wine is easy
    assert no_information_value(problem.y, metric) == pytest.approx(
        71 / 178 if metric == "accuracy" else 1 / 3, abs=0.01)  # stratified: wine's shares
