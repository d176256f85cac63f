"""Importance-weighted stability measures: φ_pears (000 eq. 5) and φ_iw (003 eq. 6).

Both take the importance matrix ``I`` (M×d, each non-empty row normalised to sum to k̄).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paretostab._rounding import gamma_n
from paretostab.measures._inputs import PairScores, UndefinedMeasure, pair_index
from paretostab.measures._registry import register

__all__ = ["chance_overlap", "iw", "pearson"]


@register("pearson", symbol="φ_pears", input="importance", bounds=(-1, 1), corrected=True,
          reference="000 eq. 5; 003 eq. 4")
def pearson(I: np.ndarray) -> PairScores:
    """φ_pears: mean pairwise Pearson correlation between the runs' importance vectors.

    Undefined for a pair where a run's importances are constant over the d features (no
    feature selected, or all features with equal importance).
    """
    d = I.shape[1]
    used = I[:, I.any(axis=0)]  # features never selected are 0 in every run
    n = used.shape[1]
    means = used.sum(axis=1) / d
    # centred before the products (two-pass): Σ_f I_if I_jf − d μ_i μ_j would lose the
    # variance of a nearly constant run to the cancellation, n·u·Σ_f I_if² (issue 37);
    # each of the d − n features never selected has deviation −μ_i
    centred = used - means[:, None]
    covariance = centred @ centred.T + (d - n) * np.outer(means, means)
    variance = np.diag(covariance).copy()
    # a constant run's computed mean is off by at most γ_n·μ (n non-negative terms summed,
    # then ÷d), so its computed variance d·(γ_n·μ)² ≤ γ_n²·Σ_f I_f²; 2γ_n covers the
    # roundings of the deviations and of their squares' sum (Higham 2002, eq. 3.5)
    constant = variance <= (2 * gamma_n(n)) ** 2 * (used**2).sum(axis=1)
    scale = np.sqrt(np.where(constant, 1.0, variance))
    i, j = pair_index(I.shape[0])
    values = covariance[i, j] / (scale[i] * scale[j])
    return PairScores(np.where(constant[i] | constant[j], np.nan, np.clip(values, -1, 1)),
                      "a run's importances are constant (no feature, or all with equal weight)")


def _sum_of_pair_minima(values: np.ndarray, groups: np.ndarray) -> float:
    """Σ over unordered pairs of distinct entries of the same group of min(value, value').

    Sorted ascending inside its group, the entry of rank r (0-based) is the minimum of its
    pairs with the n_g − 1 − r larger ones, so the sum is Σ v · (n_g − 1 − r).
    """
    if values.size == 0:
        return 0.0
    order = np.lexsort((values, groups))
    values, groups = values[order], groups[order]
    _, starts, counts = np.unique(groups, return_index=True, return_counts=True)
    group = np.repeat(np.arange(starts.size), counts)
    rank = np.arange(values.size) - starts[group]
    return float(np.dot(values, counts[group] - 1 - rank))


@dataclass(frozen=True)
class _OverlapSums:
    """Sums over the M(M−1)/2 pairs of runs of the two overlaps of 003 eq. 6."""

    k_bar: float
    shared: float  # Σ_{i<j} |F_i ∩ F_j|_iw, pairs of empty runs excluded
    rand: float  # Σ_{i<j} |F_i ∩ F_j|_rand, pairs of empty runs excluded
    n_pairs: float
    empty_pairs: float  # pairs of two empty runs: k̄ in both overlaps (003 §5)
    n_values: int  # N = Mk̄, the non-zero importances summed
    rand_size: float  # (Σ over all pairs of values + Σ over pairs inside runs) / d

    @property
    def chance(self) -> float:
        return (self.rand + self.empty_pairs * self.k_bar) / self.n_pairs

    @property
    def rounding(self) -> float:
        """Twice a bound on the rounding error of ``k̄ − C``, below which it is no number.

        ``rand`` is the difference of two dot products of the N values with integer
        weights, each off by at most γ_N of its size (Higham 2002, eq. 3.5); ÷d, the empty
        pairs, ÷ the pairs, k̄ = N/M and the subtraction add four roundings.
        """
        return 2 * gamma_n(self.n_values + 4) * (
            self.k_bar + (self.rand_size + self.empty_pairs * self.k_bar) / self.n_pairs)


def _overlap_sums(I: np.ndarray) -> _OverlapSums:
    """Both overlap sums in O(Mk̄ log(Mk̄)) by sorting, without visiting pairs of runs.

    ``Σ_{i<j} |F_i ∩ F_j|_iw`` pairs the values of each feature across runs (the
    numerator of the frequency form, 003 eq. 10); ``Σ_{i<j} Σ_{f∈F_i, g∈F_j}
    min(I_fi, I_gj)`` is the sum over all pairs of values minus the pairs inside a run.
    """
    M, d = I.shape
    used = I[:, I.any(axis=0)]  # features never selected carry nothing
    runs, features = np.nonzero(used)
    values = used[runs, features]
    empty = M - np.unique(runs).size
    everything = _sum_of_pair_minima(values, np.zeros_like(runs))
    within = _sum_of_pair_minima(values, runs)
    return _OverlapSums(
        k_bar=values.size / M,
        shared=_sum_of_pair_minima(values, features),
        rand=(everything - within) / d,
        n_pairs=M * (M - 1) / 2,
        empty_pairs=empty * (empty - 1) / 2,
        n_values=values.size,
        rand_size=(everything + within) / d,
    )


def chance_overlap(I: np.ndarray) -> float:
    """C, the mean over pairs of runs of |F_i ∩ F_j|_rand: the chance correction of φ_iw.

    003 eq. 6 with its conventions for empty runs. Computed in O(Mk̄ log(Mk̄)) by
    sorting all importance values once, below the O(M²k̄ + Mk log k) of 003 Algorithm 2
    (kept in the tests as the reference).
    """
    return _overlap_sums(I).chance


@register("iw", symbol="φ_iw", input="importance", bounds=(-1, 1), corrected=True,
          reference="003 eq. 6, Algorithm 2")
def iw(I: np.ndarray) -> float:
    """φ_iw: mean over pairs of (|F_i ∩ F_j|_iw − |F_i ∩ F_j|_rand) / (k̄ − C).

    ``|F_i ∩ F_j|_iw = Σ_{f∈F_i∩F_j} min(I_fi, I_fj)``, ``|F_i ∩ F_j|_rand =
    (1/d) Σ_{f∈F_i, g∈F_j} min(I_fi, I_gj)``, ``C`` their mean over pairs
    (:func:`chance_overlap`); when exactly one run of a pair is empty both terms are 0,
    when both are empty both are k̄ (003 §5). Undefined when no feature is ever
    selected, or every run selects all d features with equal importance (003 Property 1).
    Only means over pairs enter, so the sums are formed without visiting pairs of runs.
    """
    sums = _overlap_sums(I)
    if sums.k_bar == 0:
        raise UndefinedMeasure("no run selected any feature (k̄ = 0)")
    denominator = sums.k_bar - sums.chance
    if denominator <= sums.rounding:  # k̄ = C to rounding, relative to k̄ and C's terms
        raise UndefinedMeasure(
            f"every run selected all d = {I.shape[1]} features with equal importance (k̄ = C)"
        )
    # pairs of two empty runs add k̄ to both overlaps: they cancel in the numerator
    return float((sums.shared - sums.rand) / sums.n_pairs / denominator)
