"""Every registered measure's metadata against the papers' and stabm's own table
(issue 24): whether it is corrected for chance, its bounds, which set the report's axis
ranges, and whether identical runs reach the upper bound."""

from __future__ import annotations

import math

import numpy as np
import pytest

from paretostab import list_measures, stability

INF = math.inf

#: name: (corrected for chance, lower bound, upper bound, source). stabm 1.2's
#: listStabilityMeasures() (Bommert, the reference implementation of 001) for its
#: measures — its NA minimum (the adjusted measures: it depends on the similarities) is
#: -inf here; the papers for theirs.
TABLE = {
    "davis": (False, 0, 1, "stabm"),
    "dice": (False, 0, 1, "stabm"),
    "hamming": (False, 0, 1, "stabm"),
    "jaccard": (False, 0, 1, "stabm"),
    "kappa": (True, -1, 1, "stabm"),
    "lustgarten": (True, -1, 1, "stabm"),
    "nogueira": (True, -1, 1, "stabm; 002 eq. 1"),
    "novovicova": (False, 0, 1, "stabm"),
    "ochiai": (False, 0, 1, "stabm"),
    "phi_coefficient": (True, -1, 1, "stabm"),
    "somol": (True, 0, 1, "stabm"),
    "unadjusted": (True, -1, 1, "stabm; 001"),
    "sma_count": (True, -INF, 1, "stabm (IntersectionCount); 001"),
    "sma_greedy": (True, -INF, 1, "stabm (IntersectionGreedy); 001"),
    "sma_mbm": (True, -INF, 1, "stabm (IntersectionMBM); 001"),
    "sma_mean": (True, -INF, 1, "stabm (IntersectionMean); 001"),
    "yu": (True, -INF, 1, "stabm (Zhang, later Yu); 001"),
    "zucknick": (False, 0, 1, "stabm; 001"),
    "wald": (True, -INF, 1, "stabm: its minimum 1 - d/(d - min k) tends to -inf"),
    "kuncheva": (True, -1, 1, "003 eq. 2"),
    "pearson": (True, -1, 1, "000 eq. 5, 003 eq. 4: a correlation"),
    "iw": (True, -1, 1, "003 eq. 6, Property 1"),
    "canberra": (True, -INF, 1, "003 eq. 5: 1 minus a distance over its expectation"),
    "sechidis": (True, -INF, INF, "000 eq. 3: not bounded (the papers' point)"),
    "pogr": (False, 0, 1, "000 eq. 4"),
    "msi": (False, 0, 1, "000 Property 5.1"),
    "spearman": (True, -1, 1, "004: a rank correlation, 0 in expectation for random ones"),
    "js": (False, 0, 1, "004 eq. 13: 0 only for a uniform mean distribution; "
                        "test_js_of_random_rankings_is_not_0_but_falls_with_the_runs"),
}

#: The measures whose identical runs need not reach the upper bound (Nogueira et al.'s
#: maximum property fails), with the reason; every other measure has it.
IDENTICAL_RUNS_NOT_MAXIMAL = {
    "lustgarten": "stabm: its maximum 1 holds only while k ≤ d/2",
    "sechidis": "000 eq. 3: unbounded, so no finite maximum to reach",
}


def test_the_table_covers_every_registered_measure():
    assert set(TABLE) == set(list_measures().index)


def test_js_of_random_rankings_is_not_0_but_falls_with_the_runs():
    """S_JS = 1 − D_JS / D* (004 eq. 13) is 0 when the runs' mean distribution is uniform,
    which random rankings give only as M → ∞ (004 §3: "in a random setting p̄ = 1/l"). For
    M random rankings its mean is about the same for d = 10 and 200 — 0.54 for M = 2,
    0.11 for 10, 0.02 for 50 — so it is not corrected for chance: its chance value
    depends on M."""
    rng = np.random.default_rng(0)
    for M, low, high in ((2, 0.45, 0.65), (10, 0.08, 0.14), (50, 0.015, 0.03)):
        for d in (10, 200):
            values = [stability("js", np.array([rng.permutation(d) + 1 for _ in range(M)]))
                      for _ in range(100)]
            assert low < np.mean(values) < high, (M, d, np.mean(values))


@pytest.mark.parametrize("name", sorted(TABLE))
def test_a_measures_correction_bounds_and_maximum_are_the_papers(name):
    corrected, lower, upper, _ = TABLE[name]
    row = list_measures().loc[name]
    assert bool(row["corrected"]) is corrected
    assert (row["lower"], row["upper"]) == (lower, upper)
    assert bool(row["identical_runs_maximal"]) is (name not in IDENTICAL_RUNS_NOT_MAXIMAL)
