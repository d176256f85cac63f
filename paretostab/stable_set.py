"""The stable set: which features of a chosen trial can be trusted, with a chosen error
control (the issue's question "which features can I trust").

A trial's M runs give a selection matrix Z (M × d, :attr:`~paretostab.RunSet.selection_matrix`);
each feature's selection frequency is its share of the runs, a multiple of 1/M. The
stable set is the features whose frequency reaches a threshold, and the threshold is set
by one of two error controls:

``pfer``
    The expected number of falsely selected features, E[V], bounded as stability
    selection bounds it. Meinshausen & Bühlmann (2010, JRSS-B, Theorem 1), for subsamples
    of ⌊n/2⌋ examples: the features of frequency ≥ π, π > 1/2, satisfy
    E[V] ≤ q² / ((2π − 1) d), with q the mean number of features selected per run.
    Shah & Samworth (2013, JRSS-B), complementary pairs stability selection (CPSS), with
    B complementary pairs (2B runs, each half-sample and its complement): the same bound
    without Meinshausen & Bühlmann's conditions (their Theorem 1, the worst case, R
    stabs' ``assumption = "none"``), and tighter bounds when the frequencies of the
    features of low selection probability have unimodal or r-concave distributions. The
    threshold is the smallest attainable π (a multiple of 1/M above 1/2) whose bound is at
    most the target.
``fdp``
    The false discovery proportion estimated with decoys, as Stabl does (Hédou et al.,
    Nat. Biotech. 2024): the same selector runs on [X, decoys], d real and d decoy
    columns, and FDP⁺(t) = (1 + #{decoys of frequency ≥ t}) / max(1, #{real features of
    frequency ≥ t}). The threshold is the smallest t = j/M with FDP⁺(t) ≤ the target
    (the knockoff+ rule, Barber & Candès 2015); the t minimising FDP⁺ (Stabl's rule) is
    reported too.

The bounds are written from the papers and checked against R stabs 0.6-4 (Hofner,
Boccuto & Göker 2015), ``stabsel_parameters``, whose cutoffs are multiples of 1/(2B) and
whose PFER is rounded to 3 significant digits (the bounds here are not rounded).

Everything here is pure numpy and scipy: inputs are never modified; pandas is imported
by the methods that return a table, the templates when a set is drawn as HTML.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, cast

import numpy as np
from markupsafe import Markup

from paretostab._errors import InvalidInputError, UnknownNameError, described
from paretostab._validation import COUNT, FRACTION, PAIRED_RUNS, POSITIVE, Interval
from paretostab._vocabulary import RESAMPLINGS

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ASSUMPTIONS", "FdpPath", "StableSet", "fdp_path", "fdp_plus", "fdp_threshold",
           "pfer_bound", "pfer_threshold", "selection_frequencies", "stable_set"]

#: The assumptions of the PFER bounds, as R stabs names them: "none" (Meinshausen &
#: Bühlmann's form, Shah & Samworth's worst case), "unimodal" and "r-concave" (Shah &
#: Samworth's, complementary pairs only).
ASSUMPTIONS = ("none", "unimodal", "r-concave")
#: A selection frequency, a threshold on it.
_FREQUENCY = Interval("number", 0, 1)
#: A target FDP⁺.
_FDP = Interval("number", 0, 1, "right")
#: A number of runs (M), of complementary pairs (B).
_TWO_OR_MORE = Interval("integer", 2)
#: The relative rounding under which a bound or FDP⁺ equals its target: q²/((2π − 1)d)
#: at π = 0.6, q = 1, d = 50 is 0.1 in exact arithmetic, 0.1 + 2e-17 in floats.
_EQUAL = 1e-12
#: The r of the r-concave bound: −1/2 for the pairs' simultaneous selection (over B
#: pairs), −1/4 for the frequency (over 2B runs) (Shah & Samworth 2013).
_R_PAIRS, _R_RUNS = -0.5, -0.25
#: The bracket of the tail computation's parameter a (Shah & Samworth's published code
#: searches it in [1e-5, 1e5]; below 1e-5 here when a mean is too small for it).
_A_LOW, _A_HIGH = 1e-5, 1e5
#: The tolerance of the tail maximisation over a: R's optimize default, eps^(1/4), with
#: which the published computation (and R stabs) maximises, so that the bounds are stabs'.
#: The tail grows towards the end a_{k+1}, which Brent's search stops short of: on stabs'
#: grid (tests/data) the exact supremum is a median 0.9 % above, and up to 62 % above at
#: τ = 1, where the bounds are below 0.002.
_XATOL = float(np.finfo(float).eps ** 0.25)


def _frequencies(values: object, name: str) -> np.ndarray:
    """``values`` as a float (d,) array of frequencies in [0, 1] (a new array)."""
    try:
        array = np.array(values, dtype=float)
    except (TypeError, ValueError):
        array = np.array(np.nan)
    if array.ndim != 1:
        raise InvalidInputError(f"{name} must be a 1-D array of frequencies in [0, 1], one "
                                f"per feature; got {described(values)}.")
    if not np.all((array >= 0) & (array <= 1)):
        raise InvalidInputError(f"{name} must hold frequencies in [0, 1]; got "
                                f"{array[~((array >= 0) & (array <= 1))][0]:g}.")
    return array


def _selection(matrix: object, name: str) -> np.ndarray:
    """``matrix`` as a bool (M, d) array, M ≥ 2 runs and d ≥ 1 features."""
    array = np.asarray(matrix)
    if array.ndim != 2 or array.shape[0] < 2 or array.shape[1] < 1:
        raise InvalidInputError(f"{name} must be a 2-D array of at least 2 runs (rows) and "
                                f"1 feature (column); got {described(matrix)}.")
    if array.dtype != np.bool_ and not np.all((array == 0) | (array == 1)):
        raise InvalidInputError(f"{name} must hold only 0/1 (selected or not) values.")
    return array.astype(bool)


def selection_frequencies(selection_matrix: object) -> np.ndarray:
    """Each feature's share of the runs that select it.

    Parameters
    ----------
    selection_matrix : array-like (M, d) of bool or 0/1
        Z, one row per run (:attr:`~paretostab.RunSet.selection_matrix`); M ≥ 2.

    Returns
    -------
    float array (d,)
        Its column counts over M: multiples of 1/M, as the thresholds j/M of
        :func:`pfer_threshold` and :func:`fdp_threshold` are computed.
    """
    matrix = _selection(selection_matrix, "selection_matrix")
    return np.count_nonzero(matrix, axis=0) / matrix.shape[0]


def _check_assumption(assumption: object) -> str:
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
    if tau < 0.5 + 1 / pairs - _EQUAL:
        return math.inf
    if tau <= 0.75:
        if tau <= min(0.5 + theta**2, 0.5 + 1 / (2 * pairs) + 0.75 * theta**2) + _EQUAL:
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
    """The largest P(X ≥ step) over the r-concave distributions of X on {0, …, atoms}
    with mean ``mean`` (Shah & Samworth 2013's tail bound, computed as their published
    code computes it): None when the family is empty (k₀ = ⌈2 mean⌉ + 1 > atoms − 1);
    1 when ``step`` is below k₀; 0 when the mean is 0. The extremal distributions put
    c (a + i)^(1/r) on {0, …, k} and the rest of the mass on k + 1, c fixing the mean, for
    a between a_{k+1} and a_k (:func:`_extremal_parameters`); the tail is maximised over a
    (:func:`scipy.optimize.minimize_scalar`) and over k."""
    from scipy.optimize import minimize_scalar

    first = math.ceil(round(2 * mean, 9)) + 1
    if first > atoms - 1:
        return None
    if step < first or mean == 0:
        return float(step < first)
    ends = _extremal_parameters(mean, atoms, r, first)
    s, index = 1 / r, np.arange(atoms + 1.0)
    best = 0.0
    for k in range(max(first, step - 1), atoms):
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
        up to a multiple of 1/(2B) (the frequencies over 2B runs are).
    pairs : int, optional
        B, the number of complementary pairs: needed by ``"unimodal"`` and
        ``"r-concave"``.

    Returns
    -------
    float
        The bound, not rounded (R stabs reports it to 3 significant digits); ``math.inf``
        where it does not apply: π ≤ 1/2; for ``"unimodal"``, τ < 1/2 + 1/B or τ ≤ 3/4
        with τ ≤ min(1/2 + θ², 1/2 + 1/(2B) + 3θ²/4), θ = q/d; for ``"r-concave"``, q
        above R stabs' ``maxQ`` (⌈4Bq/d⌉ + 1 ≥ 2B, where the tail maximisation has no
        distribution to maximise over).
    """
    n_features = COUNT.integer("n_features", n_features)
    q = Interval("number", 0, n_features, why=" (the mean number selected per run, at "
                 "most n_features)").number("q", q)
    threshold = _FREQUENCY.number("threshold", threshold)
    assumption = _check_assumption(assumption)
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


def _thresholds(runs: int) -> np.ndarray:
    """The attainable thresholds j/M, j = 1 … M, computed as the frequencies are."""
    return np.arange(1, runs + 1) / runs


def _pairs_of(runs: int, assumption: str, pairs: object) -> int | None:
    """B for the bounds of complementary pairs: ``pairs`` when given, else M/2; None for
    ``"none"``, which needs none."""
    if assumption == "none" and pairs is None:
        return None
    if pairs is None:
        return PAIRED_RUNS.integer("runs", runs) // 2
    b = _TWO_OR_MORE.integer("pairs", pairs)
    if 2 * b != runs:
        raise InvalidInputError(f"pairs must be runs / 2 (complementary pairs: 2B runs); "
                                f"got pairs={b} for runs={runs}.")
    return b


def _first_met(values: np.ndarray, target: float) -> float | None:
    """The smallest threshold j/M whose value (``values[j - 1]``) is at most ``target``
    (a value equal to it up to rounding, ``_EQUAL``, meets it)."""
    met = np.flatnonzero(values <= target * (1 + _EQUAL))
    return float((met[0] + 1) / values.size) if met.size else None


def _pfer_bounds(q: float, n_features: int, runs: int, assumption: str,
                 pairs: int | None) -> np.ndarray:
    """:func:`pfer_bound` at each threshold j/M (infinite at j/M ≤ 1/2)."""
    pfer_bound(q, n_features, 1.0, assumption=assumption, pairs=pairs)  # checks them
    return np.array([_bound(q, n_features, t, assumption, pairs) for t in _thresholds(runs)])


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
        The largest E[V] accepted, > 0.
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
    runs = _TWO_OR_MORE.integer("runs", runs)
    target = POSITIVE.number("target", target)
    assumption = _check_assumption(assumption)
    return _first_met(_pfer_bounds(q, n_features, runs, assumption,
                                   _pairs_of(runs, assumption, pairs)), target)


@dataclass(frozen=True)
class FdpPath:
    """FDP⁺ at every attainable threshold (Hédou et al. 2024; Barber & Candès 2015).

    Attributes
    ----------
    threshold : float array (M,)
        t = j/M, j = 1 … M.
    n_real, n_decoys : int arrays (M,)
        The real features and the decoys of frequency ≥ t.
    fdp_plus : float array (M,)
        (1 + n_decoys) / max(1, n_real).
    """

    threshold: np.ndarray
    n_real: np.ndarray
    n_decoys: np.ndarray
    fdp_plus: np.ndarray


def _counts_at(frequencies: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """How many ``frequencies`` reach each threshold (by a sort: O((d + M) log d))."""
    ordered = np.sort(frequencies)
    return frequencies.size - np.searchsorted(ordered, thresholds, side="left")


def fdp_plus(real_frequencies: object, decoy_frequencies: object, threshold: float) -> float:
    """FDP⁺(t) = (1 + #{decoys of frequency ≥ t}) / max(1, #{real features of
    frequency ≥ t}) (Hédou et al. 2024, Stabl's estimate of the false discovery
    proportion; the + 1 of Barber & Candès' knockoff+).

    Parameters
    ----------
    real_frequencies, decoy_frequencies : array-like (d,) and (d',)
        Selection frequencies in [0, 1], of the real features and of their decoys.
    threshold : float
        t in [0, 1].
    """
    real = _frequencies(real_frequencies, "real_frequencies")
    decoys = _frequencies(decoy_frequencies, "decoy_frequencies")
    t = _FREQUENCY.number("threshold", threshold)
    return (1 + int(np.count_nonzero(decoys >= t))) / max(1, int(np.count_nonzero(real >= t)))


def fdp_path(real_frequencies: object, decoy_frequencies: object, *, runs: int) -> FdpPath:
    """:func:`fdp_plus` at each t = j/M, j = 1 … M.

    Parameters
    ----------
    real_frequencies, decoy_frequencies : array-like (d,) and (d',)
        Selection frequencies over ``runs`` runs (multiples of 1/M, as
        :func:`selection_frequencies` gives them).
    runs : int
        M.
    """
    real = _frequencies(real_frequencies, "real_frequencies")
    decoys = _frequencies(decoy_frequencies, "decoy_frequencies")
    thresholds = _thresholds(_TWO_OR_MORE.integer("runs", runs))
    n_real, n_decoys = _counts_at(real, thresholds), _counts_at(decoys, thresholds)
    return FdpPath(thresholds, n_real, n_decoys, (1 + n_decoys) / np.maximum(1, n_real))


def fdp_threshold(real_frequencies: object, decoy_frequencies: object, *, runs: int,
                  target: float) -> tuple[float | None, float]:
    """The smallest t = j/M with FDP⁺(t) ≤ ``target`` (the knockoff+ rule, Barber &
    Candès 2015, on Stabl's decoys).

    Parameters
    ----------
    real_frequencies, decoy_frequencies : array-like (d,) and (d',)
        As :func:`fdp_path` takes them.
    runs : int
        M.
    target : float
        q in (0, 1].

    Returns
    -------
    threshold : float or None
        None when no t meets the target.
    estimate : float
        FDP⁺ at the threshold; when there is none, the least FDP⁺ reachable (at the
        smallest t reaching it, Stabl's rule: :meth:`FdpPath` ``.fdp_plus.argmin()``).
    """
    target = _FDP.number("target", target)
    values = fdp_path(real_frequencies, decoy_frequencies, runs=runs).fdp_plus
    threshold = _first_met(values, target)
    if threshold is None:
        return None, float(values.min())
    return threshold, float(values[round(threshold * values.size) - 1])


def _bounds_at(q: float, n_features: int, threshold: float | None, resampling: str,
               runs: int) -> dict[str, float]:
    """Every PFER bound that applies at ``threshold``: Meinshausen & Bühlmann's ("mb");
    for complementary pairs also Shah & Samworth's worst case ("cpss", the same number
    without MB's conditions), "unimodal" and "r-concave" where finite."""
    if threshold is None or threshold <= 0.5:
        return {}
    mb = pfer_bound(q, n_features, threshold)
    if resampling != "complementary_pairs":
        return {"mb": mb}
    shah_samworth = {assumption: pfer_bound(q, n_features, threshold, assumption=assumption,
                                            pairs=runs // 2)
                     for assumption in ("unimodal", "r-concave")}
    return {"mb": mb, "cpss": mb, **{k: v for k, v in shah_samworth.items() if v < math.inf}}


def _guarantee(control: str, assumption: str, resampling: str,
               sample_fraction: float | None, runs: int) -> str:
    """What the set's number controls, and under which assumption, in plain words."""
    if control == "fdp":
        return ("FDP⁺ is an estimate of the false discovery proportion, not a guarantee: "
                "the decoys are permuted copies of the features, and permuting breaks the "
                "real features' correlation, which the decoys then lack (Hédou et al. 2024).")
    bound = "the bound on E[V], the expected number of selected noise features,"
    heuristic = ("the Meinshausen–Bühlmann bound is proven for subsamples of half the "
                 "examples, so it is heuristic here; use resampling = "
                 "\"complementary_pairs\" for its guarantee.")
    if resampling == "bootstrap":
        return f"Bootstrap resamples: {heuristic}"
    if resampling == "subsample" and sample_fraction != 0.5:
        return f"Subsamples of {sample_fraction:g} of the examples: {heuristic}"
    if resampling == "subsample":
        return (f"Subsamples of half the examples: {bound} holds under Meinshausen & "
                "Bühlmann's (2010) Theorem 1 conditions (exchangeable noise features, a "
                "selector no worse than random guessing).")
    holds = {
        "none": "with no assumption on the selector (Shah & Samworth 2013, Theorem 1)",
        "unimodal": ("if their selection frequencies have unimodal distributions (Shah & "
                     "Samworth 2013)"),
        "r-concave": ("if their selection frequencies are −1/4-concave and the pairs' joint "
                      "selections −1/2-concave (Shah & Samworth 2013)")}[assumption]
    return (f"{runs // 2} complementary pairs: {bound} counted among the features of "
            f"selection probability at most q/d, holds {holds}.")


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


@dataclass(frozen=True, eq=False)
class StableSet:
    """The features a chosen trial's runs select at least as often as a threshold set by
    an error control (:func:`stable_set`; the module says which).

    Attributes
    ----------
    feature_names : tuple of str
        All d features.
    frequencies : float array (d,)
        Their selection frequencies (with ``"fdp"``, on the real columns of the runs with
        decoys).
    decoy_frequencies : float array (d,) or None
        The decoys' frequencies (``"fdp"``).
    importances : float array (d,) or None
        The features' importances, as given.
    runs : int
        M.
    q : float
        The mean number of (real) features selected per run.
    control : {"pfer", "fdp"}
    target : float
        The largest E[V] (``"pfer"``) or FDP⁺ (``"fdp"``) accepted.
    threshold : float or None
        The smallest j/M meeting the target; None when none does (the set is empty).
    assumption : {"none", "unimodal", "r-concave", "decoys"}
    resampling : {"bootstrap", "subsample", "complementary_pairs"}
    sample_fraction : float or None
        The share of the examples in each subsample (``"subsample"``).
    bounds : dict
        At the threshold, every PFER bound that applies: ``"mb"`` (Meinshausen &
        Bühlmann); for complementary pairs also ``"cpss"`` (Shah & Samworth's worst
        case), ``"unimodal"`` and ``"r-concave"`` (where finite).
    guarantee : str
        What the number controls, and under which assumption.
    path_values : float array (M,)
        The bound (``"pfer"``, infinite where it does not apply) or FDP⁺ (``"fdp"``) at
        each threshold j/M.
    """

    feature_names: tuple[str, ...]
    frequencies: np.ndarray
    decoy_frequencies: np.ndarray | None
    importances: np.ndarray | None
    runs: int
    q: float
    control: Literal["pfer", "fdp"]
    target: float
    threshold: float | None
    assumption: str
    resampling: str
    sample_fraction: float | None
    bounds: Mapping[str, float]
    guarantee: str
    path_values: np.ndarray

    @property
    def value(self) -> float | None:
        """The bound or FDP⁺ at :attr:`threshold` (None without one)."""
        if self.threshold is None:
            return None
        return float(self.path_values[round(self.threshold * self.runs) - 1])

    @property
    def best_threshold(self) -> float | None:
        """The smallest j/M where the bound or FDP⁺ is least (Stabl's rule with
        ``"fdp"``); None when the bound applies nowhere."""
        best = int(np.argmin(self.path_values))
        return (best + 1) / self.runs if math.isfinite(self.path_values[best]) else None

    @property
    def best_value(self) -> float:
        """The least bound or FDP⁺ reachable (at :attr:`best_threshold`)."""
        return float(self.path_values.min())

    @property
    def in_set(self) -> np.ndarray:
        """bool (d,): the features whose frequency reaches the threshold."""
        if self.threshold is None:
            return np.zeros(len(self.feature_names), dtype=bool)
        return self.frequencies >= self.threshold

    def _ordered(self) -> list[int]:
        """The indices of the set's features by decreasing frequency, ties by name."""
        return sorted(np.flatnonzero(self.in_set).tolist(),
                      key=lambda i: (-self.frequencies[i], self.feature_names[i]))

    @property
    def features(self) -> tuple[str, ...]:
        """The features of the set by decreasing frequency, ties by name."""
        return tuple(self.feature_names[i] for i in self._ordered())

    def to_frame(self) -> pd.DataFrame:
        """One row per feature: feature, frequency, [decoy_frequency], [importance],
        in_set; by decreasing frequency (ties in feature order)."""
        import pandas as pd

        columns: dict[str, object] = {"feature": list(self.feature_names),
                                      "frequency": self.frequencies}
        if self.decoy_frequencies is not None:
            columns["decoy_frequency"] = self.decoy_frequencies
        if self.importances is not None:
            columns["importance"] = self.importances
        columns["in_set"] = self.in_set
        order = np.argsort(-self.frequencies, kind="stable")
        return pd.DataFrame(columns).iloc[order].reset_index(drop=True)

    def path(self) -> pd.DataFrame:
        """One row per threshold j/M: threshold, selected (real features reaching it),
        ``bound`` (``"pfer"``) or ``fdp_plus`` and ``decoys`` (``"fdp"``)."""
        import pandas as pd

        thresholds = _thresholds(self.runs)
        columns: dict[str, object] = {"threshold": thresholds,
                                      "selected": _counts_at(self.frequencies, thresholds)}
        if self.decoy_frequencies is None:
            columns["bound"] = self.path_values
        else:
            columns["fdp_plus"] = self.path_values
            columns["decoys"] = _counts_at(self.decoy_frequencies, thresholds)
        return pd.DataFrame(columns)

    def to_dict(self) -> dict[str, object]:
        """The set as JSON-ready values (no numpy types; infinite bounds as None)."""
        def floats(values: np.ndarray | None) -> list[float | None] | None:
            return None if values is None else [_finite(v) for v in values.tolist()]

        return {"features": list(self.features), "feature_names": list(self.feature_names),
                "frequencies": floats(self.frequencies),
                "decoy_frequencies": floats(self.decoy_frequencies),
                "importances": floats(self.importances), "runs": self.runs,
                "q": float(self.q), "control": self.control, "target": float(self.target),
                "threshold": self.threshold, "value": _finite(self.value),
                "best_threshold": self.best_threshold, "best_value": _finite(self.best_value),
                "assumption": self.assumption, "resampling": self.resampling,
                "sample_fraction": self.sample_fraction,
                "bounds": {k: _finite(v) for k, v in self.bounds.items()},
                "guarantee": self.guarantee, "path_values": floats(self.path_values)}

    def __repr__(self) -> str:
        """The control, its target and what it gives, not the lists (a short repr, as
        :class:`~paretostab.Choice`'s)."""
        head = (f"StableSet({self.control} <= {self.target:g} ({self.assumption}, "
                f"{self.resampling}, {self.runs} runs): ")
        if self.threshold is None:
            least = ("none applies" if self.best_threshold is None else
                     f"least {self.best_value:.3g} at frequency >= {self.best_threshold:.3g}")
            return f"{head}target not met, {least})"
        return (f"{head}{len(self.features)} of {len(self.feature_names)} features at "
                f"frequency >= {self.threshold:.3g}, {self.control} {self.value:.3g})")

    def __html__(self) -> Markup:
        """The set as HTML (``notebook.html``'s ``stable_set``), as markup."""
        from paretostab._templating import render_macro  # the templates, when drawn

        return render_macro(
            "notebook.html", "stable_set",
            control="the PFER bound" if self.control == "pfer" else "FDP⁺",
            target=self.target, threshold=self.threshold, value=self.value,
            best_threshold=self.best_threshold, best_value=self.best_value,
            n_features=len(self.feature_names), guarantee=self.guarantee,
            features=[(self.feature_names[i], float(self.frequencies[i]))
                      for i in self._ordered()])

    def to_html(self) -> str:
        """The set as HTML: a notebook's representation (``_repr_html_``)."""
        return str(self.__html__())

    _repr_html_ = to_html


def _names(feature_names: Sequence[str] | None, n_features: int) -> tuple[str, ...]:
    if feature_names is None:
        return tuple(f"x{j}" for j in range(n_features))
    names = tuple(str(name) for name in feature_names)
    if len(names) != n_features:
        raise InvalidInputError(f"feature_names must name the {n_features} features; got "
                                f"{len(names)} names.")
    return names


def _importances(importances: object, n_features: int) -> np.ndarray | None:
    if importances is None:
        return None
    array = np.array(importances, dtype=float)
    if array.shape != (n_features,) or not np.all(np.isfinite(array)):
        raise InvalidInputError(f"importances must be {n_features} finite numbers (one per "
                                f"feature); got {described(importances)}.")
    return array


def stable_set(selection_matrix: object, *, pfer: float | None = None,
               fdp: float | None = None, decoy_selection: object = None,
               resampling: str = "bootstrap", sample_fraction: float | None = None,
               assumption: str | None = None, feature_names: Sequence[str] | None = None,
               importances: object = None) -> StableSet:
    """The stable set of a trial's runs under one error control.

    Parameters
    ----------
    selection_matrix : array-like (M, d) of bool or 0/1
        Z, the trial's runs (:attr:`~paretostab.RunSet.selection_matrix`).
    pfer : float, optional
        The largest E[V] accepted (> 0): the threshold is :func:`pfer_threshold`'s.
    fdp : float, optional
        The largest FDP⁺ accepted, in (0, 1]: the threshold is :func:`fdp_threshold`'s.
        Exactly one of ``pfer`` and ``fdp``.
    decoy_selection : array-like (M', 2d), optional
        With ``fdp``: the same selector's runs on [X, decoys], the d real columns first
        then the d decoys; the frequencies are then its real columns'.
    resampling : {"bootstrap", "subsample", "complementary_pairs"}
        How the runs were drawn: what the bound guarantees (:attr:`StableSet.guarantee`).
        Complementary pairs need an even M (B = M/2 pairs).
    sample_fraction : float, optional
        The share of the examples in each subsample: needed by ``"subsample"`` (the
        Meinshausen–Bühlmann bound is proven for 1/2), refused otherwise.
    assumption : {"none", "unimodal", "r-concave"}, optional
        The bound of ``pfer``: by default ``"unimodal"`` for complementary pairs (R
        stabs' default), ``"none"`` otherwise; the other two need complementary pairs.
    feature_names : sequence of str, optional
        The d names (default ``x0``, ``x1``, …).
    importances : array-like (d,), optional
        The features' importances, kept for the tables.

    Returns
    -------
    StableSet
    """
    if (pfer is None) == (fdp is None):
        raise InvalidInputError("Give exactly one of pfer= (a bound on the expected number "
                                "of false selections) and fdp= (a target FDP⁺ over decoys); "
                                f"got pfer={pfer!r}, fdp={fdp!r}.")
    if resampling not in RESAMPLINGS:
        raise UnknownNameError.for_name("resampling", resampling, RESAMPLINGS)
    if resampling == "subsample":
        sample_fraction = FRACTION.number("sample_fraction", sample_fraction)
    elif sample_fraction is not None:
        raise InvalidInputError(f"sample_fraction is only for resampling='subsample'; got "
                                f"{sample_fraction!r} with resampling={resampling!r}.")
    matrix = _selection(selection_matrix, "selection_matrix")
    runs, n_features = matrix.shape
    if resampling == "complementary_pairs":
        PAIRED_RUNS.integer("runs", runs)
    names = _names(feature_names, n_features)
    weights = _importances(importances, n_features)
    if fdp is not None:
        if assumption is not None:
            raise InvalidInputError(f"assumption is for pfer= (the bound's); got "
                                    f"{assumption!r} with fdp=.")
        if decoy_selection is None:
            raise InvalidInputError("fdp= needs decoy_selection= (the runs on the data with "
                                    "decoys: d real columns, then d decoys).")
        decoys = _selection(decoy_selection, "decoy_selection")
        if decoys.shape[1] != 2 * n_features:
            raise InvalidInputError(f"decoy_selection must have 2 × {n_features} columns (the "
                                    f"real features, then their decoys); got "
                                    f"{decoys.shape[1]}.")
        runs = decoys.shape[0]
        frequencies = selection_frequencies(decoys[:, :n_features])
        decoy_frequencies = selection_frequencies(decoys[:, n_features:])
        target = _FDP.number("fdp", fdp)
        values = fdp_path(frequencies, decoy_frequencies, runs=runs).fdp_plus
        q = np.count_nonzero(decoys[:, :n_features]) / runs
        control: Literal["pfer", "fdp"] = "fdp"
        assumed = "decoys"
    else:
        if decoy_selection is not None:
            raise InvalidInputError("decoy_selection is for fdp=; got it with pfer=.")
        pairs = resampling == "complementary_pairs"
        assumed = _check_assumption(("unimodal" if pairs else "none") if assumption is None
                                    else assumption)
        if assumed != "none" and not pairs:
            raise InvalidInputError(f"The {assumed!r} bound needs complementary pairs "
                                    f"(Shah & Samworth 2013); got resampling={resampling!r}.")
        target = POSITIVE.number("pfer", pfer)
        frequencies, decoy_frequencies = selection_frequencies(matrix), None
        q = np.count_nonzero(matrix) / runs
        values = _pfer_bounds(q, n_features, runs, assumed, runs // 2 if pairs else None)
        control = "pfer"
    threshold = _first_met(values, target)
    return StableSet(
        feature_names=names, frequencies=frequencies, decoy_frequencies=decoy_frequencies,
        importances=weights, runs=runs, q=float(q), control=control, target=target,
        threshold=threshold, assumption=assumed, resampling=resampling,
        sample_fraction=sample_fraction,
        bounds=_bounds_at(q, n_features, threshold, resampling, runs),
        guarantee=_guarantee(control, assumed, resampling, sample_fraction, runs),
        path_values=values)
