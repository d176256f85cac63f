"""What a trial costs besides its protocol (issue 21, point 6), on SQLite.

Run from the repository root::

    python benchmarks/bench_bookkeeping.py                # both parts, 10 and 1 000 trials
    python benchmarks/bench_bookkeeping.py --part trial   # one part

``--part trial``: the whole of a trial but its computation — the slot wait and claim,
Optuna's trial creation, its parameters, the front check, the RunSet artifact, the
dashboard note, the user attributes, the finish — of the built-in quickstart study with a
random sampler (whose own cost does not grow with the trials) and a protocol that returns
one RunSet computed beforehand, less the time its measures take (the ``timing`` it
records); median milliseconds per trial at trial 10 and at trial
1 000 (the stored trials dominate the new ones, so that no map is drawn, as for most
trials of a long study), with SQLite's default journal and with the package's
write-ahead log (:func:`paretostab._optuna_internals.RetryingRDBStorage`), and where the
time goes (profiled, WAL, 1 000 trials).

``--part attrs``: recording a trial's user attributes, one storage call per attribute
(Optuna's ``set_user_attr``) against one transaction for all (``set_trial_user_attrs``).
A trial of a tuning study writes 8 user attributes when it finishes (measures, mean
selected, runs, seconds, timing, spec hash, and the calibrated λ or a failure reason);
each ``set_user_attr`` of an RDB storage is its own transaction, and a SQLite commit is a
file sync. Per stored-trial count, on a fresh SQLite study holding that many completed
trials, ``--repeat`` running trials each write the 8 attributes both ways, alternating;
the table gives the median milliseconds per trial and the ratio.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

import optuna

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from paretostab._optuna_internals import (  # noqa: E402
    set_trial_user_attrs,
    storage_of,
    trial_id_of,
)
from paretostab._problem import Problem  # noqa: E402
from paretostab._storage import open_storage  # noqa: E402
from paretostab._tuning.coordination import Interrupts, TrialSlots  # noqa: E402
from paretostab._tuning.objective import TrialObjective  # noqa: E402
from paretostab._tuning.study import create_or_load_study, resample_seed  # noqa: E402
from paretostab._vocabulary import FEATURE_COLORS  # noqa: E402
from paretostab.maps import study_palette  # noqa: E402
from paretostab.spec import builtin_spec_path, load_spec  # noqa: E402

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


#: What the breakdown of ``--part trial`` names: (label, function name, file ending).
STEPS = (("slot wait (reads the trials)", "wait", "coordination.py"),
         ("slot claim (reads the trials)", "claim", "coordination.py"),
         ("trial creation (Optuna)", "_create_new_trial", "_rdb/storage.py"),
         ("parameters drawn", "suggest_params", "objective.py"),
         ("front check", "_on_front", "objective.py"),
         ("RunSet artifact (its file; its record queued)", "_upload_artifacts",
          "objective.py"),
         ("dashboard note (queued)", "write_note", "notes.py"),
         ("two commits: process and parameters; artifact records, note and user "
          "attributes", "_commit", "optuna_internals.py"),
         ("finish (Optuna)", "set_trial_state_values", "optuna_internals.py"))


class _Study:
    """The quickstart study on a fresh SQLite file, its protocol replaced by one RunSet
    (``runs``: the first trial's, computed once for every study)."""

    def __init__(self, folder: str, problem: Problem, runs: list, *,
                 write_ahead: bool = True) -> None:
        from optuna.artifacts import FileSystemArtifactStore

        spec = dataclasses.replace(problem.spec, sampler="random")
        self.storage = open_storage(f"sqlite:///{folder}/trial.db", heartbeat_interval=10,
                                    write_ahead=write_ahead)
        self.study = create_or_load_study(spec, storage=self.storage)
        self.slots = TrialSlots(self.study, 10**6)
        problem = dataclasses.replace(problem, spec=spec)
        run = problem.run

        def computed_once(params, **kwargs):
            if not runs:
                runs.append(run(params, **kwargs))
            return runs[0]

        problem.__dict__["run"] = computed_once
        self.objective = TrialObjective(problem, store=FileSystemArtifactStore(folder),
                                        resamples_seed=resample_seed(self.study),
                                        palette=study_palette(
                                            self.study.user_attrs.get(FEATURE_COLORS),
                                            problem.X, problem.y),
                                        slots=self.slots)
        self.interrupts = Interrupts()

    def trial(self) -> float:
        """Seconds of one trial besides its protocol and measures (as it records them)."""
        start = time.perf_counter()
        self.slots.wait(self.interrupts)
        self.study.optimize(self.objective, n_trials=1)
        seconds = time.perf_counter() - start
        timing = self.study.trials[-1].user_attrs["timing"]
        return seconds - timing["protocol"] - timing["measures"]

    def store_up_to(self, count: int) -> None:
        """Completed trials dominating every new one, up to ``count`` trials."""
        done = self.study.trials[-1]
        self.study.add_trials([optuna.trial.create_trial(
            values=[1.0, 1.0], params=done.params, distributions=done.distributions,
            user_attrs=done.user_attrs) for _ in range(count - len(self.study.trials))])


def trial_part(repeat: int) -> None:
    problem = Problem.from_spec(load_spec(builtin_spec_path()))
    runs: list = []
    print("Median ms per trial besides its protocol and measures, quickstart study, SQLite, random "
          f"sampler, {repeat} trials each\n")
    print("| stored trials | default journal, ms | write-ahead log, ms | ratio |")
    print("|---|---|---|---|")
    profile = cProfile.Profile()
    for stored in (10, 1000):
        medians = []
        for wal in (False, True):
            with tempfile.TemporaryDirectory() as folder:
                study = _Study(folder, problem, runs, write_ahead=wal)
                study.trial()
                study.store_up_to(stored)
                study.trial()
                medians.append(statistics.median(study.trial() for _ in range(repeat)))
                if wal and stored == 1000:
                    profile.enable()
                    for _ in range(repeat):
                        study.trial()
                    profile.disable()
        print(f"| {stored} | {medians[0] * 1000:.1f} | {medians[1] * 1000:.1f} | "
              f"{medians[0] / medians[1]:.1f} |")
    stats = pstats.Stats(profile).stats
    print("\nWhere a trial's time goes (write-ahead log, 1 000 stored trials, profiled, "
          "ms per trial)\n\n| step | ms |\n|---|---|")
    for label, name, ending in STEPS:
        seconds = sum(cumulative for (file, _, function), (_, _, _, cumulative, _)
                      in stats.items() if function == name and file.endswith(ending))
        print(f"| {label} | {seconds / repeat * 1000:.1f} |")


def attrs_part(repeat: int) -> None:
    print(f"{len(ATTRS)} user attributes per trial, SQLite, median of {repeat} trials\n")
    print("| stored trials | one call per attribute, ms | one transaction, ms | ratio |")
    print("|---|---|---|---|")
    for stored in (10, 1000):
        with tempfile.TemporaryDirectory() as folder:
            storage = open_storage(f"sqlite:///{folder}/book.db")
            study = optuna.create_study(storage=storage, study_name="book")
            study.add_trials([optuna.trial.create_trial(value=0.5, user_attrs=ATTRS)
                              for _ in range(stored)])
            times = {one_by_one: [], at_once: []}
            for _ in range(repeat):
                for write in (one_by_one, at_once):
                    trial = study.ask()
                    start = time.perf_counter()
                    write(trial)
                    times[write].append(time.perf_counter() - start)
                    study.tell(trial, 0.5)
            single = statistics.median(times[one_by_one]) * 1000
            batch = statistics.median(times[at_once]) * 1000
            print(f"| {stored} | {single:.1f} | {batch:.1f} | {single / batch:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=("trial", "attrs"), action="append")
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    for part in args.part or ("trial", "attrs"):
        {"trial": trial_part, "attrs": attrs_part}[part](args.repeat)
        print()


if __name__ == "__main__":
    main()
