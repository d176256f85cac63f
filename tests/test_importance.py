"""The decision-flip importance (000 eq. 6, 003 eq. 9): Theorem 1, edge cases, errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.neighbors import KNeighborsClassifier
from threadpoolctl import threadpool_limits

from paretostab import InvalidInputError
from paretostab._importance import decision_flip_importance, flip_distances, linear_importance


def standardised(rng, n, k):
    X = rng.normal(size=(n, k)) * rng.uniform(0.2, 5, size=k) + rng.normal(size=k)
    return (X - X.mean(axis=0)) / X.std(axis=0)


def linear(w, b):
    return lambda Z: Z @ w + b > 0


@settings(max_examples=30)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 150), k=st.integers(1, 12),
       zeros=st.integers(0, 3))
def test_theorem_1_linear_models_on_unit_variance_features(seed, n, k, zeros):
    """003 Theorem 1: I(f) = ‖w‖₀ |w_f| / ‖w‖₁ = I_lin, to the bisection tolerance, also
    with zero weights (they never flip a decision: k_P = ‖w‖₀)."""
    rng = np.random.default_rng(seed)
    X = standardised(rng, n, k)
    w = rng.normal(size=k) * rng.choice([0.1, 1.0, 10.0], size=k)
    w[rng.permutation(k)[: min(zeros, k - 1)]] = 0.0
    b = rng.normal()
    margin = np.abs(X @ w + b)
    bound = 2 * margin.max() / np.abs(w[w != 0]).min() + 1  # every flip within the bound
    rtol = 1e-9
    importance = decision_flip_importance(linear(w, b), X, rtol=rtol, max_change=bound,
                                          min_change=1e-12)
    np.testing.assert_allclose(importance, linear_importance(w), rtol=0, atol=10 * k * rtol)
    assert importance.sum() == pytest.approx(np.count_nonzero(w))


def test_flip_distances_of_a_linear_model_are_margin_over_weight():
    """δ(x_l, f) = |w·x_l + b| / |w_f| (proof of Theorem 1), in the units of X."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 6)) * [1, 2, 3, 0.5, 10, 1] + 4
    w = rng.normal(size=6)
    b = 0.7
    delta = flip_distances(linear(w, b), X, rtol=1e-8, max_change=1e6)
    expected = np.abs(X @ w + b)[:, None] / np.abs(w)
    np.testing.assert_allclose(delta, expected, rtol=2e-8)
    # never below the true δ: the returned change does flip the decision
    assert np.all(delta >= expected * (1 - 1e-12))


def test_unstandardised_features_weigh_by_their_standard_deviation():
    """σ_f / δ(x_l, f) = σ_f |w_f| / |D(x_l)|: I(f) = k_P σ_f|w_f| / Σ σ_f'|w_f'|."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 4)) * [0.5, 1, 2, 4]
    w = np.array([1.0, -2.0, 0.5, 0.25])
    importance = decision_flip_importance(linear(w, 0.1), X, rtol=1e-9, max_change=1e6)
    np.testing.assert_allclose(importance, linear_importance(w * X.std(axis=0)), atol=1e-7)
    # an explicit scale overrides the data's standard deviation
    scaled = decision_flip_importance(linear(w, 0.1), X, scale=np.ones(4), rtol=1e-9,
                                      max_change=1e6)
    np.testing.assert_allclose(scaled, linear_importance(w), atol=1e-7)


def test_a_feature_that_never_flips_the_decision_contributes_nothing():
    rng = np.random.default_rng(3)
    X = standardised(rng, 50, 3)
    importance = decision_flip_importance(lambda Z: Z[:, 0] > 0.1, X)
    # only feature 0 is used: k_P = 1, so it carries the whole importance
    np.testing.assert_array_equal(importance, [1.0, 0.0, 0.0])
    delta = flip_distances(lambda Z: Z[:, 0] > 0.1, X)
    assert np.all(np.isinf(delta[:, 1:]))
    assert np.all(np.isfinite(delta[:, 0]))


def test_a_constant_classifier_has_zero_importance():
    X = standardised(np.random.default_rng(4), 20, 3)
    importance = decision_flip_importance(lambda Z: np.zeros(len(Z), dtype=int), X)
    np.testing.assert_array_equal(importance, np.zeros(3))


def test_the_search_bound_and_examples_without_any_flip():
    """No flip within max_change · σ_f ⇒ δ = inf; examples where nothing flips are left out
    of the mean (their eq. 9 term is 0/0), so the importances still sum to k_P."""
    X = np.array([[0.2, 0.0], [-0.3, 1.0], [5.0, -1.0], [-6.0, 0.0]])
    sigma = np.array([1.0, 1.0])
    w, b = np.array([1.0, 0.5]), 0.0
    delta = flip_distances(linear(w, b), X, scale=sigma, rtol=1e-9, max_change=2.0)
    margin = np.abs(X @ w + b)
    expected = margin[:, None] / np.abs(w)
    expected[expected > 2.0] = np.inf
    np.testing.assert_allclose(delta, expected, rtol=1e-8)
    importance = decision_flip_importance(linear(w, b), X, scale=sigma, rtol=1e-9,
                                          max_change=2.0)
    # rows 0 and 1 are defined; rows 2 and 3 flip for no change within the bound
    local = 1 / expected[:2]
    share = local / local.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(importance, 2 * share.mean(axis=0), rtol=1e-7)
    assert importance.sum() == pytest.approx(2.0)


def at_most(limit, predict):
    """``predict``, failing on its call ``limit + 1``: a search that does not end fails the
    test instead of hanging it."""
    calls = []

    def counted(Z):
        calls.append(len(Z))
        assert len(calls) <= limit, f"predict called more than {limit} times"
        return predict(Z)

    return counted


@pytest.mark.parametrize("growth", [2.0, 1.5])
def test_an_example_on_the_boundary_flips_at_the_smallest_change(growth):
    """x₀ = 0 is on the boundary: any decrease flips it. The probes go down 1, 1/g, 1/g², …
    and stop at the first below g · min_change: δ is the smallest change probed, in
    [min_change, g · min_change) — never below min_change (probes 1/2, 1/4, … with g = 1.5
    would end at 2⁻²⁰ < 10⁻⁶). The longest search is that descent, at most ⌈log_g(10⁶)⌉ + 1
    probes, one predict call each after the first (the labels of X)."""
    X = np.array([[0.0, 1.0], [1.0, 2.0], [-1.0, 0.5]])
    probes = int(np.ceil(np.log(1e6) / np.log(growth))) + 1
    predict = at_most(1 + probes, lambda Z: Z[:, 0] >= 0)
    delta = flip_distances(predict, X, scale=np.ones(2), min_change=1e-6, growth=growth)
    assert 1e-6 <= delta[0, 0] < growth * 1e-6
    assert delta[1, 0] == pytest.approx(1.0, rel=1e-3)
    assert np.isinf(delta[0, 1])  # feature 1 never flips


def test_the_default_probes_double():
    """Probes at 1, 2, 4, … (growth 2, the default): the one at 2 lands in the flip region
    1.9 < x₀ < 2.1 and the bisection of [1, 2] finds 1.9 (to rtol 10⁻³, from above)."""
    delta = flip_distances(lambda Z: (Z[:, 0] > 1.9) & (Z[:, 0] < 2.1), np.zeros((1, 1)),
                           scale=np.ones(1))
    assert 1.9 <= delta[0, 0] <= 1.9 * (1 + 1e-3)


def test_a_smaller_probe_ratio_finds_a_narrow_flip_region():
    """The decision changes only on 1.05 < x₀ < 1.15: probes at 1, 2, 4, … jump over it
    (documented), probes at 1, 1.1, 1.21, … land in it and the bisection finds 1.05."""
    X = np.array([[0.0], [3.0]])

    def band(Z):
        return (Z[:, 0] > 1.05) & (Z[:, 0] < 1.15)

    coarse = flip_distances(band, X, scale=np.ones(1), rtol=1e-6)
    fine = flip_distances(band, X, scale=np.ones(1), rtol=1e-6, growth=1.1)
    assert np.isinf(coarse[0, 0])
    assert fine[0, 0] == pytest.approx(1.05, rel=1e-5)
    assert fine[1, 0] == pytest.approx(1.85, rel=1e-5)  # from 3: down to 1.15


def test_constant_features_are_not_searched():
    rng = np.random.default_rng(5)
    X = standardised(rng, 30, 3)
    X[:, 1] = 2.0
    calls = []

    def predict(Z):
        calls.append(Z.copy())
        return Z.sum(axis=1) > 0

    importance = decision_flip_importance(predict, X)
    assert importance[1] == 0
    assert importance.sum() == pytest.approx(2.0)
    probed = np.concatenate(calls[1:])
    assert np.all(probed[:, 1] == 2.0)  # the constant feature is never changed


@pytest.mark.slow
def test_knn_importances_sum_to_the_features_used_and_calls_are_batched():
    """k ≤ 20 features, n = 600: one predict call per search step for all examples,
    features and both directions — a few dozen calls, not one per example."""
    rng = np.random.default_rng(6)
    X = standardised(rng, 600, 20)
    y = (X[:, 0] + X[:, 1] - X[:, 2] + 0.5 * rng.normal(size=600) > 0).astype(int)
    knn = KNeighborsClassifier(n_neighbors=5, algorithm="brute").fit(X, y)
    sizes = []

    def predict(Z):
        sizes.append(len(Z))
        return knn.predict(Z)

    with threadpool_limits(1, user_api="openmp"):  # small batches: one thread is faster
        importance = decision_flip_importance(predict, X)
    assert len(sizes) <= 40
    assert max(sizes) <= 2 * 600 * 20
    assert importance.sum() == pytest.approx(np.count_nonzero(importance))
    assert np.all(importance >= 0)
    # the three informative features dominate
    assert set(np.argsort(-importance)[:3]) == {0, 1, 2}


def test_labels_of_any_type_and_inputs_untouched():
    rng = np.random.default_rng(7)
    X = standardised(rng, 40, 3)
    copy = X.copy()
    w = np.array([1.0, -1.0, 0.3])
    words = decision_flip_importance(
        lambda Z: np.where(Z @ w > 0, "tumour", "normal"), X, rtol=1e-6)
    numbers = decision_flip_importance(linear(w, 0.0), X, rtol=1e-6)
    np.testing.assert_array_equal(words, numbers)
    np.testing.assert_array_equal(X, copy)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"X": np.zeros((0, 3))}, r"X must be a non-empty 2-D array .* got shape \(0, 3\)"),
        ({"X": np.zeros(5)}, r"X must be a non-empty 2-D array .* got shape \(5,\)"),
        ({"X": np.array([[0.0, np.nan]])}, "X must contain only finite values"),
        ({"predict": "knn"}, "predict must be a callable returning labels; got 'knn'"),
        ({"predict": lambda Z: np.zeros((len(Z), 1))}, r"predict must return one label per row: shape \(4,\) .* got shape \(4, 1\)"),
        ({"rtol": 0}, r"rtol must be a number in \(0, 1\) .*; got 0"),
        ({"rtol": 1.5}, r"rtol must be a number in \(0, 1\)"),
        ({"max_change": np.inf}, "max_change must be a finite number > 0"),
        ({"min_change": -1.0}, "min_change must be a finite number > 0"),
        ({"min_change": 0.0}, r"min_change must be a finite number > 0 \(the smallest change probed\); got 0.0"),
        ({"max_change": 0}, r"max_change must be a finite number > 0 \(the search bound, in units of σ_f\); got 0"),
        ({"min_change": 10.0, "max_change": 5.0}, "min_change must be smaller than max_change; got min_change=10.0 and max_change=5.0"),
        ({"growth": 1.0}, r"growth must be a finite number > 1 \(the ratio between successive probes\); got 1.0"),
        ({"growth": "2"}, "growth must be a finite number > 1"),
        ({"scale": np.ones(3)}, "scale must hold 2 finite values >= 0"),
        ({"scale": np.array([1.0, -1.0])}, "scale must hold 2 finite values >= 0"),
    ],
)
def test_bad_inputs_raise_specific_errors(kwargs, message):
    # x₀ = 0 is on the boundary: a bound let through would search down to it, or forever
    args = {"predict": at_most(100, lambda Z: Z[:, 0] > 0), "X": np.arange(8.0).reshape(4, 2),
            **kwargs}
    with pytest.raises(InvalidInputError, match=message):
        decision_flip_importance(args.pop("predict"), args.pop("X"), **args)
