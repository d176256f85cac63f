"""Selection at scale: seconds and peak memory of one fit over a grid of n × d, against a
plain scikit-learn baseline measured in the same run.

Run from the repository root::

    python benchmarks/bench_scale.py                         # the grid (about 15 min)
    python benchmarks/bench_scale.py --cells 1000x2000 10000x2000
    python benchmarks/bench_scale.py --quick                 # a smoke grid (seconds)

Grid: n ∈ {100, 1 000, 10 000} × d ∈ {2 000, 20 000, 200 000}, the cells whose data fit
``--memory`` GiB four times over (the raw data, its standardisation, the distinct rows a
selector fits and one working copy: 10 000 × 200 000 does not fit 24 GiB). Data: the
seeded two-class simulation of ``tests/reference/rfe.py`` with 5 informative features,
correlated blocks, noise and random feature scales.

Each row of :data:`CASES` is a method of the package and its plain baseline; each is run
once per cell, in a fresh process with BLAS limited to one thread
(``threadpoolctl.threadpool_limits(1)``), which generates the data, fits once on a tiny
problem (the one-time costs of a process: lazy imports, the thread pools' inspection),
then times one fit:

* ``hybrid_rfe``: ``HybridRFE(n_features=k, step=0.2)`` with its other defaults (those of
  a tune trial's parameters not searched), against 003 Algorithm 1 written plainly on
  scikit-learn (``tests/reference/rfe.py``): ``LogisticRegression`` (lbfgs, scikit-learn's
  default ``tol = 1e-4`` and ``max_iter = 100``, ``C = 1/(2λ)``, λ = 1) refitted from
  scratch at each step, dropping 20 % of the remaining features down to k.

Reported per cell: the wall seconds of the fit (``--repeat R``: the fastest of up to R fits
in the process, none started once ``--budget`` seconds are spent: a process's first large
fit also pays for its first touch of fresh memory, which a tune trial's worker pays once
for many runs) with the CPU seconds of the process beside them (steadier than wall time
on a shared machine), their ratios (paretostab / baseline: below 1 is faster), and the
peak resident memory of each process *during the fits* (Linux:
the high-water mark ``VmHWM`` is reset once the data are generated; elsewhere the
process's ``ru_maxrss``, data generation included), with the size of the data for scale.
The last column is the Jaccard index of the two selected sets: the baseline's default
tolerance is loose (``benchmarks/bench_rfe.py``: at n = 102 its sets agree with the
tight-tolerance ground truth at a mean Jaccard of 0.52), the package's is not. Prints a
Markdown table.

Adding a row: a :class:`Case` with the method and the baseline, each a function
``(X, y, k)`` that fits once and returns the indices of the selected features.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from paretostab.selectors import HybridRFE  # noqa: E402
from tests.reference.rfe import reference_hybrid_rfe, simulate  # noqa: E402

GRID_N = (100, 1_000, 10_000)
GRID_D = (2_000, 20_000, 200_000)
QUICK_CELLS = ((100, 500), (300, 500), (100, 2_000))
COPIES = 4  # data, standardised data, distinct rows, a working copy
SKLEARN_DEFAULT = {"tol": 1e-4, "max_iter": 100}


@dataclass(frozen=True)
class Case:
    """A method of the package and its plain baseline: ``(X, y, k) ->`` the selected
    features' indices, one fit."""

    name: str
    method: object
    baseline: object


def _hybrid_rfe(X, y, k):
    return np.flatnonzero(HybridRFE(n_features=k, step=0.2).fit(X, y).support_)


def _plain_rfe(X, y, k):
    return reference_hybrid_rfe(X, y, n_features=k, step=0.2, **SKLEARN_DEFAULT)["support"]


CASES = {case.name: case for case in [Case("hybrid_rfe", _hybrid_rfe, _plain_rfe)]}


def _rss_mib(field: str) -> float | None:
    """A ``/proc/self/status`` memory field (kB) in MiB; None off Linux."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _reset_peak() -> bool:
    """Reset the process's peak resident memory to its current value (Linux ≥ 4.0)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def child(case: str, side: str, n: int, d: int, k: int, repeat: int, budget: float) -> dict:
    """Generate the cell's data, then time up to ``repeat`` fits (no new one once they took
    ``budget`` seconds); the fastest one's wall and CPU seconds, the number of fits and the
    peak memory, as a dict."""
    X, y = simulate(n=n, d=d, n_informative=5, seed=0)
    fit = getattr(CASES[case], side)
    seconds, cpu = [], []
    with threadpool_limits(1):
        fit(*simulate(n=40, d=60, seed=1), 5)  # first-call costs a process pays once
        reset = _reset_peak()
        while len(seconds) < repeat and sum(seconds) < budget:
            start, start_cpu = time.perf_counter(), time.process_time()
            selected = fit(X, y, k)
            seconds.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
    peak = _rss_mib("VmHWM") if reset else None
    if peak is None:  # ru_maxrss: KiB on Linux, bytes on macOS
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (
            2**20 if sys.platform == "darwin" else 2**10)
    return {"seconds": min(seconds), "cpu": min(cpu), "fits": len(seconds), "peak_mib": peak,
            "selected": [int(f) for f in selected]}


def run_cell(case: str, side: str, n: int, d: int, args: argparse.Namespace) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", case, side, str(n), str(d),
                          "--k", str(args.k), "--repeat", str(args.repeat),
                          "--budget", str(args.budget)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def jaccard(a, b) -> float:
    a, b = set(a), set(b)
    return len(a & b) / len(a | b)


def parse_cell(text: str) -> tuple[int, int]:
    n, _, d = text.lower().partition("x")
    return int(n.replace("_", "")), int(d.replace("_", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cells", nargs="+", type=parse_cell, metavar="NxD",
                        help="run these cells only (e.g. 1000x2000)")
    parser.add_argument("--cases", nargs="+", choices=sorted(CASES), default=sorted(CASES))
    parser.add_argument("--k", type=int, default=20, help="features selected")
    parser.add_argument("--memory", type=float, default=24.0,
                        help=f"GiB available: cells need {COPIES} copies of the data")
    parser.add_argument("--repeat", type=int, default=1,
                        help="fits per cell and method, the fastest reported (default 1)")
    parser.add_argument("--budget", type=float, default=60.0,
                        help="seconds after which a cell starts no further fit (default 60)")
    parser.add_argument("--quick", action="store_true", help="a small smoke grid")
    parser.add_argument("--child", nargs=4, metavar=("CASE", "SIDE", "N", "D"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        case, side, n, d = args.child
        print(json.dumps(child(case, side, int(n), int(d), args.k, args.repeat, args.budget)))
        return
    if args.quick:
        cells = list(QUICK_CELLS)
    elif args.cells:
        cells = args.cells
    else:
        cells = [(n, d) for n in GRID_N for d in GRID_D
                 if COPIES * n * d * 8 <= args.memory * 2**30]
    fits = ("one fit" if args.repeat == 1 else
            f"the fastest of up to {args.repeat} fits (none started after {args.budget:g} s)")
    print(f"k = {args.k}, step = 0.2, one BLAS thread, {fits} per cell and method, each "
          "method in its own process; peak = resident memory during the fits; ratio = "
          "paretostab / baseline (wall seconds; CPU seconds in parentheses)\n")
    print("| case | n | d | data MiB | fits | paretostab s (CPU) | baseline s (CPU) "
          "| ratio (CPU) | paretostab peak MiB | baseline peak MiB | Jaccard |")
    print("|---" * 11 + "|")
    for name in args.cases:
        for n, d in cells:
            ours = run_cell(name, "method", n, d, args)
            base = run_cell(name, "baseline", n, d, args)
            print(f"| {name} | {n:,} | {d:,} | {n * d * 8 / 2**20:,.0f} "
                  f"| {ours['fits']}, {base['fits']} "
                  f"| {ours['seconds']:.2f} ({ours['cpu']:.2f}) "
                  f"| {base['seconds']:.2f} ({base['cpu']:.2f}) "
                  f"| **{ours['seconds'] / base['seconds']:.2f}** "
                  f"({ours['cpu'] / base['cpu']:.2f}) "
                  f"| {ours['peak_mib']:,.0f} | {base['peak_mib']:,.0f} "
                  f"| {jaccard(ours['selected'], base['selected']):.2f} |", flush=True)


if __name__ == "__main__":
    main()
