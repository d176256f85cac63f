"""First calls of the similarity-adjusted measures at large d, against one exact pass over
the whole feature space, measured in the same run.

Run from the repository root::

    python benchmarks/bench_similarity_scale.py                  # d = 20 000 and 200 000
    python benchmarks/bench_similarity_scale.py --quick          # d = 2 000 (a smoke run)
    python benchmarks/bench_similarity_scale.py --measures sma_count sechidis yu
    python benchmarks/bench_similarity_scale.py --all-pairs      # the pass over all pairs

Setting (issue 21, point 3): n = 100 examples of d features, |Spearman| similarity
(``FeatureSimilarity(X, "spearman")``, the papers' choice); a fifth of the features form
groups of five sharing a latent factor, so that similarities above the 0.9 threshold
exist and the adjusted measures do real work. M = 100 runs of k features each, k uniform
in [20, 50], drawn with a skewed popularity so that runs overlap as real selections do;
importances uniform in [0.1, 1] (for ``msi``). Each measure's *first call* —
``stability(name, Z or I, similarity=S)`` with its defaults, on a fresh similarity
object — runs in a fresh process with BLAS limited to one thread
(``threadpoolctl.threadpool_limits(1)``). The first call includes preparing the data
(ranks, standardisation), which every similarity measure pays once per data set.

Baseline: one exact pass over the d(d − 1)/2 pairs of features
(``offdiagonal_sum(S, 0.9)`` forced exact), what the measures made before (``sma_*``
made two such passes — the list of pairs above the threshold and the largest similarity —
before their Monte-Carlo; ``sechidis`` one). Its cost is exactly quadratic in d (tiles of
1 024 × 1 024 pairs): above ``--exact-d`` it is measured at d = ``--exact-d`` and scaled
by (d / exact-d)², which the table marks. Ratio = baseline seconds / measure seconds.

Reported per d and measure: seconds of the first call, the ratio, the peak resident
memory of its process (``ru_maxrss``; data generation included — the data's size is
given for scale), the value, and where the time went (``cProfile`` of the same call:
preparing the data; the block of the features the runs select; the observed statistic of
the pairs of runs; the Monte-Carlo draws, the similarities of the drawn sets and the
scoring of their similar pairs; the optimal transports of ``msi``). Prints a Markdown
table.

``--all-pairs`` (issue 37, point 3) times instead the pass over all d(d − 1)/2 pairs of
features that ``expectation="exact"`` (and the Monte-Carlo expectation at small d) needs
— ``FeatureSimilarity(X, method).similar_features(0.9)``, i.e. ``offdiagonal_peaks``,
O(d² n) — for |Pearson|, |Spearman| and NMI at d = 5 000 and 20 000 (and 50 000 for the
correlations), n = 100, on the same data, each in a fresh process with one BLAS thread,
preparing the data (ranks, bins) timed apart. Floor, measured in the same process: one
BLAS product of the same d × n data with itself in the pass's 1 024 × 1 024 tiles of
pairs f ≤ g, each into a reused buffer — what any exact pass pays (NMI's exact joint
counts need bins² such products, 25 at n = 100). Ratio = pass seconds / floor seconds.
Where the pass's time goes (``cProfile`` of the same call): the products (for the
correlations, the floor's time: the same products), NMI's joint counts and entropies,
``clip``, the max reductions, the rest.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import math
import pstats
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from paretostab import StabilityWarning, stability  # noqa: E402
from paretostab._similarity import SUM_BLOCK, FeatureSimilarity, offdiagonal_sum  # noqa: E402
from paretostab.measures import get_measure  # noqa: E402

N_EXAMPLES = 100
#: Where the first call's time goes: a label, the profiled functions whose cumulative
#: seconds it counts (``function`` or ``function<caller``: only the calls from ``caller``)
#: and those it leaves out (nested inside them, counted on their own line).
PARTS = {
    "prepare data": (["_prepared"], []),
    "selected block": (["submatrix"], ["_prepared"]),
    "observed pairs": (["_pair_statistic"], []),
    "MC draws": (["_random_sequences"], []),
    "MC similarities": (["block<_sampled_expectations"], []),
    "MC scoring": (["_overlaps", "_excesses"], []),
    "normaliser": (["offdiagonal_sum"], []),
    "transport": (["pairwise_shared_information"], []),
}
#: ``--all-pairs``: the d each similarity's pass is timed at, and where its time goes
#: (as PARTS; the names of the code before issue 37's rewrite too: einsum, the logarithms
#: of ``_entropy_from_counts``).
PASS_D = {"pearson": [5_000, 20_000, 50_000], "spearman": [5_000, 20_000, 50_000],
          "nmi": [5_000, 20_000]}
PASS_PARTS = {
    "NMI counts": (["_joint_counts", "einsum"], []),
    "NMI entropies": (["_joint_entropy", "_entropy_from_counts"], []),
    "clip": (["clip"], []),
    "max reductions": (["_amax"], []),
}
#: Side of the pass's tiles of pairs (``offdiagonal_peaks``).
TILE = 1024


def make_problem(d: int, runs: int, k_range: tuple[int, int], seed: int = 0):
    """Data with groups of similar features, and M overlapping runs of k ∈ k_range."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N_EXAMPLES, d))
    grouped = rng.permutation(d)[: (d // 5) // 5 * 5].reshape(-1, 5)
    for group in grouped:
        X[:, group] = rng.normal(size=(N_EXAMPLES, 1)) + 0.15 * rng.normal(
            size=(N_EXAMPLES, 5))
    popularity = 1.0 / (np.arange(d) + 10.0)
    popularity = popularity[rng.permutation(d)]
    popularity /= popularity.sum()
    Z = np.zeros((runs, d), dtype=bool)
    for row in Z:
        row[rng.choice(d, size=rng.integers(k_range[0], k_range[1] + 1), replace=False,
                       p=popularity)] = True
    return X, Z, Z * rng.uniform(0.1, 1.0, size=Z.shape)


def _cumulative(stats: pstats.Stats, name: str) -> float:
    """Cumulative seconds of the profiled functions ``name`` (``function<caller``: of their
    calls from ``caller`` only)."""
    function, _, caller = name.partition("<")
    total = 0.0
    for (_, _, func), (_, _, _, cumulative, callers) in stats.stats.items():
        if func == function:
            total += cumulative if not caller else sum(
                timing[3] for (_, _, by), timing in callers.items() if by == caller)
    return total


def breakdown(stats: pstats.Stats, parts_of: dict = PARTS) -> dict[str, float]:
    parts = {}
    for label, (counted, nested) in parts_of.items():
        seconds = (sum(_cumulative(stats, name) for name in counted)
                   - sum(_cumulative(stats, name) for name in nested))
        if seconds > 0.005:
            parts[label] = seconds
    return parts


def child(task: str, d: int, runs: int, k_range: tuple[int, int]) -> dict:
    X, Z, I = make_problem(d, runs, k_range)
    similarity = FeatureSimilarity(X, "spearman")
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", StabilityWarning)
        profile = cProfile.Profile()
        start = time.perf_counter()
        if task == "baseline":
            exact = math.ceil(d * (d - 1) / 2 / SUM_BLOCK**2)
            value = offdiagonal_sum(similarity, 0.9, n_samples=exact).value
        else:
            info = get_measure(task)
            data = I if info.input == "importance" else Z
            extra = {"similarity": similarity} if info.needs_similarity else {}
            profile.enable()
            value = stability(task, data, **extra)
            profile.disable()
        seconds = time.perf_counter() - start
    parts = breakdown(pstats.Stats(profile)) if task != "baseline" else {}
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (
        2**20 if sys.platform == "darwin" else 2**10)  # KiB on Linux, bytes on macOS
    return {"seconds": seconds, "peak_mib": peak, "value": value, "parts": parts}


def tiled_product(rows: np.ndarray) -> float:
    """Seconds of the floor: ``rows @ rows.T`` over the tiles of pairs f ≤ g, each tile
    into a reused buffer."""
    d = rows.shape[0]
    buffer = np.empty((min(d, TILE), min(d, TILE)))
    start_time = time.perf_counter()
    for start in range(0, d, TILE):
        left = rows[start : start + TILE]
        for cstart in range(start, d, TILE):
            right = rows[cstart : cstart + TILE]
            np.matmul(left, right.T, out=buffer[: len(left), : len(right)])
    return time.perf_counter() - start_time


def pass_child(method: str, d: int) -> dict:
    X, _, _ = make_problem(d, 2, (1, 1))
    similarity = FeatureSimilarity(X, method)
    with threadpool_limits(1):
        start = time.perf_counter()
        similarity.submatrix([0])  # prepares the data
        prepare = time.perf_counter() - start
        floor = tiled_product(np.ascontiguousarray(X.T))
        profile = cProfile.Profile()
        start = time.perf_counter()
        profile.enable()
        similar = similarity.similar_features(0.9)
        profile.disable()
        seconds = time.perf_counter() - start
    parts = breakdown(pstats.Stats(profile), PASS_PARTS)
    if method != "nmi":  # the pass's products are the floor's, timed apart
        parts = {"products ≈ floor": floor, **parts}
    if seconds - sum(parts.values()) > 0.005:  # what is left, when above the noise
        parts["rest"] = seconds - sum(parts.values())
    return {"seconds": seconds, "prepare": prepare, "floor": floor, "parts": parts,
            "similar": int(similar.size)}


def table_head(setting: str, columns: list[str]) -> None:
    """The setting, then the head of a Markdown table of ``columns``."""
    print(f"{setting}\n")
    print("| " + " | ".join(columns) + " |")
    print("|---" * len(columns) + "|")


def all_pairs(args: argparse.Namespace) -> None:
    table_head(f"n = {N_EXAMPLES}, the pass over all pairs (similar_features(0.9)), one "
               "BLAS thread, each in its own process",
               ["method", "d", "prepare s", "pass s", "floor s", "pass / floor",
                "similar features", "where the pass's time went (s)"])
    for method in args.methods:
        for d in PASS_D[method] if args.pass_d is None else args.pass_d:
            out = subprocess.run([sys.executable, __file__, "--pass-child", method, str(d)],
                                 capture_output=True, text=True, check=True)
            row = json.loads(out.stdout)
            parts = ", ".join(f"{label} {seconds:.2f}" for label, seconds in row["parts"].items())
            print(f"| {method} | {d:,} | {row['prepare']:.2f} | {row['seconds']:.2f} | "
                  f"{row['floor']:.2f} | **{row['seconds'] / row['floor']:.1f}×** | "
                  f"{row['similar']:,} | {parts} |", flush=True)


def run(task: str, d: int, args: argparse.Namespace) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", task, str(d),
                          "--runs", str(args.runs), "--k", *map(str, args.k)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--d", type=int, nargs="+", default=[20_000, 200_000])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--k", type=int, nargs=2, default=[20, 50], metavar=("MIN", "MAX"))
    parser.add_argument("--measures", nargs="+", default=["sma_count", "msi", "nogueira"])
    parser.add_argument("--exact-d", type=int, default=40_000,
                        help="largest d whose whole-space pass is measured, not scaled")
    parser.add_argument("--quick", action="store_true", help="d = 2 000 only")
    parser.add_argument("--all-pairs", action="store_true",
                        help="time the pass over all pairs of features instead")
    parser.add_argument("--methods", nargs="+", default=list(PASS_D),
                        help="with --all-pairs: the similarities")
    parser.add_argument("--pass-d", type=int, nargs="+",
                        help="with --all-pairs: these d instead of each method's")
    parser.add_argument("--child", nargs=2, metavar=("TASK", "D"), help=argparse.SUPPRESS)
    parser.add_argument("--pass-child", nargs=2, metavar=("METHOD", "D"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.pass_child:
        print(json.dumps(pass_child(args.pass_child[0], int(args.pass_child[1]))))
        return
    if args.all_pairs:
        all_pairs(args)
        return
    if args.child:
        task, d = args.child
        print(json.dumps(child(task, int(d), args.runs, tuple(args.k))))
        return
    if args.quick:
        args.d = [2_000]
    table_head(f"n = {N_EXAMPLES}, M = {args.runs} runs of k in [{args.k[0]}, {args.k[1]}], "
               "|Spearman| similarity, one BLAS thread, each first call in its own process",
               ["d", "data MiB", "measure", "first call s", "baseline s", "ratio",
                "peak RSS MiB", "value", "where the time went (s)"])
    for d in args.d:
        exact_d = min(d, args.exact_d)
        base = run("baseline", exact_d, args)
        scale = (d / exact_d) ** 2
        base_cell = f"{base['seconds'] * scale:,.1f}" + (
            f" (d = {exact_d:,}: {base['seconds']:.1f} s, × {scale:g})" if scale > 1 else "")
        print(f"| {d:,} | {N_EXAMPLES * d * 8 / 2**20:,.0f} | (exact whole-space pass) | "
              f"| {base_cell} | | {base['peak_mib']:,.0f} | | |", flush=True)
        for name in args.measures:
            row = run(name, d, args)
            parts = ", ".join(f"{label} {seconds:.2f}" for label, seconds in row["parts"].items())
            print(f"| {d:,} | | {name} | {row['seconds']:.2f} | "
                  f"| **{base['seconds'] * scale / row['seconds']:,.0f}×** "
                  f"| {row['peak_mib']:,.0f} | {row['value']:.4g} | {parts} |", flush=True)


if __name__ == "__main__":
    main()
