"""Subset measures: Nogueira's φ and its interval, Kuncheva, and stabm's catalogue."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paretostab import StabilityWarning, nogueira_interval, stability
from paretostab._errors import InvalidInputError
from tests.reference.subset import PAIRWISE, SET_LEVEL, nogueira_variance

ALL = {**PAIRWISE, **SET_LEVEL}


@pytest.mark.parametrize("name", sorted(ALL))
@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), M=st.integers(2, 8), d=st.integers(2, 20))
def test_matches_set_based_definition(name, seed, M, d):
    rng = np.random.default_rng(seed)
    Z = rng.random((M, d)) < rng.uniform(0.05, 0.95)
    expected = ALL[name](Z) if _defined(name, Z) else np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StabilityWarning)
        value = stability(name, Z)
    assert value == pytest.approx(expected, abs=1e-10, nan_ok=True)


def _defined(name, Z):
    M, d = Z.shape
    k = Z.sum(axis=1)
    if name in {"nogueira", "kuncheva"}:
        return 0 < k.mean() < d
    if name in {"davis", "novovicova"}:
        return Z.any()
    if name == "somol":
        return Z.any() and not np.all(k == d)
    return True


def test_stabm_example_feature_sets():
    """stabm's documentation example: feats = list(1:3, 1:4, 1:5), p = 10."""
    feats = [range(0, 3), range(0, 4), range(0, 5)]
    assert stability("jaccard", feats, n_features=10) == pytest.approx((3 / 4 + 3 / 5 + 4 / 5) / 3)
    assert stability("dice", feats, n_features=10) == pytest.approx(
        (6 / 7 + 6 / 8 + 8 / 9) / 3
    )
    assert stability("davis", feats, n_features=10) == pytest.approx(12 / (3 * 5))
    assert stability("davis", feats, n_features=10, penalty=1.0) == pytest.approx(
        12 / 15 - 4 / 10
    )
    assert stability("hamming", feats, n_features=10) == pytest.approx(
        ((3 + 6) / 10 + (3 + 5) / 10 + (4 + 5) / 10) / 3
    )


def test_lustgarten_identical_runs_do_not_reach_one():
    Z = np.zeros((3, 10), dtype=bool)
    Z[:, :2] = True
    assert stability("lustgarten", Z) == pytest.approx(1 - 2 / 10)


def test_kuncheva_equals_nogueira_for_constant_k():
    rng = np.random.default_rng(0)
    Z = np.zeros((7, 30), dtype=bool)
    for i in range(7):
        Z[i, rng.choice(30, 6, replace=False)] = True
    assert stability("kuncheva", Z) == pytest.approx(stability("nogueira", Z), abs=1e-12)


def test_nogueira_limit_case_of_000_eq2():
    """000 §2: toggling inside two pairs of features gives φ → 1/3 as d → ∞."""
    d = 100_000
    Z = np.zeros((4, d), dtype=bool)
    Z[[0, 2], 0] = Z[[1, 3], 1] = True
    Z[[0, 1, 2], 2] = Z[3, 3] = True
    # with p = (1/2, 1/2, 3/4, 1/4): φ = 1 − (4/3)·(1/4+1/4+3/16+3/16)/2 = 5/12 for M = 4;
    # the paper's 1/3 is its M → ∞ limit (unbiased variance factor M/(M−1)).
    assert stability("nogueira", Z) == pytest.approx(1 - 4 / 3 * (7 / 8) / 2, abs=1e-3)


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), M=st.integers(2, 15), d=st.integers(2, 25))
def test_nogueira_variance_matches_the_authors_code(seed, M, d):
    rng = np.random.default_rng(seed)
    Z = rng.random((M, d)) < rng.uniform(0.1, 0.9)
    Z[0, 0], Z[1, -1] = True, False
    result = nogueira_interval(Z, alpha=0.1)
    assert result.variance == pytest.approx(nogueira_variance(Z), abs=1e-12)
    assert result.value == pytest.approx(stability("nogueira", Z))
    half = 1.6448536269514722 * np.sqrt(result.variance)
    assert (result.lower, result.upper) == pytest.approx((result.value - half, result.value + half))


def test_nogueira_variance_estimates_the_sampling_variance():
    """Simulation: the estimated variance is close to φ's variance across repetitions.

    The sign SPEC §2 prescribes matters: with the opposite sign the estimate is larger
    than the simulated variance by far more than this tolerance.
    """
    rng = np.random.default_rng(42)
    d, M = 40, 60
    p = np.r_[np.full(8, 0.9), np.full(8, 0.4), np.full(24, 0.05)]
    phis, variances = [], []
    for _ in range(1500):
        Z = rng.random((M, d)) < p
        result = nogueira_interval(Z)
        phis.append(result.value)
        variances.append(result.variance)
    assert np.mean(variances) == pytest.approx(np.var(phis), rel=0.15)


def test_nogueira_interval_rejects_bad_alpha_and_undefined_phi():
    Z = np.eye(3, dtype=bool)
    with pytest.raises(InvalidInputError, match="alpha"):
        nogueira_interval(Z, alpha=1.5)
    with pytest.raises(InvalidInputError, match="k̄ = 0"):
        nogueira_interval(np.zeros((3, 3)))


def test_undefined_values_warn_with_their_cause():
    with pytest.warns(StabilityWarning, match=r"nogueira is undefined: no run selected any"):
        assert np.isnan(stability("nogueira", np.zeros((3, 5))))
    with pytest.warns(StabilityWarning, match="every run selected all d = 5"):
        assert np.isnan(stability("nogueira", np.ones((3, 5))))
    Z = np.array([[1, 0, 0], [0, 0, 0], [0, 0, 0]])
    with pytest.warns(StabilityWarning, match="two runs selected no feature"):
        assert np.isnan(stability("jaccard", Z))


def test_impute_nan_replaces_undefined_pairs():
    Z = np.array([[1, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    with pytest.warns(StabilityWarning, match="imputed 0.5 for 1 pair"):
        value = stability("jaccard", Z, impute_nan=0.5)
    assert value == pytest.approx((0 + 0 + 0.5) / 3)
    with pytest.warns(StabilityWarning, match="imputed 0.0"):
        assert stability("nogueira", np.zeros((2, 3)), impute_nan=0.0) == 0.0


def test_somol_is_undefined_when_its_minimal_and_maximal_consistency_coincide():
    """M = 2, d = 3, one run selecting one feature and the other none: q = 1, c_min = c_max
    = 0 (issue 24: without the guard, 0 / 0)."""
    with pytest.warns(StabilityWarning, match="coincide"):
        assert np.isnan(stability("somol", np.array([[1, 0, 0], [0, 0, 0]])))


def test_wald_of_a_run_that_selects_every_feature_is_undefined_and_says_why():
    """min(n1, n2) − n1n2/d = 0 when a run selects all d features: the pair is undefined
    (not a 0/0 of floats), and the warning names the cause."""
    Z = np.array([[1, 1, 1, 1], [1, 0, 1, 0], [0, 1, 1, 0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no 0/0 is computed
        with pytest.warns(StabilityWarning, match="the larger run selected all features"):
            assert np.isnan(stability("wald", Z))


@pytest.mark.parametrize("alpha", [0, 0.0, 1, 1.5, -0.1, "0.05", None])
def test_nogueira_interval_refuses_alpha_outside_0_1(alpha):
    Z = np.array([[1, 0, 1, 0], [1, 1, 0, 0], [0, 1, 1, 0]])
    with pytest.raises(InvalidInputError, match=r"alpha must be a number in \(0, 1\)"):
        nogueira_interval(Z, alpha=alpha)
