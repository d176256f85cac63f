"""The PFER bounds of stability selection, and the thresholds they set (the arithmetic
behind :mod:`paretostab.stable_set`, which re-exports :func:`pfer_bound`,
:func:`pfer_threshold` and :data:`ASSUMPTIONS`).

Meinshausen & Bühlmann (2010, JRSS-B, Theorem 1): with subsamples of ⌊n/2⌋, the features of
frequency ≥ π, π > 1/2, satisfy E[V] ≤ q² / ((2π − 1) d). Shah & Samworth (2013, JRSS-B),
for B complementary pairs: the same bound with no assumption on the selector (their
Theorem 1), and tighter ones when the frequencies of the features of low selection
probability have unimodal or r-concave distributions. Checked against R stabs 0.6-4's
``stabsel_parameters`` (tests/data/stabs_parameters.csv).

The r-concave bound takes the supremum of Shah & Samworth's tail over the r-concave
distributions (:func:`_r_concave_tail`). R stabs, which runs Shah & Samworth's published
code, computes a lower approximation of it: it maximises over each extremal family's
parameter by Brent's bounded search alone, which stops within its tolerance of the
family's end, where the tail is largest. On stabs' grid (tests/data) the supremum is a
median 0.85 % above stabs' PFER, differs from it at stabs' 3 significant digits on 394 of
532 values, by up to 23 % at τ < 1 and 62 % at τ = 1; each bound more than 10 % above
stabs' is below 0.01. A bound below its supremum does not bound E[V]; hence the
difference, and thresholds a little higher than stabs' where a target falls between.
"""

from __future__ import annotations

import functools
import math
from typing import cast

import numpy as np

from paretostab._errors import InvalidInputError, UnknownNameError
from paretostab._validation import COUNT, PAIRED_RUNS, POSITIVE, Interval

__all__ = ["ASSUMPTIONS", "EQUAL", "FREQUENCY", "TWO_OR_MORE", "check_assumption", "first_met",
           "pfer_bound", "pfer_path", "pfer_threshold", "run_thresholds"]

#: The assumptions of the PFER bounds, as R stabs names them: "none" (Meinshausen &
#: Bühlmann's form, Shah & Samworth's worst case), "unimodal" and "r-concave" (Shah &
#: Samworth's, complementary pairs only).
ASSUMPTIONS = ("none", "unimodal", "r-concave")
#: A selection frequency, a threshold on it.
FREQUENCY = Interval("number", 0, 1)
#: A number of runs (M), of complementary pairs (B).
TWO_OR_MORE = Interval("integer", 2)
#: The relative rounding under which a bound or FDP⁺ equals its target: q²/((2π − 1)d)
#: at π = 0.6, q = 1, d = 50 is 0.1 in exact arithmetic, 0.1 + 2e-17 in floats.
EQUAL = 1e-12
#: The r of the r-concave bound: −1/2 for the pairs' simultaneous selection (over B
#: pairs), −1/4 for the frequency (over 2B runs) (Shah & Samworth 2013).
_R_PAIRS, _R_RUNS = -0.5, -0.25
#: The bracket of the tail computation's parameter a (Shah & Samworth's published code
#: searches it in [1e-5, 1e5]; below 1e-5 here when a mean is too small for it).
_A_LOW, _A_HIGH = 1e-5, 1e5
#: The tolerance of the search for a maximum of the tail inside an interval of a: R's
#: optimize default, eps^(1/4), as in the published computation. The ends, not searched
#: but evaluated, are exact (:func:`_r_concave_tail`); an interior maximum's value is
#: found to second order in the tolerance.
_XATOL = float(np.finfo(float).eps ** 0.25)


def check_assumption(assumption: object) -> str:
    if assumption not in ASSUMPTIONS:
        raise UnknownNameError.for_name("assumption", assumption, ASSUMPTIONS)
    return str(assumption)


def _grid_step(threshold: float, pairs: int) -> int:
    """The threshold's step w on the 1/(2B) grid of a complementary pairs frequency,
    rounded up: the frequency reaches ``threshold`` iff it reaches w/(2B)."""
    return math.ceil(round(threshold * 2 * pairs, 9))


def _unimodal_bound(q: float, n_features: int, threshold: float, pairs: int) -> float:
    """Shah & Samworth's bound when the frequencies of the features of low selection
    probability have unimodal distributions: E[V] ≤ C(τ, B) q²/d, for τ a multiple of
    1/(2B) in [1/2 + 1/B, 1], with C(τ, B) = 1 / (2(2τ − 1 − 1/(2B))) for τ ≤ 3/4 and
    τ > min(1/2 + θ², 1/2 + 1/(2B) + 3θ²/4), θ = q/d (strictly, up to rounding), and
    C(τ, B) = 4(1 − τ + 1/(2B)) / (1 + 1/B) for τ > 3/4; infinite elsewhere."""
    tau = _grid_step(threshold, pairs) / (2 * pairs)
    theta = q / n_features
    if tau < 0.5 + 1 / pairs - EQUAL:
        return math.inf
    if tau <= 0.75:
        if tau <= min(0.5 + theta**2, 0.5 + 1 / (2 * pairs) + 0.75 * theta**2) + EQUAL:
            return math.inf
        constant = 1 / (2 * (2 * tau - 1 - 1 / (2 * pairs)))
    else:
        constant = 4 * (1 - tau + 1 / (2 * pairs)) / (1 + 1 / pairs)
    return constant * q * q / n_features


@functools.lru_cache(maxsize=1024)
def _extremal_parameters(mean: float, atoms: int, r: float, first: int) -> tuple[float, ...]:
    """a_k for k = first … atoms: the a at which the distribution ∝ (a + i)^(1/r) on
    {0, …, k} has mean ``mean`` (the r-concave family's ends; Shah & Samworth 2013), each
    found by :func:`scipy.optimize.brentq` below the previous one."""
    from scipy.optimize import brentq

    s = 1 / r

    def excess(a: float, k: int) -> float:
        weights = (a + np.arange(k + 1)) ** s
        return float(np.arange(k + 1) @ weights / weights.sum()) - mean

    found = [_A_HIGH]
    for k in range(first, atoms + 1):
        low = _A_LOW
        while excess(low, k) > 0:  # a mean below the published bracket's (q/d ≲ 1e-5)
            low /= 1e3
        found.append(brentq(excess, low, found[-1], args=(k,), xtol=1e-14, rtol=1e-15))
    return tuple(found[1:])


@functools.lru_cache(maxsize=4096)
def _r_concave_tail(mean: float, step: int, atoms: int, r: float) -> float | None:
    """The supremum of P(X ≥ step) over the r-concave distributions of X on {0, …, atoms}
    with mean ``mean`` (Shah & Samworth 2013's D): None when the family is empty
    (k₀ = ⌈2 mean⌉ + 1 > atoms − 1); 0 when the mean is 0; 1 when ``step`` is below k₀
    (the published computation's conventions; the last is a bound, not the supremum).

    The extremal distributions put c (a + i)^(1/r) on {0, …, k} and the rest of the mass
    on k + 1, c fixing the mean, for a in [a_{k+1}, a_k] (:func:`_extremal_parameters`),
    k = k₀ … atoms − 1. Both ends belong to the family: at a_k the mass on k + 1 is 0 (the
    distribution ∝ (a_k + i)^(1/r) on {0, …, k}); at a_{k+1} it is c (a_{k+1} + k + 1)^(1/r),
    the distribution ∝ (a_{k+1} + i)^(1/r) on {0, …, k + 1}, the next family's other end.
    The tail is continuous in a, so its supremum over the closed interval is attained: at
    an end, or at an interior maximum. The ends are evaluated exactly (the tail summed
    from ``step`` up, without cancellation); an interior maximum is searched by
    :func:`scipy.optimize.minimize_scalar` (Brent, bounded), which never evaluates the ends
    themselves. In every family of R stabs' grid (tests/data) the tail is monotone in a,
    its maximum at an end: the published computation, and stabs, maximise by Brent's
    search alone and stop within its tolerance of that end, below the supremum.
    """
    from scipy.optimize import minimize_scalar

    first = math.ceil(round(2 * mean, 9)) + 1
    if first > atoms - 1:
        return None
    if step < first or mean == 0:
        return float(step < first)
    ends = _extremal_parameters(mean, atoms, r, first)
    s, index = 1 / r, np.arange(atoms + 1.0)
    lowest = max(first, step - 1)
    best = 0.0
    for j in range(lowest, atoms + 1):  # the ends: ∝ (a_j + i)^(1/r) on {0, …, j}
        weights = (ends[j - first] + index[:j + 1]) ** s
        best = max(best, float(weights[step:].sum() / weights.sum()))
    for k in range(lowest, atoms):
        support, above = index[:k + 1], k + 1 - index[:k + 1]

        def negative_tail(a: float, support: np.ndarray = support,
                          above: np.ndarray = above) -> float:
            weights = (a + support) ** s
            return (above.size - mean) / (above @ weights) * weights[:step].sum() - 1

        low, high = ends[k + 1 - first], ends[k - first]
        found = minimize_scalar(negative_tail, bounds=(low, high), method="bounded",
                                options={"xatol": _XATOL})
        best = max(best, -float(found.fun))
    return best


def _r_concave_bound(q: float, n_features: int, threshold: float, pairs: int) -> float:
    """Shah & Samworth's bound under r-concavity: d · min(1, D(θ², 2τ − 1, B, −1/2),
    D(θ, τ, 2B, −1/4)), D the largest tail of :func:`_r_concave_tail`, θ = q/d; infinite
    when q is too large for the tail computation (4Bθ rounded up, plus 1, reaches 2B:
    R stabs' ``maxQ``)."""
    theta = q / n_features
    step = _grid_step(threshold, pairs)
    runs_tail = _r_concave_tail(theta * 2 * pairs, step, 2 * pairs, _R_RUNS)
    if runs_tail is None:
        return math.inf
    pairs_tail = _r_concave_tail(theta * theta * pairs, step - pairs, pairs, _R_PAIRS)
    tails = [1.0, runs_tail] + ([] if pairs_tail is None else [pairs_tail])
    return n_features * min(tails)


def pfer_bound(q: float, n_features: int, threshold: float, *,
               assumption: str = "none", pairs: int | None = None) -> float:
    """The bound on E[V], the expected number of falsely selected features, of the
    features whose frequency reaches ``threshold``.

    Parameters
    ----------
    q : float
        The mean number of features selected per run, in [0, d].
    n_features : int
        d, the number of features.
    threshold : float
        π (τ) in [0, 1].
    assumption : {"none", "unimodal", "r-concave"}
        ``"none"``: q² / ((2π − 1) d) (Meinshausen & Bühlmann 2010, Theorem 1; Shah &
        Samworth 2013, Theorem 1 for complementary pairs). ``"unimodal"``, ``"r-concave"``:
        Shah & Samworth's tighter bounds for B complementary pairs, the threshold rounded
        up to a multiple of 1/(2B) (the frequencies over 2B runs are). The r-concave bound
        is the supremum over the r-concave distributions; R stabs' is a lower
        approximation of it (below by a median 0.85 %, up to 62 % at τ = 1, on its own
        grid; see the module's docstring).
    pairs : int, optional
        B, the number of complementary pairs: needed by ``"unimodal"`` and
        ``"r-concave"``.

    Returns
    -------
    float
        The bound, not rounded (R stabs reports it to 3 significant digits; its r-concave
        bound is at most this one); ``math.inf``
        where it does not apply: π ≤ 1/2; for ``"unimodal"``, τ < 1/2 + 1/B or τ ≤ 3/4
        with τ ≤ min(1/2 + θ², 1/2 + 1/(2B) + 3θ²/4), θ = q/d; for ``"r-concave"``, q
        above R stabs' ``maxQ`` (⌈4Bq/d⌉ + 1 ≥ 2B, where the tail maximisation has no
        distribution to maximise over).
    """
    n_features = COUNT.integer("n_features", n_features)
    q = Interval("number", 0, n_features, why=" (the mean number selected per run, at "
                 "most n_features)").number("q", q)
    threshold = FREQUENCY.number("threshold", threshold)
    assumption = check_assumption(assumption)
    if assumption != "none":
        pairs = Interval("integer", 2, why=f" (the complementary pairs B: the {assumption!r} "
                         "bound needs them)").integer("pairs", pairs)
    return _bound(q, n_features, threshold, assumption, pairs)


def _bound(q: float, n_features: int, threshold: float, assumption: str,
           pairs: int | None) -> float:
    """:func:`pfer_bound` of checked values."""
    if threshold <= 0.5:
        return math.inf
    if assumption == "none":
        return q * q / ((2 * threshold - 1) * n_features)
    bound = _unimodal_bound if assumption == "unimodal" else _r_concave_bound
    return bound(q, n_features, threshold, cast(int, pairs))


def run_thresholds(runs: int) -> np.ndarray:
    """The attainable thresholds j/M, j = 1 … M, computed as the frequencies are."""
    return np.arange(1, runs + 1) / runs


def _pairs_of(runs: int, assumption: str, pairs: object) -> int | None:
    """B for the bounds of complementary pairs: ``pairs`` when given, else M/2; None for
    ``"none"``, which needs none."""
    if assumption == "none" and pairs is None:
        return None
    if pairs is None:
        return PAIRED_RUNS.integer("runs", runs) // 2
    b = TWO_OR_MORE.integer("pairs", pairs)
    if 2 * b != runs:
        raise InvalidInputError(f"pairs must be runs / 2 (complementary pairs: 2B runs); "
                                f"got pairs={b} for runs={runs}.")
    return b


def first_met(values: np.ndarray, target: float) -> float | None:
    """The smallest threshold j/M whose value (``values[j - 1]``) is at most ``target``
    (a value equal to it up to rounding, ``EQUAL``, meets it)."""
    met = np.flatnonzero(values <= target * (1 + EQUAL))
    return float((met[0] + 1) / values.size) if met.size else None


def pfer_path(q: float, n_features: int, runs: int, assumption: str,
                 pairs: int | None) -> np.ndarray:
    """:func:`pfer_bound` at each threshold j/M (infinite at j/M ≤ 1/2)."""
    pfer_bound(q, n_features, 1.0, assumption=assumption, pairs=pairs)  # checks them
    return np.array([_bound(q, n_features, t, assumption, pairs) for t in run_thresholds(runs)])


def pfer_threshold(q: float, n_features: int, target: float, *, runs: int,
                   assumption: str = "none", pairs: int | None = None) -> float | None:
    """The smallest attainable threshold whose PFER bound is at most ``target``.

    Parameters
    ----------
    q : float
        The mean number of features selected per run.
    n_features : int
        d.
    target : float
        The largest E[V] accepted, > 0; a bound above it by a relative 10⁻¹² or less
        (rounding) meets it.
    runs : int
        M: the thresholds are j/M > 1/2.
    assumption : {"none", "unimodal", "r-concave"}
        The bound (:func:`pfer_bound`).
    pairs : int, optional
        B; M/2 when not given (M must then be even for ``"unimodal"`` and
        ``"r-concave"``); when given, M must be 2B.

    Returns
    -------
    float or None
        j/M, or None when no threshold meets the target. R stabs' rule, where they
        differ: for ``"none"`` it takes the real (q²/(target d) + 1)/2, capped at 1 (this
        is the smallest j/M at or above it); its ``"unimodal"`` rule needs the bound
        strictly below the target; its ``"r-concave"`` rule walks down from 1 and may
        return 1/2, or 1 when even 1 fails.
    """
    runs = TWO_OR_MORE.integer("runs", runs)
    target = POSITIVE.number("target", target)
    assumption = check_assumption(assumption)
    return first_met(pfer_path(q, n_features, runs, assumption,
                                   _pairs_of(runs, assumption, pairs)), target)
