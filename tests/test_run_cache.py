"""Prepared runs: the TrainingSample every selector fits from, and the protocol's RunCache.

The cache's promise is equality: a RunSet computed from cached runs — prepared by an
earlier call with other hyperparameters, their memo filled by it — is the RunSet computed
without a cache, to the last bit.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from paretostab import InvalidInputError
from paretostab._protocol import run_protocol
from paretostab._run_cache import RunCache, _process_cache, resample
from paretostab.data import simulate_correlated_groups, variance_prefilter
from paretostab.selectors import SELECTORS, HybridRFE, TrainingSample, get_selector
from paretostab.selectors._logistic import IncrementalL2Logistic
from tests.search_points import selector_at


@pytest.fixture(scope="module")
def data():
    sim = simulate_correlated_groups(n_groups=4, group_size=3, n_other=48, n_per_class=20,
                                     random_state=7)
    return sim.X, sim.y, sim.groups


@pytest.mark.parametrize("name", sorted(SELECTORS))
@pytest.mark.parametrize("prefilter", [None, 40])
def test_every_registered_selector_gives_the_same_runset_with_and_without_the_cache(
        data, name, prefilter):
    X, y, groups = data
    protocol = {"runs": 3, "prefilter": prefilter, "random_state": 11, "progress": False}
    first, second = selector_at(name, 0.3, groups), selector_at(name, 0.7, groups)
    plain_first = run_protocol(first, X, y, **protocol)
    plain_second = run_protocol(second, X, y, **protocol)
    cache = RunCache()
    assert run_protocol(first, X, y, cache=cache, **protocol).same_runs(plain_first)
    warm = run_protocol(second, X, y, cache=cache, **protocol)  # runs and memo of `first`
    assert warm.same_runs(plain_second)
    assert run_protocol(first, X, y, cache=cache, **protocol).same_runs(plain_first)
    assert (cache.hits, cache.misses, len(cache)) == (6, 3, 3)
    assert warm.prepare_seconds.shape == (3,) and np.all(warm.prepare_seconds >= 0)


@pytest.mark.slow
def test_worker_processes_keep_their_own_part_of_the_cache(data):
    X, y, _ = data
    protocol = {"runs": 6, "prefilter": 40, "random_state": 2, "progress": False}
    plain = run_protocol(HybridRFE(n_features=5, n_stable=2, epsilon=0.3), X, y, **protocol)
    cache = RunCache()
    for _ in range(4):
        parallel = run_protocol(HybridRFE(n_features=5, n_stable=2, epsilon=0.3), X, y,
                                n_jobs=2, cache=cache, **protocol)
        assert parallel.same_runs(plain)
    assert len(cache) == 0  # this process fitted nothing: its workers hold the runs
    assert cache.nbytes > 0 and cache.hits + cache.misses == 24
    # joblib hands a run to whichever worker is free: each prepares a run once at most
    assert 6 <= cache.misses <= 12 and cache.hits >= 12


def test_a_calibrated_selector_in_worker_processes_with_the_cache(data):
    """Calibration prepares the runs in this process (kept in its part of the cache); the
    workers fit them from their own parts."""
    X, y, _ = data
    protocol = {"runs": 4, "prefilter": 40, "random_state": 5, "progress": False}
    lasso = get_selector("lasso").make(target_features=6)
    plain = run_protocol(lasso, X, y, **protocol)
    cache = RunCache()
    for _ in range(2):
        assert run_protocol(lasso, X, y, n_jobs=2, cache=cache, **protocol).same_runs(plain)
    assert len(cache) == 4 and plain.params["calibrated"]


class TopVarianceEstimator:
    """A selector from elsewhere: fit(X, y) only, no TrainingSample."""

    def __init__(self, n_features=3):
        self.n_features = n_features

    def get_params(self, deep=True):
        return {"n_features": self.n_features}

    def set_params(self, **params):
        self.__dict__.update(params)
        return self

    def fit(self, X, y):
        order = np.argsort(-X.var(axis=0), kind="stable")[: self.n_features]
        self.support_ = np.zeros(X.shape[1], dtype=bool)
        self.support_[order] = True
        self.importances_ = self.support_ * X.var(axis=0)
        self.label_ = y[0]
        return self

    def predict(self, X):
        return np.full(X.shape[0], self.label_)


def test_an_estimator_without_fit_sample_gets_the_runs_data(data):
    X, y, _ = data
    for prefilter in (None, 40):
        protocol = {"runs": 3, "prefilter": prefilter, "random_state": 1, "progress": False}
        plain = run_protocol(TopVarianceEstimator(), X, y, **protocol)
        cache = RunCache()
        for _ in range(2):
            assert run_protocol(TopVarianceEstimator(), X, y, cache=cache,
                                **protocol).same_runs(plain)
        for i, seed in enumerate(plain.seeds):
            train, oob = resample(y, int(seed), "bootstrap", 0.9)
            columns = (np.arange(X.shape[1]) if prefilter is None
                       else variance_prefilter(X[train], prefilter))
            alone = TopVarianceEstimator().fit(X[train][:, columns], y[train])
            np.testing.assert_array_equal(np.flatnonzero(plain.selection_matrix[i]),
                                          columns[alone.support_])
            assert plain.scores[i] == np.mean(alone.predict(X[oob]) == y[oob])
        assert plain.rank_matrix is None


def test_the_budget_admits_runs_until_full_then_recomputes(data):
    X, y, _ = data
    protocol = {"runs": 8, "random_state": 4, "progress": False}
    plain = run_protocol(HybridRFE(n_features=4), X, y, **protocol)
    one_run = RunCache()
    run_protocol(HybridRFE(n_features=4), X, y, runs=2, random_state=4, cache=one_run,
                 progress=False)
    per_run = one_run.nbytes / 2
    cache = RunCache(max_bytes=int(3.5 * per_run))
    for _ in range(3):
        assert run_protocol(HybridRFE(n_features=4), X, y, cache=cache, **protocol).same_runs(
            plain)
    assert len(cache) == 3 and cache.nbytes <= cache.max_bytes
    assert (cache.hits, cache.misses) == (6, 8 + 5 + 5)  # the first 3 runs stay, not the rest
    nothing = RunCache(max_bytes=0)
    assert run_protocol(HybridRFE(n_features=4), X, y, cache=nothing, **protocol).same_runs(
        plain)
    assert len(nothing) == 0 and nothing.nbytes == 0


def test_the_cache_tells_data_and_settings_apart(data):
    X, y, _ = data
    cache = RunCache()
    base = {"runs": 2, "random_state": 0, "cache": cache, "progress": False}
    run_protocol(HybridRFE(n_features=4), X, y, **base)
    variants = [dict(base, prefilter=30), dict(base, resampling="subsample"),
                dict(base, resampling="subsample", sample_fraction=0.5),
                dict(base, random_state=1)]
    for protocol in variants:
        runs = run_protocol(HybridRFE(n_features=4), X, y, **protocol)
        fresh = {k: v for k, v in protocol.items() if k != "cache"}
        assert runs.same_runs(run_protocol(HybridRFE(n_features=4), X, y, **fresh))
    changed = X.copy()
    changed[0, 0] += 1.0
    runs = run_protocol(HybridRFE(n_features=4), changed, y, **base)
    assert runs.same_runs(run_protocol(HybridRFE(n_features=4), changed, y, runs=2,
                                       random_state=0, progress=False))
    assert cache.hits == 0 and cache.misses == 12


def test_read_only_data_are_hashed_once_writeable_data_at_every_call(data, monkeypatch):
    import paretostab._run_cache as run_cache

    X, y, _ = data
    hashed = []
    original = run_cache._fingerprint
    monkeypatch.setattr(run_cache, "_fingerprint",
                        lambda *a: hashed.append(1) or original(*a))
    frozen_X, frozen_y = X.copy(), y.copy()
    frozen_X.flags.writeable = frozen_y.flags.writeable = False
    cache = RunCache()
    protocol_args = {"runs": 2, "random_state": 0, "cache": cache, "progress": False}
    for _ in range(3):
        run_protocol(HybridRFE(n_features=4), frozen_X, frozen_y, **protocol_args)
    assert len(hashed) == 1 and cache.hits == 4
    view = frozen_X[:, :30]  # a read-only view of read-only memory: fixed too
    run_protocol(HybridRFE(n_features=4), view, frozen_y, **protocol_args)
    run_protocol(HybridRFE(n_features=4), view, frozen_y, **protocol_args)
    assert len(hashed) == 2
    writeable = X.copy()
    plain = run_protocol(HybridRFE(n_features=4), writeable, y, runs=2, random_state=0,
                         progress=False)
    run_protocol(HybridRFE(n_features=4), writeable, y, **protocol_args)
    writeable[:, 0] += 1.0  # changed between calls: recognised by its new content
    changed = run_protocol(HybridRFE(n_features=4), writeable, y, **protocol_args)
    assert len(hashed) == 4
    assert changed.same_runs(run_protocol(HybridRFE(n_features=4), writeable, y, runs=2,
                                          random_state=0, progress=False))
    assert not changed.same_runs(plain)
    readonly_view = X[:, :30].view()  # read-only view of writeable memory: hashed each time
    readonly_view.flags.writeable = False
    run_protocol(HybridRFE(n_features=4), readonly_view, y, **protocol_args)
    run_protocol(HybridRFE(n_features=4), readonly_view, y, **protocol_args)
    assert len(hashed) == 6


def test_a_cache_travels_to_a_worker_as_its_token():
    cache = RunCache(max_bytes=1000)
    assert pickle.loads(pickle.dumps(cache)) is cache  # this process: the same object
    remote = _process_cache("token-of-another-process", 1000)
    assert remote is not cache and remote.max_bytes == 1000
    assert _process_cache("token-of-another-process", 1000) is remote
    # a worker keeps the caches of its latest two callers, no more
    second = _process_cache("token-of-a-second-process", 1000)
    third = _process_cache("token-of-a-third-process", 1000)
    assert _process_cache("token-of-a-second-process", 1000) is second
    assert _process_cache("token-of-a-third-process", 1000) is third
    assert _process_cache("token-of-another-process", 1000) is not remote
    with pytest.raises(InvalidInputError, match="max_bytes must be an integer >= 0"):
        RunCache(max_bytes=-1)
    with pytest.raises(InvalidInputError, match="cache must be a RunCache"):
        run_protocol(HybridRFE(n_features=2), np.ones((6, 3)), [0, 1] * 3, runs=2,
                     cache={})


# ------------------------------------------------------------------- training sample


def test_fit_is_fit_sample_of_a_training_sample(data):
    X, y, _ = data
    direct = HybridRFE(n_features=5, n_stable=2, epsilon=0.2, alpha=0.5).fit(X, y)
    sample = TrainingSample(X, y)
    prepared = HybridRFE(n_features=5, n_stable=2, epsilon=0.2, alpha=0.5).fit_sample(sample)
    for name in ("support_", "importances_", "rank_order_", "coef_", "mean_", "scale_"):
        np.testing.assert_array_equal(getattr(prepared, name), getattr(direct, name))
    assert prepared.n_features_in_ == X.shape[1]
    np.testing.assert_array_equal(prepared.predict(X), direct.predict(X))
    np.testing.assert_array_equal(sample.y, y)


def test_a_frozen_sample_is_read_only_and_memoises_within_its_budget(data):
    X, y, _ = data
    sample = TrainingSample(X.copy(), y)
    sample.freeze()
    with pytest.raises(ValueError, match="read-only"):
        sample.X[0, 0] = 1.0
    calls = []

    def compute():
        calls.append(1)
        return np.arange(5.0)

    first = sample.memo(("key", 1), compute)
    assert sample.memo(("key", 1), compute) is first and len(calls) == 1
    with pytest.raises(ValueError, match="read-only"):
        first[0] = 9.0

    class Refuse:
        def admit(self, nbytes):
            return False

    sample.budget = Refuse()
    sample.memo(("key", 2), compute)
    sample.memo(("key", 2), compute)
    assert len(calls) == 3  # not admitted: computed each time
    np.testing.assert_array_equal(sample.X_std, (X - X.mean(axis=0)) / sample.scale)
    with pytest.raises(InvalidInputError, match="needs 2 classes in y; got 1 class"):
        TrainingSample(X, np.zeros(len(y)))


@pytest.mark.parametrize("n_shrunk", [0, 3, 40])
def test_the_first_gram_matrix_from_a_shared_one(n_shrunk):
    rng = np.random.default_rng(n_shrunk)
    X = rng.normal(size=(20, 60))
    y = np.where(rng.random(20) > 0.5, 1.0, -1.0)
    beta = np.ones(60)
    beta[rng.choice(60, n_shrunk, replace=False)] = rng.uniform(0.01, 0.9, n_shrunk)
    shared = IncrementalL2Logistic(X, y, reg=1.0, beta=beta, gram=X @ X.T, tol=1e-8)
    scaled = X / beta
    np.testing.assert_allclose(shared._K, scaled @ scaled.T, rtol=1e-12, atol=1e-9)
    alone = IncrementalL2Logistic(X, y, reg=1.0, beta=beta, tol=1e-8)
    np.testing.assert_array_equal(shared._K, alone._K)  # the same algebra either way
