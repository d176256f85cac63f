"""The kernel SVM importance (003 eq. 8, Guyon et al. 2002) and the kernel SVM-RFE."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_blobs
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.svm import SVC
from sklearn.utils import shuffle
from sklearn.utils.estimator_checks import parametrize_with_checks

from paretostab import InvalidInputError
from paretostab import _importance as importance
from paretostab._importance import _BLOCK_ELEMENTS, _pair_blocks, kernel_svm_importance, svc_gamma
from paretostab._protocol import run_protocol
from paretostab.data import simulate_correlated_groups
from paretostab.selectors import SELECTORS, KernelSVMRFE, get_selector
from paretostab.selectors._base import standardise
from tests.estimator_checks import one_feature_failures

KERNELS = [
    ("rbf", {}),
    ("rbf", {"gamma": 3.0}),  # γD > 1 for many pairs: the overflow-safe branch
    ("rbf", {"gamma": 1e-4}),
    ("linear", {}),
    ("poly", {"degree": 1, "coef0": 0.0}),
    ("poly", {"degree": 2, "coef0": 1.0}),
    ("poly", {"degree": 3, "coef0": -0.5}),
    ("poly", {"degree": 4, "coef0": 2.0, "gamma": 0.3}),
]


def problem(seed, n=50, d=12):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 2, size=d)
    y = (X[:, 0] + X[:, 1] ** 2 - X[:, 2] * X[:, 3] + 0.3 * rng.normal(size=n) > 1).astype(int)
    return X, y


def brute_force_w2(sv, coef, kernel, params, features=None):
    """W²(α) and W²_{−f}(α) (every f, or those of ``features``) from kernel matrices
    recomputed without feature f."""
    def w2(Z):
        return coef @ pairwise_kernels(Z, metric=kernel, filter_params=True, **params) @ coef
    features = range(sv.shape[1]) if features is None else features
    return w2(sv), np.array([w2(np.delete(sv, f, axis=1)) for f in features])


def magnitude(sv, coef, params):
    """max_f Σ_kl |α_k α_l| (|K_kl| + |K_{−f},kl|): the size of the sums eq. 8 subtracts."""
    kernel = params["kernel"]
    options = {k: v for k, v in params.items() if k != "kernel"}
    def size(Z):
        Z = Z if Z.shape[1] else np.zeros((Z.shape[0], 1))  # no feature left: x·x' = 0
        K = pairwise_kernels(Z, metric=kernel, filter_params=True, **options)
        return np.abs(coef) @ np.abs(K) @ np.abs(coef)
    return size(sv) + max(size(np.delete(sv, f, axis=1)) for f in range(sv.shape[1]))


def fitted_svm(X, y, kernel, params, C=2.0):
    params = {"gamma": svc_gamma("scale", X), **params}
    svm = SVC(kernel=kernel, C=C, tol=1e-10, **params).fit(X, y)
    return svm, params


# ------------------------------------------------------------------ eq. 8, the function


@pytest.mark.parametrize(("kernel", "params"), KERNELS)
@pytest.mark.parametrize("seed", [0, 1])
def test_eq_8_equals_the_brute_force_recomputation(kernel, params, seed):
    X, y = problem(seed)
    svm, params = fitted_svm(X, y, kernel, params)
    sv, coef = svm.support_vectors_, svm.dual_coef_[0]
    full, removed = brute_force_w2(sv, coef, kernel, params)
    importance = kernel_svm_importance(sv, coef, kernel=kernel, **params)
    np.testing.assert_allclose(importance, np.abs(full - removed), rtol=1e-9,
                               atol=1e-12 * abs(full))
    assert np.all(importance >= 0)
    signed = kernel_svm_importance(sv, coef, kernel=kernel, signed=True, **params)
    np.testing.assert_allclose(signed, full - removed, rtol=1e-9, atol=1e-12 * abs(full))


def test_eq_8_where_gamma_d_is_beyond_exps_range_on_features_of_tiny_spread():
    """Features within 10⁻³ and γ = 10⁹: γD reaches 10³ on a feature whose spread is 10⁻³
    (γ · spread² above 1, γ · spread³ not), where K · expm1(γD) would overflow; the sum
    takes exp(−γ(‖x − x'‖² − D)) − K there and equals the brute force."""
    rng = np.random.default_rng(8)
    sv, coef = rng.uniform(0, 1e-3, size=(20, 4)), rng.normal(size=20)
    full, removed = brute_force_w2(sv, coef, "rbf", {"gamma": 1e9})
    importance = kernel_svm_importance(sv, coef, kernel="rbf", gamma=1e9, signed=True)
    assert np.all(np.isfinite(importance)) and np.any(importance != 0)
    np.testing.assert_allclose(importance, full - removed, rtol=1e-9,
                               atol=1e-12 * np.abs(removed).max())


def test_the_polynomial_kernel_has_coef0_0_by_default_as_svc():
    rng = np.random.default_rng(9)
    sv, coef = rng.normal(size=(15, 5)), rng.normal(size=15)
    full, removed = brute_force_w2(sv, coef, "poly", {"gamma": 0.2, "degree": 2, "coef0": 0.0})
    default = kernel_svm_importance(sv, coef, kernel="poly", gamma=0.2, degree=2, signed=True)
    np.testing.assert_allclose(default, full - removed, rtol=1e-9, atol=1e-12 * abs(full))


@pytest.mark.parametrize(("kernel", "params"), [k for k in KERNELS if k[0] != "linear"])
def test_many_feature_blocks_equal_the_brute_force(kernel, params):
    """d large enough for several blocks of features (the memory bound): the features at
    the blocks' edges against the brute force."""
    rng = np.random.default_rng(3)
    n, d = 70, 900
    sv, coef = rng.normal(size=(n, d)), rng.normal(size=n)
    params = {"gamma": 1 / d, **params}
    pairs = n * (n + 1) // 2 if kernel == "poly" else n * (n - 1) // 2
    block = _BLOCK_ELEMENTS // pairs
    assert 2 < d / block < 10
    edges = np.unique(np.clip(np.arange(0, d, block)[:, None] + [-2, -1, 0, 1], 0, d - 1))
    importance = kernel_svm_importance(sv, coef, kernel=kernel, **params)
    full, removed = brute_force_w2(sv, coef, kernel, params, features=edges)
    np.testing.assert_allclose(importance[edges], np.abs(full - removed), rtol=1e-8,
                               atol=1e-12 * abs(full))


@pytest.mark.parametrize("seed", range(3))
def test_linear_kernel_gives_guyons_criterion_w_squared(seed):
    """For K = x·x', W² − W²_{−f} = w_f² (Guyon et al. 2002's linear SVM-RFE)."""
    X, y = problem(seed)
    svm = SVC(kernel="linear", C=0.7, tol=1e-10).fit(X, y)
    importance = kernel_svm_importance(svm.support_vectors_, svm.dual_coef_[0], kernel="linear")
    np.testing.assert_allclose(importance, svm.coef_[0] ** 2, rtol=1e-12)


def test_svc_gamma_resolves_as_scikit_learn():
    X, y = problem(4)
    X[:, 3] *= 10
    for gamma in ("scale", "auto", 0.25):
        assert svc_gamma(gamma, X) == SVC(gamma=gamma).fit(X, y)._gamma
    assert svc_gamma("scale", np.ones((5, 3))) == 1.0  # zero variance, as SVC
    counts = np.random.default_rng(0).integers(1, 4, size=X.shape[0])
    repeated = np.repeat(X, counts, axis=0)
    assert svc_gamma("scale", X, sample_weight=counts) == pytest.approx(
        svc_gamma("scale", repeated), rel=1e-12)


@pytest.mark.parametrize("gamma", ["scale", "auto", 0.5])
@pytest.mark.parametrize("shape", [(4, 0), (4,), (0, 3)])
def test_svc_gamma_needs_examples_and_features(gamma, shape):
    """No example: "scale" would be 1/(d · NaN) with a RuntimeWarning, NaN importances."""
    with pytest.raises(InvalidInputError, match=(
            rf"^X must be a 2-D array with examples and features; got shape {re.escape(str(shape))}\.$")):
        svc_gamma(gamma, np.zeros(shape))


def greedy_blocks(n, offset, size):
    """The pairs (k, l), l ≥ k + offset, cut into whole rows k, each block the most rows
    whose pairs fit in ``size`` (one row at least), written out pair by pair; a block
    without pairs is left out unless it is every row."""
    rows = [[(k, l) for l in range(k + offset, n)] for k in range(n)]
    blocks, top = [], 0
    while top < n:
        stop, pairs = top + 1, list(rows[top])
        while stop < n and len(pairs) + len(rows[stop]) <= size:
            pairs += rows[stop]
            stop += 1
        if pairs or (top, stop) == (0, n):
            blocks.append((top, stop, pairs))
        top = stop
    return blocks


@pytest.mark.parametrize("offset", [0, 1])
def test_pair_blocks_are_whole_rows_within_the_block_size(offset):
    """The pairs of np.triu_indices(n, offset) in blocks of whole rows, each of at most
    _PAIR_BLOCK pairs unless one row has more: every n ≤ 9 and block size ≤ 50 against the
    greedy cut written out."""
    for n in range(1, 10):
        for size in range(1, 51):
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(importance, "_PAIR_BLOCK", size)
                blocks = [(top, stop, list(zip(first.tolist(), second.tolist(), strict=True)))
                          for top, stop, first, second in _pair_blocks(n, offset)]
            assert blocks == greedy_blocks(n, offset, size), (n, size)


@pytest.mark.parametrize(("kernel", "params"), [k for k in KERNELS if k[0] != "linear"])
@pytest.mark.parametrize("block", ["1 pair", "row 0's pairs", "rows 0 and 1's pairs"])
def test_eq_8_in_blocks_of_pairs_equals_the_brute_force(kernel, params, block, monkeypatch):
    """Blocks of at most 1 pair (one row each), as many as row 0 has (row 0 alone, then
    as many rows as fit), or rows 0 and 1 have: the blocks after the first add to it."""
    X, y = problem(11)
    svm, params = fitted_svm(X, y, kernel, params)
    sv, coef = svm.support_vectors_, svm.dual_coef_[0]
    n = len(sv)
    first_row = n if kernel == "poly" else n - 1
    size = {"1 pair": 1, "row 0's pairs": first_row, "rows 0 and 1's pairs": 2 * first_row - 1}[
        block]
    monkeypatch.setattr(importance, "_PAIR_BLOCK", size)
    assert len(list(_pair_blocks(n, 0 if kernel == "poly" else 1))) > 1
    full, removed = brute_force_w2(sv, coef, kernel, params)
    signed = kernel_svm_importance(sv, coef, kernel=kernel, signed=True, **params)
    np.testing.assert_allclose(signed, full - removed, rtol=1e-9, atol=1e-12 * abs(full))


def test_gamma_scale_needs_the_training_data():
    X, y = problem(5)
    svm = SVC(gamma="scale").fit(X, y)
    with pytest.raises(InvalidInputError, match="pass X="):
        kernel_svm_importance(svm.support_vectors_, svm.dual_coef_[0])
    np.testing.assert_allclose(
        kernel_svm_importance(svm.support_vectors_, svm.dual_coef_, X=X),
        kernel_svm_importance(svm.support_vectors_, svm.dual_coef_[0], gamma=svm._gamma))


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((np.ones((3, 2)), np.ones(2)), {"gamma": 1.0}, "one value per support vector"),
        ((np.ones(3), np.ones(3)), {"gamma": 1.0}, "2-D array"),
        ((np.full((2, 2), np.nan), np.ones(2)), {"gamma": 1.0}, "finite"),
        ((np.ones((2, 2)), np.ones(2)), {"kernel": "sigmoid", "gamma": 1.0}, "kernel must be"),
        ((np.ones((2, 2)), np.ones(2)), {"gamma": 0.0}, "gamma must be"),
        ((np.ones((2, 2)), np.ones(2)), {"gamma": "big"}, "gamma must be"),
        ((np.ones((2, 2)), np.ones(2)), {"kernel": "poly", "gamma": 1.0, "degree": 1.5},
         "degree must be"),
        ((np.ones((2, 2)), np.ones(2)), {"kernel": "poly", "gamma": 1.0, "coef0": math.inf},
         "coef0 must be"),
    ],
)
def test_importance_input_errors(args, kwargs, message):
    with pytest.raises(InvalidInputError, match=message):
        kernel_svm_importance(*args, **kwargs)


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 25), d=st.integers(1, 15),
       kernel=st.sampled_from(["rbf", "linear", "poly"]), degree=st.integers(0, 4),
       log_gamma=st.floats(-4, 2), coef0=st.floats(-2, 2))
def test_invariances_and_bounds(seed, n, d, kernel, degree, log_gamma, coef0):
    """≥ 0; relabelling the features relabels the importances; the order and common sign
    of the support vectors do not matter; a feature constant on them (rbf) or zero on them
    (every kernel) has importance 0."""
    rng = np.random.default_rng(seed)
    sv, coef = rng.normal(size=(n, d)), rng.normal(size=n)
    params = {"kernel": kernel, "gamma": 10.0**log_gamma, "degree": degree, "coef0": coef0}
    importance = kernel_svm_importance(sv, coef, **params)
    assert importance.shape == (d,) and np.all(importance >= 0)
    assert np.all(np.isfinite(importance))
    scale = magnitude(sv, coef, params)
    features, rows = rng.permutation(d), rng.permutation(n)
    np.testing.assert_allclose(kernel_svm_importance(sv[:, features], coef, **params),
                               importance[features], rtol=1e-9, atol=1e-12 * scale)
    np.testing.assert_allclose(kernel_svm_importance(sv[rows], -coef[rows], **params),
                               importance, rtol=1e-9, atol=1e-12 * scale)
    zero = sv.copy()
    zero[:, 0] = 0.0
    assert kernel_svm_importance(zero, coef, **params)[0] == 0.0
    if kernel == "rbf":
        zero[:, 0] = 1.7
        assert kernel_svm_importance(zero, coef, **params)[0] == 0.0


# ------------------------------------------------------------------------ the selector


# scikit-learn's training-accuracy check keeps 1 of the 2 features of its blobs; with the
# default width, eq. 8 (|·|) keeps the wrong one (see
# test_the_absolute_value_can_keep_the_feature_whose_removal_raises_w2): a narrower γ here.
@parametrize_with_checks([
    KernelSVMRFE(n_features=1, gamma_factor=0.1),
    KernelSVMRFE(n_features=1, criterion="signed"),
    KernelSVMRFE(n_features=1, kernel="linear"),
    KernelSVMRFE(n_features=1, kernel="poly", degree=2, coef0=1.0, gamma="auto"),
], expected_failed_checks=one_feature_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def slow_kernel_rfe(X_std, y, *, n_features, kernel, reg, step, params, signed=False):
    """The kernel SVM-RFE written out: SVC(gamma="scale") resolved by scikit-learn on the
    current features, eq. 8 (or Guyon's signed DJ) from kernel matrices recomputed without
    each feature."""
    signs = np.where(y == np.unique(y)[1], 1.0, -1.0)
    features = np.arange(X_std.shape[1])
    dropped_at = np.zeros(X_std.shape[1], dtype=int)
    pruning = 0

    def fit(columns, reg):
        svm = SVC(kernel=kernel, C=1 / (2 * reg), tol=1e-10, **params).fit(X_std[:, columns],
                                                                           signs)
        kernel_params = {k: v for k, v in params.items() if k != "gamma"}
        kernel_params["gamma"] = svm._gamma
        full, removed = brute_force_w2(svm.support_vectors_, svm.dual_coef_[0], kernel,
                                       kernel_params)
        return svm, full - removed

    while features.size > n_features:
        _, importance = fit(features, reg)
        importance = importance if signed else np.abs(importance)
        n_drop = min(max(1, math.floor(step * features.size)), features.size - n_features)
        worst = sorted(range(features.size), key=lambda i: (importance[i], -i))[:n_drop]
        pruning += 1
        dropped_at[features[worst]] = pruning
        features = np.delete(features, worst)
    svm, importance = fit(features, 0.3)
    return features, dropped_at, svm, np.abs(importance)


@pytest.mark.parametrize("criterion", ["absolute", "signed"])
@pytest.mark.parametrize(("kernel", "params"), [
    ("rbf", {}), ("linear", {}), ("poly", {"degree": 2, "coef0": 1.0})])
def test_elimination_follows_the_slow_rfe_loop(kernel, params, criterion):
    X, y = problem(6, n=40, d=30)
    selector = KernelSVMRFE(n_features=4, kernel=kernel, reg=0.2, final_reg=0.3, step=0.3,
                            criterion=criterion, tol=1e-10, **params).fit(X, y)
    X_std = standardise(X)[0]
    kept, dropped_at, svm, importance = slow_kernel_rfe(
        X_std, y, n_features=4, kernel=kernel, reg=0.2, step=0.3, params=params,
        signed=criterion == "signed")
    np.testing.assert_array_equal(np.flatnonzero(selector.support_), kept)
    last = dropped_at.max()
    np.testing.assert_array_equal(selector.ranking_, np.where(dropped_at == 0, 1,
                                                              last - dropped_at + 2))
    np.testing.assert_allclose(selector.margin_importances_[kept], importance, rtol=1e-6)
    np.testing.assert_allclose(selector.importances_[kept], 4 * importance / importance.sum(),
                               rtol=1e-6)
    np.testing.assert_allclose(selector.decision_function(X),
                               svm.decision_function(X_std[:, kept]), rtol=1e-6, atol=1e-8)


def test_bootstrap_duplicates_are_weights_and_gamma_counts_them():
    """Distinct rows weighted by their counts: the selection of the repeated rows."""
    X, y = problem(7, n=40, d=25)
    rows = np.random.default_rng(0).integers(0, 40, size=40)
    X, y = X[rows], y[rows]
    selector = KernelSVMRFE(n_features=5, reg=0.5, final_reg=0.3, step=0.3, tol=1e-10).fit(X, y)
    kept, _, svm, importance = slow_kernel_rfe(
        standardise(X)[0], y, n_features=5, kernel="rbf", reg=0.5, step=0.3, params={})
    np.testing.assert_array_equal(np.flatnonzero(selector.support_), kept)
    assert selector.gamma_ == pytest.approx(svm._gamma, rel=1e-12)
    np.testing.assert_allclose(selector.margin_importances_[kept], importance, rtol=1e-5)


def test_fitted_attributes_and_predictions():
    X, y = problem(8, n=60, d=40)
    X[:, 5] = 3.0  # constant: standardised to 0, importance 0, dropped first
    labels = np.where(y == 1, "tumour", "normal")
    selector = KernelSVMRFE(n_features=6).fit(X, labels)
    support, importance = selector.support_, selector.importances_
    assert support.sum() == 6 and np.all(importance >= 0)
    assert np.all(importance[~support] == 0) and np.all(selector.margin_importances_[~support] == 0)
    assert importance.sum() == pytest.approx(np.count_nonzero(importance))
    assert selector.ranking_[5] == selector.ranking_.max()
    assert sorted(selector.rank_order_) == list(range(1, 41))
    np.testing.assert_array_equal(np.sort(selector.rank_order_[support]), np.arange(1, 7))
    order = np.argsort(selector.rank_order_)
    assert np.all(np.diff(selector.ranking_[order]) >= 0)  # dropped later ⇒ ranked better
    kept = order[:6]
    assert np.all(np.diff(importance[kept]) <= 0)  # kept ones by decreasing importance
    decision = selector.decision_function(X)
    np.testing.assert_array_equal(selector.predict(X), selector.classes_[(decision > 0) * 1])
    assert list(selector.classes_) == ["normal", "tumour"]
    assert selector.score(X, labels) > 0.75
    assert selector.transform(X).shape == (60, 6)
    assert not hasattr(selector, "predict_proba")


def test_the_absolute_value_can_keep_the_feature_whose_removal_raises_w2():
    """scikit-learn's 2-feature blobs: feature 1 separates the classes, feature 0 barely.
    Removing feature 0 raises W² (α fixed): W² − W²_{−0} < 0 < W² − W²_{−1}, and with the
    default width |W² − W²_{−0}| is the larger, so eq. 8 keeps feature 0 while Guyon's
    signed DJ (smallest first) drops it."""
    X, y = make_blobs(n_samples=300, random_state=0)
    X, y = shuffle(X, y, random_state=7)
    X, y = X[y != 2], y[y != 2]
    absolute = KernelSVMRFE(n_features=1).fit(X, y)
    signed = KernelSVMRFE(n_features=1, criterion="signed").fit(X, y)
    full = KernelSVMRFE(n_features=2).fit(X, y)
    svm = full.estimator_
    difference = kernel_svm_importance(svm.support_vectors_, svm.dual_coef_[0],
                                       gamma=full.gamma_, signed=True)
    assert difference[0] < 0 < difference[1] < -difference[0]
    np.testing.assert_array_equal(absolute.support_, [True, False])
    np.testing.assert_array_equal(signed.support_, [False, True])
    assert signed.score(X, y) > 0.9 > 0.75 > absolute.score(X, y)


def test_gamma_factor_and_a_numeric_gamma():
    X, y = problem(9, n=40, d=20)
    scale = KernelSVMRFE(n_features=20).fit(X, y).gamma_
    assert scale == pytest.approx(1 / 20)  # 1/(|F| Var) = 1/|F| on standardised data
    assert KernelSVMRFE(n_features=20, gamma_factor=3.0).fit(X, y).gamma_ == pytest.approx(3 / 20)
    assert KernelSVMRFE(n_features=5, gamma=0.7, gamma_factor=2.0).fit(X, y).gamma_ == (
        pytest.approx(1.4))
    assert KernelSVMRFE(n_features=5, gamma="auto").fit(X, y).gamma_ == pytest.approx(1 / 5)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"n_features": 0}, r"n_features must be an integer in \[1, 20\]"),
        ({"n_features": 21}, r"n_features must be an integer in \[1, 20\]"),
        ({"kernel": "sigmoid"}, "kernel must be one of 'rbf', 'linear', 'poly'"),
        ({"reg": 0}, "reg must be a finite number > 0"),
        ({"final_reg": -1.0}, "final_reg must be a finite number > 0"),
        ({"gamma": "big"}, "gamma must be 'scale', 'auto' or a finite number > 0"),
        ({"gamma": -1.0}, "gamma must be 'scale', 'auto' or a finite number > 0"),
        ({"gamma_factor": 0.0}, "gamma_factor must be a finite number > 0"),
        ({"degree": 0}, r"degree must be an integer in \[1, 100\]"),
        ({"coef0": math.nan}, "coef0 must be a finite number"),
        ({"step": 1.0}, r"step must be a number in \(0, 1\) \(the fraction"),
        ({"criterion": "abs"}, "criterion must be 'absolute' .003 eq. 8. or 'signed'"),
        ({"tol": 0.0}, "tol must be a finite number > 0"),
    ],
)
def test_parameter_errors(params, message):
    X, y = problem(10, n=30, d=20)
    with pytest.raises(InvalidInputError, match=message):
        KernelSVMRFE(**{"n_features": 3, **params}).fit(X, y)


# ---------------------------------------------------------------- protocol and registry


def test_run_protocol_end_to_end():
    sim = simulate_correlated_groups(group_size=2, n_other=60, n_per_class=30, random_state=0)
    runs = run_protocol(KernelSVMRFE(n_features=5), sim.X, sim.y, runs=5, random_state=0,
                        progress=False)
    assert runs.runs == 5 and runs.selector == "KernelSVMRFE"
    Z, I = runs.selection_matrix, runs.importance_matrix
    assert Z.shape == I.shape == (5, 70) and np.all(Z.sum(axis=1) == 5)
    assert np.all((I > 0) <= Z) and np.all(I >= 0)
    np.testing.assert_allclose(I.sum(axis=1), np.count_nonzero(I, axis=1))
    assert runs.rank_matrix.shape == (5, 70)
    assert 0.5 < runs.accuracy <= 1
    assert -1 <= runs.stability("iw") <= 1 and -1 <= runs.stability("nogueira") <= 1
    filtered = run_protocol(KernelSVMRFE(n_features=5), sim.X, sim.y, runs=3, random_state=0,
                            progress=False, prefilter=30)
    assert np.all(filtered.selection_matrix.sum(axis=1) == 5)


def test_registry_entry():
    info = get_selector("kernel_svm_rfe")
    assert SELECTORS["kernel_svm_rfe"] is info and info.estimator is KernelSVMRFE
    selector = info.make()
    assert selector.n_features == 20 and selector.kernel == "rbf"
    params = selector.get_params()
    assert set(info.search_space) <= set(params)
    assert all(r.log and r.low > 0 for r in info.search_space.values())
