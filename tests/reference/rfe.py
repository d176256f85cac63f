"""Plain hybrid RFE (003 §6.1, Algorithm 1) on scikit-learn's ``LogisticRegression``.

Ground truth for ``tests/test_rfe_reference.py`` and the baseline of
``benchmarks/bench_rfe.py``: written straight from the paper and SPEC §3, with no shared
code with the package. Every elimination step refits
``LogisticRegression(solver="lbfgs", C=1/(2·reg))`` from scratch on the remaining features
rescaled by ``1/β`` (differential shrinkage, SPEC §3), so that

    Σ_i log(1 + exp(−y_i(w·x_i + b))) + reg·‖β⊙w‖²        (unpenalised intercept b)

is minimised with ``w_f = w'_f / β_f``. Each step drops
``min(max(1, floor(step·|F|)), |F| − k)`` of the *remaining* features outside ``S_N``
with the smallest ``|w_f|`` (ties: the higher feature index goes first). This is not
scikit-learn's ``RFE(step=0.2)``, which drops 20 % of the *original* count at each step.

Also here: ``simulate`` (the seeded simulated problem shared by the test and the benchmark)
and ``bootstrap_indices``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression


def standardise(X_train: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column means and scales of the training data: mean 0, unit (population) variance.

    A constant column gets scale ``inf``, so that it becomes 0 after ``(X − mean)/scale``.
    """
    X_train = np.asarray(X_train, dtype=float)
    mean = X_train.mean(axis=0)
    scale = X_train.std(axis=0)  # ddof = 0, as scikit-learn's StandardScaler
    constant = np.all(X_train == X_train[0], axis=0)
    scale[constant] = np.inf
    return mean, scale


def univariate_scores(X: np.ndarray, y: np.ndarray, criterion: str) -> np.ndarray:
    """The univariate criterion on the raw data, larger = better."""
    X = np.asarray(X, dtype=float)
    if criterion == "variance":
        return X.var(axis=0, ddof=1)
    if criterion == "welch_t":
        classes = np.unique(y)
        if len(classes) != 2:
            raise ValueError("welch_t needs two classes")
        A, B = X[y == classes[1]], X[y == classes[0]]
        spread = np.sqrt(A.var(axis=0, ddof=1) / len(A) + B.var(axis=0, ddof=1) / len(B))
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.abs(A.mean(axis=0) - B.mean(axis=0)) / spread
        return np.where(spread > 0, t, 0.0)
    raise ValueError(f"unknown criterion {criterion!r}")


def _logistic(X: np.ndarray, y: np.ndarray, reg: float, tol: float, max_iter: int,
              counter: dict | None) -> LogisticRegression:
    model = LogisticRegression(solver="lbfgs", C=1.0 / (2.0 * reg), tol=tol, max_iter=max_iter)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    if counter is not None:
        counter["fits"] = counter.get("fits", 0) + 1
        counter["not_converged"] = counter.get("not_converged", 0) + int(
            model.n_iter_[0] >= max_iter)
        counter["iterations"] = counter.get("iterations", 0) + int(model.n_iter_[0])
    return model


def reference_hybrid_rfe(X, y, *, n_features: int, n_stable: int = 0, epsilon: float = 1.0,
                         reg: float = 1.0, final_reg: float = 1.0, step: float = 0.2,
                         criterion: str = "variance", tol: float = 1e-4, max_iter: int = 100,
                         counter: dict | None = None) -> dict:
    """Algorithm 1 of 003, plainly.

    Returns a dict: ``support`` (sorted indices of the kept features), ``coef`` (the final
    model's weights on those features, in that order, on standardised data), ``intercept``,
    ``stable`` (the indices of S_N), ``model`` (the final ``LogisticRegression``), ``mean``
    and ``scale`` (the standardisation). ``counter``, if given, accumulates the number of
    logistic fits, of fits that stopped at ``max_iter``, and of L-BFGS iterations.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    d = X.shape[1]
    k = n_features
    if not 0 <= n_stable <= k <= d:
        raise ValueError("need 0 <= n_stable <= n_features <= d")

    # lines 3–5: univariate rank on the raw data, the stable set, the shrinkage factors
    scores = univariate_scores(X, y, criterion)
    order = sorted(range(d), key=lambda f: (-scores[f], f))  # descending, lower index first
    stable = set(order[:n_stable])
    beta = np.array([epsilon if f in stable else 1.0 for f in range(d)])

    mean, scale = standardise(X)
    Xs = (X - mean) / scale

    # lines 6–9: recursive elimination
    F = list(range(d))
    while len(F) > k:
        model = _logistic(Xs[:, F] / beta[F], y, reg, tol, max_iter, counter)
        w = model.coef_[0] / beta[F]
        weight = {f: abs(w[j]) for j, f in enumerate(F)}
        candidates = [f for f in F if f not in stable]
        # smallest |w| first; among equal |w| the higher index is dropped first
        candidates.sort(key=lambda f: (weight[f], -f))
        n_drop = min(max(1, math.floor(step * len(F))), len(F) - k)
        dropped = set(candidates[:n_drop])
        F = [f for f in F if f not in dropped]

    # line 10: the final model, no differential shrinkage
    final = _logistic(Xs[:, F], y, final_reg, tol, max_iter, counter)
    return {"support": np.array(F), "coef": final.coef_[0].copy(),
            "intercept": float(final.intercept_[0]), "stable": np.array(sorted(stable), int),
            "model": final, "mean": mean, "scale": scale}


def reference_predict(result: dict, X) -> np.ndarray:
    """Predictions of the reference's final model on new (raw) data."""
    X = np.asarray(X, dtype=float)
    F = result["support"]
    return result["model"].predict((X[:, F] - result["mean"][F]) / result["scale"][F])


def simulate(n: int = 102, d: int = 2_000, *, n_informative: int = 10, block_size: int = 10,
             n_blocks: int = 20, shift: float = 1.0, seed: int = 0):
    """A seeded two-class problem with ``n`` examples (balanced) and ``d`` features.

    ``n_informative`` features carry a class-mean shift ``±shift/2`` (some stronger than
    others); ``n_blocks`` blocks of ``block_size`` features share a latent factor
    (within-block correlation ≈ 0.8), the first blocks built around informative features so
    that the multivariate selection has real choices to make; everything else is noise.
    Features have random scales (log-normal, ×3 for the informative ones), so that the
    raw-data variance ranking favours informative features without being their ordering. Returns ``X`` (n×d) and ``y`` in {0, 1}.
    """
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    rng.shuffle(y)
    X = rng.normal(size=(n, d))
    features = rng.permutation(d)
    informative = features[:n_informative]
    sign = np.where(y == 1, 0.5, -0.5)[:, None]
    strength = shift * np.linspace(1.5, 0.5, n_informative)
    X[:, informative] += sign * strength
    rest = features[n_informative:]
    for b in range(n_blocks):
        members = rest[b * (block_size - 1):(b + 1) * (block_size - 1)]
        if b < n_informative // 2:  # a block around an informative feature
            anchor = X[:, informative[b]]
        else:
            anchor = rng.normal(size=n)
        anchor = (anchor - anchor.mean()) / anchor.std()
        X[:, members] = 2 * anchor[:, None] + rng.normal(size=(n, len(members)))
        X[:, members] /= np.sqrt(5.0)
    scales = np.exp(rng.normal(scale=0.5, size=d))
    scales[informative] *= 3.0  # informative features tend to vary more (as genes do)
    return X * scales, y


def bootstrap_indices(y: np.ndarray, runs: int, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """``runs`` bootstrap samples (both classes present) with their out-of-bag complements."""
    rng = np.random.default_rng(seed)
    n = len(y)
    samples = []
    while len(samples) < runs:
        train = rng.integers(0, n, size=n)
        oob = np.setdiff1d(np.arange(n), train)
        if len(np.unique(y[train])) == 2 and len(oob) > 0:
            samples.append((train, oob))
    return samples
