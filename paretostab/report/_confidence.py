"""Confidence regions of front points and the confidence interval of the dominance area
(002 §3 eqs. 3–4; SPEC §5).

Each front point comes with ``B`` replicate ``(accuracy, stability)`` measurements (e.g.
re-runs of its configuration with fresh seeds). Their mean ``p̄`` estimates the expected
pair ``μ``; Hotelling's ``T²`` gives the elliptical confidence region of ``μ``

    ``B (p̄ − μ)ᵀ C⁻¹ (p̄ − μ) ≤ 2(B − 1)/(B − 2) · F_{2, B−2}(level)``

with ``C`` the unbiased sample covariance of the replicates (002 eq. 4 drops the factor
``B``, which would give the region of a single new measurement rather than of the mean).

The DA interval (002 §3) is the dominance area of the front of each region's *most
dominated* point and that of each region's *most dominant* point. No point of a
non-degenerate ellipse dominates all its other points, so these are read as the corners
of the region's bounding box: ``most_dominated = p̄ − h`` and ``most_dominant = p̄ + h``
with half-widths ``h_i = sqrt(radius2 · C_ii)`` — the extreme values of each coordinate
over the ellipse (the "bottom-left" and "top-right" points of 002 §5, Figure 3c–d). Every
point of the region dominates (or equals) the first and is dominated by (or equals) the
second, so whenever every region holds its ``μ`` the DA of the expected front lies in the
interval (the DA only grows when a point moves up or right): with the Bonferroni levels
``1 − (1 − level)/P`` for the ``P`` regions (``simultaneous=True``) the interval covers
the expected DA with probability at least ``level``.

Pure numpy/scipy; :mod:`paretostab.plot` draws the regions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from paretostab._errors import InvalidInputError
from paretostab._rounding import gamma_n
from paretostab._validation import FRACTION, Interval
from paretostab.front import dominance_area

__all__ = ["DominanceAreaInterval", "Ellipse", "as_level", "confidence_regions",
           "dominance_area_interval", "hotelling_radius2"]

#: The points a region's boundary is drawn with.
BOUNDARY_POINTS = Interval("integer", 3, why=" (points on the boundary)")



def _readonly(arr: np.ndarray) -> np.ndarray:
    arr = np.array(arr, dtype=float)
    arr.flags.writeable = False
    return arr


@dataclass(frozen=True, eq=False)
class Ellipse:
    """The confidence region of one front point's expected (accuracy, stability).

    ``{μ : (μ − center)ᵀ C⁻¹ (μ − center) ≤ radius2}`` with ``C = covariance``.

    Attributes
    ----------
    center : float array (2,)
        ``p̄``, the mean of the replicates.
    covariance : float array (2, 2)
        ``C``, the unbiased (``ddof = 1``) sample covariance of the replicates.
    semi_axes : float array (2,)
        Semi-axis lengths, major first: ``sqrt(radius2 · λ)`` for the eigenvalues ``λ`` of
        ``C``. The minor one is 0 when the replicates vary along a single line (the region
        is then a segment), both are 0 when they are all equal (a point): see
        :attr:`degenerate`.
    angle : float
        Angle (radians, in ``(−π/2, π/2]``) of the major axis from the accuracy axis,
        counter-clockwise towards the stability axis; 0 for a point or a circle.
    replicates : int
        ``B``.
    level : float
        The coverage of this region on its own: ``family_level`` itself, or its
        Bonferroni adjustment ``1 − (1 − family_level)/P`` when ``simultaneous``.
    radius2 : float
        The bound on ``(μ − p̄)ᵀ C⁻¹ (μ − p̄)``: ``2(B − 1)/(B(B − 2)) · F_{2,B−2}(level)``.
    simultaneous : bool
        Whether ``level`` was adjusted so that the ``P`` regions computed together hold
        their expected values simultaneously with probability ``≥ family_level``.
    family_level : float
        The level asked of :func:`confidence_regions`.
    """

    center: np.ndarray
    covariance: np.ndarray
    semi_axes: np.ndarray
    angle: float
    replicates: int
    level: float
    radius2: float
    simultaneous: bool = False
    family_level: float = math.nan

    @property
    def degenerate(self) -> bool:
        """True when the region is a segment or a point (a replicate coordinate, or a
        combination of them, never varies)."""
        return bool(self.semi_axes[1] == 0.0)

    @property
    def half_widths(self) -> np.ndarray:
        """The half-widths ``sqrt(radius2 · C_ii)`` of the region's bounding box: its
        extent along accuracy and along stability (the simultaneous intervals of each
        coordinate)."""
        a, b = self.semi_axes  # = sqrt(radius2 · C_ii) up to the singular cut-off
        c, s = abs(math.cos(self.angle)), abs(math.sin(self.angle))
        return np.array([math.hypot(a * c, b * s), math.hypot(a * s, b * c)])

    @property
    def most_dominated(self) -> np.ndarray:
        """``center − half_widths``: the lower-left corner of the bounding box, dominated
        by (or equal to) every point of the region."""
        return self.center - self.half_widths

    @property
    def most_dominant(self) -> np.ndarray:
        """``center + half_widths``: the upper-right corner of the bounding box, which
        dominates (or equals) every point of the region."""
        return self.center + self.half_widths

    def _frame(self) -> np.ndarray:
        c, s = math.cos(self.angle), math.sin(self.angle)
        return np.array([[c, -s], [s, c]])  # columns: major, minor axis directions

    def contains(self, point: object) -> bool:
        """Whether ``point`` (accuracy, stability) lies in the region, its boundary
        included to the rounding of the coordinates (every point of :meth:`boundary` is
        inside). For a degenerate region: whether it lies on the segment (or is the
        point), to that rounding.

        Parameters
        ----------
        point : (float, float)
            (accuracy, stability); one with a non-finite coordinate is outside.
        """
        try:
            x = np.asarray(point, dtype=float)
        except (TypeError, ValueError):
            x = None
        if x is None or x.shape != (2,):
            raise InvalidInputError(
                f"contains needs one (accuracy, stability) pair; got {point!r}.")
        if not np.all(np.isfinite(x)):
            return False
        u = self._frame().T @ (x - self.center)  # coordinates along the major, minor axes
        axes = self.semi_axes
        # a boundary point's own rounding (the centre plus the rotated axes), x − centre
        # and the rotation leave u off by γ_4 of the coordinates' and the major axis's
        # sizes on each axis (Higham 2002, eq. 3.5): twice that is on the boundary
        rounding = 2 * gamma_n(4) * (float(np.max(np.abs(x)) + np.max(np.abs(self.center)))
                                     + float(axes[0]))
        excess = np.maximum(np.abs(u) - rounding, 0.0)
        if np.any(excess[axes == 0.0] > 0.0):
            return False  # off the segment's line, or off the point
        spread = axes > 0.0
        return bool(np.sum((excess[spread] / axes[spread]) ** 2) <= 1.0 + gamma_n(4))

    def boundary(self, n: int = 128) -> np.ndarray:
        """``n`` points of the boundary, counter-clockwise from the positive end of the
        major axis, equally spaced in the ellipse's parameter; the first point is not
        repeated at the end (draw it as a closed polygon). For a degenerate region the
        points trace the segment there and back (or all equal the point).

        Parameters
        ----------
        n : int
            The number of points, ≥ 3 (default 128).

        Returns
        -------
        float array (n, 2)
            (accuracy, stability) points.
        """
        n = BOUNDARY_POINTS.integer("n", n)
        t = 2.0 * np.pi * np.arange(n) / n
        unit = np.column_stack((self.semi_axes[0] * np.cos(t), self.semi_axes[1] * np.sin(t)))
        return self.center + unit @ self._frame().T


@dataclass(frozen=True)
class DominanceAreaInterval:
    """Confidence interval of the dominance area of the expected front (002 §3).

    Attributes
    ----------
    low, high : float
        The DA of the regions' most dominated points, and of their most dominant points
        (capped at 1, see :func:`dominance_area_interval`).
    estimate : float
        The DA of the regions' centres (the mean replicates).
    level : float
        The level asked of :func:`confidence_regions` (its ``level``).
    simultaneous : bool
        True: the regions hold their expected points simultaneously with probability
        ``≥ level`` (Bonferroni), and so does the interval the expected DA. False: each
        region has coverage ``level`` on its own, and the interval is 002's, without a
        coverage guarantee as a whole.
    """

    low: float
    high: float
    estimate: float
    level: float
    simultaneous: bool


def as_level(level: object) -> float:
    """``level`` as a float strictly between 0 and 1 (a confidence level), else one error."""
    return FRACTION.number("level", level)


def _as_replicates(values: object, i: int) -> np.ndarray:
    where = f"replicates of front point {i}"
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(
            f"{where}: must be a numeric (B, 2) array of (accuracy, stability) replicates; "
            f"could not convert it to numbers ({exc}).") from None
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise InvalidInputError(
            f"{where}: must be a (B, 2) array of (accuracy, stability) replicates; got "
            f"shape {arr.shape}.")
    if arr.shape[0] < 3:
        raise InvalidInputError(
            f"{where}: a Hotelling confidence region needs B >= 3 replicates (F with B − 2 "
            f"degrees of freedom); got B = {arr.shape[0]}.")
    bad = ~np.all(np.isfinite(arr), axis=1)
    if bad.any():
        raise InvalidInputError(
            f"{where}: replicate {int(np.argmax(bad))} is not finite "
            f"({arr[np.argmax(bad)].tolist()}); every replicate needs a finite accuracy and "
            "stability.")
    return arr


def hotelling_radius2(replicates: int, level: float) -> float:
    """The bound ``2(B − 1)/(B(B − 2)) · F_{2,B−2}(level)`` of a region of ``B =
    replicates`` (:attr:`Ellipse.radius2`): its square root is how many of the replicates'
    standard deviations a region (and the DA interval built from it) reaches from their
    mean along each coordinate — 16.3 at B = 3 and 0.61 at B = 20 for ``level`` 0.95."""
    from scipy import stats  # not at import: keeps ``import paretostab.report`` light

    b = replicates
    return 2.0 * (b - 1) / (b * (b - 2)) * float(stats.f.ppf(level, 2, b - 2))


def _ellipse(x: np.ndarray, level: float, simultaneous: bool, family_level: float) -> Ellipse:
    b = x.shape[0]
    center = x.mean(axis=0)
    cov = np.cov(x, rowvar=False, ddof=1)
    radius2 = hotelling_radius2(b, level)
    eigenvalues, vectors = np.linalg.eigh(cov)  # ascending
    sd = np.sqrt(np.clip(eigenvalues, 0.0, None))
    # a direction without spread keeps one of rounding: replicates on a line to the
    # rounding of coordinates of size ≤ s, centred on a mean off by γ_B·s, leave it
    # √3·γ_{B+2}·s (B/(B − 1) ≤ 3/2, two coordinates), and the products and eigh add
    # 2γ_{B+2}·λ_max to its variance (Higham 2002, eq. 3.5; Weyl): twice that is none
    rounding = (math.sqrt(3) * gamma_n(b + 2) * float(np.max(np.abs(x)))
                + math.sqrt(2 * gamma_n(b + 2)) * float(sd[1]))
    sd[sd <= 2 * rounding] = 0.0
    semi = np.sqrt(radius2) * sd[::-1]
    if sd[1] == 0.0 or sd[0] == sd[1]:
        angle = 0.0  # a point, or a circle: no major direction
    else:
        major = vectors[:, 1]
        angle = math.atan2(major[1], major[0])
        if angle <= -math.pi / 2:
            angle += math.pi
        elif angle > math.pi / 2:
            angle -= math.pi
    return Ellipse(center=_readonly(center), covariance=_readonly(cov),
                   semi_axes=_readonly(semi), angle=float(angle), replicates=int(b),
                   level=level, radius2=radius2, simultaneous=simultaneous,
                   family_level=family_level)


def confidence_regions(replicates: Sequence[object], /, *, level: float = 0.95,
                       simultaneous: bool = False) -> tuple[Ellipse, ...]:
    """Hotelling confidence regions of the expected (accuracy, stability) of front points
    (002 §3 eqs. 3–4, with the factor ``B``; SPEC §5).

    Parameters
    ----------
    replicates : sequence of array-like (B, 2)
        One entry per front point: its ``B`` replicate (accuracy, stability) pairs
        (``B`` may differ between points; a (P, B, 2) array works too).
    level : float in (0, 1)
        The confidence level; 0.95 in 002.
    simultaneous : bool
        False: each region has coverage ``level`` (002). True: each has coverage
        ``1 − (1 − level)/P`` (Bonferroni, ``P = len(replicates)``), so that all ``P``
        regions hold their expected points together with probability ``≥ level``.

    Returns
    -------
    tuple of Ellipse
        In the order of ``replicates``.

    Replicates that never vary along some direction (e.g. a stability of 1 in every
    replicate) give a singular covariance: the region is then degenerate — the segment
    (or point) that the ellipse shrinks to as that variance goes to 0, with the same
    ``radius2`` (:attr:`Ellipse.degenerate`). Directions whose standard deviation is
    within the rounding of the replicates' size and of the largest one (about 1e-15 of
    the first and 1e-7 of the second) count as constant.

    Raises
    ------
    InvalidInputError
        For a level outside (0, 1), an entry that is not a (B, 2) array, ``B < 3``, or a
        non-finite replicate — naming the front point.
    """
    level = as_level(level)
    if (isinstance(replicates, str | bytes) or not isinstance(replicates, Sequence | np.ndarray)
            or (isinstance(replicates, np.ndarray) and replicates.ndim == 0)):
        raise InvalidInputError(
            "replicates must be a sequence with one (B, 2) array of (accuracy, stability) "
            f"replicates per front point; got {type(replicates).__name__}.")
    arrays = [_as_replicates(values, i) for i, values in enumerate(replicates)]
    each = 1.0 - (1.0 - level) / len(arrays) if simultaneous and arrays else level
    return tuple(_ellipse(x, each, bool(simultaneous), level) for x in arrays)


def dominance_area_interval(regions: Sequence[Ellipse], /, *, weight: object = None,
                            reference: object = (0.0, 0.0),
                            trivial_point: object = None) -> DominanceAreaInterval:
    """Confidence interval of the dominance area of the expected front (002 §3).

    ``low`` is the DA of the regions' :attr:`~Ellipse.most_dominated` points, ``high``
    that of their :attr:`~Ellipse.most_dominant` points, each coordinate capped at
    ``max(1, centre)`` (an expected accuracy or stability never exceeds 1, so the cap
    loses no coverage), and ``estimate`` the DA of the centres; ``low ≤ estimate ≤
    high``. ``weight``, ``reference`` and ``trivial_point`` are those of
    :func:`~paretostab.front.dominance_area` (the trivial point, known exactly, is
    added to all three fronts).

    Pass the regions of :func:`confidence_regions` with ``simultaneous=True`` for an
    interval that covers the expected DA with probability ``≥ level`` (SPEC §5); with
    ``simultaneous=False`` it is the interval of 002, built from regions of coverage
    ``level`` each.

    Parameters
    ----------
    regions : sequence of Ellipse
        One confidence region per front point, all of one level and ``simultaneous``
        setting.
    weight, reference, trivial_point
        As :func:`~paretostab.front.dominance_area`'s.

    Raises
    ------
    InvalidInputError
        When ``regions`` is empty, holds something other than :class:`Ellipse`, or mixes
        regions computed with different levels or ``simultaneous`` settings.
    """
    regions = tuple(regions)
    if not regions:
        raise InvalidInputError("dominance_area_interval needs at least one confidence "
                                "region (from confidence_regions); got none.")
    for i, region in enumerate(regions):
        if not isinstance(region, Ellipse):
            raise InvalidInputError(
                f"regions must be Ellipse objects from confidence_regions; region {i} is a "
                f"{type(region).__name__}.")
    settings = {(r.family_level, r.level, r.simultaneous) for r in regions}
    if len(settings) > 1:
        raise InvalidInputError(
            "the regions of one interval must come from one confidence_regions call (the "
            f"same level and simultaneous setting); got (level, per-region level, "
            f"simultaneous) = {sorted(settings)}.")
    centers = np.array([r.center for r in regions])
    low_points = np.array([r.most_dominated for r in regions])
    high_points = np.minimum(np.array([r.most_dominant for r in regions]),
                             np.maximum(centers, 1.0))
    kwargs = {"weight": weight, "reference": reference, "trivial_point": trivial_point}
    first = regions[0]
    return DominanceAreaInterval(
        low=dominance_area(low_points, **kwargs),
        high=dominance_area(high_points, **kwargs),
        estimate=dominance_area(centers, **kwargs),
        level=first.family_level if not math.isnan(first.family_level) else first.level,
        simultaneous=first.simultaneous)
