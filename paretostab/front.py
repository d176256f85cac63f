"""Pareto front and dominance area of (accuracy, stability) points (SPEC §5, 002 §3).

Both objectives are maximised. ``(a₁, φ₁)`` dominates ``(a₂, φ₂)`` iff ``a₁ ≥ a₂`` and
``φ₁ ≥ φ₂`` with at least one inequality strict; the front is the set of non-dominated
points. The dominance area (DA) is the area of the region dominated by the front inside
``[reference, ∞)²`` — the hypervolume with respect to ``reference``; with the papers'
reference ``(0, 0)`` and points in ``[0, 1]²`` it is the uniform-weight DA of 002 eq. 2.

:class:`ParetoFront` gathers a set of points, the front drawn through them, the polygon of
the dominated region and its (weighted) area: everything a drawer of
:mod:`paretostab.plot` shows, computed here once.

Everything here is pure numpy: inputs are never modified, and nothing imports matplotlib.

The area is computed from the staircase *strips* of the front (:func:`_strips`): the
vertical strip ``[x_lo, x_hi] × [r_φ, y_hi]`` under each front point. A separable weight
``w(a, φ) = w_a(a) w_φ(φ)`` (the weighted DA, SPEC §5) integrates exactly over each strip
as ``(W_a(x_hi) − W_a(x_lo)) (W_φ(y_hi) − W_φ(r_φ))`` with ``W`` the primitives, which is
where the ``weight=`` of :func:`dominance_area` plugs in (the primitives are
:attr:`paretostab._weight.Weight.primitives`; a non-separable weight is integrated
numerically over each strip).

:func:`gamma_table` and :func:`choose` are the trade-off by γ of 003 §7.1: the front
points maximising ``γA + (1 − γ)φ`` — the vertices of the front's upper-right convex hull
— and the γ interval over which each wins.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from paretostab._errors import InvalidInputError
from paretostab._rounding import UNIT_ROUNDOFF, gamma_n
from paretostab._validation import Interval, is_number
from paretostab._weight import Weight, as_weight

__all__ = ["GammaChoice", "ParetoFront", "as_gamma", "as_points", "choose", "dominance_area",
           "gamma_table", "pareto_front", "staircase"]

#: γ, the trade-off weight of accuracy (003 §7.1).
GAMMA = Interval("number", 0, 1)


def as_points(points: object, /) -> np.ndarray:
    """``points`` as a float (n, 2) array of (accuracy, stability) pairs (SPEC §5).

    Parameters
    ----------
    points : array-like (n, 2)
        An empty sequence is read as no points.

    Returns
    -------
    float array (n, 2)
        ``points`` itself when it already is one (it is never written to), else a new
        array.

    Raises
    ------
    InvalidInputError
        When ``points`` is not numeric or not of shape (n, 2).
    """
    try:
        arr = np.asarray(points, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(
            f"points must be a numeric (n, 2) array of (accuracy, stability) pairs; could "
            f"not convert it to numbers ({exc})."
        ) from None
    if arr.ndim == 1 and arr.size == 0:
        return arr.reshape(0, 2)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise InvalidInputError(
            f"points must be an (n, 2) array of (accuracy, stability) pairs; got shape "
            f"{arr.shape}."
        )
    return arr


def _as_reference(reference: object) -> np.ndarray:
    try:
        ref = np.asarray(reference, dtype=float)
    except (TypeError, ValueError):
        ref = None
    if ref is None or ref.shape != (2,) or not np.all(np.isfinite(ref)):
        raise InvalidInputError(
            f"reference must be a finite (accuracy, stability) pair; got {reference!r}."
        )
    return ref


def _front_mask(arr: np.ndarray) -> np.ndarray:
    """Boolean mask of the non-dominated rows of a NaN-free (n, 2) array, O(n log n).

    Sweep by decreasing first objective: a point is non-dominated iff it has the largest
    second objective among the points with the same first objective, and a second
    objective strictly larger than every point with a strictly larger first objective.
    """
    n = arr.shape[0]
    mask = np.zeros(n, dtype=bool)
    if n == 0:
        return mask
    a, phi = arr[:, 0], arr[:, 1]
    order = np.lexsort((-phi, -a))  # decreasing a, then decreasing φ
    a_s, phi_s = a[order], phi[order]
    starts = np.ones(n, dtype=bool)
    starts[1:] = a_s[1:] != a_s[:-1]
    # index (in sorted order) of the first point of each point's group of equal a
    group_start = np.maximum.accumulate(np.where(starts, np.arange(n), 0))
    # best φ among the points with strictly larger a (the groups before this one)
    best_before = np.empty(n)
    best_before[0] = -np.inf
    best_before[1:] = np.maximum.accumulate(phi_s)[:-1]
    best_larger_a = best_before[group_start]
    on_front = (phi_s == phi_s[group_start]) & (
        (phi_s > best_larger_a) | (group_start == 0))
    mask[order] = on_front
    return mask


def pareto_front(points: object, /) -> np.ndarray:
    """Indices of the non-dominated rows of ``points``, both objectives maximised.

    Parameters
    ----------
    points : array-like (n, 2)
        (accuracy, stability) pairs — or any two objectives to maximise.

    Returns
    -------
    int array
        Indices into ``points`` of the front (SPEC §5, 002 §3), sorted by increasing first
        objective, then index. Every copy of a front point is on the front; a row with a
        NaN is never on the front and dominates nothing. O(n log n).
    """
    arr = as_points(points)
    valid = np.flatnonzero(~np.isnan(arr).any(axis=1))
    front = valid[_front_mask(arr[valid])]
    return front[np.lexsort((front, arr[front, 0]))]


def _strips(points: object,
            reference: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The staircase strips of the region dominated by the front inside
    ``[reference, ∞)²``: arrays ``x_lo, x_hi, y_hi``, one strip per distinct front point
    by increasing first objective; the strips ``[x_lo, x_hi] × [r_φ, y_hi]`` tile the
    region. Only points strictly dominating ``reference`` in both objectives count."""
    arr = as_points(points)
    inside = np.all(arr > reference, axis=1)  # False for NaN rows
    arr = arr[inside]
    front = arr[_front_mask(arr)]
    front = np.unique(front, axis=0)  # sorted by a; on the front φ then decreases
    x_hi, y_hi = front[:, 0], front[:, 1]
    x_lo = np.concatenate(([reference[0]], x_hi[:-1]))[: x_hi.size]
    return x_lo, x_hi, y_hi


_CUBATURE_RTOL = 1e-10
_CUBATURE_ATOL = 1e-12
_CUBATURE_MAX_SUBDIVISIONS = 10_000  # scipy's default: a few seconds at most
_NORMALISATION_TOL = 1e-6

def _as_trivial_point(trivial_point: object) -> np.ndarray:
    """``(a_rand, φ)`` or a number ``a_rand`` (meaning ``(a_rand, 1)``) as a (1, 2) array."""
    try:
        arr = np.asarray(trivial_point, dtype=float)
    except (TypeError, ValueError):
        arr = None
    if arr is not None and arr.shape == ():
        arr = np.array([arr, 1.0])
    if arr is None or arr.shape != (2,) or not np.all(np.isfinite(arr)):
        raise InvalidInputError(
            "trivial_point must be a finite (accuracy, stability) pair — (a_rand, 1) for a "
            f"fixed arbitrary subset (002 §3) — or the number a_rand; got {trivial_point!r}.")
    return arr.reshape(1, 2)


def _with_trivial_point(points: object, trivial_point: object) -> np.ndarray:
    arr = as_points(points)
    if trivial_point is None:
        return arr
    return np.vstack([arr, _as_trivial_point(trivial_point)])


def _callable_integrals(weight: Weight, x_lo, x_hi, y_lo, y_hi) -> tuple[np.ndarray, np.ndarray]:
    """∫∫ w over each rectangle ``[x_lo, x_hi] × [y_lo, y_hi]`` (vectors), and as the last
    entry over the unit square, by one adaptive vector-valued cubature
    (:func:`scipy.integrate.cubature`, Gauss–Kronrod 21² rule) of ``w`` pulled back to
    the unit square: (estimates, error estimates). Checks every value of ``w`` it
    sees."""
    from scipy.integrate import cubature

    x0 = np.append(x_lo, 0.0)
    y0 = np.append(y_lo, 0.0)
    width = np.append(x_hi, 1.0) - x0
    height = np.append(y_hi, 1.0) - y0

    def integrand(u: np.ndarray) -> np.ndarray:  # u: (n, 2) in [0, 1]² → (n, R)
        shape = (u.shape[0], x0.size)
        a = (x0[None, :] + u[:, :1] * width[None, :]).ravel()
        phi = (y0[None, :] + u[:, 1:] * height[None, :]).ravel()
        try:
            values = np.asarray(weight.density(a, phi), dtype=float)
            values = np.broadcast_to(values, a.shape).reshape(shape)
        except InvalidInputError:
            raise
        except Exception as exc:  # noqa: BLE001 - report any failure of the user's weight
            raise InvalidInputError(
                "a callable weight must take two float arrays a, phi of the same shape and "
                f"return the density w(a, phi) of that shape; calling it failed "
                f"({type(exc).__name__}: {exc}).") from exc
        bad = ~np.isfinite(values) | (values < 0)
        if bad.any():
            i = np.argmax(bad.ravel())
            raise InvalidInputError(
                "a callable weight must be a finite, non-negative density on [0, 1]²; "
                f"w({float(a.ravel()[i])!r}, {float(phi.ravel()[i])!r}) = "
                f"{float(values.ravel()[i])!r}.")
        return values * (width * height)[None, :]

    res = cubature(integrand, [0.0, 0.0], [1.0, 1.0], rtol=_CUBATURE_RTOL,
                   atol=_CUBATURE_ATOL, max_subdivisions=_CUBATURE_MAX_SUBDIVISIONS)
    if res.status != "converged":
        warnings.warn(
            "the adaptive quadrature of the callable weight did not converge; the dominance "
            f"area may be off by up to about {float(np.sum(res.error[:-1])):.2g} "
            "(is the weight smooth?).", RuntimeWarning, stacklevel=4)
    return np.asarray(res.estimate, dtype=float), np.asarray(res.error, dtype=float)


def dominance_area(points: object, /, *, weight: object = None,
                   reference: object = (0.0, 0.0), trivial_point: object = None) -> float:
    """Dominance area of ``points``: the (weighted) area dominated by their front
    (002 §3 eq. 2; SPEC §5).

    Parameters
    ----------
    points : array-like (n, 2)
        (accuracy, stability) pairs, both maximised. Rows with a NaN are ignored; a point
        that does not strictly dominate ``reference`` in both objectives adds nothing.
    weight : None, Weight, "uniform", "accuracy:A", ("accuracy", A), … or callable
        Anything :func:`paretostab._weight.as_weight` reads. ``None`` (default): the plain
        area dominated in ``[reference, ∞)²`` — the hypervolume with respect to
        ``reference``, not bounded by 1.

        Any other value is a density ``w`` on the objective space ``[0, 1]²``, integrating
        to 1 there, and the DA is 002 eq. 2, ``∫∫_{[r_a, 1] × [r_φ, 1]} w(a, φ) f_P(a, φ)
        da dφ`` with ``f_P`` the indicator of the dominated region: coordinates above 1
        count as 1 (a point beyond the space dominates the part of it a point on its edge
        would), ``reference`` must lie in ``[0, 1]²``, and the DA lies in ``[0, 1]``
        (exactly 1 for the point ``(1, 1)`` with the default reference):

        - ``"uniform"``: ``w = 1`` — the same as ``None`` for points in ``[0, 1]²``.
        - ``("accuracy", A)`` or ``"accuracy:A"``: ``w(a, φ) = A e^{A a}/(e^A − 1)``
          (SPEC §5; 002 prints ``e^{A+a}``, a typo: that does not integrate to 1; the
          density and its primitive are :class:`paretostab._weight.Weight`'s). ``A > 0``
          favours high accuracy (002: the blue method of its Figure 2 wins for
          ``A > 2.5``); any finite ``A`` is accepted: ``A < 0`` favours low accuracy,
          ``A = 0`` is the uniform weight (the limit ``A → 0``).
        - ``("stability", A)`` or ``"stability:A"``: the same along the stability axis.
        - a callable ``w(a, phi)``: vectorised — called with two float arrays of the
          same shape, returns the density at those points (an array of that shape, or
          anything broadcastable to it). It must be finite and non-negative wherever it
          is evaluated and integrate to 1 over ``[0, 1]²`` (checked to within 1e-6).

        The uniform and exponential weights are separable, ``w = w_a(a) w_φ(φ)``, and
        integrate exactly over the staircase strips of the front (closed form). A callable
        is integrated numerically over each strip by adaptive Gauss–Kronrod cubature
        (:func:`scipy.integrate.cubature`) to an estimated error of at most
        ``1e-12 + 1e-10 ×`` the strip's integral (for a smooth ``w``; a discontinuous one
        may exhaust the 10 000 subdivisions — a few seconds — and a ``RuntimeWarning``
        then gives the estimated error).
    reference : (float, float)
        The lower-left corner of the measured region; ``(0, 0)`` in the papers.
    trivial_point : (float, float) or float, optional
        A point added to ``points`` before the front is formed: ``(a_rand, 1)`` — a fixed
        arbitrary feature subset is perfectly stable, at the accuracy ``a_rand`` of such a
        model (002 §3). A number ``a_rand`` means ``(a_rand, 1)``.

    Returns
    -------
    float
        0.0 when no point dominates the reference; with ``weight=None``, ``inf`` if a
        dominating point has an infinite coordinate.
    """
    ref = _as_reference(reference)
    arr = _with_trivial_point(points, trivial_point)
    return _dominance_area(arr, as_weight(weight), ref, reference)


def _dominance_area(arr: np.ndarray, weight: Weight | None, ref: np.ndarray,
                    reference: object) -> float:
    """:func:`dominance_area` of the checked points (the trivial point included), weight
    and reference (``reference``: as given, for the error message)."""
    if weight is None:
        x_lo, x_hi, y_hi = _strips(arr, ref)
        return float(np.sum((x_hi - x_lo) * (y_hi - ref[1])))
    if not np.all((ref >= 0.0) & (ref <= 1.0)):
        raise InvalidInputError(
            "with a weight, the dominance area is measured in [reference, 1]² inside the "
            f"objective space [0, 1]²: reference must lie in [0, 1]²; got {reference!r}.")
    x_lo, x_hi, y_hi = _strips(np.minimum(arr, 1.0), ref)  # NaN rows stay NaN
    primitives = weight.primitives
    if primitives is not None:
        w_a, w_phi = primitives
        return float(np.sum((w_a(x_hi) - w_a(x_lo)) * (w_phi(y_hi) - w_phi(ref[1]))))
    integrals, errors = _callable_integrals(weight, x_lo, x_hi,
                                            np.full_like(x_lo, ref[1]), y_hi)
    total = float(integrals[-1])
    if not abs(total - 1.0) <= _NORMALISATION_TOL + errors[-1]:
        raise InvalidInputError(
            f"a callable weight must integrate to 1 over [0, 1]² (to within "
            f"{_NORMALISATION_TOL:g}); it integrates to {total!r}. Divide it by that value.")
    return float(np.sum(integrals[:-1]))


def staircase(points: object, /, *, reference: object = (0.0, 0.0)) -> np.ndarray:
    """Vertices of the upper-right boundary of the region whose area
    :func:`dominance_area` measures, for drawing it.

    Parameters
    ----------
    points, reference
        As :func:`dominance_area`'s (its plain area: coordinates are not capped at 1).

    Returns
    -------
    float array (2P + 1, 2) or (0, 2)
        ``(r_a, φ_1), (a_1, φ_1), (a_1, φ_2), (a_2, φ_2), …, (a_P, φ_P), (a_P, r_φ)`` for
        the P distinct front points dominating ``reference``, by increasing accuracy
        ``a_1 < … < a_P`` (so ``φ_1 > … > φ_P``); together with ``reference`` they close
        the region's polygon. Empty when nothing dominates the reference.
    """
    ref = _as_reference(reference)
    x_lo, x_hi, y_hi = _strips(points, ref)
    if x_hi.size == 0:
        return np.empty((0, 2))
    # each strip contributes its top-left and top-right corners
    corners = np.stack([np.column_stack((x_lo, y_hi)), np.column_stack((x_hi, y_hi))], axis=1)
    return np.vstack([corners.reshape(-1, 2), [[x_hi[-1], ref[1]]]])


# --------------------------------------------------------------------------- ParetoFront


def _readonly(arr: np.ndarray) -> np.ndarray:
    """A read-only copy of ``arr`` (the caller's array is never frozen)."""
    arr = np.array(arr, copy=True)
    arr.flags.writeable = False
    return arr


def _as_rows(rows: object, points: np.ndarray) -> np.ndarray:
    """``rows`` (integer indices of ``points``) as an intp array, NaN rows left out, by
    increasing accuracy, then decreasing stability (a staircase goes down through equal
    accuracies), in the given order otherwise."""
    n = points.shape[0]
    out = []
    for value in np.asarray(rows, dtype=object).ravel():
        if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer) \
                or not 0 <= value < n:
            raise InvalidInputError(
                f"rows must hold row indices of points (integers in [0, {n})) or be None "
                f"(the points' own Pareto front); got {value!r}.")
        out.append(int(value))
    return _by_accuracy(np.asarray(out, dtype=np.intp), points)


def _by_accuracy(rows: np.ndarray, points: np.ndarray) -> np.ndarray:
    rows = rows[~np.isnan(points[rows]).any(axis=1)]
    return rows[np.lexsort((-points[rows, 1], points[rows, 0]))]  # stable


@dataclass(frozen=True, eq=False)
class ParetoFront:
    """A set of (accuracy, stability) points, the front drawn through them and the region
    it dominates, with its (weighted) area (002 §3 eq. 2, Fig. 2–3; SPEC §5): what
    :func:`paretostab.plot.draw_front` and the other front drawers show. Make one with
    :meth:`ParetoFront.of`. Arrays are read-only.

    Attributes
    ----------
    points : float array (n, 2)
        The points (the trivial point not among them); rows with a NaN are kept (and never
        drawn).
    rows : int array (P,)
        Indices into ``points`` of the points drawn as the front, by increasing accuracy,
        then decreasing stability: the points' own Pareto front (:func:`pareto_front`,
        with the trivial point counted), or the rows given to :meth:`of` (without NaN
        rows).
    front_points : float array (P', 2)
        The vertices of the front's staircase: ``points[rows]``, and the trivial point in
        its place when it is on the points' own front — in the same order.
    trivial_point : float array (2,) or None
        ``(a_rand, φ)``, counted in the front (when ``rows`` is None) and the area.
    region : float array (2Q + 2, 2) or (0, 2)
        The polygon of the region whose area is ``dominance_area``: the staircase
        (:func:`staircase`, of the points with the trivial point; with a weight, of the
        points clipped to the objective space ``[0, 1]²``), closed by ``reference``.
        Empty when nothing dominates the reference.
    dominance_area : float
        :func:`dominance_area` of the points with the trivial point, weighted by
        ``weight`` — of the points' own front, whatever ``rows`` says.
    weight : Weight or None
        The weight of the area (:func:`paretostab._weight.as_weight`); None: the plain
        hypervolume.
    reference : float array (2,)
        The lower-left corner of the region.
    """

    points: np.ndarray
    rows: np.ndarray
    front_points: np.ndarray
    trivial_point: np.ndarray | None
    region: np.ndarray
    dominance_area: float
    weight: Weight | None
    reference: np.ndarray

    @classmethod
    def of(cls, points: object, /, *, rows: object = None, weight: object = None,
           reference: object = (0.0, 0.0), trivial_point: object = None) -> ParetoFront:
        """The front of ``points`` and the region it dominates (SPEC §5; 002 §3).

        Parameters
        ----------
        points : array-like (n, 2)
            (accuracy, stability) pairs, both maximised. Not modified (copied).
        rows : sequence of int, optional
            None: draw the points' own Pareto front (the trivial point counted, as in the
            area). Else the row indices of the points to draw as the front instead, e.g.
            the front under another measure (003 Fig. 11), or the front of several groups
            together; the dominance area stays that of the points' own front.
        weight : None, Weight, "uniform", "accuracy:A", ("accuracy", A), … or callable
            The weight of the dominance area: anything
            :func:`paretostab._weight.as_weight` reads (:func:`dominance_area`).
        reference : (float, float)
            The lower-left corner of the region; ``(0, 0)`` in the papers.
        trivial_point : (float, float) or float, optional
            ``(a_rand, 1)`` (002 §3; a number means ``(a_rand, 1)``): counted in the front
            and the area.

        Returns
        -------
        ParetoFront

        Raises
        ------
        InvalidInputError
            For points that are not an (n, 2) array, a bad ``rows``, ``weight``,
            ``reference`` or ``trivial_point`` (naming it).
        """
        ref = _as_reference(reference)
        arr = as_points(points)
        parsed = as_weight(weight)
        everything = _with_trivial_point(arr, trivial_point)
        n = arr.shape[0]
        if rows is None:
            drawn = _by_accuracy(pareto_front(everything), everything)
            front_points = everything[drawn]
            rows_out = drawn[drawn < n]
        else:
            rows_out = _as_rows(rows, arr)
            front_points = arr[rows_out]
        area = _dominance_area(everything, parsed, ref, reference)
        corners = staircase(everything if parsed is None else np.minimum(everything, 1.0),
                            reference=ref)
        region = np.vstack([corners, ref[None, :]]) if corners.size else np.empty((0, 2))
        return cls(points=_readonly(arr), rows=_readonly(rows_out),
                   front_points=_readonly(front_points),
                   trivial_point=(None if trivial_point is None
                                  else _readonly(everything[-1])),
                   region=_readonly(region), dominance_area=area, weight=parsed,
                   reference=_readonly(ref))


# --------------------------------------------------------------------------- γ choice

@dataclass(frozen=True)
class GammaChoice:
    """A front point that maximises ``γA + (1 − γ)φ`` for the γ in
    ``[gamma_low, gamma_high]`` (003 §7.1): a vertex of the upper-right convex hull.

    ``willingness_low``, ``willingness_high`` are the same interval on the scale
    ``γ/(1 − γ)`` (``γ = w/(1 + w)``): the stability a user demands in exchange for each
    unit of accuracy given up — 003: "a willingness to sacrifice a point in accuracy if
    stability can be increased by more than γ/(1−γ)". They are the slopes ``|Δφ/ΔA|`` of
    the two hull segments that meet at this point: ``willingness_low`` that of the segment
    towards the next more stable choice (0 for the most stable choice), ``willingness_high``
    that of the segment towards the next more accurate choice (``inf`` for the most
    accurate one).

    Attributes
    ----------
    index : int
        The point's row in the points given to :func:`gamma_table`.
    accuracy, stability : float
        Its coordinates.
    gamma_low, gamma_high : float
        The γ interval in [0, 1] where it is the choice.
    willingness_low, willingness_high : float
        That interval on the scale ``γ/(1 − γ)``, in [0, ∞].
    """

    index: int
    accuracy: float
    stability: float
    gamma_low: float
    gamma_high: float
    willingness_low: float
    willingness_high: float


def _hull_vertices(points: object) -> tuple[np.ndarray, np.ndarray]:
    """(indices, coordinates) of the upper-right convex hull vertices of the front of
    ``points``, by increasing accuracy; the lowest index stands for duplicates."""
    arr = as_points(points)
    front = pareto_front(arr)  # by increasing accuracy, then index
    if front.size and not np.all(np.isfinite(arr[front])):
        raise InvalidInputError(
            "the γ trade-off needs finite (accuracy, stability) points; the front holds "
            f"{arr[front][~np.all(np.isfinite(arr[front]), axis=1)][0].tolist()}.")
    f = arr[front]
    first = np.ones(front.size, dtype=bool)  # equal front points are adjacent
    first[1:] = np.any(f[1:] != f[:-1], axis=1)
    front, f = front[first], f[first]
    hull: list[int] = []
    for k in range(front.size):  # Andrew's monotone chain, upper hull, left to right
        while len(hull) >= 2:
            o, m = f[hull[-2]], f[hull[-1]]
            u, v = m - o, f[k] - o
            cross = u[0] * v[1] - u[1] * v[0]
            # m is dropped unless it lies strictly above the chord o–k (a right turn),
            # beyond rounding: two differences, two products and a subtraction put γ_4 on
            # each product, and points on a line to the rounding of their coordinates of
            # size ≤ s (a + φ = 1 computed as 1 − a) move u and v by 2us each coordinate
            scale = np.max(np.abs([o, m, f[k]]))
            rounding = (gamma_n(4) * (abs(u[0] * v[1]) + abs(u[1] * v[0]))
                        + 2 * UNIT_ROUNDOFF * scale * (np.abs(u).sum() + np.abs(v).sum()))
            if cross >= -rounding:
                hull.pop()
            else:
                break
        hull.append(k)
    return front[hull], f[hull]


def gamma_table(points: object, /) -> tuple[GammaChoice, ...]:
    """The front points a user maximising ``γA + (1 − γ)φ`` for some ``γ ∈ [0, 1]`` can
    choose (003 §7.1), with the γ interval over which each wins.

    Only vertices of the upper-right convex hull of the front win (003: the objective
    "restricts our analysis to the convex hull of the Pareto-optimal curve"). With hull
    vertices ``v_0, …, v_m`` by increasing accuracy (so decreasing stability) and the
    slopes ``s_j = (φ_{j−1} − φ_j)/(a_j − a_{j−1})`` of the hull segments (increasing in
    ``j``), ``v_j`` wins exactly when ``s_j ≤ γ/(1 − γ) ≤ s_{j+1}`` (``s_0 = 0``,
    ``s_{m+1} = ∞``), i.e. for ``γ ∈ [s_j/(1 + s_j), s_{j+1}/(1 + s_{j+1})]``.

    Rules: a front point on a hull segment between two vertices (collinear, to the
    rounding of the cross product and of the points' coordinates) ties with them at a
    single γ but is never the only maximiser: it is not listed. Duplicates of a point are
    listed once, with the lowest index. Rows with a NaN are ignored (they are never on the front).

    Parameters
    ----------
    points : array-like (n, 2)
        (accuracy, stability) pairs — e.g. every trial, or just the front.

    Returns
    -------
    tuple of GammaChoice
        By increasing γ, i.e. from the most stable choice (``gamma_low = 0``) to the most
        accurate (``gamma_high = 1``); consecutive intervals share their end. A single
        front point wins on ``[0, 1]``. Empty when no row is free of NaN.

    Raises
    ------
    InvalidInputError
        When a front point has an infinite coordinate.
    """
    index, v = _hull_vertices(points)
    d_a = np.diff(v[:, 0])  # > 0
    d_phi = -np.diff(v[:, 1])  # > 0
    with np.errstate(divide="ignore", over="ignore"):
        slope = d_phi / d_a
    gamma = d_phi / (d_a + d_phi)  # = s/(1 + s), without overflow
    gamma_low = np.concatenate(([0.0], gamma))
    gamma_high = np.concatenate((gamma, [1.0]))
    will_low = np.concatenate(([0.0], slope))
    will_high = np.concatenate((slope, [np.inf]))
    return tuple(
        GammaChoice(index=int(index[j]), accuracy=float(v[j, 0]), stability=float(v[j, 1]),
                    gamma_low=float(gamma_low[j]), gamma_high=float(gamma_high[j]),
                    willingness_low=float(will_low[j]), willingness_high=float(will_high[j]))
        for j in range(index.size))


def as_gamma(gamma: object) -> float | np.integer | np.floating:
    """``gamma`` as the trade-off weight of accuracy, a number in [0, 1] (003 §7.1), else
    one error; the number given (a numpy scalar stays one).

    Parameters
    ----------
    gamma : object
        What a caller gave as γ.
    """
    if not is_number(gamma) or not GAMMA.accepts(gamma):
        GAMMA.refuse("gamma", gamma)
    return gamma


def choose(points: object, /, gamma: float) -> int:
    """Index (into ``points``) of the point maximising ``γA + (1 − γ)φ`` (003 §7.1).

    The winner is the :func:`gamma_table` row whose interval holds ``gamma``, the
    intervals read as half-open ``[gamma_low, gamma_high)`` except the last, which holds
    ``γ = 1``: at a breakpoint, where two hull vertices (and any point on the segment
    between them) tie, the **more accurate** one is chosen. Duplicates resolve to the
    lowest index. Deterministic, and always one of :func:`gamma_table`'s indices.

    Parameters
    ----------
    points : array-like (n, 2)
        (accuracy, stability) pairs; rows with a NaN are ignored.
    gamma : float in [0, 1]
        The weight of accuracy: 0 picks the most stable point, 1 the most accurate.

    Raises
    ------
    InvalidInputError
        When ``gamma`` is not a number in [0, 1] or no row is free of NaN.
    """
    weight = as_gamma(gamma)
    table = gamma_table(points)
    if not table:
        raise InvalidInputError("choose needs at least one (accuracy, stability) point "
                                "without NaN; got none.")
    lows = np.array([c.gamma_low for c in table])
    row = int(np.searchsorted(lows, float(weight), side="right")) - 1
    return table[row].index
