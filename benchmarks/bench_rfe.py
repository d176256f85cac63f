"""Speed, accuracy and agreement of ``HybridRFE`` against plain hybrid RFE (003 Algorithm 1).

Run from the repository root::

    python benchmarks/bench_rfe.py              # n = 102, d = 5 000, M = 100 bootstrap runs
    python benchmarks/bench_rfe.py --quick      # d = 1 000, M = 5 (a smoke run)

Setting (SPEC §3–4): a simulated two-class problem (``tests/reference/rfe.py:simulate``:
n = 102, a few informative features, correlated blocks, noise, random feature scales),
k = 20 features, λ = λ_f = 1, the variance criterion, N = 0 (plain logistic RFE) and
N = 10 with ε = 0.1 (the hybrid). M bootstrap runs: each method is fitted on the bootstrap
sample and its final model scored (accuracy) on the out-of-bag examples. Three methods, in
the same process, on the same samples, interleaved run by run, BLAS limited to one thread
(``threadpoolctl.threadpool_limits(1)``):

* ``HybridRFE`` of paretostab, with its defaults;
* the plain reference at scikit-learn's *default* tolerance (``tol = 1e-4``,
  ``max_iter = 100``: what a user would write), refitting ``LogisticRegression`` (lbfgs)
  from scratch at each elimination step;
* the same reference at a tight tolerance (``tol = 1e-10``, ``max_iter = 10 000``): the
  ground truth, to about 1e-7–1e-6 relative accuracy of the weights (scikit-learn's L-BFGS
  stops on ``ftol = 64 eps``). Near-ties closer than that can flip: the one disagreement
  at N = 10 (run 66 of 100, a relative gap of 1.5e-6 at the first step) is the
  reference's, an exact Newton solve agreeing with ``HybridRFE``.

Reported per method: the median wall time of one run's ``fit`` (seconds) and the ratio to
``HybridRFE``'s; the mean OOB accuracy; Nogueira's φ of the M selected sets; the mean
Jaccard between the method's and ``HybridRFE``'s set (and, on its own line, between the
default-tolerance reference and the ground truth); the peak memory of one fit, measured
by ``tracemalloc`` (Python and NumPy allocations above what is already held, on the first
run, in a separate untimed pass, since tracing slows the code); and, for the references,
the share of logistic fits that stopped at ``max_iter``. ``--ref-runs`` times the
references on the first R runs only (the table says so). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from paretostab import stability  # noqa: E402
from paretostab.selectors import HybridRFE  # noqa: E402
from tests.reference.rfe import (  # noqa: E402
    bootstrap_indices,
    reference_hybrid_rfe,
    reference_predict,
    simulate,
)

DEFAULT = {"tol": 1e-4, "max_iter": 100}
TIGHT = {"tol": 1e-10, "max_iter": 10_000}
METHODS = ("paretostab HybridRFE", "reference, sklearn default tol=1e-4",
           "reference, tight tol=1e-10 (ground truth)")


def fit_fast(X, y, k, params):
    model = HybridRFE(n_features=k, **params).fit(X, y)
    return model, np.flatnonzero(model.support_)


def fit_reference(X, y, k, params, solver, counter):
    result = reference_hybrid_rfe(X, y, n_features=k, **params, **solver, counter=counter)
    return result, result["support"]


def peak_mib(call) -> float:
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    call()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return (peak - base) / 2**20


def jaccard(a, b) -> float:
    a, b = set(np.asarray(a).tolist()), set(np.asarray(b).tolist())
    return len(a & b) / len(a | b)


def bench(X, y, samples, k, params, ref_runs):
    d = X.shape[1]
    times = {m: [] for m in METHODS}
    accuracy = {m: [] for m in METHODS}
    sets = {m: [] for m in METHODS}
    counters = {METHODS[1]: {}, METHODS[2]: {}}
    for run, (train, oob) in enumerate(samples):
        Xt, yt, Xo, yo = X[train], y[train], X[oob], y[oob]
        start = time.perf_counter()
        model, support = fit_fast(Xt, yt, k, params)
        times[METHODS[0]].append(time.perf_counter() - start)
        accuracy[METHODS[0]].append(float(np.mean(model.predict(Xo) == yo)))
        sets[METHODS[0]].append(support)
        if run >= ref_runs:
            continue
        for method, solver in ((METHODS[1], DEFAULT), (METHODS[2], TIGHT)):
            start = time.perf_counter()
            result, support = fit_reference(Xt, yt, k, params, solver, counters[method])
            times[method].append(time.perf_counter() - start)
            accuracy[method].append(float(np.mean(reference_predict(result, Xo) == yo)))
            sets[method].append(support)

    train = samples[0][0]
    memory = {
        METHODS[0]: peak_mib(lambda: fit_fast(X[train], y[train], k, params)),
        METHODS[1]: peak_mib(lambda: fit_reference(X[train], y[train], k, params, DEFAULT, None)),
        METHODS[2]: peak_mib(lambda: fit_reference(X[train], y[train], k, params, TIGHT, None)),
    }

    def phi(method):
        Z = np.zeros((len(sets[method]), d), dtype=bool)
        for i, support in enumerate(sets[method]):
            Z[i, support] = True
        return stability("nogueira", Z)

    fast_time = statistics.median(times[METHODS[0]])
    rows = []
    for method in METHODS:
        agree = [jaccard(a, b) for a, b in zip(sets[method], sets[METHODS[0]], strict=False)]
        row = {"method": method, "runs": len(times[method]),
               "seconds": statistics.median(times[method]),
               "ratio": statistics.median(times[method]) / fast_time,
               "accuracy": float(np.mean(accuracy[method])), "phi": phi(method),
               "jaccard": float(np.mean(agree)), "memory": memory[method]}
        if method in counters:
            c = counters[method]
            row["not_converged"] = c["not_converged"] / c["fits"]
            row["iterations"] = c["iterations"] / c["fits"]
        rows.append(row)
    default_vs_tight = float(np.mean([jaccard(a, b) for a, b in
                                      zip(sets[METHODS[1]], sets[METHODS[2]], strict=True)]))
    return rows, default_vs_tight


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=102)
    parser.add_argument("--d", type=int, default=5_000)
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--runs", type=int, default=100, help="M bootstrap runs")
    parser.add_argument("--ref-runs", type=int, default=None,
                        help="time the references on the first R runs only (default: all)")
    parser.add_argument("--quick", action="store_true", help="d = 1 000, M = 5")
    args = parser.parse_args()
    if args.quick:
        args.d, args.runs = 1_000, 5
    ref_runs = args.runs if args.ref_runs is None else min(args.ref_runs, args.runs)

    X, y = simulate(n=args.n, d=args.d, seed=0)
    samples = bootstrap_indices(y, args.runs, seed=1)
    configs = {"N = 0": {"n_stable": 0},
               "N = 10, ε = 0.1": {"n_stable": 10, "epsilon": 0.1}}
    print(f"n = {args.n}, d = {args.d:,}, k = {args.k}, λ = λ_f = 1, variance criterion; "
          f"M = {args.runs} bootstrap runs (references on {ref_runs} of them); "
          "one BLAS thread\n")
    print("| setting | method | runs | median s / fit | × HybridRFE | OOB accuracy | φ "
          "| Jaccard vs HybridRFE | peak MiB (tracemalloc) | fits at max_iter | "
          "L-BFGS iter / fit |")
    print("|---" * 11 + "|")
    notes = []
    with threadpool_limits(1):
        for setting, params in configs.items():
            rows, default_vs_tight = bench(X, y, samples, args.k, params, ref_runs)
            for row in rows:
                extra = (f"{100 * row['not_converged']:.1f} % | {row['iterations']:.0f}"
                         if "not_converged" in row else "— | —")
                print(f"| {setting} | {row['method']} | {row['runs']} | {row['seconds']:.4f} "
                      f"| **{row['ratio']:.1f}×** | {row['accuracy']:.4f} | {row['phi']:.3f} "
                      f"| {row['jaccard']:.4f} | {row['memory']:.1f} | {extra} |")
            notes.append(f"{setting}: mean Jaccard, default-tolerance reference vs ground "
                         f"truth = {default_vs_tight:.4f}")
    print()
    for note in notes:
        print(f"* {note}")


if __name__ == "__main__":
    main()
