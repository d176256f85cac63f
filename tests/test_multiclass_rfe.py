"""The RFE family with K > 2 classes (issue 20): one-vs-rest models eliminated by the norm
of the per-class weights (Guyon et al. 2002's multi-class SVM-RFE), the ANOVA F of the
hybrid RFE's supervised criterion, and the kernel SVM-RFE's eq. 8 summed over one-vs-rest
SVMs — each checked against an independent computation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.datasets import load_iris, load_wine
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.svm import SVC, LinearSVC

from paretostab.selectors import (
    BiasedRFE,
    HybridRFE,
    KernelSVMRFE,
    TrainingSample,
    transfer_learning_rfe,
)
from paretostab.selectors._base import standardise
from paretostab.selectors._hybrid_rfe import class_separation, welch_anova_f, welch_t
from paretostab.selectors._logistic import fit_l2_logistic
from paretostab.selectors._rfe import n_dropped
from tests.multiclass import RFE_INFORMATIVE, RFES, rfe_classes, rfe_selector
from tests.reference.criteria import welch_anova_loop

# ------------------------------------------------------------ the fitted selectors


@pytest.mark.parametrize("name", RFES)
def test_multiclass_selection_prediction_and_importances(name):
    X, y = rfe_classes(0)
    model = rfe_selector(name, random_state=0) if name == "biased_rfe" else rfe_selector(name)
    model.fit(X, y)
    K = 4
    assert set(np.flatnonzero(model.support_)) == set(range(RFE_INFORMATIVE))
    decision = model.decision_function(X)
    assert decision.shape == (len(y), K)
    assert np.array_equal(model.predict(X), model.classes_[np.argmax(decision, axis=1)])
    assert set(model.predict(X)) <= set(model.classes_)
    X_test, y_test = rfe_classes(0, n=400)
    assert model.score(X_test, y_test) > 0.7  # chance: 0.25
    assert np.all(model.importances_ >= 0)
    assert np.all(model.importances_[~model.support_] == 0)
    assert np.all(model.importances_[model.support_] > 0)
    assert sorted(model.rank_order_) == list(range(1, X.shape[1] + 1))
    assert set(model.rank_order_[model.support_]) == set(range(1, RFE_INFORMATIVE + 1))
    if name == "kernel_svm_rfe":
        assert len(model.estimator_) == K
        assert not hasattr(model, "predict_proba")
        return
    assert model.coef_.shape == (K, RFE_INFORMATIVE) and model.intercept_.shape == (K,)
    if model.loss == "logistic":
        proba = model.predict_proba(X)
        assert proba.shape == (len(y), K)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        assert np.array_equal(model.classes_[np.argmax(proba, axis=1)], model.predict(X))
    else:
        assert not hasattr(model, "predict_proba")


@pytest.mark.parametrize("name", RFES)
@pytest.mark.parametrize("data", [load_wine, load_iris])
def test_wine_and_iris_are_classified_well_above_chance(name, data):
    X, y = data(return_X_y=True)
    model = (rfe_selector(name, k=3, random_state=0) if name == "biased_rfe"
             else rfe_selector(name, 3))
    model.fit(X, y)
    assert model.support_.sum() == 3
    assert model.decision_function(X).shape == (len(y), 3)
    assert model.score(X, y) > 0.85  # chance: 1/3


def test_transfer_learning_runs_on_three_class_tasks():
    tasks = [rfe_classes(seed, n_classes=3) for seed in (3, 4)]
    fitted = transfer_learning_rfe(tasks, transfer=1.0, n_features=RFE_INFORMATIVE)
    for model in fitted:
        assert model.coef_.shape == (3, RFE_INFORMATIVE)
        assert set(np.flatnonzero(model.support_)) == set(range(RFE_INFORMATIVE))


# ------------------------------------------------- Guyon's multi-class criterion


def guyon_rfe(X_std, signs, k, fit, step=0.2):
    """A direct loop of Guyon et al. 2002's multi-class RFE: at each step fit one binary
    model per one-vs-rest column from scratch (``fit(X, signs) -> K × m weights``), drop
    the features of smallest Σ_k w_kf² (ties: the higher index first)."""
    features = np.arange(X_std.shape[1])
    while features.size > k:
        coef = fit(X_std[:, features], signs)
        criterion = (coef ** 2).sum(axis=0)
        order = np.lexsort((np.arange(features.size), -criterion))
        features = np.sort(features[order[: features.size - n_dropped(step, features.size, k)]])
    return features


def logistic_ovr(X, signs, reg):
    return fit_l2_logistic(X, signs, reg=reg)[0]


def hinge_ovr(X, signs, reg):
    return np.array([LinearSVC(C=1 / (2 * reg), loss="hinge", dual=True, tol=1e-6,
                               max_iter=100_000, random_state=0).fit(X, column).coef_[0]
                     for column in signs.T])


@pytest.mark.parametrize("loss", ["logistic", "hinge"])
@pytest.mark.parametrize("n_classes", [3, 5])
def test_the_elimination_is_guyons_multiclass_criterion(loss, n_classes):
    X, y = rfe_classes(5, n_classes=n_classes, n=60, d=40)
    k, reg = 8, 0.5
    model = HybridRFE(n_features=k, reg=reg, final_reg=reg, loss=loss).fit(X, y)
    X_std = standardise(X)[0]
    signs = TrainingSample(X, y).signs
    fit = logistic_ovr if loss == "logistic" else hinge_ovr
    kept = guyon_rfe(X_std, signs, k, lambda Z, s: fit(Z, s, reg))
    np.testing.assert_array_equal(np.flatnonzero(model.support_), kept)
    coef = fit(X_std[:, kept], signs, reg)
    np.testing.assert_allclose(model.coef_, coef, rtol=1e-4, atol=1e-6)
    norm = np.sqrt((coef ** 2).sum(axis=0))
    np.testing.assert_allclose(model.importances_[kept], k * norm / norm.sum(), rtol=1e-4)


def test_the_first_gram_is_shared_and_left_unmodified():
    X, y = rfe_classes(6, n=40, d=120)
    sample = TrainingSample(X, y)
    gram = sample.distinct_gram
    before = gram.copy()
    HybridRFE(n_features=5, n_stable=3, epsilon=0.2).fit_sample(sample)
    np.testing.assert_array_equal(gram, before)


@pytest.mark.slow
@settings(max_examples=15)
@given(seed=st.integers(0, 10_000), permutation=st.permutations(range(4)),
       name=st.sampled_from(["hybrid_rfe", "logistic_rfe", "svm_rfe", "kernel_svm_rfe"]))
def test_relabelling_the_classes_leaves_the_selection_unchanged(seed, permutation, name):
    X, y = rfe_classes(seed, n=48, d=30)
    labels = np.unique(y)
    relabelled = labels[permutation][np.searchsorted(labels, y)]
    first = rfe_selector(name, 5).fit(X, y)
    second = rfe_selector(name, 5).fit(X, relabelled)
    np.testing.assert_array_equal(first.support_, second.support_)
    np.testing.assert_allclose(first.importances_, second.importances_, rtol=1e-6, atol=1e-9)
    np.testing.assert_array_equal(first.predict(X), labels[np.argsort(permutation)][
        np.searchsorted(labels, second.predict(X))])


@pytest.mark.parametrize("seed", range(3))
def test_biased_rfe_draws_the_same_beta_whatever_the_number_of_classes(seed):
    X, y = rfe_classes(seed, n_classes=3)
    binary = np.where(y == y[0], "one", "rest")
    assert np.array_equal(BiasedRFE(random_state=seed).fit(X, y).beta_,
                          BiasedRFE(random_state=seed).fit(X, binary).beta_)


# ------------------------------------------------------ the univariate criterion


@pytest.mark.parametrize("n_classes", [3, 4, 6])
def test_the_k_class_criterion_is_welchs_anova(n_classes):
    """The hybrid RFE's supervised criterion and the t-test filter share it: Welch's ANOVA
    F (Welch 1951), transliterated per feature; its degenerate limits."""
    X, y = rfe_classes(7, n_classes=n_classes, n=66, d=20)
    X[:, 10] = 3.0  # constant: 0
    index = np.unique(y, return_inverse=True)[1]
    X[:, 11] = index  # constant within each class, means differ: inf
    value = class_separation(X, TrainingSample(X, y).signs)
    keep = np.ones(20, dtype=bool)
    keep[[10, 11]] = False
    expected = [welch_anova_loop(X[:, f], index) for f in np.flatnonzero(keep)]
    np.testing.assert_allclose(value[keep], expected, rtol=1e-10)
    assert value[10] == 0 and value[11] == np.inf
    np.testing.assert_array_equal(value, welch_anova_f(X, index))


def test_the_supervised_criterion_of_two_classes_is_welchs_t_itself():
    X, y = rfe_classes(8, n_classes=2)
    signs = TrainingSample(X, y).signs
    assert np.array_equal(class_separation(X, signs), welch_t(X, signs))


@pytest.mark.parametrize("criterion", ["welch_t", 0.4])
def test_the_stable_set_of_k_classes_ranks_by_welchs_anova(criterion):
    X, y = rfe_classes(9, n_classes=3, d=30)
    index = np.unique(y, return_inverse=True)[1]
    f = np.array([welch_anova_loop(X[:, j], index) for j in range(X.shape[1])])
    if criterion == "welch_t":
        expected = np.argsort(-f, kind="stable")
    else:
        d = X.shape[1]
        mix = (criterion * stats.rankdata(f) / d
               + (1 - criterion) * stats.rankdata(X.var(axis=0, ddof=1)) / d)
        expected = np.lexsort((np.arange(d), -mix))
    model = HybridRFE(n_features=5, n_stable=5, criterion=criterion).fit(X, y)
    np.testing.assert_array_equal(np.flatnonzero(model.support_), np.sort(expected[:5]))


# ------------------------------------------------ the kernel SVM-RFE, eq. 8 over OvR


def brute_force_eq8(X, column, counts, params):
    """|W²(α) − W²_{−f}(α)| of one binary SVC, from kernel matrices recomputed without f."""
    svm = SVC(C=1 / 2, tol=1e-5, **params).fit(X, column, sample_weight=counts)
    sv, coef = svm.support_vectors_, svm.dual_coef_[0]
    options = {key: value for key, value in params.items() if key != "kernel"}

    def w2(Z):
        return coef @ pairwise_kernels(Z, metric=params["kernel"], filter_params=True,
                                       **options) @ coef
    whole = w2(sv)
    return svm, np.abs([whole - w2(np.delete(sv, f, axis=1)) for f in range(X.shape[1])])


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
def test_kernel_svm_rfe_sums_eq8_over_one_vs_rest_svms(kernel):
    X, y = rfe_classes(10, n_classes=3, n=45, d=8)
    k = 8  # no elimination: the final SVMs on every feature
    model = KernelSVMRFE(n_features=k, kernel=kernel, reg=1.0, final_reg=1.0).fit(X, y)
    sample = TrainingSample(X, y)
    X_distinct, signs, counts = sample.distinct
    params = {"kernel": kernel, "gamma": model.gamma_, "degree": 3, "coef0": 0.0}
    fits = [brute_force_eq8(X_distinct, column, counts, params) for column in signs.T]
    expected = np.sum([value for _, value in fits], axis=0)
    np.testing.assert_allclose(model.margin_importances_, expected, rtol=1e-6, atol=1e-10)
    X_std = (X - model.mean_) / model.scale_
    np.testing.assert_allclose(
        model.decision_function(X),
        np.column_stack([svm.decision_function(X_std) for svm, _ in fits]), rtol=1e-8)


def test_linear_kernel_svm_rfe_eliminates_by_the_summed_squared_weights():
    X, y = rfe_classes(11, n_classes=4, n=60, d=20)
    k = 6
    model = KernelSVMRFE(n_features=k, kernel="linear").fit(X, y)
    X_distinct, signs, counts = TrainingSample(X, y).distinct

    def svc_weights(Z, s):
        return np.array([SVC(kernel="linear", C=0.5, tol=1e-5)
                         .fit(Z, column, sample_weight=counts).coef_[0] for column in s.T])
    kept = guyon_rfe(X_distinct, signs, k, svc_weights)
    np.testing.assert_array_equal(np.flatnonzero(model.support_), kept)
