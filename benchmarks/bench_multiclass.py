"""Multi-class selection: paretostab's selectors against plain scikit-learn equivalents.

Run from the repository root::

    python benchmarks/bench_multiclass.py              # K = 4, n = 160, d = 2 000, M = 20
    python benchmarks/bench_multiclass.py --quick      # d = 500, M = 5 (a smoke run)

Setting: a simulated K-class problem — K = 4 classes of 40 examples, d features of which
8 are informative (each class's mean is shifted on two of them), the rest standard normal
noise — k = 20 features selected, M stratified bootstrap runs. On each run every method is
fitted on the bootstrap sample and scored (accuracy) on the out-of-bag examples; the
methods share the samples and are interleaved run by run, BLAS limited to one thread.

* ``logistic_rfe``: paretostab's ``HybridRFE(n_stable=0)`` (one-vs-rest L2-logistic
  problems, Guyon's Σ_k w_kf² criterion) against scikit-learn's ``RFE`` around a
  ``LogisticRegression`` (lbfgs, multinomial, ``C = 1/(2λ)``, default tolerance) with
  ``step=0.2``: paretostab drops 20 % of the *remaining* features per step (the papers'
  rule: 21 steps from 2 000 to 20), scikit-learn 20 % of the original count (5 steps);
  and paretostab with ``step=0.6``, whose 5 steps match scikit-learn's count.
* ``t_test`` (Welch's ANOVA F for K > 2) + the L2-logistic final model against
  ``SelectKBest(f_classif)`` + ``LogisticRegression``.
* ``lasso`` (the multinomial logistic with glmnet's grouped penalty, λ chosen per fit to
  select k features) + an L2-logistic refit against
  ``SelectFromModel(LogisticRegression(l1_ratio=1.0, solver="saga", C = 10))`` (the
  ungrouped multinomial lasso) keeping the top k by the L1 norm of each feature's class
  weights, + ``LogisticRegression``.

Reported per method: the median wall time of one run's fit and the ratio of the
scikit-learn time to paretostab's, the mean out-of-bag accuracy (of the method's own final
model, and of one multinomial logistic refitted on its features: what its selection
alone is worth, untimed), Nogueira's φ of the M
selected sets, and the mean share of the 8 informative features selected. Prints a
Markdown table.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.feature_selection import RFE, SelectFromModel, SelectKBest, f_classif
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from paretostab import stability  # noqa: E402
from paretostab.selectors import get_selector  # noqa: E402

K, PER_CLASS, INFORMATIVE, SELECTED, REG = 4, 40, 8, 20, 1.0


def simulate(d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """K classes of PER_CLASS examples; class c's mean is shifted by 1.5 on features 2c and
    2c + 1 (8 informative features for K = 4); the rest is noise."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(K), PER_CLASS)
    X = rng.standard_normal((y.size, d))
    for c in range(K):
        X[y == c, 2 * c: 2 * c + 2] += 1.5
    return X, y


def bootstrap(y: np.ndarray, rng) -> tuple[np.ndarray, np.ndarray]:
    train = np.concatenate([rng.choice(np.flatnonzero(y == c), size=(y == c).sum())
                            for c in np.unique(y)])
    return train, np.setdiff1d(np.arange(y.size), train)


def paretostab_method(name: str, **params):
    def fit(X, y):
        model = get_selector(name).make(**params).fit(X, y)
        return model, model.support_
    return fit


def sklearn_method(make):
    def fit(X, y):
        model = make().fit(X, y)
        return model, model[0].get_support()
    return fit


def refit_accuracy(X, y, train, test, support) -> float:
    """The out-of-bag accuracy of one final model for every method: scikit-learn's
    multinomial ``LogisticRegression`` (λ = REG, tight tolerance) on the selected features,
    standardised on the training sample — what the selection alone is worth."""
    kept = np.flatnonzero(support)
    scaler = StandardScaler().fit(X[np.ix_(train, kept)])
    model = LogisticRegression(C=1 / (2 * REG), tol=1e-8, max_iter=5000).fit(
        scaler.transform(X[np.ix_(train, kept)]), y[train])
    return float(np.mean(model.predict(scaler.transform(X[np.ix_(test, kept)])) == y[test]))


def logistic(**params):
    return LogisticRegression(C=1 / (2 * REG), max_iter=1000, **params)


METHODS = {
    "logistic_rfe": (paretostab_method("logistic_rfe", n_features=SELECTED, reg=REG,
                                       final_reg=REG),
                     sklearn_method(lambda: make_pipeline(
                         RFE(logistic(), n_features_to_select=SELECTED, step=0.2),
                         logistic()))),
    "logistic_rfe, step = 0.6 (5 steps)": (
        paretostab_method("logistic_rfe", n_features=SELECTED, reg=REG, final_reg=REG,
                          step=0.6),
        sklearn_method(lambda: make_pipeline(
            RFE(logistic(), n_features_to_select=SELECTED, step=0.2), logistic()))),
    "t_test (Welch's ANOVA F)": (paretostab_method("t_test", n_features=SELECTED, final_reg=REG),
                         sklearn_method(lambda: make_pipeline(
                             SelectKBest(f_classif, k=SELECTED), logistic()))),
    "lasso, k̄ = 20": (paretostab_method("lasso", target_features=SELECTED, final_reg=REG),
                       sklearn_method(lambda: make_pipeline(
                           SelectFromModel(LogisticRegression(l1_ratio=1.0, solver="saga",
                                                              C=1 / (2 * 0.05), max_iter=2000),
                                           max_features=SELECTED, threshold=-np.inf),
                           logistic()))),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    d, runs = (500, 5) if args.quick else (2000, 20)
    X, y = simulate(d)
    rng = np.random.default_rng(1)
    samples = [bootstrap(y, rng) for _ in range(runs)]
    results = {(method, side): {"seconds": [], "accuracy": [], "support": [], "refit": []}
               for method in METHODS for side in ("paretostab", "scikit-learn")}
    with threadpool_limits(1):
        for train, test in samples:
            for method, fits in METHODS.items():
                for side, fit in zip(("paretostab", "scikit-learn"), fits, strict=True):
                    start = time.perf_counter()
                    model, support = fit(X[train], y[train])
                    seconds = time.perf_counter() - start
                    entry = results[(method, side)]
                    entry["seconds"].append(seconds)
                    entry["accuracy"].append(float(np.mean(model.predict(X[test]) == y[test])))
                    entry["support"].append(np.asarray(support, dtype=bool))
                    entry["refit"].append(refit_accuracy(X, y, train, test, support))
    print(f"K = {K} classes, n = {y.size}, d = {d}, k = {SELECTED}, M = {runs} bootstrap "
          f"runs, one BLAS thread\n")
    print("| method | implementation | median s per fit | scikit-learn / paretostab | "
          "OOB accuracy | the same, multinomial refit | φ (Nogueira) | informative found |")
    print("|---|---|---|---|---|---|---|---|")
    for method in METHODS:
        ours = statistics.median(results[(method, "paretostab")]["seconds"])
        for side in ("paretostab", "scikit-learn"):
            entry = results[(method, side)]
            median = statistics.median(entry["seconds"])
            Z = np.array(entry["support"])
            found = Z[:, :2 * K].mean()
            ratio = "1" if side == "paretostab" else f"{median / ours:.2f}"
            print(f"| {method} | {side} | {median:.4f} | {ratio} | "
                  f"{np.mean(entry['accuracy']):.3f} | {np.mean(entry['refit']):.3f} | "
                  f"{stability('nogueira', Z):.3f} | "
                  f"{found:.2f} |")


if __name__ == "__main__":
    main()
