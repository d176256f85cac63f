"""Random forest, Relief, t-test, MIM and mRMR selectors: worked checks against
references, fitted attributes, reproducibility, errors, and scikit-learn's checks."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_selection import mutual_info_classif
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks
from threadpoolctl import threadpool_limits

from paretostab import InvalidInputError
from paretostab._importance import decision_flip_importance, linear_importance
from paretostab.selectors._filters import (
    MIMSelector,
    MRMRSelector,
    TTestSelector,
    gaussian_mi,
    mutual_info_classif_fast,
)
from paretostab.selectors._other import (
    RandomForestSelector,
    ReliefSelector,
    oob_permutation_importance,
    relief_weights,
)
from tests.estimator_checks import one_feature_failures
from tests.reference.criteria import oob_reference


def problem(seed, n=80, d=60, informative=4, noise=1.0):
    """Raw features of various scales and offsets; the class depends on the first few."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, :informative] @ np.linspace(2, 1, informative) + noise * rng.normal(size=n)
         > 0).astype(int)
    return X * rng.uniform(0.5, 3, size=d) + rng.normal(size=d) * 4, y


def standardise(selector, X):
    """The training data exactly as SelectorBase standardises it."""
    return (X - selector.mean_) / selector.scale_


def sklearn_logistic(X, y, reg):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = LogisticRegression(C=1 / (2 * reg), tol=1e-12, max_iter=100_000).fit(X, y)
    return model.coef_[0], model.intercept_[0]


# ------------------------------------------------------------- scikit-learn's checks

ESTIMATORS = [
    TTestSelector(n_features=1),
    MIMSelector(n_features=1),
    MIMSelector(n_features=1, estimator="knn", random_state=0),
    MRMRSelector(n_features=1),
    MRMRSelector(n_features=1, correlation="spearman"),
    ReliefSelector(n_features=1, n_neighbors=3),
    RandomForestSelector(n_features=1, n_trees=10, random_state=0),
]


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=one_feature_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ----------------------------------------------------------- shared fitted attributes

ALL = [
    TTestSelector(n_features=5),
    MIMSelector(n_features=5),
    MIMSelector(n_features=5, estimator="knn", random_state=1),
    MRMRSelector(n_features=5),
    ReliefSelector(n_features=5, n_neighbors=5),
    RandomForestSelector(n_features=5, n_trees=50, random_state=1),
]


@pytest.mark.parametrize("selector", ALL, ids=lambda s: type(s).__name__)
def test_fitted_attributes_are_consistent(selector):
    X, y = problem(1)
    labels = np.where(y == 1, "tumour", "normal")
    copy = X.copy()
    selector.fit(X, labels)
    np.testing.assert_array_equal(X, copy)  # the input is never modified
    d = X.shape[1]
    assert selector.support_.sum() == 5
    np.testing.assert_array_equal(selector.transform(X), X[:, selector.support_])
    # rank_order_: a ranking 1..d without ties whose top k is the support
    np.testing.assert_array_equal(np.sort(selector.rank_order_), np.arange(1, d + 1))
    np.testing.assert_array_equal(selector.rank_order_ <= 5, selector.support_)
    assert selector.scores_.shape == (d,)
    assert np.all(selector.importances_ >= 0)
    assert np.all(selector.importances_[~selector.support_] == 0)
    assert selector.importances_.sum() > 0
    decision = selector.decision_function(X)
    np.testing.assert_array_equal(selector.predict(X),
                                  selector.classes_[(decision > 0).astype(int)])
    proba = selector.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(proba[:, 1] > 0.5, decision > 0)
    assert list(selector.classes_) == ["normal", "tumour"]
    assert selector.score(X, labels) > 0.75  # training accuracy on an easy problem


def test_defaults_are_the_settings_of_000_section_6_2():
    """k = 20 for every selector (k̄ = 20 for the lasso and elastic net), 1000 trees in both
    forests, ReliefF with 5 equal-weight neighbours and a 5-NN final model, MIM by R
    infotheo's estimator."""
    from paretostab.selectors import SELECTORS

    for name, info in SELECTORS.items():
        params = info.make().get_params()
        if "n_features" in params:
            assert params["n_features"] == 20, name
        elif name in ("lasso", "elastic_net"):
            assert params["target_features"] == 20 and params["reg"] is None, name
    assert RandomForestSelector().get_params()["n_trees"] == 1000
    relief = ReliefSelector()
    assert relief.n_neighbors == 5 and relief.n_neighbors_predict is None
    X, y = problem(16, n=40, d=30)
    assert ReliefSelector(n_features=3).fit(X, y).knn_.n_neighbors == 5  # a 5-NN
    assert MIMSelector().estimator == "discrete"


def test_rfe_tolerance_defaults_per_loss():
    """tol=None: 1e-8 for the logistic Newton core, 1e-6 for liblinear's hinge loss (the
    SVM-RFE; measured by benchmarks/bench_svm_tol.py, see HybridRFE's docstring)."""
    from paretostab.selectors import BiasedRFE, HybridRFE, get_selector
    from paretostab.selectors._rfe import DEFAULT_TOL

    assert DEFAULT_TOL == {"logistic": 1e-8, "hinge": 1e-6}
    assert HybridRFE().tol is None and BiasedRFE().tol is None
    assert get_selector("svm_rfe").make().get_params()["tol"] is None
    X, y = problem(17, n=50, d=60)
    for loss in ("logistic", "hinge"):
        default = HybridRFE(n_features=5, loss=loss).fit(X, y)
        explicit = HybridRFE(n_features=5, loss=loss, tol=DEFAULT_TOL[loss]).fit(X, y)
        np.testing.assert_array_equal(default.support_, explicit.support_)
        np.testing.assert_array_equal(default.coef_, explicit.coef_)
        biased = BiasedRFE(n_features=5, loss=loss, shape=100.0, random_state=0).fit(X, y)
        again = BiasedRFE(n_features=5, loss=loss, shape=100.0, tol=DEFAULT_TOL[loss],
                          random_state=0)
        np.testing.assert_array_equal(biased.coef_, again.fit(X, y).coef_)
    with pytest.raises(InvalidInputError, match="tol must be a finite number > 0; got 0"):
        HybridRFE(n_features=5, loss="hinge", tol=0).fit(X, y)


# ---------------------------------------------------------------------------- t-test


def test_t_test_ranks_by_welch_t_and_fits_the_l2_logistic():
    X, y = problem(2, d=40)
    X[:, 7] = 1.5  # a constant feature: t = 0
    selector = TTestSelector(n_features=6, final_reg=0.4).fit(X, y)
    varying = np.arange(40) != 7
    t = np.zeros(40)
    t[varying] = np.abs(stats.ttest_ind(X[y == 1][:, varying], X[y == 0][:, varying],
                                        equal_var=False).statistic)
    np.testing.assert_allclose(selector.scores_, t, rtol=1e-12)
    order = np.argsort(-t, kind="stable")
    np.testing.assert_array_equal(selector.rank_order_[order], np.arange(1, 41))
    kept = np.sort(order[:6])
    np.testing.assert_array_equal(np.flatnonzero(selector.support_), kept)
    coef, intercept = sklearn_logistic(standardise(selector, X)[:, kept], y, 0.4)
    np.testing.assert_allclose(selector.coef_, coef, atol=1e-6)
    assert selector.intercept_ == pytest.approx(intercept, abs=1e-6)
    np.testing.assert_allclose(selector.importances_[kept], linear_importance(selector.coef_))
    assert selector.importances_.sum() == pytest.approx(6)


def test_ties_are_broken_by_feature_index():
    X, y = problem(3, d=10)
    X[:, 6] = X[:, 2]  # equal scores: the lower index ranks first
    X[:, 4] = X[:, 2]
    for selector in (TTestSelector(n_features=2), MRMRSelector(n_features=2)):
        ranks = selector.fit(X, y).rank_order_
        assert ranks[2] < ranks[4] < ranks[6]


# ------------------------------------------------------------------------------- MIM


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mim_knn_scores_are_mutual_info_classif(seed):
    X, y = problem(seed, n=70, d=120)
    X[:, 3] = np.round(X[:, 3])  # ties
    X[:, 9] = 2.0  # constant
    selector = MIMSelector(n_features=8, estimator="knn", random_state=seed).fit(X, y)
    reference = mutual_info_classif(standardise(selector, X), y, random_state=seed)
    np.testing.assert_array_equal(selector.scores_, reference)  # bit for bit
    order = np.argsort(-reference, kind="stable")
    np.testing.assert_array_equal(selector.rank_order_[order], np.arange(1, 121))
    np.testing.assert_array_equal(np.flatnonzero(selector.support_), np.sort(order[:8]))


@pytest.mark.parametrize(("class_sizes", "n_neighbors"), [((60, 3), 3), ((40, 7), 3),
                                                          ((30, 30), 1), ((25, 12), 5)])
def test_fast_mutual_information_equals_scikit_learn(class_sizes, n_neighbors):
    """Including classes small enough for scikit-learn's brute-force neighbour search."""
    rng = np.random.default_rng(sum(class_sizes) + n_neighbors)
    n = sum(class_sizes)
    y = np.repeat([0, 1], class_sizes)
    X = rng.normal(size=(n, 50)) + y[:, None] * rng.normal(size=50)
    fast = mutual_info_classif_fast(X, y, n_neighbors=n_neighbors, random_state=5)
    with threadpool_limits(1, user_api="openmp"):  # fast on a busy machine
        reference = mutual_info_classif(X, y, n_neighbors=n_neighbors, random_state=5)
    np.testing.assert_array_equal(fast, reference)


def test_mim_knn_is_reproducible_with_random_state():
    X, y = problem(4, d=80)
    a = MIMSelector(n_features=5, estimator="knn", random_state=11).fit(X, y)
    b = MIMSelector(n_features=5, estimator="knn", random_state=11).fit(X, y)
    np.testing.assert_array_equal(a.scores_, b.scores_)
    np.testing.assert_array_equal(a.coef_, b.coef_)


# ------------------------------------------------------------------------------ mRMR


def mrmr_reference(X, y, k):
    """Greedy difference-form mRMR with I = −½ log(1 − r²), written out plainly."""
    d = X.shape[1]

    def mi(a, b):
        if np.std(a) == 0 or np.std(b) == 0:
            return 0.0
        r = np.corrcoef(a, b)[0, 1]
        return -0.5 * np.log(1 - min(r * r, 1 - 1e-12))

    relevance = np.array([mi(X[:, f], y) for f in range(d)])
    selected = []
    for _ in range(k):
        best, best_score = None, -np.inf
        for f in range(d):
            if f in selected:
                continue
            score = relevance[f] - (np.mean([mi(X[:, f], X[:, s]) for s in selected])
                                    if selected else 0.0)
            if score > best_score + 1e-12:
                best, best_score = f, score
        selected.append(best)
    return relevance, selected


def test_mrmr_greedy_selection_matches_a_plain_reference():
    X, y = problem(5, n=60, d=25, informative=6)
    X[:, 10] = X[:, 0] + 0.05 * np.random.default_rng(0).normal(size=60)  # a near-duplicate
    selector = MRMRSelector(n_features=6).fit(X, y)
    relevance, selected = mrmr_reference(X, y.astype(float), 6)
    np.testing.assert_allclose(selector.relevance_, relevance, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(np.argsort(selector.rank_order_)[:6], selected)
    np.testing.assert_array_equal(np.flatnonzero(selector.support_), np.sort(selected))
    assert selector.scores_[selected[0]] == pytest.approx(relevance[selected[0]])


def test_mrmr_prefers_a_less_redundant_feature_to_a_duplicate():
    rng = np.random.default_rng(6)
    n = 200
    y = rng.integers(0, 2, n)
    strong = y + 0.5 * rng.normal(size=n)
    other = y + 0.8 * rng.normal(size=n)  # weaker but carries independent noise
    X = np.column_stack([strong, strong + 0.01 * rng.normal(size=n), other,
                         rng.normal(size=(n, 5))])
    mrmr = MRMRSelector(n_features=2).fit(X, y)
    np.testing.assert_array_equal(np.flatnonzero(mrmr.support_), [0, 2])
    # relevance alone (the t-test here) takes the duplicate
    t_test = TTestSelector(n_features=2).fit(X, y)
    np.testing.assert_array_equal(np.flatnonzero(t_test.support_), [0, 1])


def test_mrmr_spearman_is_pearson_on_ranks_and_gaussian_mi():
    X, y = problem(7, d=30)
    ranks = stats.rankdata(X, axis=0)
    pearson_on_ranks = MRMRSelector(n_features=4).fit(ranks, y)
    spearman = MRMRSelector(n_features=4, correlation="spearman").fit(X, y)
    np.testing.assert_array_equal(spearman.support_, pearson_on_ranks.support_)
    np.testing.assert_allclose(spearman.relevance_, pearson_on_ranks.relevance_, atol=1e-12)
    assert gaussian_mi(np.array([0.0]))[0] == 0
    assert gaussian_mi(np.array([0.6]))[0] == pytest.approx(-0.5 * np.log(0.64))
    assert np.isfinite(gaussian_mi(np.array([1.0]))[0])


# ----------------------------------------------------------------------- random forest


def test_oob_permutation_importance_equals_a_brute_force_reference():
    X, y = problem(8, n=90, d=40)
    Xs = (X - X.mean(0)) / X.std(0)
    forest = RandomForestClassifier(n_estimators=40, random_state=3).fit(Xs, y)
    fast = oob_permutation_importance(forest, Xs, y, np.random.RandomState(9))
    reference = oob_reference(forest, Xs, y, np.random.RandomState(9))
    np.testing.assert_allclose(fast, reference, rtol=0, atol=1e-12)
    assert np.any(fast != 0)


def test_random_forest_pipeline_step_by_step():
    """First forest → OOB importances → top k → second forest → its clipped importances."""
    X, y = problem(9, n=70, d=30)
    selector = RandomForestSelector(n_features=4, n_trees=30, random_state=5).fit(X, y)
    Xs = standardise(selector, X)
    rng = np.random.RandomState(5)
    first_seed, final_seed = rng.randint(np.iinfo(np.int32).max, size=2)
    first = RandomForestClassifier(n_estimators=30, random_state=first_seed).fit(Xs, y)
    scores = oob_reference(first, Xs, y, rng)
    np.testing.assert_allclose(selector.scores_, scores, atol=1e-12)
    kept = np.sort(np.argsort(-selector.scores_, kind="stable")[:4])
    np.testing.assert_array_equal(np.flatnonzero(selector.support_), kept)
    final = RandomForestClassifier(n_estimators=30, random_state=final_seed).fit(Xs[:, kept], y)
    importances = oob_reference(final, Xs[:, kept], y, rng)
    np.testing.assert_allclose(selector.importances_[kept], np.maximum(importances, 0),
                               atol=1e-12)
    np.testing.assert_allclose(selector.predict_proba(X), final.predict_proba(Xs[:, kept]))


@pytest.mark.slow
def test_random_forest_finds_the_informative_features():
    X, y = problem(10, n=120, d=200, informative=3, noise=0.3)
    selector = RandomForestSelector(n_features=3, n_trees=300, random_state=0).fit(X, y)
    np.testing.assert_array_equal(np.flatnonzero(selector.support_), [0, 1, 2])
    assert np.all(selector.importances_[:3] > 0)


def test_random_forest_is_reproducible_with_random_state():
    X, y = problem(11, d=50)
    a = RandomForestSelector(n_features=5, n_trees=20, random_state=7).fit(X, y)
    b = RandomForestSelector(n_features=5, n_trees=20, random_state=7).fit(X, y)
    np.testing.assert_array_equal(a.scores_, b.scores_)
    np.testing.assert_array_equal(a.importances_, b.importances_)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    c = RandomForestSelector(n_features=5, n_trees=20, random_state=8).fit(X, y)
    assert not np.array_equal(a.scores_, c.scores_)


# ---------------------------------------------------------------------------- Relief


def relief_reference(X, y, K):
    """ReliefF with K equal-weight hits and misses, example by example."""
    n, d = X.shape
    W = np.zeros(d)
    for i in range(n):
        distance = np.abs(X - X[i]).sum(axis=1)
        for same, sign in ((True, -1.0), (False, 1.0)):
            candidates = [j for j in range(n) if j != i and (y[j] == y[i]) == same]
            candidates.sort(key=lambda j: (distance[j], j))
            nearest = candidates[:K]
            if nearest:
                W += sign * np.mean([np.abs(X[i] - X[j]) for j in nearest], axis=0)
    return W / n


@pytest.mark.parametrize(("n", "K"), [(9, 4), (30, 3), (25, 1)])
def test_relief_weights_equal_a_brute_force_relieff(n, K):
    rng = np.random.default_rng(n)
    y = (np.arange(n) < 2 * n // 3).astype(int)  # unbalanced: the small class caps K
    X = rng.normal(size=(n, 7)) + y[:, None] * [2, 0, 1, 0, 0, 0.5, 0]
    X[3] = X[4]  # a duplicate: distance 0, ties by index
    signs = np.where(y == 1, 1.0, -1.0)
    np.testing.assert_allclose(relief_weights(X, signs, K), relief_reference(X, y, K),
                               atol=1e-12)


def test_relief_selector_knn_model_and_decision_flip_importance():
    X, y = problem(12, n=90, d=40, informative=3, noise=0.3)
    selector = ReliefSelector(n_features=4, n_neighbors=7).fit(X, y)
    Xs = standardise(selector, X)
    weights = relief_weights(Xs, np.where(y == 1, 1.0, -1.0), 7)
    np.testing.assert_allclose(selector.scores_, weights)
    kept = np.sort(np.argsort(-weights, kind="stable")[:4])
    np.testing.assert_array_equal(np.flatnonzero(selector.support_), kept)
    assert selector.support_[:3].all()  # Relief finds the informative features
    knn = KNeighborsClassifier(n_neighbors=7, algorithm="brute").fit(Xs[:, kept], y)
    np.testing.assert_array_equal(selector.predict(X), knn.predict(Xs[:, kept]))
    np.testing.assert_allclose(selector.predict_proba(X), knn.predict_proba(Xs[:, kept]))
    with threadpool_limits(1, user_api="openmp"):
        importance = decision_flip_importance(knn.predict, Xs[:, kept], growth=1.25)
    np.testing.assert_allclose(selector.importances_[kept], importance)
    assert selector.importances_.sum() == pytest.approx(np.count_nonzero(importance))


def test_relief_importance_is_over_every_example_up_to_n_instances():
    """n ≤ m: eq. 9 over every training example, to the last bit of n_instances=None."""
    X, y = problem(16, n=90, d=30, informative=3, noise=0.3)
    every = ReliefSelector(n_features=4, n_instances=None).fit(X, y)
    Xs = standardise(every, X)
    kept = np.flatnonzero(every.support_)
    with threadpool_limits(1, user_api="openmp"):
        exact = decision_flip_importance(every.knn_.predict, Xs[:, kept], growth=1.25)
    for n_instances in (90, 1000):
        fitted = ReliefSelector(n_features=4, n_instances=n_instances, random_state=0).fit(X, y)
        np.testing.assert_array_equal(fitted.importances_, every.importances_)
    np.testing.assert_array_equal(every.importances_[kept], exact)


@pytest.mark.slow
@pytest.mark.parametrize("n_classes", [2, 3])
def test_relief_importance_on_the_sampled_instances_is_within_its_error(n_classes):
    """n > m: the mean over the m ReliefF instances (σ_f of all n) estimates eq. 9's mean
    over all n within the stated error √((1 − m/n) k_P I(f) / m), here 4 times it."""
    rng = np.random.default_rng(n_classes)
    n, m = 1500, 300
    y = np.arange(n) % n_classes
    X = rng.standard_normal((n, 12)) + 0.9 * (y[:, None] == np.arange(12) % n_classes)
    X[:, 4:] = rng.standard_normal((n, 8))  # 4 informative features
    sampled = ReliefSelector(n_features=5, n_instances=m, random_state=1).fit(X, y)
    Xs = standardise(sampled, X)
    kept = np.flatnonzero(sampled.support_)
    drawn = np.sort(np.random.RandomState(1).choice(n, size=m, replace=False))
    with threadpool_limits(1, user_api="openmp"):
        exact = decision_flip_importance(sampled.knn_.predict, Xs[:, kept], growth=1.25)
        estimate = decision_flip_importance(sampled.knn_.predict, Xs[drawn][:, kept],
                                            scale=Xs[:, kept].std(axis=0), growth=1.25)
    np.testing.assert_array_equal(sampled.importances_[kept], estimate)
    error = np.sqrt((1 - m / n) * np.count_nonzero(exact) * exact / m)
    assert np.all(np.abs(estimate - exact) <= 4 * error)
    assert not np.array_equal(estimate, exact)


def test_relief_prediction_neighbours():
    X, y = problem(13, n=40, d=20)
    assert ReliefSelector(n_features=3, n_neighbors=4).fit(X, y).knn_.n_neighbors == 4
    other = ReliefSelector(n_features=3, n_neighbors=4, n_neighbors_predict=9).fit(X, y)
    assert other.knn_.n_neighbors == 9
    capped = ReliefSelector(n_features=3, n_neighbors=100).fit(X, y)
    assert capped.knn_.n_neighbors == 40  # at most the training examples


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("selector", "message"),
    [
        (TTestSelector(n_features=0), r"n_features must be an integer in \[1, 12\] .*; got 0"),
        (TTestSelector(n_features=13), r"n_features must be an integer in \[1, 12\]"),
        (TTestSelector(n_features=2.0), r"n_features must be an integer in \[1, 12\] .*; got 2.0"),
        (TTestSelector(n_features=2, final_reg=0), "final_reg must be a finite number > 0; got 0"),
        (MIMSelector(n_features=2, final_reg=-1.0), "final_reg must be a finite number > 0"),
        (MIMSelector(n_features=2, estimator="knn", n_neighbors=0), r"n_neighbors must be an integer >= 1 .*; got 0"),
        (MIMSelector(n_features=2, estimator="knn", random_state="seed"), "random_state must be None, an integer .*; got 'seed'"),
        (MIMSelector(n_features=2, estimator="KNN"), r"estimator must be one of 'discrete', 'knn' .*; got 'KNN'"),
        (MRMRSelector(n_features=2, correlation="kendall"), "correlation must be one of 'pearson', 'spearman'; got 'kendall'"),
        (ReliefSelector(n_features=2, n_neighbors=0), r"n_neighbors must be an integer >= 1 \(ReliefF"),
        (ReliefSelector(n_features=2, n_neighbors_predict=1.5), r"n_neighbors_predict must be an integer >= 1 .*; got 1.5"),
        (RandomForestSelector(n_features=2, n_trees=0), r"n_trees must be an integer >= 1 .*; got 0"),
        (RandomForestSelector(n_features=2, max_features="auto"), "max_features must be 'sqrt', 'log2', an integer >= 1 .*; got 'auto'"),
        (RandomForestSelector(n_features=2, max_features=1.5), "max_features must be .*; got 1.5"),
        (RandomForestSelector(n_features=2, min_samples_leaf=0), r"min_samples_leaf must be an integer >= 1"),
        (RandomForestSelector(n_features=2, random_state=-3), "random_state must be None, an integer"),
    ],
    ids=lambda value: value if isinstance(value, str) else type(value).__name__,
)
def test_bad_parameters_raise_specific_errors(selector, message):
    X, y = problem(14, n=30, d=12)
    with pytest.raises(InvalidInputError, match=message):
        selector.fit(X, y)


@pytest.mark.parametrize("selector", ALL, ids=lambda s: type(s).__name__)
def test_a_single_class_is_refused(selector):
    X, _ = problem(15, n=30, d=12)
    with pytest.raises(InvalidInputError, match="needs 2 classes in y; got 1 class"):
        selector.fit(X, np.zeros(30))
