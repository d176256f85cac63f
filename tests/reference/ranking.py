"""Plain, loop-based definitions of S_JS, S_R (004) and the Canberra φ_can (003 eq. 5).

Ground truth for the tests: written straight from the papers' formulas, looping over runs,
pairs and features, with no vectorisation and no shared code with the package.
"""

from __future__ import annotations

import itertools
import math


def js_definition(R, k=None, ranked=True) -> float:
    """S_JS = 1 − D_JS / D* by 004 eq. 7/14/15 (probabilities), 11 (D_JS), 13/16 (D*)."""
    M, l = len(R), len(R[0])
    length = l if k is None else k

    def prob(r):
        if r > length:
            return 0.0
        if not ranked:
            return 1 / length  # eq. 15
        return (1 + sum(1 / t for t in range(r, length + 1))) / (2 * length)  # eq. 7, 14

    P = [[prob(R[j][i]) for i in range(l)] for j in range(M)]
    p_bar = [sum(P[j][i] for j in range(M)) / M for i in range(l)]
    D_js = sum(
        P[j][i] * math.log(P[j][i] / p_bar[i]) for j in range(M) for i in range(l) if P[j][i] > 0
    ) / M  # eq. 11
    if ranked:
        D_star = sum(prob(r) * math.log(prob(r) * l) for r in range(1, length + 1))  # eq. 13
    else:
        D_star = math.log(l / length)  # eq. 16
    return 1 - D_js / D_star


def spearman_definition(R) -> float:
    """Mean over pairs (004 eq. 6) of S_R = 1 − 6 Σ (r_i − r'_i)² / (l(l² − 1)) (eq. 4)."""
    M, l = len(R), len(R[0])
    scores = []
    for a in range(M):
        for b in range(a + 1, M):
            squares = sum((R[a][i] - R[b][i]) ** 2 for i in range(l))
            scores.append(1 - 6 * squares / (l * (l * l - 1)))
    return sum(scores) / len(scores)


def canberra_distance(r, s, k) -> float:
    """Canberra distance with location parameter k between two rank vectors (003 eq. 5)."""
    total = 0.0
    for a, b in zip(r, s, strict=True):
        a, b = min(a, k + 1), min(b, k + 1)
        total += abs(a - b) / (a + b)
    return total


def chi_definition(d, k) -> float:
    """Jurman's χ as printed in 003 after eq. 5."""
    return (k + 1) * (2 * d - k) / d * math.log(4) - (2 * k * d + 3 * d - k - k**2) / d


def expected_canberra_by_ranks(d, k) -> float:
    """Exact expected distance: Σ over the d features of the mean over (rank, rank') ∈ [1, d]².

    For two independent uniform permutations the two ranks of one feature are independent
    and uniform, so the expectation is d · (1/d²) Σ_{r, s} g(r, s).
    """
    total = 0.0
    for r in range(1, d + 1):
        for s in range(1, d + 1):
            total += canberra_distance([r], [s], k)
    return total / d


def expected_canberra_by_enumeration(d, k) -> float:
    """Exact expected distance by enumerating every permutation of d features.

    The distance between runs σ and τ is unchanged by a common relabelling of the features,
    so it equals the distance between the identity and τ∘σ⁻¹, which is uniform when σ and
    τ are independent and uniform: the mean over all τ against the identity is the
    expectation.
    """
    identity = list(range(1, d + 1))
    perms = list(itertools.permutations(identity))
    return sum(canberra_distance(identity, p, k) for p in perms) / len(perms)


def canberra_definition(R, k=None, expectation="jurman") -> float:
    """φ_can = 1 − (1/E) · mean over pairs of the Canberra distance (003 eq. 5)."""
    M, d = len(R), len(R[0])
    k = d if k is None else k
    E = chi_definition(d, k) if expectation == "jurman" else expected_canberra_by_ranks(d, k)
    distances = [canberra_distance(R[a], R[b], k) for a in range(M) for b in range(a + 1, M)]
    return 1 - sum(distances) / len(distances) / E
