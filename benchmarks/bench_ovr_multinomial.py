"""The multi-class RFE's model: one-vs-rest binary L2-logistics (the package's choice) or
one multinomial L2-logistic, in the same elimination.

Run from the repository root::

    python benchmarks/bench_ovr_multinomial.py     # wine and a K = 4 simulation, 10 runs

Three eliminations, all with step 0.2 of the remaining features, the class-weight norm
√Σ_k w_kf² as the criterion (Guyon et al. 2002), λ = 1 (``C = 1/(2λ)``), on the same
bootstrap samples, scored by the out-of-bag accuracy of their final model:

* paretostab's ``HybridRFE`` (K one-vs-rest problems on its incremental Newton core);
* the same one-vs-rest models fitted by scikit-learn's ``LogisticRegression`` (lbfgs,
  ``tol=1e-8``), refitted at each step;
* one multinomial ``LogisticRegression`` (lbfgs, ``tol=1e-8``) refitted at each step.

Data: scikit-learn's wine (K = 3, d = 13, n = 178, k = 4) and a simulation (K = 4,
d = 2 000, n = 120, 12 informative features whose class centres are drawn N(0, 1.2²),
k = 12). BLAS is limited to one thread. Prints a Markdown table: mean seconds per run, OOB
accuracy, informative features kept (simulation).
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import load_wine
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from paretostab._importance import class_weight_norm  # noqa: E402
from paretostab.selectors import HybridRFE  # noqa: E402
from paretostab.selectors._rfe import n_dropped  # noqa: E402

INFORMATIVE = 12


def sklearn_rfe(X, y, k, *, ovr: bool, reg: float = 1.0, step: float = 0.2):
    """The elimination with scikit-learn's models refitted at each step: the kept
    features and the final model (a list of K binary models with ``ovr``)."""
    def fit(features):
        if ovr:
            models = [LogisticRegression(C=1 / (2 * reg), tol=1e-8, max_iter=1000)
                      .fit(X[:, features], y == c) for c in np.unique(y)]
            return np.vstack([m.coef_ for m in models]), models
        model = LogisticRegression(C=1 / (2 * reg), tol=1e-8, max_iter=1000).fit(
            X[:, features], y)
        return model.coef_, model

    features = np.arange(X.shape[1])
    while features.size > k:
        coef, _ = fit(features)
        order = np.argsort(-class_weight_norm(coef), kind="stable")
        features = np.sort(features[order[: features.size - n_dropped(step, features.size, k)]])
    return features, fit(features)[1]


def simulate(rng, K=4, d=2000, n=120):
    y = np.arange(n) % K
    X = rng.normal(size=(n, d))
    X[:, :INFORMATIVE] += rng.normal(scale=1.2, size=(K, INFORMATIVE))[y]
    return X, y


def run(name: str, X, y, k: int, runs: int = 10) -> None:
    rng = np.random.default_rng(0)
    methods = ("paretostab HybridRFE (one-vs-rest)", "scikit-learn one-vs-rest",
               "scikit-learn multinomial")
    out = {m: ([], [], []) for m in methods}
    for _ in range(runs):
        train = rng.integers(0, len(y), len(y))
        oob = np.setdiff1d(np.arange(len(y)), train)
        mean, sd = X[train].mean(0), X[train].std(0)
        sd[sd == 0] = 1
        Xs, Xo = (X[train] - mean) / sd, (X[oob] - mean) / sd
        start = time.perf_counter()
        model = HybridRFE(n_features=k).fit(X[train], y[train])
        seconds, predicted, kept = (time.perf_counter() - start, model.predict(X[oob]),
                                    np.flatnonzero(model.support_))
        results = [(methods[0], seconds, predicted, kept)]
        for label, ovr in ((methods[1], True), (methods[2], False)):
            start = time.perf_counter()
            kept, final = sklearn_rfe(Xs, y[train], k, ovr=ovr)
            seconds = time.perf_counter() - start
            if ovr:
                predicted = np.unique(y)[np.argmax(np.column_stack(
                    [m.decision_function(Xo[:, kept]) for m in final]), axis=1)]
            else:
                predicted = final.predict(Xo[:, kept])
            results.append((label, seconds, predicted, kept))
        for label, seconds, predicted, kept in results:
            out[label][0].append(seconds)
            out[label][1].append(np.mean(predicted == y[oob]))
            out[label][2].append(np.sum(kept < INFORMATIVE))
    for label, (times, accuracy, found) in out.items():
        informative = f"{np.mean(found):.1f} / {INFORMATIVE}" if name.startswith("sim") else ""
        print(f"| {name} | {label} | {np.mean(times):.3f} | {np.mean(accuracy):.3f} | "
              f"{informative} |")


def main() -> None:
    warnings.filterwarnings("ignore")
    print("| data | model | s per run | OOB accuracy | informative kept |")
    print("|---|---|---|---|---|")
    with threadpool_limits(1):  # as bench_rfe.py: the methods' own work, not the BLAS threads'
        run("wine (K = 3, d = 13, n = 178), k = 4", *load_wine(return_X_y=True), 4)
        run("simulated (K = 4, d = 2 000, n = 120), k = 12",
            *simulate(np.random.default_rng(1)), 12)


if __name__ == "__main__":
    main()
