"""Plain, loop-based definitions of φ_iw and φ_pears (003 eq. 6, 000 eq. 5).

Ground truth for the tests and the baseline of the benchmark: written straight from the
papers, with no vectorisation and no shared code with the package.
"""

from __future__ import annotations

import math
from fractions import Fraction

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
    F = [{f: float(I[i, f]) for f in np.flatnonzero(I[i])} for i in range(M)]
    shared, rand = [], []
    for i in range(M):
        for j in range(i + 1, M):
            if k[i] == 0 and k[j] == 0:
                shared.append(k_bar)
                rand.append(k_bar)
                continue
            shared.append(sum(min(F[i][f], F[j][f]) for f in F[i].keys() & F[j].keys()))
            rand.append(sum(min(a, b) for a in F[i].values() for b in F[j].values()) / d)
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


def chance_double_loop(I: np.ndarray) -> float:
    """C of 003 eq. 6 by its definition (I already normalised)."""
    M, d = I.shape
    k = [int(np.count_nonzero(row)) for row in I]
    k_bar = sum(k) / M
    rand = []
    for i in range(M):
        for j in range(i + 1, M):
            if k[i] == 0 and k[j] == 0:
                rand.append(k_bar)
            else:
                rand.append(sum(min(a, b) for a in I[i][I[i] > 0] for b in I[j][I[j] > 0]) / d)
    return sum(rand) / len(rand)


def algorithm2_chance(I: np.ndarray) -> float:
    """C by 003 Algorithm 2 (Appendix C): sorted rows, prefix sums, one merge per pair.

    Line 12 of the printed algorithm adds ``Ij[1] × ki`` when no value of run i is below
    ``Ij[cj]``; the invariant stated under it requires ``Ij[cj] × ki`` (every min is then
    Ij[cj]), which is what is written here. The printed loop also runs over all ordered
    pairs including i = j and divides by M²; C is the mean over pairs i < j, as in eq. 6.
    """
    M, d = I.shape
    rows = [np.sort(row[row > 0]) for row in I]
    prefix = [np.concatenate([[0.0], np.cumsum(row)]) for row in rows]
    k = [row.size for row in rows]
    k_bar = sum(k) / M
    total = 0.0
    for i in range(M):
        for j in range(i + 1, M):
            if k[i] == 0 and k[j] == 0:
                total += k_bar
                continue
            overlap, ci = 0.0, 0
            for cj in range(k[j]):
                while ci < k[i] and rows[i][ci] < rows[j][cj]:
                    ci += 1
                if ci == 0:
                    overlap += rows[j][cj] * k[i]
                elif ci == k[i]:
                    overlap += prefix[i][k[i]]
                else:
                    overlap += prefix[i][ci] + (k[i] - ci) * rows[j][cj]
            total += overlap / d
    return total / (M * (M - 1) / 2)


def pearson_terms_exact(a: np.ndarray, b: np.ndarray) -> tuple[Fraction, Fraction, Fraction]:
    """(covariance, variance of a, variance of b) of two runs over their d features, in
    exact rational arithmetic on the floats given (000 eq. 5 before the ratio)."""
    a_exact, b_exact = [Fraction(x) for x in a.tolist()], [Fraction(x) for x in b.tolist()]
    mean_a, mean_b = sum(a_exact) / len(a_exact), sum(b_exact) / len(b_exact)
    da, db = [x - mean_a for x in a_exact], [x - mean_b for x in b_exact]
    return (sum(x * y for x, y in zip(da, db, strict=True)), sum(x * x for x in da),
            sum(y * y for y in db))


def correlation(covariance: Fraction, var_a: Fraction, var_b: Fraction) -> float:
    """cov/√(var_a·var_b) to within 1.5 roundings: the exact square, rounded once, then √."""
    return math.copysign(math.sqrt(covariance * covariance / (var_a * var_b)), covariance)


def iw_terms_exact(I: np.ndarray) -> tuple[Fraction, Fraction]:
    """(mean over pairs of |F_i ∩ F_j|_iw − |F_i ∩ F_j|_rand, k̄ − C) of 003 eq. 6 in exact
    rational arithmetic on the (already normalised) floats given, with the empty-run
    conventions of 003 §5; φ_iw is their ratio."""
    M, d = I.shape
    F = [{f: Fraction(float(I[i, f])) for f in np.flatnonzero(I[i])} for i in range(M)]
    k_bar = Fraction(sum(len(run) for run in F), M)
    shared, rand = [], []
    for i in range(M):
        for j in range(i + 1, M):
            if not F[i] and not F[j]:
                shared.append(k_bar)
                rand.append(k_bar)
                continue
            shared.append(sum((min(F[i][f], F[j][f]) for f in F[i].keys() & F[j].keys()),
                              Fraction(0)))
            rand.append(sum((min(a, b) for a in F[i].values() for b in F[j].values()),
                            Fraction(0)) / d)
    pairs = len(shared)
    return (sum(s - r for s, r in zip(shared, rand, strict=True)) / pairs,
            k_bar - sum(rand) / pairs)
