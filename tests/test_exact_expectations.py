"""``expectation="exact"`` of SMY and SMA-* (stabm's ``correction.for.chance = "exact"``).

Checked against stabm 1.2.2's own values (tests/data/stabm_exact.csv, and live when R and
stabm are installed), the brute-force enumeration of tests/reference/adjusted.py at small
d, and closed forms at d where no enumeration of the whole space could run.
"""

from __future__ import annotations

import csv
import math
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paretostab import StabilityWarning, stability
from paretostab._errors import InvalidInputError
from paretostab._similarity import FeatureSimilarity, SimilarityMatrix
from paretostab.measures import SimilarityView, get_measure
from paretostab.measures._exact import EXACT_LIMIT, subset_pairs
from tests.reference import adjusted as ref

CORRECTED = ["yu", "sma_count", "sma_mean", "sma_greedy", "sma_mbm"]
#: stabm's function of each measure (``stability<Name>``).
STABM = {"yu": "Yu", "sma_count": "IntersectionCount", "sma_mean": "IntersectionMean",
         "sma_greedy": "IntersectionGreedy", "sma_mbm": "IntersectionMBM"}
#: case: (d, decay, pairs, runs); S = decay^|i − j| (decay 0: the identity), then
#: S[i, j] = S[j, i] = pairs[i, j]. "identity" is the issue's d = 20, M = 4 case.
CASES = {
    "identity": (20, 0.0, {}, [[0, 7, 8, 13, 18], [4, 5, 7, 13, 15, 17],
                               [6, 9, 11, 12, 13, 14, 19], [2, 4, 6, 7, 17]]),
    "below": (20, 0.85, {}, [[0, 1, 2, 9], [1, 2, 3, 10, 11], [5, 9, 10, 11, 12, 13],
                             [0, 2, 9, 19]]),
    "one_pair": (8, 0.0, {(6, 7): 0.95}, [[0, 3, 5], [1, 3], [2, 4], [0, 3]]),
    "similar": (7, 0.0, {(0, 2): 0.99, (0, 3): 0.95, (1, 2): 0.93, (4, 5): 0.97, (5, 6): 0.5},
                [[0, 1], [2, 3, 4], [0, 5, 6], [1, 3]]),
}
STABM_CSV = Path(__file__).parent / "data" / "stabm_exact.csv"


def _similarity(d, decay, pairs):
    S = decay ** np.abs(np.subtract.outer(np.arange(d), np.arange(d)))
    for (i, j), value in pairs.items():
        S[i, j] = S[j, i] = value
    return S


def _exact(name, runs, d, S, threshold=0.9):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StabilityWarning)
        return stability(name, runs, n_features=d, similarity=S, threshold=threshold,
                         expectation="exact")


def _stabm_rows():
    with STABM_CSV.open() as handle:
        return list(csv.DictReader(line for line in handle if not line.startswith("#")))


def _r_script():
    """The R script that computes every (case, measure) of CASES with stabm."""
    lines = ["suppressMessages(library(stabm))"]
    for case, (d, decay, pairs, runs) in CASES.items():
        lines.append(f"m = {decay!r}^abs(outer(1:{d}, 1:{d}, '-'))")
        lines += [f"m[{i + 1}, {j + 1}] = m[{j + 1}, {i + 1}] = {v!r}"
                  for (i, j), v in pairs.items()]
        feats = ", ".join("c(" + ", ".join(str(f + 1) for f in run) + ")" for run in runs)
        lines.append(f"feats = list({feats})")
        lines += [f"cat('{case}', '{name}', sprintf('%.17g', stability{STABM[name]}(feats, "
                  "sim.mat = m, threshold = 0.9, correction.for.chance = 'exact')), '\\n')"
                  for name in CORRECTED]
    return "\n".join(lines)


# ------------------------------------------------------------------ stabm's values


def test_the_pinned_table_covers_every_case_and_measure():
    assert {(row["case"], row["measure"]) for row in _stabm_rows()} == {
        (case, name) for case in CASES for name in CORRECTED}


@pytest.mark.parametrize("row", _stabm_rows(), ids=lambda row: f"{row['case']}-{row['measure']}")
def test_equals_stabm_exact(row):
    """stabm's values (tests/data/stabm_exact.csv): with no similar pair (identity, all
    below 0.9) every measure is SMU, d = 20 included (stabm's fallback, SPEC §2a; an
    enumeration would take 121 788 765 pairs of subsets for the first pair of runs
    alone); one similar pair anywhere makes SMY's maximum (n1 + n2)/2 again; and a case
    where greedy and maximum matchings differ."""
    d, decay, pairs, runs = CASES[row["case"]]
    value = _exact(row["measure"], runs, d, _similarity(d, decay, pairs))
    assert value == pytest.approx(float(row["value"]), abs=1e-14)


R_STABM = shutil.which("Rscript") is not None and subprocess.run(
    ["Rscript", "-e", "library(stabm)"], capture_output=True, check=False).returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not R_STABM, reason="needs R (Rscript on PATH) with the stabm package")
def test_equals_stabm_exact_run_live():
    done = subprocess.run(["Rscript", "-e", _r_script()], capture_output=True, text=True,
                          timeout=900, check=True)
    lines = [line.split() for line in done.stdout.splitlines() if line.strip()]
    assert len(lines) == len(CASES) * len(CORRECTED)
    pinned = {(row["case"], row["measure"]): float(row["value"]) for row in _stabm_rows()}
    for case, name, value in lines:
        d, decay, pairs, runs = CASES[case]
        assert _exact(name, runs, d, _similarity(d, decay, pairs)) == pytest.approx(
            float(value), abs=1e-14), (case, name)
        assert pinned[case, name] == float(value), (case, name)


# ------------------------------------------------------- enumeration and closed forms


def _runs(rng, M, d):
    return rng.random((M, d)) < rng.uniform(0.1, 0.9)


@settings(max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), M=st.integers(2, 4), d=st.integers(2, 7),
       threshold=st.sampled_from([0.3, 0.9, 1.0]))
def test_without_similar_pairs_exact_is_the_enumeration_and_smu(seed, M, d, threshold):
    """No off-diagonal S ≥ θ: every measure equals the brute-force enumeration of all
    pairs of subsets with stabm's fallback (reference) and SMU, bit for bit."""
    rng = np.random.default_rng(seed)
    Z = _runs(rng, M, d)
    S = np.triu(rng.uniform(0, threshold, size=(d, d)), 1)
    S = S + S.T + np.eye(d)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StabilityWarning)
        smu = stability("unadjusted", Z)
    for name in CORRECTED:
        value = _exact(name, Z, d, S, threshold)
        assert value == pytest.approx(ref.MEASURES[name](Z, S, threshold=threshold),
                                      abs=1e-12, nan_ok=True), name
        assert value == pytest.approx(smu, abs=0, nan_ok=True), name


@settings(max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), M=st.integers(2, 4), d=st.integers(3, 8),
       n_similar=st.integers(2, 8))
def test_with_few_similar_features_exact_is_the_enumeration(seed, M, d, n_similar):
    """Similar pairs among a random subset V of the features: the mixture over the
    subsets of V equals the brute-force enumeration over all pairs of subsets."""
    rng = np.random.default_rng(seed)
    Z = _runs(rng, M, d)
    similar = rng.choice(d, size=min(n_similar, d), replace=False)
    S = np.triu(rng.uniform(0, 0.85, size=(d, d)), 1)
    block = np.ix_(similar, similar)
    S[block] = np.where(rng.random(S[block].shape) < 0.6,
                        rng.choice([0.9, 0.93, 0.97, 1.0], size=S[block].shape), S[block])
    S = np.triu(S, 1)
    S = S + S.T + np.eye(d)
    for name in CORRECTED:
        assert _exact(name, Z, d, S) == pytest.approx(ref.MEASURES[name](Z, S), abs=1e-10,
                                                      nan_ok=True), name


def test_closed_form_at_large_d_from_data_without_similar_pairs():
    """d = 3 000 independent features (|Spearman| well below 0.9): every measure is SMU,
    with runs of 40 to 120 features — C(3 000, 40)² pairs of subsets for stabm."""
    rng = np.random.default_rng(2)
    d = 3000
    similarity = FeatureSimilarity(rng.normal(size=(80, d)))
    assert similarity.similar_features(0.9).size == 0
    Z = np.zeros((6, d), dtype=bool)
    for row in Z:
        row[rng.choice(d, size=rng.integers(40, 121), replace=False)] = True
    smu = stability("unadjusted", Z)
    for name in CORRECTED:
        assert stability(name, Z, similarity=similarity, expectation="exact") == smu, name


@pytest.mark.parametrize("name, weight", [("sma_count", 1.0), ("sma_greedy", 1.0),
                                          ("sma_mbm", 1.0), ("sma_mean", 0.95)])
def test_one_similar_pair_at_large_d_has_its_closed_form(name, weight):
    """One similar pair {x, y} (S = 0.95) among d = 1 000 features: h = s if x ∈ F \\ G and
    y ∈ G \\ F or the other way round (s = 1, or S for SMA-Mean), so
    E = ab/d + 2 s · a(d − a) b(d − b) / (d(d − 1))²; the pair scores match it."""
    rng = np.random.default_rng(5)
    d, x, y = 1000, 17, 640
    S = np.eye(d)
    S[x, y] = S[y, x] = 0.95
    runs = [{x, *rng.choice(d, 30).tolist()}, {y, *rng.choice(d, 50).tolist()},
            set(rng.choice(d, 70).tolist()) | {x, y}]
    Z = np.zeros((3, d), dtype=bool)
    for row, run in zip(Z, runs, strict=True):
        row[sorted(run)] = True
    source = SimilarityMatrix(S)
    features = np.flatnonzero(Z.any(axis=0))
    view = SimilarityView(features, source.submatrix(features), source)
    scores = get_measure(name).function(Z, similarity=view, expectation="exact").values
    statistic = ref.INTERSECTIONS[name][0]
    expected = []
    for i, j in [(0, 1), (0, 2), (1, 2)]:
        a, b = len(runs[i]), len(runs[j])
        E = a * b / d + 2 * weight * a * (d - a) * b * (d - b) / (d * (d - 1)) ** 2
        expected.append((statistic(runs[i], runs[j], S, 0.9) - E) / (math.sqrt(a * b) - E))
    np.testing.assert_allclose(scores, expected, rtol=0, atol=1e-13)


# ------------------------------------------------------------------------ the limit


@settings(max_examples=50)
@given(d=st.integers(1, 40), data=st.data())
def test_never_enumerates_more_than_stabm(d, data):
    """The pairs of subsets of V enumerated for a size pair are at most stabm's
    C(d, a) C(d, b); all of them when every feature is similar, none when none is."""
    v = data.draw(st.integers(0, d))
    a = data.draw(st.integers(1, d))
    b = data.draw(st.integers(a, d))
    sizes = np.array([[a, b]])
    assert subset_pairs(sizes, d, v) <= math.comb(d, a) * math.comb(d, b)
    assert subset_pairs(sizes, d, d) == math.comb(d, a) * math.comb(d, b)
    assert subset_pairs(sizes, d, 0) == 0


def test_refuses_above_the_limit_with_one_line():
    """All of 30 features similar: sets of 10 would take C(30, 10)² pairs of subsets, which
    stabm holds in memory at once (about 1 kB each): refused, saying what to use."""
    d = 30
    S = np.full((d, d), 0.95)
    np.fill_diagonal(S, 1.0)
    count = math.comb(d, 10) ** 2
    assert count > EXACT_LIMIT
    with pytest.raises(InvalidInputError,
                       match=rf"^expectation='exact' would enumerate {count:,} pairs of "
                             r"subsets of the 30 features that have a similar feature .*"
                             r"limit of 100,000,000; use expectation='monte_carlo' "
                             r"\(with n_samples=\) instead\.$"):
        stability("sma_count", [list(range(10)), list(range(5, 15))], n_features=d,
                  similarity=S, expectation="exact")
