"""Simulated two-class problems for the selectors' tests, shared by the test modules of
the linear selectors, of the protocol's memory and of complementary pairs."""

from __future__ import annotations

import numpy as np

__all__ = ["problem"]


def problem(seed, n=60, d=300, informative=5, effect=1.0):
    """``n`` examples of ``d`` features on various scales and offsets; the class is 1
    where the first ``informative`` features, each divided by its standard deviation and
    weighted by ``effect``, sum with unit Gaussian noise to more than 0."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 3, size=d) + rng.normal(size=d)
    score = X[:, :informative] / X[:, :informative].std(0) @ np.full(informative, effect)
    y = (score + rng.normal(size=n) > 0).astype(int)
    return X, y
