"""The fast L2-logistic core shared by every RFE.

Minimises, over weights ``w`` and an unpenalised intercept ``b``,

    Σ_i c_i log(1 + exp(−y_i (w·x_i + b))) + reg · ‖β ⊙ w‖²,        y_i ∈ {−1, +1},

on standardised features: scikit-learn's ``LogisticRegression(C=1/(2·reg))`` on the
features ``x_f / β_f`` with sample weights c (the *penalty convention of the whole
package*; differential shrinkage is this rescaling, SPEC §3). Weights are reported in the
original (unscaled, standardised) feature space, ``w_f = w'_f / β_f``. Every fit is
warm-started from the previous one (the weights of the kept features are kept).

The stopping rule, whatever the solver: the gradient's norm is below ``tol`` times the
problem's scale *and* the Newton step from the iterate, ``s = −H⁻¹∇``, is below ``tol``
times the norm of the parameters (w', b) — the step being, to second order, the distance
to the optimum. A small gradient alone is not close: on correlated features at a small λ
the Hessian's smallest eigenvalue is near 2λ, and ``‖x − x*‖ ≈ ‖H⁻¹∇‖`` reaches ``‖∇‖ /
2λ``. The gradient rule alone stopped up to 3.4e-4 of the weights' scale from
scikit-learn's optimum on n = 250, d = 120, pairwise correlation 0.9, λ = 1e-6, and up
to 1.2e-3 on problems of 20–150 examples, 10–300 features, correlation up to 0.99 and λ
from 1e-6 to 1e3; with the step rule, 2e-8 and within 1e-5 (``tests/test_logistic_paths.py``).
The test costs one Newton direction per fit (the one at which the fit stops, not taken,
so that a fit stops where the gradient rule stopped whenever that was the optimum) and a
few more steps where it was not; the truncated Newton steps solve that last direction
to a relative residual η (below √tol) instead of half the stopping norm. Measured on
``HybridRFE(n_features=20)``, CPU seconds per fit, one BLAS thread, the old and new core
interleaved on the same bootstrap samples: n = 102, d = 5 000 (dual, then full Newton;
4.15 → 4.35 steps and 5.35 directions a fit) 1.07×; n = 1 500, d = 1 000 (truncated
Newton; 4.6 → 5.3 steps, 6.3 directions) 1.44×; the selections identical. The
probabilities' complements ``1 − p = σ(−z)`` are computed as such, not by a subtraction
that loses them past a margin of 37, where a tiny λ puts the optimum.

Three solvers, chosen per fit from n (examples) and m (current features):

* **dual Newton** while ``n ≤ 1 000`` and ``m ≥ max(n, n²/100)``
  (:func:`solves_in_dual`): the optimum lies in the row space of X', ``w' = X'ᵀα``, and
  Newton steps on (α, b) cost O(n³) whatever m is, through the n×n Gram matrix
  ``K = X'X'ᵀ``, *downdated* as features are dropped (``K ← K − X'_D X'_Dᵀ``) instead of
  recomputed. The papers' shape (n ≈ 100, d in the thousands) runs here, as before.
* **full primal Newton** (Cholesky of the (m+1)² Hessian, O(n m²) per iteration) while
  ``m ≤ 100``.
* **truncated primal Newton** otherwise (Dembo & Steihaug 1983; Nocedal & Wright 2006,
  Algorithm 7.1): conjugate gradients on the Newton system, each iteration one
  Hessian-vector product, O(n m) — in single precision on a copy of X' made once per model
  (gradients, margins and the stopping test stay in double precision), one pass over the
  data by cached row blocks — preconditioned by the Hessian at the fit's first iterate
  (one Cholesky factorisation per fit) while ``m ≤ min(2 000, n/5)``, else by the
  diagonal of the Hessian with the curvatures averaged.

The thresholds were measured (CPU seconds, one BLAS thread, on a shared 2-core machine;
the elimination of ``HybridRFE(n_features=20)`` on the simulated data of
``benchmarks/bench_scale.py``, each solver forced along the same path):

* dual or primal. The dual's entry fee is the Gram matrix and its downdates, about
  2n² flops per feature at matrix-matrix speed; the primal's cost is ~20 passes over the
  data per fit at memory speed. Per fit the two cross near m = n²/100: at n = 500
  (d = 20 000) the dual is ahead down to m ≈ 3 500, at n = 1 000 down to m ≈ 10 000 (a
  fit at m = 20 000: 0.15 s against 0.40 s; at m = 8 192: 0.16 against 0.10 s). Over a
  whole elimination the dual is worth its Gram matrix up to n ≈ 1 000: n = 500,
  d = 20 000: 0.59 s (dual, then primal) against 0.78 s (primal only); n = 1 000,
  d = 20 000: 1.79 against 1.96 s; n = 1 000, d = 200 000: 17.3 against 16.7 s;
  n = 2 000, d = 20 000: 9.7 against 4.3 s; n = 1 000, d = 2 000 (m < n²/100 from the
  start): 0.44 against 0.16 s.
* full or truncated Newton: at n = 1 000 a full Newton fit costs 46 ms at m = 420
  against 8 ms truncated (in double precision, diagonal preconditioner), 3.6 against
  2.7 ms at m = 112, 2.4 against 2.2 ms at m = 90; below 100 features the full step is as
  cheap, and the papers' shapes stay bit for bit what they were
  (``tests/test_binary_unchanged.py``).
* the preconditioner: at n = 10 000, d = 2 000 the Hessian's cuts the CG iterations of a
  fit from ~120 to ~10 and halves its time for every m up to 2 000 (m = 1 024: 0.23
  against 0.49 s); at n = 1 000 and 3 000 (d = n) the diagonal is ahead above m ≈ 250 (n = 3 000,
  m = 631: 30 against 47 ms: the Hessian costs O(n m² + m³) a fit); at n = 10 000,
  d = 20 000 above m ≈ 1 100.
* single precision: a Hessian-vector product at n = 10 000, m = 2 000 takes 14.5 ms in
  double precision (two passes), 7.9 ms in single, 5.4 ms by cached row blocks.
* the conjugate gradients' cap, :data:`CG_SWEEPS` · (m + 1) iterations. In exact
  arithmetic they end after m + 1, the former cap; in finite precision they lose
  conjugacy where H is ill-conditioned, as on a nearly separable sample at a small λ
  (most curvatures p(1 − p) underflowing to 0, H's eigenvalues from 5e-5 to 20), and the
  capped directions were worse than none (residuals above ‖∇‖): one model of 142
  examples, 32 features, λ = 1e-5 took 166 Newton iterations (Hessian preconditioner)
  and 270 (diagonal), where 100 are allowed; at 20 (m + 1), 22 and 23, with fewer
  conjugate gradient iterations in all (the sample's three models: 1 347 products
  against 5 943 with the Hessian, 1 652 against 9 336 with the diagonal).
  Neither double-precision products (73 and 141 iterations) nor a diagonal of the
  current ``Σ_i h_i x_if²`` rebuilt at every iteration (185) cured it; the Hessian
  rebuilt at every iteration did (18), at a factorisation per iteration. On 50 nearly
  separable samples (40–200 examples, 20–150 features, λ from 1e-6 to 1e-4, 2–3
  classes) the directions needed up to 8.3 (m + 1) iterations (the first iterate's
  Hessian as preconditioner, at the final direction) and 4.3 (m + 1) with the diagonal,
  and every model of every solver converged within 24 Newton iterations (at m + 1: up
  to 73 with the Hessian, 755 with the diagonal).
"""

from __future__ import annotations

import warnings
from typing import cast

import numpy as np
from scipy.linalg import lapack
from scipy.special import expit, log_expit
from sklearn.exceptions import ConvergenceWarning

_ARMIJO = 1e-4
_MIN_CURVATURE = 1e-300  # floor of p(1 − p) (a weight 0, σ(−z) underflowing): 2λ/h finite
_BLOCK_BYTES = 4 << 20  # a row block of the data that stays in cache
#: The truncated Newton steps' conjugate gradients stop at their target residual or after
#: CG_SWEEPS · (m + 1) iterations (the module's notes: m + 1, where they end in exact
#: arithmetic, starved the directions of nearly separable samples).
CG_SWEEPS = 20

#: The most examples the core solves in the dual (the module's notes give the measurements).
DUAL_MAX_EXAMPLES = 1_000
#: The dual needs at least n²/DUAL_RATIO features, and at least n.
DUAL_RATIO = 100
#: The most features a primal fit solves by full Newton steps.
FULL_NEWTON_MAX_FEATURES = 100
#: Truncated Newton steps are preconditioned by the Hessian of the fit's first iterate while
#: m ≤ min(HESSIAN_MAX_FEATURES, n / HESSIAN_RATIO), by its diagonal otherwise.
HESSIAN_MAX_FEATURES = 2_000
HESSIAN_RATIO = 5


def solves_in_dual(n_examples: int, n_features: int) -> bool:
    """Whether the core fits m = ``n_features`` features of n = ``n_examples`` examples in
    the dual, through the n × n Gram matrix: n ≤ :data:`DUAL_MAX_EXAMPLES` and
    m ≥ max(n, n² / :data:`DUAL_RATIO`) (the module's notes give the measurements)."""
    return (n_examples <= DUAL_MAX_EXAMPLES
            and n_features >= max(n_examples, n_examples**2 / DUAL_RATIO))


def _cholesky_solve(matrix: np.ndarray, rhs: np.ndarray) -> np.ndarray | None:
    """Solve ``matrix · x = rhs`` for a symmetric positive definite ``matrix`` (overwritten);
    None if rounding leaves it indefinite."""
    factor, info = lapack.dpotrf(matrix, lower=0, clean=0, overwrite_a=1)
    if info != 0:
        return None
    solution, _ = lapack.dpotrs(factor, rhs, lower=0)
    return solution


def _curvature_product(X: np.ndarray, h: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``ZᵀD Z v`` for Z = [X, 1], D = diag(h), in one pass over X (single precision): row
    blocks of about :data:`_BLOCK_BYTES`, each multiplied twice while in cache."""
    n, m = X.shape
    rows = max(1, _BLOCK_BYTES // (X.itemsize * m))
    v_w, v_b = v[:m].astype(X.dtype), X.dtype.type(v[m])
    result = np.zeros(m + 1)
    for start in range(0, n, rows):
        block = X[start:start + rows]
        u = h[start:start + rows] * (block @ v_w + v_b)
        result[:m] += block.T @ u
        result[m] += u.sum(dtype=float)
    return result


def shrunk_gram(X: np.ndarray, shrunk_X: np.ndarray, scale: np.ndarray,
                gram: np.ndarray | None = None) -> np.ndarray:
    """The Gram matrix ``X'X'ᵀ`` of the shrunk features ``X' = X diag(scale)``
    (``shrunk_X``): ``X Xᵀ`` (``gram`` if already computed; never modified) corrected by
    ``X_S diag(scale_S² − 1) X_Sᵀ`` for the features S with ``scale ≠ 1`` when they are
    at most half of them — the stable set of a hybrid RFE —, so that ``X Xᵀ`` is computed
    once per sample whatever the shrinkage; otherwise ``X'X'ᵀ`` directly."""
    shrunk = np.flatnonzero(scale != 1.0)
    if shrunk.size > X.shape[1] // 2:
        return shrunk_X @ shrunk_X.T
    K = X @ X.T if gram is None else gram.copy()
    if shrunk.size:
        block = X[:, shrunk]
        K += (block * (scale[shrunk] ** 2 - 1.0)) @ block.T
    return K


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
        features by 1/β and the gradient with them), and the Newton step's below ``tol``
        times the norm of (w', b) (the distance to the optimum: the module's notes).
    max_iter : int
        Newton iterations per fit; a fit that does not converge warns
        (``ConvergenceWarning``).
    gram : array (n, n), optional
        ``X Xᵀ`` of the unshrunk features, if already computed (a training sample's
        :attr:`~paretostab.selectors.TrainingSample.distinct_gram`); never modified.

    Notes
    -----
    Should rounding leave a Newton system indefinite (a ``reg`` so small that 2λ/h is
    lost against K, which centred features make singular along 1), the dual hands
    ``w' = X'ᵀα`` to the primal for the rest of the model's fits, and a full Newton step
    is taken by conjugate gradients instead: the same optimum, never a ``LinAlgError``.

    The first Gram matrix ``K = X'X'ᵀ`` is ``X Xᵀ`` corrected by ``X_S diag(1/β_S² − 1)
    X_Sᵀ`` for the shrunk features S (β_f ≠ 1) when they are at most half of them — the
    stable set of a hybrid RFE —, so that ``X Xᵀ`` is computed once per sample whatever β;
    otherwise ``X'X'ᵀ`` directly. X' is X itself where β ≡ 1. The truncated Newton steps
    keep a single-precision copy of X' (half its size), compacted with it as features go.
    """

    def __init__(self, X: np.ndarray, y: np.ndarray, *, reg: float,
                 beta: np.ndarray | None = None, weights: np.ndarray | None = None,
                 tol: float, max_iter: int = 100, gram: np.ndarray | None = None):
        n, d = X.shape
        self._y = np.asarray(y, dtype=float)
        self._c = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
        self._reg = float(reg)
        self._max_iter = max_iter
        self._scale = np.ones(d) if beta is None else 1.0 / np.asarray(beta, dtype=float)
        # X' = X / β (X itself where β ≡ 1: the same numbers without a copy); dropped
        # columns stay stored (marked dead) until fewer than half are alive, so that each
        # column is copied O(1) times in all
        self._X = X if beta is None or np.all(self._scale == 1.0) else X * self._scale
        self._stored = np.arange(d)
        self._alive = np.ones(d, dtype=bool)
        self.features = np.arange(d)
        self._b = 0.0
        cy = self._c * self._y
        gradient_at_zero = np.append(self._X.T @ cy, cy.sum()) / 2
        self._gradient_scale = max(1.0, float(np.linalg.norm(gradient_at_zero)))
        self._tol = tol
        self._stop = tol * self._gradient_scale
        # the primal's truncated Newton
        self._column_norms: np.ndarray | None = None
        self._X32: np.ndarray | None = None
        # The state of one of the two solvers: the dual's (K, α), else the primal's w. The
        # other's is None; where a method runs in one of them, a cast says which (a cast
        # does nothing at run time).
        self._alpha: np.ndarray | None
        self._K: np.ndarray | None
        self._w: np.ndarray | None
        if solves_in_dual(n, d):
            self._alpha = np.zeros(n)
            self._K = shrunk_gram(X, self._X, self._scale, gram)
            self._w = None
        else:
            self._alpha = self._K = None
            self._w = np.zeros(d)

    # ------------------------------------------------------------------ public

    def fit(self) -> IncrementalL2Logistic:
        """Solve for the current features, warm-started from the previous solution."""
        converged = self._fit_dual() if self._K is not None else None
        if converged is None:
            converged = self._fit_primal()
        if not converged:
            warnings.warn(
                f"L2-logistic Newton did not reach gradient norm {self._stop:g} and a step of "
                f"{self._tol:g} of the weights' norm in {self._max_iter} iterations; raise "
                f"max_iter or tol.",
                ConvergenceWarning, stacklevel=3,
            )
        return self

    @property
    def coef(self) -> np.ndarray:
        """Weights of the current features in the unscaled space, ``w_f = w'_f / β_f``."""
        if self._K is not None:
            scaled = (self._X.T @ cast(np.ndarray, self._alpha))[self._alive]
        else:
            scaled = cast(np.ndarray, self._w)
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
            if not solves_in_dual(n, kept):
                self._leave_dual()
            elif dropped.size < kept:
                block = self._X[:, dropped]
                self._K -= block @ block.T
            else:
                block = self._X[:, self._alive]
                self._K = block @ block.T
        else:
            keep = np.ones(alive.size + 1, dtype=bool)  # the features and the intercept
            keep[positions] = False
            self._w = cast(np.ndarray, self._w)[keep[:-1]]
            if self._column_norms is not None:
                self._column_norms = self._column_norms[keep]
            if self._X32 is not None:
                self._X32 = self._X32.compress(keep[:-1], axis=1)  # rows stay contiguous
        if kept < self._alive.size / 2 or self._K is None:
            self._compact()
        self.features = self._stored[self._alive]

    # ------------------------------------------------------------- internals

    def _compact(self) -> None:
        """Keep only the current features' columns of X'."""
        if not self._alive.all():
            self._X = self._X[:, self._alive]
            self._stored = self._stored[self._alive]
            self._alive = np.ones(self._X.shape[1], dtype=bool)

    def _leave_dual(self) -> None:
        """To the primal: ``w' = X'ᵀα`` on the current features."""
        self._w = self._X[:, self._alive].T @ cast(np.ndarray, self._alpha)
        self._K = self._alpha = None
        self._compact()

    def _fit_dual(self) -> bool | None:
        """Damped Newton on (α, b) with margins ``f = Kα + b``.

        Direction: ``(DK + 2λI)Δα + D1Δb = −r``, ``1ᵀΔα = −1ᵀα``, with ``r = g + 2λα``;
        a solution solves the Newton system of (α, b), whose first block is K times the
        first equation, and keeps Σα = 0 (the stationarity of b). Divided by D it is the
        saddle-point system of the positive definite ``M = K + 2λD⁻¹``: one Cholesky
        factorisation, ``Δα = u − vΔb`` with ``Mu = −D⁻¹r``, ``Mv = 1``,
        ``Δb = (1ᵀu + 1ᵀα)/1ᵀv``. The gradient's norm in the primal is
        ``√(rᵀKr + (1ᵀg)²)``, the step's ``√(ΔαᵀKΔα + Δb²)``, the weights' ``√(αᵀKα + b²)``.
        None, with the model moved to the primal, if M is indefinite to rounding.
        """
        K, y, c, lam = cast(np.ndarray, self._K), self._y, self._c, self._reg
        n = y.size
        diagonal = np.arange(n) * (n + 1)
        alpha, b = cast(np.ndarray, self._alpha), self._b
        Ka = K @ alpha
        z = y * (Ka + b)
        objective = -c @ log_expit(z) + lam * alpha @ Ka
        converged = False
        for _ in range(self._max_iter):
            q = expit(-z)  # 1 − p, without its cancellation at large margins
            g = -c * y * q
            r = g + 2 * lam * alpha
            Kr = K @ r
            g_sum = g.sum()
            small_gradient = r @ Kr + g_sum * g_sum <= self._stop**2
            h = np.maximum(c * expit(z) * q, _MIN_CURVATURE)
            M = K.copy(order="F")
            M.flat[diagonal] += 2 * lam / h
            rhs = np.empty((n, 2), order="F")
            rhs[:, 0] = -r / h
            rhs[:, 1] = 1.0
            solution = _cholesky_solve(M, rhs)
            if solution is None:
                self._alpha, self._b = alpha, b
                self._leave_dual()
                return None
            u, v = solution.T
            step_b = (u.sum() + alpha.sum()) / v.sum()
            step_alpha = u - v * step_b
            K_step = K @ step_alpha
            if small_gradient and self._reached(step_alpha @ K_step + step_b * step_b,
                                                alpha @ Ka + b * b):
                converged = True
                break
            slope = Kr @ step_alpha + g_sum * step_b
            objective, alpha, b, Ka, z = self._line_search(
                objective, slope, alpha, b, Ka, step_alpha, step_b, K_step,
                lambda a, Ka_: lam * a @ Ka_)
        self._alpha, self._b = alpha, b
        return converged

    def _fit_primal(self) -> bool:
        """Damped Newton on (w', b) for the m current features, Z = [X', 1]: the direction
        solves ``H s = −∇`` with ``H = ZᵀDZ + 2λ diag(1, …, 1, 0)`` exactly (Cholesky of
        the (m+1)² Hessian, O(n m²)) while m ≤ :data:`FULL_NEWTON_MAX_FEATURES`, else
        approximately (:meth:`_truncated_newton_direction`, O(n m) per CG iteration, on a
        single-precision copy of X' made once per model) — also where rounding leaves H
        indefinite."""
        X = self._X  # compacted to the current features when in the primal
        y, c, lam = self._y, self._c, self._reg
        n, m = X.shape
        w, b = cast(np.ndarray, self._w), self._b
        Xw = X @ w
        z = y * (Xw + b)
        objective = -c @ log_expit(z) + lam * w @ w
        converged = False
        preconditioner = None
        for _ in range(self._max_iter):
            q = expit(-z)  # 1 − p, without its cancellation at large margins
            g = -c * y * q
            gradient = np.empty(m + 1)
            gradient[:m] = X.T @ g + 2 * lam * w
            gradient[m] = g.sum()
            small_gradient = bool(gradient @ gradient <= self._stop**2)
            h = c * expit(z) * q
            direction = (self._newton_direction(X, h, gradient)
                         if m <= FULL_NEWTON_MAX_FEATURES else None)
            if direction is not None:
                step, X_step = direction
            else:
                if self._X32 is None:
                    self._X32 = np.ascontiguousarray(X, dtype=np.float32)
                preconditioner = preconditioner or self._preconditioner(h)
                step, X_step = self._truncated_newton_direction(X, h, gradient, preconditioner,
                                                                small_gradient)
            if small_gradient and self._reached(step @ step, w @ w + b * b):
                converged = True
                break
            slope = gradient @ step
            objective, w, b, Xw, z = self._line_search(
                objective, slope, w, b, Xw, step[:m], step[m], X_step,
                lambda w_, _: lam * w_ @ w_)
        self._w, self._b = w, b
        return converged

    def _newton_direction(self, X: np.ndarray, h: np.ndarray,
                          gradient: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """The Newton step s, by a Cholesky factorisation of ``H = ZᵀDZ + 2λ diag(1, …, 1,
        0)``, D = diag(h), and ``X's_w``."""
        m = X.shape[1]
        diagonal = np.arange(m) * (m + 2)  # the w-block's diagonal in the (m+1)² Hessian
        Xh = X * h[:, None]
        H = np.empty((m + 1, m + 1), order="F")
        H[:m, :m] = X.T @ Xh
        H[:m, m] = H[m, :m] = Xh.sum(axis=0)
        H[m, m] = max(h.sum(), _MIN_CURVATURE)
        H.flat[diagonal] += 2 * self._reg
        solution = _cholesky_solve(H, gradient)
        if solution is None:
            return None
        step = -solution
        return step, X @ step[:m]

    def _preconditioner(self, h: np.ndarray):
        """``r ↦ P⁻¹r`` for the truncated Newton steps of a fit, from the curvatures h of
        its first iterate: while m ≤ min(:data:`HESSIAN_MAX_FEATURES`, n /
        :data:`HESSIAN_RATIO`), the Hessian there, ``P = ZᵀDZ + 2λ diag(1, …, 1,
        0)`` (ZᵀDZ in single precision, one Cholesky factorisation per fit: O(n m² + m³));
        otherwise, or should rounding leave P indefinite, the diagonal of ``h̄ ZᵀZ + 2λ
        diag(1, …, 1, 0)`` (Jacobi: h̄ the mean curvature, the columns' squared norms
        computed once per model)."""
        X = cast(np.ndarray, self._X32)  # made by the first truncated Newton step
        n, m = X.shape
        penalty = np.append(np.full(m, 2 * self._reg), 0.0)
        if m <= min(HESSIAN_MAX_FEATURES, n / HESSIAN_RATIO):
            h32 = h.astype(np.float32)
            weighted = X * np.sqrt(h32)[:, None]
            P = np.empty((m + 1, m + 1), order="F")
            P[:m, :m] = weighted.T @ weighted
            P[:m, m] = P[m, :m] = X.T @ h32
            P[m, m] = max(h.sum(), _MIN_CURVATURE)
            P.flat[:: m + 2] += penalty
            factor, info = lapack.dpotrf(P, lower=0, clean=0, overwrite_a=1)
            if info == 0:
                return lambda r: lapack.dpotrs(factor, r, lower=0)[0]
        if self._column_norms is None:
            self._column_norms = np.append(np.einsum("ij,ij->j", X, X, dtype=float), n)
        inverse = 1.0 / np.maximum(h.mean() * self._column_norms + penalty, _MIN_CURVATURE)
        return lambda r: inverse * r

    def _truncated_newton_direction(self, X: np.ndarray, h: np.ndarray, gradient: np.ndarray,
                                    preconditioner, final: bool) -> tuple[np.ndarray, np.ndarray]:
        """Truncated Newton (Dembo & Steihaug 1983; Nocedal & Wright 2006, Algorithm 7.1):
        the step s and ``X's_w``, ``H s = −∇`` solved by conjugate gradients with the
        ``preconditioner`` (:meth:`_preconditioner`), each iteration one product
        ``Hv = [X'ᵀu + 2λv_w, 1ᵀu]``, ``u = D(X'v_w + v_b)`` (one pass over the
        single-precision copy of X', :func:`_curvature_product`), stopped at the residual
        ``η‖∇‖``, ``η = min(1/2, √(‖∇‖ / scale))`` (superlinear convergence; at most
        :data:`CG_SWEEPS` · (m + 1) iterations: the module's notes), or at half
        the fit's stopping gradient norm — except for the ``final`` direction, at a
        gradient below it, whose length tells the distance to the optimum: on an
        ill-conditioned H a residual of half the stopping norm leaves a step short by
        up to that over H's smallest eigenvalue, and the fit would stop far from it."""
        X32 = cast(np.ndarray, self._X32)  # made by the first truncated Newton step
        m = X.shape[1]
        lam2 = 2 * self._reg
        h32 = h.astype(np.float32)
        norm = np.sqrt(gradient @ gradient)
        forcing = min(0.5, np.sqrt(norm / self._gradient_scale))
        target = forcing * norm if final else max(forcing * norm, self._stop / 2)
        step = np.zeros(m + 1)
        residual = -gradient
        preconditioned = preconditioner(residual)
        direction = preconditioned
        rho = residual @ preconditioned
        for _ in range(CG_SWEEPS * (m + 1)):
            product = _curvature_product(X32, h32, direction)
            product[:m] += lam2 * direction[:m]
            length = rho / (direction @ product)
            step += length * direction
            residual -= length * product
            if residual @ residual <= target**2:
                break
            preconditioned = preconditioner(residual)
            rho, previous = residual @ preconditioned, rho
            direction = preconditioned + (rho / previous) * direction
        return step, X @ step[:m]

    def _reached(self, step_squared: float, params_squared: float) -> bool:
        """Whether a Newton step of squared norm ``step_squared`` is within ``tol`` of the
        parameters' norm: the iterate is the optimum to that (the module's notes)."""
        return step_squared <= self._tol**2 * params_squared

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
