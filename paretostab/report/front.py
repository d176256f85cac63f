"""Pareto front and dominance area of (accuracy, stability) points (SPEC §5, 002 §3).

Both objectives are maximised. ``(a₁, φ₁)`` dominates ``(a₂, φ₂)`` iff ``a₁ ≥ a₂`` and
``φ₁ ≥ φ₂`` with at least one inequality strict; the front is the set of non-dominated
points. The dominance area (DA) is the area of the region dominated by the front inside
``[reference, ∞)²`` — the hypervolume with respect to ``reference``; with the papers'
reference ``(0, 0)`` and points in ``[0, 1]²`` it is the uniform-weight DA of 002 eq. 2.

Everything here is pure numpy: inputs are never modified, and nothing imports matplotlib.

The area is computed from the staircase *strips* of the front (:func:`_strips`): the
vertical strip ``[x_lo, x_hi] × [r_φ, y_hi]`` under each front point. A separable weight
``w(a, φ) = w_a(a) w_φ(φ)`` (the weighted DA, SPEC §5) integrates exactly over each strip
as ``(W_a(x_hi) − W_a(x_lo)) (W_φ(y_hi) − W_φ(r_φ))`` with ``W`` the primitives, which is
where a ``weight=`` option of :func:`dominance_area` plugs in.
"""

from __future__ import annotations

import numpy as np

from paretostab.errors import InvalidInputError

__all__ = ["dominance_area", "pareto_front", "staircase"]


def _as_points(points: object) -> np.ndarray:
    """``points`` as a float (n, 2) array (not copied when it already is one; never
    written to)."""
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
    arr = _as_points(points)
    valid = np.flatnonzero(~np.isnan(arr).any(axis=1))
    front = valid[_front_mask(arr[valid])]
    return front[np.lexsort((front, arr[front, 0]))]


def _strips(points: np.ndarray, reference: np.ndarray):
    """The staircase strips of the region dominated by the front inside
    ``[reference, ∞)²``: arrays ``x_lo, x_hi, y_hi``, one strip per distinct front point
    by increasing first objective; the strips ``[x_lo, x_hi] × [r_φ, y_hi]`` tile the
    region. Only points strictly dominating ``reference`` in both objectives count."""
    arr = _as_points(points)
    inside = np.all(arr > reference, axis=1)  # False for NaN rows
    arr = arr[inside]
    front = arr[_front_mask(arr)]
    front = np.unique(front, axis=0)  # sorted by a; on the front φ then decreases
    x_hi, y_hi = front[:, 0], front[:, 1]
    x_lo = np.concatenate(([reference[0]], x_hi[:-1]))
    return x_lo, x_hi, y_hi


def dominance_area(points: object, /, *, reference: object = (0.0, 0.0)) -> float:
    """Dominance area of ``points``: the area dominated by their front in
    ``[reference, ∞)²`` (002 §3 eq. 2 with uniform weight; SPEC §5).

    Parameters
    ----------
    points : array-like (n, 2)
        (accuracy, stability) pairs, both maximised. Rows with a NaN are ignored; a point
        that does not strictly dominate ``reference`` in both objectives adds nothing.
    reference : (float, float)
        The lower-left corner of the measured region; ``(0, 0)`` in the papers, where
        points in ``[0, 1]²`` give a DA in ``[0, 1]``.

    Returns
    -------
    float
        The exact hypervolume (maximisation) of the front with respect to ``reference``:
        the sum of its staircase strips. 0.0 when no point dominates the reference;
        ``inf`` if a dominating point has an infinite coordinate.
    """
    ref = _as_reference(reference)
    x_lo, x_hi, y_hi = _strips(points, ref)
    return float(np.sum((x_hi - x_lo) * (y_hi - ref[1])))


def staircase(points: object, /, *, reference: object = (0.0, 0.0)) -> np.ndarray:
    """Vertices of the upper-right boundary of the region whose area
    :func:`dominance_area` measures, for drawing it.

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
