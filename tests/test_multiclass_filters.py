"""K ≥ 2 classes in the filters, the forest and ReliefF (issue 20, part 1).

Each K-class criterion against an independent computation: Welch's ANOVA F against a
transliteration of Welch (1951) and Welch's t² at K = 2, the K-class plug-in mutual
information against scikit-learn's ``mutual_info_score`` on the contingency table, mRMR's
relevance against the R² of a least-squares fit on the class indicators, ReliefF against a
direct loop over Robnik-Šikonja & Kononenko (2003) Fig. 3, the decision flip against the
exact flip of a K-class linear argmax. Then every selector end to end on simulated classes
with known informative features and on wine and iris (through ``run_protocol`` with
every metric: tests/test_protocol.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_iris, load_wine
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import mutual_info_score

from paretostab._errors import InvalidInputError
from paretostab._importance import decision_flip_importance, flip_distances
from paretostab.selectors import TrainingSample
from paretostab.selectors import _other as other
from paretostab.selectors._filters import (
    MRMRSelector,
    TTestSelector,
    class_correlation,
    discrete_mutual_info,
    equal_frequency_bins,
    infotheo_mutual_info,
)
from paretostab.selectors._hybrid_rfe import welch_anova_f, welch_t
from paretostab.selectors._other import (
    RandomForestSelector,
    ReliefSelector,
    oob_permutation_importance,
    relief_weights,
)
from tests.multiclass import FILTER_INFORMATIVE, filter_classes, filter_selectors
from tests.reference.criteria import oob_reference, welch_anova_loop

# ------------------------------------------------------------------- Welch's ANOVA


@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_welch_anova_is_welch_1951(n_classes):
    rng = np.random.default_rng(n_classes)
    y = rng.permutation(np.arange(60) % n_classes)
    X = rng.standard_normal((60, 7)) * (1 + y[:, None]) + 0.4 * y[:, None]
    expected = [welch_anova_loop(X[:, f], y) for f in range(7)]
    np.testing.assert_allclose(welch_anova_f(X, y), expected, rtol=1e-12)


def test_welch_anova_with_two_classes_is_welch_t_squared():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 40)
    X = rng.standard_normal((40, 9)) + y[:, None] * np.linspace(0, 2, 9)
    np.testing.assert_allclose(welch_anova_f(X, y), welch_t(X, np.where(y == 1, 1.0, -1.0)) ** 2,
                               rtol=1e-12)


def test_welch_anova_degenerate_classes_take_the_limit():
    y = np.repeat([0, 1, 2], 4)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((12, 4))
    X[:, 0] = 3.0  # constant: 0
    X[:, 1] = y  # every class constant, different means: inf
    X[y == 0, 2] = 7.0  # one constant class: the limit of an ever smaller spread
    f = welch_anova_f(X, y)
    assert f[0] == 0 and f[1] == np.inf
    near = X[:, 2].copy()
    near[y == 0] += 1e-7 * rng.standard_normal(4)
    np.testing.assert_allclose(f[2], welch_anova_loop(near, y), rtol=1e-5)


def test_t_test_ranks_by_welch_anova_with_k_classes():
    X, y = filter_classes(3)
    model = TTestSelector(n_features=4).fit(X, y)
    np.testing.assert_array_equal(model.scores_, welch_anova_f(X, y))
    assert model.coef_.shape == (3, 4) and model.intercept_.shape == (3,)


# ------------------------------------------------------------ mutual information


@pytest.mark.parametrize("n_classes", [2, 3, 4])
def test_discrete_mutual_info_is_the_plug_in_estimate(n_classes):
    rng = np.random.default_rng(n_classes)
    codes = rng.integers(0, 4, (50, 12))
    labels = rng.integers(0, n_classes, 50)
    codes[:, 0] = labels % 4  # informative
    codes[:, 1] = 2  # constant
    expected = [mutual_info_score(labels, codes[:, f]) for f in range(12)]
    np.testing.assert_allclose(discrete_mutual_info(codes, labels, 4), expected,
                               rtol=1e-12, atol=1e-15)
    assert discrete_mutual_info(codes, labels, 4)[1] == 0.0


def test_infotheo_mutual_info_with_k_classes_discretises_then_counts():
    X, y = filter_classes(4)
    n_bins = 4
    codes = equal_frequency_bins(X, n_bins)
    expected = [mutual_info_score(y, codes[:, f]) for f in range(X.shape[1])]
    np.testing.assert_allclose(infotheo_mutual_info(X, y), expected, rtol=1e-12, atol=1e-15)


@settings(max_examples=40)
@given(st.integers(0, 2**31), st.integers(3, 5), st.integers(1, 6))
def test_relabelling_the_classes_does_not_change_the_discrete_mi_by_a_bit(seed, K, n_bins):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_bins, (40, 10))
    labels = rng.integers(0, K, 40)
    labels[:K] = np.arange(K)
    relabelled = rng.permutation(K)[labels]
    np.testing.assert_array_equal(discrete_mutual_info(codes, labels, n_bins),
                                  discrete_mutual_info(codes, relabelled, n_bins))


@pytest.mark.parametrize("n_classes", [2, 3, 4])
def test_mrmr_relevance_is_the_gaussian_mi_of_the_multiple_correlation(n_classes):
    X, y = filter_classes(n_classes)
    sample = TrainingSample(X, y)
    Z = X - X.mean(axis=0)
    Z /= np.linalg.norm(Z, axis=0)
    dummies = (y[:, None] == np.arange(n_classes)).astype(float)
    fitted = dummies @ np.linalg.lstsq(dummies, Z, rcond=None)[0]  # least squares on classes
    r2 = 1 - np.sum((Z - fitted) ** 2, axis=0)
    correlation = class_correlation(Z, sample.signs, sample.class_index, n_classes)
    np.testing.assert_allclose(correlation ** 2, r2, rtol=1e-10, atol=1e-14)
    model = MRMRSelector(n_features=3).fit(X, y)
    np.testing.assert_allclose(model.relevance_, -0.5 * np.log1p(-r2), rtol=1e-9, atol=1e-14)


# -------------------------------------------------------------------------- ReliefF


def relieff_loop(X, y, K, instances=None):
    """ReliefF with equal-weight neighbours (Robnik-Šikonja & Kononenko 2003, Fig. 3),
    every example (or the ``instances``) once, one example at a time."""
    n, d = X.shape
    classes, counts = np.unique(y, return_counts=True)
    prior = dict(zip(classes, counts / n, strict=True))
    instances = range(n) if instances is None else instances
    m = len(instances)
    W = np.zeros(d)
    for i in instances:
        distance = np.abs(X - X[i]).sum(axis=1)
        for c in classes:
            members = [j for j in np.argsort(distance, kind="stable") if j != i and y[j] == c]
            nearest = members[:K]
            if not nearest:
                continue
            diff = np.mean([np.abs(X[i] - X[j]) for j in nearest], axis=0)
            if c == y[i]:
                W -= diff / m
            else:
                W += prior[c] / (1 - prior[y[i]]) * diff / m
    return W


@pytest.mark.parametrize(("n_classes", "K"), [(2, 3), (3, 2), (4, 5), (5, 9)])
def test_relieff_is_kononenkos_multi_class_update(n_classes, K):
    rng = np.random.default_rng(K)
    y = np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, 30)])
    y[-3:] = n_classes - 1  # unequal class sizes: the priors matter
    X = rng.standard_normal((y.size, 6)) + 0.8 * (y[:, None] == np.arange(6) % n_classes)
    np.testing.assert_allclose(relief_weights(X, y, K), relieff_loop(X, y, K), rtol=1e-12,
                               atol=1e-14)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_relieff_over_sampled_instances_in_blocks(n_classes, monkeypatch):
    """m sampled instances, their neighbours among all n examples (Robnik-Šikonja &
    Kononenko's m), taken a few at a time: the loop over those instances; all of them
    in blocks: the weights of every example at once."""
    monkeypatch.setattr(other, "RELIEF_BLOCK", 7)
    rng = np.random.default_rng(n_classes)
    y = rng.permutation(np.arange(50) % n_classes)
    X = rng.standard_normal((50, 5)) + 0.7 * (y[:, None] == np.arange(5) % n_classes)
    instances = np.sort(rng.choice(50, 17, replace=False))
    np.testing.assert_allclose(relief_weights(X, y, 3, instances),
                               relieff_loop(X, y, 3, instances), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(relief_weights(X, y, 3, np.arange(50)), relief_weights(X, y, 3),
                               rtol=1e-12, atol=1e-15)


def test_relief_selector_samples_instances_beyond_n_instances():
    """Up to n_instances examples: every one (the papers' ReliefF, as before); beyond:
    n_instances drawn with random_state — the same draw, the same weights; None: all."""
    rng = np.random.default_rng(4)
    y = np.arange(60) % 3
    X = rng.standard_normal((60, 8)) + (y[:, None] == np.arange(8) % 3)
    every = ReliefSelector(n_features=3).fit(X, y)
    assert np.array_equal(every.scores_, ReliefSelector(n_features=3, n_instances=None)
                          .fit(X, y).scores_)
    sampled = ReliefSelector(n_features=3, n_instances=20, random_state=5).fit(X, y)
    again = ReliefSelector(n_features=3, n_instances=20, random_state=5).fit(X, y)
    assert np.array_equal(sampled.scores_, again.scores_)
    assert not np.allclose(sampled.scores_, every.scores_)
    Xs = (X - X.mean(axis=0)) / X.std(axis=0)
    drawn = np.sort(np.random.RandomState(5).choice(60, size=20, replace=False))
    np.testing.assert_allclose(sampled.scores_, relieff_loop(Xs, y, 5, drawn), rtol=1e-9,
                               atol=1e-12)
    with pytest.raises(InvalidInputError, match="n_instances must be an integer >= 1"):
        ReliefSelector(n_features=3, n_instances=0).fit(X, y)


# -------------------------------------------------------------------- random forest


def test_oob_permutation_importance_with_k_classes_equals_the_brute_force_reference():
    X, y = filter_classes(4, n_per_class=20, d=20)
    forest = RandomForestClassifier(n_estimators=30, random_state=3).fit(X, y)
    fast = oob_permutation_importance(forest, X, y, np.random.RandomState(9))
    reference = oob_reference(forest, X, y, np.random.RandomState(9))
    np.testing.assert_allclose(fast, reference, rtol=0, atol=1e-12)
    assert set(np.argsort(-fast)[:4]) == set(FILTER_INFORMATIVE)


def test_random_forest_decision_is_its_class_probabilities():
    X, y = filter_classes(3, n_per_class=20, d=20)
    model = RandomForestSelector(n_features=3, n_trees=20, random_state=0).fit(X, y)
    kept = model.support_
    selected = (X[:, kept] - model.mean_[kept]) / model.scale_[kept]
    np.testing.assert_array_equal(model.decision_function(X),
                                  model.forest_.predict_proba(selected))


# ------------------------------------------------------------------- decision flip


def test_decision_flip_of_a_k_class_argmax_is_the_first_class_change():
    rng = np.random.default_rng(1)
    W = rng.standard_normal((4, 3))
    b = rng.standard_normal(4)
    X = rng.standard_normal((25, 3))

    def predict(Z):
        return np.argmax(Z @ W.T + b, axis=1)

    exact = np.full(X.shape, np.inf)
    for i, x in enumerate(X):
        scores = W @ x + b
        k = np.argmax(scores)
        for f in range(3):
            for c in range(4):
                slope = W[c, f] - W[k, f]
                if c != k and slope != 0:  # class c overtakes k at t, on the side of slope
                    exact[i, f] = min(exact[i, f], abs((scores[k] - scores[c]) / slope))
    delta = flip_distances(predict, X, scale=np.ones(3), rtol=1e-6)
    np.testing.assert_allclose(delta, exact, rtol=2e-6)
    importance = decision_flip_importance(predict, X, scale=np.ones(3), rtol=1e-6)
    local = 1 / exact
    np.testing.assert_allclose(importance, 3 * np.mean(local / local.sum(axis=1)[:, None],
                                                       axis=0), rtol=1e-5)


# ---------------------------------------------------------------------- end to end


@pytest.mark.parametrize("name", sorted(filter_selectors()))
def test_k_classes_end_to_end_on_simulated_data(name):
    X, y = filter_classes(4, seed=1)
    labels = np.array(["ant", "bee", "cat", "dog"])[y]
    model = filter_selectors()[name].fit(X, labels)
    assert set(np.flatnonzero(model.support_)) == set(FILTER_INFORMATIVE)
    X_test, y_test = filter_classes(4, seed=2)
    decision = model.decision_function(X_test)
    assert decision.shape == (X_test.shape[0], 4)
    np.testing.assert_array_equal(model.classes_, ["ant", "bee", "cat", "dog"])
    predicted = model.predict(X_test)
    np.testing.assert_array_equal(predicted, model.classes_[np.argmax(decision, axis=1)])
    proba = model.predict_proba(X_test)
    assert proba.shape == (X_test.shape[0], 4)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.mean(predicted == model.classes_[y_test]) > 0.7  # chance: 0.25
    assert np.all(model.importances_ >= 0) and np.all(model.importances_[~model.support_] == 0)
    assert np.any(model.importances_ > 0)
    assert sorted(model.rank_order_) == list(range(1, X.shape[1] + 1))


@pytest.mark.parametrize("name", sorted(filter_selectors()))
@pytest.mark.parametrize("load", [load_wine, load_iris], ids=["wine", "iris"])
def test_k_classes_on_wine_and_iris_well_above_chance(name, load):
    X, y = load(return_X_y=True)
    rng = np.random.default_rng(0)
    test = rng.permutation(y.size)[: y.size // 3]
    train = np.setdiff1d(np.arange(y.size), test)
    model = filter_selectors(k=2)[name].fit(X[train], y[train])
    assert model.score(X[test], y[test]) > 0.8  # chance: 1/3 to 0.4


@pytest.mark.slow
@settings(max_examples=10)
@given(st.integers(0, 2**31), st.permutations(range(4)))
def test_relabelling_the_classes_does_not_change_the_selection(seed, permutation):
    X, y = filter_classes(4, n_per_class=12, d=20, shift=0.7, seed=seed)
    relabelled = np.asarray(permutation)[y]
    for name, selector in filter_selectors(k=5).items():
        if name == "random_forest":  # its trees see the classes in their order
            continue
        first = selector.fit(X, y)
        support, ranks = first.support_.copy(), first.rank_order_.copy()
        second = filter_selectors(k=5)[name].fit(X, relabelled)
        np.testing.assert_array_equal(second.support_, support, err_msg=name)
        np.testing.assert_array_equal(second.rank_order_, ranks, err_msg=name)
