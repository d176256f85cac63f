"""Speed of every registered stability measure, with ratios against plain baselines.

Run from the repository root::

    python benchmarks/bench_measures.py              # M = 100, k = 20, d = 5 000 and 22 283
    python benchmarks/bench_measures.py --quick      # d = 2 000, fewer repeats (a smoke run)

Setting (issue "Foundation and the complete stability-measure library"): M runs of k
features each, drawn with a skewed popularity so that runs overlap as real selections do;
random importances; |Spearman| similarity of random data (n = 100) in which a fifth of
the features form groups of five sharing a latent factor, so that similarities above the
0.9 threshold exist and the adjusted measures do real work. The similarity's prepared data
(ranks, standardisation) is computed once per data set and cached on the similarity
object: it is timed once, on its own line; no measure makes a pass over the whole feature
space (first calls at larger d: ``benchmarks/bench_similarity_scale.py``). Each measure's
time is the median of ``--repeats`` calls. The baselines run in the
same process on the same inputs: ``msi`` against a per-pair ``scipy.optimize.linprog``
formulation (000 eq. 8–12) and ``iw`` against a direct double loop over pairs of runs
(003 eq. 6); both references live in ``tests/reference``. Prints a Markdown table (the
one in the README).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from paretostab import StabilityWarning, list_measures, stability  # noqa: E402
from paretostab._similarity import FeatureSimilarity  # noqa: E402
from paretostab.measures import get_measure  # noqa: E402
from tests.reference.msi import msi_linprog  # noqa: E402
from tests.reference.weighted import iw_double_loop  # noqa: E402


def make_problem(d: int, runs: int, k: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    n = 100
    X = rng.normal(size=(n, d))
    grouped = rng.permutation(d)[: (d // 5) // 5 * 5].reshape(-1, 5)
    for group in grouped:
        X[:, group] = rng.normal(size=(n, 1)) + 0.15 * rng.normal(size=(n, 5))
    popularity = 1.0 / (np.arange(d) + 10.0)
    popularity = popularity[rng.permutation(d)]
    popularity /= popularity.sum()
    Z = np.zeros((runs, d), dtype=bool)
    for i in range(runs):
        Z[i, rng.choice(d, size=k, replace=False, p=popularity)] = True
    I = Z * rng.uniform(0.1, 1.0, size=(runs, d))
    score = np.where(Z, 10 + I, popularity * rng.uniform(0.5, 1.5, size=(runs, d)))
    R = np.argsort(np.argsort(-score, axis=1, kind="stable"), axis=1) + 1
    return X, Z, I, R


def median_seconds(call, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench(d: int, runs: int, k: int, repeats: int) -> list[dict]:
    X, Z, I, R = make_problem(d, runs, k)
    inputs = {"selection": Z, "importance": I, "ranking": R}
    similarity = FeatureSimilarity(X, "spearman")
    start = time.perf_counter()
    similarity.submatrix([0])
    rows = [{"measure": "(similarity: prepared data, once per data set)", "seconds":
             time.perf_counter() - start}]
    for name in list_measures().index:
        info = get_measure(name)
        kwargs = {"similarity": similarity} if info.needs_similarity else {}
        if "k" in info.options:
            kwargs["k"] = k

        def call(name=name, data=inputs[info.input], kwargs=kwargs):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", StabilityWarning)
                return stability(name, data, **kwargs)

        row = {"measure": name, "seconds": median_seconds(call, repeats), "value": call()}
        if name == "msi":
            union = np.flatnonzero(I.any(axis=0))
            S_union = similarity.submatrix(union)
            start = time.perf_counter()
            reference = msi_linprog(I[:, union], S_union)
            row["baseline"] = "per-pair linprog"
            row["baseline_seconds"] = time.perf_counter() - start
            row["agreement"] = abs(reference - row["value"])
        if name == "iw":
            row["baseline"] = "double loop"
            row["baseline_seconds"] = median_seconds(lambda: iw_double_loop(I), min(repeats, 3))
            row["agreement"] = abs(iw_double_loop(I) - row["value"])
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--d", type=int, nargs="+", default=[5_000, 22_283])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="d = 2 000, 2 repeats")
    args = parser.parse_args()
    if args.quick:
        args.d, args.repeats = [2_000], 2
    results = {d: bench(d, args.runs, args.k, args.repeats) for d in args.d}
    print(f"M = {args.runs} runs, k = {args.k}; median of {args.repeats} calls (seconds)\n")
    header = "| measure | " + " | ".join(f"d = {d:,}" for d in args.d) + " |"
    print(header)
    print("|---" * (len(args.d) + 1) + "|")
    names = [r["measure"] for r in results[args.d[0]]]
    for index, name in enumerate(names):
        cells = []
        for d in args.d:
            row = results[d][index]
            cell = f"{row['seconds']:.4f}"
            if "baseline" in row:
                ratio = row["baseline_seconds"] / row["seconds"]
                cell += (f" ({row['baseline']} {row['baseline_seconds']:.2f} s: "
                         f"**{ratio:.0f}×**, |Δ| = {row['agreement']:.1e})")
            cells.append(cell)
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
