"""Trials per minute of a tuning study, one worker process versus two.

Run from the repository root::

    python benchmarks/bench_tuning.py          # the built-in singh_hybrid_rfe, 16 trials each
    python benchmarks/bench_tuning.py SPEC --trials 30

Each configuration tunes a fresh study (a new SQLite file in a temporary folder) for
``--trials`` trials and reports the wall time and trials per minute: one worker with the
spec's ``n_jobs`` (runs of a trial in parallel processes), one worker with ``n_jobs=1``,
and two workers with ``n_jobs=1`` (trials in parallel; more would oversubscribe 2 cores).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import optuna  # noqa: E402

from paretostab._tuning import run_study  # noqa: E402
from paretostab.spec import builtin_spec_path, load_spec  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("spec", nargs="?", default=str(builtin_spec_path("singh_hybrid_rfe")))
    parser.add_argument("--trials", type=int, default=16)
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.ERROR)  # as the command line: no per-trial log
    spec = load_spec(args.spec)
    configurations = [(1, None), (1, 1), (2, 1)]
    print(f"{spec.name}: {args.trials} trials per configuration, M = {spec.protocol.runs}\n")
    print("| workers | n_jobs per trial | wall s | trials / min |")
    print("|---|---|---|---|")
    for workers, n_jobs in configurations:
        with tempfile.TemporaryDirectory() as folder:
            start = time.perf_counter()
            study = run_study(spec, storage=f"sqlite:///{Path(folder) / 'bench.db'}",
                         n_trials=args.trials, n_jobs=n_jobs, workers=workers, progress=False)
            seconds = time.perf_counter() - start
            done = len(study.trials)
        print(f"| {workers} | {n_jobs or spec.protocol.n_jobs} | {seconds:.1f} "
              f"| {done / seconds * 60:.1f} |")


if __name__ == "__main__":
    main()
