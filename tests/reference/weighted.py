"""Plain, loop-based definitions of φ_iw and φ_pears (003 eq. 6, 000 eq. 5).

Ground truth for the tests and the baseline of the benchmark: written straight from the
papers, with no vectorisation and no shared code with the package.
"""

from __future__ import annotations

import numpy as np


def normalise(I: np.ndarray) -> np.ndarray:
    I = np.asarray(I, dtype=float)
    k = [int(np.count_nonzero(row)) for row in I]
    k_bar = sum(k) / len(k)
    return np.array([row * (k_bar / row.sum()) if row.sum() > 0 else row for row in I])


def iw_double_loop(I: np.ndarray) -> float:
    """φ_iw by the definition: a double loop over pairs of runs and their features."""
    I = normalise(I)
    M, d = I.shape
    k = [int(np.count_nonzero(row)) for row in I]
    k_bar = sum(k) / M
    shared, rand = [], []
    for i in range(M):
        for j in range(i + 1, M):
            if k[i] == 0 and k[j] == 0:
                shared.append(k_bar)
                rand.append(k_bar)
                continue
            F_i = [f for f in range(d) if I[i, f] > 0]
            F_j = [f for f in range(d) if I[j, f] > 0]
            shared.append(sum(min(I[i, f], I[j, f]) for f in set(F_i) & set(F_j)))
            rand.append(sum(min(I[i, f], I[j, g]) for f in F_i for g in F_j) / d)
    C = sum(rand) / len(rand)
    return sum(s - r for s, r in zip(shared, rand, strict=True)) / len(shared) / (k_bar - C)


def iw_frequency_form(I: np.ndarray) -> float:
    """φ_iw by its frequency form, 003 eq. 10 (valid when no run is empty)."""
    I = normalise(I)
    M, d = I.shape
    k_bar = np.count_nonzero(I) / M
    p = (I > 0).mean(axis=0)
    n_sel = (I > 0).sum(axis=0)
    I_star = np.zeros(d)
    for f in range(d):
        if n_sel[f]:
            I_star[f] = sum(min(I[i, f], I[j, f]) for i in range(M) for j in range(M)) / n_sel[f] ** 2
    rand = [
        sum(min(a, b) for a in I[i][I[i] > 0] for b in I[j][I[j] > 0]) / d
        for i in range(M)
        for j in range(i + 1, M)
    ]
    C = sum(rand) / len(rand)
    return 1 - M / (M - 1) * (k_bar - np.sum(I_star * p**2)) / (k_bar - C)


def pearson_pairs(W: np.ndarray) -> float:
    """φ_pears: mean of np.corrcoef over pairs of rows."""
    M = W.shape[0]
    return float(np.mean([np.corrcoef(W[i], W[j])[0, 1] for i in range(M) for j in range(i + 1, M)]))
