"""ReliefF at larger n: every example as an instance against m = 1 000 sampled instances.

Run from the repository root::

    python benchmarks/bench_relief.py              # n = 2 000 and 5 000, d = 2 000

Setting: a simulated two-class problem (5 informative features among d, standard normal
noise), one ``ReliefSelector(n_features=20)`` fit on all n examples, one BLAS thread.
``n_instances=None`` is ReliefF over every example (the papers' algorithm, O(n² d));
the default ``n_instances=1000`` samples m = 1 000 instances (Robnik-Šikonja &
Kononenko 2003), O(m n d), in blocks of 256. Reported: the wall seconds of the fit, the
peak memory traced during it (``tracemalloc``: NumPy and Python allocations), and how
many of the 5 informative features each keeps.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from paretostab.selectors import ReliefSelector  # noqa: E402


def simulate(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = rng.standard_normal((n, d))
    X[:, :5] += 0.8 * y[:, None]
    return X, y


def measure(selector: ReliefSelector, X, y) -> tuple[float, float, int]:
    tracemalloc.start()
    start = time.perf_counter()
    selector.fit(X, y)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak / 2**20, int(selector.support_[:5].sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 5000])
    parser.add_argument("--d", type=int, default=2000)
    args = parser.parse_args()
    print(f"ReliefSelector(n_features=20), d = {args.d}, one BLAS thread\n")
    print("| n | instances | seconds | peak MiB | informative kept (of 5) | "
          "every / sampled seconds |")
    print("|---|---|---|---|---|---|")
    with threadpool_limits(1):
        for n in args.sizes:
            X, y = simulate(n, args.d)
            every = measure(ReliefSelector(n_features=20, n_instances=None), X, y)
            sampled = measure(ReliefSelector(n_features=20, random_state=0), X, y)
            for label, (seconds, mib, kept) in (("every example", every),
                                                ("m = 1 000 sampled", sampled)):
                ratio = f"{every[0] / sampled[0]:.1f}" if label != "every example" else ""
                print(f"| {n} | {label} | {seconds:.1f} | {mib:.0f} | {kept} | {ratio} |")


if __name__ == "__main__":
    main()
