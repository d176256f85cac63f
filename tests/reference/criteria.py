"""Plain definitions of two selection criteria: Welch (1951)'s ANOVA F of one feature, and
Breiman's out-of-bag permutation importance of a fitted forest.

Ground truth for the tests of the filters, the forest and the RFE family (two classes and
K): written straight from the definitions, one feature, tree and permutation at a time,
with no shared code with the package.
"""

from __future__ import annotations

import numpy as np

__all__ = ["oob_reference", "welch_anova_loop"]


def welch_anova_loop(x, y):
    """Welch (1951)'s F, transliterated for one feature without degenerate classes."""
    groups = [x[y == c] for c in np.unique(y)]
    K = len(groups)
    n = np.array([g.size for g in groups], dtype=float)
    mean = np.array([g.mean() for g in groups])
    w = n / np.array([g.var(ddof=1) for g in groups])
    centre = np.sum(w * mean) / np.sum(w)
    between = np.sum(w * (mean - centre) ** 2) / (K - 1)
    lam = np.sum((1 - w / np.sum(w)) ** 2 / (n - 1))
    return between / (1 + 2 * (K - 2) / (K * K - 1) * lam)


def oob_reference(forest, X, y, rng):
    """Breiman's OOB permutation importance with sklearn's tree.predict on permuted copies
    (the same permutation stream: per tree, per split feature in increasing order)."""
    n, d = X.shape
    total = np.zeros(d)
    for tree, in_bag in zip(forest.estimators_, forest.estimators_samples_, strict=True):
        oob = np.setdiff1d(np.arange(n), in_bag)
        internal = tree.tree_.children_left >= 0
        features = np.unique(tree.tree_.feature[internal])
        if oob.size == 0 or features.size == 0:
            continue
        accuracy = np.mean(tree.predict(X[oob]) == y[oob])
        for f in features:
            permuted = X[oob].copy()
            permuted[:, f] = X[oob[rng.permutation(oob.size)], f]
            total[f] += accuracy - np.mean(tree.predict(permuted) == y[oob])
    return total / len(forest.estimators_)
