"""ReliefF and the random forest at larger n (issue 21, point 4).

Run from the repository root::

    python benchmarks/bench_relief.py                      # --part instances
    python benchmarks/bench_relief.py --part reference     # n = 10 000, d = 2 000

Setting: a simulated problem (5 informative features among d, standard normal noise,
two classes, ``--classes`` for more), one BLAS thread.

``--part instances``: one ``ReliefSelector(n_features=20)`` fit on all n examples.
``n_instances=None`` is ReliefF over every example (the papers' algorithm, O(n² d));
the default ``n_instances=1000`` samples m = 1 000 instances (Robnik-Šikonja &
Kononenko 2003), O(m n d), in blocks of 256. Reported: the wall seconds of the fit, the
peak memory traced during it (``tracemalloc``: NumPy and Python allocations), and how
many of the 5 informative features each keeps.

``--part reference``: a fit of ours against a well-kept reference in the same run, the
seconds of each and their ratio (a trial is M such fits, so the per-fit ratio is the
trial's): ``ReliefSelector(n_features=20)`` (ReliefF on m = 1 000 sampled instances,
the 5-NN, its decision-flip importance on the same instances) against skrebate's
``ReliefF(n_features_to_select=20, n_neighbors=5)`` — which uses every instance, O(n² d)
— followed by the same 5-NN's fit on its 20 features (skrebate is a benchmark-only
comparison, ``pip install skrebate``; its row is skipped, saying so, when it is absent).
skrebate is measured at ``--skrebate-sizes`` (default: n itself); when they are not n,
its seconds at n are extrapolated as ``t(n) = t(n₁) (n / n₁)^b`` with b the exponent
measured between the two largest sizes. Then ``RandomForestSelector(n_features=20,
n_trees=T)`` (two forests and their OOB permutation importances) against scikit-learn's
``RandomForestClassifier(n_estimators=T, n_jobs=1)`` fit and its
``feature_importances_``; both grow linearly in T, so ``--trees`` (default 100) keeps
the ratio of the default T = 1 000.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.neighbors import KNeighborsClassifier
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from paretostab.selectors import RandomForestSelector, ReliefSelector  # noqa: E402


def simulate(n: int, d: int, classes: int = 2,
             seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Feature f < 5 shifted by 0.8 in class 1 + (f mod (K − 1)) (two classes: class 1)."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % classes
    X = rng.standard_normal((n, d))
    X[:, :5] += 0.8 * (y[:, None] == (np.arange(5) % (classes - 1)) + 1)
    return X, y


def measure(selector: ReliefSelector, X, y) -> tuple[float, float, int]:
    tracemalloc.start()
    start = time.perf_counter()
    selector.fit(X, y)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak / 2**20, int(selector.support_[:5].sum())


def seconds(fit) -> float:
    start = time.perf_counter()
    fit()
    return time.perf_counter() - start


def skrebate_seconds(X, y) -> float:
    """skrebate's ReliefF (every instance) on X, then a 5-NN on its 20 features."""
    from skrebate import ReliefF

    def fit():
        relief = ReliefF(n_features_to_select=20, n_neighbors=5, n_jobs=1).fit(X, y)
        KNeighborsClassifier(n_neighbors=5, algorithm="brute").fit(
            X[:, relief.top_features_[:20]], y)
    return seconds(fit)


def row(what: str, ours: float, reference: float, note: str) -> None:
    print(f"| {what} | {ours:.1f} | {reference:.1f} | {ours / reference:.2f} | {note} |")


def part_instances(args) -> None:
    print(f"ReliefSelector(n_features=20), d = {args.d}, one BLAS thread\n")
    print("| n | instances | seconds | peak MiB | informative kept (of 5) | "
          "every / sampled seconds |")
    print("|---|---|---|---|---|---|")
    for n in args.sizes:
        X, y = simulate(n, args.d, args.classes)
        every = measure(ReliefSelector(n_features=20, n_instances=None), X, y)
        sampled = measure(ReliefSelector(n_features=20, random_state=0), X, y)
        for label, (secs, mib, kept) in (("every example", every),
                                         ("m = 1 000 sampled", sampled)):
            ratio = f"{every[0] / sampled[0]:.1f}" if label != "every example" else ""
            print(f"| {n} | {label} | {secs:.1f} | {mib:.0f} | {kept} | {ratio} |")


def part_reference(args) -> None:
    n = args.n
    X, y = simulate(n, args.d, args.classes)
    print(f"n = {n}, d = {args.d}, {args.classes} classes, one BLAS thread; seconds of one "
          "fit\n")
    print("| fit | ours s | reference s | ours / reference | reference |")
    print("|---|---|---|---|---|")
    ours = seconds(lambda: ReliefSelector(n_features=20, random_state=0).fit(X, y))
    try:
        import skrebate  # noqa: F401
    except ImportError:
        print(f"| ReliefSelector (m = 1 000) | {ours:.1f} | - | - | skipped: skrebate is not "
              "installed (pip install skrebate) |")
    else:
        sizes = sorted(args.skrebate_sizes or [n])
        measured = {size: skrebate_seconds(*simulate(size, args.d, args.classes))
                    for size in sizes}
        if sizes == [n]:
            reference, note = measured[n], "skrebate ReliefF, every instance, + 5-NN fit"
        else:
            (n0, t0), (n1, t1) = list(measured.items())[-2:]
            exponent = np.log(t1 / t0) / np.log(n1 / n0)
            reference = t1 * (n / n1) ** exponent
            note = ("skrebate ReliefF, every instance, + 5-NN fit; extrapolated: "
                    + ", ".join(f"{t:.1f} s at n = {size}" for size, t in measured.items())
                    + f", exponent {exponent:.2f}")
        row("ReliefSelector (m = 1 000)", ours, reference, note)
    T = args.trees
    ours = seconds(lambda: RandomForestSelector(n_features=20, n_trees=T,
                                                random_state=0).fit(X, y))

    def sklearn_forest():
        forest = RandomForestClassifier(n_estimators=T, n_jobs=1, random_state=0).fit(X, y)
        return forest.feature_importances_
    row(f"RandomForestSelector ({T} trees)", ours, seconds(sklearn_forest),
        f"scikit-learn RandomForestClassifier({T} trees) + feature_importances_")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=("instances", "reference"), default="instances")
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 5000],
                        help="--part instances: the n measured")
    parser.add_argument("--n", type=int, default=10_000, help="--part reference: n")
    parser.add_argument("--d", type=int, default=2000)
    parser.add_argument("--classes", type=int, default=2)
    parser.add_argument("--trees", type=int, default=100,
                        help="--part reference: trees of each forest")
    parser.add_argument("--skrebate-sizes", type=int, nargs="+",
                        help="--part reference: n at which skrebate is measured (at least "
                             "two, to extrapolate to --n); default --n itself")
    args = parser.parse_args()
    if args.skrebate_sizes and args.skrebate_sizes != [args.n] and len(args.skrebate_sizes) < 2:
        parser.error("--skrebate-sizes: give --n itself, or at least two sizes to extrapolate")
    with threadpool_limits(1):
        (part_instances if args.part == "instances" else part_reference)(args)


if __name__ == "__main__":
    main()
