"""The resampling protocol: selectors → measured (accuracy, stability) (SPEC §4).

``run_protocol`` draws M resamples of the training data (stratified bootstrap, subsample,
or M/2 complementary pairs of half-samples), runs the selector on each (after an optional
variance pre-filter computed on that run's training sample), scores the final model on the
run's out-of-bag examples, and returns a :class:`~paretostab._runset.RunSet`: the
selection matrix Z, the importance matrix I, the rank matrix R (where the selector ranks),
the per-run scores, seeds and timings. Every run is seeded from one
``numpy.random.SeedSequence``: the same ``random_state`` gives the same RunSet whatever
``n_jobs`` (only the timings differ).

The runs are prepared by :mod:`paretostab._run_cache` (whose
:class:`~paretostab._run_cache.RunCache` keeps them for later calls) and scored by
:mod:`paretostab._metrics`; here they are calibrated (a selector calibrated to a target k̄
reads the runs streamed, :data:`CALIBRATION_BYTES` of them kept for the fits), checked to
fit in memory before any work, fitted and gathered. :func:`replicates` repeats a protocol
B times on fresh resamples (002 §3); :func:`replicate_protocols` runs the replicates of
several selectors (a report's front trials) in one pool of processes, with the same
RunSets.
"""

from __future__ import annotations

import functools
import math
import mmap
import time
import warnings
from collections.abc import Callable, Iterator, Sequence

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from joblib.parallel import BACKENDS, get_active_backend
from sklearn.base import clone

from paretostab import _memory as memory
from paretostab._errors import InvalidInputError, MemoryLimitError, StabilityWarning
from paretostab._metrics import out_of_bag_score
from paretostab._progress import progress_bar
from paretostab._run_cache import PreparedRun, RunCache, prepared_run, resample, run_draws
from paretostab._runset import RunSet, metadata_value
from paretostab._validation import COUNT, FRACTION, PAIRED_RUNS, Interval, is_int
from paretostab._vocabulary import METRICS, RESAMPLINGS
from paretostab.data import check_classes, check_prefilter
from paretostab.selectors import TrainingSample, groups_follow_columns, protocol_selector

__all__ = ["CALIBRATION_BYTES", "replicate_protocols", "replicates", "run_protocol",
           "run_transfer_protocol"]

#: The runs of a protocol: two at least, for a stability to compare.
RUNS = Interval("integer", 2)


def _needs_calibration(selector) -> bool:
    """The calibration contract: a selector with ``calibrate(X, y, samples) -> params``, a
    ``target_features`` and no ``reg`` of its own is calibrated once before the runs;
    ``samples`` is a sequence of the runs' prepared
    :class:`~paretostab.selectors.TrainingSample` objects (their ``columns`` are the run's
    pre-filter), each prepared when it is read (:class:`_CalibrationRuns`): a calibration
    reads ``samples[i]`` when it needs run i and keeps only what it needs of it."""
    params = selector.get_params()
    return (callable(getattr(selector, "calibrate", None))
            and params.get("target_features") is not None and params.get("reg") is None)


#: Memory for the prepared runs a calibration keeps, whole, for the fits that follow it in
#: the same process (beyond those a :class:`RunCache` holds): all of them or none.
CALIBRATION_BYTES = 768 * 2**20


class _CalibrationRuns(Sequence):
    """The runs' training samples as a calibration reads them (``calibrate(X, y,
    samples)``): run i is prepared when it is read, or taken from the run cache.

    Prepared runs are frozen (their standardised copy dropped: recomputed from the same
    numbers when a selector asks). When every run the cache does not hold fits in
    :data:`CALIBRATION_BYTES` with the distinct rows a fit derives from it (judged from
    the first run's size), they are kept, and go on with their preparation time to the
    fits in this process (:meth:`pop`); otherwise none is, and the calibration keeps what
    it needs of each (its problem, within its own budget) and has the others prepared
    again when it reads them. Memory: the budget and one run, whatever M.
    """

    def __init__(self, X: np.ndarray, y: np.ndarray, draws: list[tuple[int, int]],
                 settings: tuple, cache: RunCache | None, fingerprint: str | None):
        self._args = (X, y)
        self._draws, self._settings = draws, settings
        self._cache, self._fingerprint = cache, fingerprint
        self._kept: dict[int, tuple[PreparedRun, float]] = {}
        self._kept_bytes = 0
        self._keeping: bool | None = None  # decided by the first run prepared

    def __len__(self) -> int:
        return len(self._draws)

    def __getitem__(self, i: int) -> TrainingSample:  # type: ignore[override]  # no slices:
        # the selectors read the runs one index at a time
        timed = self._kept.get(i)
        if timed is None:
            timed = prepared_run(*self._args, self._draws[i], self._settings, self._cache,
                                 self._fingerprint)
            run = timed[0]
            if run.sample.budget is not None:  # held by the run cache: no memory of ours
                self._kept[i] = timed
            else:
                run.freeze()
                size = run.nbytes + run.sample.X.nbytes  # and its distinct rows, to come
                if self._keeping is None:
                    self._keeping = size * len(self) <= CALIBRATION_BYTES
                if self._keeping and self._kept_bytes + size <= CALIBRATION_BYTES:
                    self._kept[i] = timed
                    self._kept_bytes += size
        return timed[0].sample

    def pop(self, i: int) -> tuple[PreparedRun, float] | None:
        """Run i with its preparation time, if kept, given up by the sequence."""
        return self._kept.pop(i, None)


def _calibrated(selector, X, y, draws: list[tuple[int, int]], settings: tuple,
                cache: RunCache | None, fingerprint: str | None, n_jobs: int):
    """Calibrate ``selector`` (set its calibrated parameters) on the runs, streamed
    (:class:`_CalibrationRuns`); returns the calibrated values and what each run's fit
    starts from: with ``n_jobs=1`` the runs the calibration kept, given up one at a time
    as their fits come; else nothing (the workers prepare, or have, their own)."""
    samples = _CalibrationRuns(X, y, draws, settings, cache, fingerprint)
    calibrated = selector.calibrate(X, y, samples)
    selector.set_params(**calibrated)
    if n_jobs != 1:
        return calibrated, [None] * len(draws)
    return calibrated, (samples.pop(i) for i in range(len(draws)))


#: What a worker process holds before any data (the interpreter, NumPy, scikit-learn).
_PROCESS_BYTES = 150 * 2**20


def _check_memory(name: str, X: np.ndarray, runs: int, settings: tuple, n_jobs: int,
                  calibrates: bool) -> None:
    """Refuse, before any work, a call whose estimated peak exceeds the memory available
    (:func:`~paretostab._memory.check_room`, one line with the remedy).

    The estimate, in float64 arrays, n_train × d_run the rows and features a run fits: a
    run being fitted holds its training rows, their standardisation, their distinct rows
    and one copy its fit makes (4 n_train d_run), and its out-of-bag rows (about n/e of a
    bootstrap; the other half of a complementary pair, whose larger half, ⌈n/2⌉, is taken
    as n_train); with a pre-filter, its preparation first holds the unfiltered rows and a
    variance temporary (2 n_train d) beside the kept columns. The peak is the larger of
    two phases: the calibration's (one run read, and what it keeps:
    :data:`CALIBRATION_BYTES` at most) and the fits' — ``min(n_jobs, M)`` runs at once on
    this machine (with joblib's process backends each worker process with its interpreter,
    :data:`_PROCESS_BYTES`, and the one copy of X that joblib maps into all of them unless
    X is mapped from a file already, as in ``tune``'s workers; with a backend of other
    machines, Dask, none here), Z, I and R of the M runs, filled as the runs end (17 M d
    bytes), and the runs a calibration kept for them. A run cache is
    not counted: it takes only what the machine can spare (:class:`RunCache`). Nor are a
    selector's own structures beyond one copy of its data (a forest's trees).
    """
    resampling, sample_fraction, prefilter = settings
    n, d = X.shape
    d_run = prefilter or d
    if resampling == "bootstrap":
        n_train = n
    elif resampling == "complementary_pairs":
        n_train = math.ceil(n / 2)
    else:
        n_train = round(sample_fraction * n)
    n_out = math.ceil(n / math.e) if resampling == "bootstrap" else n - n_train
    per_run = 8 * max((4 * n_train + n_out) * d_run,
                      n_train * (2 * d + d_run) if prefilter else 0)
    kept_run = 8 * (2 * n_train + n_out) * d_run  # a frozen run with its distinct rows
    backend = type(get_active_backend()[0])
    if backend in (BACKENDS["loky"], BACKENDS["multiprocessing"]):
        running = min(effective_n_jobs(n_jobs), runs)
        workers = 0 if running == 1 else running
    elif backend in (BACKENDS["threading"], BACKENDS["sequential"]):
        running, workers = min(effective_n_jobs(n_jobs), runs), 0
    else:  # another machine's workers (Dask)
        running, workers = 0, 0
    shared_copy = X.nbytes if workers and not _mapped(X) else 0
    fits = {f"{running} running run{'s' * (running > 1)}": running * per_run,
            "worker processes and the copy of X they share":
                workers * _PROCESS_BYTES + shared_copy,
            "the selections, importances and ranks": 17 * runs * d,
            "the runs kept for them": runs * kept_run if calibrates and n_jobs == 1
            and runs * kept_run <= CALIBRATION_BYTES else 0}
    calibration = {"a run being read": per_run,
                   "the calibration's kept runs": min(CALIBRATION_BYTES, runs * kept_run)}
    parts = fits if not calibrates or sum(fits.values()) >= sum(calibration.values()) \
        else calibration
    remedy = ["pre-filter the features (prefilter; a spec's [data] prefilter)"]
    if running > 1:
        remedy.append(f"run fewer jobs at once (n_jobs = {n_jobs} now)")
    memory.check_room(sum(parts.values()), f"{name} on {n} × {d} data with M = {runs} runs",
                      parts, ", or ".join(remedy) + ".")


def _mapped(array: np.ndarray) -> bool:
    """Whether ``array`` views memory mapped from a file (joblib hands it to worker
    processes by the file's name, not by a copy)."""
    owner: object = array
    while isinstance(owner, np.ndarray):
        owner = owner.base
    return isinstance(owner, mmap.mmap)


def _run_one(selector, X, y, draw: tuple[int, int], settings: tuple, metric: str,
             cache: RunCache | None, fingerprint: str | None,
             timed_run: tuple[PreparedRun, float] | None):
    """Fit a clone of ``selector`` on one prepared run (prepared here unless ``timed_run``
    gives it with its preparation time) and read off what the RunSet keeps."""
    hits = cache.hits if cache is not None else 0
    if timed_run is None:
        timed_run = prepared_run(X, y, draw, settings, cache, fingerprint)
    run, prepare_seconds = timed_run
    estimator = clone(selector)
    features = run.features
    if features is not None:
        groups_follow_columns(estimator, features)
    start = time.perf_counter()
    if hasattr(estimator, "fit_sample"):
        estimator.fit_sample(run.sample)
    else:
        estimator.fit(run.sample.X, run.sample.y)
    fit_seconds = time.perf_counter() - start
    d = run.n_features
    where = slice(None) if features is None else features
    support = np.zeros(d, dtype=bool)
    support[where] = estimator.support_
    importance = None  # the selector gives no importances
    if hasattr(estimator, "importances_"):
        importance = np.zeros(d)
        importance[where] = estimator.importances_
    ranks = None
    if hasattr(estimator, "rank_order_"):
        ranks = np.empty(d, dtype=np.int64)
        ranks[where] = estimator.rank_order_
        if run.rank_tail is not None:  # the pre-filtered-out features follow, by variance
            ranks[run.rank_tail] = np.arange(d - run.rank_tail.size + 1, d + 1)
    start = time.perf_counter()
    score = out_of_bag_score(estimator, run.X_out_of_bag, run.y_out_of_bag, metric)
    score_seconds = time.perf_counter() - start
    report = cache.report(hits) if cache is not None else None
    return support, importance, ranks, score, fit_seconds, prepare_seconds, score_seconds, \
        report


def _check_runs(runs, resampling) -> None:
    """M and the resampling: one of :data:`~paretostab._vocabulary.RESAMPLINGS`, and M even
    for complementary pairs (:data:`~paretostab._validation.PAIRED_RUNS`)."""
    RUNS.check("runs", runs)
    if resampling not in RESAMPLINGS:
        raise InvalidInputError(f"resampling must be one of {RESAMPLINGS}; got {resampling!r}.")
    if resampling == "complementary_pairs":
        PAIRED_RUNS.check("runs", runs)


def _settings(resampling: str, sample_fraction: float, prefilter: int | None) -> tuple:
    """What a run's preparation depends on beyond its draw: (resampling, the subsample's
    fraction or None, the pre-filter or None)."""
    return resampling, sample_fraction if resampling == "subsample" else None, prefilter


def _check_protocol(X, y, runs, resampling, metric, prefilter, n_jobs, sample_fraction):
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise InvalidInputError(
            f"X must be 2-D (n, d) and y have one label per row; got X {X.shape}, y {y.shape}."
        )
    if not np.all(np.isfinite(X)):
        raise InvalidInputError(
            f"X contains {int((~np.isfinite(X)).sum())} NaN or infinite value(s); load it with "
            "paretostab.data.load_dataset(..., impute=...) or clean it first."
        )
    check_classes(y, "y")
    _check_runs(runs, resampling)
    if metric not in METRICS:
        raise InvalidInputError(f"metric must be one of {METRICS}; got {metric!r}.")
    if prefilter is not None:
        check_prefilter(prefilter, X.shape[1])
    if not is_int(n_jobs) or n_jobs == 0:
        raise InvalidInputError(
            f"n_jobs must be a non-zero integer (-1: all cores); got {n_jobs!r}.")
    FRACTION.check("sample_fraction", sample_fraction)
    return X, y


def run_protocol(selector, X, y, *, runs: int = 100, resampling: str = "bootstrap",
                 sample_fraction: float = 0.9, prefilter: int | None = None,
                 metric: str = "accuracy", random_state=None, n_jobs: int = 1,
                 cache: RunCache | None = None, progress: bool | None = None,
                 on_run: Callable[[], object] | None = None) -> RunSet:
    """Run ``selector`` on ``runs`` resamples of (X, y) and measure it (SPEC §4).

    Parameters
    ----------
    selector : a paretostab selector (``support_``, ``importances_`` where it has
        importances, ``predict``), or a scikit-learn selector
        A scikit-learn selector (``get_support()``: ``SelectKBest``, ``RFE``, ...) is
        wrapped in :class:`~paretostab.selectors.ExternalSelector`; a scikit-learn
        estimator that does not select is refused, naming it
        (:func:`~paretostab.selectors.protocol_selector`). Cloned for every run and
        fitted on the run's prepared :class:`~paretostab.selectors.TrainingSample`
        (``fit_sample``; an estimator
        without it gets ``fit(X_run, y_run)``). If it has a ``random_state`` parameter, it
        is set to one seed drawn for this call — the same for every run (a BiasedRFE's β
        is drawn once per protocol, as in 002 §5; :func:`replicates` draws fresh ones). A
        selector with ``calibrate(X, y, samples) -> params``, a ``target_features`` and no
        ``reg`` (the lasso, elastic net, group lasso) is calibrated once on the runs'
        training samples (after their pre-filter; streamed, not all held at once) so that
        the mean number of selected features is on target; the calibrated values are in
        ``RunSet.params["calibrated"]``.
    X : array-like (n, d)
        The examples' features, finite numbers (missing values are filled, or refused,
        when the data are loaded: :func:`~paretostab.data.load_dataset`).
    y : array-like (n,)
        Their class labels: at least 2 classes of at least 2 examples each.
    runs : int
        M (even with ``"complementary_pairs"``).
    resampling : {"bootstrap", "subsample", "complementary_pairs"}
        Stratified (per class) bootstrap of the same size, subsample of
        ``sample_fraction`` of each class without replacement, or complementary pairs of
        half-samples (Shah & Samworth 2013, the runs their PFER bounds need): runs 2j and
        2j + 1 are the two halves of one split, ⌊n_c/2⌋ of each class drawn without
        replacement and the rest; the examples left out are the run's out-of-bag examples
        (for a pair's half, the other half).
    sample_fraction : float in (0, 1)
        The fraction of each class a subsample draws (default 0.9); unused by the
        bootstrap.
    prefilter : int, optional
        Keep the ``prefilter`` features of highest variance, computed on each run's
        training sample (000 §6.2, 003 §7.1); the others get rank after them, by variance.
    metric : {"accuracy", "balanced_accuracy", "f1_macro", "roc_auc"}
        Out-of-bag score of each run's final model (with K > 2 classes, ``f1_macro`` and
        ``roc_auc`` are macro averages over the classes; ``roc_auc`` one-vs-rest).
    random_state : int or sequence of ints, optional
        Seeds everything through one ``numpy.random.SeedSequence``: the runs' resamples
        (one seed per run, or per pair of complementary halves) and the selector's
        ``random_state``. ``RunSet.seeds`` holds each run's resample seed: both runs of a
        pair hold the pair's seed, run 2j the first half and run 2j + 1 the second.
    n_jobs : int
        Runs in parallel processes (joblib); results do not depend on it.
    cache : RunCache, optional
        Keeps the prepared runs (and what selectors derive from them) for later calls
        with the same data, seeds and settings — a tuning study's trials; the RunSet is
        the same with or without it. The data are recognised by their content, hashed
        at every call — once only for read-only arrays (``X.flags.writeable = False``),
        which are taken not to change.
    progress : bool, optional
        The runs' progress: by default a bar when standard error is a terminal, plain
        lines on it otherwise; True the bar, False nothing
        (:func:`~paretostab._progress.progress_bar`).
    on_run : callable, optional
        Called after each run ends (a caller's own progress: a report's replicates).

    Raises
    ------
    MemoryLimitError
        Before any work, when the call's estimated peak memory — its running runs, the
        worker processes and the copy of X they share, the RunSet's matrices, what a
        calibration keeps — exceeds what this process can still take
        (:func:`~paretostab._memory.available_bytes`): one line with the estimate and the
        remedy (a pre-filter, fewer jobs). A ``cache`` takes only what the machine can
        spare (:data:`~paretostab._run_cache.CACHE_RESERVE_BYTES`).
    """
    selector = protocol_selector(selector)  # a scikit-learn selector: wrapped
    X, y = _check_protocol(X, y, runs, resampling, metric, prefilter, n_jobs, sample_fraction)
    if cache is not None and not isinstance(cache, RunCache):
        raise InvalidInputError(f"cache must be a RunCache or None; got {cache!r}.")
    resamples = runs // 2 if resampling == "complementary_pairs" else runs
    state = np.random.SeedSequence(random_state).generate_state(resamples + 1)
    draws = run_draws([int(seed) for seed in state[:resamples]], resampling)
    selector_seed = int(state[resamples])
    selector = clone(selector)
    if "random_state" in selector.get_params():
        selector.set_params(random_state=selector_seed)
    settings = _settings(resampling, sample_fraction, prefilter)
    calibrates = _needs_calibration(selector)
    name = getattr(selector, "selector_name", type(selector).__name__)
    _check_memory(name, X, runs, settings, n_jobs, calibrates)
    fingerprint = cache.data_key(X, y) if cache is not None else None
    prepared = [None] * runs
    calibrated = {}
    if calibrates:
        calibrated, prepared = _calibrated(selector, X, y, draws, settings, cache,
                                           fingerprint, n_jobs)
    jobs = (delayed(_run_one)(selector, X, y, draw, settings, metric, cache, fingerprint,
                              timed_run) for draw, timed_run in zip(draws, prepared, strict=True))
    matrices: tuple[np.ndarray | None, ...] | None = None
    results = []
    with progress_bar(runs, name, progress=progress, unit="runs", leave=False) as bar:
        for i, result in enumerate(Parallel(n_jobs=n_jobs, return_as="generator")(jobs)):
            # each run's rows go into the M × d matrices as they come: held once
            if matrices is None:
                matrices = tuple(None if row is None else np.empty((runs, row.size), row.dtype)
                                 for row in result[:3])
            for matrix, row in zip(matrices, result[:3], strict=True):
                if matrix is not None:
                    matrix[i] = row
            results.append(result[3:])
            if cache is not None:
                cache.record(result[-1])
            bar.update()
            if on_run is not None:
                on_run()
    assert matrices is not None  # runs >= 2 (checked): a row came
    support, importance, ranks = matrices
    assert support is not None  # every run has a support
    raw_scores, fit, prepare, score, _ = zip(*results, strict=True)
    scores = np.array(raw_scores, dtype=float)
    missing = int(np.isnan(scores).sum())
    if missing:
        warnings.warn(
            f"{missing} of {runs} runs have no out-of-bag score (no out-of-bag example"
            f"{', or a single class for roc_auc' if metric == 'roc_auc' else ''}); the "
            "accuracy averages the others.", StabilityWarning, stacklevel=2)
    params = {**metadata_value(selector.get_params()), "calibrated": metadata_value(calibrated),
              "protocol": {"runs": runs, "resampling": resampling, "prefilter": prefilter,
                           "sample_fraction": sample_fraction,
                           "random_state": metadata_value(random_state)}}
    return RunSet(
        selection_matrix=support,
        importance_matrix=support.astype(float) if importance is None else importance,
        rank_matrix=ranks,
        scores=scores,
        seeds=np.asarray([seed for seed, _ in draws], dtype=np.uint32),
        fit_seconds=np.array(fit),
        prepare_seconds=np.array(prepare),
        score_seconds=np.array(score),
        metric=metric,
        resampling=resampling,
        selector=name,
        params=params,
        has_importances=importance is not None,
    )


def _replicate_seeds(random_state, n_replicates: int) -> list[int]:
    """The ``random_state`` of each of B replicates: one child of ``random_state``'s
    SeedSequence each."""
    COUNT.check("n_replicates", n_replicates)
    children = np.random.SeedSequence(random_state).spawn(n_replicates)
    return [int(child.generate_state(1)[0]) for child in children]


def replicates(selector, X, y, n_replicates: int, *, random_state=None, **protocol) -> list[RunSet]:
    """B independent repetitions of :func:`run_protocol` (fresh resamples and, for
    randomised selectors such as BiasedRFE, fresh draws) — the input of the confidence
    ellipses (002 §3). ``protocol`` takes the keyword arguments of ``run_protocol``.

    Parameters
    ----------
    selector, X, y
        As :func:`run_protocol`'s.
    n_replicates : int
        B, the number of repetitions (≥ 1).
    random_state : int or sequence of ints, optional
        Seeds the replicates: each gets the ``random_state`` of one child of its
        ``numpy.random.SeedSequence``.
    **protocol
        The other keyword arguments of :func:`run_protocol` (``runs``, ``resampling`` …).
    """
    return [run_protocol(selector, X, y, random_state=seed, **protocol)
            for seed in _replicate_seeds(random_state, n_replicates)]


def _replicate(i: int, b: int, selector, X, y, seed: int, protocol: dict
               ) -> tuple[int, int, RunSet]:
    """Replicate ``b`` of selector ``i``, in whichever process the pool gives it."""
    return i, b, run_protocol(selector, X, y, random_state=seed, **protocol)


def _pool_size(name: str, X: np.ndarray, runs: int, settings: tuple, n_jobs: int,
               calibrates: bool) -> int:
    """The processes of a pool of protocols, each running one protocol's runs in turn:
    ``n_jobs`` (resolved by joblib) when the memory allows as many running runs
    (:func:`_check_memory`), else the most it allows, one at least (whose protocols
    :func:`run_protocol` refuses in one line when even one does not fit)."""
    for jobs in range(effective_n_jobs(n_jobs), 1, -1):
        try:
            _check_memory(name, X, runs, settings, jobs, calibrates)
        except MemoryLimitError:
            continue
        return jobs
    return 1


def replicate_protocols(selectors: Sequence, X, y, n_replicates: int, *,
                        random_states: Sequence, runs: int, resampling: str,
                        sample_fraction: float, prefilter: int | None, metric: str,
                        n_jobs: int = 1, on_runs: Callable[[int], object] | None = None,
                        cache: RunCache | None = None) -> Iterator[tuple[int, int, RunSet]]:
    """The B :func:`replicates` of each of several selectors, all their protocols in one
    pool of processes: ``(i, b, RunSet)``, replicate ``b`` of selector ``i``, as each
    protocol ends, in no fixed order.

    Selector ``i``'s replicates are those of :func:`replicates` with ``random_states[i]``
    — the same RunSets, whatever the pool (a report's replicates ran trial by
    trial, in one process for a study with ``n_jobs = 1``, and took longer than the study
    they reported on). The pool has ``n_jobs`` processes, or fewer when the memory does
    not allow as many (:func:`_pool_size`), each running one protocol at a time, its runs
    in turn: B × (number of selectors) tasks of M runs, where each protocol in
    :func:`replicates` dispatches M tasks of one run; a pool of one runs the protocols
    here.

    Parameters
    ----------
    selectors : sequence of selectors
    X, y : the data
    n_replicates : int
        B.
    random_states : sequence
        One ``random_state`` per selector.
    runs, resampling, sample_fraction, prefilter, metric
        As :func:`run_protocol` takes them.
    n_jobs : int
        The pool's processes (-1: one per core, as joblib counts them).
    on_runs : callable, optional
        ``on_runs(n)``: ``n`` more runs done — each run as it ends in a pool of one (the
        protocols run here), each protocol's M as it ends otherwise; a progress counting
        runs moves as they go.
    cache : RunCache, optional
        Where a pool of one (the protocols run here) keeps its prepared runs: selectors
        whose ``random_states`` are the same share their resamples, and each is prepared
        once (:class:`~paretostab._run_cache.RunCache`; the same RunSets as without it).
        A pool of several processes runs without it.

    Yields
    ------
    (int, int, RunSet)
    """
    if len(selectors) != len(random_states):
        raise InvalidInputError(f"one random_state per selector: got {len(random_states)} "
                                f"for {len(selectors)} selectors.")
    seeds = [_replicate_seeds(state, n_replicates) for state in random_states]
    if not selectors:
        return
    _check_runs(runs, resampling)  # before a pool starts
    wrapped = [protocol_selector(selector) for selector in selectors]
    name = getattr(wrapped[0], "selector_name", type(wrapped[0]).__name__)
    settings = _settings(resampling, sample_fraction, prefilter)
    pool = _pool_size(name, np.asarray(X, dtype=float), runs, settings, n_jobs,
                      any(_needs_calibration(selector) for selector in wrapped))
    protocol = {"runs": runs, "resampling": resampling, "sample_fraction": sample_fraction,
                "prefilter": prefilter, "metric": metric, "progress": False, "n_jobs": 1}
    if on_runs is not None and pool == 1:  # the protocols run here: each run counted
        protocol["on_run"] = functools.partial(on_runs, 1)
    if cache is not None and pool == 1:  # here, shared resamples are prepared once
        protocol["cache"] = cache
    results = Parallel(n_jobs=pool, return_as="generator_unordered")(
        delayed(_replicate)(i, b, selector, X, y, seeds[i][b], protocol)
        for i, selector in enumerate(wrapped) for b in range(n_replicates))
    try:
        for result in results:
            if on_runs is not None and pool > 1:  # a protocol's M runs, counted as it ends
                on_runs(runs)
            yield result
    finally:  # stopped early (Ctrl-C): the protocols not begun are dropped, without
        # joblib's warning that they were
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", ".*tasks which were still being processed",
                                    UserWarning)
            results.close()


def run_transfer_protocol(tasks, *, transfer: float, metric: str = "accuracy",
                          random_state=None, **selector_params) -> RunSet:
    """The transfer-learning protocol of 002 §5.3: ordered tasks, one sample per task.

    For each task in order: one stratified bootstrap sample; a :class:`BiasedRFE` whose
    shrinkage favours the features the earlier tasks selected (002 eq. 6–7, via
    :func:`paretostab.selectors.transfer_learning_rfe` with strength ``transfer`` = α_t);
    its final model scored on the task's out-of-bag examples. The RunSet's rows are the
    tasks: its stability is the stability across tasks.
    """
    from paretostab.selectors import transfer_learning_rfe

    tasks = [(np.asarray(X, dtype=float), np.asarray(y)) for X, y in tasks]
    if len(tasks) < 2:
        raise InvalidInputError(f"The transfer protocol needs at least 2 tasks; got {len(tasks)}.")
    if metric not in METRICS:
        raise InvalidInputError(f"metric must be one of {METRICS}; got {metric!r}.")
    for index, (_, y) in enumerate(tasks):
        check_classes(y, f"task {index}")
    seeds = np.random.SeedSequence(random_state).generate_state(len(tasks))
    samples = [resample(y, int(seed), "bootstrap", 1.0) for (_, y), seed in
               zip(tasks, seeds, strict=True)]
    start = time.perf_counter()
    fitted = transfer_learning_rfe([(X[train], y[train]) for (X, y), (train, _) in
                                    zip(tasks, samples, strict=True)],
                                   transfer=transfer, **selector_params)
    seconds = (time.perf_counter() - start) / len(tasks)
    scores = np.array([out_of_bag_score(est, X[oob], y[oob], metric)
                       for est, (X, y), (_, oob) in zip(fitted, tasks, samples, strict=True)])
    return RunSet(
        selection_matrix=np.array([est.support_ for est in fitted]),
        importance_matrix=np.array([est.importances_ for est in fitted]),
        rank_matrix=np.array([est.rank_order_ for est in fitted]),
        scores=scores,
        seeds=np.asarray(seeds, dtype=np.uint32),
        fit_seconds=np.full(len(tasks), seconds),
        metric=metric,
        resampling="bootstrap",
        selector="BiasedRFE",
        params={**metadata_value(selector_params), "transfer": transfer,
                "protocol": {"tasks": len(tasks), "random_state": random_state}},
    )
