"""Hybrid RFE (003 Algorithm 1, eq. 15–16) and biased RFE (002 §4), on the fast core.

Penalty convention of the whole package: ``reg=λ`` is the loss
``Σ log(1 + e^{−y(w·x + b)}) + λ‖β ⊙ w‖²`` on standardised features with an unpenalised
intercept — scikit-learn's ``LogisticRegression(C=1/(2λ))`` on the features ``x_f/β_f``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats
from sklearn.utils import check_random_state

from paretostab._errors import InvalidInputError
from paretostab._validation import NON_NEGATIVE, is_number
from paretostab.selectors._base import check_int, check_positive
from paretostab.selectors._rfe import BaseRFE, EliminationPath

__all__ = ["BETA_FLOOR", "CRITERIA", "BiasedRFE", "HybridRFE", "class_separation",
           "transfer_learning_rfe", "univariate_order", "welch_anova_f", "welch_t"]

CRITERIA = ("variance", "welch_t")


def welch_t(X: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """|Welch's t| of each feature between the two classes (0 for constant features;
    inf where both classes are constant but their means differ)."""
    a, b = X[signs > 0], X[signs < 0]
    difference = np.abs(a.mean(axis=0) - b.mean(axis=0))
    spread = np.sqrt(a.var(axis=0, ddof=1) / len(a) + b.var(axis=0, ddof=1) / len(b)) if min(
        len(a), len(b)) > 1 else np.zeros(X.shape[1])
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(spread > 0, difference / np.where(spread > 0, spread, 1.0),
                     np.where(difference > 0, np.inf, 0.0))
    return t


def welch_anova_f(X: np.ndarray, class_index: np.ndarray) -> np.ndarray:
    """Welch's heteroscedastic one-way ANOVA F of each feature across K ≥ 2 classes.

    Welch (1951), Biometrika 38, 330–336: with class sizes n_j, means x̄_j, variances s_j²
    (ddof 1), weights ``w_j = n_j / s_j²``, ``W = Σ_j w_j`` and ``x̄_w = Σ_j w_j x̄_j / W``,

        F = [Σ_j w_j (x̄_j − x̄_w)² / (K − 1)] / [1 + 2 (K − 2) / (K² − 1) · Λ],
        Λ = Σ_j (1 − w_j / W)² / (n_j − 1).

    For K = 2 it is Welch's t squared (the denominator is 1). A class of zero spread
    (constant on the feature, or a single example) has infinite weight; F is then its
    limit: inf where such classes differ in mean, else the formula with x̄_w their common
    mean and their terms of Λ 0 (the limit for one such class) — in particular 0 for a
    constant feature, inf where every class is constant but the means differ (as
    :func:`welch_t`).

    Parameters
    ----------
    X : array (n, d)
    class_index : int array (n,) of class indices 0..K−1, each class present
    """
    n_classes = int(class_index.max()) + 1
    members = [class_index == c for c in range(n_classes)]
    size = np.array([member.sum() for member in members], dtype=float)[:, None]
    mean = np.array([X[member].mean(axis=0) for member in members])
    var = np.array([X[member].var(axis=0, ddof=1) if member.sum() > 1
                    else np.zeros(X.shape[1]) for member in members])
    spread = var / size  # the variance of each class mean
    rigid = spread == 0  # classes of infinite weight
    with np.errstate(divide="ignore"):
        weight = np.where(rigid, 0.0, 1.0 / np.where(rigid, 1.0, spread))
    total = weight.sum(axis=0)
    any_rigid = rigid.any(axis=0)
    rigid_high = np.where(rigid, mean, -np.inf).max(axis=0)
    rigid_low = np.where(rigid, mean, np.inf).min(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = np.where(any_rigid, rigid_high, (weight * mean).sum(axis=0) / total)
        share = np.where(any_rigid, 0.0, weight / total)
        between = (weight * (mean - centre) ** 2).sum(axis=0) / (n_classes - 1)
        lam = np.where(rigid, 0.0, (1 - share) ** 2 / np.maximum(size - 1, 1)).sum(axis=0)
    f = between / (1 + 2 * (n_classes - 2) / (n_classes ** 2 - 1) * lam)
    return np.where(any_rigid & (rigid_high > rigid_low), np.inf, f)


def class_separation(X: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """The supervised univariate criterion of the package (the hybrid RFE's
    ``criterion="welch_t"``, the t-test filter): |Welch's t| between two classes
    (``signs`` a ±1 vector); with K > 2 classes (``signs`` an n × K matrix of one-vs-rest
    columns) Welch's ANOVA F, :func:`welch_anova_f`, its K-class form (F = t² for K = 2,
    so that the two rank alike; a class of zero spread, as a bootstrapped class of one
    distinct value, is taken at its limit)."""
    if signs.ndim == 1:
        return welch_t(X, signs)
    return welch_anova_f(X, np.argmax(signs, axis=1))


def univariate_order(X: np.ndarray, signs: np.ndarray, criterion: str | float) -> np.ndarray:
    """Features by decreasing univariate criterion on the raw data (ties: lower index first).

    ``"variance"``: sample variance (unsupervised); ``"welch_t"``: |Welch's t| (supervised;
    with K > 2 classes Welch's ANOVA F, see :func:`class_separation`); a number w in [0, 1]:
    the mix ``w · q(t) + (1 − w) · q(variance)`` of the two criteria's rank fractions q
    (average ranks / d), the linear combination of 003 §6.1 made scale-free. ``signs``: a
    ±1 vector (two classes) or an n × K matrix of one-vs-rest ±1 columns.
    """
    if isinstance(criterion, str):
        score = X.var(axis=0, ddof=1) if criterion == "variance" else class_separation(X, signs)
    else:
        d = X.shape[1]
        score = (criterion * stats.rankdata(class_separation(X, signs)) / d
                 + (1 - criterion) * stats.rankdata(X.var(axis=0, ddof=1)) / d)
    return np.lexsort((np.arange(X.shape[1]), -score))


def _check_criterion(criterion: object) -> None:
    if isinstance(criterion, str) and criterion in CRITERIA:
        return
    if is_number(criterion) and 0 <= criterion <= 1:
        return
    raise InvalidInputError(
        "criterion must be 'variance', 'welch_t' or a weight w in [0, 1] of Welch's t in "
        f"their rank mix; got {criterion!r}."
    )


class HybridRFE(BaseRFE):
    """Hybrid recursive feature elimination (003 Algorithm 1) with frequency shrinkage.

    The top ``n_stable`` (N) features of a univariate ``criterion`` form the stable set
    S_N; they get the differential shrinkage β = ``epsilon`` (ε, 1 elsewhere) and are never
    dropped. The others are eliminated recursively with L2-logistic models of penalty
    ``reg ‖β ⊙ w‖²`` (λ) until ``n_features`` (k) remain; the final model is fitted on
    them with ``final_reg`` (λ_f), with the frequency-score shrinkage of 003 eq. 16,
    ``λ_f Σ_f (1 + alpha (1 − sc_f)) w_f²``, when ``alpha`` (α) > 0. ``n_stable=0`` is the
    plain logistic RFE, ``n_stable=n_features`` the univariate filter; ``loss="hinge"``
    gives the SVM-RFE of 000/003 (linear SVMs refitted at each step). With K > 2 classes
    every model is K one-vs-rest binary models and features are eliminated by the norm of
    their K weights (Guyon et al. 2002's multi-class SVM-RFE; see
    :class:`~paretostab.selectors._rfe.BaseRFE`).

    Parameters
    ----------
    n_features : int
        k, the number of features selected (000 §6.2: 20).
    n_stable : int
        N ≤ k, the size of the stable set S_N.
    epsilon : float > 0
        ε, the shrinkage of S_N during the elimination (ε < 1 favours S_N).
    reg, final_reg : float > 0
        λ during the elimination and λ_f of the final model (``C = 1/(2λ)``).
    alpha : float ≥ 0
        α of the frequency-score shrinkage of the final model (003 eq. 16).
    step : float in (0, 1)
        Fraction of the remaining features dropped per iteration (at least one, never
        below k): ``min(max(1, ⌊step · |F|⌋), |F| − k)``.
    criterion : {"variance", "welch_t"} or float in [0, 1]
        The univariate criterion of S_N, computed on the raw features; a number w mixes
        the two (see :func:`univariate_order`). With K > 2 classes ``"welch_t"`` is the
        Welch's one-way ANOVA F (:func:`class_separation`).
    loss : {"logistic", "hinge"}
    tol : float > 0 or None
        Solver tolerance of every fit of the elimination and of the final model: the
        Newton core's relative gradient norm and Newton step for the logistic loss,
        liblinear's ``tol`` for the hinge loss (``LinearSVC(loss="hinge", dual=True)``:
        the spread of the projected gradient of its dual coordinate descent). None: the
        loss's default, :data:`~paretostab.selectors._rfe.DEFAULT_TOL`, chosen by measurement
        (``benchmarks/bench_svm_tol.py``: k = 20, bootstrap runs pre-filtered to 5 000
        features, each tolerance against the tightest, 1e-10, on the same runs):

        * logistic, 1e-8: Newton converges quadratically, so a tight tolerance is cheap —
          on singh (30 runs, λ = λ_f = 1) 1e-8 selects the sets of 1e-10 in every run at
          0.93× its time, while 1e-6 (0.86×) agrees in 23 of 30 runs only;
        * hinge (SVM-RFE), 1e-6 — the loosest tolerance whose selections agree with the
          tight one at a mean Jaccard ≥ 0.99 in every setting measured. liblinear
          converges linearly: each decade costs ≈ 20–35 more iterations per fit, 96 % of
          the fit time. On singh (100 runs, λ = λ_f = 1) 1e-7 and 1e-8 select the same
          set as 1e-10 in every run; 1e-6 in 99 of 100 (mean Jaccard 0.994, φ 0.235
          against 0.236, the same accuracy 0.906) at 0.77–0.81× the time of 1e-8 (three
          benchmark runs; 1e-8 takes 0.27–0.51 s a run); also in 100 of 100 runs of
          alon (against 1e-8; 0.82×) and in 30 of 30 of singh at λ = λ_f = 0.01 and 100.
          1e-5 agrees at a mean Jaccard of 0.982 (singh) and 0.989 (alon),
          scikit-learn's default 1e-4 at 0.81 and 0.92 — φ and accuracy then move by less
          than 0.01, but the sets differ. A run that differs has a near-tie at one
          elimination step (singh's run 53: a relative gap of 3e-7 in ``|w|`` at the cut of
          step 3) that resolves the other way, and the paths part; 1e-12 is out of
          liblinear's reach (100 000 iterations per fit).

    Notes
    -----
    Deterministic: ties are broken by feature index. Constant features are kept working
    (standardised to 0, zero weight: they are dropped first). Attributes: see
    :class:`paretostab.selectors._rfe.BaseRFE`.

    The logistic fits of the elimination are warm-started from the previous step's
    weights, and the solver is chosen per fit from the n (distinct) examples and the m
    remaining features (:mod:`paretostab.selectors._logistic` gives the measurements):
    Newton steps in the dual through the n × n Gram matrix, downdated as features go,
    while n ≤ 1 000 and m ≥ max(n, n²/100) — the papers' shape, n ≈ 100 with thousands of
    features (000, 003) —; full Newton steps in the primal for m ≤ 100; otherwise
    truncated Newton steps in the primal (conjugate gradients, O(n m) per iteration,
    preconditioned by the Hessian of the fit's first iterate while m ≤ min(2 000, n/5)).
    The n × n Gram matrix is computed only where the dual uses it. Against 003
    Algorithm 1 written plainly on scikit-learn (``LogisticRegression``, lbfgs, default
    tolerance, refitted at each step; ``benchmarks/bench_scale.py --repeat 3``, k = 20,
    one BLAS thread, a shared 2-core machine), in wall seconds: n = 100, d = 2 000,
    20 000 and 200 000: 3.1×, 4.0× and 6.7× faster; n = 1 000: 1.6×, 1.2× and 1.8×;
    n = 10 000, d = 2 000 and 20 000: 1.7× and 1.3× — each fit solved to a relative
    gradient norm of 1e-8, where the baseline stops early (its selections agree with the
    package's at a Jaccard index of 0.2–0.5 below n = 10 000; at a tight tolerance they
    are the package's). The README has the table.
    """

    def __init__(self, n_features=20, n_stable=0, epsilon=1.0, reg=1.0, final_reg=1.0,
                 alpha=0.0, step=0.2, criterion="variance", loss="logistic", tol=None):
        self.n_features = n_features
        self.n_stable = n_stable
        self.epsilon = epsilon
        self.reg = reg
        self.final_reg = final_reg
        self.alpha = alpha
        self.step = step
        self.criterion = criterion
        self.loss = loss
        self.tol = tol

    @staticmethod
    def stable_set_uses_labels(criterion: str | float) -> bool:
        """Whether the stable set S_N of ``criterion`` depends on the labels: not when it is
        ranked by variance alone (``"variance"``, or the mix weight 0), so that N = k — the
        univariate filter — selects the same features whatever the labels.

        Parameters
        ----------
        criterion : {"variance", "welch_t"} or float in [0, 1]
            As the class's ``criterion``.
        """
        return not (criterion == "variance" or (is_number(criterion) and criterion == 0))

    def _shrinkage(self, sample):
        d = sample.n_features
        check_int("n_stable", self.n_stable, 0, min(self.n_features, d),
                  f"the stable set's size, at most n_features={self.n_features}")
        check_positive("epsilon", self.epsilon)
        NON_NEGATIVE.check("alpha", self.alpha)
        _check_criterion(self.criterion)
        criterion = self.criterion
        stable = (sample.memo(("univariate_order", criterion),
                              lambda: univariate_order(sample.X, sample.signs, criterion)
                              )[: self.n_stable]
                  if self.n_stable else np.zeros(0, dtype=np.int64))
        beta = np.ones(d)
        beta[stable] = self.epsilon
        return beta, stable

    def _final_shrinkage(self, path: EliminationPath):
        if self.alpha == 0:
            return None
        return np.sqrt(1 + self.alpha * (1 - path.frequency_score[path.kept]))


#: Smallest shrinkage after re-centring: Γ(α, 1) with a small shape draws values down to
#: 1e-30 and beyond, which would rescale features by as much; below this floor a feature
#: is unpenalised for all practical purposes anyway.
BETA_FLOOR = 1e-6


def _gamma_beta(rng: np.random.RandomState, shape: float, d: int) -> np.ndarray:
    """β ~ Γ(shape, 1) re-centred to mean 1 (002 §4), floored at :data:`BETA_FLOOR`."""
    beta = rng.gamma(shape, 1.0, size=d)
    return np.maximum(beta / beta.mean(), BETA_FLOOR)


class BiasedRFE(BaseRFE):
    """Biased RFE (002 §4): logistic RFE with a random or prior differential shrinkage β.

    ``β_f ~ Γ(shape, 1)``, re-centred to mean 1 (002 §4; floored at :data:`BETA_FLOOR`
    for numerical safety): features with a small β_f are less penalised, so favoured.
    ``shape → ∞`` is the plain RFE; a small shape biases strongly. With ``prior``, the
    same draws are assigned by prior knowledge: for ``prior_type="ranking"``, ``prior``
    lists features best first and they receive the smallest β in that order; for
    ``prior_type="set"``, the features of ``prior`` receive the smallest β (in random
    order). ``beta`` gives β explicitly (it overrides the draws; used by
    :func:`transfer_learning_rfe`). The final model is the unbiased L2-logistic with
    ``final_reg``.

    Parameters
    ----------
    n_features : int
    reg, final_reg : float > 0
    shape : float > 0
        α of the gamma distribution.
    prior : sequence of int, optional
    prior_type : {"ranking", "set"}
    beta : array (d,) of float > 0, optional
    step, loss, tol : as :class:`HybridRFE`
    random_state : int, RandomState or None
        Seeds the draws of β.
    """

    def __init__(self, n_features=20, reg=1.0, final_reg=1.0, shape=1.0, prior=None,
                 prior_type="ranking", beta=None, step=0.2, loss="logistic", tol=None,
                 random_state=None):
        self.n_features = n_features
        self.reg = reg
        self.final_reg = final_reg
        self.shape = shape
        self.prior = prior
        self.prior_type = prior_type
        self.beta = beta
        self.step = step
        self.loss = loss
        self.tol = tol
        self.random_state = random_state

    def _shrinkage(self, sample):
        d = sample.n_features
        protected = np.zeros(0, dtype=np.int64)
        if self.beta is not None:
            beta = np.asarray(self.beta, dtype=float)
            if beta.shape != (d,) or not np.all(np.isfinite(beta)) or np.any(beta <= 0):
                raise InvalidInputError(
                    f"beta must hold {d} finite values > 0 (one per feature); got shape "
                    f"{beta.shape}."
                )
            return beta, protected
        check_positive("shape", self.shape)
        rng = check_random_state(self.random_state)
        beta = _gamma_beta(rng, self.shape, d)
        if self.prior is None:
            return beta, protected
        if self.prior_type not in ("ranking", "set"):
            raise InvalidInputError(
                f"prior_type must be 'ranking' or 'set'; got {self.prior_type!r}."
            )
        prior = np.asarray(self.prior)
        if (prior.ndim != 1 or not np.issubdtype(prior.dtype, np.integer) or prior.size == 0
                or prior.min() < 0 or prior.max() >= d or np.unique(prior).size != prior.size):
            raise InvalidInputError(
                f"prior must list distinct feature indices in [0, {d}) (best first for a "
                f"ranking); got {self.prior!r}."
            )
        smallest = np.sort(beta)
        if self.prior_type == "set":
            prior = rng.permutation(prior)
        rest = np.setdiff1d(np.arange(d), prior)
        assigned = np.empty(d)
        assigned[prior] = smallest[: prior.size]
        assigned[rest] = rng.permutation(smallest[prior.size:])
        return assigned, protected


def transfer_learning_rfe(tasks: Sequence[tuple[ArrayLike, ArrayLike]], *, transfer: float,
                          **params: object) -> list[BiasedRFE]:
    """Select features task after task, biased towards earlier tasks' selections (002 §4).

    For task t, ``β_f = exp(−transfer · (2 p_f − 1))`` with p_f the fraction of the
    earlier tasks that selected f (002 eq. 6–7, ``sc_f = 2p_f − 1``), re-centred to mean 1;
    the first task is unbiased. ``transfer`` is 002's α_t (0: independent tasks).
    ``params`` go to :class:`BiasedRFE` (``n_features``, ``reg``, ``final_reg`` …).
    Returns the fitted selectors, one per task, in order.

    Parameters
    ----------
    tasks : sequence of (X, y)
        The tasks' data, in the order they are learnt; all of the same d features.
    transfer : float ≥ 0
        002's α_t, the strength of the bias towards earlier selections.
    **params
        :class:`BiasedRFE`'s parameters, the same for every task.
    """
    NON_NEGATIVE.check("transfer", transfer)
    fitted: list[BiasedRFE] = []
    counts = None
    for X, y in tasks:
        d = np.shape(X)[1]
        if counts is None:
            counts = np.zeros(d)
            beta = np.ones(d)
        else:
            if counts.size != d:
                raise InvalidInputError(
                    f"every task must have the same {counts.size} features; a task has {d}."
                )
            beta = np.exp(-transfer * (2 * counts / len(fitted) - 1))
            beta /= beta.mean()
        selector = BiasedRFE(beta=beta, **params).fit(X, y)
        counts += selector.support_
        fitted.append(selector)
    return fitted
