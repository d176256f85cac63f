"""Hotelling confidence regions and the dominance-area interval (SPEC §5, 002 §3)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from paretostab import InvalidInputError
from paretostab.front import dominance_area
from paretostab.report import (
    DominanceAreaInterval,
    Ellipse,
    confidence_regions,
    dominance_area_interval,
)

MEAN = np.array([0.7, 0.5])
COV = np.array([[0.010, 0.006],
                [0.006, 0.020]])  # correlation 0.42


def draws(rng, n, b, mean=MEAN, cov=COV):
    return rng.multivariate_normal(mean, cov, size=(n, b))


# --------------------------------------------------------------------------- regions


@pytest.mark.slow
@pytest.mark.parametrize("b", [10, 30])
def test_coverage_of_the_expected_point(b):
    # 4 000 samples of B replicates: the 95 % region covers the mean 95 % of the time
    # (binomial standard error 0.34 percentage point; tolerance ±2 points)
    rng = np.random.default_rng(b)
    regions = confidence_regions(draws(rng, 4000, b), level=0.95)
    coverage = np.mean([r.contains(MEAN) for r in regions])
    assert abs(coverage - 0.95) <= 0.02


@pytest.mark.slow
def test_simultaneous_coverage():
    # P = 4 regions at the Bonferroni level hold their 4 means together ≥ 95 %
    rng = np.random.default_rng(11)
    means = np.array([[0.6, 0.8], [0.7, 0.6], [0.8, 0.4], [0.85, 0.3]])
    hits = []
    for _ in range(600):
        reps = [rng.multivariate_normal(m, COV, size=10) for m in means]
        regions = confidence_regions(reps, level=0.95, simultaneous=True)
        hits.append(all(r.contains(m) for r, m in zip(regions, means, strict=True)))
    assert np.mean(hits) >= 0.95 - 0.02


def test_region_geometry():
    rng = np.random.default_rng(0)
    x = draws(rng, 1, 12)[0]
    (e,) = confidence_regions([x], level=0.9)
    b = 12
    assert isinstance(e, Ellipse)
    np.testing.assert_allclose(e.center, x.mean(axis=0))
    np.testing.assert_allclose(e.covariance, np.cov(x.T, ddof=1))
    assert (e.replicates, e.level, e.family_level, e.simultaneous) == (12, 0.9, 0.9, False)
    # Hotelling: B (p̄ − μ)ᵀ C⁻¹ (p̄ − μ) ≤ 2(B−1)/(B−2) F_{2,B−2}(0.9)
    assert e.radius2 == pytest.approx(2 * (b - 1) / (b - 2) * stats.f.ppf(0.9, 2, b - 2) / b)
    # the same bound from the T² distribution: T² = (p(B−1)/(B−p)) F_{p, B−p}, p = 2
    assert e.radius2 * b == pytest.approx(
        stats.f.ppf(0.9, 2, b - 2) * 2 * (b - 1) / (b - 2), rel=1e-12)
    eigenvalues, vectors = np.linalg.eigh(e.covariance)
    np.testing.assert_allclose(e.semi_axes, np.sqrt(e.radius2 * eigenvalues[::-1]))
    assert e.semi_axes[0] >= e.semi_axes[1] > 0 and not e.degenerate
    major = np.array([math.cos(e.angle), math.sin(e.angle)])
    assert abs(major @ vectors[:, 1]) == pytest.approx(1.0)
    assert -math.pi / 2 < e.angle <= math.pi / 2
    # the boundary is the level set (μ − p̄)ᵀ C⁻¹ (μ − p̄) = radius2
    ring = e.boundary(64)
    assert ring.shape == (64, 2)
    d = ring - e.center
    np.testing.assert_allclose(np.einsum("ij,jk,ik->i", d, np.linalg.inv(e.covariance), d),
                               e.radius2, rtol=1e-10)
    np.testing.assert_allclose(ring[0], e.center + e.semi_axes[0] * major)
    assert all(e.contains(p) for p in ring)
    assert not any(e.contains(e.center + 1.001 * (p - e.center)) for p in ring)
    assert e.contains(e.center) and not e.contains((np.nan, 0.5))
    # bounding box: the extreme coordinates of the ellipse
    h = np.sqrt(e.radius2 * np.diag(e.covariance))
    np.testing.assert_allclose(e.half_widths, h)
    np.testing.assert_allclose(e.most_dominant, e.center + h)
    np.testing.assert_allclose(e.most_dominated, e.center - h)
    dense = e.boundary(20_000)
    np.testing.assert_allclose(dense.max(axis=0), e.most_dominant, atol=1e-7)
    np.testing.assert_allclose(dense.min(axis=0), e.most_dominated, atol=1e-7)


def test_axis_aligned_region():
    # uncorrelated with more spread in stability: the major axis is vertical
    x = np.array([[0.5, 0.2], [0.5, 0.8], [0.6, 0.5], [0.4, 0.5]])
    (e,) = confidence_regions([x])
    assert e.angle == pytest.approx(math.pi / 2)
    assert e.semi_axes[0] > e.semi_axes[1]
    np.testing.assert_allclose(e.half_widths[::-1], e.semi_axes)


def test_bonferroni_widens():
    rng = np.random.default_rng(1)
    reps = [draws(rng, 1, 10, mean=m)[0] for m in ([0.6, 0.8], [0.7, 0.6], [0.8, 0.4])]
    single = confidence_regions(reps, level=0.9)
    joint = confidence_regions(reps, level=0.9, simultaneous=True)
    for s, j in zip(single, joint, strict=True):
        assert j.level == pytest.approx(1 - 0.1 / 3) and j.family_level == 0.9 and j.simultaneous
        assert s.level == 0.9 and not s.simultaneous
        assert np.all(j.semi_axes > s.semi_axes) and j.radius2 > s.radius2
        np.testing.assert_array_equal(j.center, s.center)
    a, b = dominance_area_interval(single), dominance_area_interval(joint)
    assert b.low < a.low and b.high > a.high and a.estimate == b.estimate
    assert (a.level, a.simultaneous, b.level, b.simultaneous) == (0.9, False, 0.9, True)
    # one point: Bonferroni changes nothing
    (s,), (j,) = confidence_regions(reps[:1]), confidence_regions(reps[:1], simultaneous=True)
    assert s.radius2 == j.radius2


def test_different_replicate_counts_and_3d_input():
    rng = np.random.default_rng(2)
    regions = confidence_regions([draws(rng, 1, 5)[0], draws(rng, 1, 40)[0]])
    assert [r.replicates for r in regions] == [5, 40]
    stacked = draws(rng, 3, 8)
    assert len(confidence_regions(stacked)) == 3
    assert confidence_regions([]) == ()


# --------------------------------------------------------------------------- degenerate


def test_zero_variance_gives_a_segment():
    # perfectly stable in every replicate: the region is a horizontal segment
    x = np.array([[0.5, 1.0], [0.6, 1.0], [0.7, 1.0], [0.55, 1.0]])
    (e,) = confidence_regions([x])
    assert e.degenerate and e.semi_axes[1] == 0.0 and e.semi_axes[0] > 0
    assert e.angle == 0.0
    half = math.sqrt(e.radius2 * np.var(x[:, 0], ddof=1))
    assert e.semi_axes[0] == pytest.approx(half)
    assert e.contains(e.center + [0.99 * half, 0.0])
    assert not e.contains(e.center + [1.01 * half, 0.0])
    assert not e.contains(e.center + [0.0, 1e-6])
    ring = e.boundary(8)
    np.testing.assert_allclose(ring[:, 1], 1.0)
    assert all(e.contains(p) for p in ring)
    np.testing.assert_allclose(e.most_dominant, e.center + [half, 0.0])


def test_collinear_replicates_give_a_tilted_segment():
    t = np.array([0.0, 0.1, 0.3, 0.2, 0.05])
    x = np.column_stack([0.6 + t, 0.4 + 2 * t])  # on a line of slope 2
    (e,) = confidence_regions([x])
    assert e.degenerate
    assert e.angle == pytest.approx(math.atan(2.0))
    assert e.contains(e.center + 0.5 * e.semi_axes[0] * np.array([1, 2]) / math.sqrt(5))
    assert not e.contains(e.center + [0.01, 0.0])


@pytest.mark.parametrize("slope", [-3.0, -1.0, -0.2, 0.5, 2.0, math.inf])
def test_the_angle_is_the_major_axis_direction_in_its_half_open_range(slope):
    """eigh's major eigenvector points either way; the angle is folded into (−π/2, π/2]
    (here from atan2 values 1.89, 2.36, 2.94 and −2.68 for the first four slopes)."""
    t = np.array([0.0, 0.1, 0.3, 0.2, 0.05])
    x = (np.column_stack([np.full(5, 0.5), 0.4 + t]) if slope == math.inf
         else np.column_stack([0.5 + t, 0.4 + slope * t]))
    (e,) = confidence_regions([x])
    assert -math.pi / 2 < e.angle <= math.pi / 2
    assert e.angle == pytest.approx(math.atan(slope), abs=1e-12)


def test_a_long_segment_ends_at_its_semi_axis_to_the_rounding_of_its_size():
    """A segment 2000 long (stability values in the thousands): a point 2e-16 of the
    semi-axis past its end is on it (the rounding of coordinates in the thousands,
    4e-12), one 1e-12 of it (2e-9) past is not (tests/test_tolerances.py)."""
    x = np.array([[0.5, 0.0], [0.5, 1000.0], [0.5, 2000.0], [0.5, 500.0]])
    (e,) = confidence_regions([x])
    a = e.semi_axes[0]
    assert e.degenerate and a > 1000
    assert e.contains(e.center + [0.0, a * (1 + 2e-16)])
    assert not e.contains(e.center + [0.0, a * (1 + 1e-12)])


def test_a_segment_is_held_to_the_centres_magnitude():
    """Stability values need not lie in [0, 1]: on a segment at stability 2000 a point
    1e-13 off the line is rounding (2γ_4 · 4000 = 3.6e-12), one 1e-9 off is not."""
    x = np.array([[0.5, 2000.0], [0.6, 2000.0], [0.7, 2000.0], [0.55, 2000.0]])
    (e,) = confidence_regions([x])
    assert e.degenerate
    assert e.contains(e.center + [0.0, 1e-13]) and not e.contains(e.center + [0.0, 1e-9])


@pytest.mark.parametrize(("minor", "degenerate"), [(3e-8, True), (1e-7, False)])
def test_a_minor_spread_is_cut_relative_to_the_major_spread(minor, degenerate):
    """A standard deviation within twice the rounding, √3·γ_{B+2}·max |replicate| +
    √(2γ_{B+2})·(major standard deviation), is none: eigh cannot tell a variance below
    2γ_{B+2}·λ_max from 0. Here the major one (1.155, accuracies ±1) sets the cut at
    8.4e-8, and the minor ones 3.5e-8 and 1.15e-7 fall either side of it
    (tests/test_tolerances.py holds both sides against exact arithmetic)."""
    x = np.column_stack([[-1.0, 1.0, -1.0, 1.0], minor * np.array([1.0, 1.0, -1.0, -1.0])])
    (e,) = confidence_regions([x])
    assert e.degenerate == degenerate


def test_constant_replicates_give_a_point():
    (e,) = confidence_regions([[[0.1, 0.9]] * 4])
    assert e.degenerate and np.all(e.semi_axes == 0.0) and e.angle == 0.0
    np.testing.assert_allclose(e.center, [0.1, 0.9])
    assert e.contains((0.1, 0.9)) and not e.contains((0.1, 0.9 + 1e-6))
    np.testing.assert_allclose(e.boundary(5), [[0.1, 0.9]] * 5)
    interval = dominance_area_interval([e])
    assert interval.low == pytest.approx(0.09) and interval.high == pytest.approx(0.09)


@pytest.mark.parametrize("replicates, match", [
    ([np.zeros((5, 2)), np.zeros((2, 2))], r"front point 1: .*B >= 3 .*B = 2"),
    ([np.zeros((5, 3))], r"front point 0: .*\(B, 2\).*shape \(5, 3\)"),
    ([np.zeros(6)], r"front point 0: .*shape \(6,\)"),
    ([[[0.5, 0.5], [0.6, np.nan], [0.7, 0.4]]], r"front point 0: replicate 1 is not finite"),
    ([[[0.5, 0.5], [0.6, np.inf], [0.7, 0.4]]], "not finite"),
    ([[[0.5, 0.5], [0.6, 0.4], [0.7, 0.4], [0.6, np.nan], [0.5, 0.6]]],
     r"front point 0: replicate 3 is not finite \(\[0.6, nan\]\)"),
    ([[["a", "b"]] * 3], "front point 0: .*numeric"),
    ("abc", "sequence"),
    (3.0, "sequence"),
    (np.array(3.0), "sequence"),
    (np.zeros(4), r"front point 0: .*shape \(\)"),
])
def test_bad_replicates(replicates, match):
    with pytest.raises(InvalidInputError, match=match):
        confidence_regions(replicates)


@pytest.mark.parametrize("level", [0.0, 1.0, 1.5, -0.1, np.nan, "0.95", True])
def test_bad_level(level):
    with pytest.raises(InvalidInputError, match=r"level must be a number in \(0, 1\)"):
        confidence_regions([np.random.default_rng(0).random((5, 2))], level=level)


def test_a_3d_array_of_replicates_is_its_front_points_in_order():
    x = np.random.default_rng(5).random((3, 6, 2))
    def fields(regions):
        return [(e.center.tolist(), e.semi_axes.tolist(), e.angle) for e in regions]

    assert fields(confidence_regions(x)) == fields(confidence_regions([x[0], x[1], x[2]]))


@pytest.mark.parametrize("size", [1e-6, 1e-3, 1e3])
def test_the_singular_cut_is_relative_to_the_replicates_size(size):
    """Scaling the replicates scales the region: a spread of 1e-11 of their size along
    one axis (below the rounding of eigh at a major spread of 0.05) is a segment at every
    scale (1e-6 to 1e3, where a fixed floor of 1 would decide), a spread of 1e-3 an
    ellipse; spreads of 1e-17 and 1e-16 about (0, 0.8), the rounding of 0.8, are a point
    (the largest coordinate sets the size, not the smallest, about 0)."""
    rng = np.random.default_rng(6)
    flat = np.column_stack([rng.normal(0.5, 0.05, 12), 0.8 + 1e-11 * rng.normal(size=12)])
    round_ = np.column_stack([flat[:, 0], 0.8 + 1e-3 * rng.normal(size=12)])
    still = np.column_stack([1e-17 * rng.normal(size=12), 0.8 + 1e-16 * rng.normal(size=12)])
    for point in confidence_regions([still, still * size]):
        assert point.degenerate and point.semi_axes.tolist() == [0.0, 0.0]
    (segment, ellipse), (scaled_segment, scaled_ellipse) = (
        confidence_regions([flat, round_]), confidence_regions([flat * size, round_ * size]))
    assert segment.degenerate and scaled_segment.degenerate
    assert not ellipse.degenerate and not scaled_ellipse.degenerate
    np.testing.assert_allclose(scaled_segment.semi_axes, segment.semi_axes * size, rtol=1e-9)
    np.testing.assert_allclose(scaled_ellipse.semi_axes, ellipse.semi_axes * size, rtol=1e-9)


def test_ellipse_argument_checks():
    (e,) = confidence_regions([np.random.default_rng(0).random((5, 2))])
    with pytest.raises(InvalidInputError, match="one .accuracy, stability. pair"):
        e.contains("abc")
    with pytest.raises(InvalidInputError, match="one .accuracy, stability. pair"):
        e.contains((0.5, 0.5, 0.5))
    for n in (2, 0, 3.5, True):
        with pytest.raises(InvalidInputError, match="n must be an integer >= 3"):
            e.boundary(n)
    assert e.boundary(3).shape == (3, 2) and e.boundary(np.int64(4)).shape == (4, 2)
    assert e.boundary().shape == (128, 2)  # the default: smooth at a report's scale


def test_a_circular_region_has_angle_0():
    """Equal spreads along both axes: a circle, with no major direction."""
    x = np.array([[0.6, 0.5], [0.4, 0.5], [0.5, 0.6], [0.5, 0.4]])
    (circle,) = confidence_regions([x])
    assert circle.semi_axes[0] == circle.semi_axes[1] > 0 and circle.angle == 0.0


@pytest.mark.parametrize("degrees", range(-90, 91, 5))
def test_a_regions_angle_is_its_direction_folded_into_minus_90_to_90(degrees):
    """Replicates spread along a line at every angle: the major axis' angle is the line's,
    folded into (−90°, 90°] (−90° is 90°), whichever sign eigh gives the eigenvector."""
    theta = math.radians(degrees)
    t = np.linspace(-1.0, 1.0, 9)
    x = np.column_stack([0.5 + 0.1 * t * math.cos(theta), 0.5 + 0.1 * t * math.sin(theta)])
    x += 1e-3 * np.random.default_rng(degrees + 90).normal(size=x.shape)
    (region,) = confidence_regions([x])
    expected = theta + math.pi if degrees == -90 else theta
    assert -math.pi / 2 < region.angle <= math.pi / 2
    assert region.angle == pytest.approx(expected, abs=0.05) or (
        degrees in (-90, 90) and abs(abs(region.angle) - math.pi / 2) < 0.05)


def test_an_ellipse_made_by_hand_is_not_simultaneous_by_default():
    e = Ellipse(center=np.array([0.5, 0.5]), covariance=np.eye(2), semi_axes=np.ones(2),
                angle=0.0, replicates=5, level=0.95, radius2=1.0)
    assert e.simultaneous is False and math.isnan(e.family_level)


def test_a_small_segment_contains_points_within_the_rounding_of_its_coordinates():
    """A segment near the origin, 1e-4 long, holds points to the rounding of its
    coordinates of 0.002 (4.5e-18), not to an absolute 1e-9, which would make it a strip
    wider than a segment 1e-10 long: 1e-19 off its line is on it, 1e-15 off is not."""
    t = np.linspace(-1.0, 1.0, 7)[:, None]
    (segment,) = confidence_regions([np.array([0.001, 0.002]) + 1e-4 * t * [0.6, 0.8]])
    assert segment.degenerate
    normal = np.array([-0.8, 0.6])
    assert segment.contains(segment.center + 1e-19 * normal)
    assert not segment.contains(segment.center + 1e-15 * normal)


def test_boundary_points_go_once_around_the_ellipse():
    """Equally spaced in the parameter over one turn: their mean is the centre, and the
    angle about the centre steps by 2π/n in one direction, never repeating a point."""
    rng = np.random.default_rng(2)
    x = rng.multivariate_normal([0.7, 0.4], [[0.004, 0.002], [0.002, 0.003]], size=30)
    (e,) = confidence_regions([x])
    for n in (3, 7, 128):
        ring = e.boundary(n)
        np.testing.assert_allclose(ring.mean(axis=0), e.center, atol=1e-12)
        angle = np.unwrap(np.arctan2(*(ring - e.center).T[::-1]))
        turns = np.diff(np.append(angle, angle[0] + np.sign(angle[1] - angle[0]) * 2 * np.pi))
        assert np.all(turns * turns[0] > 0) and abs(turns.sum()) == pytest.approx(2 * np.pi)
    with pytest.raises(AttributeError):
        e.level = 0.5  # frozen
    assert not e.center.flags.writeable
    # compared and hashed by identity (its fields are arrays): another region of the same
    # sample is a different object, and regions can key a dict or fill a set
    (again,) = confidence_regions([x])
    assert e == e and e != again and len({e, again}) == 2


# --------------------------------------------------------------------------- DA interval


def test_interval_by_hand():
    # two regions with known centres and diagonal covariances: the interval's fronts are
    # the bounding-box corners centre ± sqrt(radius2 · C_ii)
    rng = np.random.default_rng(3)
    reps = [draws(rng, 1, 15, mean=m)[0] for m in ([0.5, 0.8], [0.8, 0.5])]
    regions = confidence_regions(reps)
    centers = np.array([r.center for r in regions])
    h = np.array([np.sqrt(r.radius2 * np.diag(r.covariance)) for r in regions])
    interval = dominance_area_interval(regions)
    assert isinstance(interval, DominanceAreaInterval)
    assert interval.estimate == pytest.approx(dominance_area(centers))
    assert interval.low == pytest.approx(dominance_area(centers - h))
    assert interval.high == pytest.approx(dominance_area(np.minimum(centers + h, 1.0)))
    assert interval.low <= interval.estimate <= interval.high
    assert (interval.level, interval.simultaneous) == (0.95, False)
    assert dominance_area_interval(r for r in regions) == interval  # any iterable, read once
    with pytest.raises(AttributeError):
        interval.low = 0.0  # frozen: a value, as the regions are
    assert hash(dominance_area_interval(regions)) == hash(interval)


@pytest.mark.parametrize("seed", range(6))
def test_interval_contains_estimate(seed):
    rng = np.random.default_rng(seed)
    p = rng.integers(2, 7)
    means = np.column_stack([np.sort(rng.uniform(0.5, 0.95, p)),
                             np.sort(rng.uniform(0.2, 0.98, p))[::-1]])
    reps = [rng.multivariate_normal(m, COV / 4, size=rng.integers(3, 30)) for m in means]
    for simultaneous in (False, True):
        regions = confidence_regions(reps, simultaneous=simultaneous)
        for kwargs in ({}, {"weight": ("accuracy", 3.0)}, {"weight": "uniform"},
                       {"trivial_point": (0.5, 1.0)}, {"reference": (0.1, 0.2)}):
            iv = dominance_area_interval(regions, **kwargs)
            assert iv.low <= iv.estimate <= iv.high
            if "weight" in kwargs:
                assert 0.0 <= iv.low and iv.high <= 1.0
            # points anywhere in the regions (and, as expected values are, ≤ 1) give a DA
            # inside the interval
            inside = np.minimum([r.center + 0.9 * (r.boundary(7)[rng.integers(7)] - r.center)
                                 for r in regions], 1.0)
            assert iv.low - 1e-12 <= dominance_area(inside, **kwargs) <= iv.high + 1e-12


def test_interval_caps_at_one():
    # stability near 1: the most dominant corner would leave [0, 1]², the cap keeps it
    x = np.array([[0.7, 0.99], [0.72, 0.97], [0.69, 1.0], [0.71, 0.96]])
    regions = confidence_regions([x])
    assert regions[0].most_dominant[1] > 1.0
    iv = dominance_area_interval(regions)
    assert iv.high == pytest.approx(min(regions[0].most_dominant[0], 1.0) * 1.0)
    assert iv.high <= 1.0


def test_interval_covers_the_expected_area():
    # simultaneous regions: the DA of the expected front is inside ≥ 95 % of the time
    rng = np.random.default_rng(5)
    means = np.array([[0.6, 0.8], [0.7, 0.65], [0.8, 0.5]])
    truth = dominance_area(means)
    hits = []
    for _ in range(300):
        reps = [rng.multivariate_normal(m, COV / 4, size=10) for m in means]
        iv = dominance_area_interval(confidence_regions(reps, simultaneous=True))
        hits.append(iv.low <= truth <= iv.high)
    assert np.mean(hits) >= 0.95


def test_interval_bad_inputs():
    rng = np.random.default_rng(6)
    a = confidence_regions([rng.random((5, 2))], level=0.9)
    b = confidence_regions([rng.random((5, 2))], level=0.95)
    with pytest.raises(InvalidInputError, match="at least one confidence region"):
        dominance_area_interval([])
    with pytest.raises(InvalidInputError, match="region 1 is a tuple"):
        dominance_area_interval([a[0], (0.5, 0.5)])
    with pytest.raises(InvalidInputError, match="one confidence_regions call"):
        dominance_area_interval([a[0], b[0]])
    with pytest.raises(InvalidInputError, match="weight"):
        dominance_area_interval(a, weight="exponential")


@pytest.mark.parametrize(("spread", "expected"), [(1e-16, "point"), (2e-15, "segment"),
                                                  (1e-3, "segment")])
def test_a_collinear_sample_gives_a_degenerate_region_at_any_spread(spread, expected):
    """Replicates on a line: the minor axis is rounding alone and is zeroed, relative to
    the major axis and to the data's magnitude (2√3·γ_7 · 0.9 = 2.4e-15 here); a major
    axis below that is zeroed too (a point): sd 3.5e-16 (spread 1e-16) is, sd 7.1e-15
    (spread 2e-15) is just above it."""
    t = np.arange(5.0)
    replicates = np.array([0.9, 0.8]) + t[:, None] * np.array([1.0, 2.0]) * spread
    (region,) = confidence_regions([replicates])
    a, b = region.semi_axes
    assert b == 0.0
    assert (a == 0.0) == (expected == "point")
    assert region.contains(replicates[0]) and region.contains(replicates[-1])


def test_hotelling_radius2_is_the_regions_bound_and_tends_to_chi_square():
    """The bound each region of B replicates takes (the page's "wide because B is small"
    quotes its root): that of confidence_regions, 16.3² at B = 3 and 95%, decreasing in B,
    and B · radius2 tends to the χ²₂ quantile of a known covariance."""
    from paretostab.report._confidence import hotelling_radius2

    rng = np.random.default_rng(1)
    for b in (3, 4, 7, 20):
        (region,) = confidence_regions([rng.normal(size=(b, 2))], level=0.9)
        assert hotelling_radius2(b, 0.9) == region.radius2
    assert math.sqrt(hotelling_radius2(3, 0.95)) == pytest.approx(16.3095, abs=1e-4)
    bounds = [hotelling_radius2(b, 0.95) for b in range(3, 200)]
    assert all(np.diff(bounds) < 0)
    b = 10 ** 6
    assert b * hotelling_radius2(b, 0.95) == pytest.approx(stats.chi2.ppf(0.95, 2), rel=1e-4)
