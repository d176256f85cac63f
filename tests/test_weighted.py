"""φ_iw and φ_pears against the papers' worked results and plain definitions."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paretostab import StabilityWarning, stability
from paretostab.measures import normalise_importances
from paretostab.measures._weighted import chance_overlap
from tests.reference.weighted import (
    algorithm2_chance,
    chance_double_loop,
    correlation,
    iw_double_loop,
    iw_frequency_form,
    iw_terms_exact,
    normalise,
    pearson_pairs,
    pearson_terms_exact,
)


def random_importances(rng, M, d, density=0.3, allow_empty=False):
    Z = rng.random((M, d)) < density
    if not allow_empty:
        Z[np.arange(M), rng.integers(0, d, M)] = True
    return Z * rng.uniform(0.05, 2.0, size=(M, d))


def figure6(M: int, d: int) -> np.ndarray:
    """003 Fig. 6: 15 features always selected (2/3 each), 5 features per run never shared (2 each)."""
    I = np.zeros((M, d))
    I[:, :15] = 2 / 3
    for i in range(M):
        I[i, 15 + 5 * i : 20 + 5 * i] = 2.0
    return I


def test_figure6_values():
    I = figure6(M=10, d=200_000)
    assert stability("nogueira", I > 0) == pytest.approx(0.75, abs=1e-3)
    assert stability("pearson", I) == pytest.approx(0.25, abs=1e-3)
    assert stability("iw", I) == pytest.approx(0.5, abs=1e-3)


@pytest.mark.parametrize("q", [1, 2, 3, 5, 8, 20])
def test_table1_scenario1(q):
    """000 Table 1 top: φ = (q+1)/(q+3), φ_pears = (q+1)/(3q+1) as d → ∞."""
    d = 200_000
    k_bar = q + 3
    I = np.zeros((2, d))
    I[:, :q] = k_bar / (4 * q)  # the group G, selected whole in both runs
    I[:, q] = k_bar / 4  # the common feature g
    I[0, q + 1 : q + 3] = k_bar / 4  # run 1's own two features
    I[1, q + 3 : q + 5] = k_bar / 4  # run 2's own two features
    assert stability("nogueira", I > 0) == pytest.approx((q + 1) / (q + 3), abs=1e-3)
    assert stability("kuncheva", I > 0) == pytest.approx((q + 1) / (q + 3), abs=1e-3)
    assert stability("pearson", I) == pytest.approx((q + 1) / (3 * q + 1), abs=1e-3)


@pytest.mark.parametrize("q", [1, 2, 3, 5, 8, 20])
def test_table1_scenario2_phi(q):
    """000 Table 1 bottom: φ = 1 − (q+3)/(q+7) when run 1 keeps one feature of the group."""
    d = 200_000
    Z = np.zeros((2, d), dtype=bool)
    Z[0, [0, q, q + 1, q + 2]] = True  # one feature of G, g, two own features
    Z[1, list(range(q + 1)) + [q + 3, q + 4]] = True  # all of G, g, two own features
    assert stability("nogueira", Z) == pytest.approx(1 - (q + 3) / (q + 7), abs=1e-3)


def test_theorem3_iw_equals_kuncheva_for_equal_importances_and_constant_k():
    rng = np.random.default_rng(3)
    for _ in range(20):
        M, d = rng.integers(2, 12), rng.integers(5, 60)
        k = rng.integers(1, d)
        Z = np.zeros((M, d), dtype=bool)
        for i in range(M):
            Z[i, rng.choice(d, size=k, replace=False)] = True
        assert stability("iw", Z) == pytest.approx(stability("kuncheva", Z), abs=1e-12)
        assert stability("kuncheva", Z) == pytest.approx(stability("nogueira", Z), abs=1e-12)


@settings(max_examples=60)
@given(seed=st.integers(0, 2**32 - 1), M=st.integers(2, 7), d=st.integers(2, 25),
       allow_empty=st.booleans())
def test_iw_matches_the_definition(seed, M, d, allow_empty):
    rng = np.random.default_rng(seed)
    I = random_importances(rng, M, d, density=rng.uniform(0.05, 0.9), allow_empty=allow_empty)
    if not I.any():
        I[0, 0] = 1.0
    assert stability("iw", I) == pytest.approx(iw_double_loop(I), abs=1e-10)


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), M=st.integers(2, 7), d=st.integers(2, 25))
def test_iw_frequency_form_eq10(seed, M, d):
    I = random_importances(np.random.default_rng(seed), M, d)
    assert stability("iw", I) == pytest.approx(iw_frequency_form(I), abs=1e-10)


@settings(max_examples=60)
@given(seed=st.integers(0, 2**32 - 1), M=st.integers(2, 9), d=st.integers(2, 40),
       allow_empty=st.booleans(), ties=st.booleans())
def test_chance_correction_against_algorithm2(seed, M, d, allow_empty, ties):
    """C by sorting equals 003 Algorithm 2 (merge over pairs) and the definition."""
    rng = np.random.default_rng(seed)
    I = random_importances(rng, M, d, density=rng.uniform(0.05, 0.9), allow_empty=allow_empty)
    if ties:
        I = np.round(I * 2) / 2  # many equal importances, inside and across runs
    if not I.any():
        I[0, 0] = 1.0
    I = normalise(I)
    assert chance_overlap(I) == pytest.approx(algorithm2_chance(I), abs=1e-10)
    assert chance_overlap(I) == pytest.approx(chance_double_loop(I), abs=1e-10)


def test_iw_empty_run_conventions():
    """003 §5: one empty run ⇒ both pair terms 0; both empty ⇒ both k̄."""
    I = np.array([[1.0, 2.0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]])
    assert stability("iw", I) == pytest.approx(iw_double_loop(I), abs=1e-12)
    k_bar = 2 / 3
    rand_01 = 0.0
    shared = [0.0, 0.0, k_bar]
    rand = [rand_01, 0.0, k_bar]
    C = np.mean(rand)
    assert stability("iw", I) == pytest.approx(np.mean(np.subtract(shared, rand)) / (k_bar - C))


def test_iw_undefined_cases_warn_and_impute():
    with pytest.warns(StabilityWarning, match="no run selected any feature"):
        assert np.isnan(stability("iw", np.zeros((3, 5))))
    full = np.ones((3, 4))
    with pytest.warns(StabilityWarning, match="all d = 4 features with equal importance"):
        assert stability("iw", full, impute_nan=1.0) == 1.0


def test_importance_rows_are_normalised_to_k_bar():
    """Scaling a run's importances does not change importance measures (SPEC §0)."""
    rng = np.random.default_rng(9)
    I = random_importances(rng, 6, 30)
    scaled = I * rng.uniform(0.1, 10, size=(6, 1))
    for name in ("iw", "pearson"):
        assert stability(name, scaled) == pytest.approx(stability(name, I), abs=1e-12)


def test_boolean_z_means_equal_importances():
    rng = np.random.default_rng(1)
    Z = rng.random((5, 20)) < 0.3
    Z[:, 0] = True
    assert stability("iw", Z) == pytest.approx(stability("iw", Z.astype(float)))
    assert stability("iw", [np.flatnonzero(r) for r in Z], n_features=20) == pytest.approx(
        stability("iw", Z)
    )


def test_pearson_matches_corrcoef_and_warns_on_constant_rows():
    rng = np.random.default_rng(2)
    I = random_importances(rng, 6, 25)
    assert stability("pearson", I) == pytest.approx(pearson_pairs(I), abs=1e-12)
    I[2] = 0.0
    with pytest.warns(StabilityWarning, match="constant"):
        assert np.isnan(stability("pearson", I))


# --------------------------------------------------------------------------- boundaries
# (issue 24: each case pins a tolerance or a guard that a small change would get wrong)


@pytest.mark.parametrize("scale", [1e-7, 1.0, 1e3, 1e6])
def test_pearson_is_undefined_for_a_constant_run_and_scale_free_otherwise(scale):
    """A run of equal importances has a variance of rounding only (4.4e-16 for 0.7 × 3):
    its pairs are undefined at any scale, while a varying run keeps its correlations when
    scaled (φ_pears is invariant to each run's scale)."""
    from paretostab.measures._weighted import pearson

    varying = np.array([[0.2, 0.5, 0.9], [0.9, 0.1, 0.3], [0.4, 0.4, 0.8]])
    constant = np.vstack([np.full(3, 0.7 * scale), varying[:2]])
    values = pearson(constant).values
    assert np.isnan(values[:2]).all() and np.isfinite(values[2])  # pairs (0,1), (0,2), (1,2)
    scaled = varying.copy()
    scaled[0] *= scale
    assert pearson(scaled).values == pytest.approx(pearson(varying).values, rel=1e-9)
    assert np.isfinite(pearson(scaled).values).all()


def test_pearson_is_undefined_for_a_constant_run_of_small_importances():
    """Four importances of 1e-4: the tolerance is relative to their sum of squares (4e-20),
    not absolute nor relative to a sum of cubes (4e-24), which shrinks faster than the
    rounding."""
    from paretostab.measures._weighted import pearson

    runs = np.vstack([np.full(4, 1e-4), [0.2, 0.5, 0.9, 0.1], [0.9, 0.1, 0.3, 0.4]])
    values = pearson(runs).values
    assert np.isnan(values[:2]).all() and np.isfinite(values[2])


def test_pearson_of_identical_and_reflected_runs_never_passes_its_bounds():
    """Rounding puts the correlation of a run with itself past 1 (1 + 2.2e-16) for about
    a quarter of these 200 runs, and with its reflection (max + min − run, correlation −1)
    past −1 for 85 of them: the values are clipped to the measure's bounds."""
    from paretostab.measures._weighted import pearson

    rng = np.random.default_rng(0)
    for _ in range(200):
        run = rng.random(rng.integers(3, 30))
        value = pearson(np.vstack([run, run])).values[0]
        assert value <= 1.0 and value == pytest.approx(1.0, abs=1e-15)
        value = pearson(np.vstack([run, run.max() + run.min() - run])).values[0]
        assert value >= -1.0 and value == pytest.approx(-1.0, abs=1e-13)


def test_iw_is_undefined_when_every_run_selects_every_feature_equally():
    """k̄ = C (003 Property 1): exactly for ones, and to rounding for 0.3 in 2 × 6, whose
    normalised importances leave k̄ − C = +2.7e-15 — undefined too, not a ratio of
    rounding errors. The rounding grows with k̄ (5.7e-14 for 0.3 in 2 × 50, 1.8e-11 in
    2 × 1000): the tolerance is relative to k̄ and to the sums C is the difference
    of."""
    with pytest.warns(StabilityWarning, match="equal importance"):
        assert np.isnan(stability("iw", np.ones((3, 4))))
    for shape in ((2, 6), (2, 50), (2, 1000)):
        with pytest.warns(StabilityWarning, match="equal importance"):
            assert np.isnan(stability("iw", np.full(shape, 0.3))), shape


def test_pearson_of_a_nearly_constant_run_is_still_defined():
    """A run varying by 1e-5 of its size (variance 2e-16 at importances near 1e-3) is not
    constant: the tolerance is relative to the run's sum of squares, so it correlates
    perfectly with a run that varies the same way (centred before the products, nothing
    cancels: 1e-5 was all the one-pass sums kept)."""
    from paretostab.measures._weighted import pearson

    near = 1e-3 * np.array([1.0, 1.0 + 1e-5, 1.0 + 2e-5])
    values = pearson(np.vstack([near, [1.0, 2.0, 3.0]])).values
    assert values[0] == pytest.approx(1.0, abs=1e-12)


# --------------------------------------------------------------------------- rounding
# (issue 37: each tolerance is the rounding error of the computation it guards, tested on
# both sides against exact rational arithmetic)

U = 2.0**-53  # the unit roundoff, written here apart from the package's


def gamma_n(n):
    """Higham's γ_n = nu/(1 − nu): the relative rounding error of a sum of n + 1 terms."""
    return n * U / (1 - n * U)


@settings(max_examples=300)
@given(n=st.integers(2, 40), base=st.floats(1e-6, 1e6), where=st.integers(0, 39),
       ulps=st.integers(0, 45).flatmap(lambda e: st.integers(0, 2**e)),
       seed=st.integers(0, 2**32 - 1))
def test_pearson_is_undefined_within_rounding_of_a_constant_run_and_exact_above(
        n, base, where, ulps, seed):
    """A run of n equal importances with one raised by some ulps, against a varying run.
    A constant run's computed mean is off by γ_n·μ, so its computed variance is at most
    T/4, T = (2γ_n)²·Σ I²: a run whose exact variance is below T/8 is constant to rounding
    (undefined), one above 2T is defined and equal to the exact correlation within the
    rounding bound T/(4·variance) + 8γ_n (the old 1e-12·Σ I² called a variance of 1e11·T
    constant)."""
    from paretostab.measures._weighted import pearson

    run = np.full(n, base)
    run[where % n] = base + ulps * np.spacing(base)
    partner = np.random.default_rng(seed).uniform(0.05, 2.0, n)
    covariance, variance, partner_variance = pearson_terms_exact(run, partner)
    tolerance = (2 * gamma_n(n)) ** 2 * float(sum(Fraction(x) ** 2 for x in run.tolist()))
    value = pearson(np.vstack([run, partner])).values[0]
    if variance <= tolerance / 8:
        assert np.isnan(value)
    elif variance >= 2 * tolerance:
        exact = correlation(covariance, variance, partner_variance)
        bound = tolerance / 4 / float(variance) + 8 * gamma_n(n)
        assert value == pytest.approx(exact, abs=bound)


def test_pearson_calls_the_largest_rounding_of_a_constant_run_constant():
    """Of 200 000 constant runs of 3 to 33 importances in [0.5, 2], three of 0.66667140685...
    leave the largest computed variance relative to the tolerance: 1/16 of it (its mean is
    off by two roundings). Undefined, with the factor 16 the tolerance keeps for the worst
    case of sums in other orders."""
    from paretostab.measures._weighted import pearson

    run = np.full(3, 0.6666714068572064)
    centred = run - run.sum() / 3
    assert (centred**2).sum() == pytest.approx((2 * gamma_n(3)) ** 2 * (run**2).sum() / 16,
                                               rel=1e-3)
    assert np.isnan(pearson(np.vstack([run, [0.2, 0.5, 0.9]])).values[0])


@pytest.mark.parametrize("raised", [4e-5, 4e-6, 4e-7, 4e-8])
def test_pearson_of_ten_equal_importances_with_one_raised(raised):
    """The case of issue 37: ten equal importances, one raised, against linspace(1, 2, 10)
    correlate as e_0 does, −0.5222 at any raise; the old tolerance 1e-12·Σ I² gave −0.5222
    at 4e-6 but called 4e-7 (×10 on the tolerance: 4e-6) constant. Now each is defined and
    equals the exact correlation of the normalised floats (whose rounding moves it from
    e_0's by up to 1e-8 at 4e-8)."""
    runs = np.vstack([np.ones(10), np.linspace(1, 2, 10)])
    runs[0, 0] += raised
    normalised = normalise_importances(runs)
    exact = correlation(*pearson_terms_exact(normalised[0], normalised[1]))
    assert exact == pytest.approx(-0.5222329678670935, abs=1e-7)
    assert stability("pearson", runs) == pytest.approx(exact, abs=1e-12)


def pair_minima_sum(values):
    """Σ over unordered pairs of distinct entries of min(value, value'), by a double loop."""
    return sum(min(a, b) for i, a in enumerate(values) for b in values[i + 1:])


@settings(max_examples=150)
@given(M=st.integers(2, 4), d=st.integers(2, 12), base=st.floats(0.01, 100.0),
       raises=st.lists(st.tuples(st.integers(0, 47), st.integers(0, 40).flatmap(
           lambda e: st.integers(0, 2**e))), min_size=1, max_size=3),
       dropped=st.integers(0, 47))
def test_iw_is_undefined_within_rounding_of_k_bar_equal_to_c_and_exact_above(
        M, d, base, raises, dropped):
    """Runs of equal importances (one may miss a feature), some raised by a number of ulps,
    normalised: k̄ − C is 0 or tiny. C is a difference of two sums of pair minima of the
    N = Mk̄ values, each off by γ_N of its size: twice that bound with k̄ is the tolerance
    R. An exact k̄ − C below R/8 is undefined, one above 2R is defined and equal to the
    exact φ_iw within the bound R(1 + |φ|)/(k̄ − C − R) (the old 1e-12·k̄ was 80 times R
    at 2 × 6 and half of it at 2 × 1000)."""
    from paretostab.measures._inputs import UndefinedMeasure
    from paretostab.measures._weighted import iw

    raw = np.full((M, d), base)
    for where, ulps in raises:
        raw.flat[where % raw.size] += ulps * np.spacing(base)
    if dropped < raw.size:
        raw.flat[dropped] = 0.0  # a run that misses one feature (below 48: most draws)
    I = normalise_importances(raw)
    numerator, denominator = iw_terms_exact(I)
    values = [I[i][I[i] > 0].tolist() for i in range(M)]
    n_values, k_bar, pairs = sum(map(len, values)), np.count_nonzero(I) / M, M * (M - 1) / 2
    everything = pair_minima_sum([v for run in values for v in run])
    within = sum(pair_minima_sum(run) for run in values)
    rounding = 2 * gamma_n(n_values + 4) * (k_bar + (everything + within) / d / pairs)
    if denominator <= rounding / 8:
        with pytest.raises(UndefinedMeasure):
            iw(I)
    elif denominator >= 2 * rounding:
        exact = numerator / denominator
        bound = rounding * (1 + abs(exact)) / (float(denominator) - rounding)
        assert iw(I) == pytest.approx(float(exact), abs=bound)


def test_iw_calls_the_largest_rounding_of_k_bar_equal_to_c_undefined():
    """Of 20 000 normalised matrices of equal importances (2 to 5 runs of 2 to 39
    features), two runs of two features of 63.227... leave the largest k̄ − C relative to
    the tolerance, 1/24 of it: undefined, with the factor 24 the tolerance keeps for the
    worst case of sums in other orders."""
    with pytest.warns(StabilityWarning, match="equal importance"):
        assert np.isnan(stability("iw", np.full((2, 2), 63.22740971108938)))
