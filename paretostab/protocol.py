"""The resampling protocol: selectors → measured (accuracy, stability) (SPEC §4).

``run_protocol`` draws M resamples of the training data (stratified bootstrap or
subsample), runs the selector on each (after an optional variance pre-filter computed on
that run's training sample), scores the final model on the run's out-of-bag examples, and
returns a :class:`RunSet`: the selection matrix Z, the importance matrix I, the rank
matrix R (where the selector ranks), the per-run scores, seeds and timings. Every run is
seeded from one ``numpy.random.SeedSequence``: the same ``random_state`` gives the same
RunSet whatever ``n_jobs`` (only the timings differ).
"""

from __future__ import annotations

import json
import math
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.metrics import balanced_accuracy_score, roc_auc_score

from paretostab.data import check_classes, variance_prefilter
from paretostab.errors import InvalidInputError, StabilityWarning
from paretostab.measures import get_measure, stability

RESAMPLINGS = ("bootstrap", "subsample")
METRICS = ("accuracy", "balanced_accuracy", "roc_auc")
_FORMAT = 1


@dataclass(frozen=True, eq=False)
class RunSet:
    """The outcome of M selection runs.

    Attributes
    ----------
    selection_matrix : bool array (M, d)
        Z: feature f selected in run i.
    importance_matrix : float array (M, d)
        I: the final model's importance of each selected feature (0 elsewhere), as the
        selector reports it (the measures normalise rows to sum to k̄).
    rank_matrix : int array (M, d) or None
        R: each run's full ranking 1..d (1 = best), for selectors that rank.
    scores : float array (M,)
        Out-of-bag score of each run's final model (NaN where a run had no usable
        out-of-bag example).
    seeds : uint32 array (M,)
        The seed of each run's resample.
    fit_seconds : float array (M,)
        Wall time of each run's fit.
    metric, resampling, selector : str
    params : dict
        The selector's parameters (after calibration) and the protocol's settings.
    feature_names : tuple of str or None
    """

    selection_matrix: np.ndarray
    importance_matrix: np.ndarray
    rank_matrix: np.ndarray | None
    scores: np.ndarray
    seeds: np.ndarray
    fit_seconds: np.ndarray
    metric: str
    resampling: str
    selector: str
    params: dict = field(default_factory=dict)
    feature_names: tuple[str, ...] | None = None

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
        if kind == "ranking" and self.rank_matrix is None:
            raise InvalidInputError(
                f"Measure {name!r} needs rankings; selector {self.selector} does not rank "
                "features, so this RunSet has none."
            )
        data = {"selection": self.selection_matrix, "importance": self.importance_matrix,
                "ranking": self.rank_matrix}[kind]
        extra = {"similarity": similarity} if similarity is not None else {}
        return stability(name, data, **extra, **options)

    def save(self, path: str | Path) -> Path:
        """Write the RunSet to a compressed ``.npz``: arrays ``selection_matrix``,
        ``importance_matrix``, ``rank_matrix`` (absent when None), ``scores``, ``seeds``,
        ``fit_seconds``, and ``metadata``, a JSON string with ``format``, ``metric``,
        ``resampling``, ``selector``, ``params`` and ``feature_names``."""
        path = Path(path)
        arrays = {
            "selection_matrix": self.selection_matrix,
            "importance_matrix": self.importance_matrix,
            "scores": self.scores,
            "seeds": self.seeds,
            "fit_seconds": self.fit_seconds,
        }
        if self.rank_matrix is not None:
            arrays["rank_matrix"] = self.rank_matrix
        metadata = {
            "format": _FORMAT, "metric": self.metric, "resampling": self.resampling,
            "selector": self.selector, "params": _jsonable(self.params),
            "feature_names": list(self.feature_names) if self.feature_names else None,
        }
        with open(path, "wb") as handle:
            np.savez_compressed(handle, metadata=np.array(json.dumps(metadata)), **arrays)
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
                    f"{path} has RunSet format {metadata.get('format')!r}; this version reads "
                    f"format {_FORMAT}."
                )
            ranks = archive["rank_matrix"] if "rank_matrix" in archive.files else None
            names = metadata["feature_names"]
            return cls(archive["selection_matrix"], archive["importance_matrix"], ranks,
                       archive["scores"], archive["seeds"], archive["fit_seconds"],
                       metadata["metric"], metadata["resampling"], metadata["selector"],
                       metadata["params"], tuple(names) if names else None)

    def same_runs(self, other: RunSet) -> bool:
        """Equal in everything but the timings (what reproducibility promises)."""
        def equal(a, b):
            return (a is None and b is None) or (
                a is not None and b is not None and np.array_equal(a, b, equal_nan=True))
        return (all(equal(getattr(self, f), getattr(other, f)) for f in
                    ("selection_matrix", "importance_matrix", "rank_matrix", "scores", "seeds"))
                and (self.metric, self.resampling, self.selector, _jsonable(self.params),
                     self.feature_names)
                == (other.metric, other.resampling, other.selector, _jsonable(other.params),
                    other.feature_names))


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


def _needs_calibration(selector) -> bool:
    """The calibration contract: a selector with ``calibrate(X, y, samples) -> params``, a
    ``target_features`` and no ``reg`` of its own is calibrated once before the runs;
    ``samples`` are the runs' training rows, or (rows, columns) pairs with a pre-filter."""
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


def _score(estimator, X: np.ndarray, y: np.ndarray, metric: str) -> float:
    if y.size == 0:
        return math.nan
    if metric == "accuracy":
        return float(np.mean(estimator.predict(X) == y))
    if metric == "balanced_accuracy":
        return float(balanced_accuracy_score(y, estimator.predict(X)))
    if np.unique(y).size < 2:
        return math.nan
    return float(roc_auc_score(y == estimator.classes_[1], estimator.decision_function(X)))


def _run_one(selector, X, y, train, out_of_bag, prefilter, metric):
    """Fit a clone of ``selector`` on one resample and read off what the RunSet keeps."""
    d = X.shape[1]
    X_train = X[train]
    features = np.arange(d) if prefilter is None else variance_prefilter(X_train, prefilter)
    estimator = clone(selector)
    groups = estimator.get_params().get("groups")
    if groups is not None and features.size < d:  # feature groups follow the pre-filter
        estimator.set_params(groups=np.asarray(groups)[features])
    start = time.perf_counter()
    estimator.fit(X_train[:, features], y[train])
    seconds = time.perf_counter() - start
    support = np.zeros(d, dtype=bool)
    support[features] = estimator.support_
    importance = np.zeros(d)
    importance[features] = estimator.importances_
    ranks = None
    if hasattr(estimator, "rank_order_"):
        ranks = np.empty(d, dtype=np.int64)
        ranks[features] = estimator.rank_order_
        if features.size < d:  # the pre-filtered-out features follow, by variance
            rest = np.setdiff1d(np.arange(d), features)
            by_variance = rest[np.argsort(-X_train[:, rest].var(axis=0, ddof=1), kind="stable")]
            ranks[by_variance] = np.arange(features.size + 1, d + 1)
    score = _score(estimator, X[out_of_bag][:, features], y[out_of_bag], metric)
    return support, importance, ranks, score, seconds


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
        variance_prefilter(X[:2], prefilter)  # validates the value against d
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int | np.integer) or n_jobs == 0:
        raise InvalidInputError(
            f"n_jobs must be a non-zero integer (-1: all cores); got {n_jobs!r}.")
    if not 0 < sample_fraction < 1:
        raise InvalidInputError(f"sample_fraction must be in (0, 1); got {sample_fraction!r}.")
    return X, y


def _progress(total: int, enabled: bool | None, description: str):
    if enabled is None:
        enabled = sys.stderr.isatty()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=description, disable=not enabled, leave=False)


def run_protocol(selector, X, y, *, runs: int = 100, resampling: str = "bootstrap",
                 sample_fraction: float = 0.9, prefilter: int | None = None,
                 metric: str = "accuracy", random_state=None, n_jobs: int = 1,
                 progress: bool | None = None) -> RunSet:
    """Run ``selector`` on ``runs`` resamples of (X, y) and measure it (SPEC §4).

    Parameters
    ----------
    selector : a paretostab selector (``support_``, ``importances_``, ``predict``)
        Cloned for every run. If it has a ``random_state`` parameter, it is set to one
        seed drawn for this call — the same for every run (a BiasedRFE's β is drawn once
        per protocol, as in 002 §5; :func:`replicates` draws fresh ones). A selector with
        ``calibrate(X, y, samples) -> params``, a ``target_features`` and no ``reg`` (the
        lasso, elastic net, group lasso) is calibrated once on the runs' training samples
        (after their pre-filter) so that the mean number of selected features is on
        target; the calibrated values are in ``RunSet.params["calibrated"]``.
    runs : int
        M.
    resampling : {"bootstrap", "subsample"}
        Stratified (per class) bootstrap of the same size, or subsample of
        ``sample_fraction`` of each class without replacement; the examples left out are
        the run's out-of-bag examples.
    prefilter : int, optional
        Keep the ``prefilter`` features of highest variance, computed on each run's
        training sample (000 §6.2, 003 §7.1); the others get rank after them, by variance.
    metric : {"accuracy", "balanced_accuracy", "roc_auc"}
        Out-of-bag score of each run's final model.
    random_state : int, optional
        Seeds everything through one ``numpy.random.SeedSequence``.
    n_jobs : int
        Runs in parallel processes (joblib); results do not depend on it.
    progress : bool, optional
        Show a progress bar; by default when standard error is a terminal.
    """
    X, y = _check_protocol(X, y, runs, resampling, metric, prefilter, n_jobs, sample_fraction)
    state = np.random.SeedSequence(random_state).generate_state(runs + 1)
    seeds, selector_seed = state[:runs], int(state[runs])
    selector = clone(selector)
    if "random_state" in selector.get_params():
        selector.set_params(random_state=selector_seed)
    samples = [_resample(y, int(seed), resampling, sample_fraction) for seed in seeds]
    calibrated = {}
    if _needs_calibration(selector):
        runs_data = [train if prefilter is None
                     else (train, variance_prefilter(X[train], prefilter))
                     for train, _ in samples]
        calibrated = selector.calibrate(X, y, runs_data)
        selector.set_params(**calibrated)
    jobs = (delayed(_run_one)(selector, X, y, train, oob, prefilter, metric)
            for train, oob in samples)
    results = []
    with _progress(runs, progress, type(selector).__name__) as bar:
        for result in Parallel(n_jobs=n_jobs, return_as="generator")(jobs):
            results.append(result)
            bar.update()
    support, importance, ranks, scores, seconds = zip(*results, strict=True)
    scores = np.array(scores, dtype=float)
    missing = int(np.isnan(scores).sum())
    if missing:
        warnings.warn(
            f"{missing} of {runs} runs have no out-of-bag score (no out-of-bag example"
            f"{', or a single class for roc_auc' if metric == 'roc_auc' else ''}); the "
            "accuracy averages the others.", StabilityWarning, stacklevel=2)
    params = {**_jsonable(selector.get_params()), "calibrated": _jsonable(calibrated),
              "protocol": {"runs": runs, "resampling": resampling, "prefilter": prefilter,
                           "sample_fraction": sample_fraction, "random_state": random_state}}
    return RunSet(
        selection_matrix=np.array(support),
        importance_matrix=np.array(importance),
        rank_matrix=None if ranks[0] is None else np.array(ranks),
        scores=scores,
        seeds=np.asarray(seeds, dtype=np.uint32),
        fit_seconds=np.array(seconds),
        metric=metric,
        resampling=resampling,
        selector=type(selector).__name__,
        params=params,
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
