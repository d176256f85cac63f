"""MIM's default estimator, R infotheo's as 000 §6.2 ran it: equal-frequency bins
(``discretize``), then the plug-in mutual information (``mutinformation``, "emp")."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paretostab import InvalidInputError
from paretostab.selectors import TrainingSample
from paretostab.selectors._filters import (
    MIMSelector,
    discrete_mutual_info,
    equal_frequency_bins,
    infotheo_mutual_info,
    infotheo_n_bins,
)

# ------------------------------------------------------------- brute-force references


def discretize_reference(column, n_bins):
    """infotheo's C++ ``discEF`` on one column, transliterated loop by loop (bins 0-based).

    The sorted column, ``freq = N / nbins``, ``mod = N % nbins``; ``splitpoint`` starts at
    ``freq − 1`` and moves by ``freq``; while ``mod > 0`` a split takes the value one
    position further (and ``mod`` decreases); the last split is the maximum + 0.01; each
    value goes to the first split it does not exceed.
    """
    values = sorted(column)
    N = len(values)
    freq, mod = N // n_bins, N % n_bins
    splitpoint = freq - 1
    splits = []
    for _ in range(n_bins - 1):
        if mod > 0:
            splits.append(values[splitpoint + 1])
            mod -= 1
        else:
            splits.append(values[splitpoint])
        splitpoint += freq
    splits.append(values[N - 1] + 0.01)
    codes = []
    for x in column:
        bin_ = -1
        for k, split in enumerate(splits):
            if bin_ == -1 and x <= split:
                bin_ = k
        codes.append(bin_)
    return codes


def entropy_reference(symbols):
    """infotheo's empirical entropy (nats): log N − Σ_c c log c / N over the symbols."""
    N = len(symbols)
    return math.log(N) - sum(c * math.log(c) for c in Counter(symbols).values()) / N


def mutual_info_reference(column_codes, labels):
    """``H(X) + H(y) − H(X, y)``, negative values set to 0 (infotheo's mutinformation)."""
    value = (entropy_reference(column_codes) + entropy_reference(labels)
             - entropy_reference(list(zip(labels, column_codes, strict=True))))
    return max(value, 0.0)


def problem(seed, n=60, d=30):
    """Features of varied kinds: continuous, rounded (ties), few values, constant."""
    rng = np.random.default_rng(seed)
    y = (np.arange(n) % 3 == 0).astype(int)
    X = rng.normal(size=(n, d)) + 0.8 * y[:, None] * (np.arange(d) < 5)
    X[:, 5] = np.round(X[:, 5])
    X[:, 6] = rng.integers(0, 3, n)
    X[:, 7] = -4.25  # constant
    X[:, 8] = np.round(2 * X[:, 0]) / 2  # ties, informative
    return X, y


# ---------------------------------------------------------------- bins and estimates


@pytest.mark.parametrize("n", [1, 5, 8, 10, 11, 27, 33, 62, 64, 100, 102, 125])
def test_bins_equal_a_loop_by_loop_transliteration_of_infotheo(n):
    X, _ = problem(n, n=n, d=12)
    n_bins = infotheo_n_bins(n)
    expected = np.column_stack([discretize_reference(X[:, j].tolist(), n_bins)
                                for j in range(X.shape[1])])
    np.testing.assert_array_equal(equal_frequency_bins(X, n_bins), expected)
    for other_bins in {1, 2, min(5, n), n}:  # any bin count up to n
        expected = np.column_stack([discretize_reference(X[:, j].tolist(), other_bins)
                                    for j in range(X.shape[1])])
        np.testing.assert_array_equal(equal_frequency_bins(X, other_bins), expected)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_mutual_information_equals_brute_force_entropies(seed):
    n = [62, 102, 30, 9][seed]
    X, y = problem(seed, n=n)
    n_bins = infotheo_n_bins(n)
    codes = [discretize_reference(X[:, j].tolist(), n_bins) for j in range(X.shape[1])]
    expected = [mutual_info_reference(c, y.tolist()) for c in codes]
    np.testing.assert_allclose(infotheo_mutual_info(X, y), expected, rtol=0, atol=1e-12)


def test_bin_count_is_infotheos_truncated_cube_root():
    """``as.integer(NROW(X)^(1/3))``: truncated (62 → 3, 102 → 4), and a perfect cube whose
    floating-point root falls just below the integer gets one bin less (64 → 3, 216 → 5)."""
    expected = {1: 1, 7: 1, 8: 2, 26: 2, 27: 3, 62: 3, 63: 3, 64: 3, 65: 4, 102: 4, 124: 4,
                125: 4, 126: 5, 215: 5, 216: 5, 217: 6, 1000: 9, 1001: 10}
    assert {n: infotheo_n_bins(n) for n in expected} == expected
    assert all(infotheo_n_bins(n) == int(n ** (1 / 3)) for n in range(1, 3000))
    X, y = problem(4, n=62)
    selector = MIMSelector(n_features=3).fit(X, y)
    assert selector.n_bins_ == 3
    assert MIMSelector(n_features=3, n_bins=5).fit(X, y).n_bins_ == 5
    assert MIMSelector(n_features=3, n_bins=500).fit(X, y).n_bins_ == 62  # capped at n


def test_ties_never_straddle_a_cut_and_infotheos_uneven_remainder():
    # 8 values, 2 bins: the cut is the 4th smallest value, 3; every 3 is in the lower bin
    column = np.array([[3.0], [1.0], [3.0], [6.0], [2.0], [3.0], [5.0], [4.0]])
    np.testing.assert_array_equal(equal_frequency_bins(column, 2)[:, 0],
                                  [0, 0, 0, 1, 0, 0, 1, 1])
    # 10 distinct values, 3 bins: freq 3, remainder 1 given to the first cut only, so
    # the bins hold 4, 2 and 4 values (infotheo's, not 4, 3, 3)
    ten = np.arange(10.0)[::-1, None]
    assert np.bincount(equal_frequency_bins(ten, 3)[:, 0]).tolist() == [4, 2, 4]
    # repeated cut points leave bins empty: a two-valued feature in 4 bins
    two = np.array([0.0] * 6 + [1.0] * 6)[:, None]
    assert np.bincount(equal_frequency_bins(two, 4)[:, 0], minlength=4).tolist() == [6, 0, 6, 0]


def test_constant_and_sample_independent_features_have_exactly_zero_information():
    X, y = problem(5, n=40)
    X[:, 3] = 7.0
    X[:, 4] = np.where(np.arange(40) < 20, 0.0, 1.0)  # the class is equally split across
    y = np.tile([0, 1], 20)
    mi = infotheo_mutual_info(X, y)
    assert mi[3] == 0.0 and mi[4] == 0.0 and mi[7] == 0.0
    assert np.all(mi >= 0)
    one_bin = infotheo_mutual_info(X[:7], y[:7])  # 7 examples: 1 bin
    np.testing.assert_array_equal(one_bin, np.zeros(X.shape[1]))


def test_equal_tables_give_exactly_equal_floats():
    """Tables equal up to the order of the bins, or the merging of bins of the same class
    proportions, have the same mutual information: equal scores, a tie broken by index."""
    y = np.array([0] * 16 + [1] * 14)

    def column(cells):  # bins in order, cells (class 0 count, class 1 count)
        rows = [(b, c) for b, (n0, n1) in enumerate(cells) for c in [0] * n0 + [1] * n1]
        codes = np.array([b for b, _ in rows])
        labels = np.array([c for _, c in rows])
        return codes[np.argsort(labels, kind="stable")]

    tables = [[(6, 4), (5, 5), (5, 5)], [(5, 5), (6, 4), (5, 5)], [(5, 5), (5, 5), (6, 4)],
              [(6, 4), (10, 10), (0, 0)], [(10, 10), (0, 0), (6, 4)]]
    codes = np.column_stack([column(t) for t in tables])
    mi = discrete_mutual_info(codes, y, 3)
    assert np.unique(mi).size == 1 and mi[0] > 0
    selector_order = np.lexsort((np.arange(5), -mi))
    np.testing.assert_array_equal(selector_order, np.arange(5))


monotone = st.sampled_from([
    lambda x: 3.0 * x - 7.0, lambda x: x**3, lambda x: np.exp(x / 4), np.arctan,
    lambda x: np.where(x > 0, 100 * x, x),
])


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(8, 90), column=st.integers(0, 5),
       transform=monotone)
def test_invariant_under_increasing_transformations(seed, n, column, transform):
    """Bins depend only on each feature's order: an increasing transformation of a feature
    (integer-valued data: many ties) changes neither its estimate nor the selection."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    X = rng.integers(-15, 16, size=(n, 6)).astype(float) + 3 * y[:, None] * (rng.random(6) < .5)
    Z = X.copy()
    Z[:, column] = transform(X[:, column])
    np.testing.assert_array_equal(infotheo_mutual_info(Z, y), infotheo_mutual_info(X, y))
    a, b = MIMSelector(n_features=2).fit(X, y), MIMSelector(n_features=2).fit(Z, y)
    np.testing.assert_array_equal(a.scores_, b.scores_)
    np.testing.assert_array_equal(a.rank_order_, b.rank_order_)


# ------------------------------------------------------------------------- selector


def test_selector_defaults_to_the_discrete_estimator_on_the_raw_features():
    X, y = problem(6, n=62, d=40)
    selector = MIMSelector(n_features=6).fit(X, y)
    assert selector.get_params()["estimator"] == "discrete"
    np.testing.assert_array_equal(selector.scores_, infotheo_mutual_info(X, y))
    order = np.lexsort((np.arange(40), -selector.scores_))
    np.testing.assert_array_equal(selector.rank_order_[order], np.arange(1, 41))
    np.testing.assert_array_equal(np.flatnonzero(selector.support_), np.sort(order[:6]))
    # random_state and n_neighbors do not matter to it
    other = MIMSelector(n_features=6, random_state=3, n_neighbors=9).fit(X, y)
    np.testing.assert_array_equal(other.scores_, selector.scores_)


def test_the_ranking_is_memoised_on_the_training_sample():
    X, y = problem(7)
    sample = TrainingSample(X, y)
    first = MIMSelector(n_features=4, final_reg=0.5).fit_sample(sample)
    keys = [key for key in sample._memo if isinstance(key, tuple) and key[0] == "mim"]
    assert keys == [("mim", "discrete", infotheo_n_bins(60))]
    second = MIMSelector(n_features=7, final_reg=2.0).fit_sample(sample)
    assert second.scores_ is first.scores_  # the memoised array, not recomputed


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"estimator": "ksg"}, r"estimator must be one of 'discrete', 'knn' \(.*\); got 'ksg'"),
        ({"estimator": None}, r"estimator must be one of 'discrete', 'knn' .*; got None"),
        ({"n_bins": 0}, r"n_bins must be an integer >= 1 .*; got 0"),
        ({"n_bins": 2.5}, r"n_bins must be an integer >= 1 .*; got 2.5"),
        ({"estimator": "knn", "n_neighbors": 0}, r"n_neighbors must be an integer >= 1"),
    ],
)
def test_bad_estimator_parameters(params, message):
    X, y = problem(8, n=30, d=10)
    with pytest.raises(InvalidInputError, match=message):
        MIMSelector(n_features=2, **params).fit(X, y)
