"""Hand-made RunSets for the tests of the stability maps and their overview: one from given
selection and importance matrices, and one drawn at random with features of uneven
popularity."""

from __future__ import annotations

import numpy as np

from paretostab._runset import RunSet

__all__ = ["make_runset", "random_runset"]


def make_runset(Z, I=None, names=None) -> RunSet:
    """The RunSet of selection matrix ``Z`` (runs × features) and importance matrix ``I``
    (by default ``Z`` as numbers), every run scoring 0.8."""
    Z = np.asarray(Z, dtype=bool)
    I = Z.astype(float) if I is None else np.asarray(I, dtype=float)
    M = Z.shape[0]
    return RunSet(selection_matrix=Z, importance_matrix=I, rank_matrix=None,
                  scores=np.full(M, 0.8), seeds=np.arange(M, dtype=np.uint32),
                  fit_seconds=np.zeros(M), metric="accuracy", resampling="bootstrap",
                  selector="Test", params={}, feature_names=names)


def random_runset(seed, M=12, d=30, k=(2, 8), names=None) -> RunSet:
    """``M`` runs over ``d`` features, each selecting between ``k[0]`` and ``k[1] - 1``
    features drawn by a Dirichlet popularity (a few features often, most rarely), with
    exponential importances."""
    rng = np.random.default_rng(seed)
    popularity = rng.dirichlet(np.full(d, 0.3))
    Z = np.zeros((M, d), dtype=bool)
    for i in range(M):
        Z[i, rng.choice(d, size=rng.integers(*k), replace=False, p=popularity)] = True
    I = np.where(Z, rng.exponential(size=(M, d)), 0.0)
    return make_runset(Z, I, names)
