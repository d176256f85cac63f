"""Wall time of the resampling protocol, one process versus two.

Run from the repository root::

    python benchmarks/bench_protocol.py          # singh, pre-filtered to 5 000 features, M = 100

``run_protocol`` with ``HybridRFE`` (k = 20, N = 10, ε = 0.1, λ = λ_f = 1) on
``../shared/data/singh.csv.gz`` (102 × 12 600), the variance pre-filter to 5 000 features
computed on each run's training sample, M = 100 stratified bootstrap runs scored out of
bag; ``n_jobs=1`` then ``n_jobs=2``, in the same process, after one warm-up. It checks that
both RunSets are the same runs and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from paretostab.data import load_dataset  # noqa: E402
from paretostab.protocol import run_protocol  # noqa: E402
from paretostab.selectors import HybridRFE  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "singh.csv.gz"))
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--prefilter", type=int, default=5000)
    args = parser.parse_args()
    if not Path(args.data).exists():
        sys.exit(f"{args.data} not found: the benchmark reads the shared singh data set.")
    data = load_dataset(args.data)
    selector = HybridRFE(n_features=20, n_stable=10, epsilon=0.1)
    run_protocol(selector, data.X, data.y, runs=2, prefilter=args.prefilter, random_state=0,
                 n_jobs=2, progress=False)  # warm-up: imports, worker start
    rows = []
    for n_jobs in (1, 2):
        start = time.perf_counter()
        runs = run_protocol(selector, data.X, data.y, runs=args.runs, prefilter=args.prefilter,
                            random_state=0, n_jobs=n_jobs, progress=False)
        rows.append((n_jobs, time.perf_counter() - start, runs))
    same = rows[0][2].same_runs(rows[1][2])
    print(f"{data.name} {data.X.shape}, pre-filter {args.prefilter}, M = {args.runs}, "
          f"HybridRFE k = 20, N = 10, ε = 0.1; identical RunSets: {same}\n")
    print("| n_jobs | wall s | speed-up | mean fit s | accuracy | φ | φ_iw |")
    print("|---|---|---|---|---|---|---|")
    base = rows[0][1]
    for n_jobs, seconds, runs in rows:
        print(f"| {n_jobs} | {seconds:.2f} | {base / seconds:.2f}× | {runs.fit_seconds.mean():.3f} "
              f"| {runs.accuracy:.3f} | {runs.stability('nogueira'):.3f} "
              f"| {runs.stability('iw'):.3f} |")


if __name__ == "__main__":
    main()
