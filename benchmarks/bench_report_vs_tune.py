"""What a cold report costs beside the tune it reports on, and what the label probe costs
beside a trial's protocol.

Run from the repository root::

    python benchmarks/bench_report_vs_tune.py                  # quickstart, 3 rounds
    python benchmarks/bench_report_vs_tune.py --rounds 5 --probe-data ../shared/data/alon.csv.gz

Each round runs, in a fresh temporary folder, ``python -m paretostab tune --quiet`` (the
built-in quickstart: 60 trials of 30 runs) and then ``python -m paretostab report --quiet``
(its replicates from a cold cache, B = 10 as the spec says, the figures and the page), one
after the other so that both see the same machine; it prints each command's wall and CPU
seconds (its process and children) and their ratio, report over tune.

``--probe-data FILE`` (a ``label``-first CSV such as the microarray sets beside the
repository, ``../shared/data``) also times, on that file with HybridRFE (k = 20, M = 100
bootstrap runs), one trial's protocol against the probe ``tune`` runs as a trial joins the
front — whether its selection ignores the labels (:meth:`Problem.ignores_labels`: up to
three whole-data fits) — for a setting that uses the labels (N = 5) and one that does not
(N = k = 20, a variance filter).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def timed(command: list[str], folder: str) -> tuple[float, float]:
    """Wall and CPU seconds (the command's process and its children) of ``command`` run
    in ``folder``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=folder, check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def rounds(count: int) -> None:
    print("| round | tune wall s | tune CPU s | report wall s | report CPU s | report / tune "
          "(CPU) |\n|---|---|---|---|---|---|")
    ratios = []
    for k in range(1, count + 1):
        with tempfile.TemporaryDirectory() as folder:
            tune = timed([sys.executable, "-m", "paretostab", "tune", "--quiet"], folder)
            report = timed([sys.executable, "-m", "paretostab", "report", "--quiet"], folder)
        ratios.append(report[1] / tune[1])
        print(f"| {k} | {tune[0]:.1f} | {tune[1]:.1f} | {report[0]:.1f} | {report[1]:.1f} | "
              f"{ratios[-1]:.2f} |", flush=True)
    print(f"\nreport / tune, CPU: mean {sum(ratios) / len(ratios):.2f}, "
          f"range {min(ratios):.2f}–{max(ratios):.2f}")


def probe(path: str) -> None:
    from paretostab._problem import Problem
    from paretostab.spec import parse_spec

    spec = parse_spec({
        "study": {"name": "probe"}, "data": {"source": str(Path(path).resolve())},
        "protocol": {"runs": 100, "n_jobs": 1},
        "selector": {"name": "hybrid_rfe", "fixed": {"n_features": 20}},
        "objective": {"stability": "nogueira"}})
    problem = Problem.from_spec(spec)
    print(f"\n{Path(path).name}: {problem.X.shape[0]} × {problem.X.shape[1]}, HybridRFE k = 20, "
          "M = 100 bootstrap runs\n\n| setting | protocol s | label probe s | probe / "
          "protocol | ignores the labels |\n|---|---|---|---|---|")
    for n_stable in (5, 20):
        params = {"n_stable": n_stable, "epsilon": 0.1, "reg": 1.0, "final_reg": 1.0,
                  "alpha": 0.5}
        start = time.perf_counter()
        problem.run(params, random_state=0, n_jobs=1)
        protocol = time.perf_counter() - start
        start = time.perf_counter()
        ignores = problem.ignores_labels(params)
        probed = time.perf_counter() - start
        print(f"| N = {n_stable} | {protocol:.2f} | {probed:.3f} | {probed / protocol:.1%} | "
              f"{ignores} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="tune and report rounds (0: none)")
    parser.add_argument("--probe-data", help="a label-first CSV to time the label probe on")
    args = parser.parse_args()
    if args.rounds:
        rounds(args.rounds)
    if args.probe_data:
        probe(args.probe_data)


if __name__ == "__main__":
    main()
