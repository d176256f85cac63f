"""Stability measures of feature rankings: S_JS and Spearman's S_R (004), Canberra φ_can (003).

All take the integer rank matrix ``R`` (M runs × d features, 1 = best). With ``k`` given
only the top-k positions matter: every run holds each rank 1..k once and ranks above k
(possibly tied) elsewhere. ``js`` returns one number computed from the whole set of runs;
``spearman`` and ``canberra`` return the score of every pair of runs ``i < j``, which the
dispatcher averages (004 eq. 6).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.spatial.distance import pdist

from paretostab._errors import InvalidInputError
from paretostab.measures._inputs import PairScores, UndefinedMeasure, check_top_k, pair_index
from paretostab.measures._registry import register

__all__ = ["canberra", "canberra_expected_distance", "js", "jurman_chi", "rank_probabilities",
           "spearman"]

_EXPECTATIONS = ("jurman", "exact")


def _list_length(k: object, d: int) -> int:
    """The number of meaningful top positions: ``d`` for full rankings (``k=None``)."""
    return d if k is None else check_top_k(k, d)


def rank_probabilities(length: int) -> np.ndarray:
    """Aslam & Pavlu's probabilities of ranks 1..``length`` (004 eq. 7 and 14).

    ``p(r) = (1 / 2L) (1 + Σ_{t=r}^{L} 1/t)`` for ``L = length``; they sum to 1.
    """
    tail = np.cumsum(1.0 / np.arange(length, 0, -1))[::-1]  # tail[r − 1] = Σ_{t=r}^{L} 1/t
    return (1.0 + tail) / (2 * length)


@register("js", input="ranking", bounds=(0, 1), corrected=False,
          reference="004 eq. 7, 10–16")
def js(R: np.ndarray, *, k: int | None = None, ranked: bool = True) -> float:
    """S_JS = 1 − D_JS / D*: Jensen–Shannon stability of full, partial ranked or top-k lists.

    Each run j is mapped to a distribution ``p_j`` over the l = d features (004 §3):

    - full rankings (``k=None``), eq. 7: ``p(r) = (1/2l)(1 + Σ_{t=r}^{l} 1/t)``;
    - partial ranked top-k lists (``k`` given, ``ranked=True``), eq. 14: the same with k
      in place of l for ranks r ≤ k, and 0 outside the top k;
    - top-k sets (``ranked=False``, needs ``k``), eq. 15: ``1/k`` on the top k, 0 elsewhere.

    ``D_JS = (1/M) Σ_j KL(p_j ‖ p̄)`` (eq. 10) is normalised by its value for random
    rankings, ``D* = Σ_r p(r) log(p(r) l)`` (eq. 13, which §3.1 keeps for partial ranked
    lists with the probabilities of eq. 14; ``= log(l/k)`` for top-k sets, eq. 16).

    Every ``p_j`` is a permutation of the same vector ``p``, so ``D_JS = H(p̄) − H(p)``
    and ``D* = log l − H(p)``: ``S_JS = KL(p̄ ‖ u) / KL(p ‖ u)`` with ``u`` uniform, which
    is how it is computed (O(Md)). Hence ``0 ≤ S_JS ≤ 1`` (H(p) ≤ H(p̄) ≤ log l): 1 for
    identical runs, 0 exactly when every feature has mean probability 1/l (e.g. M = l
    cyclic shifts of one ranking).

    Not corrected for chance at finite M: 004 states S_JS = 0 for random rankings, which
    holds as M → ∞. For M independent random runs ``E[S_JS] ≈ (l Σ_r p(r)² − 1)/(2 M D*)``
    when Mk ≫ l (≈ 0.012 for M = 100 full rankings of l = 2000, 004 §4.1), and since p̄
    has at most Mk non-zero entries, ``S_JS ≥ log(l/(Mk)) / log(l/k)`` for top-k sets
    when Mk < l (≈ 0.34 for M = 100, k = 20, l = 22 283).

    Parameters
    ----------
    R : array of int, shape (M, d)
        Ranks, 1 = best.
    k : int, optional
        Length of the top-k lists; None uses the full rankings.
    ranked : bool
        With ``k``: True weighs the top k by rank (partial ranked lists, eq. 14), False
        weighs them equally (top-k sets, eq. 15).

    Returns
    -------
    float
        S_JS in [0, 1]; undefined (NaN) when D* = 0: a single feature, or top-k sets with
        k = d.
    """
    if not isinstance(ranked, bool | np.bool_):
        raise InvalidInputError(
            "ranked must be True (partial ranked top-k lists, 004 eq. 14) or False (top-k "
            f"sets, 004 eq. 15); got {ranked!r}."
        )
    d = R.shape[1]
    if not ranked and k is None:
        raise InvalidInputError(
            "ranked=False (top-k sets, 004 eq. 15) needs k=, the number of top features "
            "of each run; got k=None."
        )
    length = _list_length(k, d)
    if ranked:
        p = rank_probabilities(length)
        d_star = float(np.sum(p * np.log(p * d)))
    else:
        p = np.full(length, 1.0 / length)
        d_star = math.log(d / length)
    if d_star <= 0:
        raise UndefinedMeasure(
            f"D* = 0: every run gives the same uniform distribution over its top {length} "
            f"of d = {d} feature(s)"
        )
    by_rank = np.append(p, 0.0)  # index r − 1 for r ≤ length, the trailing 0 beyond
    p_bar = by_rank[np.minimum(R, length + 1) - 1].mean(axis=0)
    p_bar = p_bar[p_bar > 0]
    return float(np.clip(np.sum(p_bar * np.log(p_bar * d)) / d_star, 0.0, 1.0))


@register("spearman", input="ranking", bounds=(-1, 1), corrected=True,
          reference="Spearman 1904; 004 eq. 4, 6")
def spearman(R: np.ndarray) -> PairScores:
    """S_R: mean over pairs of Spearman's ``1 − 6 Σ_f (r_i(f) − r_j(f))² / (l(l² − 1))``.

    004 eq. 4 averaged over pairs of runs (eq. 6). Defined for full rankings only (004
    §2.2: it "is not suitable to partial lists"), so it has no ``k`` option; use ``js``
    or ``canberra`` with ``k`` for top-k lists. −1 for two reversed rankings, 0 in
    expectation for independent random ones. Computed as the Pearson correlation of the
    centred ranks, which equals eq. 4 for permutations. Undefined (NaN) for d = 1.
    """
    M, d = R.shape
    if d == 1:
        raise UndefinedMeasure("a single feature has a single ranking (l(l² − 1) = 0)")
    centred = R - (d + 1) / 2
    gram = centred @ centred.T
    i, j = pair_index(M)
    return PairScores(gram[i, j] / (d * (d * d - 1) / 12))


def jurman_chi(d: int, k: int) -> float:
    """Jurman et al.'s approximate expected Canberra distance χ (003 eq. 5).

    ``χ = ((k+1)(2d−k)/d) log 4 − (2kd + 3d − k − k²)/d``. Asymptotic in k: exact to 0.01 %
    at d = k = 200, but 4–52 % below :func:`canberra_expected_distance` for 2 ≤ d ≤ 7,
    and negative for d = 1.
    """
    return (k + 1) * (2 * d - k) / d * math.log(4) - (2 * k * d + 3 * d - k - k * k) / d


def canberra_expected_distance(d: int, k: int) -> float:
    """Exact expected Canberra distance with location parameter k between two random rankings.

    The value of mlpy's ``canberra_location_expected`` (Jurman et al. 2008), derived here
    by linearity. For two independent uniform permutations of d features the ranks of one
    feature are independent and uniform on 1..d; with ``a = min(r, k+1)``,
    ``P(a = t) = 1/d`` for t ≤ k and ``(d − k)/d`` for t = k + 1, so

    ``E = A_k / d + 2 (d − k) T_k / d``, where
    ``T_k = Σ_{t=1}^{k} (k+1−t)/(k+1+t)`` (one rank in the top k, the other beyond) and
    ``A_k = Σ_{t,u=1}^{k} |t−u|/(t+u)``. Grouping A_k's pairs by ``s = t + u``, the
    differences ``|t − u|`` of the pairs with t ≠ u are the integers ``m ≡ s (mod 2)`` in
    ``[1, n_s]``, ``n_s = min(s − 2, 2k − s)``, each twice, summing to ``⌊(n_s + 1)²/4⌋``:
    ``A_k = 2 Σ_{s=2}^{2k} ⌊(n_s + 1)²/4⌋ / s``, O(k) positive terms.
    """
    s = np.arange(2, 2 * k + 1)
    n = np.minimum(s - 2, 2 * k - s)
    a_k = 2 * np.sum(((n + 1) ** 2 // 4) / s)
    t = np.arange(1, k + 1)
    t_k = np.sum((k + 1 - t) / (k + 1 + t))
    return float(a_k / d + 2 * (d - k) * t_k / d)


@register("canberra", symbol="φ_can", input="ranking", bounds=(-math.inf, 1), corrected=True,
          reference="Jurman et al. 2008; 003 eq. 5")
def canberra(R: np.ndarray, *, k: int | None = None,
             expectation: str = "jurman") -> PairScores:
    """φ_can = 1 − (1/E) mean_{i<j} Σ_f |a_i(f) − a_j(f)| / (a_i(f) + a_j(f)), a = min(r, k+1).

    003 eq. 5: the Canberra distance with location parameter k between every pair of runs,
    divided by its expectation E for random rankings. ``expectation="jurman"`` (default,
    as 003) uses Jurman's approximation χ (:func:`jurman_chi`); ``"exact"`` uses the exact
    expectation (:func:`canberra_expected_distance`), with which E[φ_can] = 0 exactly for
    independent random rankings and ``1 − φ_can`` is mlpy's ``canberra_stability``.

    Features beyond the top k of both runs contribute 0, so only features in some run's
    top k are visited. φ_can ≤ 1 (identical runs); it is negative when runs disagree more
    than random ones, and no lower bound independent of d and k is established (at d = 2,
    two reversed rankings give −1 with the exact expectation, about −3.2 with χ).

    Parameters
    ----------
    R : array of int, shape (M, d)
        Ranks, 1 = best.
    k : int, optional
        Location parameter: the number of top positions compared; None uses full rankings
        (k = d).
    expectation : {"jurman", "exact"}
        The normaliser E.

    Returns
    -------
    PairScores
        ``1 − D_ij / E`` for every pair of runs (averaged by the dispatcher); undefined
        (NaN) for d = 1, where the expected distance is not positive.
    """
    if expectation not in _EXPECTATIONS:
        raise InvalidInputError(
            "expectation must be 'jurman' (Jurman's approximation χ, 003 eq. 5) or 'exact' "
            f"(the exact expected distance); got {expectation!r}."
        )
    d = R.shape[1]
    k = _list_length(k, d)
    expected = jurman_chi(d, k) if expectation == "jurman" else canberra_expected_distance(d, k)
    if expected <= 0:
        raise UndefinedMeasure(
            f"the expected Canberra distance ({expectation}) is {expected:.3g}, not positive, "
            f"for d = {d}, k = {k}"
        )
    clipped = np.minimum(R, k + 1)
    visited = clipped[:, (clipped <= k).any(axis=0)].astype(float)
    return PairScores(1.0 - pdist(visited, "canberra") / expected)
