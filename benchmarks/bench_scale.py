"""Selection at scale: seconds and peak memory of one fit over a grid of n × d, of one fit
of every other selector at one cell, and of the first call of three stability measures,
each against a plain baseline measured in the same run.

Run from the repository root::

    python benchmarks/bench_scale.py                         # all three parts
    python benchmarks/bench_scale.py --part grid             # the grid (long: see below)
    python benchmarks/bench_scale.py --part grid --cases elastic_net --cells 1000x2000
    python benchmarks/bench_scale.py --part selectors        # one cell per selector
    python benchmarks/bench_scale.py --part measures         # sma_count, msi, nogueira
    python benchmarks/bench_scale.py --quick                 # a smoke run of all parts

Every measurement runs in a fresh process with BLAS limited to one thread
(``threadpoolctl.threadpool_limits(1)``), which generates the data, runs the method once on
a tiny problem (the one-time costs of a process: lazy imports, the thread pools'
inspection), then times it. Reported: the wall seconds with the CPU seconds of the
process beside them (steadier than wall time on a shared machine), their ratios
(paretostab / baseline: below 1 is faster), and the peak resident memory of each process
*during the timed call* (Linux: the high-water mark ``VmHWM`` is reset once the data are
generated; elsewhere the process's ``ru_maxrss``, data generation included), with the
size of the data for scale. "—" marks a baseline that does not exist or cannot run at
that size (the last column says why); a process still running after ``--timeout``
seconds (120 s for the ``msi`` oracle) is stopped and reported as such (a stopped
baseline's ratio is then an upper bound, "< r"). Prints one
Markdown table per part; each row gives the n and d it was measured at.

**Part ``grid``** (``--part grid``; the :data:`CASES`): n ∈ {100, 1 000, 10 000} × d ∈
{2 000, 20 000, 200 000}, the cells whose data fit ``--memory`` GiB four times over (the
raw data, its standardisation, the distinct rows a selector fits and one working copy:
10 000 × 200 000 does not fit 24 GiB). Data: the seeded two-class simulation of
``tests/reference/rfe.py`` with 5 informative features, correlated blocks, noise and
random feature scales; k = 20.

* ``hybrid_rfe``: ``HybridRFE(n_features=k, step=0.2)`` with its other defaults (those of
  a tune trial's parameters not searched), against 003 Algorithm 1 written plainly on
  scikit-learn (``tests/reference/rfe.py``): ``LogisticRegression`` (lbfgs, scikit-learn's
  default ``tol = 1e-4`` and ``max_iter = 100``, ``C = 1/(2λ)``, λ = 1) refitted from
  scratch at each step, dropping 20 % of the remaining features down to k.
* ``elastic_net``: the calibrated elastic net
  ``ElasticNetSelector(l1_ratio=0.5, target_features=k)``, whose one ``fit`` (``reg``
  None) searches the λ₁ selecting exactly k features on the data, against what a plain
  user searches with scikit-learn: ``LogisticRegression(solver="saga", l1_ratio=1/3,
  warm_start=True)`` (scikit-learn's other defaults: ``max_iter = 100`` epochs,
  ``tol = 1e-4``; convergence warnings silenced and counted) on ``StandardScaler``-ed X,
  C bisected in log C on [C₀, 1 000 C₀], C₀ = ``l1_min_c(X, y, loss="log") / 3`` (below
  it nothing is selected: zero weights are optimal while ``C ‖∇loss(0)‖∞ ≤ ρ``), at most
  12 fits, stopping at the first fit with k ± 1 non-zero weights; the set kept is that of
  the fit closest to k. ρ = 1/3 is the package's
  λ₂ = 0.5: scikit-learn's ``l1_ratio`` ρ = λ₂/(2 − λ₂) gives the same objective up to
  the factor C (``paretostab/selectors/_linear.py``); ``penalty="elasticnet"`` is
  deprecated since scikit-learn 1.8 (``l1_ratio`` alone says it). The last column gives
  the number of fits, the count reached, and how many fits stopped at ``max_iter``.

Time on one core: the HybridRFE grid about 15 min; the elastic net's saga baseline about
10 min over the six cells up to n·d = 2·10⁷, 6 min at 10 000 × 20 000 and 10 min at
1 000 × 200 000 (its fits take about 0.75 s per 10⁶ entries of X; the package's side, seconds).

The grid's figures are the wall seconds of the fit (``--repeat R``: the fastest of up to R
fits in the process, none started once ``--budget`` seconds are spent: a process's first
large fit also pays for its first touch of fresh memory, which a tune trial's worker pays
once for many runs). The Jaccard column compares the two selected sets: the logistic
baseline's default tolerance is loose (``benchmarks/bench_rfe.py``: at n = 102 its sets
agree with the tight-tolerance ground truth at a mean Jaccard of 0.52), the package's is
not.

**Part ``selectors``** (``--part selectors``; ``scale_cases.SELECTOR_CASES``): one fit of
each other selector of the registry, made with ``SELECTORS[name].make(**params)``,
k = 20, on the same simulation at n = 1 000, d = 20 000 — ``relief`` and
``kernel_svm_rfe`` at n = 1 000, d = 2 000: at d = 20 000 skrebate's ReliefF would take
≈ 5 min and the kernel SVM-RFE ≈ 2.5 min (``--selector-cell`` moves them all) —, against
its natural plain baseline:

* ``logistic_rfe`` (``n_stable=0``): the grid's plain logistic RFE.
* ``svm_rfe`` (``loss="hinge"``): the same plain loop (standardised X, refit from scratch,
  drop 20 % of the remaining features of smallest |w|, a final fit on the k kept) around
  ``LinearSVC(loss="hinge", C=1/2)`` with scikit-learn's defaults. scikit-learn's
  ``RFE(step=0.2)`` would drop 20 % of the *original* count at each step, 5 steps in all.
* ``biased_rfe`` (``shape=1``, ``random_state=0``): that loop around the grid's
  ``LogisticRegression`` on X/β, β drawn as the package draws it (Γ(1, 1) re-centred to
  mean 1, ``RandomState(0)``).
* ``lasso`` (``target_features=k``: λ calibrated by the fit): liblinear
  ``LogisticRegression(solver="liblinear", l1_ratio=1)`` on standardised X, C bisected as
  the elastic net's (C₀ = ``l1_min_c``; liblinear also penalises the intercept).
* ``group_lasso`` (``groups`` = consecutive blocks of 5 features, ``target_features=k``):
  scikit-learn has no group lasso; the baseline is the lasso's.
* ``random_forest`` (``n_trees=100``, ``random_state=0``: the package's default is 1 000
  trees): ``RandomForestClassifier(n_estimators=100, random_state=0)`` and the top k of its
  impurity importances. The package ranks by OOB permutation importances, then fits a
  final forest on the k features: more work by design.
* ``relief`` (``n_neighbors=5``, ``n_instances=1000``): skrebate's
  ``ReliefF(n_features_to_select=k, n_neighbors=5)`` (every instance).
* ``t_test``: ``SelectKBest(f_classif)``. ``mim`` (its default, the binned plug-in
  estimate of the papers): ``SelectKBest(mutual_info_classif)`` (k-NN estimate,
  ``random_state=0``): not the same estimator. ``mrmr``: no scikit-learn mRMR; the
  baseline is the same greedy criterion (relevance − mean redundancy, Gaussian MI of
  Pearson's r) in a dozen lines of numpy. The package's filters also fit their final
  L2-logistic model on the k features, and so do these three baselines (scikit-learn's
  ``LogisticRegression(C=1/2)`` on the k standardised features, as a
  ``Pipeline(StandardScaler, SelectKBest, LogisticRegression)`` would).
* ``kernel_svm_rfe`` (RBF): scikit-learn's ``RFE`` cannot rank a kernel SVM's features;
  the baseline times the ``SVC(kernel="rbf", C=1/2)`` fits alone at the same elimination
  steps (the last features dropped, no criterion computed): a lower bound of any kernel
  SVM-RFE's cost, with no selected set to compare ("—").

**Part ``measures``** (``--part measures``; ``scale_cases.MEASURE_CASES``): the first call
of ``stability(name, Z or I, similarity=FeatureSimilarity(X, "spearman"))`` (its
defaults; ``nogueira`` takes Z alone) at d = 20 000 and 200 000 (``--measure-d``), on the
problem of ``benchmarks/bench_similarity_scale.py``: n = 100 examples with groups of five
similar features, M = 100 (``--runs``) overlapping runs of 15–25 features, importances
uniform in [0.1, 1]. Baselines: ``nogueira``, the estimator of Nogueira et al. (2018)
(unbiased selection variances) in four lines of numpy; ``msi``, the oracle
``tests/reference/msi.py`` (one ``scipy.optimize.linprog`` per pair of runs) on the full
|Spearman| matrix computed plainly (ranks, standardised, one product; included in its
time), where that matrix fits 6 GiB (d = 200 000 would need 298 GiB: "—"), stopped past
120 s; ``sma_count``: none runs at these sizes — the oracle
``tests/reference/adjusted.py`` takes its expectation exactly, over all C(d, k)² pairs
of subsets. The last columns give both values.

``--quick``: a smoke run of every part (small cells, two processes at a time: its
timings are not measurements).

Adding a row: a ``scale_cases.Case`` with the method and the baseline, each a function
``(X, y, k)`` that fits once and returns the indices of the selected features (a measure:
``(X, Z, I) ->`` its value), or ``(result, note)``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.scale_cases import (  # noqa: E402
    MEASURE_CASES,
    SELECTOR_CASES,
    SELECTOR_CELL,
    Case,
    Skip,
    elastic_net,
    measure_problem,
    plain_elastic_net,
)
from paretostab.selectors import HybridRFE  # noqa: E402
from tests.reference.rfe import reference_hybrid_rfe, simulate  # noqa: E402

GRID_N = (100, 1_000, 10_000)
GRID_D = (2_000, 20_000, 200_000)
QUICK_CELLS = ((100, 500), (300, 500), (100, 2_000))
QUICK_SELECTOR_CELL = (100, 500)
MEASURE_D = (20_000, 200_000)
QUICK_MEASURE_D = (2_000,)
QUICK_RUNS = 20
MEASURE_N = 100  # examples of the measures' problem (bench_similarity_scale)
COPIES = 4  # data, standardised data, distinct rows, a working copy
SKLEARN_DEFAULT = {"tol": 1e-4, "max_iter": 100}
PARTS = ("grid", "selectors", "measures")


def _hybrid_rfe(X, y, k):
    return np.flatnonzero(HybridRFE(n_features=k, step=0.2).fit(X, y).support_)


def _plain_rfe(X, y, k):
    return reference_hybrid_rfe(X, y, n_features=k, step=0.2, **SKLEARN_DEFAULT)["support"]


CASES = {case.name: case for case in [
    Case("hybrid_rfe", _hybrid_rfe, _plain_rfe),
    Case("elastic_net", elastic_net, plain_elastic_net),
]}
REGISTRIES = {"grid": CASES, "selectors": SELECTOR_CASES, "measures": MEASURE_CASES}


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


def child(part: str, case: str, side: str, n: int, d: int, args: argparse.Namespace) -> dict:
    """Generate the cell's data, then time up to ``repeat`` calls (no new one once they
    took ``budget`` seconds); the fastest one's wall and CPU seconds, the number of calls,
    the peak memory, and the selected features (a measure: its value), as a dict."""
    if part == "measures":
        data, tiny = measure_problem(d, args.runs), measure_problem(60, 5)
    else:
        data = (*simulate(n=n, d=d, n_informative=5, seed=0), args.k)
        tiny = (*simulate(n=40, d=60, seed=1), 5)
    fit = getattr(REGISTRIES[part][case], side)
    seconds, cpu = [], []
    try:
        with threadpool_limits(1):
            fit(*tiny)  # first-call costs a process pays once
            reset = _reset_peak()
            while len(seconds) < args.repeat and sum(seconds) < args.budget:
                start, start_cpu = time.perf_counter(), time.process_time()
                result = fit(*data)
                seconds.append(time.perf_counter() - start)
                cpu.append(time.process_time() - start_cpu)
    except Skip as reason:
        return {"skipped": str(reason)}
    peak = _rss_mib("VmHWM") if reset else None
    if peak is None:  # ru_maxrss: KiB on Linux, bytes on macOS
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (
            2**20 if sys.platform == "darwin" else 2**10)
    result, note = result if isinstance(result, tuple) else (result, "")
    out = {"seconds": min(seconds), "cpu": min(cpu), "fits": len(seconds), "peak_mib": peak,
           "note": note}
    if part == "measures":
        out["value"] = float(result)
    else:
        out["selected"] = None if result is None else [int(f) for f in result]
    return out


def run_cell(part: str, case: str, side: str, n: int, d: int,
             args: argparse.Namespace) -> dict | None:
    """One side of a case at (n, d) in a fresh process; None where there is no baseline."""
    spec = REGISTRIES[part][case]
    if getattr(spec, side) is None:
        return None
    timeout = spec.timeout if side == "baseline" and spec.timeout else args.timeout
    command = [sys.executable, __file__, "--child", part, case, side, str(n), str(d),
               "--k", str(args.k), "--repeat", str(args.repeat), "--budget", str(args.budget),
               "--runs", str(args.runs)]
    try:
        out = subprocess.run(command, capture_output=True, text=True, check=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"skipped": f"stopped after {timeout:g} s", "timeout": timeout}
    except subprocess.CalledProcessError as error:
        lines = error.stderr.strip().splitlines() or ["no output"]
        return {"skipped": f"failed: {lines[-1]}"}
    return json.loads(out.stdout)


def jaccard(a, b) -> float:
    a, b = set(a), set(b)
    return len(a & b) / len(a | b)


def parse_cell(text: str) -> tuple[int, int]:
    n, _, d = text.lower().partition("x")
    return int(n.replace("_", "")), int(d.replace("_", ""))


def _seconds(side: dict | None) -> str:
    if side is None or "skipped" in side:
        return "—"
    return f"{side['seconds']:.2f} ({side['cpu']:.2f})"


def _ratio(ours: dict, base: dict | None) -> str:
    if "skipped" not in ours and base is not None and "timeout" in base:
        return f"< {ours['seconds'] / base['timeout']:.2f}"
    if "skipped" in ours or base is None or "skipped" in base:
        return "—"
    return f"**{ours['seconds'] / base['seconds']:.2f}** ({ours['cpu'] / base['cpu']:.2f})"


def _peak(side: dict | None) -> str:
    return "—" if side is None or "skipped" in side else f"{side['peak_mib']:,.0f}"


def _notes(spec: Case, ours: dict, base: dict | None) -> str:
    notes = [spec.note] if spec.note else []
    for label, side in (("paretostab", ours), ("baseline", base)):
        if side is not None and (side.get("skipped") or side.get("note")):
            notes.append(f"{label}: {side.get('skipped') or side['note']}")
    return "; ".join(notes)


def _header(columns: list[str]) -> str:
    return "| " + " | ".join(columns) + " |\n" + "|---" * len(columns) + "|"


def _fit_row(part: str, name: str, n: int, d: int, ours: dict, base: dict | None) -> str:
    spec = REGISTRIES[part][name]
    fits = ", ".join(str(side["fits"]) if side and "fits" in side else "—"
                     for side in (ours, base))
    same = "—"
    if (base is not None and ours.get("selected") is not None
            and base.get("selected") is not None):
        same = f"{jaccard(ours['selected'], base['selected']):.2f}"
    return (f"| {name} | {n:,} | {d:,} | {n * d * 8 / 2**20:,.0f} | {fits} "
            f"| {_seconds(ours)} | {_seconds(base)} | {_ratio(ours, base)} "
            f"| {_peak(ours)} | {_peak(base)} | {same} | {_notes(spec, ours, base)} |")


def _measure_row(name: str, n: int, d: int, runs: int, ours: dict, base: dict | None) -> str:
    spec = MEASURE_CASES[name]

    def value(side):
        return "—" if side is None or "skipped" in side else f"{side['value']:.4f}"

    return (f"| {name} | {n:,} | {runs} | {d:,} | {_seconds(ours)} | {_seconds(base)} "
            f"| {_ratio(ours, base)} | {_peak(ours)} | {_peak(base)} | {value(ours)} "
            f"| {value(base)} | {_notes(spec, ours, base)} |")


FIT_COLUMNS = ["case", "n", "d", "data MiB", "fits", "paretostab s (CPU)",
               "baseline s (CPU)", "ratio (CPU)", "paretostab peak MiB", "baseline peak MiB",
               "Jaccard", "notes"]
MEASURE_COLUMNS = ["measure", "n", "M", "d", "paretostab s (CPU)", "baseline s (CPU)",
                   "ratio (CPU)", "paretostab peak MiB", "baseline peak MiB",
                   "paretostab value", "baseline value", "notes"]


def _rows(part: str, jobs: list[tuple[str, int, int]], args: argparse.Namespace):
    """The (name, n, d, ours, baseline) of each job, in order, ``args.jobs`` processes at a
    time (one by default: measurements do not share the machine with each other)."""
    def one(job):
        name, n, d = job
        return (name, n, d, run_cell(part, name, "method", n, d, args),
                run_cell(part, name, "baseline", n, d, args))

    if args.jobs == 1:
        yield from map(one, jobs)
        return
    with ThreadPoolExecutor(args.jobs) as pool:
        yield from pool.map(one, jobs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=[*PARTS, "all"], default="all",
                        help="which part to run (default all)")
    parser.add_argument("--cells", nargs="+", type=parse_cell, metavar="NxD",
                        help="grid: run these cells only (e.g. 1000x2000)")
    parser.add_argument("--cases", nargs="+", choices=sorted(CASES), default=sorted(CASES),
                        help="grid: these cases only")
    parser.add_argument("--selectors", nargs="+", choices=list(SELECTOR_CASES),
                        default=list(SELECTOR_CASES), help="selectors: these only")
    parser.add_argument("--selector-cell", type=parse_cell, metavar="NxD",
                        help="selectors: measure them all at this cell")
    parser.add_argument("--measures", nargs="+", choices=list(MEASURE_CASES),
                        default=list(MEASURE_CASES), help="measures: these only")
    parser.add_argument("--measure-d", type=int, nargs="+", default=list(MEASURE_D),
                        help="measures: these numbers of features")
    parser.add_argument("--runs", type=int, default=100, help="measures: M runs")
    parser.add_argument("--k", type=int, default=20, help="features selected")
    parser.add_argument("--memory", type=float, default=24.0,
                        help=f"GiB available: cells need {COPIES} copies of the data")
    parser.add_argument("--repeat", type=int, default=1,
                        help="fits per cell and method, the fastest reported (default 1)")
    parser.add_argument("--budget", type=float, default=60.0,
                        help="seconds after which a cell starts no further fit (default 60)")
    parser.add_argument("--timeout", type=float, default=1800.0,
                        help="seconds after which a process is stopped (default 1800)")
    parser.add_argument("--jobs", type=int, default=None,
                        help="processes at a time (default 1; --quick: 2)")
    parser.add_argument("--quick", action="store_true", help="a small smoke run")
    parser.add_argument("--child", nargs=5, metavar=("PART", "CASE", "SIDE", "N", "D"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        part, case, side, n, d = args.child
        print(json.dumps(child(part, case, side, int(n), int(d), args)))
        return
    if args.jobs is None:
        args.jobs = 2 if args.quick else 1
    parts = PARTS if args.part == "all" else (args.part,)
    if args.quick:
        args.runs = QUICK_RUNS
    fits = ("one fit" if args.repeat == 1 else
            f"the fastest of up to {args.repeat} fits (none started after {args.budget:g} s)")
    print("One BLAS thread, each method and baseline in its own process; peak = resident "
          "memory during the timed call; ratio = paretostab / baseline (wall seconds; CPU "
          "seconds in parentheses); — = no baseline, or it could not run (notes)"
          + (" — QUICK SMOKE RUN, two processes at a time: not measurements" if args.quick
             else "") + "\n")

    if "grid" in parts:
        if args.quick:
            cells = list(QUICK_CELLS)
        elif args.cells:
            cells = args.cells
        else:
            cells = [(n, d) for n in GRID_N for d in GRID_D
                     if COPIES * n * d * 8 <= args.memory * 2**30]
        print(f"**Grid** — k = {args.k}, step = 0.2, {fits} per cell and method; measured at "
              f"(n, d) = {', '.join(f'{n:,} × {d:,}' for n, d in cells)}\n")
        print(_header(FIT_COLUMNS))
        for row in _rows("grid", [(name, n, d) for name in args.cases for n, d in cells],
                         args):
            print(_fit_row("grid", *row), flush=True)
        print()

    if "selectors" in parts:
        cell = QUICK_SELECTOR_CELL if args.quick else args.selector_cell
        jobs = [(name, *(cell or SELECTOR_CASES[name].cell or SELECTOR_CELL))
                for name in args.selectors]
        where = sorted({(n, d) for _, n, d in jobs})
        print(f"**Selectors** — k = {args.k}, {fits} per selector and baseline; measured at "
              f"(n, d) = {', '.join(f'{n:,} × {d:,}' for n, d in where)} (each row says)\n")
        print(_header(FIT_COLUMNS))
        for row in _rows("selectors", jobs, args):
            print(_fit_row("selectors", *row), flush=True)
        print()

    if "measures" in parts:
        ds = QUICK_MEASURE_D if args.quick else args.measure_d
        print(f"**Measures** — first call; n = {MEASURE_N} examples, M = {args.runs} runs of "
              f"15–25 features, |Spearman| similarity; measured at d = "
              f"{', '.join(f'{d:,}' for d in ds)}\n")
        print(_header(MEASURE_COLUMNS))
        saved_repeat, args.repeat = args.repeat, 1  # a first call is timed once
        for name, n, d, ours, base in _rows(
                "measures", [(name, MEASURE_N, d) for d in ds for name in args.measures], args):
            print(_measure_row(name, n, d, args.runs, ours, base), flush=True)
        args.repeat = saved_repeat
        print()


if __name__ == "__main__":
    main()
