"""The cases of ``benchmarks/bench_scale.py``: each a method of the package and its plain
baseline (scikit-learn, skrebate, numpy, or the oracles of ``tests/reference``).

Selector cases are functions ``(X, y, k) ->`` the selected features' indices, one fit;
measure cases ``(X, Z, I) ->`` the measure's value, one first call. A function may return
``(result, note)``, the note (a convergence count, what a stand-in does) printed beside
the row, and may raise :class:`Skip` when it cannot run at that size (the reason is
printed instead of its figures). A case whose baseline is ``None`` has none: its
``note`` says why. How each baseline is made is in ``bench_scale.py``'s docstring.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from functools import partial

import numpy as np
from scipy import stats
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import SelectKBest, f_classif, mutual_info_classif
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC, l1_min_c

from benchmarks.bench_similarity_scale import make_problem
from paretostab._similarity import FeatureSimilarity
from paretostab.measures import stability
from paretostab.selectors import SELECTORS
from tests.reference.msi import msi_linprog
from tests.reference.rfe import reference_hybrid_rfe

#: scikit-learn's defaults for the logistic RFE baseline (``tests/reference/rfe.py``).
SKLEARN_DEFAULT = {"tol": 1e-4, "max_iter": 100}
#: λ of the package's L2 penalties (``reg=1``): scikit-learn's ``C = 1/(2λ)``.
C_HALF = 0.5
#: The C search of the plain lasso / elastic net: fits at most, and the span of log C.
MAX_FITS = 12
C_SPAN = 1e3
#: The elastic net of the grid: the package's λ₂ and scikit-learn's equivalent ρ =
#: λ₂/(2 − λ₂) (``paretostab/selectors/_linear.py``: same objective up to the factor C).
EN_L1_RATIO = 0.5
EN_SKLEARN_L1_RATIO = EN_L1_RATIO / (2 - EN_L1_RATIO)
#: Group size of the group lasso case (consecutive features).
GROUP_SIZE = 5
#: Selected features per run of the measures' problem (uniform in this range).
MEASURE_K = (15, 25)
#: Largest full d × d similarity matrix the oracles are given (GiB).
ORACLE_MATRIX_GIB = 6.0


class Skip(Exception):
    """A side that cannot run at this size; the message says why."""


@dataclass(frozen=True)
class Case:
    """A method of the package and its plain baseline (``None``: there is none, ``note``
    says why), each ``(X, y, k) ->`` the selected features' indices, one fit (a measure
    case: ``(X, Z, I) ->`` its value). ``cell``: the (n, d) at which a case of one cell is
    measured; ``timeout``: seconds after which the baseline's process is stopped and
    reported as such (None: ``--timeout``); ``note``: printed beside every row."""

    name: str
    method: object
    baseline: object
    cell: tuple[int, int] | None = None
    timeout: float | None = None
    note: str = ""


def _indices(mask) -> np.ndarray:
    return np.flatnonzero(mask)


def _standardised(X: np.ndarray) -> np.ndarray:
    return StandardScaler().fit_transform(X)


def _top(scores: np.ndarray, k: int) -> np.ndarray:
    """The k largest scores' indices (ties: lowest index), sorted."""
    return np.sort(np.argsort(-scores, kind="stable")[:k])


# ----------------------------------------------------------------- plain L1 / elastic net


def bisect_c(fit, c_low: float, k: int, *, span: float = C_SPAN, max_fits: int = MAX_FITS,
             tolerance: int = 1):
    """Bisection in log C on [``c_low``, ``span`` × ``c_low``] for a fit selecting k ±
    ``tolerance`` features; ``fit(C) -> (selected, hit_max_iter)``. Stops at the first fit
    within tolerance or after ``max_fits`` fits; returns (the selected set of the fit whose
    count is closest to k — the larger count on ties —, note)."""
    lo, hi = math.log(c_low), math.log(c_low * span)
    best, stalled, fits = None, 0, 0
    while fits < max_fits:
        c = math.exp((lo + hi) / 2)
        selected, hit_max_iter = fit(c)
        fits, stalled = fits + 1, stalled + hit_max_iter
        key = (abs(selected.size - k), -selected.size)
        if best is None or key < best[0]:
            best = (key, selected, c)
        if abs(selected.size - k) <= tolerance:
            break
        if selected.size < k:
            lo = math.log(c)
        else:
            hi = math.log(c)
    selected = best[1]
    note = f"{fits} fits, {selected.size} selected at C = {best[2]:.3g}"
    if stalled:
        note += f"; {stalled} of {fits} fits stopped at max_iter"
    return selected, note


def _l1_fit(Xs, y, c, **options):
    model = LogisticRegression(C=c, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(Xs, y)
    return model


def plain_lasso(X, y, k):
    """liblinear L1-logistic on standardised X, C bisected (:func:`bisect_c`) from
    ``l1_min_c``, below which nothing is selected."""
    Xs = _standardised(X)

    def fit(c):
        model = _l1_fit(Xs, y, c, l1_ratio=1.0, solver="liblinear")
        return _indices(model.coef_[0]), bool(np.max(model.n_iter_) >= model.max_iter)

    return bisect_c(fit, l1_min_c(Xs, y, loss="log"), k)


def plain_elastic_net(X, y, k):
    """saga elastic-net logistic (ρ = :data:`EN_SKLEARN_L1_RATIO`, scikit-learn's other
    defaults: ``max_iter=100``, ``tol=1e-4``) on standardised X, warm-started, C bisected
    from ``ρ · l1_min_c`` (the C below which nothing is selected: the zero weights are
    optimal while ``C ‖∇loss(0)‖∞ ≤ ρ``)."""
    Xs = _standardised(X)
    model = LogisticRegression(l1_ratio=EN_SKLEARN_L1_RATIO, solver="saga", warm_start=True)

    def fit(c):
        model.set_params(C=c)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(Xs, y)
        return _indices(model.coef_[0]), bool(np.max(model.n_iter_) >= model.max_iter)

    return bisect_c(fit, EN_SKLEARN_L1_RATIO * l1_min_c(Xs, y, loss="log"), k)


def elastic_net(X, y, k):
    """The package's calibrated elastic net: one ``fit`` searches λ₁ selecting exactly k."""
    return _indices(SELECTORS["elastic_net"].make(l1_ratio=EN_L1_RATIO, target_features=k)
                    .fit(X, y).support_)


# ------------------------------------------------------------------------------ plain RFE


def plain_rfe(X, y, k, fit_weights, beta=None, step: float = 0.2):
    """RFE written plainly (the schedule of ``tests/reference/rfe.py``): on standardised X
    (divided by ``beta``), refit from scratch at each step, drop the
    ``min(max(1, ⌊step·|F|⌋), |F| − k)`` remaining features of smallest
    ``|fit_weights(X_F, y)| / beta_F`` (ties: higher index first), then one final fit on
    the k kept. ``fit_weights`` returns the weights and whether the fit stopped at its
    iteration limit. Returns (the kept features, note)."""
    Xs = _standardised(X)
    beta = np.ones(X.shape[1]) if beta is None else beta
    F = np.arange(X.shape[1])
    fits = stalled = 0
    while F.size > k:
        w, hit = fit_weights(Xs[:, F] / beta[F], y)
        fits, stalled = fits + 1, stalled + hit
        n_drop = min(max(1, math.floor(step * F.size)), F.size - k)
        order = np.lexsort((-F, np.abs(w) / beta[F]))  # smallest first, higher index first
        F = np.sort(F[order[n_drop:]])
    _, hit = fit_weights(Xs[:, F], y)
    fits, stalled = fits + 1, stalled + hit
    return F, f"{fits} fits" + (f", {stalled} stopped at max_iter" if stalled else "")


def _quiet_fit(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    return model


def _linear_svm_weights(X, y):
    model = _quiet_fit(LinearSVC(loss="hinge", C=C_HALF), X, y)
    return model.coef_[0], bool(model.n_iter_ >= model.max_iter)


def _logistic_weights(X, y):
    model = _quiet_fit(LogisticRegression(C=C_HALF, **SKLEARN_DEFAULT), X, y)
    return model.coef_[0], bool(model.n_iter_[0] >= model.max_iter)


def _svc_fit_only(X, y):
    """One ``SVC(kernel="rbf")`` fit; weights that drop the last features (no criterion)."""
    _quiet_fit(SVC(kernel="rbf", C=C_HALF), X, y)
    return np.arange(X.shape[1], 0, -1, dtype=float), False


def biased_beta(d: int, shape: float = 1.0, seed: int = 0) -> np.ndarray:
    """β ~ Γ(shape, 1) re-centred to mean 1 and floored at 1e-6 (002 §4), drawn as
    ``BiasedRFE(random_state=seed)`` draws them."""
    beta = np.random.RandomState(seed).gamma(shape, 1.0, size=d)
    return np.maximum(beta / beta.mean(), 1e-6)


def plain_logistic_rfe(X, y, k):
    return reference_hybrid_rfe(X, y, n_features=k, step=0.2, **SKLEARN_DEFAULT)["support"]


def plain_svm_rfe(X, y, k):
    return plain_rfe(X, y, k, _linear_svm_weights)


def plain_biased_rfe(X, y, k):
    return plain_rfe(X, y, k, _logistic_weights, beta=biased_beta(X.shape[1]))


def plain_kernel_svm_fits(X, y, k):
    _, note = plain_rfe(X, y, k, _svc_fit_only)
    return None, note + " (SVC fits only, no criterion)"


# ---------------------------------------------------------------------- plain filters etc.


def plain_random_forest(X, y, k):
    forest = RandomForestClassifier(n_estimators=100, random_state=0).fit(X, y)
    return _top(forest.feature_importances_, k)


def plain_relief(X, y, k):
    from skrebate import ReliefF

    relief = ReliefF(n_features_to_select=k, n_neighbors=5).fit(X, y)
    return np.sort(relief.top_features_[:k])


def _with_final_model(select):
    """``select`` followed, as the package's filters are, by the final L2-logistic model
    (``C = 1/2``, scikit-learn's defaults) on the k selected features, standardised: what
    a scikit-learn user's ``Pipeline(StandardScaler, SelectKBest, LogisticRegression)``
    fits."""
    def plain(X, y, k):
        chosen = select(X, y, k)
        _quiet_fit(LogisticRegression(C=C_HALF, **SKLEARN_DEFAULT),
                   _standardised(X[:, chosen]), y)
        return chosen

    plain.__name__ = select.__name__
    return plain


@_with_final_model
def plain_t_test(X, y, k):
    return SelectKBest(f_classif, k=k).fit(X, y).get_support(indices=True)


@_with_final_model
def plain_mim(X, y, k):
    score = partial(mutual_info_classif, random_state=0)
    return SelectKBest(score, k=k).fit(X, y).get_support(indices=True)


@_with_final_model
def plain_mrmr(X, y, k):
    """Greedy mRMR, difference form, Gaussian MI −½log(1 − r²) of Pearson's r (the
    package's criterion, written plainly in numpy)."""
    Z = _standardised(X) / math.sqrt(X.shape[0])  # unit-norm centred columns
    t = (y - y.mean()) / np.linalg.norm(y - y.mean())

    def mi(r):
        return -0.5 * np.log1p(-np.minimum(r**2, 1 - 1e-12))

    relevance = mi(Z.T @ t)
    redundancy = np.zeros(X.shape[1])
    picked = [int(np.argmax(relevance))]
    for step in range(1, k):
        redundancy += mi(Z.T @ Z[:, picked[-1]])
        score = relevance - redundancy / step
        score[picked] = -np.inf
        picked.append(int(np.argmax(score)))
    return np.sort(picked)


def _package(name: str, **params):
    def fit(X, y, k):
        extra = {"n_features": k} if "n_features" in SELECTORS[name].parameters() else {
            "target_features": k}
        if name == "group_lasso":
            extra["groups"] = np.arange(X.shape[1]) // GROUP_SIZE
        return _indices(SELECTORS[name].make(**extra, **params).fit(X, y).support_)

    fit.__name__ = name
    return fit


#: The cell of the selector cases, and that of the slow ones (relief: skrebate's ReliefF
#: takes 33 s at 1 000 × 2 000, ≈ 5 min at d = 20 000; kernel_svm_rfe: 15 s, ≈ 2.5 min).
SELECTOR_CELL = (1_000, 20_000)
SLOW_CELL = (1_000, 2_000)

SELECTOR_CASES = {case.name: case for case in [
    Case("logistic_rfe", _package("logistic_rfe"), plain_logistic_rfe),
    Case("svm_rfe", _package("svm_rfe"), plain_svm_rfe),
    Case("biased_rfe", _package("biased_rfe", random_state=0), plain_biased_rfe),
    Case("lasso", _package("lasso"), plain_lasso),
    Case("group_lasso", _package("group_lasso"), plain_lasso,
         note=f"groups of {GROUP_SIZE} consecutive features; baseline: the lasso's (no "
              "scikit-learn group lasso)"),
    Case("random_forest", _package("random_forest", n_trees=100, random_state=0),
         plain_random_forest,
         note="100 trees each; paretostab: OOB permutation importances + a final forest, "
              "baseline: impurity importances"),
    Case("relief", _package("relief"), plain_relief, cell=SLOW_CELL,
         note="5 neighbours each"),
    Case("t_test", _package("t_test"), plain_t_test),
    Case("mim", _package("mim"), plain_mim,
         note="paretostab: binned plug-in MI (its default); baseline: k-NN MI"),
    Case("mrmr", _package("mrmr"), plain_mrmr, note="baseline: a plain numpy greedy"),
    Case("kernel_svm_rfe", _package("kernel_svm_rfe"), plain_kernel_svm_fits, cell=SLOW_CELL),
]}


# ------------------------------------------------------------------------------- measures


def measure_problem(d: int, runs: int, seed: int = 0):
    """``bench_similarity_scale.make_problem``: n = 100 examples with groups of similar
    features, M overlapping runs of k ∈ :data:`MEASURE_K` features, importances."""
    return make_problem(d, runs, MEASURE_K, seed)


def _measure(name: str):
    def first_call(X, Z, I):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if name == "nogueira":
                return stability(name, Z)
            return stability(name, I if name == "msi" else Z,
                             similarity=FeatureSimilarity(X, "spearman"))

    first_call.__name__ = name
    return first_call


def plain_nogueira(X, Z, I):
    """Nogueira et al. (JMLR 2018; 003 eq. 1): 1 − mean_f s_f² / (k̄/d (1 − k̄/d)), s_f² =
    M/(M − 1) p_f(1 − p_f) the unbiased variance of feature f's selection."""
    M, d = Z.shape
    p = Z.mean(axis=0)
    k_bar = Z.sum() / M
    return float(1 - np.mean(M / (M - 1) * p * (1 - p)) / (k_bar / d * (1 - k_bar / d)))


def plain_msi(X, Z, I):
    """The oracle ``tests/reference/msi.py`` (one ``linprog`` per pair of runs) on the full
    |Spearman| matrix, computed plainly (ranks, standardised, one product)."""
    d = X.shape[1]
    if d * d * 8 > ORACLE_MATRIX_GIB * 2**30:
        raise Skip(f"the oracle takes the full d × d similarity matrix: "
                   f"{d * d * 8 / 2**30:,.0f} GiB")
    R = stats.rankdata(X, axis=0)
    R = (R - R.mean(axis=0)) / R.std(axis=0)
    S = R.T @ R
    S /= X.shape[0]
    np.abs(S, out=S)
    return msi_linprog(I, S)


MEASURE_CASES = {case.name: case for case in [
    Case("sma_count", _measure("sma_count"), None,
         note="oracle tests/reference/adjusted.py: its exact expectation enumerates all "
              "C(d, k)² pairs of subsets, and it takes the full d × d matrix"),
    Case("msi", _measure("msi"), plain_msi, timeout=120.0),
    Case("nogueira", _measure("nogueira"), plain_nogueira,
         note="baseline: numpy, Nogueira et al. 2018 (unbiased variance form)"),
]}
