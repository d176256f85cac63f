"""The resampling protocol and RunSet (:mod:`paretostab._protocol`,
:mod:`paretostab._runset`)."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

import paretostab._protocol as protocol_module
from paretostab import InvalidInputError, StabilityWarning, stability
from paretostab._errors import MemoryLimitError
from paretostab._importance import linear_importance
from paretostab._protocol import (
    replicate_protocols,
    replicates,
    run_protocol,
    run_transfer_protocol,
)
from paretostab._run_cache import RunCache, resample
from paretostab._runset import RunSet
from paretostab._vocabulary import METRICS
from paretostab.data import simulate_correlated_groups, variance_prefilter
from paretostab.selectors import SELECTORS, BiasedRFE, HybridRFE, get_selector
from paretostab.selectors._base import SelectorBase
from paretostab.selectors._logistic import fit_l2_logistic


@pytest.fixture(scope="module")
def data():
    sim = simulate_correlated_groups(group_size=2, n_other=60, n_per_class=30, random_state=0)
    return sim.X, sim.y


@pytest.fixture(scope="module")
def runset(data):
    X, y = data
    return run_protocol(HybridRFE(n_features=6, n_stable=2), X, y, runs=8, random_state=3)


class CalibratedTopVariance(SelectorBase):
    """A minimal selector for the protocol's hooks: keeps the ``n_features`` of highest
    variance (no ranking), with a calibration that sets ``final_reg``."""

    def __init__(self, n_features=3, final_reg=1.0, target_features=None):
        self.n_features = n_features
        self.final_reg = final_reg
        self.target_features = target_features

    def calibrate(self, X, y, samples):
        return {"final_reg": float(len(samples))}

    def _select(self, sample):
        keep = variance_prefilter(sample.X, self.n_features)
        self.support_ = np.zeros(sample.n_features, dtype=bool)
        self.support_[keep] = True
        self.coef_, self.intercept_ = fit_l2_logistic(sample.X_std[:, keep], sample.signs,
                                                      reg=self.final_reg)
        self.importances_ = np.zeros(sample.n_features)
        self.importances_[keep] = linear_importance(self.coef_)

    def _decision(self, X_selected):
        return X_selected @ self.coef_ + self.intercept_


def test_runset_contents(runset, data):
    X, y = data
    assert runset.runs == 8 and runset.n_features == X.shape[1]
    assert np.all(runset.selection_matrix.sum(axis=1) == 6)
    assert np.all((runset.importance_matrix > 0) <= runset.selection_matrix)
    assert np.all(np.sort(runset.rank_matrix, axis=1) == np.arange(1, X.shape[1] + 1))
    assert np.all(runset.rank_matrix[runset.selection_matrix] <= 6)
    assert 0.5 < runset.accuracy <= 1 and runset.mean_selected == 6
    assert runset.stability("nogueira") == stability("nogueira", runset.selection_matrix)
    assert runset.stability("iw") == stability("iw", runset.importance_matrix)
    assert runset.stability("canberra", k=6) == stability("canberra", runset.rank_matrix, k=6)
    assert runset.params["n_stable"] == 2 and runset.params["protocol"]["runs"] == 8
    assert runset.selector == "HybridRFE"


def test_runs_are_the_selector_on_stratified_resamples(runset, data):
    X, y = data
    for i in (0, 5):
        train, oob = resample(y, int(runset.seeds[i]), "bootstrap", 0.9)
        assert np.array_equal(np.bincount(y[train]), np.bincount(y))  # stratified
        assert np.intersect1d(train, oob).size == 0
        alone = HybridRFE(n_features=6, n_stable=2).fit(X[train], y[train])
        np.testing.assert_array_equal(alone.support_, runset.selection_matrix[i])
        assert runset.scores[i] == pytest.approx(alone.score(X[oob], y[oob]))


def test_n_jobs_does_not_change_the_runset(runset, data):
    X, y = data
    parallel = run_protocol(HybridRFE(n_features=6, n_stable=2), X, y, runs=8, random_state=3,
                            n_jobs=2)
    assert runset.same_runs(parallel)
    other = run_protocol(HybridRFE(n_features=6, n_stable=2), X, y, runs=8, random_state=4)
    assert not runset.same_runs(other)


def test_save_and_load_round_trip(runset, tmp_path):
    path = runset.save(tmp_path / "runs.npz")
    again = RunSet.load(path)
    assert runset.same_runs(again)
    np.testing.assert_array_equal(again.fit_seconds, runset.fit_seconds)
    np.savez(tmp_path / "other.npz", x=np.zeros(2))
    with pytest.raises(InvalidInputError, match="not a paretostab RunSet"):
        RunSet.load(tmp_path / "other.npz")


def test_the_saved_runset_is_compact(runset, tmp_path):
    path = runset.save(tmp_path / "runs.npz")
    with np.load(path) as archive:
        columns = archive["columns"]
        np.testing.assert_array_equal(columns, np.flatnonzero(runset.selection_matrix.any(0)))
        assert archive["selection"].shape == (8, columns.size)
        assert archive["ranks"].dtype == np.uint8  # d + 1 = 65 fits a byte
    again = RunSet.load(path)
    assert again.rank_depth is None and again.rank_matrix.dtype == np.int64
    np.testing.assert_array_equal(again.prepare_seconds, runset.prepare_seconds)


def test_a_runset_saved_with_part_of_its_rankings(runset, tmp_path):
    top = RunSet.load(runset.save(tmp_path / "top.npz", ranks=6))
    assert top.rank_depth == 6 and top.same_runs(top)
    np.testing.assert_array_equal(top.rank_matrix, np.minimum(runset.rank_matrix, 7))
    assert top.stability("js", k=6) == runset.stability("js", k=6)
    assert top.stability("canberra", k=4) == runset.stability("canberra", k=4)
    with pytest.raises(InvalidInputError, match="reads deeper rankings .* top 6 positions"):
        top.stability("spearman")
    with pytest.raises(InvalidInputError, match="pass k <= 6"):
        top.stability("js", k=7)
    none = RunSet.load(runset.save(tmp_path / "none.npz", ranks=None))
    assert none.rank_matrix is None and none.rank_depth == 0
    with pytest.raises(InvalidInputError, match="saved without them"):
        none.stability("js", k=3)
    assert none.stability("iw") == runset.stability("iw")
    with pytest.raises(InvalidInputError, match="ranks must be 'full', a positive integer"):
        runset.save(tmp_path / "bad.npz", ranks=0)


def test_a_runset_of_the_previous_format_is_refused_clearly(runset, tmp_path):
    np.savez_compressed(tmp_path / "old.npz", selection_matrix=runset.selection_matrix,
                        metadata=np.array('{"format": 1, "metric": "accuracy"}'))
    with pytest.raises(InvalidInputError, match="format 1, written by an older paretostab"):
        RunSet.load(tmp_path / "old.npz")


def test_prefilter_is_computed_on_each_training_sample(data):
    X, y = data
    runs = run_protocol(HybridRFE(n_features=4), X, y, runs=4, prefilter=10, random_state=5)
    for i in range(4):
        train, _ = resample(y, int(runs.seeds[i]), "bootstrap", 0.9)
        allowed = variance_prefilter(X[train], 10)
        assert set(np.flatnonzero(runs.selection_matrix[i])) <= set(allowed)
        assert set(np.flatnonzero(runs.rank_matrix[i] <= 10)) == set(allowed)


@pytest.mark.parametrize("metric", ["balanced_accuracy", "roc_auc"])
def test_metrics_and_subsampling(data, metric):
    X, y = data
    runs = run_protocol(HybridRFE(n_features=4), X, y, runs=3, metric=metric,
                        resampling="subsample", sample_fraction=0.7, random_state=1)
    assert runs.metric == metric and 0.4 < runs.accuracy <= 1
    train, oob = resample(y, int(runs.seeds[0]), "subsample", 0.7)
    assert train.size == 42 and oob.size == 18


def test_empty_out_of_bag_sets_are_skipped_with_a_warning():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4, 6))
    y = np.array([0, 0, 1, 1])
    with pytest.warns(StabilityWarning, match=r"\d+ of 12 runs have no out-of-bag score") as seen:
        runs = run_protocol(HybridRFE(n_features=2), X, y, runs=12, random_state=0)
    assert [warning.filename for warning in seen] == [__file__]  # the caller's line
    assert np.isnan(runs.scores).any() and not np.isnan(runs.scores).all()
    assert runs.accuracy == pytest.approx(np.nanmean(runs.scores))


def test_calibration_hook_and_selectors_without_rankings(data):
    X, y = data
    runs = run_protocol(CalibratedTopVariance(target_features=3), X, y, runs=3, random_state=0)
    assert runs.params["calibrated"] == {"final_reg": 3.0} and runs.params["final_reg"] == 3.0
    assert runs.rank_matrix is None
    with pytest.raises(InvalidInputError, match="needs rankings; selector CalibratedTopVariance"):
        runs.stability("js")


def test_replicates_draw_fresh_resamples_and_fresh_beta(data):
    X, y = data
    reps = replicates(BiasedRFE(n_features=4, shape=0.5), X, y, 3, random_state=2, runs=3)
    assert len(reps) == 3
    assert len({r.params["random_state"] for r in reps}) == 3
    assert len({tuple(r.seeds) for r in reps}) == 3
    again = replicates(BiasedRFE(n_features=4, shape=0.5), X, y, 3, random_state=2, runs=3)
    assert all(a.same_runs(b) for a, b in zip(reps, again, strict=True))


PROTOCOL = {"runs": 3, "resampling": "subsample", "sample_fraction": 0.8, "prefilter": 20,
            "metric": "accuracy"}


@pytest.mark.slow
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_replicates_of_several_selectors_in_one_pool_are_each_ones_replicates(data, n_jobs):
    """The pool gives each selector the RunSets :func:`replicates` gives it with its random
    state (randomised and calibrated selectors too), whatever the pool's size."""
    X, y = data
    selectors = [BiasedRFE(n_features=4, shape=0.5), HybridRFE(n_features=5, n_stable=2),
                 CalibratedTopVariance(target_features=3)]
    states = [[0, 4, 1], [0, 9, 1], 7]
    counted: list[int] = []
    found = list(replicate_protocols(selectors, X, y, 3, random_states=states,
                                     n_jobs=n_jobs, on_runs=counted.append, **PROTOCOL))
    assert sorted((i, b) for i, b, _ in found) == [(i, b) for i in range(3) for b in range(3)]
    # the runs counted as they end: one by one here, a protocol's M from a pool's process
    assert counted == ([1] * 27 if n_jobs == 1 else [PROTOCOL["runs"]] * 9)
    for i, b, runs in found:
        alone = replicates(selectors[i], X, y, 3, random_state=states[i], **PROTOCOL)[b]
        assert alone.same_runs(runs) and alone.params == runs.params
        np.testing.assert_array_equal(alone.scores, runs.scores)
        np.testing.assert_array_equal(alone.importance_matrix, runs.importance_matrix)
    assert list(replicate_protocols([], X, y, 3, random_states=[], **PROTOCOL)) == []
    with warnings.catch_warnings():  # stopped early (Ctrl-C): no warning of joblib's
        warnings.simplefilter("error")
        stopped = replicate_protocols(selectors * 3, X, y, 3, random_states=states * 3,
                                      n_jobs=n_jobs, **PROTOCOL)
        next(stopped)
        stopped.close()
    with pytest.raises(InvalidInputError, match="one random_state per selector: got 1 for 2"):
        next(replicate_protocols(selectors[:2], X, y, 3, random_states=[1], **PROTOCOL))


class FitsLogged(CalibratedTopVariance):
    """CalibratedTopVariance that appends the id of the process fitting it to ``log``."""

    def __init__(self, n_features=3, final_reg=1.0, target_features=None, log=""):
        super().__init__(n_features, final_reg, target_features)
        self.log = log

    def _select(self, sample):
        with open(self.log, "a") as log:
            log.write(f"{os.getpid()}\n")
        super()._select(sample)


def test_a_pool_of_one_runs_the_protocols_here_sharing_the_cache(data, tmp_path, capsys):
    """By default the pool is one: every run is fitted in this process, counted as it
    ends, with no progress bar of its own, and selectors of one random state share their
    resamples through the cache, each prepared once."""
    X, y = data
    log = tmp_path / "fits"
    selectors = [FitsLogged(n_features=3, log=str(log)), FitsLogged(n_features=4, log=str(log))]
    cache = RunCache()
    counted: list[int] = []
    found = list(replicate_protocols(selectors, X, y, 2, random_states=[5, 5],
                                     on_runs=counted.append, cache=cache, **PROTOCOL))
    assert len(found) == 4 and counted == [1] * 12
    assert log.read_text().split() == [str(os.getpid())] * 12
    assert capsys.readouterr().err == ""
    assert cache.hits == 6  # the second selector's runs


def test_a_pool_refuses_bad_runs_before_it_starts(data, monkeypatch):
    X, y = data
    monkeypatch.setattr(protocol_module, "Parallel",
                        lambda *args, **kwargs: pytest.fail("a pool started"))
    protocol = {**PROTOCOL, "resampling": "complementary_pairs"}
    for runs, message in [(1, "runs must be an integer >= 2"), (3, "even")]:
        with pytest.raises(InvalidInputError, match=message):
            next(replicate_protocols([HybridRFE(n_features=3)], X, y, 2, random_states=[0],
                                     n_jobs=2, **{**protocol, "runs": runs}))


def test_a_pool_of_protocols_has_the_processes_the_memory_allows(data, monkeypatch):
    X, _ = data
    allowed = []

    def check(name, X, runs, settings, n_jobs, calibrates):
        allowed.append(n_jobs)
        if n_jobs > 2:
            raise MemoryLimitError("too many")

    monkeypatch.setattr(protocol_module, "_check_memory", check)
    assert protocol_module._pool_size("x", X, 3, ("bootstrap", None, None), 5, False) == 2
    assert allowed == [5, 4, 3, 2]
    monkeypatch.setattr(protocol_module, "_check_memory",
                        lambda *args: (_ for _ in ()).throw(MemoryLimitError("none")))
    assert protocol_module._pool_size("x", X, 3, ("bootstrap", None, None), 5, False) == 1


def test_transfer_protocol_rows_are_tasks():
    tasks = [simulate_correlated_groups(n_other=40, n_per_class=20, random_state=s)
             for s in range(4)]
    runs = run_transfer_protocol([(t.X, t.y) for t in tasks], transfer=2.0, n_features=5,
                                 random_state=0)
    assert runs.runs == 4 and np.all(runs.selection_matrix.sum(axis=1) == 5)
    assert runs.params["transfer"] == 2.0
    independent = run_transfer_protocol([(t.X, t.y) for t in tasks], transfer=0.0,
                                        n_features=5, random_state=0)
    assert runs.stability("nogueira") >= independent.stability("nogueira")


def test_the_transfer_protocol_takes_tasks_as_lists_from_a_generator():
    tasks = [simulate_correlated_groups(n_other=40, n_per_class=20, random_state=s)
             for s in range(3)]
    arrays = run_transfer_protocol([(t.X, t.y) for t in tasks], transfer=1.0, n_features=5,
                                   random_state=0)
    lists = run_transfer_protocol(((t.X.tolist(), t.y.tolist()) for t in tasks), transfer=1.0,
                                  n_features=5, random_state=0)
    assert lists.same_runs(arrays)
    np.testing.assert_array_equal(lists.scores, arrays.scores)


def test_the_transfer_protocol_refuses_one_task_and_a_task_of_one_class():
    tasks = [simulate_correlated_groups(n_other=40, n_per_class=20, random_state=s)
             for s in range(2)]
    with pytest.raises(InvalidInputError, match="at least 2 tasks; got 1"):
        run_transfer_protocol([(tasks[0].X, tasks[0].y)], transfer=1.0, n_features=5)
    one_class = (tasks[1].X, np.zeros_like(tasks[1].y))
    with pytest.raises(InvalidInputError, match="task 1"):
        run_transfer_protocol([(tasks[0].X, tasks[0].y), one_class], transfer=1.0,
                              n_features=5)


def test_progress_bar_only_when_asked(data, capsys):
    X, y = data
    run_protocol(HybridRFE(n_features=3), X, y, runs=2, random_state=0, progress=True)
    assert "HybridRFE" in capsys.readouterr().err
    run_protocol(HybridRFE(n_features=3), X, y, runs=2, random_state=0, progress=False)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"runs": 1}, "runs must be an integer >= 2"),
        ({"resampling": "jackknife"}, "resampling must be one of"),
        ({"metric": "f1"}, "metric must be one of"),
        ({"prefilter": 1000}, r"prefilter must be an integer in \[1, 70\]"),
        ({"n_jobs": 0}, "n_jobs must be a non-zero integer"),
        ({"resampling": "subsample", "sample_fraction": 1.5}, r"sample_fraction must be a number in \(0, 1\)"),
    ],
)
def test_bad_protocol_arguments(data, kwargs, message):
    X, y = data
    with pytest.raises(InvalidInputError, match=message):
        run_protocol(HybridRFE(n_features=3), X, y, **kwargs)


def test_bad_data(data):
    X, y = data
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(InvalidInputError, match="1 NaN or infinite value"):
        run_protocol(HybridRFE(n_features=3), bad, y)
    with pytest.raises(InvalidInputError, match="single class"):
        run_protocol(HybridRFE(n_features=3), X, np.zeros(len(y)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidInputError, match="one label per row"):
            run_protocol(HybridRFE(n_features=3), X, y[:-1])


@pytest.mark.parametrize("name", sorted(SELECTORS))
def test_every_registered_selector_runs_through_the_protocol(name, data):
    X, y = data
    info = get_selector(name)
    params = info.estimator().get_params()
    small = {"n_features": 4, "target_features": 4, "n_trees": 25}
    runs = run_protocol(info.make(**{k: v for k, v in small.items() if k in params}), X, y,
                        runs=4, random_state=0)
    assert runs.runs == 4 and runs.selector == info.estimator.__name__
    assert 2 <= runs.mean_selected <= 6 and 0.5 < runs.accuracy <= 1
    assert np.all((runs.importance_matrix > 0) <= runs.selection_matrix)
    assert -1 <= runs.stability("nogueira") <= 1 and -1 <= runs.stability("iw") <= 1
    if "target_features" in params:
        assert runs.params["calibrated"]["reg"] == runs.params["reg"] > 0


# ------------------------------------------------------------- K classes, every metric


def multiclass_selectors():
    """name → (a new selector, X, y, random state, mean selected count, its tolerance) of
    the K-class selectors (issue 20), each on its test module's simulated classes: the
    filters, the forest and ReliefF (3 classes), the multinomial lasso family (3 classes,
    calibrated to 4 features) and the RFE family (4 classes)."""
    from tests import multiclass

    cases = {}
    X, y = multiclass.filter_classes(3, n_per_class=15, d=12)
    for name in multiclass.filter_selectors():
        cases[name] = (lambda name=name: multiclass.filter_selectors(k=3)[name], X, y, 0, 3, 0)
    X, y = multiclass.linear_classes(12, n_classes=3, n=60, d=20)
    for name in ("lasso", "elastic_net", "group_lasso"):
        cases[name] = (lambda name=name: SELECTORS[name].make(target_features=4), X, y, 0, 4, 1)
    X, y = multiclass.rfe_classes(1)
    for name in multiclass.RFES:
        cases[name] = (lambda name=name: multiclass.rfe_selector(name), X, y, 2,
                       multiclass.RFE_INFORMATIVE, 0)
    return cases


MULTICLASS = multiclass_selectors()


@pytest.mark.slow
@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("name", list(MULTICLASS))
def test_the_protocol_runs_every_metric_with_k_classes(name, metric):
    """Each run's out-of-bag score of K classes, in (0.5, 1] (well above chance), the
    selected count and no importance outside the selection."""
    make, X, y, random_state, count, tolerance = MULTICLASS[name]
    runs = run_protocol(make(), X, y, runs=5, metric=metric, random_state=random_state,
                        progress=False)
    assert runs.selection_matrix.shape == (5, X.shape[1])
    assert np.all(np.isfinite(runs.scores)) and np.all((runs.scores > 0.5) & (runs.scores <= 1))
    assert np.all(runs.importance_matrix[~runs.selection_matrix] == 0)
    counts = runs.selection_matrix.sum(axis=1)
    assert abs(counts.mean() - count) <= tolerance
    if tolerance == 0:
        assert np.all(counts == count)
