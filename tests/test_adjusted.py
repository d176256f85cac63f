"""Similarity-adjusted measures: φ_S, POGR, SMU, SMZ, SMY and SMA-* (SPEC §2, §2a; 000; 001).

Values are checked against plain set-and-loop definitions (tests/reference/adjusted.py),
stabm's documented examples, 000 Table 1 and hand-computed cases.
"""

from __future__ import annotations

import math
import warnings
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paretostab import StabilityWarning, stability
from paretostab._errors import InvalidInputError
from paretostab._similarity import FeatureSimilarity, SimilarityMatrix, pearson_similarity
from paretostab.measures import SimilarityView, get_measure
from tests.reference import adjusted as ref

CORRECTED = ["yu", "sma_count", "sma_mean", "sma_greedy", "sma_mbm"]
WITH_SIMILARITY = ["sechidis", "pogr", "zucknick", *CORRECTED]
ALL = ["unadjusted", *WITH_SIMILARITY]
#: Similarity levels with values exactly at the thresholds tried, and ties.
LEVELS = np.array([0.0, 0.3, 0.85, 0.9, 0.95, 1.0])


def _value(name, data, S=None, **options):
    """stability(name, …) with StabilityWarning silenced (undefined values are NaN)."""
    sim = {} if S is None or not get_measure(name).needs_similarity else {"similarity": S}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StabilityWarning)
        return stability(name, data, **sim, **options)


def _symmetric(values: np.ndarray) -> np.ndarray:
    S = np.triu(values, 1)
    S = S + S.T
    np.fill_diagonal(S, 1.0)
    return S


def _discrete_similarity(rng, d):
    return _symmetric(rng.choice(LEVELS, size=(d, d)))


def _runs(rng, M, d, p=None):
    return rng.random((M, d)) < (rng.uniform(0.1, 0.9) if p is None else p)


def _pair_scores(name, Z, S, **options):
    """The registered function's PairScores (bypassing the averaging dispatcher)."""
    source = SimilarityMatrix(S)
    features = np.flatnonzero(Z.any(axis=0))
    view = SimilarityView(features, source.submatrix(features), source)
    return get_measure(name).function(Z, similarity=view, **options).values


class BlockSimilarity:
    """Similarity 1 inside each group of features, 0 elsewhere, for any d (000 §4).

    Implements the similarity-source interface (``n_features``, ``submatrix``, ``block``)
    without a d×d matrix, so that 000's d → ∞ scenarios can be evaluated at d = 10⁴–10⁵.
    """

    def __init__(self, d, groups):
        self.n_features = d
        self.label = np.arange(d)
        for g, group in enumerate(groups):
            self.label[list(group)] = d + g

    def block(self, rows, cols):
        rows, cols = np.asarray(rows), np.asarray(cols)
        return (self.label[rows[:, :, None]] == self.label[cols[:, None, :]]).astype(float)

    def submatrix(self, features):
        features = np.asarray(features)
        return self.block(features[None], features[None])[0]


def _block_value(name, sets, d, groups, **options):
    Z = np.zeros((len(sets), d), dtype=bool)
    for i, s in enumerate(sets):
        Z[i, sorted(s)] = True
    source = BlockSimilarity(d, groups)
    features = np.flatnonzero(Z.any(axis=0))
    view = SimilarityView(features, source.submatrix(features), source)
    result = get_measure(name).function(Z, similarity=view, **options)
    return result if isinstance(result, float) else float(result.values.mean())


# ------------------------------------------------------------- reference agreement


@pytest.mark.parametrize("name", ALL)
@settings(max_examples=30)
@given(seed=st.integers(0, 2**32 - 1), M=st.integers(2, 5), d=st.integers(2, 5),
       threshold=st.sampled_from([0.0, 0.5, 0.9, 0.95, 1.0]))
def test_matches_reference_definition(name, seed, M, d, threshold):
    rng = np.random.default_rng(seed)
    Z, S = _runs(rng, M, d), _discrete_similarity(rng, d)
    if name == "unadjusted":
        expected, options = ref.unadjusted(Z), {}
    else:
        expected = ref.MEASURES[name](Z, S, threshold=threshold)
        options = {"threshold": threshold}
        if name in CORRECTED:
            options["expectation"] = "exact"
    assert _value(name, Z, S, **options) == pytest.approx(expected, abs=1e-10, nan_ok=True)


@settings(max_examples=20)
@given(seed=st.integers(0, 2**32 - 1), M=st.integers(2, 5), d=st.integers(2, 6))
def test_sechidis_raw_similarity_matches_reference(seed, M, d):
    rng = np.random.default_rng(seed)
    Z, S = _runs(rng, M, d), _symmetric(rng.uniform(0, 1, size=(d, d)))
    assert _value("sechidis", Z, S) == pytest.approx(ref.sechidis(Z, S), abs=1e-10, nan_ok=True)


@pytest.mark.parametrize("name", CORRECTED)
def test_monte_carlo_agrees_with_exact_within_its_sampling_error(name):
    """MC (n_samples = N = 10 000) vs exact expectation on d = 8.

    The statistic I of a random pair lies in [0, max], so its standard deviation is at
    most max/2 (Popoviciu) and the Monte-Carlo E is within δ = 4·(max/2)/√N of the exact
    one except with probability < 1e-4. A pair's score (I − E)/(max − E) is monotone in
    E, so its error is at most its change when E moves by ±δ; the mean of these bounds
    bounds the error of the measure.
    """
    rng = np.random.default_rng(11)
    d, N = 8, 10_000
    Z = _runs(rng, 6, d, p=0.4)
    S = _symmetric(np.where(rng.random((d, d)) < 0.3, rng.uniform(0.9, 1, (d, d)), 0.2))
    exact = _value(name, Z, S, expectation="exact")
    bounds = []
    for I, E, top in ref.corrected_terms(name, Z, S):
        delta = 4 * (top / 2) / math.sqrt(N)
        assert E + delta < top
        score = (I - E) / (top - E)
        bounds.append(max(abs((I - e) / (top - e) - score) for e in (E - delta, E + delta)))
    assert exact == pytest.approx(ref.corrected(name, Z, S), abs=1e-12)
    assert _value(name, Z, S, n_samples=N) == pytest.approx(exact, abs=np.mean(bounds))


# ------------------------------------------------------- stabm's documented examples

STABM_FEATS = [range(0, 3), range(0, 4), range(0, 5)]  # list(1:3, 1:4, 1:5), 0-based
STABM_MAT = 0.92 ** np.abs(np.subtract.outer(np.arange(10), np.arange(10)))


@pytest.mark.parametrize("name, options, printed", [
    ("zucknick", {}, 0.7603667),
    ("sechidis", {"threshold": 0.9}, 0.5322911),  # stabm's default threshold
    ("unadjusted", {}, 0.7453833),  # stabilityUnadjusted(feats, p = 10)
])
def test_stabm_documented_examples(name, options, printed):
    """stabm 1.2.2 reference pages (man/*.Rd examples), printed to 7 digits."""
    value = _value(name, STABM_FEATS, STABM_MAT, n_features=10, **options)
    assert value == pytest.approx(printed, abs=1e-7)


@pytest.mark.slow
@pytest.mark.parametrize("name, printed", [
    ("yu", 0.5223179),
    ("sma_count", 0.5606498),
    ("sma_greedy", 0.5689536),
    ("sma_mbm", 0.5646009),
    ("sma_mean", 0.5869702),
])
def test_stabm_monte_carlo_examples_within_their_sampling_error(name, printed):
    """stabm's examples use N = 1000 fresh draws per pair of runs (R's RNG).

    Our exact value must lie within stabm's sampling error, bounded as in
    test_monte_carlo_agrees_with_exact_within_its_sampling_error with N = 1000.
    """
    Z = np.zeros((3, 10), dtype=bool)
    for i, feats in enumerate(STABM_FEATS):
        Z[i, list(feats)] = True
    exact = _value(name, Z, STABM_MAT, expectation="exact")
    assert exact == pytest.approx(ref.corrected(name, Z, STABM_MAT), abs=1e-12)
    bounds = []
    for I, E, top in ref.corrected_terms(name, Z, STABM_MAT):
        delta = 4 * (top / 2) / math.sqrt(1000)
        score = (I - E) / (top - E)
        bounds.append(max(abs((I - e) / (top - e) - score) for e in (E - delta, E + delta)))
    assert printed == pytest.approx(exact, abs=np.mean(bounds))


# ------------------------------------------------------------------ 000, Table 1


def _scenarios(q):
    """000 Fig. 1 and 2: group G = {0..q−1}, common feature q, own features q+1..q+4."""
    G = set(range(q))
    scenario1 = [G | {q, q + 1, q + 2}, G | {q, q + 3, q + 4}]
    scenario2 = [{0, q, q + 1, q + 2}, G | {q, q + 3, q + 4}]
    return G, scenario1, scenario2


@pytest.mark.parametrize("q", [1, 2, 3, 5, 10])
@pytest.mark.parametrize("d", [10_000, 100_000])
def test_table1_phi_s_closed_forms(q, d):
    """000 Table 1 takes d → ∞; at finite d the error is O(q²/d) (0.0042 at q = 10,
    d = 10⁴; ten times less at 10⁵), within the tolerance (q + 3)²/d."""
    G, scenario1, scenario2 = _scenarios(q)
    tolerance = (q + 3) ** 2 / d
    assert _block_value("sechidis", scenario1, d, [G]) == pytest.approx(
        (q + 1) / (q + 3), abs=tolerance)
    assert _block_value("sechidis", scenario2, d, [G]) == pytest.approx(
        1 - (q**2 - 2 * q + 5) / (q + 7), abs=tolerance)


@pytest.mark.parametrize("q", [1, 2, 3, 5, 10])
def test_table1_pogr_closed_forms(q):
    """POGR does not depend on d: 000 Table 1's values hold exactly."""
    G, scenario1, scenario2 = _scenarios(q)
    assert _block_value("pogr", scenario1, 1000, [G]) == pytest.approx((q + 1) / (q + 3))
    assert _block_value("pogr", scenario2, 1000, [G]) == pytest.approx(
        0.5 * (0.5 + (q + 1) / (q + 3)))


def test_toggling_between_perfectly_similar_pairs_is_perfectly_stable():
    """000 eq. 2: runs pick one feature of each similar pair (0, 1) and (2, 3): φ_S = POGR = 1."""
    runs = [{0, 2}, {1, 2}, {0, 3}, {1, 3}]
    groups = [{0, 1}, {2, 3}]
    assert _block_value("sechidis", runs, 100_000, groups) == pytest.approx(1, abs=1e-12)
    assert _block_value("pogr", runs, 100_000, groups) == pytest.approx(1, abs=1e-12)


# ------------------------------------------------------------------------- φ_S


@settings(max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), M=st.integers(2, 8), d=st.integers(2, 30),
       threshold=st.sampled_from([None, 0.5, 1.0]))
def test_sechidis_with_identity_similarity_is_nogueira(seed, M, d, threshold):
    Z = _runs(np.random.default_rng(seed), M, d)
    assert _value("sechidis", Z, np.eye(d), threshold=threshold) == pytest.approx(
        _value("nogueira", Z), abs=1e-10, nan_ok=True)


def test_sechidis_exceeds_one_when_the_similarity_is_not_positive_semidefinite():
    """Why φ_S is registered with upper bound +∞: tr(C K) < 0 is possible.

    S[0,1] = S[1,2] = 1, S[0,2] = 0; runs {0, 2} and {1}. Then tr(C K) = −1/2 and
    tr(C Σ⁰) = 3/4 − 4/12 = 5/12, so φ_S = 1 + (1/2)(12/5) = 2.2.
    """
    S = np.array([[1.0, 1, 0], [1, 1, 1], [0, 1, 1]])
    Z = np.array([[1, 0, 1], [0, 1, 0]], dtype=bool)
    assert stability("sechidis", Z, similarity=S) == pytest.approx(2.2)
    assert get_measure("sechidis").upper == math.inf


def test_sechidis_is_corrected_for_chance():
    """With a constant k, E[K_ZZ] = Σ⁰ under random selection: the mean of φ_S over all
    selections of two runs of k features is 0, whatever the similarity."""
    rng = np.random.default_rng(5)
    d, k = 5, 2
    S = _symmetric(rng.uniform(0, 1, size=(d, d)))
    values = []
    for a in combinations(range(d), k):
        for b in combinations(range(d), k):
            values.append(_value("sechidis", [a, b], S, n_features=d))
    assert np.nanmean(values) == pytest.approx(0, abs=1e-12)


@settings(max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), M=st.integers(2, 6), d=st.integers(2, 12))
def test_sechidis_at_most_one_for_positive_semidefinite_similarity(seed, M, d):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, size=(3, d))  # non-negative columns: S = cos-similarity is PSD
    S = X.T @ X
    S = S / np.sqrt(np.outer(np.diag(S), np.diag(S)))
    np.fill_diagonal(S, 1.0)
    value = _value("sechidis", _runs(rng, M, d), S)
    assert math.isnan(value) or value <= 1 + 1e-12


# ------------------------------------------------------------ hand-computed values


def test_hand_computed_pair_with_one_similar_cross_pair():
    """d = 4, runs {0, 1} and {2, 3}, S[1, 2] = 0.95, other similarities 0.

    r = 0. Random 2-sets (F, G) have E[r] = 1 and a similar cross pair iff
    1 ∈ F \\ G and 2 ∈ G \\ F or vice versa: probability 2 · (1/3)² = 2/9. So E = 1 + 2/9
    for SMY and SMA-Count/Greedy/MBM (max 2 for both) and 1 + (2/9)·0.95 for SMA-Mean.
    """
    S = np.eye(4)
    S[1, 2] = S[2, 1] = 0.95
    runs = [[0, 1], [2, 3]]
    mean_e = 1 + 2 / 9 * 0.95
    expected = {
        "yu": (1 - 11 / 9) / (2 - 11 / 9),  # = −2/7
        "sma_count": -2 / 7,
        "sma_greedy": -2 / 7,
        "sma_mbm": -2 / 7,
        "sma_mean": (0.95 - mean_e) / (2 - mean_e),
        "unadjusted": (0 - 1) / (2 - 1),
        "zucknick": (0 + 0.95 / 2 + 0.95 / 2) / 4,
        "pogr": (1 / 2 + 1 / 2) / 2,
        # K = ½[[1,1,−1,−1],[1,1,−1,−1],[−1,−1,1,1],[−1,−1,1,1]], Σ⁰ diag ¼, off −1/12
        "sechidis": 1 - (2 - 0.95) / (1 - 0.95 / 6),
    }
    for name, value in expected.items():
        options = {"expectation": "exact"} if name in CORRECTED else {}
        assert _value(name, runs, S, n_features=4, **options) == pytest.approx(value), name
    for name in CORRECTED:  # Monte-Carlo: within 4 sampling errors of the exact value
        assert _value(name, runs, S, n_features=4) == pytest.approx(expected[name], abs=0.05)


def test_greedy_matching_can_be_smaller_than_the_maximum_matching():
    """A = {0, 1}, B = {2, 3}; S[0,2] = .99, S[0,3] = S[1,2] = .95. Greedy takes 0–2 and
    stops (size 1); the maximum matching is {0–3, 1–2} (size 2) = min(O_12, O_21)."""
    S = np.eye(6)
    for (x, y), s in {(0, 2): 0.99, (0, 3): 0.95, (1, 2): 0.95}.items():
        S[x, y] = S[y, x] = s
    Z = np.zeros((2, 6), dtype=bool)
    Z[0, [0, 1]] = Z[1, [2, 3]] = True
    terms = {name: ref.corrected_terms(name, Z, S)[0][0] for name in CORRECTED}
    assert terms["sma_greedy"] == 1
    assert terms["sma_mbm"] == terms["sma_count"] == 2
    values = {name: _value(name, Z, S, expectation="exact") for name in CORRECTED}
    assert values["sma_greedy"] < values["sma_mbm"]
    for name in CORRECTED:
        assert values[name] == pytest.approx(ref.corrected(name, Z, S), abs=1e-12)


def test_zucknick_and_pogr_count_similarity_to_shared_features():
    """Runs {0, 1} and {0, 2}, S[0, 2] = 0.95 with 0 shared (stabm's and 000's definitions).

    SMZ: c({0,1}, {0,2}) sums x ∈ {0, 1}, y ∈ {2}: 0.95/2, so (1 + 0.475)/3.
    POGR: feature 2 ∉ F_1 is similar to 0 ∈ F_1: ((1 + 0)/2 + (1 + 1)/2)/2 = 3/4.
    """
    S = np.eye(3)
    S[0, 2] = S[2, 0] = 0.95
    runs = [[0, 1], [0, 2]]
    assert stability("zucknick", runs, n_features=3, similarity=S) == pytest.approx(1.475 / 3)
    assert stability("pogr", runs, n_features=3, similarity=S) == pytest.approx(0.75)


# ---------------------------------------------------------- threshold, fallback


@pytest.mark.parametrize("name", WITH_SIMILARITY)
def test_threshold_is_inclusive(name):
    """S[1, 2] = 0.9 exactly: similar at threshold 0.9, not at the next float above."""
    S = np.eye(4)
    S[1, 2] = S[2, 1] = 0.9
    runs = [[0, 1], [2, 3]]
    options = {"expectation": "exact"} if name in CORRECTED else {}
    at = _value(name, runs, S, n_features=4, threshold=0.9, **options)
    above = _value(name, runs, S, n_features=4, threshold=float(np.nextafter(0.9, 1)),
                   **options)
    Z = np.array([[1, 1, 0, 0], [0, 0, 1, 1]], dtype=bool)
    assert at == pytest.approx(ref.MEASURES[name](Z, S, threshold=0.9))
    assert above == pytest.approx(ref.MEASURES[name](Z, S, threshold=0.9 + 1e-9))
    assert at != pytest.approx(above)


@settings(max_examples=15)
@given(seed=st.integers(0, 2**32 - 1), M=st.integers(2, 8), d=st.integers(3, 40))
def test_without_similar_features_sma_and_smy_are_smu(seed, M, d):
    """001 §2.2, SPEC §2a (stabm's fallback): no off-diagonal S ≥ θ ⇒ I = r and
    E = n1n2/d exactly, and SMY's maximum becomes √(n1n2): every corrected measure equals
    SMU, with the Monte-Carlo expectation too — the draws read the array whole anyway,
    so that nothing is similar is known at no extra cost."""
    rng = np.random.default_rng(seed)
    Z = _runs(rng, M, d)
    S = _symmetric(rng.uniform(0, 0.89, size=(d, d)))
    unadjusted = _value("unadjusted", Z)
    for name in CORRECTED:
        assert _value(name, Z, S, n_samples=500) == pytest.approx(unadjusted, abs=1e-15,
                                                                  nan_ok=True)


def _unrelated_data(d, seed):
    """200 examples of d independent features: every |Pearson| far below 0.9."""
    X = np.random.default_rng(seed).normal(size=(200, d))
    S = pearson_similarity(X)
    assert S[~np.eye(d, dtype=bool)].max() < 0.5
    return X, S


@pytest.mark.parametrize("kind", ["array", "SimilarityMatrix", "FeatureSimilarity"])
@pytest.mark.parametrize("d, sizes", [(3, [1, 2, 2]), (5, [2, 3, 4, 1]), (6, [5, 2, 3, 6]),
                                      (7, [3, 3, 5, 2, 6])])
def test_monte_carlo_yu_is_exact_yu_and_smu_without_similar_features(kind, d, sizes):
    """stabm: SMY of runs among features none of which is similar to another is SMU.
    With the default Monte-Carlo expectation at small d — an array, a SimilarityMatrix,
    or a fresh FeatureSimilarity whose d(d − 1)/2 pairs are fewer than the draws read —
    it equals ``expectation="exact"`` and the brute-force enumeration of the reference."""
    X, S = _unrelated_data(d, seed=d)
    rng = np.random.default_rng(len(sizes))
    Z = _as_z([rng.choice(d, k, replace=False) for k in sizes], d)

    def similarity():
        return {"array": S, "SimilarityMatrix": SimilarityMatrix(S),
                "FeatureSimilarity": FeatureSimilarity(X, "pearson")}[kind]

    monte_carlo = _value("yu", Z, similarity())
    assert monte_carlo == pytest.approx(ref.unadjusted(Z), abs=1e-12)
    assert monte_carlo == pytest.approx(ref.MEASURES["yu"](Z, S), abs=1e-12)
    assert monte_carlo == pytest.approx(_value("yu", Z, similarity(), expectation="exact"),
                                        abs=1e-15)
    assert monte_carlo != pytest.approx(_value("kappa", Z))


@pytest.mark.parametrize(("n_samples", "read_whole"), [(21, False), (22, True)])
def test_monte_carlo_yu_reads_the_whole_space_only_when_no_dearer_than_its_draws(
        n_samples, read_whole):
    """A fresh FeatureSimilarity of d = 40 features (780 pairs), none similar, runs of at
    most 6: the draws read N · 6 · 6 pairs. With N = 22 (792 ≥ 780) the pass over all
    pairs runs and SMY is SMU, as stabm; with N = 21 (756 < 780) it does not, and SMY is
    Cohen's kappa (maximum (n1 + n2)/2), as documented — also after ``similar_features``
    has run on that similarity: a value never depends on what ran before."""
    d = 40
    X, _ = _unrelated_data(d, seed=1)
    rng = np.random.default_rng(2)
    Z = _as_z([rng.choice(d, k, replace=False) for k in (6, 6, 4, 5)], d)
    similarity = FeatureSimilarity(X, "pearson")
    smu, kappa = _value("unadjusted", Z), _value("kappa", Z)
    assert smu != pytest.approx(kappa)
    first = _value("yu", Z, similarity, n_samples=n_samples)
    assert first == pytest.approx(smu if read_whole else kappa, abs=1e-15)
    assert similarity.similar_features(0.9).size == 0
    assert _value("yu", Z, similarity, n_samples=n_samples) == first


# --------------------------------------------------------------- Monte-Carlo seeding


def _mc_problem():
    rng = np.random.default_rng(3)
    d = 40
    S = _symmetric(np.where(rng.random((d, d)) < 0.1, 0.95, 0.1))
    Z = np.zeros((7, d), dtype=bool)
    for i, k in enumerate([3, 5, 5, 8, 3, 6, 5]):
        Z[i, rng.choice(d, k, replace=False)] = True
    return Z, S


@pytest.mark.parametrize("name", CORRECTED)
def test_monte_carlo_is_deterministic_and_independent_of_run_order(name):
    Z, S = _mc_problem()
    value = _value(name, Z, S, n_samples=2000)
    assert _value(name, Z, S, n_samples=2000) == value
    assert _value(name, Z, S, n_samples=2000, random_state=np.int64(0)) == value
    assert _value(name, Z, S, n_samples=2000, random_state=np.random.SeedSequence(0)) == value
    assert _value(name, Z[::-1], S, n_samples=2000) == pytest.approx(value, abs=1e-12)
    assert _value(name, Z[[3, 0, 6, 1, 5, 2, 4]], S, n_samples=2000) == pytest.approx(
        value, abs=1e-12)
    assert _value(name, Z, S, n_samples=2000, random_state=1) != value
    generated = [_value(name, Z, S, n_samples=2000, random_state=np.random.default_rng(9))
                 for _ in range(2)]
    assert generated[0] == generated[1]
    assert np.isfinite(_value(name, Z, S, n_samples=2000, random_state=None))


def test_expectation_of_a_size_pair_does_not_depend_on_the_other_runs():
    """E for sizes (n1, n2) depends on random_state and (n1, n2) only: its sets are the
    first n1 and n2 features of the same random sequences, however long the other runs
    make them."""
    Z, S = _mc_problem()
    pairs_all = _pair_scores("sma_count", Z, S, n_samples=500)
    pairs_two = _pair_scores("sma_count", Z[:2], S, n_samples=500)
    assert pairs_two[0] == pairs_all[0]


def _as_z(runs, d):
    Z = np.zeros((len(runs), d), dtype=bool)
    for i, run in enumerate(runs):
        Z[i, run] = True
    return Z


def test_yu_closed_form_expectation_matches_enumeration():
    """The reference's closed form of SMY's E (degrees, inclusion–exclusion) is exact."""
    rng = np.random.default_rng(4)
    for d in (5, 7):
        S = _symmetric(np.where(rng.random((d, d)) < 0.4, 0.95, 0.2))
        for n1, n2 in [(1, 1), (2, 3), (3, 3), (1, d - 1), (d - 1, d), (d, d)]:
            assert ref.yu_expectation(n1, n2, S) == pytest.approx(
                ref.exact_expectation(ref.yu_intersection, n1, n2, d, S, 0.9), abs=1e-12)


def _group_similarity(d, group_size, n_groups, rng):
    """Similarity 0.95 inside disjoint random groups, 0.2 elsewhere."""
    S = np.full((d, d), 0.2)
    for group in rng.permutation(d)[: group_size * n_groups].reshape(n_groups, group_size):
        S[np.ix_(group, group)] = 0.95
    np.fill_diagonal(S, 1.0)
    return S


@pytest.mark.slow
@pytest.mark.parametrize("d, group_size, n_groups", [(60, 6, 5), (400, 8, 25)])
def test_monte_carlo_yu_is_within_its_stated_error_of_the_exact_expectation(d, group_size,
                                                                            n_groups):
    """At d where no enumeration can run, SMY's exact E has a closed form (reference): the
    Monte-Carlo pair scores lie within the error the docstring states,
    SE(E) ≤ √(max · (E − n1n2/d) / N), taken 4 times and propagated to each pair's score
    through |max − I| · δ / (max − E)² (its exact change, by monotonicity in E)."""
    rng = np.random.default_rng(d)
    N = 4000
    S = _group_similarity(d, group_size, n_groups, rng)
    Z = np.zeros((8, d), dtype=bool)
    for row in Z:
        row[rng.choice(d, size=rng.integers(d // 10, d // 4), replace=False)] = True
    scores = _pair_scores("yu", Z, S, n_samples=N)
    runs = [set(np.flatnonzero(row).tolist()) for row in Z]
    for (a, b), score in zip(combinations(runs, 2), scores, strict=True):
        n1, n2, I = len(a), len(b), ref.yu_intersection(a, b, S, 0.9)
        E, top = ref.yu_expectation(n1, n2, S), (n1 + n2) / 2
        delta = 4 * math.sqrt(top * (E - n1 * n2 / d) / N)
        assert E - n1 * n2 / d > 0.05  # similar pairs are drawn: the estimate is at work
        exact = (I - E) / (top - E)
        bound = max(abs((I - e) / (top - e) - exact) for e in (E - delta, E + delta))
        assert score == pytest.approx(exact, abs=bound)


@pytest.mark.parametrize("name", CORRECTED)
def test_saturated_similarity_gives_the_exact_expectation(name):
    """Every pair of features similar: I of a random pair of sets is constant (SMY,
    SMA-Count/Greedy/MBM) or linear in its overlap r (SMA-Mean: r + 0.95 (min − r)), and
    the regression estimator is then exact — as the enumeration: E = max (undefined, NaN)
    where the sizes allow it, the exact score elsewhere."""
    d = 8
    S = _symmetric(np.full((d, d), 0.95))
    Z = _as_z([[0, 1], [1, 2], [3, 4, 5]], d)
    mc = _pair_scores(name, Z, S, n_samples=300)
    exact = _pair_scores(name, Z, S, expectation="exact")
    np.testing.assert_allclose(mc, exact, atol=1e-12)
    assert np.isnan(exact).any() == (name != "sma_mean")


@pytest.mark.parametrize("threshold", [None, 0.9])
def test_sechidis_estimated_normaliser_is_within_its_stated_error(threshold):
    """d = 2 000: φ_S with the normaliser's sum exact (n_samples = 2 000 blocks cover the
    1 999 000 pairs) and estimated (the default 1 024 blocks) differ by at most the
    docstring's propagation of 4 standard errors, SE(Σ) ≤ d²/(2√n_samples)."""
    from paretostab._similarity import FeatureSimilarity, offdiagonal_sum

    d, rng = 2000, np.random.default_rng(8)
    X = rng.normal(size=(60, d))
    for group in np.arange(d // 2 // 5 * 5).reshape(-1, 5):
        X[:, group] = rng.normal(size=(60, 1)) + 0.2 * rng.normal(size=(60, 5))
    S = FeatureSimilarity(X, "spearman")
    Z = np.zeros((10, d), dtype=bool)
    for row in Z:
        row[rng.choice(120, size=rng.integers(10, 30), replace=False)] = True
    exact = stability("sechidis", Z, similarity=S, threshold=threshold, n_samples=2000)
    estimated = stability("sechidis", Z, similarity=S, threshold=threshold)
    k = Z.sum(axis=1)
    omega = (np.mean(k**2) - k.mean()) / (d * d - d) - k.mean() ** 2 / d**2
    denominator = (k.mean() * (1 - k.mean() / d)
                   + omega * offdiagonal_sum(S, threshold, n_samples=2000).value)
    shift = abs(omega) * 4 * d * d / (2 * math.sqrt(1024))
    bound = abs(1 - exact) * shift / (denominator - shift)
    assert 0 < abs(estimated - exact) <= bound


class CountingSimilarity(BlockSimilarity):
    """A BlockSimilarity that counts the similarity entries the measures read."""

    read = 0

    def block(self, rows, cols):
        out = super().block(rows, cols)
        CountingSimilarity.read += out.size
        return out


@pytest.mark.parametrize("name", WITH_SIMILARITY)
def test_no_measure_reads_the_whole_feature_space(name):
    """d = 10⁶ features (10¹² pairs): each measure reads at most a few million similarity
    entries — the selected features' block, the Monte-Carlo draws — and returns a value."""
    d = 10**6
    groups = [range(10 * g, 10 * g + 10) for g in range(2000)]
    runs = [{0, 1, 2, 11, 12, 500_000}, {0, 3, 13, 14, 15, 999_999, 7},
            {1, 2, 3, 4, 16, 17, 18, 19}]
    CountingSimilarity.read = 0
    Z = _as_z([sorted(run) for run in runs], d)
    source = CountingSimilarity(d, groups)
    features = np.flatnonzero(Z.any(axis=0))
    view = SimilarityView(features, source.submatrix(features), source)
    result = get_measure(name).function(Z, similarity=view)
    value = result if isinstance(result, float) else float(result.values.mean())
    assert np.isfinite(value)
    assert CountingSimilarity.read <= 2 * 10_000 * 8 * 8 + 1024 * 32 * 32 + 20**2


@pytest.mark.parametrize("name", CORRECTED)
@settings(max_examples=10)
@given(seed=st.integers(0, 2**32 - 1), M=st.integers(3, 7), d=st.integers(4, 40))
def test_a_pair_score_does_not_depend_on_the_other_runs(name, seed, M, d):
    """The first two runs' score is the same alone, with the other runs (which change the
    longest sizes drawn) and with those in another order: each size pair's sets are the
    prefixes of the same random sequences."""
    rng = np.random.default_rng(seed)
    Z = _runs(rng, M, d)
    S = _symmetric(np.where(rng.random((d, d)) < 0.3, rng.uniform(0.9, 1, (d, d)), 0.2))
    alone = _pair_scores(name, Z[:2], S, n_samples=300)[0]
    order = np.r_[0, 1, 2 + rng.permutation(M - 2)]
    for runs in (Z, Z[order]):
        np.testing.assert_allclose(_pair_scores(name, runs, S, n_samples=300)[0], alone,
                                   rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------- properties


@pytest.mark.parametrize("name", ALL)
@settings(max_examples=15)
@given(seed=st.integers(0, 2**32 - 1), M=st.integers(2, 6), d=st.integers(2, 25))
def test_declared_bounds_hold_with_monte_carlo(name, seed, M, d):
    rng = np.random.default_rng(seed)
    Z = _runs(rng, M, d)
    S = _symmetric(np.where(rng.random((d, d)) < 0.2, rng.uniform(0.85, 1, (d, d)),
                            rng.uniform(0, 0.9, (d, d))))
    options = {"n_samples": 200} if name in CORRECTED else {}
    value = _value(name, Z, S, **options)
    info = get_measure(name)
    assert math.isnan(value) or info.lower - 1e-9 <= value <= info.upper + 1e-9


@pytest.mark.parametrize("name", ALL)
def test_metadata(name):
    info = get_measure(name)
    assert info.input == "selection"
    assert info.needs_similarity == (name != "unadjusted")
    assert info.corrected == (name not in {"pogr", "zucknick"})
    if name in CORRECTED:
        assert info.options == {"threshold": 0.9, "n_samples": 10_000, "random_state": 0,
                                "expectation": "monte_carlo"}


# ------------------------------------------------------------------ undefined cases


@pytest.mark.parametrize("name", ["pogr", "unadjusted", *CORRECTED[1:]])
def test_empty_run_makes_its_pairs_undefined(name):
    S = np.eye(6)
    S[1, 2] = S[2, 1] = 0.95
    runs = [[0, 1], [2, 3], []]
    options = {"n_samples": 100} if name in CORRECTED else {}
    kwargs = {"similarity": S} if name != "unadjusted" else {}
    with pytest.warns(StabilityWarning, match="a run selected no feature"):
        assert math.isnan(stability(name, runs, n_features=6, **kwargs, **options))
    with pytest.warns(StabilityWarning, match="imputed"):
        imputed = stability(name, runs, n_features=6, impute_nan=0.0, **kwargs, **options)
    defined = stability(name, runs[:2], n_features=6, **kwargs, **options)
    assert imputed == pytest.approx(defined / 3)


def test_yu_undefined_only_for_two_empty_runs():
    """stabm: SMY's maximum (n1 + n2)/2 is positive unless both runs are empty; a pair
    with one empty run scores (0 − 0)/(n/2 − 0) = 0."""
    S = np.eye(6)
    S[1, 2] = S[2, 1] = 0.95
    both = _value("yu", [[0, 1], [2, 3]], S, n_features=6, n_samples=100)
    assert _value("yu", [[0, 1], [2, 3], []], S, n_features=6, n_samples=100) == (
        pytest.approx(both / 3))
    with pytest.warns(StabilityWarning, match="two runs selected no feature"):
        assert math.isnan(stability("yu", [[], [], [0]], n_features=6, similarity=S))


def test_zucknick_undefined_only_for_two_empty_runs():
    S = np.eye(4)
    assert stability("zucknick", [[0], []], n_features=4, similarity=S) == 0
    with pytest.warns(StabilityWarning, match="two runs selected no feature"):
        assert math.isnan(stability("zucknick", [[], []], n_features=4, similarity=S))


def test_sechidis_undefined_cases():
    with pytest.warns(StabilityWarning, match="k̄ = 0"):
        assert math.isnan(stability("sechidis", [[], []], n_features=3, similarity=np.eye(3)))
    with pytest.warns(StabilityWarning, match=r"tr\(C Σ⁰\) = 0"):
        value = stability("sechidis", [[0], [1]], n_features=3, similarity=np.ones((3, 3)))
    assert math.isnan(value)


# ---------------------------------------------------------------------- bad input


@pytest.mark.parametrize("name, options, message", [
    ("pogr", {"threshold": 1.5}, r"threshold must be a number in \[0, 1\].*got 1\.5"),
    ("zucknick", {"threshold": None}, r"threshold must be a number in \[0, 1\].*got None"),
    ("yu", {"threshold": "0.9"}, r"threshold must be a number in \[0, 1\].*got '0\.9'"),
    ("sechidis", {"threshold": -0.1},
     r"threshold must be None \(the raw similarity\) or a number in \[0, 1\].*got -0\.1"),
    ("sma_count", {"n_samples": 0}, r"n_samples must be an integer >= 1.*got 0"),
    ("sma_mean", {"n_samples": 2.5}, r"n_samples must be an integer >= 1.*got 2\.5"),
    ("sma_mbm", {"n_samples": True}, r"n_samples must be an integer >= 1.*got True"),
    ("sma_greedy", {"expectation": "mc"},
     r"expectation must be one of 'monte_carlo', 'exact'; got 'mc'"),
    ("yu", {"random_state": -1}, r"random_state must be None, a non-negative integer.*got -1"),
    ("yu", {"random_state": "seed"}, r"random_state must be None.*got 'seed'"),
    ("sma_count", {"random_state": np.random.RandomState(0)}, r"random_state must be None"),
])
def test_bad_options_raise(name, options, message):
    S = _symmetric(np.full((5, 5), 0.95))
    with pytest.raises(InvalidInputError, match=message):
        stability(name, [[0, 1], [1, 2]], n_features=5, similarity=S, **options)


def test_one_monte_carlo_replicate_is_enough_to_run():
    """n_samples = 1, the least allowed, gives a value: one random pair of sets per size
    pair."""
    rng = np.random.default_rng(7)
    Z, S = _runs(rng, 6, 7, 0.5), _discrete_similarity(rng, 7)
    for name in CORRECTED:
        assert np.isfinite(_value(name, Z, S, n_samples=1, random_state=3)), name


def test_overlaps_of_sets_that_share_no_feature_are_zero():
    """No replicate shares a feature (no entry of ``same``): every overlap is 0."""
    from paretostab.measures import _adjusted as adjusted

    same = np.zeros((3, 2, 4), dtype=bool)
    sizes = np.array([[1, 1], [2, 4]])
    assert adjusted._overlaps(same, sizes).tolist() == [[0.0] * 3] * 2
    same[1, 1, 3] = True
    assert adjusted._overlaps(same, sizes).tolist() == [[0.0] * 3, [0.0, 1.0, 0.0]]


# ------------------------------------------------------------- the Monte-Carlo machinery
# (issue 24: the size-pair classes and the memory batches must not change a value)


def excesses_each_scored_alone(f, g, sim, sizes, statistic):
    """_excesses of the replicates f, g (similarity block sim) at every size pair, checked
    against each size pair's sets (the first a of f, the first b of g) scored alone."""
    from paretostab.measures import _adjusted as adjusted

    h = adjusted._excesses(f, g, sim, f[:, :, None] == g[:, None, :], sizes, statistic, 0.9)
    for s, (a, b) in enumerate(sizes):
        alone = adjusted._Blocks(f[:, :a], g[:, :b], sim[:, :a, :b])
        np.testing.assert_allclose(h[s], statistic(alone, 0.9) - alone.common, atol=1e-12,
                                   err_msg=f"sizes ({a}, {b})")
    return h


@pytest.mark.parametrize("statistic", ["_yu_intersection", "_count_intersection",
                                       "_mean_intersection", "_greedy_intersection",
                                       "_mbm_intersection"])
@pytest.mark.parametrize("d", [8, 14])
@pytest.mark.parametrize("seed", range(3))
def test_excesses_scored_by_classes_equal_each_size_pair_scored_alone(statistic, seed, d):
    """_excesses scores each class of size pairs once; every size pair scored on its own
    sets (the first a of f, the first b of g, in every replicate) gives the same h. With
    d = 8, g holds every feature of f, so the class keys reach the top of their range."""
    from paretostab.measures import _adjusted as adjusted

    statistic = getattr(adjusted, statistic)
    rng = np.random.default_rng(seed)
    B = 40
    f = adjusted._random_sequences(rng, d, B, 6)
    g = adjusted._random_sequences(rng, d, B, 8)
    sim = _discrete_similarity(rng, d)[f[:, :, None], g[:, None, :]]
    sizes = np.array([(a, b) for a in range(1, 7) for b in range(a, 9)])
    excesses_each_scored_alone(f, g, sim, sizes, statistic)


@pytest.mark.parametrize("statistic", ["_yu_intersection", "_count_intersection",
                                       "_mean_intersection", "_greedy_intersection",
                                       "_mbm_intersection"])
def test_one_similar_pair_in_a_batch_gives_its_excess(statistic):
    """A batch whose only similar, non-identical pair is S(1, 2) = 0.95 (f = (0, 1),
    g = (2, 3), one replicate) scores it: the sets that hold both features have a
    positive excess, and every size pair's excess is that of its sets scored alone."""
    from paretostab.measures import _adjusted as adjusted

    statistic = getattr(adjusted, statistic)
    f, g = np.array([[0, 1]]), np.array([[2, 3]])
    sim = np.array([[[0.0, 0.1], [0.95, 0.2]]])  # sim[0, x, y]: S(f[x], g[y])
    sizes = np.array([[1, 1], [2, 1], [2, 2]])
    h = excesses_each_scored_alone(f, g, sim, sizes, statistic)
    assert h[0, 0] == 0.0 and h[2, 0] > 0.0


@pytest.mark.parametrize("statistic", ["_yu_intersection", "_count_intersection",
                                       "_mean_intersection", "_greedy_intersection",
                                       "_mbm_intersection"])
def test_size_pairs_on_either_side_of_a_similar_pair_are_told_apart(statistic):
    """f = (0, 1, 2), g = (3, 4, 1, 5), S(0, 1) = 0.95, in two replicates: the pair
    (f[0], g[2]) is in the cross block for a = 1, b ≥ 3 (excess 1 for the count) and not
    for (2, 2) or (2, 3), where feature 1 is in F. Their size-pair classes have adjacent
    keys: (a's breakpoint count 1, b's 1) against (2, 0) in one replicate, and (1, 1) in
    the second replicate against (2, 1) in the first. Each radix must exceed its largest
    count (2), else the keys coincide and (2, 2) or (2, 3) takes the excess of (1, 3)."""
    from paretostab.measures import _adjusted as adjusted

    statistic = getattr(adjusted, statistic)
    f, g = np.array([[0, 1, 2]] * 2), np.array([[3, 4, 1, 5]] * 2)
    S = np.eye(6)
    S[0, 1] = S[1, 0] = 0.95
    sim = S[f[:, :, None], g[:, None, :]]
    sizes = np.array([(a, b) for a in range(1, 4) for b in range(a, 5)])
    h = excesses_each_scored_alone(f, g, sim, sizes, statistic)
    at = sizes.tolist().index
    assert (h[at([1, 3])] > 0.0).all() and (h[at([2, 2])] == 0.0).all()
    assert (h[at([2, 3])] == 0.0).all()


@pytest.mark.parametrize("name", ["yu", "sma_count", "sma_greedy", "sma_mbm"])
@pytest.mark.parametrize("options", [{"expectation": "exact"},
                                     {"n_samples": 50, "random_state": 1}])
def test_sets_that_always_reach_the_maximum_are_undefined(name, options):
    """Every pair of the 3 features similar (0.95): random sets of any sizes reach the
    maximum, E = max, and the score is undefined: NaN, with the cause in the one warning
    (no division by zero on the way), also when the Monte-Carlo estimate of E falls short
    of max by rounding."""
    Z = np.array([[1, 0, 1], [1, 0, 1], [0, 1, 0]], dtype=bool)
    S = _symmetric(np.full((3, 3), 0.95))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = stability(name, Z, similarity=S, **options)
    assert np.isnan(value)
    assert [w.category for w in caught] == [StabilityWarning]
    assert "always reach the maximum (max = E)" in str(caught[0].message)


@pytest.mark.parametrize("n_samples", [0, 2.5, True])
@pytest.mark.parametrize("Z", [[[1, 0, 1, 0], [1, 1, 0, 0]], [[0, 0, 0, 0], [0, 0, 0, 0]]])
def test_sechidis_refuses_a_bad_n_samples_whatever_the_runs(n_samples, Z):
    """A bad option is refused also when the runs leave φ_S undefined (k̄ = 0), before
    any value is computed."""
    Z = np.array(Z, dtype=bool)
    with pytest.raises(InvalidInputError, match="n_samples must be an integer >= 1"):
        stability("sechidis", Z, similarity=np.eye(4), n_samples=n_samples)


@pytest.mark.slow
@pytest.mark.parametrize("batch", [64, 1])
@pytest.mark.parametrize("name", CORRECTED + ["sechidis"])
def test_values_do_not_depend_on_the_memory_batch(name, batch, monkeypatch):
    """_BATCH bounds the similarity entries held at once; at 64 every loop over pairs of
    runs, subsets and replicates runs in many batches, and at 1 in batches of one item
    each (one pair of subsets, one replicate: a batch may hold a single similar pair),
    and the values stay the same."""
    from paretostab.measures import _adjusted as adjusted

    rng = np.random.default_rng(7)
    Z, S = _runs(rng, 6, 7, 0.5), _discrete_similarity(rng, 7)
    assert len(set(Z.sum(axis=1).tolist())) >= 3  # several pairs of set sizes
    options = [{"expectation": "exact"}, {"n_samples": 300, "random_state": 1}]
    if name == "sechidis":
        options = [{}]
    expected = [_value(name, Z, S, **o) for o in options]
    monkeypatch.setattr(adjusted, "_BATCH", batch)
    for o, value in zip(options, expected, strict=True):
        np.testing.assert_allclose(_value(name, Z, S, **o), value, rtol=1e-12, atol=1e-12)


def test_greedy_ties_are_broken_by_feature_ids_not_by_position():
    """001 Algorithm 1 on a tie: features 0 and 3 of F \\ G, 1 and 2 of G \\ F (held in
    the order 3, 0 and 2, 1, as a Monte-Carlo draw holds them), S(0, 1) = S(0, 2) = 0.95,
    S(3, 1) = 0.9. The edge (0, 1), smaller larger id, goes first and blocks (3, 1): one
    pair matched, whichever order the sets are held in or which set comes first (taking
    (0, 2) first would match two)."""
    from paretostab.measures import _adjusted as adjusted

    f, g = np.array([[3, 0]]), np.array([[2, 1]])
    sim = np.array([[[0.0, 0.9], [0.95, 0.95]]])  # sim[0, x, y]: S(f[x], g[y])
    for blocks in (adjusted._Blocks(f, g, sim),
                   adjusted._Blocks(f[:, ::-1], g[:, ::-1], sim[:, ::-1, ::-1]),
                   adjusted._Blocks(g, f, sim.transpose(0, 2, 1))):
        assert adjusted._greedy_intersection(blocks, 0.9).tolist() == [1.0]


def test_a_generator_seeds_the_monte_carlo_draws_by_its_state():
    """random_state may be a numpy Generator: the same state gives the same value, two
    states give two independent draws (different values)."""
    rng = np.random.default_rng(8)
    Z, S = _runs(rng, 5, 9), _discrete_similarity(rng, 9)
    values = [float(np.mean(_value("sma_count", Z, S, n_samples=200,
                                   random_state=np.random.default_rng(seed))))
              for seed in (1, 1, 2, 3)]
    assert values[0] == values[1]
    assert len({values[1], values[2], values[3]}) == 3


@pytest.mark.parametrize("name", CORRECTED)
def test_each_corrected_measure_documents_its_options(name):
    """help() of every adjusted measure lists the options it takes (numpydoc)."""
    doc = get_measure(name).function.__doc__
    for option in ("threshold :", "n_samples :", "random_state :", "expectation :"):
        assert option in doc, (name, option)
