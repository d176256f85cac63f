"""The bundled example behind ``python -m paretostab measures``.

M bootstrap runs of a top-k Welch-t filter on scikit-learn's breast-cancer data (569
examples, 30 features, shipped with scikit-learn: no download). It is a demonstration of
the measures on real selections, not a selector of the package: the selectors and the
resampling protocol are their own modules.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer

from paretostab._similarity import FeatureSimilarity
from paretostab.measures import get_measure, list_measures, stability


@dataclass(frozen=True)
class ExampleRuns:
    """Selections of M runs: Z (M×d bool), importances I, full rankings R, the data X."""

    selection_matrix: np.ndarray
    importance_matrix: np.ndarray
    rank_matrix: np.ndarray
    X: np.ndarray
    feature_names: list[str]


def welch_t_filter_runs(*, runs: int = 30, k: int = 5, random_state: int = 0) -> ExampleRuns:
    """Select the ``k`` features of largest |Welch t| on each of ``runs`` bootstrap samples."""
    data = load_breast_cancer()
    X, y = data.data, data.target
    n, d = X.shape
    rng = np.random.default_rng(random_state)
    Z = np.zeros((runs, d), dtype=bool)
    I = np.zeros((runs, d))
    R = np.zeros((runs, d), dtype=np.int64)
    for i in range(runs):
        sample = rng.integers(0, n, size=n)
        Xb, yb = X[sample], y[sample]
        a, b = Xb[yb == 0], Xb[yb == 1]
        t = np.abs(a.mean(0) - b.mean(0)) / np.sqrt(
            a.var(0, ddof=1) / len(a) + b.var(0, ddof=1) / len(b)
        )
        order = np.argsort(-t, kind="stable")
        R[i, order] = np.arange(1, d + 1)
        Z[i, order[:k]] = True
        I[i, order[:k]] = t[order[:k]]
    return ExampleRuns(Z, I, R, X, list(data.feature_names))


def measures_table(runs: int, k: int, seed: int, threshold: float) -> pd.DataFrame:
    """Every registered measure of :func:`welch_t_filter_runs` (``runs``, ``k``, ``seed``):
    its value, input, bounds, seconds and any warning, with |Spearman| similarity where a
    measure needs one and ``threshold`` for the adjusted measures (``python -m paretostab
    measures``)."""
    example = welch_t_filter_runs(runs=runs, k=k, random_state=seed)
    similarity = FeatureSimilarity(example.X, "spearman")
    inputs = {
        "selection": example.selection_matrix,
        "importance": example.importance_matrix,
        "ranking": example.rank_matrix,
    }
    rows = []
    for name in list_measures().index:
        info = get_measure(name)
        kwargs: dict = {}
        if info.needs_similarity:
            kwargs["similarity"] = similarity
        if info.options.get("threshold", None) is not None:
            kwargs["threshold"] = threshold
        if "k" in info.options:
            kwargs["k"] = k
        start = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = stability(name, inputs[info.input], **kwargs)
        rows.append({
            "measure": name,
            "value": value,
            "input": info.input,
            "bounds": f"[{info.lower:g}, {info.upper:g}]",
            "seconds": time.perf_counter() - start,
            "note": "; ".join(str(w.message) for w in caught),
        })
    return pd.DataFrame(rows).set_index("measure")
