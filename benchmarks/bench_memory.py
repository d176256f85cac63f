"""Peak memory and time of one trial's protocol on large data, for every registered selector.

Run from the repository root::

    python benchmarks/bench_memory.py            # every selector, both shapes (about 2 h)
    python benchmarks/bench_memory.py --selectors lasso elastic_net group_lasso
    python benchmarks/bench_memory.py --shapes 100x200000 --slow relief --slow-runs 10

Setting: simulated two-class float data (standard normal, the first 10 features shifted
by 0.8 in class 1), n = 100 × d = 200 000 and n = 10 000 × d = 2 000 by default; one
``run_protocol`` call — what a tuning trial's objective runs (``Problem.run``) — with M
stratified bootstrap runs, ``n_jobs=1`` and no run cache (a study adds its RunCache:
what the machine can spare, up to ``--cache-gib``); k = 20 features (k̄ = 20 for the
lasso, the elastic net, λ₂ = 0.8, and the group lasso, their λ calibrated over the
runs), 100 trees for the random forest, registry defaults otherwise. The selectors of
``--slow`` run ``--slow-runs`` runs only (their fits can take minutes each at these
shapes), and a measurement is stopped after ``--timeout`` seconds (its peak so far
shown): a selector's runs are prepared, fitted and dropped one at a time, so its peak
does not depend on M beyond the M × d selection, importance and rank matrices (17 bytes
per feature and run, filled as the runs end; 0.32 GiB at M = 100, d = 200 000).

The baseline, in the same invocation: scikit-learn's
``LogisticRegression(penalty="l1", solver="liblinear", C=1/λ)`` fitted on the same
shapes' M bootstrap samples (standardised training rows) at the λ the lasso's calibration
found — plain L1 at one C, without a calibration (needs ``lasso`` among the selectors).

Each measurement runs in a process of its own: its peak resident memory (``ru_maxrss``:
the data, about 0.15 GiB of imports and everything the trial allocates) and its wall
seconds. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from paretostab._protocol import run_protocol  # noqa: E402
from paretostab.selectors import SELECTORS, get_selector  # noqa: E402

SHAPES = ("100x200000", "10000x2000")
CALIBRATED = ("lasso", "elastic_net", "group_lasso")
SLOW = ("svm_rfe", "kernel_svm_rfe", "relief", "random_forest")
BASELINE = "scikit-learn liblinear L1, one C"


def simulate(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = rng.standard_normal((n, d))
    X[:, :10] += 0.8 * y[:, None]
    return X, y


def selector(name: str):
    params = {"n_features": 20} if "n_features" in get_selector(name).parameters() else {}
    if name in CALIBRATED:
        params["target_features"] = 20
    if name == "elastic_net":
        params["l1_ratio"] = 0.8
    if name == "random_forest":
        params["n_trees"] = 100
    return get_selector(name).make(**params)


def bootstraps(y: np.ndarray, runs: int, seed: int = 0):
    """Stratified bootstrap training rows of ``runs`` runs."""
    rng = np.random.default_rng(seed)
    for _ in range(runs):
        yield np.concatenate([rng.choice(np.flatnonzero(y == label), size=int((y == label).sum()))
                              for label in np.unique(y)])


def liblinear(X: np.ndarray, y: np.ndarray, runs: int, reg: float) -> float:
    """Mean number of features of scikit-learn's L1 logistic (liblinear, C = 1/λ) over
    ``runs`` bootstrap samples, each standardised."""
    from sklearn.linear_model import LogisticRegression

    counts = []
    for rows in bootstraps(y, runs):
        X_run = X[rows]
        X_run -= X_run.mean(axis=0)
        scale = X_run.std(axis=0)
        X_run /= np.where(scale > 0, scale, 1.0)
        model = LogisticRegression(penalty="l1", solver="liblinear", C=1.0 / reg)
        counts.append(np.count_nonzero(model.fit(X_run, y[rows]).coef_))
    return float(np.mean(counts))


def one(name: str, shape: str, runs: int, reg: float | None) -> dict:
    """One measurement, in this process: wall seconds, what it found, peak memory."""
    n, d = map(int, shape.split("x"))
    X, y = simulate(n, d)
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    if name == BASELINE:
        found = {"mean_features": liblinear(X, y, runs, reg)}
    else:
        result = run_protocol(selector(name), X, y, runs=runs, random_state=0, progress=False)
        found = {"mean_features": result.mean_selected,
                 "reg": result.params["calibrated"].get("reg")}
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kB on Linux
    return {**found, "seconds": seconds, "peak_gib": peak / 2**30}


def measure(name: str, shape: str, runs: int, timeout: float, reg: float | None = None) -> dict:
    """One measurement in a process of its own (its own peak memory), stopped after
    ``timeout`` seconds — its peak so far then read from the kernel (``VmHWM``)."""
    command = [sys.executable, __file__, "--one", name, shape, str(runs), repr(reg)]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        out, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        status = Path(f"/proc/{child.pid}/status").read_text()
        peak = next(int(line.split()[1]) for line in status.splitlines()
                    if line.startswith("VmHWM:"))  # kB
        child.kill()
        child.communicate()
        return {"error": f"stopped after {timeout:.0f} s", "peak_gib": peak / 2**20}
    if child.returncode:
        return {"error": (err.strip().splitlines() or ["killed"])[-1]}
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--one", nargs=4, help=argparse.SUPPRESS)  # a measurement's process
    parser.add_argument("--selectors", nargs="+", default=list(SELECTORS),
                        choices=list(SELECTORS))
    parser.add_argument("--shapes", nargs="+", default=list(SHAPES), help="n x d")
    parser.add_argument("--runs", type=int, default=100, help="M (default 100)")
    parser.add_argument("--slow", nargs="*", default=list(SLOW),
                        help="selectors measured with --slow-runs runs")
    parser.add_argument("--slow-runs", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=1200,
                        help="seconds before a measurement is stopped (its peak so far shown)")
    args = parser.parse_args()
    if args.one:
        name, shape, runs, reg = args.one
        print(json.dumps(one(name, shape, int(runs), None if reg == "None" else float(reg))))
        return
    print("one run_protocol call (n_jobs = 1, no run cache), simulated two-class data, "
          "k = k̄ = 20; peak RSS of a fresh process\n")
    print("| selector | n × d | M | seconds | s per run | peak RSS GiB | mean features |")
    print("|---|---|---|---|---|---|---|")
    for shape in args.shapes:
        names = [name for name in args.selectors if name in CALIBRATED]
        names += [name for name in args.selectors if name not in CALIBRATED]
        reg = None
        for name in names:
            runs = args.slow_runs if name in args.slow else args.runs
            row = measure(name, shape, runs, args.timeout)
            if name == "lasso" and "reg" in row:
                reg = row["reg"]
            _print_row(name, shape, runs, row)
            if name == "lasso" and reg is not None:
                _print_row(BASELINE, shape, args.runs,
                           measure(BASELINE, shape, args.runs, args.timeout, reg))
            sys.stdout.flush()


def _print_row(name: str, shape: str, runs: int, row: dict) -> None:
    n, d = shape.split("x")
    label = f"{name} (λ = {row['reg']:.4g})" if row.get("reg") else name
    if "error" in row:
        peak = f"{row['peak_gib']:.2f} so far" if "peak_gib" in row else ""
        print(f"| {label} | {n} × {d} | {runs} | {row['error']} | | {peak} | |")
        return
    print(f"| {label} | {n} × {d} | {runs} | {row['seconds']:.1f} "
          f"| {row['seconds'] / runs:.2f} | {row['peak_gib']:.2f} "
          f"| {row['mean_features']:.1f} |")


if __name__ == "__main__":
    main()
