"""One penalised logistic problem of the sparse selectors, and its solution.

:class:`SparseProblem` is a training sample as the elastic net and the group lasso fit it
(standardised features, ±1 targets or the K-class indicator matrix, example weights);
:class:`Penalty` and its two kinds (:class:`ElasticNetPenalty`,
:class:`GroupLassoPenalty`) say what is penalised and test the KKT conditions of the
features outside the working set; :func:`solve` fits one λ by the working-set FISTA (or
scikit-learn's saga, binary only) and returns a :class:`Solution`.
:mod:`paretostab.selectors._linear` builds the selectors and the λ calibration on them.
"""

from __future__ import annotations

import abc
import functools
from dataclasses import dataclass, field

import numpy as np
from scipy.special import expit
from sklearn.linear_model import LogisticRegression

from paretostab._errors import InvalidInputError
from paretostab._importance import class_weight_norm
from paretostab.selectors._base import TrainingSample
from paretostab.selectors._group_fista import (
    as_intercept,
    classification_loss,
    group_fista,
    kkt_violation,
    row_squares,
)

#: saga's random states tried when its solution is not optimal (scikit-learn #13021), and
#: the relative KKT residual below which one is taken; FISTA finishes the best one from
#: there when its residual is above ``SAGA_FINISH`` (saga stops on the weights' change,
#: near the λ where features enter still 1e-4–1e-3 from optimal).
SAGA_ATTEMPTS = 5
SAGA_KKT = 1e-3
SAGA_FINISH = 1e-5
#: Relative slack of the KKT test of the units outside the working set.
KKT_RTOL = 1e-6


# ----------------------------------------------------------------------------- problem


@dataclass
class SparseProblem:
    """One training sample: standardised distinct rows, labels ±1 (two classes) or the
    n × K one-vs-rest signs (K > 2: the multinomial loss), multiplicities."""

    X: np.ndarray
    y: np.ndarray
    c: np.ndarray

    @functools.cached_property
    def loss(self):
        """The logistic (two classes) or multinomial loss of the sample."""
        return classification_loss(self.y, self.c)

    @property
    def null_intercept(self) -> float | np.ndarray:
        """The optimal intercept(s) when every weight is 0."""
        return self.loss.null_intercept()

    @property
    def no_weights(self) -> np.ndarray:
        """The weights of no feature: shape (0,), or (0, K) for the multinomial."""
        return np.zeros((0, *self.y.shape[1:]))

    @functools.cached_property
    def repeats(self) -> np.ndarray:
        """Row index of each example with its multiplicity (the bootstrap sample itself)."""
        return np.repeat(np.arange(self.y.size), self.c.astype(np.int64))

    def gradient(self, features: np.ndarray, values: np.ndarray, b) -> np.ndarray:
        """Gradient of the weighted loss in the weights of all d features (d, or d × K)."""
        z = (self.X[:, features] @ values + b if features.size
             else np.full((self.c.size, *np.shape(b)), b))
        return self.X.T @ self.loss.residual(z)


def sample_problem(sample: TrainingSample) -> SparseProblem:
    """The problem ``fit`` solves on a training sample: its distinct standardised rows."""
    return SparseProblem(*sample.distinct)


def run_problem(X: np.ndarray, y: np.ndarray, sample) -> SparseProblem:
    """The problem ``fit(X[rows][:, cols], y[rows])`` solves, for a sample given as a
    :class:`TrainingSample`, rows or ``(rows, cols)``."""
    if isinstance(sample, TrainingSample):
        return sample_problem(sample)
    if isinstance(sample, tuple):
        rows, cols = sample
        X_run = X[np.ix_(rows, cols)]
    else:
        rows = sample
        X_run = X[rows]
    return sample_problem(TrainingSample(X_run, y[rows], owner="every calibration sample"))


@dataclass
class Solution:
    """A fitted sparse model: its non-zero weights (a row of K per feature for the
    multinomial), intercept(s) and λ (compact, for warm starts); ``gradient`` (loss
    gradient in w at the solution) when just computed."""

    reg: float
    features: np.ndarray
    values: np.ndarray
    intercept: float | np.ndarray
    gradient: np.ndarray | None = field(default=None, repr=False)
    n_iter: int = 0

    @property
    def n_selected(self) -> int:
        return int(self.features.size)

    def coef(self, d: int) -> np.ndarray:
        coef = np.zeros((d, *self.values.shape[1:]))
        coef[self.features] = self.values
        return coef


# ----------------------------------------------------------------------------- penalty


class Penalty(abc.ABC):
    """The penalty ``reg Σ_g u_g ‖w_g‖`` over units g (plus the elastic net's L2 part) and
    the inner solver of a working set. ``labels[f]`` is the unit of feature f, ``sizes``
    the unit sizes, ``unit_weights`` the u_g."""

    labels: np.ndarray
    sizes: np.ndarray
    unit_weights: np.ndarray
    #: Why the inner solver cannot fit K > 2 classes (None: it can).
    multinomial_refusal: str | None = None

    def unit_norms(self, gradient: np.ndarray) -> np.ndarray:
        """‖g_g‖₂ of each unit g (over its features' K classes for a d × K gradient)."""
        if self.sizes.size == self.labels.size and np.all(self.labels[1:] > self.labels[:-1]):
            return class_weight_norm(gradient.T)  # units are the features, in order
        return np.sqrt(np.bincount(self.labels, weights=row_squares(gradient),
                                   minlength=self.sizes.size))

    def lambda_max(self, problem: SparseProblem) -> float:
        """The smallest λ at which every weight is 0 (0 if no feature varies)."""
        gradient = problem.gradient(np.zeros(0, dtype=np.int64), problem.no_weights,
                                    problem.null_intercept)
        return float(np.max(self.unit_norms(gradient) / self.unit_weights, initial=0.0))

    @abc.abstractmethod
    def inner(self, problem: SparseProblem, features: np.ndarray, reg: float, start: np.ndarray,
              b: float | np.ndarray, warm: bool) -> tuple[np.ndarray, float | np.ndarray, int]:
        """Weights, intercept and iterations of the working set ``features``' problem."""


class ElasticNetPenalty(Penalty):
    """λ₁(λ₂‖w‖₁ + (1 − λ₂)‖w‖²) by scikit-learn's saga or by :func:`group_fista` (singleton
    groups, ridge λ₁(1 − λ₂)) on the working set."""

    def __init__(self, d: int, l1_ratio: float, solver: str, tol: float, max_iter: int):
        self.labels = np.arange(d)
        self.sizes = np.ones(d, dtype=np.int64)
        self.unit_weights = np.full(d, float(l1_ratio))
        self.l1_ratio, self.solver, self.tol, self.max_iter = (float(l1_ratio), solver, tol,
                                                               max_iter)
        if solver == "saga":
            self.multinomial_refusal = (
                "Only binary classification is supported with solver='saga' (scikit-learn's "
                "multinomial L1 is not grouped); with more classes use solver='fista'.")

    def sklearn_model(self, reg: float) -> LogisticRegression:
        """The scikit-learn estimator of this penalty at λ₁ = ``reg`` (module docstring)."""
        return LogisticRegression(C=1.0 / (reg * (2.0 - self.l1_ratio)),
                                  l1_ratio=self.l1_ratio / (2.0 - self.l1_ratio),
                                  solver="saga", tol=self.tol, max_iter=self.max_iter,
                                  random_state=0)

    def inner(self, problem: SparseProblem, features: np.ndarray, reg: float, start: np.ndarray,
              b: float | np.ndarray, warm: bool) -> tuple[np.ndarray, float | np.ndarray, int]:
        m = features.size
        thresholds, ridge = np.full(m, reg * self.l1_ratio), reg * (1 - self.l1_ratio)
        if self.solver == "fista":
            return group_fista(problem.X[:, features], problem.y, problem.c, np.arange(m),
                               thresholds, start, b, ridge=ridge, tol=self.tol,
                               max_iter=self.max_iter)
        # saga's step size ignores sample weights (scikit-learn #31536: with multiplicities
        # ≥ 5 it stalls for the whole max_iter), so it gets the repeated rows (same loss)
        rows = problem.repeats
        X_rows, y_rows = problem.X[np.ix_(rows, features)], problem.y[rows]
        best: tuple[float, np.ndarray, float, int] | None = None
        for attempt in range(SAGA_ATTEMPTS):
            model = self.sklearn_model(reg).set_params(random_state=attempt)
            if warm:
                model.set_params(warm_start=True)
                model.coef_, model.intercept_ = start[None, :].copy(), np.array([b])
            model.fit(X_rows, y_rows)
            w, w_b = model.coef_[0], float(model.intercept_[0])
            # saga may stop after one epoch with every weight 0 and the intercept not
            # fitted (scikit-learn #13021, depending on random_state): check optimality
            r = -problem.c * problem.y * expit(-problem.y * (problem.X[:, features] @ w + w_b))
            residual = kkt_violation(problem.X[:, features].T @ r + 2 * ridge * w, r.sum(),
                                      w, np.arange(m), thresholds)
            if best is None or residual < best[0]:
                best = (residual, w, w_b, int(model.n_iter_[0]))
            if residual <= SAGA_KKT:
                break
        assert best is not None  # SAGA_ATTEMPTS >= 1 attempts were made
        if best[0] > SAGA_FINISH:  # FISTA finishes the same problem from saga's best point
            w_end, b_end, iterations = group_fista(
                problem.X[:, features], problem.y, problem.c, np.arange(m), thresholds,
                best[1], best[2], ridge=ridge, tol=self.tol, max_iter=self.max_iter)
            return w_end, b_end, best[3] + iterations
        return best[1], best[2], best[3]


class GroupLassoPenalty(Penalty):
    """λ Σ_g √p_g ‖w_g‖₂ by FISTA on the working set (:func:`group_fista`)."""

    def __init__(self, labels: np.ndarray, n_groups: int, tol: float, max_iter: int):
        self.labels = labels
        self.sizes = np.bincount(labels, minlength=n_groups)
        self.unit_weights = np.sqrt(self.sizes.astype(float))
        self.tol, self.max_iter = tol, max_iter

    def inner(self, problem: SparseProblem, features: np.ndarray, reg: float, start: np.ndarray,
              b: float | np.ndarray, warm: bool) -> tuple[np.ndarray, float | np.ndarray, int]:
        units, local = np.unique(self.labels[features], return_inverse=True)
        return group_fista(problem.X[:, features], problem.y, problem.c, local,
                           reg * self.unit_weights[units], start, b, tol=self.tol,
                           max_iter=self.max_iter)


def solve(problem: SparseProblem, penalty: Penalty, reg: float,
           start: Solution | None = None) -> Solution:
    """The full problem's solution at ``reg`` by working sets (module docstring), warm-started
    from ``start`` (its non-zero units form the first working set); ``gradient`` is set."""
    d = problem.X.shape[1]
    if problem.y.ndim == 2 and penalty.multinomial_refusal:
        raise InvalidInputError(penalty.multinomial_refusal)
    if start is None:
        start = Solution(reg, np.zeros(0, dtype=np.int64), problem.no_weights,
                          problem.null_intercept)
    thresholds = reg * penalty.unit_weights
    in_set = np.zeros(penalty.sizes.size, dtype=bool)
    in_set[penalty.labels[start.features]] = True
    coef = start.coef(d)
    b = start.intercept
    support = start.features
    gradient = start.gradient
    if gradient is None:
        gradient = problem.gradient(start.features, start.values, b)
    solved = False
    n_iter = 0
    for _ in range(1000):
        score = penalty.unit_norms(gradient) / thresholds
        score[in_set] = 0.0
        violators = np.flatnonzero(score > 1 + KKT_RTOL)
        if violators.size == 0 and solved:
            break
        if violators.size:
            n_add = max(10, int(in_set.sum()))
            if violators.size > n_add:
                violators = violators[np.argsort(-score[violators], kind="stable")[:n_add]]
            in_set[violators] = True
        features = np.flatnonzero(in_set[penalty.labels])
        if features.size:
            values, b, iterations = penalty.inner(problem, features, reg, coef[features], b,
                                                  warm=bool(coef[features].any()))
            n_iter += iterations
            coef[:] = 0.0
            coef[features] = values
        else:
            b = problem.null_intercept
        support = np.flatnonzero(coef if coef.ndim == 1 else coef.any(axis=1))
        gradient = problem.gradient(support, coef[support], b)
        solved = True
    return Solution(float(reg), support, coef[support], as_intercept(b), gradient, n_iter)


__all__ = ["KKT_RTOL", "SAGA_ATTEMPTS", "SAGA_FINISH", "SAGA_KKT", "ElasticNetPenalty",
           "GroupLassoPenalty", "Penalty", "Solution", "SparseProblem", "run_problem",
           "sample_problem", "solve"]
