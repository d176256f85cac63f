"""Memory of ``tune --workers 4`` against ``--workers 1`` on wide data (d = 200 000).

Run from the repository root (psutil needed: ``pip install psutil``, or the ``dask``
extra)::

    python benchmarks/bench_workers_memory.py                  # n = 100, d = 200 000
    python benchmarks/bench_workers_memory.py --workers 1 4 --trials 8 --n-jobs 1 2

Each configuration runs ``python -m paretostab tune`` on a fresh study (a new SQLite
file in a temporary folder): simulated data of n = 100 examples and d features (153 MiB
of float64 at d = 200 000), a top-20 t-test filter (a cheap selector: the data dominate
the memory), M = 10 bootstrap runs per trial, no run cache (``--cache-gib 0``: the cache
is a per-process budget of its own). Every 0.2 s it sums over the ``tune`` process and
all its descendants (the ``--workers`` processes, joblib's workers for ``--n-jobs``):

- RSS: resident memory; pages that processes share (a file they all map) count in
  every process that touches them;
- PSS: proportional set size, each shared page divided among the processes that map it
  — what the processes together take from the machine.

Reported: the peak of each sum, and the wall time.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]

SPEC = """[study]
name = "memory"
trials = {trials}
seed = 0
sampler = "random"

[data]
source = "simulated:n_other={n_other},n_per_class={n_per_class}"

[protocol]
runs = 10

[selector]
name = "t_test"

[selector.fixed]
n_features = 20

[objective]
stability = "nogueira"
"""


def memory(root: psutil.Process) -> tuple[int, int]:
    """(RSS, PSS) in bytes, summed over ``root`` and its descendants."""
    rss = pss = 0
    for process in [root, *root.children(recursive=True)]:
        try:
            info = process.memory_full_info()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        rss += info.rss
        pss += info.pss
    return rss, pss


def measure(spec: Path, folder: Path, workers: int, n_jobs: int) -> tuple[float, float, float]:
    """Peak summed RSS and PSS (MiB) and wall seconds of one ``tune``."""
    command = [sys.executable, "-m", "paretostab", "tune", str(spec), "--storage",
               f"sqlite:///{folder / f'w{workers}-j{n_jobs}.db'}", "--workers", str(workers),
               "--n-jobs", str(n_jobs), "--cache-gib", "0"]
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    root = psutil.Process(process.pid)
    peak_rss = peak_pss = 0
    while process.poll() is None:
        rss, pss = memory(root)
        peak_rss, peak_pss = max(peak_rss, rss), max(peak_pss, pss)
        time.sleep(0.2)
    seconds = time.perf_counter() - start
    if process.returncode:
        sys.exit(f"tune failed: {process.stderr.read()[-2000:]}")
    return peak_rss / 2**20, peak_pss / 2**20, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--d", type=int, default=200_000, help="features")
    parser.add_argument("--n", type=int, default=100, help="examples (two classes)")
    parser.add_argument("--trials", type=int, default=8)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--n-jobs", type=int, nargs="+", default=[1])
    args = parser.parse_args()
    print(f"n = {args.n}, d = {args.d} ({args.n * args.d * 8 / 2**20:.0f} MiB of data), "
          f"{args.trials} trials of M = 10 runs, t-test filter, no run cache\n")
    print("| workers | n_jobs | peak RSS summed (MiB) | peak PSS summed (MiB) | wall s |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        spec = folder / "memory.toml"
        spec.write_text(SPEC.format(trials=args.trials, n_other=args.d - 5,
                                    n_per_class=args.n // 2), encoding="utf-8")
        for workers in args.workers:
            for n_jobs in args.n_jobs:
                rss, pss, seconds = measure(spec, folder, workers, n_jobs)
                print(f"| {workers} | {n_jobs} | {rss:.0f} | {pss:.0f} | {seconds:.1f} |",
                      flush=True)


if __name__ == "__main__":
    main()
