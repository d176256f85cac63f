"""Recursive feature elimination with differential shrinkage: the engine and base estimator.

Every RFE of the package (hybrid, biased, plain logistic, SVM) runs the same elimination
(003 Algorithm 1, 002 §4) and differs only in how it sets the shrinkage β and the
protected (never dropped) features. Subclasses implement :meth:`BaseRFE._shrinkage`.

With K > 2 classes each step fits K one-vs-rest binary models on the same features and
ranks the features by the norm of their K weights, ``√(Σ_k w_kf²)`` — the order of Guyon
et al. 2002's multi-class SVM-RFE criterion ``Σ_k w_kf²`` over one-vs-rest problems; with
two classes the single binary model and |w_f|, as before.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from sklearn.svm import LinearSVC
from sklearn.utils.metaestimators import available_if

from paretostab._errors import InvalidInputError
from paretostab._importance import class_weight_norm, linear_importance
from paretostab._validation import Interval
from paretostab.selectors._base import (
    LinearModelMixin,
    SelectorBase,
    check_int,
    check_positive,
)
from paretostab.selectors._logistic import IncrementalL2Logistic, shrunk_gram, solves_in_dual

#: The share of the remaining features an elimination step drops.
STEP = Interval("number", 0, 1, "neither",
                why=" (the fraction of the remaining features dropped per iteration)")

LOSSES = ("logistic", "hinge")

#: The solver tolerance ``tol=None`` means, per loss (the measurements behind each value
#: are in :class:`~paretostab.selectors.HybridRFE`'s docstring): the Newton core's
#: relative gradient norm and Newton step for the logistic loss, liblinear's ``tol`` for
#: the hinge loss.
DEFAULT_TOL = {"logistic": 1e-8, "hinge": 1e-6}


class _HingeModel:
    """Linear SVM (hinge loss) refitted at each step, the interface of
    :class:`IncrementalL2Logistic`. Penalty ``reg · ‖β ⊙ w‖²`` ↔ ``LinearSVC(C=1/(2 reg))``
    on ``x'_f = x_f / β_f``; liblinear also penalises the intercept (its
    ``intercept_scaling``).

    liblinear solves the dual by coordinate descent over the n examples, and its dual sees
    the features only through the examples' inner products ``K = X'X'ᵀ`` (the intercept's
    column appended alike). While more features remain than examples (m > n: the papers'
    shape, and d in the hundreds of thousands), it is given the n × r factor ``L = U S``
    of ``K = U S² Uᵀ`` (r its numerical rank) instead of the n × m matrix X': the same
    dual problem, solved to the same tolerance, each epoch O(n r) instead of O(n m); the
    weights are ``w' = X'ᵀ U S⁻¹ w_L``. K is computed once (or taken from the training
    sample's ``gram``) and downdated as features go, as the logistic core's.
    """

    def __init__(self, X, y, *, reg, beta=None, weights=None, tol=1e-4, gram=None):
        n, d = X.shape
        self._scale = np.ones(d) if beta is None else 1.0 / np.asarray(beta, dtype=float)
        self._X = X if np.all(self._scale == 1.0) else X * self._scale
        self._y, self._weights, self._reg, self._tol = y, weights, reg, tol
        self.features = np.arange(d)
        self._K = shrunk_gram(X, self._X, self._scale, gram) if d > n else None

    def fit(self) -> _HingeModel:
        svm = LinearSVC(C=1 / (2 * self._reg), loss="hinge", dual=True, tol=self._tol,
                        max_iter=100_000, random_state=0)
        if self._K is None:
            svm.fit(self._X[:, self.features], self._y, sample_weight=self._weights)
            self._w = svm.coef_[0]
        else:
            values, vectors = np.linalg.eigh(self._K)
            rank = values > values[-1] * self._K.shape[0] * np.finfo(float).eps
            root = np.sqrt(values[rank])
            svm.fit(vectors[:, rank] * root, self._y, sample_weight=self._weights)
            self._w = (self._X.T @ (vectors[:, rank] @ (svm.coef_[0] / root)))[self.features]
        self._b = float(svm.intercept_[0])
        return self

    @property
    def coef(self) -> np.ndarray:
        return self._w * self._scale[self.features]

    @property
    def intercept(self) -> float:
        return self._b

    def drop(self, positions: np.ndarray) -> None:
        dropped = self.features[positions]
        self.features = np.delete(self.features, positions)
        if self._K is None:
            return
        if self.features.size <= self._K.shape[0]:  # as many examples as features: X'
            self._K = None
        elif dropped.size < self.features.size:
            block = self._X[:, dropped]
            self._K -= block @ block.T
        else:
            block = self._X[:, self.features]
            self._K = block @ block.T


class _OneVsRestModels:
    """K binary models of the same shrinking feature set, one per one-vs-rest column of a
    K-class sample's signs (Guyon et al. 2002, multi-class SVM-RFE), with the interface of
    :class:`IncrementalL2Logistic`: ``coef`` K × m, ``intercept`` (K,)."""

    def __init__(self, models: list):
        self._models = models

    @property
    def features(self) -> np.ndarray:
        return self._models[0].features

    def fit(self) -> _OneVsRestModels:
        for model in self._models:
            model.fit()
        return self

    @property
    def coef(self) -> np.ndarray:
        return np.array([model.coef for model in self._models])

    @property
    def intercept(self) -> np.ndarray:
        return np.array([model.intercept for model in self._models])

    def drop(self, positions: np.ndarray) -> None:
        for model in self._models:
            model.drop(positions)


def _model(loss: str, X, y, *, reg, beta=None, weights=None, tol, gram=None):
    """The model of one elimination step: ``y`` ±1 signs (two classes), or an n × K matrix
    of them (one binary model per one-vs-rest column, each given the same first ``gram``,
    which it copies before its downdates)."""
    if y.ndim == 2:
        return _OneVsRestModels([_model(loss, X, column, reg=reg, beta=beta, weights=weights,
                                        tol=tol, gram=gram) for column in y.T])
    if loss == "logistic":
        return IncrementalL2Logistic(X, y, reg=reg, beta=beta, weights=weights, tol=tol,
                                     gram=gram)
    return _HingeModel(X, y, reg=reg, beta=beta, weights=weights, tol=tol, gram=gram)


@dataclass(frozen=True)
class EliminationPath:
    """What an elimination leaves: the kept features and how the others went.

    ``kept``: the k kept features. ``dropped_at``: per feature, the pruning step (1-based)
    at which it was dropped, 0 if kept. ``last_weight``: |w_f| in the last model that
    contained f (with K > 2 classes the norm ``√(Σ_k w_kf²)`` of its one-vs-rest weights).
    ``frequency_score``: eq. 15 of 003 for the kept features (0 elsewhere).
    """

    kept: np.ndarray
    dropped_at: np.ndarray
    last_weight: np.ndarray
    frequency_score: np.ndarray


def check_step(step: object) -> None:
    """``step``: the fraction of the remaining features an elimination step drops."""
    STEP.check("step", step)


def n_dropped(step: float, size: int, n_features: int) -> int:
    """How many of ``size`` remaining features a step drops: ``min(max(1, ⌊step · |F|⌋),
    |F| − k)`` (scikit-learn's ``RFE(step=0.2)`` drops 20 % of the original count)."""
    return min(max(1, math.floor(step * size)), size - n_features)


def elimination_ranks(support: np.ndarray, dropped_at: np.ndarray,
                      last_weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``ranking_`` and ``rank_order_`` of an elimination: scikit-learn's RFE ranking (1 =
    kept, larger = dropped earlier) and a full ranking 1..d without ties — kept features
    by decreasing ``last_weight`` (their final model's), then the others by reverse
    elimination step (``dropped_at``), within a step by decreasing ``last_weight`` (their
    last model's), then by index."""
    d = support.size
    last_step = dropped_at.max(initial=0)
    ranking = np.where(support, 1, last_step - dropped_at + 2)
    order = np.lexsort((np.arange(d), -last_weight,
                        -np.where(support, last_step + 1, dropped_at)))
    rank_order = np.empty(d, dtype=np.int64)
    rank_order[order] = np.arange(1, d + 1)
    return ranking, rank_order


def eliminate(X: np.ndarray, y: np.ndarray, *, n_features: int, protected: np.ndarray,
              beta: np.ndarray, reg: float, step: float, tol: float, loss: str,
              weights: np.ndarray | None = None,
              gram: np.ndarray | None = None) -> EliminationPath:
    """Run the elimination of 003 Algorithm 1 on standardised ``X``.

    While more than ``n_features`` remain: fit the model with penalty ``reg ‖β ⊙ w‖²``,
    rank the remaining features — the ``protected`` ones first, in their given order, then
    the others by decreasing |w_f| (ties: lower feature index first) — and drop the last
    ``min(max(1, ⌊step · |F|⌋), |F| − k)``, never a protected one. The ranks feed the
    frequency score of 003 eq. 15, ``sc_f = (|F_0|/|F_#|) Π_s (|F_s| − r_f(s) + 1) /
    (|F_{s−1}| − r_f(s) + 1)``. ``gram``: ``X Xᵀ`` if already computed (see
    :class:`~paretostab.selectors._logistic.IncrementalL2Logistic`).

    ``y``: ±1 signs, or an n × K matrix of them (K > 2 classes): then K one-vs-rest models
    per step, and |w_f| is their weights' norm :func:`~paretostab._importance.class_weight_norm`
    (Guyon et al. 2002's multi-class criterion Σ_k w_kf², as its square root).
    """
    d = X.shape[1]
    model = _model(loss, X, y, reg=reg, beta=beta, weights=weights, tol=tol, gram=gram)
    is_protected = np.zeros(d, dtype=bool)
    is_protected[protected] = True
    dropped_at = np.zeros(d, dtype=np.int64)
    last_weight = np.zeros(d)
    product = np.ones(d)
    pruning = 0
    while model.features.size > n_features:
        features = model.features  # increasing feature indices
        weight = class_weight_norm(model.fit().coef)
        last_weight[features] = weight
        # protected first (in their given order), then by decreasing |w|; the stable sort
        # keeps increasing feature indices among equal weights
        free = np.flatnonzero(~is_protected[features])
        position = np.empty(d, dtype=np.int64)
        position[features] = np.arange(features.size)
        order = np.concatenate([position[protected],
                                free[np.argsort(-weight[free], kind="stable")]])
        size = features.size
        n_drop = n_dropped(step, size, n_features)
        rank = np.empty(size)
        rank[order] = np.arange(1, size + 1)
        product[features] *= (size - n_drop - rank + 1) / (size - rank + 1)
        pruning += 1
        positions = order[size - n_drop:]
        dropped_at[features[positions]] = pruning
        model.drop(positions)
    kept = model.features
    score = np.zeros(d)
    score[kept] = d / n_features * product[kept]
    return EliminationPath(kept, dropped_at, last_weight, score)


class BaseRFE(LinearModelMixin, SelectorBase):
    """Shared fit/predict machinery of the RFE selectors (see :func:`eliminate`).

    Features are standardised on the training data (constant features become 0 and get
    zero weight). Fitted attributes: ``support_``, ``ranking_`` (scikit-learn's RFE
    convention: 1 = kept, larger = dropped earlier), ``rank_order_`` (a full ranking 1..d
    without ties: kept features by decreasing final |w|, then the others by reverse
    elimination order, within a step by decreasing |w| in its last model, then by
    index), ``importances_`` (I_lin of the final model, 0 outside the support),
    ``frequency_scores_`` (003 eq. 15, 0 outside the support), ``coef_`` and
    ``intercept_`` of the final model on the selected standardised features (with K > 2
    classes K one-vs-rest models: ``coef_`` K × k, ``intercept_`` (K,), and |w_f| above
    is the norm of feature f's K weights, Guyon et al. 2002), ``mean_``
    and ``scale_`` of the standardisation, ``beta_`` (the shrinkage used), ``classes_``.
    """

    # Subclasses define ``_shrinkage(sample) -> (β, protected features in order)``.

    def _final_shrinkage(self, path: EliminationPath) -> np.ndarray | None:
        """β of the final model on the kept features (None: no shrinkage)."""
        return None

    def _validate_common(self, d: int) -> None:
        check_int("n_features", self.n_features, 1, d,
                  f"the number of features to select, at most the {d} features of X")
        check_positive("reg", self.reg)
        check_positive("final_reg", self.final_reg)
        if self.tol is not None:
            check_positive("tol", self.tol)
        check_step(self.step)
        if self.loss not in LOSSES:
            raise InvalidInputError(
                f"loss must be one of {', '.join(map(repr, LOSSES))}; got {self.loss!r}."
            )

    def _select(self, sample):
        d = sample.n_features
        self._validate_common(d)
        tol = DEFAULT_TOL[self.loss] if self.tol is None else float(self.tol)
        beta, protected = self._shrinkage(sample)
        self.beta_ = beta
        X_std, signs, counts = sample.distinct
        # n × n: only where the dual uses it (the hinge's while more features than rows)
        dual = solves_in_dual(len(signs), d) if self.loss == "logistic" else d > len(signs)
        gram = sample.distinct_gram if dual else None
        path = eliminate(X_std, signs, n_features=self.n_features, protected=protected,
                         beta=beta, reg=self.reg, step=self.step, tol=tol, loss=self.loss,
                         weights=counts, gram=gram)
        final = _model(self.loss, X_std[:, path.kept], signs, reg=self.final_reg,
                       beta=self._final_shrinkage(path), weights=counts, tol=tol).fit()
        self.support_ = np.zeros(d, dtype=bool)
        self.support_[path.kept] = True
        self.coef_ = final.coef
        self.intercept_ = final.intercept
        self.importances_ = np.zeros(d)
        self.importances_[path.kept] = linear_importance(self.coef_)
        self.frequency_scores_ = path.frequency_score
        weight = path.last_weight.copy()
        weight[path.kept] = class_weight_norm(self.coef_)
        self.ranking_, self.rank_order_ = elimination_ranks(self.support_, path.dropped_at,
                                                            weight)

    def _is_logistic(self) -> bool:
        return self.loss == "logistic"

    @available_if(_is_logistic)
    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Class probabilities of the final (logistic) model (K > 2 classes: its one-vs-rest
        sigmoids normalised to sum to 1).

        Parameters
        ----------
        X : array-like (n, d)
            Examples of the d features the selector was fitted on.
        """
        return self._logistic_proba(X)
