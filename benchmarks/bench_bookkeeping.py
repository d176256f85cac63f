"""What recording a trial's user attributes costs: one storage call per attribute (Optuna's
``set_user_attr``) against one transaction for all (``set_trial_user_attrs``).

Run from the repository root::

    python benchmarks/bench_bookkeeping.py            # SQLite, 10 and 1 000 stored trials

A trial of a tuning study writes 8 user attributes when it finishes (measures, mean
selected, runs, seconds, timing, spec hash, and the calibrated λ or a failure reason);
each ``set_user_attr`` of an RDB storage is its own transaction, and a SQLite commit is a
file sync. Per stored-trial count, on a fresh SQLite study holding that many completed
trials, ``--repeat`` running trials each write the 8 attributes both ways, alternating;
the table gives the median milliseconds per trial and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import optuna

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from paretostab.optuna_internals import (  # noqa: E402
    set_trial_user_attrs,
    storage_of,
    trial_id_of,
)
from paretostab.storage import open_storage  # noqa: E402

ATTRS = {"measures": {"iw": 0.91, "nogueira": 0.83, "pearson": 0.88}, "mean_selected": 20.0,
         "runs": 30, "seconds": 1.2345,
         "timing": {"protocol": 1.1, "preparation": 0.2, "fits": 0.7, "scoring": 0.05,
                    "measures": 0.01, "artifacts": 0.04, "note": 0.007, "run_cache_mib": 8.0},
         "spec_hash": "0123456789abcdef" * 4, "calibrated": {}, "fail_reason": ""}


def one_by_one(trial: optuna.Trial) -> None:
    for key, value in ATTRS.items():
        trial.set_user_attr(key, value)


def at_once(trial: optuna.Trial) -> None:
    set_trial_user_attrs(storage_of(trial.study), trial_id_of(trial), ATTRS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    print(f"{len(ATTRS)} user attributes per trial, SQLite, median of {args.repeat} trials\n")
    print("| stored trials | one call per attribute, ms | one transaction, ms | ratio |")
    print("|---|---|---|---|")
    for stored in (10, 1000):
        with tempfile.TemporaryDirectory() as folder:
            storage = open_storage(f"sqlite:///{folder}/book.db")
            study = optuna.create_study(storage=storage, study_name="book")
            study.add_trials([optuna.trial.create_trial(value=0.5, user_attrs=ATTRS)
                              for _ in range(stored)])
            times = {one_by_one: [], at_once: []}
            for _ in range(args.repeat):
                for write in (one_by_one, at_once):
                    trial = study.ask()
                    start = time.perf_counter()
                    write(trial)
                    times[write].append(time.perf_counter() - start)
                    study.tell(trial, 0.5)
            single = statistics.median(times[one_by_one]) * 1000
            batch = statistics.median(times[at_once]) * 1000
            print(f"| {stored} | {single:.1f} | {batch:.1f} | {single / batch:.1f} |")


if __name__ == "__main__":
    main()
