"""ParetoSearchCV, the Pareto search as a scikit-learn meta-estimator (issue 35): its
results in scikit-learn's form, the chosen model, γ changed without a new search, and
its citizenship (scikit-learn's checks, clone, pickle, set_output, Pipeline and
cross_validate: the nested estimate of ``[protocol] outer_folds``)."""

from __future__ import annotations

import pickle

import numpy as np
import optuna
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.feature_selection import SelectKBest
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import StratifiedKFold, cross_validate
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import paretostab
from paretostab._errors import InvalidInputError
from paretostab.search import ParetoSearchCV, search_distributions, search_spec
from paretostab.selectors import HybridRFE, TTestSelector


def simulate(n, d=20, informative=3, shift=0.6, seed=0):
    """Two balanced classes; ``informative`` features shifted by ±``shift``, the rest
    noise; as a DataFrame with named features."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.standard_normal((n, d))
    X[:, :informative] += np.where(y[:, None] == 1, shift, -shift)
    return pd.DataFrame(X, columns=[f"gene{j}" for j in range(d)]), y


def tiny(**params):
    """A search that runs in a fraction of a second: the t-test, k in [2, 8], 4 runs."""
    return ParetoSearchCV("t_test", {"n_features": (2, 8)},
                          **{"runs": 4, "n_trials": 6, "random_state": 0, **params})


@pytest.fixture(scope="module")
def fitted():
    X, y = simulate(60)
    return tiny().fit(X, y), X, y


# --------------------------------------------------------------------------- checks

#: The checks a search cannot pass, with why (scikit-learn's parametrize_with_checks).
EXPECTED_FAILED = {
    "check_classifiers_train": "the checks' data have two features, and the search keeps "
                               "one (a selection of both has an undefined stability: every "
                               "trial would fail); one feature cannot separate the check's "
                               "three blobs (as tests/test_selector_checks.py says)"}


@pytest.mark.slow
@parametrize_with_checks([ParetoSearchCV("t_test", {"n_features": [1]}, runs=2, n_trials=1,
                                         random_state=0)],
                         expected_failed_checks=lambda estimator: EXPECTED_FAILED)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# --------------------------------------------------------------------------- results


def test_the_results_are_scikit_learns_with_both_objectives(fitted):
    search, X, y = fitted
    results = search.cv_results_
    n = search.n_trials
    for key in ("trial", "params", "param_n_features", "param_final_reg",
                "mean_test_accuracy", "mean_test_nogueira", "rank_test_accuracy",
                "rank_test_nogueira", "mean_n_selected", "on_front", "flagged"):
        assert len(results[key]) == n, key
    trials = {t.number: t for t in search.study_.trials}
    for i, number in enumerate(results["trial"]):
        assert results["params"][i] == trials[number].params
        assert (results["mean_test_accuracy"][i], results["mean_test_nogueira"][i]) == tuple(
            trials[number].values)
    accuracy = results["mean_test_accuracy"]
    assert results["rank_test_accuracy"][np.argmax(accuracy)] == 1
    assert all(results["rank_test_accuracy"][i] == 1 + np.sum(accuracy > accuracy[i])
               for i in range(n))
    # on_front: brute force, no other trial at least as good in both and better in one
    values = np.column_stack([accuracy, results["mean_test_nogueira"]])
    dominated = [any(np.all(values[j] >= values[i]) and np.any(values[j] > values[i])
                     for j in range(n)) for i in range(n)]
    assert list(results["on_front"]) == [not d for d in dominated]
    assert sorted(search.pareto_front_["trial"]) == sorted(results["trial"][results["on_front"]])
    assert list(search.feature_names_in_) == list(X.columns) and search.n_features_in_ == 20


def best_by_gamma(results, gamma):
    """The row γ chooses, by brute force: the front rows not flagged (all front rows when
    every one is), maximising γA + (1 − γ)φ."""
    rows = np.flatnonzero(results["on_front"] & ~results["flagged"])
    if rows.size == 0:
        rows = np.flatnonzero(results["on_front"])
    score = (gamma * results["mean_test_accuracy"][rows]
             + (1 - gamma) * results["mean_test_nogueira"][rows])
    return int(rows[np.argmax(score)])


def test_gamma_chooses_a_front_trial_and_rechoose_does_not_search_again():
    X, y = simulate(60)
    search = tiny().fit(X, y)
    trials = len(search.study_.trials)
    chosen = {}
    for gamma in (0.0, 0.5, 1.0):
        search.set_params(gamma=gamma).rechoose()
        assert search.best_index_ == best_by_gamma(search.cv_results_, gamma)
        assert search.best_params_ == search.cv_results_["params"][search.best_index_]
        assert search.choice_.gamma == gamma
        chosen[gamma] = search.best_index_
    assert len(search.study_.trials) == trials  # no new trial
    assert search.cv_results_["mean_test_accuracy"][chosen[1.0]] >= \
        search.cv_results_["mean_test_accuracy"][chosen[0.0]]
    with pytest.raises(InvalidInputError, match="gamma must be a number in"):
        search.set_params(gamma=1.5).rechoose()
    with pytest.raises(InvalidInputError, match="gamma must be a number in"):
        clone(search).fit(X, y)


def test_the_chosen_model_is_a_hand_built_pipeline(fitted):
    search, X, y = fitted
    hand = Pipeline([("selector", TTestSelector(**search.best_params_))]).fit(X, y)
    new, _ = simulate(40, seed=1)
    np.testing.assert_array_equal(search.predict(new), hand.predict(new))
    np.testing.assert_array_equal(search.predict_proba(new), hand.predict_proba(new))
    np.testing.assert_array_equal(search.decision_function(new), hand.decision_function(new))
    np.testing.assert_array_equal(search.best_estimator_.predict(new), hand.predict(new))
    support = hand.named_steps["selector"].get_support()
    np.testing.assert_array_equal(search.get_support(), support)
    assert list(search.get_feature_names_out()) == list(X.columns[support])
    np.testing.assert_array_equal(search.transform(new), new.to_numpy()[:, support])
    assert search.score(new, np.repeat([0, 1], 20)) == np.mean(
        hand.predict(new) == np.repeat([0, 1], 20))


def test_data_with_other_features_is_refused(fitted):
    search, X, _ = fitted
    with pytest.raises(ValueError, match="feature names"):
        search.predict(X.rename(columns={"gene3": "other"}))


@pytest.mark.slow
def test_score_is_the_metric_of_the_search():
    X, y = simulate(60)
    search = tiny(metric="balanced_accuracy").fit(X.to_numpy(), y)
    assert "mean_test_balanced_accuracy" in search.cv_results_
    assert not hasattr(search, "feature_names_in_")
    new, y_new = simulate(40, seed=2)
    y_new = np.array([0] * 10 + [1] * 30)
    assert search.score(new.to_numpy(), y_new) == pytest.approx(
        balanced_accuracy_score(y_new, search.predict(new.to_numpy())))
    assert list(search.get_feature_names_out()) == [
        f"x{j}" for j in np.flatnonzero(search.support_)]


def test_the_report_is_the_studys(fitted):
    search, _, _ = fitted
    report = search.report(replicates=0, pfer=None)
    assert isinstance(report, paretostab.Report)
    assert report.chosen.trial == search.choice_.trial == \
        search.cv_results_["trial"][search.best_index_]


# --------------------------------------------------------------------------- citizenship


def test_clone_and_pickle(fitted):
    search, X, _ = fitted
    copy = clone(search)
    assert copy.get_params() == search.get_params() and not hasattr(copy, "cv_results_")
    loaded = pickle.loads(pickle.dumps(search))
    np.testing.assert_array_equal(loaded.predict(X), search.predict(X))
    assert loaded.best_params_ == search.best_params_ and not hasattr(loaded, "study_")
    assert loaded.choice_.stable_set(pfer=1).features == search.choice_.stable_set(pfer=1).features
    for method in (loaded.report, loaded.rechoose):
        with pytest.raises(InvalidInputError, match="holds no study"):
            method()
    with pytest.raises(InvalidInputError, match="cannot be refitted"):
        loaded.choice_.model()


def test_set_output_in_a_pipeline(fitted):
    search, X, y = fitted
    pipeline = make_pipeline(StandardScaler(), clone(search)).set_output(transform="pandas")
    out = pipeline.fit(X, y).transform(X)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == list(pipeline[-1].get_feature_names_out())


@pytest.mark.slow
def test_cross_validate_gives_the_nested_estimate_of_outer_folds(tmp_path):
    """The spec's ``[protocol] outer_folds = 3`` draws scikit-learn's
    ``StratifiedKFold(3, shuffle=True, random_state=split_seed)``; given those folds,
    ``cross_validate`` runs the same procedure in each (a study on the fold's training
    part with the same spec and seed, the γ choice, the refit, the metric on its test
    part): the outer scores are the nested evaluation's, fold by fold, equal up to
    floating point (1e-12: the same computation on the same examples)."""
    X, y = simulate(60, d=30)
    spec = {"study": {"name": "nested", "trials": 6, "seed": 0},
            "protocol": {"runs": 4, "outer_folds": 3},
            "selector": {"name": "t_test", "search": {"n_features": {"low": 2, "high": 8}}},
            "objective": {"stability": "nogueira", "record": ["nogueira"]}}
    study = paretostab.tune(spec, data=(X, y), storage=f"journal:{tmp_path / 'n.journal'}",
                            progress=False)
    nested = study.report(replicates=0, pfer=None, progress=False).nested
    folds = StratifiedKFold(3, shuffle=True, random_state=0)
    outer = cross_validate(tiny(), X, y, cv=folds)["test_score"]
    np.testing.assert_allclose(outer, nested.folds["outer"], rtol=0, atol=1e-12)


# --------------------------------------------------------------------------- the spec


def test_param_distributions_read_as_a_spec_search():
    assert search_distributions(None) == {}
    assert search_distributions({
        "n_features": (2, 8), "final_reg": [0.1, 1.0],
        "reg": optuna.distributions.FloatDistribution(1e-3, 1e3, log=True),
        "k": optuna.distributions.IntDistribution(1, 5),
        "loss": optuna.distributions.CategoricalDistribution(["logistic", "hinge"]),
        "alpha": {"low": 0.0, "high": 1.0}}) == {
        "n_features": {"low": 2, "high": 8}, "final_reg": {"choices": [0.1, 1.0]},
        "reg": {"low": 1e-3, "high": 1e3, "log": True}, "k": {"low": 1, "high": 5, "log": False},
        "loss": {"choices": ["logistic", "hinge"]}, "alpha": {"low": 0.0, "high": 1.0}}
    with pytest.raises(InvalidInputError, match=r"step 2 is not searched"):
        search_distributions({"k": optuna.distributions.IntDistribution(1, 9, step=2)})
    with pytest.raises(InvalidInputError, match=r"param_distributions\['k'\] must be a range"):
        search_distributions({"k": 3})
    with pytest.raises(InvalidInputError, match="param_distributions must be a dict"):
        search_distributions([("k", (1, 3))])


def test_the_selector_becomes_the_specs():
    spec = search_spec(ParetoSearchCV(HybridRFE(n_features=4, reg=0.5), {"reg": (0.1, 1.0)}), 3)
    assert spec["study"] == {"trials": 60, "seed": 3}
    assert spec["selector"] == {"name": "hybrid_rfe", "fixed": {"n_features": 4},
                                "search": {"reg": {"low": 0.1, "high": 1.0}}}
    assert search_spec(ParetoSearchCV("lasso"), 0)["selector"] == {"name": "lasso", "search": {}}
    external = search_spec(ParetoSearchCV(SelectKBest(k=3), {"k": (2, 5)}), 0)["selector"]
    assert external["name"].get_params() == SelectKBest(k=3).get_params()
    X, y = simulate(60)
    search = ParetoSearchCV(SelectKBest(), {"k": (2, 5)}, runs=4, n_trials=3,
                            random_state=0).fit(X, y)
    assert 2 <= search.best_params_["k"] <= 5 and search.support_.sum() == search.best_params_["k"]


@pytest.mark.parametrize(("params", "message"), [
    ({"classifier": "svc"}, "classifier: a study scores each run with the selector's own"),
    ({"runs": 1}, "runs must be an integer >= 2"),
    ({"n_trials": 0}, "n_trials must be an integer >= 1"),
])
def test_bad_parameters_are_refused_in_one_line(params, message):
    with pytest.raises(InvalidInputError, match=message):
        search_spec(tiny(**params), 0)


@pytest.mark.slow
def test_a_storage_keeps_the_study_and_a_second_fit_resumes_it(tmp_path):
    url = f"journal:{tmp_path / 'search.journal'}"
    X, y = simulate(60)
    first = tiny(storage=url).fit(X, y)
    name = first.study_.study_name
    assert name.startswith("ParetoSearchCV-")
    again = tiny(storage=url).fit(X, y)
    assert again.study_.study_name == name and len(again.study_.trials) == 6
    assert again.best_params_ == first.best_params_
    other = tiny(storage=url).fit(X.iloc[:50], y[:50])
    assert other.study_.study_name != name
