"""Pareto front, dominance area, the ParetoFront info object and the front drawer
(SPEC §5, 002 §3)."""

from __future__ import annotations

import io
import math
import subprocess
import sys
import warnings

import matplotlib
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.integrate import dblquad, nquad

from paretostab import InvalidInputError
from paretostab._weight import Weight
from paretostab.front import (
    GammaChoice,
    ParetoFront,
    as_points,
    choose,
    dominance_area,
    gamma_table,
    pareto_front,
    staircase,
)
from tests.extras import need

matplotlib.use("Agg", force=True)
from matplotlib.figure import Figure  # noqa: E402

from paretostab.plot import draw_front  # noqa: E402

# --------------------------------------------------------------------------- references


def brute_front(points) -> np.ndarray:
    """O(n²) front straight from the definition: not dominated by any row (both >=, one >)."""
    p = np.asarray(points, dtype=float)
    keep = []
    for i, q in enumerate(p):
        if np.isnan(q).any():
            continue
        dominated = any(
            not np.isnan(r).any() and r[0] >= q[0] and r[1] >= q[1] and (r[0] > q[0] or r[1] > q[1])
            for r in p
        )
        if not dominated:
            keep.append(i)
    keep = np.array(keep, dtype=np.intp)
    return keep[np.lexsort((keep, p[keep, 0]))] if keep.size else keep


def grid_area(points, reference, cells: int) -> float:
    """Area dominated inside [reference, reference + 1]², by counting cell centres."""
    p = np.asarray(points, dtype=float)
    p = p[~np.isnan(p).any(axis=1)]
    centres = reference[0] + (np.arange(cells) + 0.5) / cells
    a, phi = np.meshgrid(centres, reference[1] + (np.arange(cells) + 0.5) / cells)
    covered = np.zeros(a.shape, dtype=bool)
    for x, y in p:
        covered |= (a <= x) & (phi <= y)
    return covered.mean()


def shoelace(vertices: np.ndarray) -> float:
    x, y = vertices[:, 0], vertices[:, 1]
    return 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


# Points on a coarse grid (many ties and duplicates) or anywhere in [0, 1]², some NaN.
grid_values = st.integers(0, 6).map(lambda v: v / 6)
unit_values = st.floats(0, 1, allow_nan=False)
any_values = st.one_of(unit_values, st.just(np.nan), grid_values)


def point_sets(values=any_values, max_size=40):
    return st.integers(0, max_size).flatmap(
        lambda n: arrays(np.float64, (n, 2), elements=values))


# --------------------------------------------------------------------------- pareto_front


def test_front_small_example():
    p = np.array([[0.5, 0.5], [0.6, 0.4], [0.5, 0.5], [0.4, 0.6], [0.3, 0.3],
                  [np.nan, 1.0], [0.6, 0.2], [0.7, 0.1], [0.4, 0.55]])
    assert pareto_front(p).tolist() == [3, 0, 2, 1, 7]
    assert pareto_front(p).dtype == np.intp


def test_front_ties_in_one_objective():
    # same accuracy: only the most stable; same stability: only the most accurate
    assert pareto_front([[0.5, 0.2], [0.5, 0.9], [0.5, 0.9]]).tolist() == [1, 2]
    assert pareto_front([[0.2, 0.5], [0.9, 0.5], [0.1, 0.5]]).tolist() == [1]
    assert pareto_front([[0.3, 0.3]] * 4).tolist() == [0, 1, 2, 3]


def test_front_edge_cases():
    assert pareto_front(np.empty((0, 2))).tolist() == []
    assert pareto_front([]).tolist() == []
    assert pareto_front([[np.nan, np.nan], [0.1, np.nan]]).tolist() == []
    assert pareto_front([[0.2, 0.1]]).tolist() == [0]
    # a NaN row dominates nothing, infinities order as numbers
    assert pareto_front([[np.nan, 5.0], [1.0, 1.0]]).tolist() == [1]
    assert pareto_front([[np.inf, 0.0], [1.0, 1.0], [-np.inf, np.inf]]).tolist() == [2, 1, 0]


@pytest.mark.parametrize("bad", [np.zeros((3, 3)), np.zeros(4), [["a", "b"]], np.zeros((2, 2, 2))])
def test_front_rejects_bad_shapes(bad):
    with pytest.raises(InvalidInputError, match="points"):
        pareto_front(bad)


def test_inputs_not_mutated():
    rng = np.random.default_rng(0)
    p = rng.random((50, 2))
    p[3] = np.nan
    copy = p.copy()
    p.flags.writeable = False  # any write would raise
    pareto_front(p)
    dominance_area(p)
    staircase(p)
    np.testing.assert_array_equal(p, copy)


@pytest.mark.slow
@settings(max_examples=200)
@given(point_sets())
def test_front_matches_brute_force(points):
    np.testing.assert_array_equal(pareto_front(points), brute_front(points))


@settings(max_examples=150)
@given(point_sets())
def test_front_properties(points):
    front = pareto_front(points)
    p = points
    assert np.all(np.diff(p[front, 0]) >= 0)  # sorted by accuracy
    f = p[front]
    # mutually non-dominated
    ge = (f[:, None, 0] >= f[None, :, 0]) & (f[:, None, 1] >= f[None, :, 1])
    gt = (f[:, None, 0] > f[None, :, 0]) | (f[:, None, 1] > f[None, :, 1])
    assert not np.any(ge & gt)
    # every other valid point is dominated by (or equal to) some front point
    rest = np.setdiff1d(np.flatnonzero(~np.isnan(p).any(axis=1)), front)
    for q in p[rest]:
        assert np.any((f[:, 0] >= q[0]) & (f[:, 1] >= q[1]) & ((f[:, 0] > q[0]) | (f[:, 1] > q[1])))


@pytest.mark.slow
@settings(max_examples=100)
@given(point_sets(), st.randoms(use_true_random=False))
def test_front_invariant_to_order(points, random):
    perm = np.array(random.sample(range(len(points)), len(points)), dtype=np.intp)
    front = set(pareto_front(points).tolist())
    assert set(perm[pareto_front(points[perm])].tolist()) == front


def optuna_study(points):
    """An in-memory Optuna study maximising both objectives whose trial ``i`` has the
    values ``points[i]``: Optuna's public API as the reference."""
    import optuna
    from optuna.trial import create_trial

    study = optuna.create_study(directions=["maximize", "maximize"])
    study.add_trials([create_trial(values=list(v), params={}, distributions={})
                      for v in points.tolist()])
    return study


def test_front_against_optuna():
    rng = np.random.default_rng(1)
    for _ in range(20):
        p = np.round(rng.random((60, 2)), 1)  # many ties
        optuna_front = {t.number for t in optuna_study(p).best_trials}
        assert set(pareto_front(p).tolist()) == optuna_front


def test_front_is_fast():
    p = np.random.default_rng(2).random((200_000, 2))
    front = pareto_front(p)
    assert 1 <= front.size < 100


# --------------------------------------------------------------------------- dominance_area


def test_area_small_examples():
    assert dominance_area([[0.5, 0.5]]) == pytest.approx(0.25)
    assert dominance_area([[1.0, 1.0]]) == pytest.approx(1.0)
    assert dominance_area([[0.8, 0.5], [0.5, 0.8]]) == pytest.approx(0.8 * 0.5 + 0.5 * 0.3)
    # duplicates and dominated points add nothing
    assert dominance_area([[0.8, 0.5], [0.5, 0.8], [0.5, 0.8], [0.4, 0.4]]) == pytest.approx(0.55)
    assert dominance_area(np.empty((0, 2))) == 0.0
    assert dominance_area([[np.nan, 0.9]]) == 0.0


def test_area_reference():
    p = [[0.8, 0.5], [0.5, 0.8]]
    assert dominance_area(p, reference=(0.5, 0.5)) == 0.0  # nothing strictly dominates it
    assert dominance_area(p, reference=(0.2, 0.4)) == pytest.approx(0.3 * 0.4 + 0.3 * 0.1)
    # points not dominating the reference contribute nothing, even with a huge objective
    assert dominance_area([[0.5, 0.5], [-0.1, 10.0], [10.0, -0.2]]) == pytest.approx(0.25)
    assert dominance_area([[np.inf, 0.5]]) == np.inf
    for bad in [(0.0,), (np.nan, 0.0), "ab", (0.0, np.inf)]:
        with pytest.raises(InvalidInputError, match="reference"):
            dominance_area(p, reference=bad)


@settings(max_examples=60)
@given(point_sets(values=st.one_of(grid_values, st.just(np.nan)), max_size=12))
def test_area_equals_grid_count_on_grid_points(points):
    # corners on multiples of 1/6: counting 60×60 cell centres is exact
    assert dominance_area(points) == pytest.approx(grid_area(points, (0.0, 0.0), 60), abs=1e-12)


def test_area_monte_carlo():
    rng = np.random.default_rng(3)
    p = rng.beta(5, 2, size=(25, 2))
    samples = rng.random((200_000, 2))
    inside = np.any((samples[:, None, 0] <= p[None, :, 0]) & (samples[:, None, 1] <= p[None, :, 1]),
                    axis=1)
    assert dominance_area(p) == pytest.approx(inside.mean(), abs=4e-3)


@pytest.mark.slow
@settings(max_examples=100)
@given(point_sets(), point_sets(max_size=10), st.randoms(use_true_random=False))
def test_area_monotone_and_order_invariant(points, more, random):
    area = dominance_area(points)
    assert 0.0 <= area <= 1.0 + 1e-12
    assert dominance_area(np.vstack([points, more])) >= area - 1e-12
    perm = random.sample(range(len(points)), len(points))
    assert dominance_area(points[perm]) == pytest.approx(area, abs=1e-12)
    # only the front matters
    assert dominance_area(points[pareto_front(points)]) == pytest.approx(area, abs=1e-12)


@pytest.mark.slow
@settings(max_examples=100)
@given(point_sets(), st.tuples(st.floats(-0.5, 0.5), st.floats(-0.5, 0.5)))
def test_staircase_encloses_the_area(points, reference):
    corners = staircase(points, reference=reference)
    area = dominance_area(points, reference=reference)
    if corners.size == 0:
        assert area == 0.0
        return
    assert corners.shape[0] % 2 == 1
    assert np.all(np.diff(corners[:, 0]) >= 0) and np.all(np.diff(corners[:, 1]) <= 0)
    polygon = np.vstack([corners, reference])
    assert shoelace(polygon) == pytest.approx(area, abs=1e-9)


def test_staircase_worked_example():
    """Default reference (0, 0): from the φ axis across and down each front point to the
    accuracy axis; a dominated point adds no vertex. A reference cuts the points it does
    not dominate in both coordinates."""
    points = [[0.5, 0.8], [0.9, 0.3], [0.4, 0.2]]
    np.testing.assert_array_equal(
        staircase(points), [[0.0, 0.8], [0.5, 0.8], [0.5, 0.3], [0.9, 0.3], [0.9, 0.0]])
    np.testing.assert_array_equal(
        staircase(points, reference=(0.6, 0.1)), [[0.6, 0.3], [0.9, 0.3], [0.9, 0.1]])
    assert staircase(points, reference=(0.95, 0.0)).shape == (0, 2)


def _inside(points, reference):
    p = np.asarray(points, dtype=float)
    return p[np.all(p > np.asarray(reference), axis=1)]


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("reference", [(0.0, 0.0), (0.3, 0.1)])
@pytest.mark.filterwarnings("ignore::optuna.exceptions.ExperimentalWarning")
def test_area_against_optuna(seed, reference):
    """Optuna's hypervolume of all the trials: the last point of its hypervolume history."""
    import matplotlib.pyplot as plt
    from optuna.visualization.matplotlib import plot_hypervolume_history

    rng = np.random.default_rng(seed)
    p = np.round(rng.random((40, 2)), 2)
    with matplotlib.rc_context():  # Optuna's plots set a style of their own
        axes = plot_hypervolume_history(optuna_study(p), reference_point=list(reference))
    expected = axes.lines[0].get_ydata()[-1]
    plt.close(axes.figure)
    assert dominance_area(p, reference=reference) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("reference", [(0.0, 0.0), (0.3, 0.1)])
def test_against_moocore(seed, reference):
    moocore = need("moocore")
    rng = np.random.default_rng(seed)
    p = np.round(rng.random((40, 2)), 2)
    inside = _inside(p, reference)
    expected = moocore.hypervolume(inside, ref=reference, maximise=True) if inside.size else 0.0
    assert dominance_area(p, reference=reference) == pytest.approx(expected, abs=1e-12)
    mask = moocore.is_nondominated(p, maximise=True, keep_weakly=True)
    assert set(pareto_front(p).tolist()) == set(np.flatnonzero(mask).tolist())


# --------------------------------------------------------------------------- weighted DA


def exp_cdf(x: float, A: float) -> float:
    """The primitive of A e^{Ax}/(e^A − 1) from 0, by hand."""
    return (math.exp(A * x) - 1.0) / (math.exp(A) - 1.0)


def quad_area(points, w, reference=(0.0, 0.0)) -> float:
    """∫∫_{[r, 1]²} w · 1[dominated] by plain nested adaptive quadrature (scipy nquad): for
    each accuracy a, φ runs up to the highest stability of a point with accuracy ≥ a (the
    outer integrand jumps at the points' accuracies, given to quad as break points)."""
    p = np.minimum(np.asarray(points, dtype=float), 1.0)
    p = p[~np.isnan(p).any(axis=1)]

    def top(a):
        ok = p[:, 0] >= a
        return max(reference[1], p[ok, 1].max()) if ok.any() else reference[1]

    jumps = sorted({float(x) for x in p[:, 0] if reference[0] < x < 1.0})
    tight = {"epsabs": 1e-13, "epsrel": 1e-12}
    value, _ = nquad(lambda phi, a: w(a, phi), [lambda a: (reference[1], top(a)),
                                                 (reference[0], 1.0)],
                     opts=[tight, {**tight, "points": jumps, "limit": 200}])
    return value


def accuracy_density(A):
    return lambda a, phi: A * np.exp(A * a) / np.expm1(A) + 0.0 * phi


def stability_density(A):
    return lambda a, phi: A * np.exp(A * phi) / np.expm1(A) + 0.0 * a


STAIRS = [[0.8, 0.5], [0.5, 0.8]]


def test_weighted_area_by_hand():
    # strips [0, 0.5] × [0, 0.8] and [0.5, 0.8] × [0, 0.5]
    for A in (2.0, -1.5, 0.3):
        acc = exp_cdf(0.5, A) * 0.8 + (exp_cdf(0.8, A) - exp_cdf(0.5, A)) * 0.5
        stab = 0.5 * exp_cdf(0.8, A) + 0.3 * exp_cdf(0.5, A)
        assert dominance_area(STAIRS, weight=("accuracy", A)) == pytest.approx(acc, rel=1e-13)
        assert dominance_area(STAIRS, weight=("stability", A)) == pytest.approx(stab, rel=1e-13)
    # with a reference: [0.2, 0.5] × [0.1, 0.8] and [0.5, 0.8] × [0.1, 0.5]
    A = 3.0
    expected = ((exp_cdf(0.5, A) - exp_cdf(0.2, A)) * 0.7
                + (exp_cdf(0.8, A) - exp_cdf(0.5, A)) * 0.4)
    assert dominance_area(STAIRS, weight=("accuracy", A), reference=(0.2, 0.1)) == \
        pytest.approx(expected, rel=1e-13)
    expected = 0.3 * (exp_cdf(0.8, A) - exp_cdf(0.1, A)) + 0.3 * (exp_cdf(0.5, A) - exp_cdf(0.1, A))
    assert dominance_area(STAIRS, weight=("stability", A), reference=(0.2, 0.1)) == \
        pytest.approx(expected, rel=1e-13)
    # uniform, and A = 0 (its limit)
    assert dominance_area(STAIRS, weight="uniform") == pytest.approx(0.55)
    assert dominance_area(STAIRS, weight=("accuracy", 0)) == pytest.approx(0.55)
    assert dominance_area(STAIRS, weight=("stability", 1e-12)) == pytest.approx(0.55)
    # weight on high accuracy (002 Figure 2): the accurate point overtakes the stable one
    accurate, stable = [[0.9, 0.2]], [[0.3, 0.9]]
    assert dominance_area(accurate) < dominance_area(stable)
    assert dominance_area(accurate, weight=("accuracy", 5)) > \
        dominance_area(stable, weight=("accuracy", 5))
    assert dominance_area(accurate, weight=("stability", 5)) < \
        dominance_area(stable, weight=("stability", 5))


def test_weighted_area_extreme_strengths():
    # no overflow: A = 1000 puts (almost) all the weight at a = 1
    assert dominance_area([[1.0, 0.5]], weight=("accuracy", 1000)) == pytest.approx(0.5)
    assert dominance_area([[0.99, 1.0]], weight=("accuracy", 1000)) == pytest.approx(
        math.exp(-10), rel=1e-9)
    assert dominance_area([[0.01, 0.5]], weight=("stability", -1000)) == pytest.approx(
        0.01 * (1 - math.exp(-500)), rel=1e-9)
    assert dominance_area([[0.5, 0.5]], weight=("stability", 1e6)) == 0.0


@pytest.mark.parametrize("weight", ["uniform", ("accuracy", 2.5), ("stability", -3.0),
                                    ("accuracy", 0.0), lambda a, phi: 1.2 * (a + phi ** 2)])
def test_weight_integrating_to_one_gives_one_for_the_ideal_point(weight):
    assert dominance_area([[1.0, 1.0]], weight=weight) == pytest.approx(1.0, abs=1e-9)
    # beyond the objective space counts as its edge
    assert dominance_area([[3.0, 1.5], [0.2, 0.2]], weight=weight) == pytest.approx(1.0, abs=1e-9)
    assert dominance_area([[0.0, 1.0]], weight=weight) == 0.0
    assert 0.0 <= dominance_area(STAIRS, weight=weight) <= 1.0


def test_uniform_weight_vs_none():
    p = np.random.default_rng(4).random((30, 2))
    assert dominance_area(p, weight="uniform") == pytest.approx(dominance_area(p), abs=1e-14)
    # None is the plain hypervolume; a weight lives on [0, 1]²
    assert dominance_area([[1.2, 0.5]]) == pytest.approx(0.6)
    assert dominance_area([[1.2, 0.5]], weight="uniform") == pytest.approx(0.5)
    assert dominance_area([[np.inf, 0.5]], weight="uniform") == pytest.approx(0.5)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("reference", [(0.0, 0.0), (0.25, 0.1)])
def test_exponential_weights_against_quadrature(seed, reference):
    rng = np.random.default_rng(seed)
    p = rng.random((8, 2))
    A = rng.uniform(-4, 6)
    for axis, density in (("accuracy", accuracy_density(A)), ("stability", stability_density(A))):
        assert dominance_area(p, weight=(axis, A), reference=reference) == pytest.approx(
            quad_area(p, density, reference), abs=1e-10)


def _peak(a, phi):
    return np.exp(-((a - 0.8) ** 2 + (phi - 0.6) ** 2) / 0.02)


PEAK_MASS = dblquad(lambda phi, a: _peak(a, phi), 0, 1, 0, 1, epsabs=1e-14, epsrel=1e-13)[0]


@pytest.mark.parametrize("weight", [
    lambda a, phi: 1.2 * (a + phi ** 2),                      # polynomial, not separable
    lambda a, phi: _peak(a, phi) / PEAK_MASS,                 # a bump at (0.8, 0.6)
    lambda a, phi: 1.0,                                       # a scalar broadcasts
])
@pytest.mark.parametrize("seed", range(3))
def test_callable_weight_against_quadrature(weight, seed):
    rng = np.random.default_rng(10 + seed)
    p = np.vstack([rng.random((6, 2)), [[np.nan, 0.5]]])
    for reference in [(0.0, 0.0), (0.1, 0.3)]:
        assert dominance_area(p, weight=weight, reference=reference) == pytest.approx(
            quad_area(p, weight, reference), abs=1e-9)


def test_callable_weight_equal_to_closed_form():
    p = np.random.default_rng(5).random((12, 2))
    assert dominance_area(p, weight=accuracy_density(2.0)) == pytest.approx(
        dominance_area(p, weight=("accuracy", 2.0)), abs=1e-10)
    assert dominance_area(p, weight=stability_density(-1.0)) == pytest.approx(
        dominance_area(p, weight=("stability", -1.0)), abs=1e-10)
    assert dominance_area(np.empty((0, 2)), weight=lambda a, phi: 1.0 + 0 * a) == 0.0


def test_trivial_point():
    # (a_rand, 1): a fixed arbitrary subset, perfectly stable (002 §3)
    p = [[0.8, 0.5]]
    assert dominance_area(p, trivial_point=(0.3, 1.0)) == pytest.approx(0.3 * 1.0 + 0.5 * 0.5)
    assert dominance_area(p, trivial_point=0.3) == pytest.approx(0.55)  # a number: (a, 1)
    assert dominance_area(p, trivial_point=(0.9, 1.0)) == pytest.approx(0.9)  # dominates all
    assert dominance_area([[0.5, 1.0]], trivial_point=(0.3, 1.0)) == pytest.approx(0.5)
    assert dominance_area(np.empty((0, 2)), trivial_point=(0.5, 1.0)) == pytest.approx(0.5)
    assert dominance_area(p, trivial_point=(0.3, 1.0), weight=("accuracy", 2)) == \
        pytest.approx(exp_cdf(0.3, 2) + (exp_cdf(0.8, 2) - exp_cdf(0.3, 2)) * 0.5)
    for bad in [(0.3,), (np.nan, 1.0), "x", (0.3, np.inf), [[0.3, 1.0]]]:
        with pytest.raises(InvalidInputError, match="trivial_point"):
            dominance_area(p, trivial_point=bad)


@pytest.mark.parametrize("weight, match", [
    ("exponential", "weight must be None, 'uniform'"),
    (("size", 2.0), "axis must be 'accuracy' or 'stability'"),
    (("accuracy", np.nan), "finite real number"),
    (("accuracy", np.inf), "finite real number"),
    (("accuracy", "2"), "finite real number"),
    (("accuracy", True), "finite real number"),
    (("accuracy", 1.0, 2.0), "weight must be"),
    (2.0, "weight must be"),
    (lambda a, phi: a + phi, "integrate to 1 over"),              # integrates to 1
    (lambda a, phi: 2.0 * (a + phi), r"integrates to 2\.0"),
    (lambda a, phi: 1.001 * (a + phi), r"integrates to 1\.001"),  # past the 1e-6 tolerance
    (lambda a, phi: 4.0 * a - 1.0, "non-negative"),
    (lambda a, phi: np.where(a > 0.99, np.nan, 1.0), "finite, non-negative"),
    (lambda a: a, "calling it failed"),
    (lambda a, phi: np.ones(7), "calling it failed"),
])
def test_bad_weights(weight, match):
    if match == "integrate to 1 over":  # a + φ does integrate to 1: it is valid
        assert dominance_area([[1.0, 1.0]], weight=weight) == pytest.approx(1.0)
        return
    with pytest.raises(InvalidInputError, match=match):
        dominance_area(STAIRS, weight=weight)


def test_weight_needs_reference_in_unit_square():
    with pytest.raises(InvalidInputError, match=r"reference must lie in \[0, 1\]²"):
        dominance_area(STAIRS, weight="uniform", reference=(-0.1, 0.0))
    with pytest.raises(InvalidInputError, match="reference must lie"):
        dominance_area(STAIRS, weight=("accuracy", 1.0), reference=(0.0, 1.5))
    assert dominance_area(STAIRS, weight="uniform", reference=(1.0, 1.0)) == 0.0


def test_discontinuous_callable_weight_warns(monkeypatch):
    import paretostab.front as front_module

    monkeypatch.setattr(front_module, "_CUBATURE_MAX_SUBDIVISIONS", 300)  # fail fast

    def left_third(a, phi):  # jumps at a = 1/3, inside a strip
        return (a < 1 / 3) * 3.0

    with pytest.warns(RuntimeWarning, match="did not converge") as record:
        area = dominance_area([[0.5, 0.8]], weight=left_third)
    assert record[0].filename == __file__  # the caller's line, not the quadrature's
    assert area == pytest.approx(0.8, abs=1e-3)


def test_a_weights_normalisation_is_checked_to_within_its_own_quadrature_error(monkeypatch):
    """A weight with a jump at a = 0.9, outside the front's strip [0, 0.5]: the strip's
    integral is exact, the unit square's is off by 3.6e-5 with an error estimate of
    1.4e-4. The weight is not refused as not integrating to 1 (the miss is within the
    square's own error); the area is right and a warning says the quadrature did not
    converge."""
    import paretostab.front as front_module

    monkeypatch.setattr(front_module, "_CUBATURE_MAX_SUBDIVISIONS", 300)

    def up_to_09(a, phi):
        return (a < 0.9) / 0.9

    with pytest.warns(RuntimeWarning, match="did not converge"):
        area = dominance_area([[0.5, 0.8]], weight=up_to_09)
    assert area == pytest.approx(0.5 * 0.8 / 0.9, abs=1e-12)


def test_a_sharply_peaked_callable_weight_converges_to_its_exact_area():
    """A normal density of sd 0.03 centred in the square needs the cubature to subdivide
    many times; it converges without a warning to Φ(0.1/σ) Φ(0.05/σ) for the point
    (0.6, 0.55)."""
    from scipy.stats import norm

    sd = 0.03

    def peak(a, phi):
        return np.exp(-((a - 0.5) ** 2 + (phi - 0.5) ** 2) / (2 * sd**2)) / (2 * np.pi * sd**2)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        area = dominance_area([[0.6, 0.55]], weight=peak)
    assert area == pytest.approx(norm.cdf(0.1 / sd) * norm.cdf(0.05 / sd), abs=1e-9)


@pytest.mark.parametrize("seed", range(40))
def test_gamma_choices_are_the_upper_hull_of_the_front_by_brute_force(seed):
    """A front point is listed exactly when it maximises γa + (1 − γ)φ alone for some γ:
    when no other front point, nor any chord between two of them, reaches it — checked
    over a fine grid of γ on random concave and wavy fronts of 3–12 points."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 13))
    a = np.sort(rng.random(n))
    phi = np.sort(rng.random(n))[::-1]  # a front: stability falls as accuracy rises
    points = np.column_stack([a, phi])
    gammas = np.linspace(0.0, 1.0, 20001)
    scores = gammas[:, None] * a[None, :] + (1 - gammas[:, None]) * phi[None, :]
    best = scores.max(axis=1, keepdims=True)
    alone = (scores >= best - 1e-12).sum(axis=1) == 1
    winners = set(np.argmax(scores[alone], axis=1).tolist())
    assert {c.index for c in gamma_table(points)} == winners


def test_points_on_the_references_lines_are_not_drawn():
    """(0.8, 0) and (0, 0.7) do not strictly dominate the reference (0, 0): they add no
    area and no step to the staircase, whose only front point is (0.5, 0.5)."""
    alone = [[0.0, 0.5], [0.5, 0.5], [0.5, 0.0]]
    for points in ([[0.5, 0.5], [0.8, 0.0]], [[0.0, 0.7], [0.5, 0.5]]):
        assert staircase(points).tolist() == alone
        assert dominance_area(points) == 0.25


def test_weighted_inputs_not_mutated():
    p = np.random.default_rng(6).random((20, 2))
    copy = p.copy()
    p.flags.writeable = False
    dominance_area(p, weight=("accuracy", 2), trivial_point=(0.4, 1))
    dominance_area(p, weight=lambda a, phi: 1.0 + 0 * a)
    gamma_table(p)
    choose(p, 0.5)
    np.testing.assert_array_equal(p, copy)


# --------------------------------------------------------------------------- γ choice


def as_rows(table):
    return [(c.index, c.accuracy, c.stability, c.gamma_low, c.gamma_high) for c in table]


def test_gamma_table_by_hand():
    p = [[0.5, 0.9], [0.7, 0.8], [0.9, 0.5],
         [0.6, 0.85],   # on the segment (0.5, 0.9)–(0.7, 0.8): never the only winner
         [0.8, 0.6],    # on the front, inside the hull
         [0.4, 0.4]]    # dominated
    table = gamma_table(p)
    assert all(isinstance(c, GammaChoice) for c in table)
    with pytest.raises(AttributeError):
        table[0].gamma_low = 0.5  # frozen: a value, hashable
    assert len(set(table)) == 3
    # segment slopes |Δφ/ΔA|: 0.1/0.2 = 0.5 and 0.3/0.2 = 1.5 → γ = s/(1+s) = 1/3 and 0.6
    assert [c.index for c in table] == [0, 1, 2]
    np.testing.assert_allclose([c.gamma_low for c in table], [0, 1 / 3, 0.6])
    np.testing.assert_allclose([c.gamma_high for c in table], [1 / 3, 0.6, 1])
    np.testing.assert_allclose([c.willingness_low for c in table], [0, 0.5, 1.5])
    np.testing.assert_allclose([c.willingness_high for c in table], [0.5, 1.5, np.inf])
    assert [(c.accuracy, c.stability) for c in table] == [(0.5, 0.9), (0.7, 0.8), (0.9, 0.5)]
    assert choose(p, 0.0) == 0 and choose(p, 0.3) == 0
    assert choose(p, 0.5) == 1
    assert choose(p, 0.7) == 2 and choose(p, 1.0) == 2
    # at a breakpoint the more accurate point wins (intervals read as [low, high))
    assert choose(p, table[1].gamma_low) == 1
    assert choose(p, table[2].gamma_low) == 2


def test_gamma_willingness_is_the_exchange_rate():
    table = gamma_table(np.random.default_rng(7).random((200, 2)))
    for c in table:
        for g, w in ((c.gamma_low, c.willingness_low), (c.gamma_high, c.willingness_high)):
            assert w == pytest.approx(g / (1 - g) if g < 1 else np.inf)
    for left, right in zip(table[:-1], table[1:], strict=True):
        assert left.gamma_high == right.gamma_low
        assert left.willingness_high == right.willingness_low
        # moving to the more stable choice gives up Δa accuracy for Δφ stability
        d_a = right.accuracy - left.accuracy
        d_phi = left.stability - right.stability
        assert right.willingness_low == pytest.approx(d_phi / d_a)


def test_gamma_collinear_front():
    # all on the line a + φ = 1: only the endpoints win, switching at γ = 1/2
    p = np.column_stack([np.linspace(0.1, 0.9, 9), 1.0 - np.linspace(0.1, 0.9, 9)])
    table = gamma_table(p[::-1])  # order of the rows does not matter
    assert [c.index for c in table] == [8, 0]
    assert table[0].gamma_high == pytest.approx(0.5) and table[0].willingness_high == \
        pytest.approx(1.0)
    assert choose(p, 0.49) == 0 and choose(p, 0.51) == 8
    assert choose(p, table[1].gamma_low) == 8  # tie: the more accurate


def test_gamma_single_point_duplicates_and_nan():
    (only,) = gamma_table([[0.6, 0.4]])
    assert (only.index, only.gamma_low, only.gamma_high) == (0, 0.0, 1.0)
    assert (only.willingness_low, only.willingness_high) == (0.0, np.inf)
    for g in (0.0, 0.5, 1.0):
        assert choose([[0.6, 0.4]], g) == 0
    # duplicates: listed once, lowest index; dominated and NaN rows never chosen
    p = [[np.nan, 1.0], [0.3, 0.3], [0.8, 0.4], [0.5, 0.9], [0.8, 0.4], [0.5, 0.9], [0.2, 0.9]]
    table = gamma_table(p)
    assert [c.index for c in table] == [3, 2]
    assert choose(p, 0.0) == 3  # (0.2, 0.9) is as stable but dominated
    assert choose(p, 1.0) == 2
    assert gamma_table([[0.5, 0.5]] * 3)[0].index == 0
    assert gamma_table(np.empty((0, 2))) == ()
    assert gamma_table([[np.nan, 0.5]]) == ()


def test_gamma_bad_inputs():
    for bad in (-0.1, 1.1, np.nan, "0.5", True, None):
        with pytest.raises(InvalidInputError, match="gamma must be a number in"):
            choose([[0.5, 0.5]], bad)
    with pytest.raises(InvalidInputError, match="at least one"):
        choose([[np.nan, 0.5]], 0.5)
    with pytest.raises(InvalidInputError, match="finite"):
        gamma_table([[np.inf, 0.5], [0.2, 0.9]])
    with pytest.raises(InvalidInputError, match="points"):
        gamma_table(np.zeros((3, 3)))
    assert choose([[0.5, 0.5]], np.float32(0.25)) == 0 and choose([[0.5, 0.5]], 1) == 0


GAMMAS = np.linspace(0.0, 1.0, 401)


@pytest.mark.slow
@settings(max_examples=60)
@given(point_sets(max_size=30))
def test_choose_matches_brute_force(points):
    valid = points[~np.isnan(points).any(axis=1)]
    table = gamma_table(points)
    if valid.size == 0:
        assert table == ()
        return
    front = points[pareto_front(points)]
    indices = {c.index for c in table}
    lows = np.array([c.gamma_low for c in table])
    assert lows[0] == 0.0 and table[-1].gamma_high == 1.0
    assert np.all(np.diff(lows) > 0)
    assert np.all(np.diff([c.accuracy for c in table]) > 0)
    assert np.all(np.diff([c.stability for c in table]) < 0)
    assert set(indices) <= set(pareto_front(points).tolist())
    near_ties = np.clip(np.concatenate([lows - 1e-7, lows + 1e-7]), 0.0, 1.0)
    for g in np.concatenate([GAMMAS, lows, near_ties]):
        best = np.max(g * valid[:, 0] + (1 - g) * valid[:, 1])
        i = choose(points, g)
        assert i in indices
        assert g * points[i, 0] + (1 - g) * points[i, 1] >= best - 1e-12
        if np.min(np.abs(lows - g)) > 1e-9:  # away from a tie: the front's unique maximiser
            scores = g * front[:, 0] + (1 - g) * front[:, 1]
            winners = np.unique(front[scores >= best - 1e-13], axis=0)
            assert winners.shape[0] == 1
            np.testing.assert_array_equal(winners[0], points[i])
    # every listed point is the sole maximiser in the middle of its interval
    for c in table:
        g = 0.5 * (c.gamma_low + c.gamma_high)
        scores = g * valid[:, 0] + (1 - g) * valid[:, 1]
        assert g * c.accuracy + (1 - g) * c.stability >= scores.max() - 1e-12


# --------------------------------------------------------------------------- ParetoFront


def test_as_points_is_public_and_does_not_copy_a_float_array():
    p = np.zeros((3, 2))
    assert as_points(p) is p
    np.testing.assert_array_equal(as_points([[1, 2]]), [[1.0, 2.0]])
    assert as_points([]).shape == (0, 2)
    for bad in (np.zeros((3, 3)), [["a", "b"]]):
        with pytest.raises(InvalidInputError, match="points"):
            as_points(bad)


def assert_read_only(*arrays):
    for arr in arrays:
        assert not arr.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            arr[...] = 0


def test_pareto_front_info_field_by_field():
    p = np.array([[0.5, 0.5], [0.6, 0.4], [0.4, 0.6], [0.3, 0.3], [np.nan, 0.2], [0.5, 0.5]])
    front = ParetoFront.of(p)
    np.testing.assert_array_equal(front.points, p)
    assert front.points is not p
    assert front.rows.tolist() == [2, 0, 5, 1] and front.rows.dtype == np.intp
    np.testing.assert_array_equal(front.front_points, p[[2, 0, 5, 1]])
    assert front.trivial_point is None
    np.testing.assert_allclose(front.region, [[0.0, 0.6], [0.4, 0.6], [0.4, 0.5], [0.5, 0.5],
                                              [0.5, 0.4], [0.6, 0.4], [0.6, 0.0], [0.0, 0.0]])
    assert front.dominance_area == pytest.approx(0.4 * 0.6 + 0.1 * 0.5 + 0.1 * 0.4)
    assert front.dominance_area == dominance_area(p)
    assert front.weight is None
    np.testing.assert_array_equal(front.reference, [0.0, 0.0])
    assert_read_only(front.points, front.rows, front.front_points, front.region,
                     front.reference)
    with pytest.raises(AttributeError):
        front.rows = np.arange(2)  # frozen


def test_pareto_front_info_weighted_with_a_trivial_point():
    p = [[1.2, 0.5], [0.3, 0.8]]
    front = ParetoFront.of(p, weight=("accuracy", 2), trivial_point=0.2)
    assert front.rows.tolist() == [1, 0]
    # drawn through the points as they are, the trivial point in its place
    np.testing.assert_array_equal(front.front_points, [[0.2, 1.0], [0.3, 0.8], [1.2, 0.5]])
    np.testing.assert_array_equal(front.trivial_point, [0.2, 1.0])
    # the weighted region lies in the objective space [0, 1]²
    np.testing.assert_allclose(front.region, [[0.0, 1.0], [0.2, 1.0], [0.2, 0.8], [0.3, 0.8],
                                              [0.3, 0.5], [1.0, 0.5], [1.0, 0.0], [0.0, 0.0]])
    expected = exp_cdf(0.2, 2) + (exp_cdf(0.3, 2) - exp_cdf(0.2, 2)) * 0.8 + \
        (1.0 - exp_cdf(0.3, 2)) * 0.5
    assert front.dominance_area == pytest.approx(expected, rel=1e-13)
    assert front.dominance_area == dominance_area(p, weight=("accuracy", 2), trivial_point=0.2)
    assert front.weight == Weight("accuracy", 2.0)
    assert_read_only(front.trivial_point)
    # unweighted, the same points' region reaches past 1
    assert ParetoFront.of(p).region[:, 0].max() == 1.2
    # the trivial point off the front: not among the front points, drawn apart
    front = ParetoFront.of(p, trivial_point=(0.1, 0.7))
    np.testing.assert_array_equal(front.front_points, [[0.3, 0.8], [1.2, 0.5]])
    np.testing.assert_array_equal(front.trivial_point, [0.1, 0.7])


def test_pareto_front_info_with_given_rows_a_reference_and_a_callable_weight():
    p = np.array([[0.5, 0.9], [0.7, 0.2], [0.7, 0.6], [np.nan, 0.5], [0.2, 0.3]])

    def density(a, phi):
        return a + phi

    front = ParetoFront.of(p, rows=np.array([1, 3, 4, 2]), weight=density,
                           reference=(0.1, 0.1))
    # NaN rows left out; by accuracy, then down the staircase through equal accuracies
    assert front.rows.tolist() == [4, 2, 1]
    np.testing.assert_array_equal(front.front_points, p[[4, 2, 1]])
    # the area stays that of the points' own front
    assert front.dominance_area == pytest.approx(
        dominance_area(p, weight=density, reference=(0.1, 0.1)), abs=1e-12)
    np.testing.assert_allclose(front.region[[0, -1]], [[0.1, 0.9], [0.1, 0.1]])
    assert front.weight.function is density and front.weight.label == "density"
    np.testing.assert_array_equal(front.reference, [0.1, 0.1])
    # equal given rows are kept in their order; none: no front drawn
    assert ParetoFront.of(p, rows=[0, 0, 4]).rows.tolist() == [4, 0, 0]
    empty = ParetoFront.of(p, rows=[])
    assert empty.rows.shape == (0,) and empty.front_points.shape == (0, 2)
    assert empty.dominance_area == ParetoFront.of(p).dominance_area


def test_pareto_front_info_of_nothing():
    front = ParetoFront.of(np.empty((0, 2)), weight="uniform")
    assert front.points.shape == (0, 2) and front.rows.shape == (0,)
    assert front.front_points.shape == (0, 2) and front.region.shape == (0, 2)
    assert front.dominance_area == 0.0 and front.weight == Weight("uniform")
    front = ParetoFront.of([[np.nan, 0.5], [-0.2, 0.4]])
    assert front.rows.tolist() == [1] and front.region.shape == (0, 2)
    assert front.dominance_area == 0.0


def test_pareto_front_info_does_not_mutate_or_keep_its_inputs():
    p = np.random.default_rng(8).random((30, 2))
    p[4] = np.nan
    copy = p.copy()
    rows = np.array([5, 3, 9])
    reference = np.array([0.1, 0.05])
    p.flags.writeable = False
    for kwargs in ({}, {"weight": ("stability", -1), "trivial_point": (0.3, 1.0)},
                   {"rows": rows, "reference": reference}):
        front = ParetoFront.of(p, **kwargs)
        np.testing.assert_array_equal(p, copy)
    np.testing.assert_array_equal(rows, [5, 3, 9])
    np.testing.assert_array_equal(reference, [0.1, 0.05])
    assert rows.flags.writeable and reference.flags.writeable
    # a copy: changing the caller's array later does not change the front
    q = copy.copy()
    front = ParetoFront.of(q, reference=reference)
    q[:] = 0.0
    reference[:] = 0.5
    np.testing.assert_array_equal(front.points, copy)
    np.testing.assert_array_equal(front.reference, [0.1, 0.05])


@pytest.mark.parametrize("kwargs, match", [
    ({"rows": [-1]}, r"rows must hold row indices of points \(integers in \[0, 3\)\)"),
    ({"rows": [3]}, "rows must hold row indices"),
    ({"rows": [True]}, "rows must hold row indices"),
    ({"rows": [1.0]}, "rows must hold row indices"),
    ({"rows": ["a"]}, "rows must hold row indices"),
    ({"weight": "heavy"}, "weight must be None, 'uniform'"),
    ({"weight": ("accuracy", np.nan)}, "finite real number"),
    ({"reference": (0.0,)}, "reference"),
    ({"weight": "uniform", "reference": (-0.1, 0.0)}, r"reference must lie in \[0, 1\]²"),
    ({"trivial_point": (0.5, 1.0, 2.0)}, "trivial_point"),
])
def test_pareto_front_info_rejects_bad_input(kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        ParetoFront.of([[0.5, 0.5], [0.6, 0.4], [0.4, 0.6]], **kwargs)
    with pytest.raises(InvalidInputError, match="points"):
        ParetoFront.of(np.zeros((3, 3)))


@settings(max_examples=100)
@given(point_sets(), st.tuples(st.floats(0.0, 0.5), st.floats(0.0, 0.5)),
       st.sampled_from([None, "uniform", ("accuracy", 3.0), ("stability", -2.0)]))
def test_pareto_front_info_agrees_with_the_functions(points, reference, weight):
    front = ParetoFront.of(points, weight=weight, reference=reference)
    own = pareto_front(points)
    assert front.rows.tolist() == own.tolist()
    np.testing.assert_array_equal(front.front_points, points[own])
    assert front.dominance_area == dominance_area(points, weight=weight, reference=reference)
    clipped = points if weight is None else np.minimum(points, 1.0)
    corners = staircase(clipped, reference=reference)
    if corners.size == 0:
        assert front.region.shape == (0, 2) and front.dominance_area == 0.0
    else:
        np.testing.assert_array_equal(front.region, np.vstack([corners, reference]))
        if weight in (None, "uniform"):
            assert shoelace(front.region) == pytest.approx(front.dominance_area, abs=1e-9)


# --------------------------------------------------------------------------- draw_front


def test_draw_front_on_given_axes():
    before = dict(matplotlib.rcParams)
    fig = Figure()
    ax = fig.add_subplot()
    p = np.array([[0.5, 0.5], [0.6, 0.4], [0.4, 0.6], [0.3, 0.3], [np.nan, 0.2]])
    out = draw_front(ParetoFront.of(p), ax=ax, labels=[f"t{i}" for i in range(5)])
    assert out is ax
    assert len(ax.collections) >= 2  # all points + the outlined front points
    assert len(ax.lines) == 1  # the staircase
    np.testing.assert_allclose(ax.lines[0].get_xydata()[[0, -1]], [[0.4, 0.6], [0.6, 0.4]])
    assert len(ax.patches) == 1  # the shaded area
    assert len(ax.texts) == 4  # the NaN point is not annotated
    assert ax.get_xlabel() == "accuracy" and ax.get_ylabel() == "stability"
    labels = ax.get_legend_handles_labels()[1]
    assert "Pareto front" in labels
    assert f"dominance area = {dominance_area(p):.3f}" in labels
    fig.savefig(io.BytesIO(), format="png")  # renders
    assert dict(matplotlib.rcParams) == before


def test_draw_front_options_and_new_figure():
    import matplotlib.pyplot as plt

    before = dict(matplotlib.rcParams)
    fig = Figure()
    ax = fig.add_subplot()
    ax.set_xlabel("balanced accuracy")
    draw_front(ParetoFront.of([[0.5, 0.5], [0.6, 0.4]], rows=[]), ax=ax, area=False)
    assert not ax.lines and not ax.patches
    assert ax.get_xlabel() == "balanced accuracy"
    draw_front(ParetoFront.of(np.empty((0, 2))), ax=fig.add_subplot())
    ax = draw_front(ParetoFront.of([[0.5, 0.5]]))
    assert ax.figure is not None
    plt.close(ax.figure)
    with pytest.raises(InvalidInputError, match="labels"):
        draw_front(ParetoFront.of([[0.5, 0.5]]), ax=Figure().add_subplot(), labels=["a", "b"])
    with pytest.raises(InvalidInputError, match=r"draw_front needs a ParetoFront "
                                                r"\(paretostab.front.ParetoFront.of\); got list"):
        draw_front([[0.5, 0.5]], ax=Figure().add_subplot())
    assert dict(matplotlib.rcParams) == before


@pytest.mark.slow
def test_report_import_does_not_load_matplotlib():
    """The report package and its pure names (comparisons, confidence regions) load no
    matplotlib; its pipelines, exported too, load it when first used (and only then)."""
    code = ("import sys, paretostab.report as report; "
            "pure = [n for n in report.__all__ if n not in report._LAZY]; "
            "assert len(pure) >= 10, pure; "
            "exec('from paretostab.report import ' + ', '.join(pure)); "
            "assert 'matplotlib' not in sys.modules, 'matplotlib imported'; "
            "report.analysed_study; "
            "assert 'matplotlib' in sys.modules, 'the pipelines were not loaded'")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.slow
def test_tuning_does_not_import_the_report():
    """The package graph has no upward arrow: tuning (and the trials' artifacts) use the
    fronts, maps and drawers of paretostab.front/maps/plot, never the report package."""
    code = ("import sys, paretostab._tuning, paretostab._cli; "
            "loaded = [m for m in sys.modules if m.startswith('paretostab.report')]; "
            "assert not loaded, loaded")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_hull_vertex_just_above_its_chord_is_kept_at_any_segment_length():
    """The collinearity tolerance scales with both segments' lengths (the rounding of the
    cross product and of the points' coordinates, tests/test_tolerances.py): a point 1e-4
    from its neighbour and 1e-10 above the chord to the far end is a vertex of the
    upper-right hull, and γ can choose it."""
    from paretostab.front import gamma_table

    points = np.array([[0.0, 1.0], [1e-4, 1.0 - 1e-4 + 1e-10], [1.0, 0.0]])
    assert [choice.index for choice in gamma_table(points)] == [0, 1, 2]
    collinear = np.array([[0.0, 1.0], [1e-4, 1.0 - 1e-4], [1.0, 0.0]])
    assert [choice.index for choice in gamma_table(collinear)] == [0, 2]
