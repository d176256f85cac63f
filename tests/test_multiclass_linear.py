"""The lasso / elastic net and the group lasso with K > 2 classes (issue 20): the
multinomial logistic loss with glmnet's *grouped* penalty (each feature's K weights
penalised by their Euclidean norm; Friedman, Hastie & Tibshirani 2010, §4). Checked by
the optimality (KKT) conditions of the grouped problem computed independently here, by
the selection of known informative features, the calibration of the mean count over
bootstrap runs, the L2 refit against scikit-learn, invariance to a relabelling of the
classes, the protocol with every metric, and scikit-learn's multi-class estimator checks."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp, softmax
from sklearn.datasets import load_iris, load_wine
from sklearn.linear_model import LogisticRegression

from paretostab import CalibrationWarning, InvalidInputError
from paretostab._protocol import run_protocol
from paretostab.selectors import SELECTORS
from paretostab.selectors._linear import ElasticNetSelector, GroupLassoSelector, group_fista
from tests.multiclass import LINEAR_INFORMATIVE, linear_classes


def standardise(X):
    return (X - X.mean(0)) / X.std(0)


def full_weights(selector) -> np.ndarray:
    """The d × K weight matrix W of a fitted multinomial selector (0 outside the support)."""
    W = np.zeros((selector.n_features_in_, selector.classes_.size))
    W[selector.support_] = selector.coef_.T
    return W


def multinomial_gradient(Xs, y, W, b):
    """Gradient of Σ_i [log Σ_k e^{z_ik} − z_{i,y_i}], z = X W + b, in W and in b — written
    here from the definition, apart from the package's solver."""
    members = (y[:, None] == np.unique(y)[None, :]).astype(float)
    residual = softmax(Xs @ W + b, axis=1) - members
    return Xs.T @ residual, residual.sum(axis=0)


def multinomial_objective(Xs, y, W, b, unit_penalty):
    z = Xs @ W + b
    index = np.searchsorted(np.unique(y), y)
    return (logsumexp(z, axis=1) - z[np.arange(len(y)), index]).sum() + unit_penalty(W)


def assert_group_kkt(G, W, groups, thresholds, g_b, rtol=1e-5):
    """KKT of ``f(W) + Σ_g t_g ‖W_g‖_F`` (G = ∇f): ``‖G_g‖ ≤ t_g`` on zero groups,
    ``G_g + t_g W_g / ‖W_g‖ = 0`` on the others, ``∇_b f = 0``."""
    for g, t in enumerate(thresholds):
        rows = groups == g
        norm = np.linalg.norm(W[rows])
        if norm == 0:
            assert np.linalg.norm(G[rows]) <= t * (1 + rtol)
        else:
            assert np.linalg.norm(G[rows] + t * W[rows] / norm) <= rtol * t
    np.testing.assert_allclose(g_b, 0, atol=rtol * thresholds.min())


# ------------------------------------------------------------------------ optimality


@pytest.mark.parametrize("n_classes", [3, 4])
@pytest.mark.parametrize("l1_ratio", [1.0, 0.6])
def test_elastic_net_solution_satisfies_the_grouped_multinomial_kkt_conditions(l1_ratio,
                                                                               n_classes):
    """λ₁(λ₂ Σ_f ‖W_f‖₂ + (1 − λ₂)‖W‖_F²): per feature, with the ridge in the gradient."""
    X, y = linear_classes(1, n_classes=n_classes, n=48, d=40)
    reg = 6.0
    selector = ElasticNetSelector(l1_ratio=l1_ratio, reg=reg, tol=1e-10).fit(X, y)
    assert 0 < selector.n_selected_ < 40
    W, b = full_weights(selector), selector.intercept_
    G, g_b = multinomial_gradient(standardise(X), y, W, b)
    G += 2 * reg * (1 - l1_ratio) * W
    assert_group_kkt(G, W, np.arange(40), np.full(40, reg * l1_ratio), g_b)
    # and the objective is not lowered by moving towards a random direction
    Xs = standardise(X)

    def penalty(W):
        return reg * (l1_ratio * np.linalg.norm(W, axis=1).sum()
                      + (1 - l1_ratio) * np.sum(W * W))

    best = multinomial_objective(Xs, y, W, b, penalty)
    rng = np.random.default_rng(0)
    for _ in range(20):
        step = rng.normal(size=W.shape) * 1e-3
        assert multinomial_objective(Xs, y, W + step, b, penalty) >= best - 1e-9


def test_group_lasso_solution_satisfies_the_grouped_multinomial_kkt_conditions():
    """λ Σ_g √p_g ‖W_g‖_F over blocks of a group's features × the K classes."""
    X, y = linear_classes(2, n_classes=4, n=60, d=36)
    labels = np.repeat(np.arange(12), 3)  # informative features 0..4 in groups 0 and 1
    reg = 4.0
    selector = GroupLassoSelector(groups=labels, reg=reg, tol=1e-10).fit(X, y)
    W, b = full_weights(selector), selector.intercept_
    G, g_b = multinomial_gradient(standardise(X), y, W, b)
    assert_group_kkt(G, W, labels, reg * np.sqrt(np.full(12, 3.0)), g_b)
    selected_groups = np.unique(labels[selector.support_])
    assert {0, 1} <= set(selected_groups) and selected_groups.size < 12
    assert np.all(selector.support_ == np.isin(labels, selected_groups))  # whole groups


def test_group_fista_solves_the_multinomial_from_any_start():
    """The public solver, from a random start, with a ridge and unequal multiplicities."""
    X, y = linear_classes(3, n_classes=3, n=40, d=8)
    Xs = standardise(X)
    signs = np.where(y[:, None] == np.unique(y)[None, :], 1.0, -1.0)
    c = np.random.default_rng(1).integers(1, 4, size=40).astype(float)
    local = np.array([0, 0, 1, 1, 2, 3, 4, 4])
    thresholds = np.array([3.0, 2.0, 5.0, 1.0, 2.0])
    rng = np.random.default_rng(2)
    W, b, _ = group_fista(Xs, signs, c, local, thresholds, rng.normal(size=(8, 3)),
                          rng.normal(size=3), ridge=0.5, tol=1e-11)
    assert W.shape == (8, 3) and b.shape == (3,)
    norms = np.sqrt(np.bincount(local, weights=np.sum(W * W, axis=1)))
    assert np.any(norms == 0) and np.any(norms > 0)  # both kinds of condition are tested
    members = (signs > 0).astype(float)
    residual = c[:, None] * (softmax(Xs @ W + b, axis=1) - members)
    G = Xs.T @ residual + 2 * 0.5 * W
    assert_group_kkt(G, W, local, thresholds, residual.sum(axis=0), rtol=1e-7)


def test_singleton_groups_are_the_grouped_lasso_with_three_classes():
    X, y = linear_classes(4, n_classes=3, n=60, d=30)
    lasso = ElasticNetSelector(reg=5.0, tol=1e-10).fit(X, y)
    group = GroupLassoSelector(reg=5.0, tol=1e-10).fit(X, y)
    np.testing.assert_array_equal(lasso.support_, group.support_)
    np.testing.assert_allclose(lasso.coef_, group.coef_, atol=1e-7)
    np.testing.assert_allclose(lasso.intercept_, group.intercept_, atol=1e-7)


def test_saga_is_refused_with_more_than_two_classes_and_tagged_binary():
    X, y = linear_classes(5, d=10)
    selector = ElasticNetSelector(reg=1.0, solver="saga")
    with pytest.raises(InvalidInputError, match="Only binary classification is supported "
                                                "with solver='saga'"):
        selector.fit(X, y)
    assert not selector.__sklearn_tags__().classifier_tags.multi_class
    binary = y != y[0]
    assert selector.fit(X[binary], y[binary]).coef_.ndim == 1  # two classes: the binary path


# ---------------------------------------------------------------- the fitted selectors


@pytest.mark.parametrize("n_classes", [3, 4])
@pytest.mark.parametrize("make", [
    lambda: ElasticNetSelector(target_features=LINEAR_INFORMATIVE),
    lambda: ElasticNetSelector(l1_ratio=0.7, target_features=LINEAR_INFORMATIVE),
    lambda: GroupLassoSelector(groups=np.arange(60), target_features=LINEAR_INFORMATIVE),
    lambda: ElasticNetSelector(target_features=LINEAR_INFORMATIVE, final_reg=1.0),
], ids=["lasso", "elastic_net", "group_lasso", "lasso_l2_refit"])
def test_informative_features_are_selected_with_shapes_of_k_classes(make, n_classes):
    X, y = linear_classes(6, n_classes=n_classes)
    selector = make().fit(X, y)
    K, k = n_classes, LINEAR_INFORMATIVE
    assert np.flatnonzero(selector.support_).tolist() == list(range(LINEAR_INFORMATIVE))
    assert selector.coef_.shape == (K, k) and selector.intercept_.shape == (K,)
    decision = selector.decision_function(X)
    assert decision.shape == (len(y), K)
    proba = selector.predict_proba(X)
    assert proba.shape == (len(y), K)
    np.testing.assert_allclose(proba.sum(axis=1), 1)
    predicted = selector.predict(X)
    np.testing.assert_array_equal(predicted, selector.classes_[np.argmax(decision, axis=1)])
    np.testing.assert_array_equal(predicted, selector.classes_[np.argmax(proba, axis=1)])
    assert set(predicted) <= set(selector.classes_)
    assert selector.score(X, y) > 0.8  # chance: 1/K
    assert np.all(selector.importances_ >= 0)
    assert np.all(selector.importances_[~selector.support_] == 0)
    assert np.all(selector.importances_[selector.support_] > 0)
    assert sorted(selector.rank_order_) == list(range(1, 61))
    assert set(np.flatnonzero(selector.rank_order_ <= k)) == set(range(LINEAR_INFORMATIVE))


def test_multinomial_probabilities_are_the_softmax_and_importances_the_class_norms():
    X, y = linear_classes(7, n_classes=4)
    selector = ElasticNetSelector(target_features=LINEAR_INFORMATIVE).fit(X, y)
    assert selector.multinomial_
    np.testing.assert_allclose(selector.predict_proba(X),
                               softmax(selector.decision_function(X), axis=1))
    norms = np.linalg.norm(selector.coef_, axis=0)
    np.testing.assert_allclose(selector.importances_[selector.support_],
                               norms.size * norms / norms.sum())
    # the intercepts are centred: the multinomial is unchanged by a common shift
    assert abs(selector.intercept_.sum()) < 1e-8


def test_l2_refit_is_one_vs_rest_scikit_learn_logistic_per_class():
    """final_reg: the package's L2 logistic (C = 1/(2 final_reg)) on the selected features,
    one binary model per class against the rest, as scikit-learn's."""
    X, y = linear_classes(8, n_classes=3)
    final_reg = 0.7
    selector = ElasticNetSelector(target_features=LINEAR_INFORMATIVE,
                                  final_reg=final_reg).fit(X, y)
    assert not selector.multinomial_
    Xs = standardise(X)[:, selector.support_]
    for k, label in enumerate(selector.classes_):
        reference = LogisticRegression(C=1 / (2 * final_reg), tol=1e-12, max_iter=10_000)
        reference.fit(Xs, y == label)
        np.testing.assert_allclose(selector.coef_[k], reference.coef_[0], rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(selector.intercept_[k], reference.intercept_[0], atol=1e-6)
    sigmoid = 1 / (1 + np.exp(-selector.decision_function(X)))
    np.testing.assert_allclose(selector.predict_proba(X),
                               sigmoid / sigmoid.sum(axis=1, keepdims=True))


def test_nothing_selected_predicts_the_class_frequencies():
    X, y = linear_classes(9, n_classes=3, n=60)
    y = y.copy()
    y[:6] = "class a"  # unequal class sizes
    frequencies = np.unique(y, return_counts=True)[1] / len(y)
    for final_reg in (None, 1.0):
        selector = ElasticNetSelector(reg=1e6, final_reg=final_reg).fit(X, y)
        assert selector.n_selected_ == 0 and selector.coef_.shape == (3, 0)
        np.testing.assert_allclose(selector.predict_proba(X[:2]), [frequencies] * 2)


def test_wine_and_iris():
    X, y = load_wine(return_X_y=True)
    wine = ElasticNetSelector(target_features=5).fit(X, y)
    assert wine.n_selected_ == 5 and wine.score(X, y) > 0.9
    # proline (12) and flavanoids (6) or od280 (11): the wine classes' best separators
    assert wine.support_[12] and (wine.support_[6] or wine.support_[11])
    X, y = load_iris(return_X_y=True)
    iris = GroupLassoSelector(target_features=2).fit(X, y)
    assert np.flatnonzero(iris.support_).tolist() == [2, 3]  # petal length and width
    assert iris.score(X, y) > 0.8  # the penalised model at the λ where the second enters
    assert iris.set_params(final_reg=0.01).fit(X, y).score(X, y) > 0.95


# --------------------------------------------------------------------- calibration


def bootstrap(n, M, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, n, n) for _ in range(M)]


@pytest.mark.slow
@pytest.mark.parametrize("make", [
    lambda: ElasticNetSelector(target_features=8),
    lambda: ElasticNetSelector(l1_ratio=0.6, target_features=8),
    lambda: GroupLassoSelector(groups=np.arange(60) // 2, target_features=8),
], ids=["lasso", "elastic_net", "group_lasso"])
def test_calibration_sets_the_mean_count_over_bootstrap_runs_with_three_classes(make):
    X, y = linear_classes(10, n_classes=3)
    samples = bootstrap(len(y), 12)
    selector = make()
    with warnings.catch_warnings():
        warnings.simplefilter("error", CalibrationWarning)
        reg = selector.calibrate(X, y, samples)["reg"]
    counts = [make().set_params(reg=reg).fit(X[rows], y[rows]).n_selected_
              for rows in samples]
    assert abs(np.mean(counts) - 8) <= 1


def test_single_fit_calibration_selects_the_target_with_four_classes():
    X, y = linear_classes(11, n_classes=4)
    for target in (3, 7, 12):
        assert ElasticNetSelector(target_features=target).fit(X, y).n_selected_ == target


@pytest.mark.parametrize("name", ["lasso", "elastic_net", "group_lasso"])
def test_calibration_with_a_prefilter_with_three_classes(name):
    """Every metric with K classes: tests/test_protocol.py."""
    X, y = linear_classes(12, n_classes=3, n=60, d=20)
    selector = SELECTORS[name].make(target_features=4)
    prefiltered = run_protocol(selector, X, y, runs=5, prefilter=10, random_state=0,
                               progress=False)  # calibrated on each run's own columns
    assert abs(prefiltered.selection_matrix.sum(axis=1).mean() - 4) <= 1


# ----------------------------------------------------------------------- invariance


@settings(max_examples=10)
@given(st.integers(0, 2**31), st.permutations(range(4)))
def test_relabelling_the_classes_does_not_change_the_selection(seed, permutation):
    """The grouped penalty is symmetric in the classes: permuting the labels permutes the
    rows of the weights and intercepts and changes nothing else."""
    X, y = linear_classes(seed % 1000, n_classes=4, n=48, d=20)
    classes = np.unique(y)
    relabelled = classes[np.asarray(permutation)][np.searchsorted(classes, y)]
    first = ElasticNetSelector(reg=4.0, tol=1e-10).fit(X, y)
    second = ElasticNetSelector(reg=4.0, tol=1e-10).fit(X, relabelled)
    np.testing.assert_array_equal(first.support_, second.support_)
    rows = np.asarray(permutation)  # old class k is new class permutation[k]
    np.testing.assert_allclose(second.coef_[rows], first.coef_, atol=1e-7)
    np.testing.assert_allclose(second.intercept_[rows], first.intercept_, atol=1e-7)
    np.testing.assert_array_equal(
        second.predict(X), classes[np.asarray(permutation)][np.searchsorted(classes,
                                                                           first.predict(X))])
