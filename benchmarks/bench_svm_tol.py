"""SVM-RFE's solver tolerance: fit time against agreement with the tightest tolerance.

Run from the repository root::

    python benchmarks/bench_svm_tol.py                  # singh, M = 30 bootstrap runs
    python benchmarks/bench_svm_tol.py --data ../shared/data/alon.csv.gz --runs 100
    python benchmarks/bench_svm_tol.py --loss logistic  # the Newton core's tolerance
    python benchmarks/bench_svm_tol.py --reg 0.01       # another λ = λ_f (C = 1/(2λ))
    python benchmarks/bench_svm_tol.py --quick          # M = 3, three tolerances

Setting: the registry's ``svm_rfe`` — ``HybridRFE(n_stable=0, loss="hinge")``, k = 20,
λ = λ_f = 1 (``--reg``), 20 % of the features dropped per step — on a real microarray set
(``../shared/data/singh.csv.gz`` beside the repository by default: 102 × 12 600; the
benchmark says so and stops when it is absent), as the protocol runs it (SPEC §4): M
stratified bootstrap runs, each pre-filtered to the 5 000 features of highest variance on
its training sample, the selector fitted on the prepared
:class:`~paretostab.selectors.TrainingSample` and scored (accuracy) on the out-of-bag
examples. Every tolerance fits the same prepared samples, interleaved run by run (so that
a slow spell of the machine hits all of them alike), BLAS on one thread; liblinear (the
hinge loss) is single-threaded anyway.

The tolerance is what ``HybridRFE(tol=…)`` passes to every fit of the elimination and to
the final model: liblinear's ``tol`` of ``LinearSVC(loss="hinge", dual=True)`` (its dual
coordinate descent stops when the spread of the projected gradient is below it), or the
Newton core's relative gradient norm for ``--loss logistic``. The baseline is the
tightest tolerance, 1e-10 (liblinear cannot reach 1e-12: every fit stops at its 100 000
iterations), measured in the same run; the table marks the loss's default
(``DEFAULT_TOL``; the hinge loss's was 1e-8 before this measurement chose 1e-6).

Reported per tolerance: the median and total fit time of a run and the ratio to the
baseline's; the mean and smallest Jaccard index between the run's selected set and the
baseline's, and the runs whose sets are identical; Nogueira's φ of the M sets and the
mean out-of-bag accuracy, with their differences to the baseline's; and a breakdown of
the fit: solver calls per run, their mean iterations, the share of solver calls that
stopped at ``max_iter`` and the share of the fit time spent in the solver (hinge only:
the scikit-learn ``LinearSVC`` calls, timed through a thin subclass). Prints a Markdown
table.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from paretostab import stability  # noqa: E402
from paretostab.data import load_dataset, variance_prefilter  # noqa: E402
from paretostab.selectors import HybridRFE, TrainingSample, _rfe  # noqa: E402
from paretostab.selectors._rfe import DEFAULT_TOL  # noqa: E402

TOLERANCES = (1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-10)


class _TimedLinearSVC(LinearSVC):
    """LinearSVC recording the time and iterations of each fit (the benchmark's probe)."""

    calls: list[tuple[float, int, int]] = []

    def fit(self, X, y, sample_weight=None):
        start = time.perf_counter()
        result = super().fit(X, y, sample_weight=sample_weight)
        _TimedLinearSVC.calls.append((time.perf_counter() - start, int(self.n_iter_),
                                      int(self.max_iter)))
        return result


def bootstrap(y: np.ndarray, runs: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Stratified bootstrap samples (per class, the class's size) and their OOB rows."""
    rng = np.random.default_rng(seed)
    samples = []
    for _ in range(runs):
        train = np.concatenate([rng.choice(members, members.size) for members in
                                (np.flatnonzero(y == c) for c in np.unique(y))])
        oob = np.setdiff1d(np.arange(y.size), train)
        samples.append((train, oob))
    return samples


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sum(a & b) / np.sum(a | b))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "singh.csv.gz"))
    parser.add_argument("--runs", type=int, default=30, help="M bootstrap runs")
    parser.add_argument("--prefilter", type=int, default=5000)
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--reg", type=float, default=1.0, help="λ = λ_f (C = 1/(2λ))")
    parser.add_argument("--loss", choices=("hinge", "logistic"), default="hinge")
    parser.add_argument("--tols", default=",".join(map(str, TOLERANCES)),
                        help="comma-separated tolerances; the smallest is the baseline")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true",
                        help="M = 3, tolerances 1e-2, 1e-4, 1e-6, 1e-10")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.tols = 3, "1e-2,1e-4,1e-6,1e-10"
    if not Path(args.data).exists():
        print(f"skipped: {args.data} not found — the benchmark needs a real microarray set "
              "(the shared data folder beside the repository, or --data PATH).")
        return
    tols = sorted({float(t) for t in args.tols.split(",")}, reverse=True)
    baseline = tols[-1]
    data = load_dataset(args.data)
    X, y = data.X, data.y
    prefilter = min(args.prefilter, X.shape[1])
    samples = bootstrap(y, args.runs, args.seed)
    d = X.shape[1]
    _rfe.LinearSVC = _TimedLinearSVC  # probe the solver calls (hinge loss)

    sets = {t: [] for t in tols}
    accuracy = {t: [] for t in tols}
    seconds = {t: [] for t in tols}
    solver = {t: [] for t in tols}  # (time, iterations, max_iter) of each solver call
    warned = {t: 0 for t in tols}
    with threadpool_limits(1):
        for run, (train, oob) in enumerate(samples):
            columns = variance_prefilter(X[train], prefilter)
            sample = TrainingSample(X[train][:, columns], y[train])
            sample.distinct  # noqa: B018 — prepared once, outside the timed fits
            order = tols if run % 2 == 0 else tols[::-1]  # alternate who goes first
            for tol in order:
                selector = HybridRFE(n_features=args.k, n_stable=0, loss=args.loss, tol=tol,
                                     reg=args.reg, final_reg=args.reg)
                _TimedLinearSVC.calls = []
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", ConvergenceWarning)
                    start = time.perf_counter()
                    selector.fit_sample(sample)
                    seconds[tol].append(time.perf_counter() - start)
                warned[tol] += sum(issubclass(w.category, ConvergenceWarning) for w in caught)
                solver[tol].extend(_TimedLinearSVC.calls)
                support = np.zeros(d, dtype=bool)
                support[columns[selector.support_]] = True
                sets[tol].append(support)
                predicted = selector.predict(X[oob][:, columns])
                accuracy[tol].append(float(np.mean(predicted == y[oob])))
            print(f"run {run + 1}/{args.runs}", file=sys.stderr, end="\r", flush=True)
    print(file=sys.stderr)

    phi = {t: stability("nogueira", np.array(sets[t])) for t in tols}
    base_seconds = statistics.median(seconds[baseline])
    print(f"{data.name} {X.shape}, pre-filter {prefilter}, M = {args.runs} bootstrap runs, "
          f"HybridRFE(n_stable=0, loss={args.loss!r}), k = {args.k}, λ = λ_f = {args.reg:g}; "
          f"baseline tol = {baseline:g}; one BLAS thread\n")
    print("| tol | median s / run | total s | × baseline time | mean Jaccard vs baseline "
          "| min Jaccard | identical sets | φ | Δφ | accuracy | Δaccuracy | solver calls / run "
          "| iterations / call | calls at max_iter | share of fit in solver | "
          "ConvergenceWarnings |")
    print("|---" * 16 + "|")
    for tol in tols:
        agree = [jaccard(a, b) for a, b in zip(sets[tol], sets[baseline], strict=True)]
        calls = solver[tol]
        if calls:
            per_run = f"{len(calls) / args.runs:.1f}"
            iterations = f"{np.mean([c[1] for c in calls]):.0f}"
            at_max = f"{100 * np.mean([c[1] >= c[2] for c in calls]):.1f} %"
            share = f"{100 * sum(c[0] for c in calls) / sum(seconds[tol]):.0f} %"
        else:
            per_run = iterations = at_max = share = "—"
        label = f"{tol:g} (default)" if tol == DEFAULT_TOL[args.loss] else f"{tol:g}"
        print(f"| {label} | {statistics.median(seconds[tol]):.3f} | {sum(seconds[tol]):.1f} "
              f"| **{statistics.median(seconds[tol]) / base_seconds:.2f}×** "
              f"| {np.mean(agree):.4f} | {min(agree):.3f} "
              f"| {sum(a == 1.0 for a in agree)}/{args.runs} | {phi[tol]:.3f} "
              f"| {phi[tol] - phi[baseline]:+.3f} | {np.mean(accuracy[tol]):.4f} "
              f"| {np.mean(accuracy[tol]) - np.mean(accuracy[baseline]):+.4f} | {per_run} "
              f"| {iterations} | {at_max} | {share} | {warned[tol]} |")


if __name__ == "__main__":
    main()
