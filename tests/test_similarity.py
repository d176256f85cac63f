"""Feature similarities: values, restriction to selected features, validation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import normalized_mutual_info_score

from paretostab.errors import InvalidInputError, UnknownNameError
from paretostab.similarity import (
    FeatureSimilarity,
    SimilarityMatrix,
    as_similarity,
    nmi_similarity,
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
    rows, cols = np.array([[1, 2], [3, 3]]), np.array([[7, 0], [1, 3]])
    np.testing.assert_allclose(lazy.values(rows, cols), full.values(rows, cols))
    every_row, every_col = np.meshgrid(np.arange(12), np.arange(12), indexing="ij")
    for threshold in (0.3, 0.9):  # thresholded lookups come from the list of similar pairs
        thresholded = lazy.values(every_row, every_col, threshold=threshold)
        expected = full.submatrix(np.arange(12))
        np.testing.assert_allclose(thresholded, np.where(expected >= threshold, expected, 0))
        np.testing.assert_allclose(full.values(every_row, every_col, threshold=threshold),
                                   thresholded)
    for threshold in (None, 0.5):
        assert lazy.offdiagonal_sum(threshold) == pytest.approx(full.offdiagonal_sum(threshold))
    assert lazy.max_offdiagonal() == pytest.approx(full.max_offdiagonal())


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
