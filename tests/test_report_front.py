"""Pareto front, dominance area and the front drawer (SPEC §5, 002 §3)."""

from __future__ import annotations

import io
import subprocess
import sys

import matplotlib
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from paretostab import InvalidInputError
from paretostab.report import dominance_area, pareto_front, staircase

matplotlib.use("Agg", force=True)
from matplotlib.figure import Figure  # noqa: E402

from paretostab.report.plot import draw_front  # noqa: E402

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


@settings(max_examples=200, deadline=None)
@given(point_sets())
def test_front_matches_brute_force(points):
    np.testing.assert_array_equal(pareto_front(points), brute_front(points))


@settings(max_examples=150, deadline=None)
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


@settings(max_examples=100, deadline=None)
@given(point_sets(), st.randoms(use_true_random=False))
def test_front_invariant_to_order(points, random):
    perm = np.array(random.sample(range(len(points)), len(points)), dtype=np.intp)
    front = set(pareto_front(points).tolist())
    assert set(perm[pareto_front(points[perm])].tolist()) == front


def test_front_against_optuna():
    from optuna.study._multi_objective import _is_pareto_front

    rng = np.random.default_rng(1)
    for _ in range(20):
        p = np.round(rng.random((60, 2)), 1)  # many ties
        mask = _is_pareto_front(-p, assume_unique_lexsorted=False)  # Optuna minimises
        assert set(pareto_front(p).tolist()) == set(np.flatnonzero(mask).tolist())


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


@settings(max_examples=60, deadline=None)
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


@settings(max_examples=100, deadline=None)
@given(point_sets(), point_sets(max_size=10), st.randoms(use_true_random=False))
def test_area_monotone_and_order_invariant(points, more, random):
    area = dominance_area(points)
    assert 0.0 <= area <= 1.0 + 1e-12
    assert dominance_area(np.vstack([points, more])) >= area - 1e-12
    perm = random.sample(range(len(points)), len(points))
    assert dominance_area(points[perm]) == pytest.approx(area, abs=1e-12)
    # only the front matters
    assert dominance_area(points[pareto_front(points)]) == pytest.approx(area, abs=1e-12)


@settings(max_examples=100, deadline=None)
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


def _inside(points, reference):
    p = np.asarray(points, dtype=float)
    return p[np.all(p > np.asarray(reference), axis=1)]


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("reference", [(0.0, 0.0), (0.3, 0.1)])
def test_area_against_optuna(seed, reference):
    from optuna._hypervolume import compute_hypervolume

    rng = np.random.default_rng(seed)
    p = np.round(rng.random((40, 2)), 2)
    inside = _inside(p, reference)  # Optuna needs every point to dominate the reference
    expected = compute_hypervolume(-inside, -np.asarray(reference)) if inside.size else 0.0
    assert dominance_area(p, reference=reference) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("reference", [(0.0, 0.0), (0.3, 0.1)])
def test_against_moocore(seed, reference):
    moocore = pytest.importorskip("moocore")
    rng = np.random.default_rng(seed)
    p = np.round(rng.random((40, 2)), 2)
    inside = _inside(p, reference)
    expected = moocore.hypervolume(inside, ref=reference, maximise=True) if inside.size else 0.0
    assert dominance_area(p, reference=reference) == pytest.approx(expected, abs=1e-12)
    mask = moocore.is_nondominated(p, maximise=True, keep_weakly=True)
    assert set(pareto_front(p).tolist()) == set(np.flatnonzero(mask).tolist())


# --------------------------------------------------------------------------- draw_front


def test_draw_front_on_given_axes():
    before = dict(matplotlib.rcParams)
    fig = Figure()
    ax = fig.add_subplot()
    p = np.array([[0.5, 0.5], [0.6, 0.4], [0.4, 0.6], [0.3, 0.3], [np.nan, 0.2]])
    out = draw_front(p, ax=ax, labels=[f"t{i}" for i in range(5)])
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
    draw_front([[0.5, 0.5], [0.6, 0.4]], ax=ax, front=False, area=False)
    assert not ax.lines and not ax.patches
    assert ax.get_xlabel() == "balanced accuracy"
    draw_front(np.empty((0, 2)), ax=fig.add_subplot())
    ax = draw_front([[0.5, 0.5]])
    assert ax.figure is not None
    plt.close(ax.figure)
    with pytest.raises(InvalidInputError, match="labels"):
        draw_front([[0.5, 0.5]], ax=Figure().add_subplot(), labels=["a", "b"])
    assert dict(matplotlib.rcParams) == before


def test_report_import_does_not_load_matplotlib():
    code = ("import sys; from paretostab.report import *; import paretostab.report; "
            "assert 'matplotlib' not in sys.modules, 'matplotlib imported'")
    subprocess.run([sys.executable, "-c", code], check=True)
