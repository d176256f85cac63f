"""Feature similarities: values, restriction to selected features, validation."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import normalized_mutual_info_score

from paretostab._errors import InvalidInputError, UnknownNameError
from paretostab._similarity import (  # _discretise: the bins NMI is computed from
    SUM_BLOCK,
    FeatureSimilarity,
    SimilarityMatrix,
    _discretise,
    affordable_similar_features,
    as_similarity,
    nmi_similarity,
    offdiagonal_peaks,
    offdiagonal_sum,
    pearson_similarity,
    spearman_similarity,
)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 12))
    X[:, 3] = 2 * X[:, 1] + 0.1 * rng.normal(size=60)
    X[:, 7] = np.exp(X[:, 1])  # monotone: Spearman 1, Pearson < 1
    X[:, 9] = 4.0  # constant
    return X


def test_pearson_and_spearman_match_scipy(data):
    S = pearson_similarity(data)
    R = spearman_similarity(data)
    for f in range(12):
        assert S[f, f] == R[f, f] == 1.0
        for g in range(12):
            if f != g and 9 not in (f, g):
                assert S[f, g] == pytest.approx(abs(stats.pearsonr(data[:, f], data[:, g])[0]))
                assert R[f, g] == pytest.approx(abs(stats.spearmanr(data[:, f], data[:, g])[0]))
    assert R[1, 7] == pytest.approx(1.0) and S[1, 7] < 0.95
    assert np.all(S[9, np.arange(12) != 9] == 0)


@settings(max_examples=20)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 30), levels=st.integers(1, 6))
def test_spearman_with_ties_matches_scipy(seed, n, levels):
    """Average ranks of tied values (few levels: many ties, constant columns too)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, 6)).astype(float)
    X[:, 0] = rng.normal(size=n)  # a column without ties
    expected = np.eye(6)
    for f in range(6):
        for g in range(6):
            if f != g and np.ptp(X[:, f]) > 0 and np.ptp(X[:, g]) > 0:
                expected[f, g] = abs(stats.spearmanr(X[:, f], X[:, g]).statistic)
    np.testing.assert_allclose(spearman_similarity(X), expected, atol=1e-12)
    np.testing.assert_allclose(FeatureSimilarity(X, "spearman").submatrix(np.arange(6)),
                               expected, atol=1e-12)


def test_nmi_matches_scikit_learn_on_the_binned_features(data):
    bins = 4
    S = nmi_similarity(data, n_bins=bins)
    ranks = stats.rankdata(data, axis=0)
    codes = np.minimum(((ranks - 0.5) * bins / 60).astype(int), bins - 1)
    for f, g in [(0, 1), (1, 3), (1, 7), (2, 5)]:
        assert S[f, g] == pytest.approx(normalized_mutual_info_score(codes[:, f], codes[:, g]))
    assert S[1, 7] == pytest.approx(1.0)


@pytest.mark.parametrize("method", ["pearson", "spearman", "nmi"])
def test_lazy_similarity_agrees_with_the_full_matrix(data, method):
    lazy = FeatureSimilarity(data, method)
    full = SimilarityMatrix(lazy.submatrix(np.arange(12)))
    features = np.array([7, 1, 3])
    np.testing.assert_allclose(lazy.submatrix(features), full.submatrix(features))
    rows, cols = np.array([[1, 2, 5], [3, 3, 0]]), np.array([[7, 0], [1, 3]])
    blocks = lazy.block(rows, cols)
    assert blocks.shape == (2, 3, 2)
    np.testing.assert_allclose(blocks, full.block(rows, cols))
    assert blocks[1, 0, 1] == blocks[1, 1, 1] == 1.0  # S[3, 3]: a feature with itself
    for threshold in (None, 0.5):
        whole = full.submatrix(np.arange(12))
        expected = np.where(whole >= (threshold or 0), whole, 0).sum() - 12
        for source in (lazy, full):
            total = offdiagonal_sum(source, threshold)
            assert total.exact and total.standard_error == 0
            assert total.value == pytest.approx(expected)


def test_blocks_are_batched_products_of_standardised_columns(data):
    """block(rows, cols)[t] is the |correlation| block of rows[t] × cols[t], whatever the
    batch: one step or many (a tiny step forces one block a step)."""
    lazy = FeatureSimilarity(data, "pearson")
    rng = np.random.default_rng(1)
    rows, cols = rng.integers(0, 12, size=(50, 4)), rng.integers(0, 12, size=(50, 3))
    S = pearson_similarity(data)
    np.testing.assert_allclose(lazy.block(rows, cols), S[rows[:, :, None], cols[:, None, :]],
                               atol=1e-12)
    with pytest.raises(InvalidInputError, match=r"features must be indices in \[0, 12\)"):
        lazy.block(rows, cols + 12)
    with pytest.raises(InvalidInputError, match="2-D arrays of integer feature indices"):
        lazy.block(rows[0], cols[0])


@pytest.mark.parametrize("method", ["pearson", "spearman", "nmi"])
def test_steps_bound_memory_and_change_no_value(data, method, monkeypatch):
    """The steps that bound a block's memory (blocks of a batch at once; rows of an NMI
    block or of nmi_similarity's matrix at once) change no value: one a step gives the
    same bits as the default."""
    from paretostab import _similarity

    rng = np.random.default_rng(2)
    rows, cols = rng.integers(0, 12, size=(30, 5)), rng.integers(0, 12, size=(30, 4))
    bins = 3 if method == "nmi" else None
    blocks = FeatureSimilarity(data, method, n_bins=bins).block(rows, cols)
    matrix = nmi_similarity(data, n_bins=3) if method == "nmi" else None
    monkeypatch.setattr(_similarity, "_STEP", 1)
    monkeypatch.setattr(_similarity, "_BLOCK", 1)
    assert np.array_equal(FeatureSimilarity(data, method, n_bins=bins).block(rows, cols), blocks)
    if method == "nmi":
        assert np.array_equal(nmi_similarity(data, n_bins=3), matrix)


def _grouped_data(d, n=60, seed=0):
    """Groups of 5 features sharing a latent factor in half of the features: similar
    pairs (|ρ| ≥ 0.9) are rare, as in the papers' simulations (000 §6.1)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    for group in np.arange(d // 2 // 5 * 5).reshape(-1, 5):
        X[:, group] = rng.normal(size=(n, 1)) + 0.2 * rng.normal(size=(n, 5))
    return X


@pytest.mark.parametrize("threshold", [None, 0.5, 0.9])
def test_offdiagonal_sum_estimate_is_within_its_standard_error(threshold):
    """d = 1 500 (1 124 250 pairs): exact with enough blocks, estimated with fewer. The
    estimate is unbiased with the stated standard error: over 20 seeds, every one lies
    within 4 SE of the exact sum and about 95 % within 2 SE (at least 16 of 20: the
    probability of fewer is below 10⁻³ for a correct SE)."""
    d = 1500
    S = FeatureSimilarity(_grouped_data(d), "spearman")
    exact = offdiagonal_sum(S, threshold, n_samples=1100)
    assert exact.exact and d * (d - 1) // 2 <= 1100 * SUM_BLOCK**2
    estimates = [offdiagonal_sum(S, threshold, n_samples=200, random_state=seed)
                 for seed in range(20)]
    errors = np.array([abs(e.value - exact.value) / e.standard_error for e in estimates])
    assert not any(e.exact for e in estimates)
    assert errors.max() < 4 and (errors < 2).sum() >= 16
    bound = d * d / (2 * np.sqrt(200))  # a block sum lies in [0, 32²]
    assert all(0 < e.standard_error <= bound for e in estimates)


@settings(max_examples=20)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(2, 80), n_samples=st.integers(1, 4),
       threshold=st.sampled_from([None, 0.0, 0.3, 1.0]))
def test_offdiagonal_sum_properties(seed, d, n_samples, threshold):
    """Bounds 0 ≤ Σ ≤ d(d − 1) (entries in [0, 1]); reproducible for a seed; exact exactly
    when the d(d − 1)/2 pairs are at most the n_samples · 32² sampled; invariant, when
    exact, to a relabelling of the features."""
    rng = np.random.default_rng(seed)
    S = rng.uniform(0, 1, size=(d, d))
    S = np.triu(S, 1) + np.triu(S, 1).T + np.eye(d)
    total = offdiagonal_sum(SimilarityMatrix(S), threshold, n_samples=n_samples,
                            random_state=seed)
    assert -1e-9 <= total.value <= d * (d - 1) * (1 + 1e-12)
    assert total.exact == (d * (d - 1) // 2 <= n_samples * SUM_BLOCK**2)
    again = offdiagonal_sum(SimilarityMatrix(S), threshold, n_samples=n_samples,
                            random_state=seed)
    assert again == total
    if total.exact:
        order = rng.permutation(d)
        relabelled = offdiagonal_sum(SimilarityMatrix(S[np.ix_(order, order)]), threshold)
        assert relabelled.value == pytest.approx(total.value, rel=1e-12, abs=1e-12)


def test_offdiagonal_sum_refuses_bad_sample_sizes():
    with pytest.raises(InvalidInputError, match="n_samples must be an integer >= 1"):
        offdiagonal_sum(SimilarityMatrix(np.eye(3)), n_samples=0)


@pytest.mark.parametrize(
    ("matrix", "message"),
    [
        (np.ones((2, 3)), "square"),
        (np.array([[1, 0.2], [0.3, 1]]), r"symmetric; S\[0, 1\] = 0.2"),
        (np.array([[1, 1.5], [1.5, 1]]), r"\[0, 1\]"),
        (np.array([[1, -0.5], [-0.5, 1]]), r"\[0, 1\]"),
        (np.array([[0.5, 0], [0, 1]]), "diagonal must be 1"),
        (np.array([[1, np.nan], [np.nan, 1]]), "NaN"),
    ],
)
def test_bad_similarity_matrices_are_rejected(matrix, message):
    with pytest.raises(InvalidInputError, match=message):
        SimilarityMatrix(matrix)


def test_similarity_must_match_the_number_of_features(data):
    with pytest.raises(InvalidInputError, match="covers 12 features but the runs have d = 5"):
        as_similarity(FeatureSimilarity(data), 5)
    with pytest.raises(UnknownNameError, match="Did you mean 'pearson'"):
        FeatureSimilarity(data, "pearsn")
    with pytest.raises(InvalidInputError, match="NaN"):
        FeatureSimilarity(np.array([[np.nan, 1.0], [1.0, 2.0]]))


def test_an_array_is_validated_where_the_measures_read_it():
    """A d×d array given to ``stability`` is checked on the block of the selected features
    (in the messages, features keep their indices), all of it only by a measure reading the
    whole space; a SimilarityMatrix is checked once, when built."""
    from paretostab import stability

    d = 8
    S = np.eye(d)
    S[5, 6], S[6, 5] = 0.9, 0.2  # asymmetric, outside the features the runs select
    Z = np.zeros((3, d), dtype=bool)
    Z[:, [0, 1, 2]] = [[1, 1, 0], [1, 0, 1], [0, 1, 1]]
    assert stability("pogr", Z, similarity=S) == stability("pogr", Z, similarity=np.eye(d))
    with pytest.raises(InvalidInputError, match=r"symmetric; S\[5, 6\] = 0.9"):
        stability("sechidis", Z, similarity=S)  # reads the whole space
    Z[0, [5, 6]] = True  # now the runs select them
    with pytest.raises(InvalidInputError, match=r"symmetric; S\[5, 6\] = 0.9"):
        stability("pogr", Z, similarity=S)
    with pytest.raises(InvalidInputError, match="symmetric"):
        SimilarityMatrix(S)
    with pytest.raises(InvalidInputError, match="square"):
        stability("pogr", Z, similarity=np.ones((d, d - 1)))


def _peaks(S):
    """Each feature's largest similarity to another one, from the full matrix."""
    off = np.array(S, dtype=float)
    np.fill_diagonal(off, -np.inf)
    return off.max(axis=1)


@pytest.mark.parametrize("method, d", [("pearson", 1100), ("spearman", 1100), ("nmi", 40)])
def test_offdiagonal_peaks_read_every_pair(method, d):
    """d = 1 100 crosses the 1 024-wide tiles; two copies of a feature (peak 1) and
    features whose peak lies in the off-diagonal tile."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, d))
    X[:, d - 1] = X[:, 2]
    X[:, d - 3] = X[:, 5] + 0.3 * rng.normal(size=30)
    full = {"pearson": pearson_similarity, "spearman": spearman_similarity,
            "nmi": nmi_similarity}[method](X)
    source = FeatureSimilarity(X, method)
    np.testing.assert_allclose(offdiagonal_peaks(source), _peaks(full), rtol=0, atol=1e-12)
    threshold = float(np.sort(_peaks(full))[-6])  # inclusive: the six largest peaks
    expected = np.flatnonzero(_peaks(full) >= threshold)
    assert np.array_equal(source.similar_features(threshold), expected)
    assert np.array_equal(SimilarityMatrix(full).similar_features(threshold), expected)
    assert np.array_equal(as_similarity(full, d).similar_features(threshold), expected)


@settings(max_examples=30)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 9),
       threshold=st.sampled_from([0.0, 0.5, 0.9, 1.0]))
def test_similar_features_are_those_with_a_similar_other_feature(seed, d, threshold):
    rng = np.random.default_rng(seed)
    S = np.triu(rng.choice([0.0, 0.5, 0.89, 0.9, 1.0], size=(d, d)), 1)
    S = S + S.T + np.eye(d)
    expected = [f for f in range(d) if any(S[f, g] >= threshold for g in range(d) if g != f)]
    assert SimilarityMatrix(S).similar_features(threshold).tolist() == expected
    assert offdiagonal_peaks(SimilarityMatrix(S)).tolist() == _peaks(S).tolist()


class _BlocksOnly:
    """A similarity that only reads blocks (no peaks, no pass of its own)."""

    n_features = 4

    def block(self, rows, cols):
        return np.ones((len(rows), rows.shape[1], cols.shape[1]))


def test_similar_features_are_affordable_when_known_or_no_dearer_than_the_reads(data):
    """Known at no cost from a matrix or an array, whatever is read; a FeatureSimilarity
    runs its pass over the d(d − 1)/2 = 66 pairs only when the caller reads at least as
    many — also after a pass ran (the answer never depends on what ran before); a
    similarity that only reads blocks never tells."""
    d = data.shape[1]
    full = pearson_similarity(data)
    expected = np.flatnonzero(_peaks(full) >= 0.9)
    assert expected.size
    for known in (SimilarityMatrix(full), as_similarity(full, d)):
        assert np.array_equal(affordable_similar_features(known, 0.9, read=0), expected)
    source = FeatureSimilarity(data, "pearson")
    assert affordable_similar_features(source, 0.9, read=d * (d - 1) // 2 - 1) is None
    assert affordable_similar_features(source, 0.9, read=0) is None
    assert np.array_equal(affordable_similar_features(source, 0.9, read=d * (d - 1) // 2),
                          expected)
    assert affordable_similar_features(source, 0.9, read=0) is None
    assert affordable_similar_features(_BlocksOnly(), 0.9, read=10**9) is None


def _nmi_elementwise(codes_a, codes_b, n_bins):
    """NMI as first written: joint counts by einsum, p log p by a logarithm per count."""
    n = codes_a.shape[0]
    onehot_a = (codes_a[:, :, None] == np.arange(n_bins)).astype(np.float64)
    onehot_b = (codes_b[:, :, None] == np.arange(n_bins)).astype(np.float64)

    def entropy(counts, axis):
        p = counts / n
        with np.errstate(divide="ignore", invalid="ignore"):
            return -np.sum(np.where(p > 0, p * np.log(p), 0.0), axis=axis)

    joint = np.einsum("nab,ncd->acbd", onehot_a, onehot_b)
    h_a, h_b = entropy(onehot_a.sum(axis=0), 1), entropy(onehot_b.sum(axis=0), 1)
    h_joint = entropy(joint.reshape(joint.shape[0], joint.shape[1], -1), 2)
    mutual, mean_h = h_a[:, None] + h_b[None, :] - h_joint, (h_a[:, None] + h_b[None, :]) / 2
    return np.clip(np.divide(mutual, mean_h, out=np.zeros_like(mutual), where=mean_h > 0), 0, 1)


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 300), n_bins=st.integers(2, 9),
       d=st.integers(1, 30))
def test_nmi_from_a_product_and_a_table_is_the_elementwise_nmi_bit_for_bit(seed, n, n_bins,
                                                                           d):
    """The joint counts as one BLAS product and p log p read from a table of the n + 1
    counts give the very values of the einsum and a logarithm per count: a similarity
    computed before and after the pass was made cheaper is the same number."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), int(rng.integers(0, 3)))  # ties too
    X[:, 0] = 1.0  # a constant feature
    source = FeatureSimilarity(X, "nmi", n_bins=n_bins)
    S = source.submatrix(np.arange(d))
    reference = _nmi_elementwise(*(2 * [_discretise(X, n_bins)]), n_bins)
    np.fill_diagonal(reference, 1.0)
    assert np.array_equal(S, reference)
    assert np.array_equal(nmi_similarity(X, n_bins=n_bins), np.maximum(reference, reference.T))


@settings(max_examples=30)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 40), n=st.integers(3, 40),
       method=st.sampled_from(["pearson", "spearman"]))
def test_correlation_peaks_are_the_largest_other_similarity(seed, d, n, method):
    """The pass of |Pearson| and |Spearman| (products of the standardised rows, |·|, the
    diagonal left out, clipped to 1) equals the largest off-diagonal entry of the full
    matrix: −∞ for one feature, 0 for a constant one, 1 for a copy."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 1)
    if d >= 3:
        X[:, 1], X[:, 2] = X[:, 0], 5.0
    full = {"pearson": pearson_similarity, "spearman": spearman_similarity}[method](X)
    peaks = offdiagonal_peaks(FeatureSimilarity(X, method))
    np.testing.assert_allclose(peaks, _peaks(full), rtol=0, atol=1e-12)
    assert peaks.max(initial=-np.inf) <= 1.0
    if d >= 3:
        assert peaks[0] == pytest.approx(1.0, abs=1e-12) and peaks[2] == 0.0


class _MatrixBlocks:
    """A similarity known only through its blocks (the generic path of a pass)."""

    def __init__(self, S):
        self.S, self.n_features = S, S.shape[0]

    def block(self, rows, cols):
        return self.S[rows[:, :, None], cols[:, None, :]]


def test_the_generic_pass_reads_the_columns_of_the_tiles_off_the_diagonal():
    """d = 1 100 crosses the 1 024-wide tiles: feature 1 099's only similar feature, 0, is
    in a column of the tile of rows 0–1 023, not in a row of its own tile."""
    d = 1100
    S = np.full((d, d), 0.1)
    np.fill_diagonal(S, 1.0)
    S[0, d - 1] = S[d - 1, 0] = 0.95
    S[1030, 1050] = S[1050, 1030] = 0.5
    assert offdiagonal_peaks(_MatrixBlocks(S)).tolist() == _peaks(S).tolist()


def test_features_outside_the_data_are_refused(data):
    d = data.shape[1]
    for features in ([-1], [-1, 2], [d], [0, d], [d + 3, 1]):
        with pytest.raises(InvalidInputError, match=rf"^features must be indices in \[0, {d}\)"):
            pearson_similarity(data, features)
    for features in ([[0, 1]], [0.0, 1.0]):  # not 1-D, not integers
        with pytest.raises(InvalidInputError, match="^features must be a 1-D array of integer"):
            pearson_similarity(data, features)


def test_data_of_one_dimension_or_one_example_are_refused():
    for X in (np.arange(5.0), np.ones((1, 4))):
        with pytest.raises(InvalidInputError, match=r"^X must be a 2-D data matrix with at "
                           r"least 2 examples \(rows\); got shape " + re.escape(str(X.shape))):
            FeatureSimilarity(X, "pearson")


def test_only_nmi_has_bins():
    X = np.random.default_rng(5).normal(size=(27, 4))
    assert FeatureSimilarity(X, "pearson", n_bins=5).n_bins is None
    assert FeatureSimilarity(X, "nmi").n_bins == 3 and FeatureSimilarity(X, "nmi", n_bins=5).n_bins == 5


def test_the_sum_is_exact_up_to_as_many_pairs_as_the_blocks_draw():
    """d = 2 048: its 2 096 128 pairs are 2 047 blocks of 32² to the pair. Exact with 2 047
    blocks, estimated with 2 046."""
    S = FeatureSimilarity(np.random.default_rng(0).normal(size=(5, 2048)), "pearson")
    assert 2048 * 2047 // 2 == 2047 * SUM_BLOCK**2
    assert offdiagonal_sum(S, 0.5, n_samples=2047).exact
    assert not offdiagonal_sum(S, 0.5, n_samples=2046, random_state=0).exact


def test_nmi_bins_by_default_follow_the_number_of_examples():
    """max(2, round(n^(1/3))) bins of the n examples: 4 for n = 64 (d = 8 would give 2)."""
    X = np.random.default_rng(4).normal(size=(64, 8))
    np.testing.assert_array_equal(nmi_similarity(X), nmi_similarity(X, n_bins=4))
    assert not np.array_equal(nmi_similarity(X), nmi_similarity(X, n_bins=2))


class _ConstantBlocks:
    """Every pair of distinct features similar at 0.5, among a million features."""

    n_features = 10**6

    def block(self, rows, cols):
        return np.full((len(rows), rows.shape[1], cols.shape[1]), 0.5)


def test_the_standard_error_of_two_blocks_is_their_spread():
    """N = 2 blocks whose sums are equal (no feature drawn twice in a block, which seed 0
    gives): s = 0, so the standard error is 0 — the bound area/2 is for N = 1 only."""
    two = offdiagonal_sum(_ConstantBlocks(), n_samples=2, random_state=0)
    assert not two.exact and two.standard_error == 0.0
    assert two.value == pytest.approx(0.5 * 10**12)
    one = offdiagonal_sum(_ConstantBlocks(), n_samples=1, random_state=0)
    assert one.standard_error == pytest.approx(10**12 / SUM_BLOCK**2 * SUM_BLOCK**2 / 2)


#: A tolerance that, like 1 ± it and 0.5 + it, is a float exactly: every check of a
#: similarity matrix can then be met exactly at its boundary.
ATOL = 2.0**-27


@pytest.mark.parametrize("where", ["above 1", "below 0", "asymmetric", "diagonal"])
def test_each_check_of_a_similarity_matrix_accepts_its_tolerance_and_refuses_beyond(where):
    """Values off by ``atol`` exactly are accepted and made exact (clipped to [0, 1],
    symmetrised to the mean, the diagonal set to 1); off by ``atol`` + 2⁻⁵⁰, refused."""
    def matrix(excess):
        S = np.full((3, 3), 0.5)
        np.fill_diagonal(S, 1.0)
        if where == "above 1":
            S[0, 1] = S[1, 0] = 1 + excess
        elif where == "below 0":
            S[0, 1] = S[1, 0] = -excess
        elif where == "asymmetric":
            S[1, 0] = 0.5 + excess
        else:
            S[2, 2] = 1 - excess
        return S

    expected = matrix(0.0)
    expected[0, 1] = expected[1, 0] = {"above 1": 1.0, "below 0": 0.0,
                                       "asymmetric": 0.5 + ATOL / 2}.get(where, 0.5)
    accepted = SimilarityMatrix(matrix(ATOL), atol=ATOL)
    np.testing.assert_array_equal(accepted.submatrix([0, 1, 2]), expected)
    refused = {"above 1": r"must lie in \[0, 1\]", "below 0": r"must lie in \[0, 1\]",
               "asymmetric": "must be symmetric", "diagonal": "the diagonal must be 1"}
    with pytest.raises(InvalidInputError, match=refused[where]):
        SimilarityMatrix(matrix(ATOL + 2.0**-50), atol=ATOL)
