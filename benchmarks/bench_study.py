"""What a tuning study costs: a 100-trial study on singh, where its time goes, and a
hand-written Optuna + scikit-learn study as the baseline, in the same run.

Run from the repository root::

    python benchmarks/bench_study.py                # 100 trials per configuration (about 12 min)
    python benchmarks/bench_study.py --trials 20    # a shorter run

Setting: ``../shared/data/singh.csv.gz`` (102 × 12 600), the variance pre-filter to 5 000
features computed on each run's training sample, M = 100 stratified bootstrap runs scored
out of bag, HybridRFE k = 20 over the registry's search space (N, ε, λ, λ_f, α), TPE
seeded with 0, φ_iw the stability objective with φ and φ_pears recorded; two worker
processes running one run at a time each (``tune --workers 2 --n-jobs 1``), a SQLite
storage and its artifact folder in a temporary folder. Configurations, one after the
other:

1. shared resamples (the default): every trial on the same 100 resamples, prepared once
   per worker (``RunCache``);
2. per-trial resamples (``protocol.resamples = "per_trial"``): each trial draws and
   prepares its own;
3. shared resamples with φ_msi (|Spearman| similarity) as the objective.

Per configuration: the wall time, trials per minute, the cost of a trial in process-seconds
(wall × workers / trials) and where it goes, from each trial's ``timing`` attribute: run
preparation, fits, out-of-bag scoring, the rest of the protocol (clones, rank assembly),
measures, artifacts (RunSet and stability map), Optuna (the trial's time outside the
objective: sampling, storage writes), and what is outside every trial (worker start-up,
waiting for the storage).

Baseline: 003 Algorithm 1 written plainly on scikit-learn (``tests/reference/rfe.py``:
``LogisticRegression`` refitted from scratch at every elimination step, default
tolerance), in a hand-written Optuna objective over the same space with the same
protocol (stratified bootstrap per trial, per-run variance pre-filter, out-of-bag
accuracy, φ_iw by ``paretostab.stability``; α is drawn but the plain final model has no
frequency shrinkage — the same single fit), 3 trials in two processes, BLAS limited to
one thread in each (as paretostab's fits are; without the limit, two processes of two
BLAS threads on two cores run the reference about 3× slower still). The same three
parameter sets are then run as paretostab trials (after one warm-up trial that prepares
the runs), so that the ratio compares equal work.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DATA = ROOT.parent / "shared" / "data" / "singh.csv.gz"
RUNS, PREFILTER, K = 100, 5000, 20


def spec_mapping(name: str, trials: int, *, resamples: str = "shared",
                 objective: str = "iw") -> dict:
    table = {"stability": objective, "record": ["nogueira", "pearson", "iw"]}
    if objective == "msi":
        table["similarity"] = "spearman"
    return {
        "study": {"name": name, "trials": trials, "seed": 0, "sampler": "tpe"},
        "data": {"source": str(DATA), "prefilter": PREFILTER},
        "protocol": {"runs": RUNS, "n_jobs": 1, "resamples": resamples},
        "selector": {"name": "hybrid_rfe", "fixed": {"n_features": K}},
        "objective": table,
    }


# ----------------------------------------------------------------------- paretostab


def run_study(mapping: dict, folder: Path, workers: int) -> dict:
    """Tune the spec into a fresh storage; the wall time and every trial's record."""
    from paretostab._tuning import run_study
    from paretostab.spec import parse_spec

    url = f"sqlite:///{folder / (mapping['study']['name'] + '.db')}"
    start = time.perf_counter()
    study = run_study(parse_spec(mapping), storage=url, workers=workers, progress=False)
    wall = time.perf_counter() - start
    trials = [t for t in study.get_trials(deepcopy=False) if t.state.name == "COMPLETE"]
    return {"wall": wall, "workers": workers, "trials": [trial_record(t) for t in trials],
            "failed": len(study.trials) - len(trials)}


def trial_record(trial) -> dict:
    timing = dict(trial.user_attrs["timing"])
    duration = (trial.datetime_complete - trial.datetime_start).total_seconds()
    timing["optuna"] = duration - trial.user_attrs["seconds"]
    timing["duration"] = duration
    return {"number": trial.number, "params": trial.params, "timing": timing,
            "values": trial.values}


def breakdown(result: dict) -> dict:
    """Mean process-seconds per trial, by component."""
    trials = result["trials"]
    n = len(trials)
    mean = {key: statistics.fmean(t["timing"][key] for t in trials)
            for key in ("preparation", "fits", "scoring", "protocol", "measures", "artifacts",
                        "optuna", "duration")}
    per_trial = result["wall"] * result["workers"] / n
    return {
        "wall": result["wall"], "trials_per_minute": n / result["wall"] * 60,
        "per_trial": per_trial,
        "preparation": mean["preparation"], "fits": mean["fits"], "scoring": mean["scoring"],
        "protocol_rest": mean["protocol"] - mean["preparation"] - mean["fits"]
        - mean["scoring"],
        "measures": mean["measures"], "artifacts": mean["artifacts"],
        "optuna": mean["optuna"], "outside": per_trial - mean["duration"],
        "artifacts_share": mean["artifacts"] / mean["protocol"],
        "cache_mib": max(t["timing"]["run_cache_mib"] for t in trials),
    }


def startup_seconds() -> dict:
    """A worker's start-up: a fresh interpreter importing the tuning stack, and the
    data it receives from the parent (pickled once, unpickled there); the CSV parse the
    parent does once."""
    code = ("import time; t = time.perf_counter(); import paretostab._tuning, optuna, sklearn;"
            " print(time.perf_counter() - t)")
    imports = min(float(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                       text=True, check=True, cwd=ROOT).stdout)
                  for _ in range(3))
    from paretostab._problem import Problem
    from paretostab.spec import parse_spec

    start = time.perf_counter()
    problem = Problem.from_spec(parse_spec(spec_mapping("startup", 1)))
    load = time.perf_counter() - start
    payload = pickle.dumps(problem)
    start = time.perf_counter()
    pickle.loads(payload)
    return {"imports": imports, "unpickle": time.perf_counter() - start, "load": load,
            "megabytes": len(payload) / 2**20}


# ---------------------------------------------------------------------- hand-written


def handwritten_objective(trial, X, y):
    """What a user would write: the protocol around the plain Algorithm 1 reference."""
    from paretostab import stability
    from tests.reference.rfe import reference_hybrid_rfe, reference_predict

    params = {
        "n_stable": trial.suggest_int("n_stable", 0, K),
        "epsilon": trial.suggest_float("epsilon", 1e-3, 1.0, log=True),
        "reg": trial.suggest_float("reg", 1e-3, 1e3, log=True),
        "final_reg": trial.suggest_float("final_reg", 1e-3, 1e3, log=True),
    }
    trial.suggest_float("alpha", 0.0, 1.0)
    start = time.perf_counter()
    seeds = np.random.SeedSequence([0, trial.number]).generate_state(RUNS)
    importances, accuracies = [], []
    for seed in seeds:
        rng = np.random.default_rng(int(seed))
        train = np.concatenate([rng.choice(np.flatnonzero(y == c), size=(y == c).sum())
                                for c in np.unique(y)])
        oob = np.setdiff1d(np.arange(y.size), train)
        keep = np.sort(np.argsort(-X[train].var(axis=0, ddof=1), kind="stable")[:PREFILTER])
        fit = reference_hybrid_rfe(X[train][:, keep], y[train], n_features=K, **params)
        accuracies.append(np.mean(reference_predict(fit, X[oob][:, keep]) == y[oob]))
        row = np.zeros(X.shape[1])
        row[keep[fit["support"]]] = np.abs(fit["coef"])
        importances.append(row)
    trial.set_user_attr("seconds", time.perf_counter() - start)
    return float(np.mean(accuracies)), stability("iw", np.array(importances))


def handwritten_worker(url: str, n_trials: int, index: int) -> None:
    import optuna
    from threadpoolctl import threadpool_limits

    from paretostab.data import load_dataset

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    data = load_dataset(DATA)
    study = optuna.create_study(study_name="handwritten", storage=url, load_if_exists=True,
                                directions=["maximize", "maximize"],
                                sampler=optuna.samplers.TPESampler(seed=index))
    with threadpool_limits(1):  # two processes on two cores: one BLAS thread each
        study.optimize(lambda trial: handwritten_objective(trial, data.X, data.y),
                       n_trials=n_trials)


def run_handwritten(folder: Path, trials: int = 3) -> list[dict]:
    import optuna

    url = f"sqlite:///{folder / 'handwritten.db'}"
    optuna.create_study(study_name="handwritten", storage=url,
                        directions=["maximize", "maximize"])
    context = multiprocessing.get_context("spawn")
    shares = [trials - trials // 2, trials // 2]
    processes = [context.Process(target=handwritten_worker, args=(url, share, index))
                 for index, share in enumerate(shares) if share]
    for process in processes:
        process.start()
    for process in processes:
        process.join()
    study = optuna.load_study(study_name="handwritten", storage=url)
    return [{"params": t.params, "duration": (t.datetime_complete - t.datetime_start)
             .total_seconds(), "values": t.values}
            for t in study.get_trials(deepcopy=False) if t.state.name == "COMPLETE"]


def run_paired(folder: Path, parameter_sets: list[dict]) -> list[float]:
    """paretostab trials on the given parameter sets, in one process after a warm-up trial
    on the first of them (which prepares the runs): their durations in seconds."""
    from paretostab._storage import open_storage
    from paretostab._tuning import create_or_load_study, run_study
    from paretostab.spec import parse_spec

    mapping = spec_mapping("paired", len(parameter_sets) + 1)
    spec = parse_spec(mapping)
    url = f"sqlite:///{folder / 'paired.db'}"
    study = create_or_load_study(spec, storage=open_storage(url))
    for params in [parameter_sets[0], *parameter_sets]:
        study.enqueue_trial(params)
    study = run_study(spec, storage=url, progress=False)
    trials = study.get_trials(deepcopy=False)[1:]
    return [(t.datetime_complete - t.datetime_start).total_seconds() for t in trials]


# --------------------------------------------------------------------------- report


def fmt(x: float, digits: int = 2) -> str:
    return f"{x:.{digits}f}" if math.isfinite(x) else "—"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--baseline-trials", type=int, default=3)
    parser.add_argument("--json", help="also write the raw numbers to this file")
    args = parser.parse_args()
    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)  # as the command line: no per-trial log
    if not DATA.exists():
        sys.exit(f"{DATA} not found: the benchmark reads the shared singh data set.")
    configurations = [
        ("shared resamples, φ_iw", spec_mapping("shared", args.trials)),
        ("per-trial resamples, φ_iw", spec_mapping("per_trial", args.trials,
                                                   resamples="per_trial")),
        ("shared resamples, φ_msi objective", spec_mapping("msi", args.trials,
                                                           objective="msi")),
    ]
    raw = {"startup": startup_seconds()}
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        results = {}
        for label, mapping in configurations:
            results[label] = run_study(mapping, folder, args.workers)
            print(f"{label}: {len(results[label]['trials'])} trials in "
                  f"{results[label]['wall']:.1f} s", file=sys.stderr)
        baseline = run_handwritten(folder, args.baseline_trials)
        paired = run_paired(folder, [b["params"] for b in baseline])
    raw.update(results=results, baseline=baseline, paired=paired)
    rows = {label: breakdown(result) for label, result in results.items()}

    print(f"singh (102 × 12 600), pre-filter {PREFILTER} per run, M = {RUNS}, HybridRFE "
          f"k = {K} (registry space), TPE seed 0, {args.workers} workers × 1 process, "
          f"{args.trials} trials\n")
    print("| configuration | wall s | trials / min | s per trial | preparation | fits | "
          "scoring | protocol rest | measures | artifacts | Optuna | outside trials | "
          "artifacts / protocol | run cache MiB |")
    print("|---|" + "---|" * 13)
    for label, row in rows.items():
        print(f"| {label} | {row['wall']:.1f} | {row['trials_per_minute']:.1f} "
              f"| {row['per_trial']:.2f} | {row['preparation']:.3f} | {row['fits']:.2f} "
              f"| {row['scoring']:.3f} | {row['protocol_rest']:.3f} | {row['measures']:.3f} "
              f"| {row['artifacts']:.3f} | {row['optuna']:.3f} | {row['outside']:.2f} "
              f"| {100 * row['artifacts_share']:.1f} % | {row['cache_mib']:.0f} |")
    startup = raw["startup"]
    print(f"\nWorker start-up: {startup['imports']:.2f} s of imports in a fresh interpreter, "
          f"{startup['unpickle'] * 1000:.0f} ms to unpickle the {startup['megabytes']:.0f} MB "
          f"of data the parent loaded once ({startup['load']:.2f} s CSV parse).")
    print("\nHand-written Optuna + scikit-learn study (003 Algorithm 1 plainly), "
          f"{len(baseline)} trials in 2 processes, and paretostab trials on the same "
          "parameter sets (one process, after a warm-up trial):\n")
    print("| N | ε | λ | λ_f | hand-written s | paretostab s | ratio |")
    print("|---|---|---|---|---|---|---|")
    for trial, ours in zip(baseline, paired, strict=True):
        p = trial["params"]
        print(f"| {p['n_stable']} | {p['epsilon']:.3g} | {p['reg']:.3g} | {p['final_reg']:.3g} "
              f"| {trial['duration']:.1f} | {ours:.2f} | **{trial['duration'] / ours:.1f}×** |")
    hand = statistics.fmean(t["duration"] for t in baseline)
    mean_paired = statistics.fmean(paired)
    shared = rows[configurations[0][0]]
    print(f"\nMean per trial: hand-written {hand:.1f} s, paretostab {mean_paired:.2f} s on "
          f"the same parameters (**{hand / mean_paired:.1f}×**); the shared-resamples "
          f"study's {shared['per_trial']:.2f} process-seconds per trial are "
          f"**{hand / shared['per_trial']:.1f}×** below the hand-written mean.")
    if args.json:
        Path(args.json).write_text(json.dumps(raw, indent=1, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
