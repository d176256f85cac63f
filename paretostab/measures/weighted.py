"""Importance-weighted stability measures: φ_pears (000 eq. 5) and φ_iw (003 eq. 6).

Both take the importance matrix ``I`` (M×d, each non-empty row normalised to sum to k̄).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.spatial.distance import pdist

from paretostab.measures._inputs import PairScores, UndefinedMeasure, pair_index
from paretostab.measures._registry import register

_CHUNK_ELEMENTS = 4_000_000


@register("pearson", input="importance", bounds=(-1, 1), corrected=True,
          reference="000 eq. 5; 003 eq. 4")
def pearson(I: np.ndarray) -> PairScores:
    """φ_pears: mean pairwise Pearson correlation between the runs' importance vectors.

    Undefined for a pair where a run's importances are constant over the d features (no
    feature selected, or all features with equal importance).
    """
    centred = I - I.mean(axis=1, keepdims=True)
    norms = np.linalg.norm(centred, axis=1)
    constant = norms <= 1e-12 * np.maximum(1.0, np.abs(I).max(axis=1))
    unit = centred / np.where(constant, 1.0, norms)[:, None]
    i, j = pair_index(I.shape[0])
    values = np.einsum("pf,pf->p", unit[i], unit[j])
    return PairScores(np.where(constant[i] | constant[j], np.nan, np.clip(values, -1, 1)),
                      "a run's importances are constant (no feature, or all with equal weight)")


def pairwise_shared_importance(I: np.ndarray) -> np.ndarray:
    """|F_i ∩ F_j|_iw = Σ_f min(I_fi, I_fj) for every pair i < j (003 eq. 6).

    Uses Σ min(a, b) = (Σa + Σb − Σ|a − b|) / 2 on the features selected at least once.
    """
    A = I[:, I.any(axis=0)]
    totals = A.sum(axis=1)
    i, j = pair_index(I.shape[0])
    l1 = pdist(A, "cityblock") if A.shape[1] else np.zeros(i.size)
    return np.maximum((totals[i] + totals[j] - l1) / 2, 0.0)


def cross_min_sums(I: np.ndarray) -> np.ndarray:
    """T[i, j] = Σ_{f ∈ F_i, g ∈ F_j} min(I_fi, I_gj) for all runs i, j (M×M).

    003 Algorithm 2, vectorised: all non-zero importances are sorted once (O(Mk log Mk));
    for each run i a cumulative count and sum along that order give, for every value v of
    every run, Σ_{f∈F_i} min(I_fi, v) = (sum of run i's values ≤ v) + (#others) · v; a
    sparse product then adds them up per run j. O(M²k̄) time, chunked memory.
    """
    M = I.shape[0]
    rows, cols = np.nonzero(I)
    values = I[rows, cols]
    order = np.argsort(values, kind="stable")
    values, runs = values[order], rows[order]
    k = np.bincount(runs, minlength=M).astype(float)
    membership = sparse.csr_matrix(
        (np.ones(runs.size), (np.arange(runs.size), runs)), shape=(runs.size, M)
    )
    T = np.zeros((M, M))
    if runs.size == 0:
        return T
    block = max(1, _CHUNK_ELEMENTS // runs.size)
    for start in range(0, M, block):
        stop = min(start + block, M)
        member = runs[None, :] == np.arange(start, stop)[:, None]
        count_le = np.cumsum(member, axis=1)
        sum_le = np.cumsum(member * values, axis=1)
        contribution = sum_le + (k[start:stop, None] - count_le) * values[None, :]
        T[start:stop] = (membership.T @ contribution.T).T
    return T


@register("iw", input="importance", bounds=(-1, 1), corrected=True,
          reference="003 eq. 6, Algorithm 2")
def iw(I: np.ndarray) -> float:
    """φ_iw: mean over pairs of (|F_i ∩ F_j|_iw − |F_i ∩ F_j|_rand) / (k̄ − C).

    ``|F_i ∩ F_j|_iw = Σ_{f∈F_i∩F_j} min(I_fi, I_fj)``, ``|F_i ∩ F_j|_rand =
    (1/d) Σ_{f∈F_i, g∈F_j} min(I_fi, I_gj)``, ``C`` their mean over pairs; when exactly one
    run of a pair is empty both terms are 0, when both are empty both are k̄ (003 §5).
    Undefined when no feature is ever selected, or every run selects all d features with
    equal importance (003 Property 1).
    """
    M, d = I.shape
    k = np.count_nonzero(I, axis=1)
    k_bar = k.mean()
    if k_bar == 0:
        raise UndefinedMeasure("no run selected any feature (k̄ = 0)")
    i, j = pair_index(M)
    shared = pairwise_shared_importance(I)
    rand = cross_min_sums(I)[i, j] / d
    both_empty = (k[i] == 0) & (k[j] == 0)
    shared = np.where(both_empty, k_bar, shared)
    rand = np.where(both_empty, k_bar, rand)
    C = rand.mean()
    denominator = k_bar - C
    if denominator <= 1e-12 * k_bar:
        raise UndefinedMeasure(
            f"every run selected all d = {d} features with equal importance (k̄ = C)"
        )
    return float(np.mean(shared - rand) / denominator)
