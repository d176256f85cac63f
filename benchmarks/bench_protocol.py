"""Wall time of the resampling protocol: one process, two, and a warm run cache.

Run from the repository root::

    python benchmarks/bench_protocol.py          # singh, pre-filtered to 5 000 features, M = 100
    python benchmarks/bench_protocol.py --resampling complementary_pairs   # M/2 pairs of halves

``run_protocol`` with ``HybridRFE`` (k = 20, N = 10, ε = 0.1, λ = λ_f = 1) on
``../shared/data/singh.csv.gz`` (102 × 12 600), the variance pre-filter to 5 000 features
computed on each run's training sample, M = 100 stratified bootstrap runs
(``--resampling``: another of the protocol's resamplings) scored out of bag; ``n_jobs=1``,
``n_jobs=2``, then ``n_jobs=1`` with a ``RunCache`` — first cold (it prepares and keeps
the runs), then warm (what every later trial of a study with shared resamples costs) — in
the same process, after one warm-up. It checks that every RunSet is the same runs and
prints a Markdown table with where the time goes.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from paretostab._protocol import run_protocol  # noqa: E402
from paretostab._run_cache import RunCache  # noqa: E402
from paretostab._vocabulary import RESAMPLINGS  # noqa: E402
from paretostab.data import load_dataset  # noqa: E402
from paretostab.selectors import HybridRFE  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "singh.csv.gz"))
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--prefilter", type=int, default=5000)
    parser.add_argument("--resampling", choices=RESAMPLINGS, default="bootstrap")
    args = parser.parse_args()
    if not Path(args.data).exists():
        sys.exit(f"{args.data} not found: the benchmark reads the shared singh data set.")
    data = load_dataset(args.data)
    selector = HybridRFE(n_features=20, n_stable=10, epsilon=0.1)
    run_protocol(selector, data.X, data.y, runs=2, prefilter=args.prefilter, random_state=0,
                 n_jobs=2, progress=False)  # warm-up: imports, worker start
    rows = []
    cache = RunCache()
    for label, n_jobs, run_cache in [("n_jobs = 1", 1, None), ("n_jobs = 2", 2, None),
                                     ("n_jobs = 1, RunCache cold", 1, cache),
                                     ("n_jobs = 1, RunCache warm", 1, cache)]:
        start = time.perf_counter()
        runs = run_protocol(selector, data.X, data.y, runs=args.runs, prefilter=args.prefilter,
                            resampling=args.resampling, random_state=0, n_jobs=n_jobs,
                            cache=run_cache, progress=False)
        rows.append((label, time.perf_counter() - start, runs))
    same = all(rows[0][2].same_runs(runs) for _, _, runs in rows[1:])
    print(f"{data.name} {data.X.shape}, pre-filter {args.prefilter}, M = {args.runs} "
          f"{args.resampling}, "
          f"HybridRFE k = 20, N = 10, ε = 0.1; identical RunSets: {same}; run cache "
          f"{cache.nbytes / 2**20:.0f} MiB\n")
    print("| protocol | wall s | × first row | Σ preparation s | Σ fits s | Σ scoring s "
          "| accuracy | φ | φ_iw |")
    print("|---|---|---|---|---|---|---|---|---|")
    base = rows[0][1]
    for label, seconds, runs in rows:
        print(f"| {label} | {seconds:.2f} | {base / seconds:.2f}× "
              f"| {runs.prepare_seconds.sum():.2f} | {runs.fit_seconds.sum():.2f} "
              f"| {runs.score_seconds.sum():.2f} | {runs.accuracy:.3f} "
              f"| {runs.stability('nogueira'):.3f} | {runs.stability('iw'):.3f} |")


if __name__ == "__main__":
    main()
