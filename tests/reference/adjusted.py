"""Plain definitions of the similarity-adjusted measures (000 eq. 3–4; 001; SPEC §2a; stabm).

Written from the definitions with Python sets and explicit loops, independently of
``paretostab.measures._adjusted``: every pair of runs is visited, and the expectations of
the corrected measures average over *all* pairs of subsets of the two sizes (stabm's
``correction.for.chance = "exact"``). ``S`` is a full d×d nested sequence or array;
"similar" means ``S[x][y] >= threshold``. A measure is NaN as soon as one pair is.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import partial
from itertools import combinations

import numpy as np

NAN = float("nan")


def _sets(Z):
    return [set(np.flatnonzero(row).tolist()) for row in np.asarray(Z)]


def _pairs(Z):
    sets = _sets(Z)
    return [(a, b) for i, a in enumerate(sets) for b in sets[i + 1 :]]


def _mean(values):
    return NAN if any(math.isnan(v) for v in values) else sum(values) / len(values)


# ------------------------------------------------------------------ φ_S and POGR


def sechidis(Z, S, threshold=None):
    """1 − tr(C K)/tr(C Σ⁰) with full d×d matrices (000 eq. 3; stabm)."""
    Z = np.asarray(Z, dtype=float)
    S = np.asarray(S, dtype=float)
    M, d = Z.shape
    k = Z.sum(axis=1)
    k_bar = k.mean()
    if k_bar == 0 or k_bar == d:
        return NAN
    C = S if threshold is None else np.where(S >= threshold, S, 0.0)
    K = np.cov(Z, rowvar=False, ddof=1)
    sigma0 = np.full((d, d), (np.mean(k**2) - k_bar) / (d * d - d) - k_bar**2 / d**2)
    np.fill_diagonal(sigma0, k_bar / d * (1 - k_bar / d))
    denominator = np.trace(C @ sigma0)
    if abs(denominator) < 1e-12:
        return NAN
    return 1 - np.trace(C @ K) / denominator


def pogr(Z, S, threshold=0.9):
    """Mean over ordered pairs i ≠ j of (|F_i ∩ F_j| + O_ij)/k_i (000 eq. 4)."""
    sets = _sets(Z)
    values = []
    for i, a in enumerate(sets):
        for j, b in enumerate(sets):
            if i == j:
                continue
            if not a:
                return NAN
            o = sum(1 for x in a - b if any(S[x][y] >= threshold for y in b))
            values.append((len(a & b) + o) / len(a))
    return sum(values) / len(values)


# ----------------------------------------------------------------- SMU and SMZ


def unadjusted(Z):
    d = np.asarray(Z).shape[1]
    values = []
    for a, b in _pairs(Z):
        n1, n2 = len(a), len(b)
        den = math.sqrt(n1 * n2) - n1 * n2 / d
        values.append(NAN if den == 0 else (len(a & b) - n1 * n2 / d) / den)
    return _mean(values)


def zucknick(Z, S, threshold=0.9):
    def c(k, l):
        total = sum(S[x][y] for x in k for y in l - k if S[x][y] >= threshold)
        return total / len(l) if l else 0.0

    values = []
    for a, b in _pairs(Z):
        union = a | b
        values.append(NAN if not union else (len(a & b) + c(a, b) + c(b, a)) / len(union))
    return _mean(values)


# ------------------------------------------------ intersection statistics I(F, G)


def _edges(F, G, S, threshold):
    return [(x, y) for x in sorted(F - G) for y in sorted(G - F) if S[x][y] >= threshold]


def yu_intersection(F, G, S, threshold):
    edges = _edges(F, G, S, threshold)
    return len(F & G) + (len({x for x, _ in edges}) + len({y for _, y in edges})) / 2


def count_intersection(F, G, S, threshold):
    edges = _edges(F, G, S, threshold)
    return len(F & G) + min(len({x for x, _ in edges}), len({y for _, y in edges}))


def mean_intersection(F, G, S, threshold):
    edges = _edges(F, G, S, threshold)
    rows = {x: [S[x][y] for x2, y in edges if x2 == x] for x, _ in edges}
    cols = {y: [S[x][y] for x, y2 in edges if y2 == y] for _, y in edges}
    row_sum = sum(sum(v) / len(v) for v in rows.values())
    col_sum = sum(sum(v) / len(v) for v in cols.values())
    return len(F & G) + min(row_sum, col_sum)


def greedy_intersection(F, G, S, threshold):
    """001 Algorithm 1: decreasing similarity, ties by (smaller, larger) feature index."""
    edges = sorted(_edges(F, G, S, threshold),
                   key=lambda e: (-S[e[0]][e[1]], min(e), max(e)))
    used_x, used_y = set(), set()
    for x, y in edges:
        if x not in used_x and y not in used_y:
            used_x.add(x)
            used_y.add(y)
    return len(F & G) + len(used_x)


def mbm_intersection(F, G, S, threshold):
    """Maximum bipartite matching by augmenting paths (Kuhn's algorithm)."""
    neighbours = {}
    for x, y in _edges(F, G, S, threshold):
        neighbours.setdefault(x, []).append(y)
    match_of_y = {}

    def augment(x, seen):
        for y in neighbours.get(x, []):
            if y not in seen:
                seen.add(y)
                if y not in match_of_y or augment(match_of_y[y], seen):
                    match_of_y[y] = x
                    return True
        return False

    size = sum(1 for x in neighbours if augment(x, set()))
    return len(F & G) + size


INTERSECTIONS = {
    "yu": (yu_intersection, lambda n1, n2: (n1 + n2) / 2),
    "sma_count": (count_intersection, lambda n1, n2: math.sqrt(n1 * n2)),
    "sma_mean": (mean_intersection, lambda n1, n2: math.sqrt(n1 * n2)),
    "sma_greedy": (greedy_intersection, lambda n1, n2: math.sqrt(n1 * n2)),
    "sma_mbm": (mbm_intersection, lambda n1, n2: math.sqrt(n1 * n2)),
}


def exact_expectation(statistic, n1, n2, d, S, threshold):
    """Mean of ``statistic`` over all pairs (F, G) of subsets with |F| = n1, |G| = n2."""
    values = [statistic(set(F), set(G), S, threshold)
              for F in combinations(range(d), n1) for G in combinations(range(d), n2)]
    return sum(values) / len(values)


def _comb(n, k):
    return math.comb(n, k) if 0 <= k <= n else 0


def yu_expectation(n1, n2, S, threshold=0.9):
    """E[I] of SMY for independent uniform sets of sizes n1, n2, in closed form from the
    degrees δ_x = #{y ≠ x : S[x, y] ≥ θ} — exact for any d (no enumeration).

    E[I] = n1 n2 / d + (E[O_FG] + E[O_GF]) / 2. x counts in O_FG iff x ∈ F \\ G and some
    neighbour y of x is in G \\ F. P(x ∈ F \\ G) = (n1/d)(1 − n2/d); given it, F \\ {x}
    and G are independent uniform (n1 − 1)- and n2-subsets of the other d − 1 features,
    and by inclusion–exclusion over the neighbours J ⊆ N(x) that are all in G \\ F:
    P(no neighbour in G \\ F) = Σ_j (−1)^j C(δ_x, j) C(d−1−j, n2−j)/C(d−1, n2) ·
    C(d−1−j, n1−1)/C(d−1, n1−1).
    """
    S = np.asarray(S)
    d = len(S)
    degrees = ((S >= threshold) & ~np.eye(d, dtype=bool)).sum(axis=1).tolist()

    def outside(a, b):  # E[O_FG] for |F| = a, |G| = b
        if a == 0 or b == d:
            return Fraction(0)
        total = Fraction(0)
        for delta in degrees:
            none = sum(Fraction((-1) ** j * math.comb(delta, j) * _comb(d - 1 - j, b - j)
                                * _comb(d - 1 - j, a - 1),
                                _comb(d - 1, b) * _comb(d - 1, a - 1))
                       for j in range(delta + 1))
            total += 1 - none
        return Fraction(a * (d - b), d * d) * total

    return float(Fraction(n1 * n2, d) + (outside(n1, n2) + outside(n2, n1)) / 2)


def corrected_terms(name, Z, S, threshold=0.9):
    """(I, E, max) of every pair of runs i < j for a corrected measure, E exact.

    stabm (``stability()``): when no two distinct features are similar, every adjusted
    intersection is the plain one and its maximum √(n1 n2) — SMY too (SPEC §2a).
    """
    statistic, maximum = INTERSECTIONS[name]
    d = np.asarray(Z).shape[1]
    if not any(S[x][y] >= threshold for x in range(d) for y in range(d) if x != y):
        maximum = INTERSECTIONS["sma_count"][1]
    cache = {}
    terms = []
    for a, b in _pairs(Z):
        key = (len(a), len(b))
        if key not in cache:
            cache[key] = exact_expectation(statistic, *key, d, S, threshold)
        terms.append((statistic(a, b, S, threshold), cache[key], maximum(len(a), len(b))))
    return terms


def corrected(name, Z, S, threshold=0.9):
    """Mean over pairs of (I − E)/(max − E), undefined where max = E."""
    return _mean([NAN if top == E else (I - E) / (top - E)
                  for I, E, top in corrected_terms(name, Z, S, threshold)])


MEASURES = {
    "sechidis": sechidis,
    "pogr": pogr,
    "zucknick": zucknick,
    **{name: partial(corrected, name) for name in INTERSECTIONS},
}
