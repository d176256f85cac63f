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
every fit is warm-started from the previous one. Below n features it switches to primal
Newton steps, O(n m²) for m features.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import expit, log_expit
from sklearn.exceptions import ConvergenceWarning


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
    tol : float
        Newton stops when the gradient's Euclidean norm is below ``tol`` times the
        problem's scale, ``max(1, ‖∇ at w = 0, b = 0‖)`` (strong shrinkage rescales the
        features by 1/β and the gradient with them).
    max_iter : int
        Newton iterations per fit; a fit that does not converge warns
        (``ConvergenceWarning``).
    """

    def __init__(self, X: np.ndarray, y: np.ndarray, *, reg: float,
                 beta: np.ndarray | None = None, tol: float = 1e-8, max_iter: int = 100):
        n, d = X.shape
        self._y = y.astype(float)
        self._reg = float(reg)
        self._tol = tol
        self._max_iter = max_iter
        self._scale = np.ones(d) if beta is None else 1.0 / np.asarray(beta, dtype=float)
        self._X = np.asfortranarray(X * self._scale)  # X' = X / β, columns sliced often
        self.features = np.arange(d)
        self._b = 0.0
        gradient_at_zero = np.append(self._X.T @ self._y, self._y.sum()) / 2
        self._stop = tol * max(1.0, float(np.linalg.norm(gradient_at_zero)))
        if d >= n:
            self._alpha = np.zeros(n)
            self._K = self._X @ self._X.T
            self._w = None
        else:
            self._alpha = self._K = None
            self._w = np.zeros(d)

    # ------------------------------------------------------------------ public

    def fit(self) -> IncrementalL2Logistic:
        """Solve for the current features, warm-started from the previous solution."""
        if self._K is not None:
            self._newton(self._dual_state, self._dual_step, self._dual_update)
        else:
            self._newton(self._primal_state, self._primal_step, self._primal_update)
        return self

    @property
    def coef(self) -> np.ndarray:
        """Weights of the current features in the unscaled space, ``w_f = w'_f / β_f``."""
        return self._scaled_coef() * self._scale[self.features]

    @property
    def intercept(self) -> float:
        return self._b

    def drop(self, positions: np.ndarray) -> None:
        """Remove the features at ``positions`` (indices into :attr:`features`)."""
        keep = np.ones(self.features.size, dtype=bool)
        keep[positions] = False
        dropped, kept = self.features[~keep], self.features[keep]
        n = self._X.shape[0]
        if self._K is not None:
            if kept.size < n:  # switch to the primal: w' = X'ᵀα on the kept features
                self._w = self._X[:, kept].T @ self._alpha
                self._K = self._alpha = None
            elif dropped.size < kept.size:
                block = self._X[:, dropped]
                self._K -= block @ block.T
            else:
                block = self._X[:, kept]
                self._K = block @ block.T
        else:
            self._w = self._w[keep]
        self.features = kept

    # ------------------------------------------------------------- internals

    def _scaled_coef(self) -> np.ndarray:
        if self._K is not None:
            return self._X[:, self.features].T @ self._alpha
        return self._w

    def _loss(self, margin: np.ndarray) -> float:
        return float(-np.sum(log_expit(self._y * margin)))

    def _newton(self, state, step, update) -> None:
        """Damped Newton: Armijo backtracking on the objective, gradient-norm stopping.

        Near the optimum the predicted decrease falls below the objective's rounding
        error and the Armijo test becomes noise; the full step is then taken (Newton's
        region of quadratic convergence).
        """
        objective, gradient_norm, cache = state()
        for _ in range(self._max_iter):
            if gradient_norm <= self._stop:
                return
            direction, slope = step(cache)
            resolution = 1e-13 * (1.0 + abs(objective))
            t = 1.0
            while True:
                trial = update(direction, t)
                trial_objective, trial_norm, trial_cache = state(trial)
                if (trial_objective <= objective + 1e-4 * t * slope
                        or -t * slope <= resolution or t < 1e-10):
                    break
                t /= 2
            self._commit(trial)
            objective, gradient_norm, cache = trial_objective, trial_norm, trial_cache
        if gradient_norm > self._stop:
            warnings.warn(
                f"L2-logistic Newton did not reach gradient norm {self._stop:g} in "
                f"{self._max_iter} iterations (reached {gradient_norm:.3g}); "
                "raise max_iter or tol.", ConvergenceWarning, stacklevel=4,
            )

    def _commit(self, params: tuple) -> None:
        if self._K is not None:
            self._alpha, self._b = params
        else:
            self._w, self._b = params

    # dual: w' = X'ᵀα, margins f = Kα + b
    def _dual_state(self, params: tuple | None = None):
        alpha, b = (self._alpha, self._b) if params is None else params
        Ka = self._K @ alpha
        margin = Ka + b
        p = expit(self._y * margin)  # probability of the observed label
        g = -self._y * (1 - p)  # d loss / d margin
        r = g + 2 * self._reg * alpha
        Kr = self._K @ r
        objective = self._loss(margin) + self._reg * float(alpha @ Ka)
        norm = float(np.sqrt(max(r @ Kr, 0.0) + g.sum() ** 2))  # ‖primal gradient‖
        return objective, norm, (alpha, b, p, r, Kr, g)

    def _dual_step(self, cache):
        """Newton direction: (DK + 2λI)Δα + D1Δb = −r, 1ᵀΔα = −1ᵀα.

        A solution of this (n+1)-system solves the Newton system of (α, b), whose first
        block is K times the first equation; it keeps Σα = 0, the stationarity of b.
        """
        alpha, _, p, r, Kr, g = cache
        n = alpha.size
        h = p * (1 - p)
        A = np.empty((n + 1, n + 1))
        A[:n, :n] = h[:, None] * self._K
        A[np.arange(n), np.arange(n)] += 2 * self._reg
        A[:n, n] = h
        A[n, :n] = 1.0
        A[n, n] = 0.0
        rhs = np.append(-r, -alpha.sum())
        direction = np.linalg.solve(A, rhs)
        slope = float(Kr @ direction[:n] + g.sum() * direction[n])
        return direction, slope

    def _dual_update(self, direction, t):
        return self._alpha + t * direction[:-1], self._b + t * direction[-1]

    # primal: margins f = X'_F w' + b
    def _primal_state(self, params: tuple | None = None):
        w, b = (self._w, self._b) if params is None else params
        X = self._X[:, self.features]
        margin = X @ w + b
        p = expit(self._y * margin)
        g = -self._y * (1 - p)
        grad = np.append(X.T @ g + 2 * self._reg * w, g.sum())
        objective = self._loss(margin) + self._reg * float(w @ w)
        return objective, float(np.linalg.norm(grad)), (X, p, grad)

    def _primal_step(self, cache):
        X, p, grad = cache
        Z = np.hstack([X, np.ones((X.shape[0], 1))])
        H = (Z * (p * (1 - p))[:, None]).T @ Z
        m = X.shape[1]
        H[np.arange(m), np.arange(m)] += 2 * self._reg
        direction = np.linalg.solve(H + 1e-12 * np.eye(m + 1), -grad)
        return direction, float(grad @ direction)

    def _primal_update(self, direction, t):
        return self._w + t * direction[:-1], self._b + t * direction[-1]


def fit_l2_logistic(X: np.ndarray, y: np.ndarray, *, reg: float,
                    beta: np.ndarray | None = None, tol: float = 1e-8,
                    max_iter: int = 100) -> tuple[np.ndarray, float]:
    """Fit once: weights (unscaled space) and intercept of the L2-logistic model."""
    model = IncrementalL2Logistic(X, y, reg=reg, beta=beta, tol=tol, max_iter=max_iter).fit()
    return model.coef, model.intercept
