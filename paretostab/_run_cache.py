"""Prepared runs and the run cache.

What a run prepares before any fit depends on its resample only, not on the selector's
hyperparameters (:class:`PreparedRun`): its rows (:func:`resample`, stratified; a run is
drawn by its seed and, for a complementary pair's halves, which half it is:
:func:`run_draws`), pre-filter columns and the order of the others, the
:class:`~paretostab.selectors.TrainingSample` (classes, standardisation, distinct rows)
with what selectors derive from it, and its out-of-bag rows. A :class:`RunCache` keeps
these prepared runs in each process, so that a tuning study whose trials share their
resamples prepares each run once per process instead of once per trial. Cached and
uncached runs run the same code on the same numbers: their RunSets are identical.

Importing this module loads no selector (nor scikit-learn): they are imported when a run
is prepared.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import time
import uuid
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from paretostab import _memory as memory
from paretostab._validation import Interval
from paretostab.data import variance_order

if TYPE_CHECKING:
    from paretostab.selectors import TrainingSample

__all__ = ["CACHE_RESERVE_BYTES", "DEFAULT_CACHE_BYTES", "PreparedRun", "RunCache",
           "prepared_run", "resample", "run_draws"]

#: A cache's memory budget.
MAX_BYTES = Interval("integer", 0, why=" (the memory budget in bytes)")


def resample(y: np.ndarray, seed: int, resampling: str, sample_fraction: float | None,
             half: int = 0):
    """Stratified training indices and out-of-bag indices of one run.

    Per class: a bootstrap of the class's size, or a subsample of ``sample_fraction`` of
    it without replacement (the fraction: None but for a subsample); with
    ``"complementary_pairs"``, ⌊n_c/2⌋ drawn without replacement into the first half, the
    rest into the second (R stabs' ``subsample`` and its complementary fold: Shah &
    Samworth 2013), and ``half`` (0 or 1) says which half the run trains on — its
    out-of-bag examples are the other half, exactly. Both halves of a pair are drawn from
    the same ``seed``.
    """
    rng = np.random.default_rng(seed)
    parts = []
    for label in np.unique(y):
        members = np.flatnonzero(y == label)
        if resampling == "bootstrap":
            parts.append(rng.choice(members, size=members.size, replace=True))
        elif resampling == "complementary_pairs":
            first = rng.choice(members, size=members.size // 2, replace=False)
            parts.append(first if half == 0 else np.setdiff1d(members, first))
        else:
            assert sample_fraction is not None  # a subsample's fraction: given
            size = min(members.size - 1, max(1, round(sample_fraction * members.size)))
            parts.append(rng.choice(members, size=size, replace=False))
    train = np.concatenate(parts)
    out_of_bag = np.setdiff1d(np.arange(y.size), train)
    return train, out_of_bag


def run_draws(seeds: list[int], resampling: str) -> list[tuple[int, int]]:
    """Each run's draw, (seed, half), from the resamples' ``seeds``: with
    ``"complementary_pairs"`` one seed per pair, its runs 2j and 2j + 1 the halves 0 and 1
    of pair j's split (:func:`resample`); otherwise one seed per run, half 0.

    Parameters
    ----------
    seeds : list of int
        One seed per resample: a pair of half-samples, or a run.
    resampling : str
        One of :data:`~paretostab._vocabulary.RESAMPLINGS`.
    """
    halves = (0, 1) if resampling == "complementary_pairs" else (0,)
    return [(seed, half) for seed in seeds for half in halves]


@dataclass(frozen=True, eq=False)
class PreparedRun:
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


def _prepare_run(X: np.ndarray, y: np.ndarray, draw: tuple[int, int],
                 settings: tuple) -> PreparedRun:
    from paretostab.selectors import TrainingSample  # the selectors, when a run is prepared

    resampling, sample_fraction, prefilter = settings
    seed, half = draw
    train, out_of_bag = resample(y, seed, resampling, sample_fraction, half)
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
    return PreparedRun(X.shape[1], out_of_bag, features, rank_tail, sample, X_out_of_bag,
                       y[out_of_bag])


#: Default memory budget of a :class:`RunCache` in one process: singh (102 × 12 600) at
#: M = 100 takes about 0.9 GB with a 5 000-feature pre-filter, 2.2 GB without; two tuning
#: workers at 3 GiB each leave most of a 24 GiB machine free. A cache takes no more than
#: the machine can spare (:data:`CACHE_RESERVE_BYTES`).
DEFAULT_CACHE_BYTES = 3 * 2**30

#: Memory a :class:`RunCache` leaves to the work itself: it admits a run only while the
#: memory available after it (:func:`~paretostab._memory.available_bytes`: the machine's,
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
    """Prepared runs, kept per process for every later
    :func:`~paretostab._protocol.run_protocol` call on the same data, seeds and protocol
    settings.

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
        self.max_bytes = MAX_BYTES.integer("max_bytes", max_bytes)
        self._token = _token or uuid.uuid4().hex
        self._runs: dict[tuple, PreparedRun] = {}
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
        value a selector derives).

        Parameters
        ----------
        nbytes : int
            The size of what would be kept; reserved (counted against ``max_bytes``) only
            when True is returned.
        """
        if self._own_bytes + nbytes > self.max_bytes:
            return False
        available = memory.available_bytes()
        if available is not None and available - nbytes < CACHE_RESERVE_BYTES:
            return False
        self._own_bytes += nbytes
        return True

    def data_key(self, X: np.ndarray, y: np.ndarray) -> str:
        """The fingerprint of the data (:func:`_fingerprint`), hashed once for arrays that
        cannot change — read-only, like every array they view (the tuning's data) — and at
        every call otherwise (hashing 10 MB costs 20 ms, most of a trial's overhead).

        Parameters
        ----------
        X, y : numpy arrays
            The data (n × d) and labels (n) of a protocol call.
        """
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

    def _run(self, key: tuple, prepare: Callable[[], PreparedRun]) -> PreparedRun:
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

    def report(self, hits: int) -> tuple[int, int, int, int]:
        """What this process tells the process it ran a run for (:meth:`record`): its
        (pid, bytes held, hit, miss), the cache having had ``hits`` hits before the run.

        Parameters
        ----------
        hits : int
            The cache's ``hits`` counter before the run: the run was a hit when it grew.
        """
        hit = self.hits - hits
        return os.getpid(), self._own_bytes, hit, 1 - hit

    def record(self, report: tuple[int, int, int, int]) -> None:
        """A worker's (pid, bytes held, hit, miss) after one run (:meth:`report`).

        Parameters
        ----------
        report : tuple of 4 ints
            What the worker's :meth:`report` returned.
        """
        pid, nbytes, hits, misses = report
        if pid != os.getpid():
            self._reported[pid] = nbytes
            self.hits += hits
            self.misses += misses


def _unchanging(array: np.ndarray) -> bool:
    """Nothing writes into ``array`` unless an array is made writeable again: it and every
    array it views are read-only, and the memory is theirs, an immutable object's or a
    read-only memory map's (the data ``tune``'s worker processes share)."""
    owner: object = array
    while isinstance(owner, np.ndarray):
        if owner.flags.writeable:
            return False
        owner = owner.base
    if isinstance(owner, mmap.mmap):
        with memoryview(owner) as view:
            return view.readonly
    return owner is None or isinstance(owner, bytes)


def _fingerprint(X: np.ndarray, y: np.ndarray) -> str:
    """What identifies the data of a cached run (shape, values, labels)."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(repr((X.shape, X.dtype.str, y.dtype.str)).encode())
    digest.update(np.ascontiguousarray(X).data.cast("B"))
    digest.update(np.unique(y, return_inverse=True)[1].astype(np.int64).tobytes())
    digest.update(repr(np.unique(y).tolist()).encode())
    return digest.hexdigest()


def _prepared(X, y, draw: tuple[int, int], settings: tuple, cache: RunCache | None,
              fingerprint: str | None) -> PreparedRun:
    def prepare():
        return _prepare_run(X, y, draw, settings)
    if cache is None:
        return prepare()
    # keyed by the whole draw: the two halves of a complementary pair share their seed
    return cache._run((fingerprint, *draw, *settings), prepare)


def prepared_run(X, y, draw: tuple[int, int], settings: tuple, cache: RunCache | None,
                 fingerprint: str | None) -> tuple[PreparedRun, float]:
    """The :class:`PreparedRun` of (X, y) drawn by ``draw`` — (seed, half),
    :func:`run_draws` — under ``settings`` (resampling, the subsample's fraction or None,
    the pre-filter or None), taken from ``cache`` when it holds it (the data known by
    their ``fingerprint``, :meth:`RunCache.data_key`), and the seconds it took."""
    start = time.perf_counter()
    run = _prepared(X, y, draw, settings, cache, fingerprint)
    return run, time.perf_counter() - start
