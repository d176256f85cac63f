"""The logistic and multinomial group lasso (elastic net), solved by FISTA.

The solver behind :mod:`paretostab.selectors._linear`. It minimises, with an unpenalised
intercept, a weighted loss plus ``ridge ‖W‖² + Σ_g t_g ‖W_g‖`` where ``W_g`` holds the rows
of group g's features:

* two classes, ``y`` a ±1 vector: the logistic loss ``Σ c_i log(1 + e^{−y_i(x_i·w + b)})``,
  weights ``w`` (m,), intercept ``b`` a float;
* K > 2 classes, ``y`` an n × K matrix of one-vs-rest signs (+1 in the column of each
  example's class, as :attr:`TrainingSample.signs`): the multinomial loss
  ``Σ c_i [log Σ_k e^{z_ik} − z_{i,y_i}]``, ``z_i = Wᵀx_i + b``, weights ``W`` (m × K),
  intercepts ``b`` (K,). A group's penalty is the Frobenius norm of its features' K-vectors:
  the *grouped* multinomial penalty of glmnet (``type.multinomial = "grouped"``; Friedman,
  Hastie & Tibshirani 2010, J. Stat. Softw. 33(1), §4), under which a feature enters or
  leaves the model for every class at once.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy.special import expit, softmax
from sklearn.exceptions import ConvergenceWarning


class BinomialLoss:
    """``Σ c_i log(1 + e^{−y_i z_i})`` of margins z (n,), labels ±1."""

    #: Largest second derivative in z: σ(1 − σ) ≤ 1/4.
    curvature = 0.25

    def __init__(self, y: np.ndarray, c: np.ndarray):
        self.y, self.c = y, c

    def residual(self, z: np.ndarray) -> np.ndarray:
        """The loss's derivative in z."""
        return -self.c * self.y * expit(-self.y * z)

    def remainder(self, z: np.ndarray, delta_z: np.ndarray) -> float:
        """``loss(z + Δz) − loss(z) − ∇loss(z)·Δz``, summed per example as
        ``log1p(σ(−yz)·expm1(−yΔz)) + σ(−yz)·yΔz``: accurate when Δz is tiny, where the
        difference of two loss values would be rounding noise."""
        s = expit(-self.y * z)
        with np.errstate(over="ignore"):
            per_example = np.log1p(s * np.expm1(-self.y * delta_z)) + s * self.y * delta_z
        return self.c @ per_example

    def null_intercept(self) -> float:
        """The optimal intercept when every weight is 0: the weighted log-odds."""
        positive = self.c[self.y > 0].sum()
        return float(np.log(positive / (self.c.sum() - positive)))


class MultinomialLoss:
    """``Σ c_i [log Σ_k e^{z_ik} − z_{i,y_i}]`` of scores z (n × K); ``y`` the n × K
    one-vs-rest signs (+1 in the column of each example's class)."""

    #: Largest eigenvalue of the softmax's Hessian diag(p) − ppᵀ: at most 1/2 (Böhning 1992).
    curvature = 0.5

    def __init__(self, y: np.ndarray, c: np.ndarray):
        self.members, self.c = (y > 0).astype(float), c

    def residual(self, z: np.ndarray) -> np.ndarray:
        """The loss's derivative in z: ``c_i (softmax(z_i) − e_{y_i})``."""
        return self.c[:, None] * (softmax(z, axis=1) - self.members)

    def remainder(self, z: np.ndarray, delta_z: np.ndarray) -> float:
        """``loss(z + Δz) − loss(z) − ∇loss(z)·Δz``, per example
        ``log1p(Σ_k p_k expm1(Δz_k)) − Σ_k p_k Δz_k`` (p = softmax(z)): the log-sum-exp's
        change ``log Σ_k p_k e^{Δz_k}`` written to stay accurate for tiny Δz."""
        p = softmax(z, axis=1)
        with np.errstate(over="ignore", invalid="ignore"):
            per_example = (np.log1p(np.einsum("ik,ik->i", p, np.expm1(delta_z)))
                           - np.einsum("ik,ik->i", p, delta_z))
        return self.c @ np.nan_to_num(per_example, nan=np.inf)

    def null_intercept(self) -> np.ndarray:
        """The optimal intercepts when every weight is 0: the log class weights, centred
        (the loss is unchanged by a common shift of the K intercepts)."""
        log_weights = np.log(self.c @ self.members)
        return log_weights - log_weights.mean()


def classification_loss(y: np.ndarray, c: np.ndarray) -> BinomialLoss | MultinomialLoss:
    """The loss of ±1 labels ``y`` (n,) — logistic — or of an n × K sign matrix —
    multinomial —, with multiplicities ``c``."""
    return BinomialLoss(y, c) if y.ndim == 1 else MultinomialLoss(y, c)


def as_intercept(b) -> float | np.ndarray:
    """A float (two classes) or a float array of K intercepts."""
    return float(b) if np.ndim(b) == 0 else np.array(b, dtype=float)


def row_squares(w: np.ndarray) -> np.ndarray:
    """Per feature, the squared norm of its weights: ``w_f²``, or ``‖W_f·‖²`` of a row of an
    m × K weight matrix."""
    return w * w if w.ndim == 1 else np.einsum("fk,fk->f", w, w)


def _inner(a, b) -> float:
    """The Euclidean inner product of two coefficient arrays (or two floats)."""
    if np.ndim(a) == 0:
        return a * b
    return a @ b if np.ndim(a) == 1 else np.vdot(a, b)


def _per_row(values: np.ndarray, like: np.ndarray) -> np.ndarray:
    """Per-feature ``values`` shaped to scale the rows of ``like`` (m,) or (m, K)."""
    return values if like.ndim == 1 else values[:, None]


def kkt_violation(gradient: np.ndarray, gradient_b, w: np.ndarray, local: np.ndarray,
                  thresholds: np.ndarray) -> float:
    """Largest relative KKT residual of the group lasso on a working set (``gradient``: of
    the smooth part, loss and ridge, in w (m,) or W (m × K)): for a zero group
    ``max(0, ‖g_g‖/t_g − 1)``, for a non-zero one ``‖g_g + t_g w_g/‖w_g‖‖ / t_g``, and
    ``max |g_b| / min t_g`` for the intercept(s)."""
    G = thresholds.size
    norm_w = np.sqrt(np.bincount(local, weights=row_squares(w), minlength=G))
    safe = np.where(norm_w > 0, norm_w, 1.0)
    residual = gradient + _per_row(thresholds[local], w) * w / _per_row(safe[local], w)
    norm_r = np.sqrt(np.bincount(local, weights=row_squares(residual), minlength=G))
    norm_g = np.sqrt(np.bincount(local, weights=row_squares(gradient), minlength=G))
    per_group = np.where(norm_w > 0, norm_r / thresholds,
                         np.maximum(0.0, norm_g / thresholds - 1.0))
    return max(float(per_group.max(initial=0.0)),
               float(np.max(np.abs(gradient_b))) / thresholds.min())


def group_fista(X: np.ndarray, y: np.ndarray, c: np.ndarray, local: np.ndarray,
                thresholds: np.ndarray, w: np.ndarray, b, *, ridge: float = 0.0,
                tol: float = 1e-7,
                max_iter: int = 100_000) -> tuple[np.ndarray, float | np.ndarray, int]:
    """Logistic or multinomial group lasso (elastic net with ``ridge``) by FISTA with
    backtracking.

    Minimises ``loss(XW + b) + ridge ‖W‖² + Σ_g t_g ‖W_g‖`` (module docstring: ``y`` a ±1
    vector, ``w`` (m,) and ``b`` a float for the logistic loss; ``y`` an n × K sign matrix,
    ``w`` (m × K) and ``b`` (K,) for the multinomial one), groups ``local`` (0..G−1 per
    column of X; ``t_g = thresholds``), intercept unpenalised, from ``(w, b)``. The
    proximal step is the block soft-thresholding ``W_g ← max(0, 1 − t_g/(L‖U_g‖)) U_g`` of
    ``U = V − ∇f(V)/L`` (b: a plain gradient step). Step 1/L by backtracking: each
    iteration first tries 0.9 L, doubling it until the quadratic upper bound
    ``f(v + d) − f(v) − ∇f(v)·d ≤ L‖d‖²/2`` holds, never above the global Lipschitz
    constant ``‖C^{1/2}[X, 1]‖₂² κ + 2 ridge`` (κ the loss's largest curvature: 1/4 for
    the logistic, 1/2 for the multinomial), where it always holds — the local curvature is
    much smaller once the margins grow. The left side is summed per example by the loss's
    ``remainder``, accurate when d is tiny. Momentum restarts when it points uphill
    (O'Donoghue & Candès 2015). Stops when the relative KKT residual
    (:func:`kkt_violation`) is at most ``tol``, tested every 10 iterations; warns
    (``ConvergenceWarning``) after ``max_iter`` iterations. Returns (w, b, iterations).
    """
    n = X.shape[0]
    G = thresholds.size
    loss = classification_loss(y, c)
    A = np.column_stack([X, np.ones(n)]) * np.sqrt(c)[:, None]
    L_max = max(np.linalg.norm(A, 2) ** 2 * loss.curvature + 2 * ridge, 1e-12)
    L = L_max

    def prox(u, step_thresholds):
        norms = np.sqrt(np.bincount(local, weights=row_squares(u), minlength=G))
        safe = np.where(norms > 0, norms, 1.0)
        shrink = np.where(norms > step_thresholds, 1.0 - step_thresholds / safe, 0.0)
        return u * _per_row(shrink[local], u)

    w, b = np.array(w, dtype=float), as_intercept(b)
    z = X @ w + b  # margins, carried along the iterates (v's are linear combinations)
    prev_w, prev_b, prev_z = w, b, z
    t, momentum = 1.0, 0.0
    for iteration in range(max_iter):
        v_w = w + momentum * (w - prev_w)
        v_b = b + momentum * (b - prev_b)
        v_z = z + momentum * (z - prev_z)
        r = loss.residual(v_z)
        g_w, g_b = X.T @ r + 2 * ridge * v_w, r.sum(axis=0)
        L *= 0.9
        while True:
            new_w = prox(v_w - g_w / L, thresholds / L)
            new_b = v_b - g_b / L
            new_z = X @ new_w + new_b
            d_w, d_b = new_w - v_w, new_b - v_b
            if L >= L_max or (loss.remainder(v_z, new_z - v_z) + ridge * _inner(d_w, d_w)
                              <= L / 2 * (_inner(d_w, d_w) + _inner(d_b, d_b))):
                break
            L = min(2 * L, L_max)
        if iteration % 10 == 9:
            r = loss.residual(new_z)
            if kkt_violation(X.T @ r + 2 * ridge * new_w, r.sum(axis=0), new_w, local,
                             thresholds) <= tol:
                return new_w, new_b, iteration + 1
        # gradient-based adaptive restart: momentum off when the step goes uphill
        if _inner(v_w - new_w, new_w - w) + _inner(v_b - new_b, new_b - b) > 0:
            t = 1.0
        t_next = (1 + math.sqrt(1 + 4 * t * t)) / 2
        momentum = (t - 1) / t_next
        prev_w, prev_b, prev_z = w, b, z
        w, b, z, t = new_w, new_b, new_z, t_next
    warnings.warn(f"FISTA did not reach the relative KKT residual {tol:g} in "
                  f"{max_iter} iterations; raise max_iter or tol.", ConvergenceWarning,
                  stacklevel=4)
    return w, b, max_iter


__all__ = ["BinomialLoss", "MultinomialLoss", "as_intercept", "classification_loss",
           "group_fista", "kkt_violation", "row_squares"]
