"""The L2-logistic core and the RFE selectors: agreement, semantics, errors."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.linear_model import LogisticRegression

from paretostab import InvalidInputError, ParetostabError
from paretostab.selectors import (
    SELECTORS,
    BiasedRFE,
    HybridRFE,
    get_selector,
    transfer_learning_rfe,
)
from paretostab.selectors._hybrid_rfe import univariate_order, welch_t
from paretostab.selectors._logistic import IncrementalL2Logistic, fit_l2_logistic


def problem(seed, n=60, d=300, informative=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 3, size=d) + rng.normal(size=d)
    y = (X[:, :informative] @ rng.normal(size=informative) + rng.normal(size=n) > 0).astype(int)
    return X, y


def sklearn_reference(X, y, reg, beta):
    # Newton-CG, not the default lbfgs: scikit-learn stops lbfgs once the objective changes by
    # less than 64 machine epsilons (its ftol), whatever tol says. When the data are separable
    # and the penalty is weak, the objective is near 0 and lbfgs stops early: 3 of 300 drawn
    # cases were off by more than 1e-4, e.g. seed 10, n 76, d 2000, lambda 0.01, intercept
    # 2e-4 off. Newton-CG was within 4e-8 on all 300 and faster; Newton-Cholesky was 50x slower.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = LogisticRegression(C=1 / (2 * reg), tol=1e-12, max_iter=100_000,
                                   solver="newton-cg").fit(X / beta, y)
    return model.coef_[0] / beta, model.intercept_[0]


@pytest.mark.slow
@settings(max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(10, 120),
       d=st.sampled_from([3, 20, 119, 120, 121, 400, 2000]), log_reg=st.floats(-2, 2))
@example(seed=10, n=76, d=2000, log_reg=-2.0)  # separable, weak penalty: lbfgs stopped early
def test_core_agrees_with_scikit_learn(seed, n, d, log_reg):
    """Coefficients to 1e-4 relative of LogisticRegression(C=1/(2λ)) on x/β, d < n and d ≫ n."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + rng.normal(size=n) > 0, 1.0, -1.0)
    if np.unique(y).size < 2:
        y[0] = -y[0]
    beta = rng.uniform(0.1, 3, size=d)
    reg = 10.0**log_reg
    coef, intercept = fit_l2_logistic(X, y, reg=reg, beta=beta, tol=1e-10)
    ref_coef, ref_intercept = sklearn_reference(X, y, reg, beta)
    scale = max(np.abs(ref_coef).max(), abs(ref_intercept))
    np.testing.assert_allclose(coef, ref_coef, rtol=0, atol=1e-4 * scale)
    assert intercept == pytest.approx(ref_intercept, abs=1e-4 * scale)


def test_downdated_fits_equal_fresh_fits_across_the_dual_primal_switch():
    rng = np.random.default_rng(0)
    n, d = 40, 300
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] - X[:, 1] + rng.normal(size=n) > 0, 1.0, -1.0)
    beta = rng.uniform(0.2, 2, size=d)
    model = IncrementalL2Logistic(X, y, reg=0.5, beta=beta, tol=1e-11)
    for n_drop in (50, 150, 70, 20, 5):  # 300 → 250 → 100 → 30 (primal) → 10 → 5
        model.fit()
        features = model.features
        fresh, fresh_b = fit_l2_logistic(X[:, features], y, reg=0.5, beta=beta[features],
                                         tol=1e-11)
        np.testing.assert_allclose(model.coef, fresh, atol=1e-7)
        assert model.intercept == pytest.approx(fresh_b, abs=1e-7)
        model.drop(np.argsort(np.abs(model.coef))[:n_drop])


def test_strong_shrinkage_still_converges():
    X, y = problem(1, n=50, d=400)
    beta = np.full(400, 1e-6)
    beta[::2] = 50.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        coef, _ = fit_l2_logistic((X - X.mean(0)) / X.std(0), np.where(y == 1, 1.0, -1.0),
                                  reg=1.0, beta=beta)
    assert np.all(np.isfinite(coef))


def test_elimination_schedule_drops_a_fraction_of_the_remaining_features():
    X, y = problem(2, d=100)
    selector = HybridRFE(n_features=10, step=0.2).fit(X, y)
    sizes, size = [], 100
    while size > 10:
        size -= min(max(1, math.floor(0.2 * size)), size - 10)
        sizes.append(size)
    # one ranking_ level per pruning step, the kept features at 1
    assert selector.ranking_.max() == len(sizes) + 1
    counts = np.bincount(selector.ranking_)[1:]
    dropped = -np.diff([100, *sizes])
    np.testing.assert_array_equal(counts, [10, *dropped[::-1]])


def test_fitted_attributes_are_consistent():
    X, y = problem(3)
    selector = HybridRFE(n_features=8, n_stable=3, epsilon=0.2).fit(X, y)
    d = X.shape[1]
    assert selector.support_.sum() == 8
    np.testing.assert_array_equal(selector.get_support(), selector.support_)
    np.testing.assert_array_equal(selector.transform(X), X[:, selector.support_])
    np.testing.assert_array_equal(np.sort(selector.rank_order_), np.arange(1, d + 1))
    kept = np.flatnonzero(selector.support_)
    assert set(selector.rank_order_[kept]) == set(range(1, 9))
    by_weight = kept[np.argsort(-np.abs(selector.coef_), kind="stable")]
    np.testing.assert_array_equal(selector.rank_order_[by_weight], np.arange(1, 9))
    # dropped later ⇒ better rank_order_
    dropped = np.flatnonzero(~selector.support_)
    later = selector.ranking_[dropped]
    order = selector.rank_order_[dropped]
    assert np.all(np.diff(later[np.argsort(order)]) >= 0)
    # importances: I_lin of the final model, 0 elsewhere, summing to ‖w‖₀
    assert selector.importances_[~selector.support_].sum() == 0
    assert selector.importances_.sum() == pytest.approx(np.count_nonzero(selector.coef_))
    np.testing.assert_allclose(selector.importances_[kept],
                               8 * np.abs(selector.coef_) / np.abs(selector.coef_).sum())
    # predictions of the final model on the standardised selected features
    Xs = (X[:, kept] - X[:, kept].mean(0)) / X[:, kept].std(0)
    decision = Xs @ selector.coef_ + selector.intercept_
    np.testing.assert_allclose(selector.decision_function(X), decision)
    np.testing.assert_array_equal(selector.predict(X), selector.classes_[(decision > 0) * 1])
    np.testing.assert_allclose(selector.predict_proba(X)[:, 1], 1 / (1 + np.exp(-decision)))
    assert selector.score(X, y) == np.mean(selector.predict(X) == y)


def test_final_model_is_the_l2_logistic_on_the_kept_features():
    X, y = problem(4)
    selector = HybridRFE(n_features=6, final_reg=0.3).fit(X, y)
    kept = selector.support_
    Xs = (X[:, kept] - X[:, kept].mean(0)) / X[:, kept].std(0)
    coef, intercept = sklearn_reference(Xs, y, 0.3, np.ones(6))
    np.testing.assert_allclose(selector.coef_, coef, atol=1e-5)
    assert selector.intercept_ == pytest.approx(intercept, abs=1e-5)


@pytest.mark.parametrize("criterion", ["variance", "welch_t", 0.3])
def test_stable_features_are_kept_and_n_stable_k_is_the_univariate_filter(criterion):
    X, y = problem(5)
    signs = np.where(y == 1, 1.0, -1.0)
    order = univariate_order(X, signs, criterion)
    hybrid = HybridRFE(n_features=10, n_stable=4, criterion=criterion).fit(X, y)
    assert hybrid.support_[order[:4]].all()
    filt = HybridRFE(n_features=10, n_stable=10, criterion=criterion).fit(X, y)
    np.testing.assert_array_equal(np.flatnonzero(filt.support_), np.sort(order[:10]))


def test_univariate_criteria():
    X, y = problem(6, d=50)
    signs = np.where(y == 1, 1.0, -1.0)
    t = stats.ttest_ind(X[y == 1], X[y == 0], equal_var=False).statistic
    np.testing.assert_allclose(welch_t(X, signs), np.abs(t))
    np.testing.assert_array_equal(univariate_order(X, signs, "variance"),
                                  np.argsort(-X.var(axis=0, ddof=1), kind="stable"))
    np.testing.assert_array_equal(univariate_order(X, signs, 1.0),
                                  univariate_order(X, signs, "welch_t"))


def test_frequency_score_of_a_constantly_ranked_feature():
    """003 eq. 15: a feature kept at rank r throughout has sc = (|F0|/k)(k−r+1)/(|F0|−r+1)."""
    X, y = problem(7, d=200)
    selector = HybridRFE(n_features=10, n_stable=3, criterion="variance").fit(X, y)
    signs = np.where(y == 1, 1.0, -1.0)
    stable = univariate_order(X, signs, "variance")[:3]
    for r, f in enumerate(stable, start=1):  # protected features keep ranks 1..N
        expected = 200 / 10 * (10 - r + 1) / (200 - r + 1)
        assert selector.frequency_scores_[f] == pytest.approx(expected)
    scores = selector.frequency_scores_
    assert np.all((scores[selector.support_] > 0) & (scores[selector.support_] <= 1 + 1e-12))
    assert np.all(scores[~selector.support_] == 0)


def test_alpha_shrinks_features_with_low_frequency_scores():
    X, y = problem(8)
    plain = HybridRFE(n_features=8, n_stable=2, alpha=0.0).fit(X, y)
    shrunk = HybridRFE(n_features=8, n_stable=2, alpha=5.0).fit(X, y)
    np.testing.assert_array_equal(plain.support_, shrunk.support_)
    sc = plain.frequency_scores_[plain.support_]
    kept = plain.support_
    Xs = (X[:, kept] - X[:, kept].mean(0)) / X[:, kept].std(0)
    beta = np.sqrt(1 + 5.0 * (1 - sc))  # λ_f Σ (1 + α(1 − sc_f)) w_f² = λ_f ‖β ⊙ w‖²
    coef, _ = sklearn_reference(Xs, y, 1.0, beta)
    np.testing.assert_allclose(shrunk.coef_, coef, atol=1e-5)


def test_constant_features_keep_working_with_zero_weight():
    X, y = problem(9, d=40)
    X[:, [0, 5]] = 3.0
    selector = HybridRFE(n_features=39, step=0.5).fit(X, y)
    assert not selector.support_[[0, 5]].all()  # one of the two zero-weight features left
    full = HybridRFE(n_features=40).fit(X, y)
    assert full.coef_[[0, 5]] == pytest.approx([0, 0], abs=1e-12)


def test_svm_rfe_uses_the_hinge_loss():
    X, y = problem(10)
    svm = HybridRFE(n_features=5, loss="hinge").fit(X, y)
    assert svm.support_.sum() == 5
    assert not hasattr(svm, "predict_proba")
    assert svm.score(X, y) > 0.7


def test_biased_rfe_draws_and_assigns_beta():
    X, y = problem(11, d=100)
    a = BiasedRFE(n_features=5, shape=0.5, random_state=3).fit(X, y)
    b = BiasedRFE(n_features=5, shape=0.5, random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.beta_, b.beta_)
    np.testing.assert_array_equal(a.support_, b.support_)
    assert a.beta_.mean() == pytest.approx(1.0, abs=1e-6)
    ranking = [7, 3, 42, 0]
    ranked = BiasedRFE(n_features=5, shape=0.5, prior=ranking, random_state=3).fit(X, y)
    smallest = np.sort(ranked.beta_)[:4]
    np.testing.assert_array_equal(ranked.beta_[ranking], smallest)
    chosen = BiasedRFE(n_features=5, shape=0.5, prior=ranking, prior_type="set",
                       random_state=3).fit(X, y)
    assert set(np.argsort(chosen.beta_)[:4]) == set(ranking)
    explicit = BiasedRFE(n_features=5, beta=np.linspace(0.5, 1.5, 100)).fit(X, y)
    np.testing.assert_array_equal(explicit.beta_, np.linspace(0.5, 1.5, 100))


def test_strong_bias_favours_the_prior_features():
    X, y = problem(12, d=200)
    prior = np.arange(100, 120)
    biased = BiasedRFE(n_features=10, shape=0.3, prior=prior, prior_type="set",
                       random_state=0).fit(X, y)
    unbiased = BiasedRFE(n_features=10, shape=1e4, prior=prior, prior_type="set",
                         random_state=0).fit(X, y)
    assert biased.support_[prior].sum() >= 5 > unbiased.support_[prior].sum()


def test_transfer_learning_biases_towards_earlier_selections():
    tasks = [problem(s, d=150) for s in (20, 21, 22, 23)]
    fitted = transfer_learning_rfe(tasks, transfer=2.0, n_features=10)
    assert len(fitted) == 4
    np.testing.assert_array_equal(fitted[0].beta_, np.ones(150))
    counts = fitted[0].support_.astype(float) + fitted[1].support_
    expected = np.exp(-2.0 * (2 * counts / 2 - 1))
    np.testing.assert_allclose(fitted[2].beta_, expected / expected.mean())
    independent = transfer_learning_rfe(tasks, transfer=0.0, n_features=10)
    overlap = [np.sum(f.support_ & fitted[0].support_) for f in fitted[1:]]
    overlap_independent = [np.sum(f.support_ & independent[0].support_) for f in independent[1:]]
    assert sum(overlap) > sum(overlap_independent)


def test_registry():
    assert {"hybrid_rfe", "logistic_rfe", "svm_rfe", "biased_rfe"} <= set(SELECTORS)
    svm = get_selector("svm_rfe").make(n_features=3)
    assert svm.loss == "hinge" and svm.n_stable == 0
    assert get_selector("hybrid_rfe").search_space["epsilon"].log
    with pytest.raises(ParetostabError, match="Did you mean 'hybrid_rfe'"):
        get_selector("hybrid_rf")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"n_features": 0}, r"n_features must be an integer in \[1, 30\]"),
        ({"n_features": 31}, r"n_features must be an integer in \[1, 30\]"),
        ({"n_features": 5, "n_stable": 6}, r"n_stable must be an integer in \[0, 5\]"),
        ({"reg": 0}, "reg must be a finite number > 0"),
        ({"final_reg": -1}, "final_reg must be a finite number > 0"),
        ({"epsilon": 0.0}, "epsilon must be a finite number > 0"),
        ({"step": 1.0}, r"step must be a number in \(0, 1\) \(the fraction"),
        ({"step": 0}, r"step must be a number in \(0, 1\) \(the fraction"),
        ({"criterion": "anova"}, "criterion must be 'variance', 'welch_t' or a weight"),
        ({"loss": "squared"}, "loss must be one of 'logistic', 'hinge'"),
        ({"alpha": -0.1}, "alpha must be a finite number >= 0"),
    ],
)
def test_bad_parameters_raise_specific_errors(params, message):
    X, y = problem(13, d=30)
    with pytest.raises(InvalidInputError, match=message):
        HybridRFE(**{"n_features": 5, **params}).fit(X, y)


def test_bad_data_raise_specific_errors():
    X, y = problem(14, d=30)
    with pytest.raises(InvalidInputError, match="got 1 class"):
        HybridRFE(n_features=5).fit(X, np.zeros(len(y)))
    bad = X.copy()
    bad[3, 7] = np.nan
    bad[4, 1] = np.inf
    with pytest.raises(InvalidInputError, match="2 NaN or inf value.*row 3, column 7"):
        HybridRFE(n_features=5).fit(bad, y)
    with pytest.raises(InvalidInputError, match="beta must hold 30 finite values > 0"):
        BiasedRFE(n_features=5, beta=np.ones(29)).fit(X, y)
    with pytest.raises(InvalidInputError, match="prior must list distinct feature indices"):
        BiasedRFE(n_features=5, prior=[1, 1]).fit(X, y)
    with pytest.raises(InvalidInputError, match="transfer must be a finite number >= 0"):
        transfer_learning_rfe([(X, y)], transfer=-1, n_features=5)


SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.mark.skipif(not (SHARED_DATA / "alon.csv.gz").exists(),
                    reason="../shared/data/alon.csv.gz (the shared benchmark data) is absent")
def test_hybrid_rfe_on_the_alon_microarray():
    import pandas as pd

    data = pd.read_csv(SHARED_DATA / "alon.csv.gz")
    X, y = data.drop(columns="label").to_numpy(), data["label"].to_numpy()
    selector = HybridRFE(n_features=20, n_stable=5, epsilon=0.1).fit(X, y)
    assert selector.support_.sum() == 20
    assert set(selector.classes_) == {"n", "t"}
    assert selector.score(X, y) > 0.9  # training accuracy of the final model


def test_distinct_rows_are_exact():
    from paretostab.selectors._base import distinct_rows

    rng = np.random.default_rng(15)
    X = rng.normal(size=(6, 20))
    X[3] = X[0]  # duplicate of row 0
    X[4] = X[0]
    X[4, 15] += 1e-12  # same first values, differs later: distinct
    X[5] = X[1]  # same row as 1 but another label: distinct
    y = np.array([1.0, -1.0, 1.0, 1.0, 1.0, 1.0])
    first, counts = distinct_rows(X, y)
    np.testing.assert_array_equal(first, [0, 1, 2, 4, 5])
    np.testing.assert_array_equal(counts, [2, 1, 1, 1, 1])


def test_weighted_core_equals_scikit_learn_sample_weight():
    rng = np.random.default_rng(16)
    X = rng.normal(size=(30, 200))
    y = np.where(X[:, 0] + rng.normal(size=30) > 0, 1.0, -1.0)
    weights = rng.integers(1, 4, size=30).astype(float)
    coef, intercept = fit_l2_logistic(X, y, reg=0.7, weights=weights, tol=1e-11)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = LogisticRegression(C=1 / 1.4, tol=1e-12, max_iter=100_000).fit(
            X, y, sample_weight=weights)
    np.testing.assert_allclose(coef, ref.coef_[0], atol=1e-6)
    assert intercept == pytest.approx(ref.intercept_[0], abs=1e-6)


def test_bootstrap_duplicates_give_the_same_fit_as_distinct_weighted_rows():
    X, y = problem(17, d=200)
    idx = np.random.default_rng(0).integers(0, len(y), len(y))
    boot = HybridRFE(n_features=10).fit(X[idx], y[idx])
    reordered = np.argsort(idx, kind="stable")  # the same multiset of rows, another order
    again = HybridRFE(n_features=10).fit(X[idx][reordered], y[idx][reordered])
    np.testing.assert_array_equal(boot.support_, again.support_)
    np.testing.assert_allclose(boot.coef_, again.coef_, atol=1e-8)
