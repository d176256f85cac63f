"""Wall and CPU time of a report's replicates: trial by trial, as the report ran them
before, against all front trials' protocols in one pool.

Run from the repository root::

    python benchmarks/bench_replicates.py              # quickstart, 16 settings, B = 10
    python benchmarks/bench_replicates.py SPEC --trials 4 --replicates 5

``--trials`` settings of the spec's search space (drawn with a seeded generator: the
sizes of a front, not a front), each replicated B times with seeds of its own
``[seed, trial, 1]`` (as a report replicates a study whose trials draw their own
resamples), its measures evaluated. First trial by trial in this process (each
protocol with the spec's ``n_jobs``), then every protocol in one pool of one process and
of one per core (:func:`paretostab._protocol.replicate_protocols`), in the same process,
after a warm-up. It checks that every value is the same and prints a Markdown table; CPU
seconds count this process and the pool's worker processes.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from joblib import effective_n_jobs  # noqa: E402
from joblib.externals.loky import get_reusable_executor  # noqa: E402

from paretostab._problem import Problem  # noqa: E402
from paretostab._protocol import replicate_protocols, replicates  # noqa: E402
from paretostab.spec import builtin_spec_path, load_spec  # noqa: E402


def draw(search, rng: np.random.Generator) -> dict:
    """One setting of the search space ``search`` (uniform, log-uniform where it says)."""
    setting = {}
    for param in search:
        if param.choices is not None:
            setting[param.name] = param.choices[rng.integers(len(param.choices))]
        elif param.integer:
            setting[param.name] = int(rng.integers(param.low, param.high + 1))
        elif param.log:
            setting[param.name] = float(np.exp(rng.uniform(np.log(param.low),
                                                           np.log(param.high))))
        else:
            setting[param.name] = float(rng.uniform(param.low, param.high))
    return setting


def cpu_seconds() -> float:
    """This process's CPU seconds and its ended children's (the pool, shut down first)."""
    get_reusable_executor().shutdown(wait=True)
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("spec", nargs="?", default=str(builtin_spec_path("quickstart")))
    parser.add_argument("--trials", type=int, default=16)
    parser.add_argument("--replicates", type=int, default=10)
    args = parser.parse_args()
    problem = Problem.from_spec(load_spec(args.spec))
    spec, B = problem.spec, args.replicates
    rng = np.random.default_rng(0)
    settings = [draw(spec.selectors[0].search, rng) for _ in range(args.trials)]
    states = [[spec.seed or 0, number, 1] for number in range(args.trials)]
    options = problem.protocol_options()
    estimators = [problem.estimator(setting) for setting in settings]

    def trial_by_trial() -> dict:
        return {(i, b): problem.measure_values(runs)
                for i, (estimator, state) in enumerate(zip(estimators, states, strict=True))
                for b, runs in enumerate(replicates(estimator, problem.X, problem.y, B,
                                                    random_state=state, progress=False,
                                                    n_jobs=spec.protocol.n_jobs, **options))}

    def pooled(n_jobs: int) -> dict:
        return {(i, b): problem.measure_values(runs) for i, b, runs in replicate_protocols(
            estimators, problem.X, problem.y, B, random_states=states, n_jobs=n_jobs,
            **options)}

    list(replicate_protocols(estimators[:2], problem.X, problem.y, 1, random_states=states[:2],
                             **options))  # warm-up: imports, the pool's workers
    rows = []
    for label, compute in [("trial by trial (before)", trial_by_trial),
                           ("one pool, 1 process", lambda: pooled(1)),
                           (f"one pool, {effective_n_jobs(-1)} processes", lambda: pooled(-1))]:
        cpu, start = cpu_seconds(), time.perf_counter()
        values = compute()
        wall = time.perf_counter() - start
        rows.append((label, wall, cpu_seconds() - cpu, values))
    same = all(values == rows[0][3] for *_, values in rows[1:])
    print(f"{spec.name}: {args.trials} settings × B = {B} × M = {spec.protocol.runs} runs "
          f"({args.trials * B * spec.protocol.runs}), spec n_jobs = {spec.protocol.n_jobs}, "
          f"{os.cpu_count()} cores; identical values: {same}\n")
    print("| replicates | wall s | × first row | CPU s |")
    print("|---|---|---|---|")
    for label, wall, cpu, _ in rows:
        print(f"| {label} | {wall:.1f} | {rows[0][1] / wall:.2f}× | {cpu:.1f} |")


if __name__ == "__main__":
    main()
