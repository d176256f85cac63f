"""``resampling = "complementary_pairs"``: M/2 stratified splits into complementary halves,
the runs whose selection frequencies the PFER bounds of Shah & Samworth (2013) control.

Runs 2j and 2j + 1 train on the two halves of pair j's split (per class ⌊n_c/2⌋ drawn
without replacement, and the rest), each scored on the other half; each pair is drawn from
its own seed of the protocol's one SeedSequence.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paretostab import InvalidInputError
from paretostab import _memory as memory
from paretostab._errors import MemoryLimitError
from paretostab._problem import Problem
from paretostab._protocol import replicate_protocols, replicates, run_protocol
from paretostab._run_cache import RunCache, prepared_run, resample, run_draws
from paretostab._storage import artifact_store, load_runset, open_storage
from paretostab._tuning import run_study
from paretostab._tuning.notes import study_note
from paretostab.data import simulate_correlated_groups, variance_prefilter
from paretostab.selectors import HybridRFE, get_selector
from paretostab.spec import parse_spec
from tests.studies import tiny

PAIRS = "complementary_pairs"


@pytest.fixture(scope="module")
def data():
    sim = simulate_correlated_groups(group_size=2, n_other=40, n_per_class=15, random_state=0)
    y = sim.y.copy()
    y[:3] = 2  # a third class of 3 (odd): its halves are 1 and 2 examples
    return sim.X, y


@pytest.fixture(scope="module")
def runset(data):
    X, y = data
    return run_protocol(HybridRFE(n_features=5, n_stable=2), X, y, runs=6, resampling=PAIRS,
                        random_state=3, progress=False)


def check_pair(y, seed):
    """The two halves of ``seed``'s split, checked against each other and the classes."""
    first, out_first = resample(y, seed, PAIRS, None, 0)
    second, out_second = resample(y, seed, PAIRS, None, 1)
    assert np.intersect1d(first, second).size == 0
    np.testing.assert_array_equal(np.sort(np.concatenate([first, second])), np.arange(y.size))
    np.testing.assert_array_equal(out_first, np.sort(second))  # out-of-bag: the complement
    np.testing.assert_array_equal(out_second, np.sort(first))
    for label in np.unique(y):
        n_c = int(np.sum(y == label))
        assert np.sum(y[first] == label) == n_c // 2
        assert np.sum(y[second] == label) == n_c - n_c // 2
    return first, second


def test_a_pair_partitions_each_class_into_its_halves(data):
    _, y = data
    first, second = check_pair(y, 7)
    assert first.size == 1 + 6 + 7 and second.size == 2 + 6 + 8  # classes of 3, 12, 15
    again, _ = resample(y, 7, PAIRS, None, 0)
    np.testing.assert_array_equal(again, first)  # the seed decides
    other, _ = resample(y, 8, PAIRS, None, 0)
    assert not np.array_equal(np.sort(other), np.sort(first))


@settings(max_examples=60)
@given(sizes=st.lists(st.integers(2, 25), min_size=2, max_size=5),
       seed=st.integers(0, 2**32 - 1), order=st.randoms(use_true_random=False))
def test_any_class_sizes_are_split_exactly(sizes, seed, order):
    y = np.repeat(np.arange(len(sizes)), sizes)
    order.shuffle(y)  # the classes interleaved, as in real data
    check_pair(y, seed)


def test_each_run_is_the_selector_on_its_half_scored_on_the_other(runset, data):
    X, y = data
    assert runset.resampling == PAIRS and runset.runs == 6
    np.testing.assert_array_equal(runset.seeds[0::2], runset.seeds[1::2])  # a pair's seed
    assert len(set(runset.seeds.tolist())) == 3
    for i in range(6):
        train, oob = resample(y, int(runset.seeds[i]), PAIRS, None, i % 2)
        alone = HybridRFE(n_features=5, n_stable=2).fit(X[train], y[train])
        np.testing.assert_array_equal(alone.support_, runset.selection_matrix[i])
        assert runset.scores[i] == pytest.approx(alone.score(X[oob], y[oob]))


def test_each_pair_has_its_own_seed_of_the_one_seed_sequence(runset):
    state = np.random.SeedSequence(3).generate_state(3 + 1)
    np.testing.assert_array_equal(runset.seeds, np.repeat(state[:3], 2))
    assert run_draws([5, 9], PAIRS) == [(5, 0), (5, 1), (9, 0), (9, 1)]
    assert run_draws([5, 9], "subsample") == [(5, 0), (9, 0)]


@pytest.mark.slow
def test_the_same_seed_gives_the_same_runs_whatever_n_jobs(runset, data):
    X, y = data
    for n_jobs in (1, 2):
        again = run_protocol(HybridRFE(n_features=5, n_stable=2), X, y, runs=6,
                             resampling=PAIRS, random_state=3, n_jobs=n_jobs, progress=False)
        assert again.same_runs(runset)
    other = run_protocol(HybridRFE(n_features=5, n_stable=2), X, y, runs=6, resampling=PAIRS,
                         random_state=4, progress=False)
    assert not other.same_runs(runset)


@pytest.mark.parametrize("runs", [3, 7])
def test_an_odd_number_of_runs_is_refused_in_one_line(data, runs):
    X, y = data
    line = (f'runs must be an even integer >= 2 with resampling "complementary_pairs" (runs '
            f"2j and 2j + 1 are the two halves of one split); got {runs}.")
    with pytest.raises(InvalidInputError) as caught:
        run_protocol(HybridRFE(n_features=5), X, y, runs=runs, resampling=PAIRS,
                     progress=False)
    assert str(caught.value) == line
    with pytest.raises(InvalidInputError) as caught:
        replicates(HybridRFE(n_features=5), X, y, 2, runs=runs, resampling=PAIRS)
    assert str(caught.value) == line
    with pytest.raises(InvalidInputError) as caught:
        next(replicate_protocols([HybridRFE(n_features=5)], X, y, 3, random_states=[0],
                                 runs=runs, resampling=PAIRS, sample_fraction=0.9,
                                 prefilter=None, metric="accuracy"))
    assert str(caught.value) == line
    with pytest.raises(InvalidInputError) as caught:
        tiny(protocol={"runs": runs, "resampling": PAIRS})
    assert str(caught.value) == "protocol." + line.replace(" must", ": must")
    assert tiny(protocol={"runs": runs}).protocol.runs == runs  # the bootstrap's M: any


def test_the_run_cache_never_hands_one_half_the_other(data):
    X, y = data
    cache = RunCache()
    settings = (PAIRS, None, None)
    fingerprint = cache.data_key(X, y)
    first, _ = prepared_run(X, y, (11, 0), settings, cache, fingerprint)
    second, _ = prepared_run(X, y, (11, 1), settings, cache, fingerprint)
    assert len(cache) == 2 and cache.misses == 2
    np.testing.assert_array_equal(first.out_of_bag, np.sort(resample(y, 11, PAIRS, None, 1)[0]))
    assert np.intersect1d(first.out_of_bag, second.out_of_bag).size == 0
    assert prepared_run(X, y, (11, 1), settings, cache, fingerprint)[0] is second
    protocol = {"runs": 4, "resampling": PAIRS, "random_state": 2, "progress": False}
    plain = run_protocol(HybridRFE(n_features=5), X, y, **protocol)
    for _ in range(2):
        assert run_protocol(HybridRFE(n_features=5), X, y, cache=cache, **protocol).same_runs(
            plain)
    assert len(cache) == 2 + 4  # each half prepared once, the second call all hits
    bootstrap = run_protocol(HybridRFE(n_features=5), X, y, cache=cache,
                             **dict(protocol, resampling="bootstrap"))
    assert bootstrap.same_runs(run_protocol(HybridRFE(n_features=5), X, y,
                                            **dict(protocol, resampling="bootstrap")))


def test_calibration_and_the_prefilter_work_on_the_halves(data):
    X, y = data
    lasso = get_selector("lasso").make(target_features=4)
    protocol = {"runs": 4, "resampling": PAIRS, "prefilter": 20, "random_state": 1,
                "progress": False}
    plain = run_protocol(lasso, X, y, **protocol)
    assert plain.params["calibrated"]
    cache = RunCache()
    for n_jobs in (1, 2):
        assert run_protocol(lasso, X, y, n_jobs=n_jobs, cache=cache, **protocol).same_runs(
            plain)
    for i in range(4):
        train, _ = resample(y, int(plain.seeds[i]), PAIRS, None, i % 2)
        allowed = set(variance_prefilter(X[train], 20))
        assert set(np.flatnonzero(plain.selection_matrix[i])) <= allowed


def test_the_memory_estimate_counts_a_half(monkeypatch):
    from tests.problems import problem

    monkeypatch.setattr(memory, "available_bytes", lambda: 30 * 2**20)
    X, y = problem(23, n=100, d=20_000)  # a bootstrap run: about 70 MB; a half: 40 MB
    with pytest.raises(MemoryLimitError, match=r"^HybridRFE on 100 × 20000 data with M = 10 "
                       r"runs needs about 0\.04 GiB \(0\.04 GiB for 1 running run, "):
        run_protocol(HybridRFE(n_features=5), X, y, runs=10, resampling=PAIRS,
                     progress=False)


@pytest.mark.slow
@pytest.mark.parametrize("resamples", ["shared", "per_trial"])
def test_a_tuning_study_runs_on_complementary_pairs(tmp_path, resamples):
    url = f"sqlite:///{tmp_path / 'study.db'}"
    spec = tiny(study={"trials": 2}, protocol={"runs": 4, "resampling": PAIRS,
                                               "resamples": resamples})
    assert "4 stratified half-samples" in study_note(spec)
    assert "2 complementary pairs" in study_note(spec)
    study = run_study(spec, storage=url, progress=False)
    storage, store = open_storage(url), artifact_store(url)
    trials = [load_runset(trial, storage=storage, store=store) for trial in study.trials]
    for runs in trials:
        assert runs.resampling == PAIRS and runs.runs == 4
        np.testing.assert_array_equal(runs.seeds[0::2], runs.seeds[1::2])
    shared = np.array_equal(trials[0].seeds, trials[1].seeds)
    assert shared == (resamples == "shared")
    problem = Problem.from_spec(spec)
    results = list(problem.replicate_protocols(
        [study.trials[0].params] * 2, 3, random_states=[problem.replicate_state(0)] * 2))
    assert len(results) == 6
    for _, _, runs in results:
        assert runs.resampling == PAIRS
        np.testing.assert_array_equal(runs.seeds[0::2], runs.seeds[1::2])


def test_a_spec_with_complementary_pairs_round_trips_as_a_study_of_its_own():
    spec = {"study": {"name": "x"}, "data": {"source": "iris"},
            "protocol": {"runs": 6}, "selector": {"name": "lasso"}}
    pairs = parse_spec({**spec, "protocol": {"runs": 6, "resampling": PAIRS}})
    assert "sample_fraction" not in pairs.to_dict()["protocol"]
    assert parse_spec(pairs.to_dict()) == pairs
    assert pairs.content_hash() != parse_spec(spec).content_hash()


@pytest.mark.slow
def test_compare_runs_the_replicates_of_studies_on_complementary_pairs(tmp_path):
    from paretostab import compare

    urls = []
    for name, selector in (("pairs_t", "t_test"), ("pairs_rfe", "hybrid_rfe")):
        spec = tiny(study={"name": name, "trials": 2},
                    protocol={"runs": 4, "resampling": PAIRS, "replicates": 3},
                    selector={"name": selector, "fixed": {"n_features": 4}, "search": {}})
        urls.append(f"sqlite:///{tmp_path / name}.db")
        run_study(spec, storage=urls[-1], progress=False)
    result = compare(["pairs_t", "pairs_rfe"], urls, measures=["iw"], out=tmp_path / "cmp",
                     progress=False)
    table = pd.read_csv(result.folder / "comparison.csv")
    assert table["group"].tolist() == ["pairs_t", "pairs_rfe"]
    assert (table["replicates"] == 3).all() and table["interval low"].notna().all()
