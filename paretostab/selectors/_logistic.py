"""The fast L2-logistic core shared by every RFE, for the d ≫ n regime.

Minimises, over weights ``w`` and an unpenalised intercept ``b``,

    Σ_i log(1 + exp(−y_i (w·x_i + b))) + reg · ‖β ⊙ w‖²,        y_i ∈ {−1, +1},

on standardised features: scikit-learn's ``LogisticRegression(C=1/(2·reg))`` on the
features ``x_f / β_f`` (the *penalty convention of the whole package*; differential
shrinkage is this rescaling, SPEC §3). Weights are reported in the original (unscaled,
standardised) feature space, ``w_f = w'_f / β_f``.

While the model has at least as many features as examples it is solved in the dual
representation ``w' = X'ᵀα`` (the optimum lies in the row space of X'): Newton steps on
(α, b) cost O(n³) whatever d is, through the n×n Gram matrix ``K = X'X'ᵀ``, which is
*downdated* as features are dropped (``K ← K − X'_D X'_Dᵀ``) instead of recomputed, and
every fit is warm-started from the previous one (the weights of the kept features are
kept). Below n features it switches to primal Newton steps, O(n m²) for m features.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.linalg import lapack
from scipy.special import expit, log_expit
from sklearn.exceptions import ConvergenceWarning

_ARMIJO = 1e-4
_MIN_CURVATURE = 1e-15  # floor of p(1 − p): saturated examples keep a finite 2λ/h


def _cholesky_solve(matrix: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Solve ``matrix · x = rhs`` for a symmetric positive definite ``matrix`` (overwritten)."""
    factor, info = lapack.dpotrf(matrix, lower=0, clean=0, overwrite_a=1)
    if info != 0:
        raise np.linalg.LinAlgError(f"Newton system not positive definite (dpotrf info {info})")
    solution, _ = lapack.dpotrs(factor, rhs, lower=0)
    return solution


class IncrementalL2Logistic:
    """L2-logistic regression over a feature set that only shrinks (the RFE's use).

    Parameters
    ----------
    X : array (n, d)
        Standardised training features (never modified).
    y : array (n,)
        Labels in {−1, +1}.
    reg : float
        λ > 0 of the penalty ``reg · ‖β ⊙ w‖²``.
    beta : array (d,), optional
        Differential shrinkage β_f > 0 (default 1).
    weights : array (n,), optional
        Multiplicity c_i ≥ 0 of each example in the loss ``Σ c_i log(1 + e^{−y_i f_i})``
        (the RFE passes distinct bootstrap rows with their counts).
    tol : float
        Newton stops when the gradient's Euclidean norm is below ``tol`` times the
        problem's scale, ``max(1, ‖∇ at w = 0, b = 0‖)`` (strong shrinkage rescales the
        features by 1/β and the gradient with them).
    max_iter : int
        Newton iterations per fit; a fit that does not converge warns
        (``ConvergenceWarning``).
    gram : array (n, n), optional
        ``X Xᵀ`` of the unshrunk features, if already computed (a training sample's
        :attr:`~paretostab.selectors.TrainingSample.distinct_gram`); never modified.

    Notes
    -----
    The first Gram matrix ``K = X'X'ᵀ`` is ``X Xᵀ`` corrected by ``X_S diag(1/β_S² − 1)
    X_Sᵀ`` for the shrunk features S (β_f ≠ 1) when they are at most half of them — the
    stable set of a hybrid RFE —, so that ``X Xᵀ`` is computed once per sample whatever β;
    otherwise ``X'X'ᵀ`` directly.
    """

    def __init__(self, X: np.ndarray, y: np.ndarray, *, reg: float,
                 beta: np.ndarray | None = None, weights: np.ndarray | None = None,
                 tol: float = 1e-8, max_iter: int = 100, gram: np.ndarray | None = None):
        n, d = X.shape
        self._y = np.asarray(y, dtype=float)
        self._c = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
        self._reg = float(reg)
        self._max_iter = max_iter
        self._scale = np.ones(d) if beta is None else 1.0 / np.asarray(beta, dtype=float)
        # X' = X / β; dropped columns stay stored (marked dead) until fewer than half are
        # alive, so that each column is copied O(1) times in all
        self._X = X if beta is None else X * self._scale
        self._stored = np.arange(d)
        self._alive = np.ones(d, dtype=bool)
        self.features = np.arange(d)
        self._b = 0.0
        cy = self._c * self._y
        gradient_at_zero = np.append(self._X.T @ cy, cy.sum()) / 2
        self._stop = tol * max(1.0, float(np.linalg.norm(gradient_at_zero)))
        if d >= n:
            self._alpha = np.zeros(n)
            self._K = self._first_gram(X, gram)
            self._w = None
        else:
            self._alpha = self._K = None
            self._w = np.zeros(d)

    # ------------------------------------------------------------------ public

    def fit(self) -> IncrementalL2Logistic:
        """Solve for the current features, warm-started from the previous solution."""
        converged = self._fit_dual() if self._K is not None else self._fit_primal()
        if not converged:
            warnings.warn(
                f"L2-logistic Newton did not reach gradient norm {self._stop:g} in "
                f"{self._max_iter} iterations; raise max_iter or tol.",
                ConvergenceWarning, stacklevel=3,
            )
        return self

    @property
    def coef(self) -> np.ndarray:
        """Weights of the current features in the unscaled space, ``w_f = w'_f / β_f``."""
        if self._K is not None:
            scaled = (self._X.T @ self._alpha)[self._alive]
        else:
            scaled = self._w
        return scaled * self._scale[self.features]

    @property
    def intercept(self) -> float:
        return self._b

    def drop(self, positions: np.ndarray) -> None:
        """Remove the features at ``positions`` (indices into :attr:`features`)."""
        alive = np.flatnonzero(self._alive)
        dropped = alive[positions]
        self._alive[dropped] = False
        kept = int(self._alive.sum())
        n = self._X.shape[0]
        if self._K is not None:
            if kept < n:  # switch to the primal: w' = X'ᵀα on the kept features
                self._w = self._X[:, self._alive].T @ self._alpha
                self._K = self._alpha = None
            elif dropped.size < kept:
                block = self._X[:, dropped]
                self._K -= block @ block.T
            else:
                block = self._X[:, self._alive]
                self._K = block @ block.T
        else:
            keep = np.ones(alive.size, dtype=bool)
            keep[positions] = False
            self._w = self._w[keep]
        if kept < self._alive.size / 2 or self._K is None:
            self._X = self._X[:, self._alive]
            self._stored = self._stored[self._alive]
            self._alive = np.ones(kept, dtype=bool)
        self.features = self._stored[self._alive]

    # ------------------------------------------------------------- internals

    def _first_gram(self, X: np.ndarray, gram: np.ndarray | None) -> np.ndarray:
        """``K = X'X'ᵀ`` (see the class notes)."""
        shrunk = np.flatnonzero(self._scale != 1.0)
        if shrunk.size > X.shape[1] // 2:
            return self._X @ self._X.T
        K = X @ X.T if gram is None else gram.copy()
        if shrunk.size:
            block = X[:, shrunk]
            K += (block * (self._scale[shrunk] ** 2 - 1.0)) @ block.T
        return K

    def _fit_dual(self) -> bool:
        """Damped Newton on (α, b) with margins ``f = Kα + b``.

        Direction: ``(DK + 2λI)Δα + D1Δb = −r``, ``1ᵀΔα = −1ᵀα``, with ``r = g + 2λα``;
        a solution solves the Newton system of (α, b), whose first block is K times the
        first equation, and keeps Σα = 0 (the stationarity of b). Divided by D it is the
        saddle-point system of the positive definite ``M = K + 2λD⁻¹``: one Cholesky
        factorisation, ``Δα = u − vΔb`` with ``Mu = −D⁻¹r``, ``Mv = 1``,
        ``Δb = (1ᵀu + 1ᵀα)/1ᵀv``. The gradient's norm in the primal is
        ``√(rᵀKr + (1ᵀg)²)``.
        """
        K, y, c, lam = self._K, self._y, self._c, self._reg
        n = y.size
        diagonal = np.arange(n) * (n + 1)
        alpha, b = self._alpha, self._b
        Ka = K @ alpha
        z = y * (Ka + b)
        objective = -c @ log_expit(z) + lam * alpha @ Ka
        converged = False
        for _ in range(self._max_iter):
            p = expit(z)
            g = -c * y * (1 - p)
            r = g + 2 * lam * alpha
            Kr = K @ r
            g_sum = g.sum()
            if r @ Kr + g_sum * g_sum <= self._stop**2:
                converged = True
                break
            h = np.maximum(c * p * (1 - p), _MIN_CURVATURE)
            M = K.copy(order="F")
            M.flat[diagonal] += 2 * lam / h
            rhs = np.empty((n, 2), order="F")
            rhs[:, 0] = -r / h
            rhs[:, 1] = 1.0
            u, v = _cholesky_solve(M, rhs).T
            step_b = (u.sum() + alpha.sum()) / v.sum()
            step_alpha = u - v * step_b
            slope = Kr @ step_alpha + g_sum * step_b
            K_step = K @ step_alpha
            objective, alpha, b, Ka, z = self._line_search(
                objective, slope, alpha, b, Ka, step_alpha, step_b, K_step,
                lambda a, Ka_: lam * a @ Ka_)
        self._alpha, self._b = alpha, b
        return converged

    def _fit_primal(self) -> bool:
        """Damped Newton on (w', b) for the m < n current features (Cholesky of the
        (m+1)-Hessian ``ZᵀDZ + 2λ diag(1, …, 1, 0)``, Z = [X', 1])."""
        X = self._X  # compacted to the current features when in the primal
        y, c, lam = self._y, self._c, self._reg
        n, m = X.shape
        diagonal = np.arange(m) * (m + 2)  # the w-block's diagonal in the (m+1)² Hessian
        w, b = self._w, self._b
        Xw = X @ w
        z = y * (Xw + b)
        objective = -c @ log_expit(z) + lam * w @ w
        converged = False
        for _ in range(self._max_iter):
            p = expit(z)
            g = -c * y * (1 - p)
            gradient = np.empty(m + 1)
            gradient[:m] = X.T @ g + 2 * lam * w
            gradient[m] = g.sum()
            if gradient @ gradient <= self._stop**2:
                converged = True
                break
            h = c * p * (1 - p)
            Xh = X * h[:, None]
            H = np.empty((m + 1, m + 1), order="F")
            H[:m, :m] = X.T @ Xh
            H[:m, m] = H[m, :m] = Xh.sum(axis=0)
            H[m, m] = max(h.sum(), _MIN_CURVATURE)
            H.flat[diagonal] += 2 * lam
            step = -_cholesky_solve(H, gradient)
            slope = gradient @ step
            objective, w, b, Xw, z = self._line_search(
                objective, slope, w, b, Xw, step[:m], step[m], X @ step[:m],
                lambda w_, _: lam * w_ @ w_)
        self._w, self._b = w, b
        return converged

    def _line_search(self, objective, slope, params, b, linear, step, step_b, linear_step,
                     penalty):
        """Armijo backtracking along (step, step_b); ``linear`` is the margin part that is
        linear in the parameters (Kα or X'w'), updated along ``linear_step``.

        Near the optimum the predicted decrease falls below the objective's rounding
        error and the Armijo test becomes noise; the full step is then taken (Newton's
        region of quadratic convergence).
        """
        resolution = 1e-13 * (1.0 + abs(objective))
        t = 1.0
        while True:
            new_params = params + t * step
            new_linear = linear + t * linear_step
            new_b = b + t * step_b
            z = self._y * (new_linear + new_b)
            value = -self._c @ log_expit(z) + penalty(new_params, new_linear)
            if value <= objective + _ARMIJO * t * slope or -t * slope <= resolution or t < 1e-10:
                return value, new_params, new_b, new_linear, z
            t /= 2


def fit_l2_logistic(X: np.ndarray, y: np.ndarray, *, reg: float,
                    beta: np.ndarray | None = None, weights: np.ndarray | None = None,
                    tol: float = 1e-8, max_iter: int = 100):
    """Fit once: weights (unscaled space) and intercept of the L2-logistic model.

    ``y`` ±1 signs, or an n × K matrix of them (a K-class sample's one-vs-rest problems,
    :attr:`~paretostab.selectors.TrainingSample.signs`): then one model per column, and
    K × m weights with K intercepts (one-vs-rest, as Guyon et al. 2002 and scikit-learn's
    ``OneVsRestClassifier`` do; each binary problem is the package's binary model)."""
    if y.ndim == 2:
        fits = [fit_l2_logistic(X, column, reg=reg, beta=beta, weights=weights, tol=tol,
                                max_iter=max_iter) for column in y.T]
        return np.array([coef for coef, _ in fits]), np.array([b for _, b in fits])
    model = IncrementalL2Logistic(X, y, reg=reg, beta=beta, weights=weights, tol=tol,
                                  max_iter=max_iter).fit()
    return model.coef, model.intercept
