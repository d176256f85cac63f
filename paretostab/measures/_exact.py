"""Exact expectations of SMY and SMA-* (stabm's ``correction.for.chance = "exact"``).

For two independent uniform random sets F, G of sizes (a, b) of the d features, the
statistic of SMY and SMA-* is ``I = |F ∩ G| + h``, where h reads only the similar pairs
(``S ≥ threshold``) of the cross block (F \\ G) × (G \\ F) (SPEC §2a;
:mod:`paretostab.measures._adjusted`). Only the *similar features* V — those with a
similar feature other than themselves — can be in such a pair, so h(F, G) = h(F ∩ V,
G ∩ V); and F ∩ V, given its size a', is a uniform a'-subset of V. Hence, exactly,

    E[I] = ab/d + Σ_{a', b'} P(|F ∩ V| = a') P(|G ∩ V| = b') · mean h(F', G'),

the mean over all pairs of subsets F', G' of V of sizes a', b', with the hypergeometric
P(|F ∩ V| = a') = C(v, a') C(d − v, a − a') / C(d, a), v = |V|. With no similar feature
(v = 0) this is the closed form E[I] = ab/d for any d; otherwise the pairs of subsets of V
are enumerated: at most the C(d, a) C(d, b) pairs of subsets of the whole space that stabm
enumerates for every pair of runs (a' ≥ a − (d − v): F has at most d − v features outside
V), and once per pair of run sizes, not per pair of runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import combinations, islice

import numpy as np

from paretostab._errors import InvalidInputError
from paretostab._rounding import gamma_n

__all__ = ["EXACT_LIMIT", "exact_expectations", "subset_pairs"]

#: Largest number of pairs of subsets ``expectation="exact"`` enumerates in one call. stabm
#: 1.2.2 warns above 10⁶ combinations and goes on, holding every combination of a pair of
#: runs in memory at once (about 1 kB each in R) and scoring about 2 600 a second
#: (``stabilityIntersectionCount``, d = 12, sets of 4: 245 025 combinations in 92 s and
#: 317 MB): 10⁸ take it more than ten hours, and about 100 GB for one pair of runs. Here
#: they take minutes (about 2 µs a pair, in batches of bounded memory).
EXACT_LIMIT = 100_000_000

#: h of a batch of pairs of feature sets: ``excess(f, g)`` with feature ids f (P, a') and
#: g (P, b'), one pair a row, gives the P values I − |F ∩ G|.
Excess = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _overlap_sizes(a: int, d: int, v: int) -> range:
    """The sizes a' ≥ 1 that F ∩ V can take for |F| = a (0 gives h = 0)."""
    return range(max(1, a - (d - v)), min(a, v) + 1)


def subset_pairs(sizes: np.ndarray, d: int, v: int) -> int:
    """How many pairs of subsets of the v similar features :func:`exact_expectations`
    enumerates for the size pairs ``sizes`` (rows (a, b), 0 < a ≤ b)."""
    return sum(sum(math.comb(v, x) for x in _overlap_sizes(int(a), d, v))
               * sum(math.comb(v, y) for y in _overlap_sizes(int(b), d, v))
               for a, b in sizes)


def _mean_excess(similar: np.ndarray, x: int, y: int, excess: Excess, batch: int) -> float:
    """Mean h over all pairs of an x-subset and a y-subset of ``similar``."""
    if math.comb(similar.size, x) < math.comb(similar.size, y):  # h is symmetric in (F, G)
        x, y = y, x
    second = similar[np.array(list(combinations(range(similar.size), y)), dtype=np.intp)]
    first = combinations(range(similar.size), x)
    step = max(1, batch // (x * y * len(second)))
    total = 0.0
    while chunk := list(islice(first, step)):
        f = similar[np.array(chunk, dtype=np.intp)]
        total += float(excess(np.repeat(f, len(second), axis=0),
                              np.tile(second, (len(f), 1))).sum())
    return total / (math.comb(similar.size, x) * len(second))


def exact_expectations(sizes: np.ndarray, d: int, similar: np.ndarray, excess: Excess, *,
                       batch: int) -> tuple[np.ndarray, np.ndarray]:
    """E[I] of two uniform random sets of sizes (a, b), for every row (a, b), 0 < a ≤ b,
    of ``sizes``: ab/d plus the hypergeometric mixture of the mean excesses over the
    subsets of the similar features (module docstring); and R, the rounding of the gap
    max − E of the corrected measures where its exact value is 0.

    R follows Higham 2002 (Lemma 3.1 and eq. 3.5, as :mod:`paretostab._rounding`). Every
    statistic is at most its maximum max ≤ b, so each h = I − |F ∩ G| is off by at most
    γ_{a+b+2} · 2b (a + b roundings in SMA-Mean's sums of means, two for adding and taking
    |F ∩ G|; the other statistics' half-integers are exact); the mean over the P pairs of
    subsets of sizes (x, y) by γ_{P+a+b+3} · 2b; the weights, C(·)/C(·) divisions of
    integers, by u. Summing the K terms w·mean (Σw ≤ 1) with ab/d, and the gap:

        R = γ_{P_max+K+a+b+10} · (ab/d + 5b),   P_max the largest P of the size pair.

    Parameters
    ----------
    sizes : int array (S, 2)
        The size pairs.
    d : int
        The number of features.
    similar : int array (v,)
        The similar features V (increasing): those with ``S ≥ threshold`` to another one.
    excess : callable
        h = I − |F ∩ G| of a batch of pairs of feature sets (:data:`Excess`).
    batch : int
        About how many similarity entries one call of ``excess`` may hold.

    Returns
    -------
    values, rounding : float arrays (S,)
        E[I] and R of every size pair.

    Raises
    ------
    InvalidInputError
        When more than :data:`EXACT_LIMIT` pairs of subsets would be enumerated.
    """
    v = similar.size
    total = subset_pairs(sizes, d, v)
    if total > EXACT_LIMIT:
        raise InvalidInputError(
            f"expectation='exact' would enumerate {total:,} pairs of subsets of the {v} "
            f"features that have a similar feature (d = {d}, {len(sizes)} pair(s) of run "
            f"sizes), above the limit of {EXACT_LIMIT:,}; use expectation='monte_carlo' "
            "(with n_samples=) instead."
        )
    values, rounding = np.empty(len(sizes)), np.empty(len(sizes))
    for s, (a, b) in enumerate(sizes.tolist()):
        value, terms, most = a * b / d, 0, 0
        for x in _overlap_sizes(a, d, v):
            for y in _overlap_sizes(b, d, v):
                weight = (math.comb(v, x) * math.comb(d - v, a - x) * math.comb(v, y)
                          * math.comb(d - v, b - y)) / (math.comb(d, a) * math.comb(d, b))
                value += weight * _mean_excess(similar, x, y, excess, batch)
                terms, most = terms + 1, max(most, math.comb(v, x) * math.comb(v, y))
        values[s] = value
        rounding[s] = gamma_n(most + terms + a + b + 10) * (a * b / d + 5 * b)
    return values, rounding
