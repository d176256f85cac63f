"""The resampling protocol: selectors → measured (accuracy, stability) (SPEC §4).

``run_protocol`` draws M resamples of the training data (stratified bootstrap or
subsample), runs the selector on each (after an optional variance pre-filter computed on
that run's training sample), scores the final model on the run's out-of-bag examples, and
returns a :class:`RunSet`: the selection matrix Z, the importance matrix I, the rank
matrix R (where the selector ranks), the per-run scores, seeds and timings. Every run is
seeded from one ``numpy.random.SeedSequence``: the same ``random_state`` gives the same
RunSet whatever ``n_jobs`` (only the timings differ).

What a run prepares before any fit depends on its resample only, not on the selector's
hyperparameters: its rows, pre-filter columns and the order of the others, the
:class:`~paretostab.selectors.TrainingSample` (classes, standardisation, distinct rows)
with what selectors derive from it, and its out-of-bag rows. A :class:`RunCache` keeps
these prepared runs in each process, so that a tuning study whose trials share their
resamples prepares each run once per process instead of once per trial. Cached and
uncached runs run the same code on the same numbers: their RunSets are identical.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import mmap
import os
import time
import uuid
import warnings
import weakref
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from joblib.parallel import BACKENDS, get_active_backend
from sklearn.base import clone
from sklearn.metrics import balanced_accuracy_score, f1_score, roc_auc_score

from paretostab import memory
from paretostab.data import check_classes, check_prefilter, variance_order
from paretostab.errors import InvalidInputError, StabilityWarning
from paretostab.measures import get_measure, stability
from paretostab.progress import progress_bar
from paretostab.selectors import TrainingSample, protocol_selector

__all__ = ["CACHE_RESERVE_BYTES", "CALIBRATION_BYTES", "DEFAULT_CACHE_BYTES", "METRICS",
           "RESAMPLINGS", "RunCache", "RunSet", "majority_rate", "metric_advice",
           "metric_output", "metric_value",
           "replicates", "run_protocol", "run_transfer_protocol"]

RESAMPLINGS = ("bootstrap", "subsample")
METRICS = ("accuracy", "balanced_accuracy", "f1_macro", "roc_auc")
_FORMAT = 2


@dataclass(frozen=True, eq=False, kw_only=True)
class RunSet:
    """The outcome of M selection runs.

    Attributes
    ----------
    selection_matrix : bool array (M, d)
        Z: feature f selected in run i.
    importance_matrix : float array (M, d)
        I: the final model's importance of each selected feature (0 elsewhere), as the
        selector reports it (the measures normalise rows to sum to k̄); 1 on each
        selected feature when the selector gives none (``has_importances``).
    rank_matrix : int array (M, d) or None
        R: each run's ranking 1..d (1 = best), for selectors that rank. A RunSet saved with
        ``ranks=K`` keeps the top K positions (every other feature tied at K + 1); see
        ``rank_depth``.
    scores : float array (M,)
        Out-of-bag score of each run's final model (NaN where a run had no usable
        out-of-bag example).
    seeds : uint32 array (M,)
        The seed of each run's resample.
    fit_seconds, prepare_seconds, score_seconds : float arrays (M,)
        Wall time of each run's fit; of its preparation (resample, pre-filter,
        standardisation, distinct rows — near 0 when a :class:`RunCache` had it); of its
        out-of-bag scoring.
    metric, resampling, selector : str
        ``selector``: the selector's ``selector_name`` where it has one (an
        ``ExternalSelector``: the estimator it wraps), else its class name.
    params : dict
        The selector's parameters (after calibration) and the protocol's settings.
    feature_names : tuple of str or None
    rank_depth : int or None
        How many top positions of each ranking ``rank_matrix`` keeps: None all of them
        (or the selector does not rank), 0 none (saved without its rankings).
    has_importances : bool
        False when the selector gives no importances (no ``importances_``): the measures
        that read I refuse the RunSet.
    """

    selection_matrix: np.ndarray
    importance_matrix: np.ndarray
    rank_matrix: np.ndarray | None
    scores: np.ndarray
    seeds: np.ndarray
    fit_seconds: np.ndarray
    prepare_seconds: np.ndarray | None = None
    score_seconds: np.ndarray | None = None
    metric: str
    resampling: str
    selector: str
    params: dict = field(default_factory=dict)
    feature_names: tuple[str, ...] | None = None
    rank_depth: int | None = None
    has_importances: bool = True

    def __post_init__(self):
        zeros = np.zeros(self.selection_matrix.shape[0])
        for name in ("prepare_seconds", "score_seconds"):
            if getattr(self, name) is None:
                object.__setattr__(self, name, zeros)

    @property
    def runs(self) -> int:
        return self.selection_matrix.shape[0]

    @property
    def n_features(self) -> int:
        return self.selection_matrix.shape[1]

    @property
    def accuracy(self) -> float:
        """Mean out-of-bag score over the runs that have one (NaN if none has)."""
        valid = self.scores[~np.isnan(self.scores)]
        return float(valid.mean()) if valid.size else math.nan

    @property
    def mean_selected(self) -> float:
        """k̄, the mean number of selected features per run."""
        return float(self.selection_matrix.sum(axis=1).mean())

    def stability(self, name: str, *, similarity: object = None, **options) -> float:
        """The stability measure ``name`` of these runs (``paretostab.measures``).

        The measure's input kind decides what it reads: Z, I or R.
        """
        kind = get_measure(name).input
        if kind == "ranking":
            self._check_ranks(name, options.get("k"))
        if kind == "importance" and not self.has_importances:
            raise InvalidInputError(
                f"{get_measure(name).label} ({name}) needs feature importances; "
                f"{self.selector} gives none: choose a subset measure such as nogueira.")
        data = {"selection": self.selection_matrix, "importance": self.importance_matrix,
                "ranking": self.rank_matrix}[kind]
        extra = {"similarity": similarity} if similarity is not None else {}
        return stability(name, data, **extra, **options)

    def _check_ranks(self, name: str, k: int | None) -> None:
        if self.rank_depth == 0:
            raise InvalidInputError(
                f"Measure {name!r} needs rankings; this RunSet was saved without them "
                "(a study keeps them when its spec records a ranking measure).")
        if self.rank_matrix is None:
            raise InvalidInputError(
                f"Measure {name!r} needs rankings; selector {self.selector} does not rank "
                "features, so this RunSet has none.")
        if self.rank_depth is not None and (k is None or k > self.rank_depth):
            raise InvalidInputError(
                f"Measure {name!r} with k={k!r} reads deeper rankings than this RunSet keeps "
                f"(its top {self.rank_depth} positions): pass k <= {self.rank_depth}.")

    def save(self, path: str | Path, *, ranks: str | int | None = "full") -> Path:
        """Write the RunSet to a compact ``.npz`` (format 2).

        Arrays: ``columns`` (the features selected, or of non-zero importance, in some
        run), ``selection`` and ``importance`` (Z and I on those columns), ``ranks``
        (unless ``ranks=None``: R in the smallest unsigned integer type that holds d + 1;
        whole rankings are stored without compression — permutations barely compress:
        zlib saves a quarter of 2.5 MB at 40–65 ms), ``scores``,
        ``seeds``, ``fit_seconds``, ``prepare_seconds``, ``score_seconds``; and
        ``metadata``, a JSON string with ``format``, ``n_features``, ``rank_depth``,
        ``metric``, ``resampling``, ``selector``, ``params`` and ``feature_names``.

        Parameters
        ----------
        ranks : "full", int or None
            Keep the whole rankings, only their top ``ranks`` positions (what top-k
            measures with k ≤ ``ranks`` read; every other feature is then stored tied at
            ``ranks + 1``), or none.
        """
        path = Path(path)
        Z, I = self.selection_matrix, self.importance_matrix
        columns = np.flatnonzero(Z.any(axis=0) | (I != 0).any(axis=0))
        d = self.n_features
        arrays = {
            "columns": columns.astype(np.min_scalar_type(max(d - 1, 0))),
            "selection": Z[:, columns],
            "importance": I[:, columns],
            "scores": self.scores,
            "seeds": self.seeds,
            "fit_seconds": self.fit_seconds,
            "prepare_seconds": self.prepare_seconds,
            "score_seconds": self.score_seconds,
        }
        depth = self.rank_depth
        if self.rank_matrix is not None and ranks is not None:
            depth = _rank_depth(ranks, d, depth)
            kept = self.rank_matrix if depth is None else np.minimum(self.rank_matrix,
                                                                     depth + 1)
            arrays["ranks"] = kept.astype(np.min_scalar_type(d + 1))
        elif self.rank_matrix is not None:
            depth = 0
        metadata = {
            "format": _FORMAT, "n_features": d, "rank_depth": depth,
            "metric": self.metric, "resampling": self.resampling,
            "selector": self.selector, "params": _jsonable(self.params),
            "feature_names": list(self.feature_names) if self.feature_names else None,
            "has_importances": self.has_importances,
        }
        arrays["metadata"] = np.array(json.dumps(metadata))
        _write_npz(path, arrays, stored={"ranks"} if depth is None else set())
        return path

    @classmethod
    def load(cls, path: str | Path) -> RunSet:
        """Read a RunSet written by :meth:`save`."""
        with np.load(Path(path), allow_pickle=False) as archive:
            if "metadata" not in archive.files:
                raise InvalidInputError(f"{path} is not a paretostab RunSet (no metadata).")
            metadata = json.loads(str(archive["metadata"]))
            if metadata.get("format") != _FORMAT:
                raise InvalidInputError(
                    f"{path} has RunSet format {metadata.get('format')!r}, written by an "
                    f"older paretostab; this version reads format {_FORMAT} (compact): run "
                    "the trials again to store them in it."
                )
            M, d = archive["scores"].size, metadata["n_features"]
            columns = archive["columns"].astype(np.intp)
            Z = np.zeros((M, d), dtype=bool)
            Z[:, columns] = archive["selection"]
            I = np.zeros((M, d))
            I[:, columns] = archive["importance"]
            ranks = archive["ranks"].astype(np.int64) if "ranks" in archive.files else None
            names = metadata["feature_names"]
            return cls(selection_matrix=Z, importance_matrix=I, rank_matrix=ranks,
                       scores=archive["scores"], seeds=archive["seeds"],
                       fit_seconds=archive["fit_seconds"],
                       prepare_seconds=archive["prepare_seconds"],
                       score_seconds=archive["score_seconds"], metric=metadata["metric"],
                       resampling=metadata["resampling"], selector=metadata["selector"],
                       params=metadata["params"], feature_names=tuple(names) if names else None,
                       rank_depth=metadata["rank_depth"],
                       has_importances=metadata.get("has_importances", True))

    def same_runs(self, other: RunSet) -> bool:
        """Equal in everything but the timings (what reproducibility promises)."""
        def equal(a, b):
            return (a is None and b is None) or (
                a is not None and b is not None and np.array_equal(a, b, equal_nan=True))
        return (all(equal(getattr(self, f), getattr(other, f)) for f in
                    ("selection_matrix", "importance_matrix", "rank_matrix", "scores", "seeds"))
                and (self.metric, self.resampling, self.selector, _jsonable(self.params),
                     self.feature_names, self.rank_depth, self.has_importances)
                == (other.metric, other.resampling, other.selector, _jsonable(other.params),
                    other.feature_names, other.rank_depth, other.has_importances))


def _rank_depth(ranks: str | int, d: int, current: int | None) -> int | None:
    """The rank depth a save keeps (None: all): ``"full"`` or a positive integer, never
    deeper than what the RunSet has."""
    if ranks == "full":
        return current
    if isinstance(ranks, bool) or not isinstance(ranks, int | np.integer) or ranks < 1:
        raise InvalidInputError(
            f"ranks must be 'full', a positive integer (the top positions kept) or None; "
            f"got {ranks!r}.")
    depth = min(int(ranks), d)
    return depth if current is None else min(depth, current)


def _write_npz(path: Path, arrays: dict[str, np.ndarray], *, stored: set[str]) -> None:
    """An ``.npz`` (what ``np.load`` reads) whose members are deflated, except ``stored``."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, array in arrays.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.asanyarray(array), allow_pickle=False)
            archive.writestr(name + ".npy", buffer.getvalue(),
                             compress_type=zipfile.ZIP_STORED if name in stored
                             else zipfile.ZIP_DEFLATED)


def _jsonable(value):
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return repr(value)


# ---------------------------------------------------------------------- prepared runs


@dataclass(frozen=True, eq=False)
class _PreparedRun:
    """One run's resample and what every fit on it reuses (its hyperparameters aside)."""

    n_features: int
    out_of_bag: np.ndarray
    features: np.ndarray | None  # the pre-filter's columns (None: all)
    rank_tail: np.ndarray | None  # the other columns, by decreasing variance
    sample: TrainingSample
    X_out_of_bag: np.ndarray
    y_out_of_bag: np.ndarray

    @property
    def nbytes(self) -> int:
        arrays = (self.out_of_bag, self.features, self.rank_tail, self.X_out_of_bag,
                  self.y_out_of_bag)
        return self.sample.nbytes + sum(a.nbytes for a in arrays if a is not None)

    def freeze(self) -> None:
        """Read-only from now on (a cached run is shared by every later trial)."""
        self.sample.freeze()
        for array in (self.out_of_bag, self.features, self.rank_tail, self.X_out_of_bag,
                      self.y_out_of_bag):
            if array is not None:
                array.flags.writeable = False


def _prepare_run(X: np.ndarray, y: np.ndarray, seed: int, settings: tuple) -> _PreparedRun:
    resampling, sample_fraction, prefilter = settings
    train, out_of_bag = _resample(y, seed, resampling, sample_fraction)
    X_train = X[train]
    features = rank_tail = None
    if prefilter is not None:
        order = variance_order(X_train)
        features, rank_tail = np.sort(order[:prefilter]), order[prefilter:]
        X_train = X_train[:, features]
        X_out_of_bag = X[np.ix_(out_of_bag, features)]
    else:
        X_out_of_bag = X[out_of_bag]
    sample = TrainingSample(X_train, y[train], owner="a run's training sample",
                            columns=features)
    return _PreparedRun(X.shape[1], out_of_bag, features, rank_tail, sample, X_out_of_bag,
                        y[out_of_bag])


#: Default memory budget of a :class:`RunCache` in one process: singh (102 × 12 600) at
#: M = 100 takes about 0.9 GB with a 5 000-feature pre-filter, 2.2 GB without; two tuning
#: workers at 3 GiB each leave most of a 24 GiB machine free. A cache takes no more than
#: the machine can spare (:data:`CACHE_RESERVE_BYTES`).
DEFAULT_CACHE_BYTES = 3 * 2**30

#: Memory a :class:`RunCache` leaves to the work itself: it admits a run only while the
#: memory available after it (:func:`~paretostab.memory.available_bytes`: the machine's,
#: or its container's or job's) stays above this — about what one running run of a
#: trial at n = 100, d = 200 000 or n = 10 000, d = 2 000 takes with its RunSet.
CACHE_RESERVE_BYTES = 2**30

#: Caches that processes running runs for another process (joblib workers) hold for it.
_REMOTE_CACHES: dict[str, RunCache] = {}
_REMOTE_KEPT = 2
_LOCAL_CACHES: weakref.WeakValueDictionary[str, RunCache] = weakref.WeakValueDictionary()


def _process_cache(token: str, max_bytes: int) -> RunCache:
    """This process's part of the cache ``token`` (how a RunCache arrives in a worker)."""
    cache = _LOCAL_CACHES.get(token)
    if cache is None:
        cache = _REMOTE_CACHES.get(token)
    if cache is None:
        cache = RunCache(max_bytes, _token=token)
        _REMOTE_CACHES[token] = cache
        while len(_REMOTE_CACHES) > _REMOTE_KEPT:  # keep a worker's memory bounded
            _REMOTE_CACHES.pop(next(iter(_REMOTE_CACHES)))
    return cache


class RunCache:
    """Prepared runs, kept per process for every later :func:`run_protocol` call on the
    same data, seeds and protocol settings.

    A tuning study with shared resamples (every trial on the same M resamples) prepares
    each run — resample, pre-filter, standardised distinct rows, out-of-bag rows — once
    per process, and what selectors derive from a run alone (a univariate order, the
    L2-logistic core's Gram matrix, filter scores) once per process too: see
    :class:`~paretostab.selectors.TrainingSample`. Cached runs are read-only.

    Runs are admitted until ``max_bytes`` is reached, or until the memory available would
    fall below :data:`CACHE_RESERVE_BYTES` (on a small machine, or one shared with other
    work, the cache yields: it never makes a trial run out of memory); beyond either they
    are prepared again at every call. (A study visits runs 0..M−1 in every trial:
    least-recently-used eviction would evict each run just before its next use; keeping
    the first ones is optimal.)
    With ``n_jobs > 1`` each worker process holds its own part, under the same budget;
    :attr:`nbytes` adds up what every process reported.

    Parameters
    ----------
    max_bytes : int
        Memory budget per process (:data:`DEFAULT_CACHE_BYTES`); 0 keeps nothing.
    """

    def __init__(self, max_bytes: int = DEFAULT_CACHE_BYTES, *, _token: str | None = None):
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int | np.integer) or (
                max_bytes < 0):
            raise InvalidInputError(
                f"max_bytes must be an integer >= 0 (the memory budget in bytes); got "
                f"{max_bytes!r}.")
        self.max_bytes = int(max_bytes)
        self._token = _token or uuid.uuid4().hex
        self._runs: dict[tuple, _PreparedRun] = {}
        self._data_keys: dict[tuple[int, int], tuple] = {}
        self._own_bytes = 0
        self._reported: dict[int, int] = {}
        self.hits = 0
        self.misses = 0
        if _token is None:
            _LOCAL_CACHES[self._token] = self

    def __reduce__(self):
        return _process_cache, (self._token, self.max_bytes)

    def __repr__(self) -> str:
        return (f"RunCache({len(self._runs)} runs, {self.nbytes / 2**20:.0f} MiB of "
                f"{self.max_bytes / 2**20:.0f} MiB per process, {self.hits} hits, "
                f"{self.misses} misses)")

    @property
    def nbytes(self) -> int:
        """Bytes held, in this process and as last reported by the worker processes."""
        return self._own_bytes + sum(n for pid, n in self._reported.items()
                                     if pid != os.getpid())

    def __len__(self) -> int:
        return len(self._runs)

    def admit(self, nbytes: int) -> bool:
        """Reserve ``nbytes`` if the budget and the memory available allow (a run, or a
        value a selector derives)."""
        if self._own_bytes + nbytes > self.max_bytes:
            return False
        available = memory.available_bytes()
        if available is not None and available - nbytes < CACHE_RESERVE_BYTES:
            return False
        self._own_bytes += nbytes
        return True

    def _data_key(self, X: np.ndarray, y: np.ndarray) -> str:
        """The fingerprint of the data (:func:`_fingerprint`), hashed once for arrays that
        cannot change — read-only, like every array they view (the tuning's data) — and at
        every call otherwise (hashing 10 MB costs 20 ms, most of a trial's overhead)."""
        fixed = _unchanging(X) and _unchanging(y)
        known = self._data_keys.get((id(X), id(y)))
        if fixed and known is not None and known[0]() is X and known[1]() is y:
            return known[2]
        fingerprint = _fingerprint(X, y)
        if fixed:
            self._data_keys = {key: entry for key, entry in self._data_keys.items()
                               if entry[0]() is not None and entry[1]() is not None}
            self._data_keys[(id(X), id(y))] = (weakref.ref(X), weakref.ref(y), fingerprint)
        return fingerprint

    def _run(self, key: tuple, prepare: Callable[[], _PreparedRun]) -> _PreparedRun:
        run = self._runs.get(key)
        if run is not None:
            self.hits += 1
            return run
        self.misses += 1
        run = prepare()
        run.freeze()
        if self.admit(run.nbytes):
            run.sample.budget = self
            self._runs[key] = run
        return run

    def _record(self, report: tuple[int, int, int, int]) -> None:
        """A worker's (pid, bytes held, hit, miss) after one run."""
        pid, nbytes, hits, misses = report
        if pid != os.getpid():
            self._reported[pid] = nbytes
            self.hits += hits
            self.misses += misses


def _unchanging(array: np.ndarray) -> bool:
    """Nothing writes into ``array`` unless an array is made writeable again: it and every
    array it views are read-only, and the memory is theirs, an immutable object's or a
    read-only memory map's (the data ``tune``'s worker processes share)."""
    while isinstance(array, np.ndarray):
        if array.flags.writeable:
            return False
        array = array.base
    if isinstance(array, mmap.mmap):
        with memoryview(array) as view:
            return view.readonly
    return array is None or isinstance(array, bytes)


def _fingerprint(X: np.ndarray, y: np.ndarray) -> str:
    """What identifies the data of a cached run (shape, values, labels)."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(repr((X.shape, X.dtype.str, y.dtype.str)).encode())
    digest.update(memoryview(np.ascontiguousarray(X)).cast("B"))
    digest.update(np.unique(y, return_inverse=True)[1].astype(np.int64).tobytes())
    digest.update(repr(np.unique(y).tolist()).encode())
    return digest.hexdigest()


# ---------------------------------------------------------------------------- runs


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


def _resample(y: np.ndarray, seed: int, resampling: str, sample_fraction: float):
    """Stratified training indices and out-of-bag indices of one run."""
    rng = np.random.default_rng(seed)
    train = []
    for label in np.unique(y):
        members = np.flatnonzero(y == label)
        if resampling == "bootstrap":
            train.append(rng.choice(members, size=members.size, replace=True))
        else:
            size = min(members.size - 1, max(1, round(sample_fraction * members.size)))
            train.append(rng.choice(members, size=size, replace=False))
    train = np.concatenate(train)
    out_of_bag = np.setdiff1d(np.arange(y.size), train)
    return train, out_of_bag


def majority_rate(y: np.ndarray) -> float:
    """The share of the largest class: the accuracy of predicting it for every example
    (the accuracy a selector must beat to have learnt anything from the labels)."""
    _, counts = np.unique(y, return_counts=True)
    return float(counts.max() / counts.sum())


def metric_advice(y: np.ndarray, metric: str) -> str | None:
    """One line for a study that scores imbalanced classes by plain accuracy, else None.

    The classes are imbalanced when the smallest class holds less than 0.8/K of the
    examples (K classes; 40 % with two): plain accuracy then rewards predicting the
    majority class, and ``balanced_accuracy`` (the mean recall of the classes),
    ``f1_macro`` and ``roc_auc`` score every class equally."""
    labels, counts = np.unique(y, return_counts=True)
    if metric != "accuracy" or counts.min() >= 0.8 * counts.sum() / labels.size:
        return None
    smallest = labels[np.argmin(counts)].item()
    return (f"note: the classes are imbalanced (the smallest, {smallest!r}, "
            f"holds {counts.min()} of {counts.sum()} examples; the majority class alone "
            f"scores accuracy {majority_rate(y):.3f}): [protocol] metric = "
            '"balanced_accuracy" weighs every class equally (also "f1_macro", "roc_auc").')


def metric_output(estimator, X: np.ndarray, metric: str) -> np.ndarray:
    """What ``metric`` scores of a fitted estimator on ``X``: its decision values for
    ``roc_auc``, else its predicted labels."""
    return estimator.decision_function(X) if metric == "roc_auc" else estimator.predict(X)


def metric_value(y: np.ndarray, output: np.ndarray, metric: str,
                 classes: np.ndarray | None) -> float:
    """``metric`` of the :func:`metric_output` ``output`` of an estimator that knows the
    ``classes`` (its ``classes_``, which only ``f1_macro`` and ``roc_auc`` read) on
    examples labelled ``y`` (NaN without examples).

    ``f1_macro``: the mean over the classes the estimator knows of their F1 (a class with
    no example and no prediction scores 0, scikit-learn's convention). ``roc_auc`` with K >
    2 classes: the mean over the classes present (and not alone) in ``y`` of the
    one-vs-rest AUC of that class's decision column (scikit-learn's ``multi_class="ovr"``,
    macro average, which also needs probabilities summing to 1; decision values rank the
    same); NaN with fewer than 2 classes."""
    if y.size == 0:
        return math.nan
    if metric == "accuracy":
        return float(np.mean(output == y))
    if metric == "balanced_accuracy":
        return float(balanced_accuracy_score(y, output))
    if metric == "f1_macro":
        return float(f1_score(y, output, labels=classes, average="macro", zero_division=0))
    present = np.unique(y)
    if present.size < 2:
        return math.nan
    if output.ndim == 1:
        return float(roc_auc_score(y == classes[1], output))
    columns = np.searchsorted(classes, present)
    return float(np.mean([roc_auc_score(y == label, output[:, column])
                          for label, column in zip(present, columns, strict=True)]))


def _score(estimator, X: np.ndarray, y: np.ndarray, metric: str) -> float:
    """The out-of-bag ``metric`` of a fitted estimator (NaN without out-of-bag examples;
    :func:`metric_value`)."""
    if y.size == 0:
        return math.nan
    if metric == "roc_auc" and np.unique(y).size < 2:
        return math.nan
    return metric_value(y, metric_output(estimator, X, metric), metric,
                        getattr(estimator, "classes_", None))  # accuracy needs none


def _prepared(X, y, seed: int, settings: tuple, cache: RunCache | None,
              fingerprint: str | None) -> _PreparedRun:
    def prepare():
        return _prepare_run(X, y, seed, settings)
    if cache is None:
        return prepare()
    return cache._run((fingerprint, seed, *settings), prepare)


def _timed_run(X, y, seed: int, settings: tuple, cache: RunCache | None,
               fingerprint: str | None) -> tuple[_PreparedRun, float]:
    start = time.perf_counter()
    run = _prepared(X, y, seed, settings, cache, fingerprint)
    return run, time.perf_counter() - start


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

    def __init__(self, X: np.ndarray, y: np.ndarray, seeds: list[int], settings: tuple,
                 cache: RunCache | None, fingerprint: str | None):
        self._args = (X, y)
        self._seeds, self._settings = seeds, settings
        self._cache, self._fingerprint = cache, fingerprint
        self._kept: dict[int, tuple[_PreparedRun, float]] = {}
        self._kept_bytes = 0
        self._keeping: bool | None = None  # decided by the first run prepared

    def __len__(self) -> int:
        return len(self._seeds)

    def __getitem__(self, i: int) -> TrainingSample:
        timed = self._kept.get(i)
        if timed is None:
            timed = _timed_run(*self._args, self._seeds[i], self._settings, self._cache,
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

    def pop(self, i: int) -> tuple[_PreparedRun, float] | None:
        """Run i with its preparation time, if kept, given up by the sequence."""
        return self._kept.pop(i, None)


def _calibrated(selector, X, y, seeds: list[int], settings: tuple, cache: RunCache | None,
                fingerprint: str | None, n_jobs: int):
    """Calibrate ``selector`` (set its calibrated parameters) on the runs, streamed
    (:class:`_CalibrationRuns`); returns the calibrated values and what each run's fit
    starts from: with ``n_jobs=1`` the runs the calibration kept, given up one at a time
    as their fits come; else nothing (the workers prepare, or have, their own)."""
    samples = _CalibrationRuns(X, y, seeds, settings, cache, fingerprint)
    calibrated = selector.calibrate(X, y, samples)
    selector.set_params(**calibrated)
    if n_jobs != 1:
        return calibrated, [None] * len(seeds)
    return calibrated, (samples.pop(i) for i in range(len(seeds)))


#: What a worker process holds before any data (the interpreter, NumPy, scikit-learn).
_PROCESS_BYTES = 150 * 2**20


def _check_memory(name: str, X: np.ndarray, runs: int, settings: tuple, n_jobs: int,
                  calibrates: bool) -> None:
    """Refuse, before any work, a call whose estimated peak exceeds the memory available
    (:func:`~paretostab.memory.check_room`, one line with the remedy).

    The estimate, in float64 arrays, n_train × d_run the rows and features a run fits: a
    run being fitted holds its training rows, their standardisation, their distinct rows
    and one copy its fit makes (4 n_train d_run), and its out-of-bag rows (about n/e of a
    bootstrap); with a pre-filter, its preparation first holds the unfiltered rows and a
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
    n_train = n if resampling == "bootstrap" else round(sample_fraction * n)
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
    while isinstance(array, np.ndarray):
        array = array.base
    return isinstance(array, mmap.mmap)


def _run_one(selector, X, y, seed: int, settings: tuple, metric: str,
             cache: RunCache | None, fingerprint: str | None,
             timed_run: tuple[_PreparedRun, float] | None):
    """Fit a clone of ``selector`` on one prepared run (prepared here unless ``timed_run``
    gives it with its preparation time) and read off what the RunSet keeps."""
    hits = cache.hits if cache is not None else 0
    if timed_run is None:
        timed_run = _timed_run(X, y, seed, settings, cache, fingerprint)
    run, prepare_seconds = timed_run
    estimator = clone(selector)
    features = run.features
    groups = estimator.get_params().get("groups")
    if groups is not None and features is not None:  # feature groups follow the pre-filter
        estimator.set_params(groups=np.asarray(groups)[features])
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
    score = _score(estimator, run.X_out_of_bag, run.y_out_of_bag, metric)
    score_seconds = time.perf_counter() - start
    report = None
    if cache is not None:
        hit = cache.hits - hits
        report = (os.getpid(), cache._own_bytes, hit, 1 - hit)
    return support, importance, ranks, score, fit_seconds, prepare_seconds, score_seconds, \
        report


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
    if isinstance(runs, bool) or not isinstance(runs, int | np.integer) or runs < 2:
        raise InvalidInputError(f"runs must be an integer >= 2; got {runs!r}.")
    if resampling not in RESAMPLINGS:
        raise InvalidInputError(f"resampling must be one of {RESAMPLINGS}; got {resampling!r}.")
    if metric not in METRICS:
        raise InvalidInputError(f"metric must be one of {METRICS}; got {metric!r}.")
    if prefilter is not None:
        check_prefilter(prefilter, X.shape[1])
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int | np.integer) or n_jobs == 0:
        raise InvalidInputError(
            f"n_jobs must be a non-zero integer (-1: all cores); got {n_jobs!r}.")
    if not 0 < sample_fraction < 1:
        raise InvalidInputError(f"sample_fraction must be in (0, 1); got {sample_fraction!r}.")
    return X, y


def run_protocol(selector, X, y, *, runs: int = 100, resampling: str = "bootstrap",
                 sample_fraction: float = 0.9, prefilter: int | None = None,
                 metric: str = "accuracy", random_state=None, n_jobs: int = 1,
                 cache: RunCache | None = None, progress: bool | None = None) -> RunSet:
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
    runs : int
        M.
    resampling : {"bootstrap", "subsample"}
        Stratified (per class) bootstrap of the same size, or subsample of
        ``sample_fraction`` of each class without replacement; the examples left out are
        the run's out-of-bag examples.
    prefilter : int, optional
        Keep the ``prefilter`` features of highest variance, computed on each run's
        training sample (000 §6.2, 003 §7.1); the others get rank after them, by variance.
    metric : {"accuracy", "balanced_accuracy", "f1_macro", "roc_auc"}
        Out-of-bag score of each run's final model (with K > 2 classes, ``f1_macro`` and
        ``roc_auc`` are macro averages over the classes; ``roc_auc`` one-vs-rest).
    random_state : int or sequence of ints, optional
        Seeds everything through one ``numpy.random.SeedSequence``: the runs' resamples
        and the selector's ``random_state``.
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
        (:func:`~paretostab.progress.progress_bar`).

    Raises
    ------
    MemoryLimitError
        Before any work, when the call's estimated peak memory — its running runs, the
        worker processes and the copy of X they share, the RunSet's matrices, what a
        calibration keeps — exceeds what this process can still take
        (:func:`~paretostab.memory.available_bytes`): one line with the estimate and the
        remedy (a pre-filter, fewer jobs). A ``cache`` takes only what the machine can
        spare (:data:`CACHE_RESERVE_BYTES`).
    """
    selector = protocol_selector(selector)  # a scikit-learn selector: wrapped
    X, y = _check_protocol(X, y, runs, resampling, metric, prefilter, n_jobs, sample_fraction)
    if cache is not None and not isinstance(cache, RunCache):
        raise InvalidInputError(f"cache must be a RunCache or None; got {cache!r}.")
    state = np.random.SeedSequence(random_state).generate_state(runs + 1)
    seeds, selector_seed = [int(seed) for seed in state[:runs]], int(state[runs])
    selector = clone(selector)
    if "random_state" in selector.get_params():
        selector.set_params(random_state=selector_seed)
    settings = (resampling, sample_fraction if resampling == "subsample" else None, prefilter)
    calibrates = _needs_calibration(selector)
    name = getattr(selector, "selector_name", type(selector).__name__)
    _check_memory(name, X, runs, settings, n_jobs, calibrates)
    fingerprint = cache._data_key(X, y) if cache is not None else None
    prepared = [None] * runs
    calibrated = {}
    if calibrates:
        calibrated, prepared = _calibrated(selector, X, y, seeds, settings, cache,
                                           fingerprint, n_jobs)
    jobs = (delayed(_run_one)(selector, X, y, seed, settings, metric, cache, fingerprint,
                              timed_run) for seed, timed_run in zip(seeds, prepared, strict=True))
    matrices, results = None, []
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
                cache._record(result[-1])
            bar.update()
    support, importance, ranks = matrices
    scores, fit, prepare, score, _ = zip(*results, strict=True)
    scores = np.array(scores, dtype=float)
    missing = int(np.isnan(scores).sum())
    if missing:
        warnings.warn(
            f"{missing} of {runs} runs have no out-of-bag score (no out-of-bag example"
            f"{', or a single class for roc_auc' if metric == 'roc_auc' else ''}); the "
            "accuracy averages the others.", StabilityWarning, stacklevel=2)
    params = {**_jsonable(selector.get_params()), "calibrated": _jsonable(calibrated),
              "protocol": {"runs": runs, "resampling": resampling, "prefilter": prefilter,
                           "sample_fraction": sample_fraction,
                           "random_state": _jsonable(random_state)}}
    return RunSet(
        selection_matrix=support,
        importance_matrix=support.astype(float) if importance is None else importance,
        rank_matrix=ranks,
        scores=scores,
        seeds=np.asarray(seeds, dtype=np.uint32),
        fit_seconds=np.array(fit),
        prepare_seconds=np.array(prepare),
        score_seconds=np.array(score),
        metric=metric,
        resampling=resampling,
        selector=name,
        params=params,
        has_importances=importance is not None,
    )


def replicates(selector, X, y, n_replicates: int, *, random_state=None, **protocol) -> list[RunSet]:
    """B independent repetitions of :func:`run_protocol` (fresh resamples and, for
    randomised selectors such as BiasedRFE, fresh draws) — the input of the confidence
    ellipses (002 §3). ``protocol`` takes the keyword arguments of ``run_protocol``."""
    if isinstance(n_replicates, bool) or not isinstance(n_replicates, int | np.integer) or (
            n_replicates < 1):
        raise InvalidInputError(f"n_replicates must be an integer >= 1; got {n_replicates!r}.")
    children = np.random.SeedSequence(random_state).spawn(n_replicates)
    return [run_protocol(selector, X, y, random_state=int(child.generate_state(1)[0]),
                         **protocol) for child in children]


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
    samples = [_resample(y, int(seed), "bootstrap", 1.0) for (_, y), seed in
               zip(tasks, seeds, strict=True)]
    start = time.perf_counter()
    fitted = transfer_learning_rfe([(X[train], y[train]) for (X, y), (train, _) in
                                    zip(tasks, samples, strict=True)],
                                   transfer=transfer, **selector_params)
    seconds = (time.perf_counter() - start) / len(tasks)
    scores = np.array([_score(est, X[oob], y[oob], metric)
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
        params={**_jsonable(selector_params), "transfer": transfer,
                "protocol": {"tasks": len(tasks), "random_state": random_state}},
    )
