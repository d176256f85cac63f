"""Simulated K-class problems and the selectors fitted to them (issue 20), shared by the
multi-class test modules of the filters, the lasso family and the RFE family, and by the
protocol's test of every metric with K classes (``tests/test_protocol.py``).

Each family has its own classes, informative features and selectors: the filters, the
forest and ReliefF (``filter_*``), the multinomial lasso family (``linear_*``) and the RFE
family (``rfe_*``).
"""

from __future__ import annotations

import numpy as np

from paretostab.selectors import (
    SELECTORS,
    MIMSelector,
    MRMRSelector,
    RandomForestSelector,
    ReliefSelector,
    TTestSelector,
)

__all__ = ["FILTER_INFORMATIVE", "LINEAR_INFORMATIVE", "RFES", "RFE_INFORMATIVE",
           "filter_classes", "filter_selectors", "linear_classes", "rfe_classes", "rfe_selector"]

FILTER_INFORMATIVE = (2, 5, 11, 17)
LINEAR_INFORMATIVE = 5
RFES = ("hybrid_rfe", "logistic_rfe", "svm_rfe", "biased_rfe", "kernel_svm_rfe")
RFE_INFORMATIVE = 6


def filter_classes(n_classes=4, n_per_class=30, d=24, shift=2.5, seed=0):
    """Classes whose means differ on the FILTER_INFORMATIVE features only (class c is
    shifted by ``shift`` on feature FILTER_INFORMATIVE[c mod 4]), unit Gaussian noise."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), n_per_class)
    X = rng.standard_normal((y.size, d))
    for c in range(n_classes):
        X[y == c, FILTER_INFORMATIVE[c % 4]] += shift
    return X, y


def filter_selectors(k=4):
    """name → a new selector of ``k`` features, for the filters, the forest and ReliefF."""
    return {
        "t_test": TTestSelector(n_features=k),
        "mim": MIMSelector(n_features=k),
        "mim_knn": MIMSelector(n_features=k, estimator="knn", random_state=0),
        "mrmr": MRMRSelector(n_features=k),
        "mrmr_spearman": MRMRSelector(n_features=k, correlation="spearman"),
        "random_forest": RandomForestSelector(n_features=k, n_trees=60, random_state=0),
        "relief": ReliefSelector(n_features=k),
    }


def linear_classes(seed: int, *, n_classes: int = 3, n: int = 90, d: int = 60,
                   shift: float = 2.0):
    """K classes whose means differ on the first LINEAR_INFORMATIVE features (each one's
    class means a permutation of K levels evenly spaced in [−shift, shift]), noise
    elsewhere; string labels. Features on different scales (the selectors standardise)."""
    rng = np.random.default_rng(seed)
    index = np.arange(n) % n_classes
    levels = np.repeat(np.linspace(-shift, shift, n_classes)[:, None], LINEAR_INFORMATIVE,
                       axis=1)
    X = rng.normal(size=(n, d))
    X[:, :LINEAR_INFORMATIVE] += rng.permuted(levels, axis=0)[index]
    X = X * rng.uniform(0.5, 3, size=d) + rng.normal(size=d)
    return X, np.array([f"class {k}" for k in "abcdefgh"[:n_classes]])[index]


def rfe_classes(seed: int, *, n_classes: int = 4, n: int = 80, d: int = 60):
    """K classes whose means differ on the first RFE_INFORMATIVE features (each one's class
    means a permutation of K points evenly spaced in [−2, 2]), noise elsewhere (labels
    are strings: the classes need not be numbers)."""
    rng = np.random.default_rng(seed)
    index = np.arange(n) % n_classes
    levels = np.repeat(np.linspace(-2, 2, n_classes)[:, None], RFE_INFORMATIVE, axis=1)
    centres = rng.permuted(levels, axis=0)
    X = rng.normal(size=(n, d))
    X[:, :RFE_INFORMATIVE] += centres[index]
    return X, np.array([f"class {k}" for k in "abcdefgh"[:n_classes]])[index]


def rfe_selector(name: str, k: int = RFE_INFORMATIVE, **params):
    """The registered selector; the kernel SVM-RFE with Guyon's signed criterion (eq. 8's
    absolute value also drops, with two classes as well, informative features whose
    removal lowers W² less than a noise feature's raises it)."""
    fixed = {"hybrid_rfe": {"n_stable": 2, "criterion": "welch_t"},
             "kernel_svm_rfe": {"criterion": "signed"}}.get(name, {})
    return SELECTORS[name].make(n_features=k, **{**fixed, **params})
