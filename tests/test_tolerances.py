"""The tolerances of the front, of the confidence regions, of φ_S's normaliser and of the
corrected adjusted measures' max − E, on both sides of each (those of φ_pears and φ_iw are in tests/test_weighted.py).

Each tolerance is the rounding error of the computation it guards, relative to the
quantities compared (issue 37); a case just inside it is treated as equal, a case just
beyond it is decided and equal to a value computed in exact rational arithmetic.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from paretostab.front import gamma_table

U = 2.0**-53  # the unit roundoff, written here apart from the package's


def collinearity_rounding(o, m, k):
    """The front's tolerance on the cross product (m − o) × (k − o), computed apart:
    γ_4 on each product, and 2u·s per coordinate for points on a line to the rounding of
    coordinates of size ≤ s."""
    u, v = m - o, k - o
    s = np.max(np.abs([o, m, k]))
    return (4 * U / (1 - 4 * U) * (abs(u[0] * v[1]) + abs(u[1] * v[0]))
            + 2 * U * s * (np.abs(u).sum() + np.abs(v).sum()))


def exact_cross(o, m, k):
    o, m, k = ([Fraction(x) for x in p.tolist()] for p in (o, m, k))
    return (m[0] - o[0]) * (k[1] - o[1]) - (m[1] - o[1]) * (k[0] - o[0])


@settings(max_examples=200)
@given(a0=st.floats(0.0, 0.9), step=st.floats(1e-9, 1e-2), slope=st.floats(0.05, 5.0),
       n=st.integers(3, 6))
def test_points_on_a_line_to_the_rounding_of_their_coordinates_are_collinear(
        a0, step, slope, n):
    """Points on φ = 1 − slope·a, each coordinate rounded: only the two ends win. The old
    1e-12·|u||v| ignored the coordinates' own rounding: for segments below 1e-6 it kept
    middle points that are above the chord by rounding only (1264 of 3000 such lines)."""
    a = a0 + step * np.arange(n)
    points = np.column_stack([a, 1.0 - slope * a])
    assert [choice.index for choice in gamma_table(points)] == [0, n - 1]


@settings(max_examples=300)
@given(a0=st.floats(0.0, 0.9), length=st.floats(1e-9, 0.1), slope=st.floats(0.05, 5.0),
       t=st.floats(0.05, 0.95), ulps=st.integers(0, 48).flatmap(lambda e: st.integers(0, 2**e)))
def test_a_point_above_its_chord_is_a_hull_vertex_only_beyond_rounding(
        a0, length, slope, t, ulps):
    """A point on the chord between two front points, raised by some ulps: within an
    eighth of the tolerance it ties with the ends and is not listed; beyond twice the
    tolerance it is a vertex, and the γ at which it takes over from the more stable end
    equals the exact s/(1 + s) of the segment's slope s."""
    o = np.array([a0, 0.9])
    k = np.array([a0 + length, 0.9 - slope * length])
    m = o + t * (k - o)
    m[1] += ulps * np.spacing(m[1])
    assume(o[0] < m[0] < k[0] and m[1] < o[1])  # three points of the front
    points = np.vstack([o, m, k])
    cross, rounding = exact_cross(o, m, k), collinearity_rounding(o, m, k)
    indices = [choice.index for choice in gamma_table(points)]
    if -cross <= rounding / 8:
        assert 1 not in indices
    elif -cross >= 2 * rounding:
        assert indices == [0, 1, 2]
        s = (Fraction(o[1]) - Fraction(m[1])) / (Fraction(m[0]) - Fraction(o[0]))
        assert gamma_table(points)[0].gamma_high == pytest.approx(float(s / (1 + s)), rel=1e-12)


def gamma_n(n):
    return n * U / (1 - n * U)


def spread_rounding(x, major_sd):
    """The confidence regions' rounding of a standard deviation, computed apart: replicates
    on a line to the rounding of coordinates of size ≤ s, centred on a rounded mean
    (√3·γ_{B+2}·s), and the products and eigh (√(2γ_{B+2})·major)."""
    g = gamma_n(x.shape[0] + 2)
    return np.sqrt(3) * g * np.max(np.abs(x)) + np.sqrt(2 * g) * major_sd


def exact_spreads(x):
    """(major, minor) standard deviations of the replicates, from their covariance in
    exact rational arithmetic: the determinant exactly, then minor² = det / major²."""
    rows = [[Fraction(v) for v in row] for row in x.tolist()]
    b = len(rows)
    mean = [sum(r[j] for r in rows) / b for j in range(2)]
    c = [[sum((r[i] - mean[i]) * (r[j] - mean[j]) for r in rows) / (b - 1) for j in range(2)]
         for i in range(2)]
    det, trace = c[0][0] * c[1][1] - c[0][1] ** 2, c[0][0] + c[1][1]
    major2 = (float(trace) + np.sqrt(float(trace * trace - 4 * det))) / 2
    return np.sqrt(major2), (np.sqrt(float(det) / major2) if major2 > 0 else 0.0)


@settings(max_examples=200)
@given(b=st.integers(3, 30), angle=st.floats(-1.5, 1.5), scale=st.floats(1e-9, 1.0),
       seed=st.integers(0, 2**32 - 1))
def test_replicates_on_a_line_to_rounding_give_a_segment(b, angle, scale, seed):
    """Replicates on a line, each coordinate rounded: a segment at every spread and slope.
    The old cut, 1e-9 of the major spread, kept 7740 of 20 000 such samples as ellipses:
    eigh leaves the minor variance √u·λ_max, up to 1.8e-8 of the major spread."""
    from paretostab.report import confidence_regions

    rng = np.random.default_rng(seed)
    t = scale * rng.normal(size=b)
    x = rng.uniform(0, 1, 2) + t[:, None] * np.array([np.cos(angle), np.sin(angle)])
    (region,) = confidence_regions([x])
    assert region.degenerate and region.semi_axes[1] == 0.0


@pytest.mark.slow
@settings(max_examples=300)
@given(b=st.integers(3, 30), angle=st.floats(-1.5, 1.5), scale=st.floats(1e-9, 1.0),
       thinness=st.floats(0.0, 18.0), seed=st.integers(0, 2**32 - 1))
def test_a_minor_spread_is_none_within_rounding_and_exact_beyond(b, angle, scale, thinness,
                                                                 seed):
    """Replicates spread along a line and 10^−thinness as much across it: a minor standard
    deviation (exact) within an eighth of twice the rounding gives a segment; beyond twice
    it, an ellipse whose minor semi-axis is the exact one within the rounding bound."""
    from paretostab.report import confidence_regions

    rng = np.random.default_rng(seed)
    along, across = np.array([np.cos(angle), np.sin(angle)]), np.array([-np.sin(angle),
                                                                       np.cos(angle)])
    x = (rng.uniform(0, 1, 2) + scale * rng.normal(size=b)[:, None] * along
         + scale * 10**-thinness * rng.normal(size=b)[:, None] * across)
    major, minor = exact_spreads(x)
    cut = 2 * spread_rounding(x, major)
    (region,) = confidence_regions([x])
    root = np.sqrt(region.radius2)
    if minor <= cut / 8:
        assert region.degenerate and region.semi_axes[1] == 0.0
    elif minor >= 2 * cut:
        assert not region.degenerate
        bound = (cut / 2) ** 2 / minor  # |λ̂ − λ| ≤ (cut/2)², so |σ̂ − σ| ≤ that / σ
        assert region.semi_axes[1] == pytest.approx(root * minor, abs=root * bound)


@pytest.mark.slow
@settings(max_examples=150)
@given(b=st.integers(3, 12), angle=st.floats(-1.5, 1.5), scale=st.floats(1e-9, 1.0),
       thinness=st.floats(0.0, 18.0), offset=st.floats(-1e3, 1e3),
       seed=st.integers(0, 2**32 - 1))
def test_a_region_holds_its_boundary_to_rounding_and_not_a_point_beyond_it(
        b, angle, scale, thinness, offset, seed):
    """Every point of a region's boundary is inside, for ellipses, segments and points
    at any size and place (the old 1e-9 on (u/a)² + (v/b)² left 14 % of the boundary
    points of thin ellipses outside). Past the end of an axis, a point an eighth of the
    rounding e = 2γ_4(|x| + |centre| + a) out is inside, one 3e out is not."""
    from paretostab.report import confidence_regions

    rng = np.random.default_rng(seed)
    along, across = np.array([np.cos(angle), np.sin(angle)]), np.array([-np.sin(angle),
                                                                       np.cos(angle)])
    x = (offset + rng.uniform(0, 1, 2) + scale * rng.normal(size=b)[:, None] * along
         + scale * 10**-thinness * rng.normal(size=b)[:, None] * across)
    (region,) = confidence_regions([x])
    assert all(region.contains(p) for p in region.boundary(16))
    frame = region.boundary(4) - region.center  # the ends of the major, then minor axis
    for end, axis in ((frame[0], 0), (frame[1], 1)):
        size = region.semi_axes[axis]
        direction = (along if axis == 0 else across) if size == 0 else end / np.linalg.norm(end)
        for inside, factor in ((True, 1 / 8), (False, 3.0)):
            point = region.center + direction * size
            e = 2 * gamma_n(4) * (np.max(np.abs(point)) + np.max(np.abs(region.center))
                                  + region.semi_axes[0])
            assert region.contains(point + factor * e * direction) == inside


@settings(max_examples=150)
@given(lowered=st.integers(0, 40).flatmap(lambda e: st.integers(0, 2**e)),
       shared=st.integers(0, 40).flatmap(lambda e: st.integers(0, 2**e)))
def test_phi_s_is_undefined_within_rounding_of_a_zero_normaliser_and_exact_beyond(
        lowered, shared):
    """Runs {0} and {1} of three features all similar (C = 1) give tr(C Σ⁰) = 0 (000
    eq. 3): C[0, 2] lowered by ``lowered`` and C[0, 1] by ``shared`` units of 2⁻⁵³ make it
    2(ε₀₂ + ε₀₁)/9. Within an eighth of the rounding R = 2γ_{M+d²+8} · (the terms of Σ⁰
    and of Σ C) φ_S is undefined; beyond 2R it equals 1 − tr(CK)/tr(CΣ⁰) of exact
    arithmetic within R(1 + |φ_S|)/(tr(CΣ⁰) − R) (the old 1e-12 · d · diagonal was 43
    times R here)."""
    from paretostab import StabilityWarning, stability

    C = np.ones((3, 3))
    C[0, 2] = C[2, 0] = 1 - lowered * U
    C[0, 1] = C[1, 0] = 1 - shared * U
    off = sum(Fraction(C[f, g]) for f in range(3) for g in range(3) if f != g)
    denominator = Fraction(2, 3) - off / 9  # d·k̄/d(1 − k̄/d) + (0/6 − 1/9)·Σ_{f≠g} C
    numerator = 1 - Fraction(C[0, 1])  # tr(CK) with K = [[½, −½], [−½, ½]] on features 0, 1
    rounding = 2 * gamma_n(2 + 9 + 8) * (2 / 3 + float(off) * 3 / 6)
    runs = np.array([[1, 0, 0], [0, 1, 0]], dtype=bool)
    if denominator <= rounding / 8:
        with pytest.warns(StabilityWarning, match=r"tr\(C Σ⁰\) = 0"):
            assert np.isnan(stability("sechidis", runs, similarity=C))
    elif denominator >= 2 * rounding:
        exact = 1 - numerator / denominator
        bound = rounding * (1 + abs(float(exact))) / (float(denominator) - rounding)
        assert stability("sechidis", runs, similarity=C) == pytest.approx(float(exact),
                                                                           abs=bound)


@pytest.mark.slow
@pytest.mark.parametrize("expectation", ["exact", "monte_carlo"])
@settings(max_examples=150)
@given(lowered=st.integers(0, 40).flatmap(lambda e: st.integers(0, 2**e)))
def test_a_corrected_score_is_undefined_within_rounding_of_max_equal_e_and_exact_beyond(
        expectation, lowered):
    """Six features all similar at s = 1 − ``lowered``·2⁻⁵³ and runs {0, 1}, {1, 2}:
    SMA-Mean's I = r + s(2 − r) is linear in r, so E = 2s + (1 − s)·4/6 on both paths
    (the regression estimator is exact for I linear in r) and max − E = (4/3)(1 − s).
    Within an eighth of the derived rounding R the pair is undefined; beyond 2R it equals
    (I − E)/(max − E) of exact arithmetic within R(2 + |score|)/(gap − R). R is computed
    apart: exact path γ_{P+K+a+b+10}(ab/d + 5b), P = C(6, 2)², K = 1; Monte-Carlo
    γ_{N+a+b+16}(2b + ab/d + h̄ + c(r̄ + ab/d)), here between γ·2b (every other term ≥ 0)
    and its value at h̄, r̄ ≤ 2 and c ≤ 2N²a²/(N − 1) (c's numerator is at most 2N²a², its
    denominator, Σ_{i<j} (r_i − r_j)², at least N − 1 unless every r is the same). The old
    cut, 1e-9 · max, left scores undefined for gaps thousands of times R (7 000 R on the
    exact path here)."""
    from paretostab import StabilityWarning, stability

    d, a, n = 6, 2, 50
    s = 1 - lowered * U
    C = np.full((d, d), s)
    np.fill_diagonal(C, 1.0)
    fs = Fraction(s)
    expected = 2 * fs + (1 - fs) * Fraction(4, d)
    gap = 2 - expected
    if expectation == "exact":
        low = high = gamma_n(15**2 + 1 + 2 * a + 10) * (4 / d + 5 * a)
    else:
        g = gamma_n(n + 2 * a + 16)
        c = 2 * n * n * a * a / (n - 1)
        low, high = g * 2 * a, g * (2 * a + 4 / d + a + c * (a + 4 / d))
    runs = np.array([[1, 1, 0, 0, 0, 0], [0, 1, 1, 0, 0, 0]], dtype=bool)
    options = {"similarity": C, "expectation": expectation, "n_samples": n}
    if gap <= low / 8:
        with pytest.warns(StabilityWarning, match=r"max = E"):
            assert np.isnan(stability("sma_mean", runs, **options))
    elif gap >= 2 * high:
        exact = (1 + fs - expected) / gap  # r = 1: I = 1 + s
        bound = float(high) * (2 + abs(float(exact))) / (float(gap) - float(high))
        assert stability("sma_mean", runs, **options) == pytest.approx(float(exact),
                                                                         abs=bound)


@pytest.mark.parametrize(("factor", "accepted"), [(1 + 0.5e-6, True), (1 - 0.5e-6, True),
                                                  (1 + 2e-6, False), (1 - 2e-6, False)])
def test_a_callable_weight_integrates_to_one_within_the_stated_tolerance(factor, accepted):
    """Not a rounding guard but the documented contract of a callable weight: its
    integral over [0, 1]² is 1 to within 1e-6 (plus the cubature's own error estimate,
    1e-16 for this polynomial), relative to the 1 it is compared with, on both sides."""
    from paretostab import InvalidInputError
    from paretostab.front import dominance_area

    def weight(a, phi):
        return factor * (a + phi)

    if accepted:
        assert dominance_area([[1.0, 1.0]], weight=weight) == pytest.approx(factor, rel=1e-9)
    else:
        with pytest.raises(InvalidInputError, match="integrates to"):
            dominance_area([[1.0, 1.0]], weight=weight)
