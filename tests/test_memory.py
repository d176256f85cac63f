"""Memory of a trial: O(n·d) per running run, never M·n·d (issue 21, point 2).

The λ calibration of the lasso / elastic net / group lasso streams its runs — per run it
keeps its solutions at the λ tried, not its data — and finds the λ it found when it held
every run (golden values of the calibration before streaming, to the last bit); a
calibrated trial's peak memory does not grow with M; kernel SVM-RFE's importance takes its
support-vector pairs in blocks; a trial whose estimated peak exceeds the memory available
is refused before any work, in one line with the size and the remedy; and the memory
available is read from the system and its control group.
"""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest
from joblib import parallel_config

from paretostab import _importance as importance
from paretostab import _memory as memory
from paretostab import _protocol as protocol
from paretostab import _run_cache as run_cache
from paretostab._errors import MemoryLimitError
from paretostab._importance import kernel_svm_importance
from paretostab._protocol import run_protocol
from paretostab._run_cache import RunCache
from paretostab.data import simulate_correlated_groups
from paretostab.selectors import ElasticNetSelector, GroupLassoSelector, HybridRFE
from paretostab.selectors import _linear as linear
from paretostab.selectors._linear import calibrate_runs
from tests.problems import problem


@pytest.fixture(params=["runs kept", "problems kept", "nothing kept"])
def budgets(request, monkeypatch):
    """The calibration's memory budgets as shipped (the protocol keeps these small runs
    whole); none for whole runs (the calibration keeps their problems); none at all
    (every run read again — prepared, or built from its indices — at each evaluation)."""
    if request.param != "runs kept":
        monkeypatch.setattr(protocol, "CALIBRATION_BYTES", 0)
    if request.param == "nothing kept":
        monkeypatch.setattr(linear, "CACHE_BYTES", 0)
    return request.param


# ------------------------------------------------- the same λ as before the streaming


@pytest.mark.slow
def test_the_calibration_finds_the_lambda_it_found_holding_every_run(budgets):
    """Golden values: ``calibrate_runs`` and ``run_protocol`` of commit 60f1f14, which held
    every run's problem at once."""
    X, y = problem(21, n=50, d=400)
    rng = np.random.default_rng(4)
    rows = [rng.integers(0, 50, 50) for _ in range(16)]
    pairs = [(r, np.sort(rng.choice(400, 300, replace=False))) for r in rows]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lasso = calibrate_runs(ElasticNetSelector(target_features=8), X, y, rows, n_subset=4)
        net = calibrate_runs(ElasticNetSelector(l1_ratio=0.8, target_features=8), X, y, pairs,
                             n_subset=4)
        sim = simulate_correlated_groups(n_groups=4, group_size=3, n_other=60,
                                         n_per_class=25, random_state=2)
        group = calibrate_runs(GroupLassoSelector(groups=sim.groups, target_features=9),
                               sim.X, sim.y, rows[:8], n_subset=3)
    # the first needs both phases and a search over all runs (subset_reg != reg)
    assert repr(lasso) == ("Calibration(reg=2.804036721890457, mean_features=7.5625, "
                           "subset_reg=3.3843688757576094, n_evaluations=7, n_fits=60)")
    assert repr(net) == ("Calibration(reg=4.991604312014903, mean_features=7.0625, "
                         "subset_reg=4.991604312014903, n_evaluations=5, n_fits=28)")
    assert repr(group) == ("Calibration(reg=7.20285912104762, mean_features=8.75, "
                           "subset_reg=7.20285912104762, n_evaluations=4, n_fits=14)")
    for prefilter, reg, selected in [(None, 3.9846665582798715, 73),
                                     (150, 3.67860522860339, 64)]:
        runs = run_protocol(ElasticNetSelector(target_features=6), X, y, runs=12,
                            prefilter=prefilter, random_state=3, progress=False)
        assert runs.params["calibrated"]["reg"] == reg
        assert runs.selection_matrix.sum() == selected


def test_runs_read_again_give_the_runset_of_runs_kept(monkeypatch):
    X, y = problem(24, n=50, d=300)
    protocol_options = {"runs": 8, "prefilter": 200, "random_state": 1, "progress": False}
    kept = run_protocol(ElasticNetSelector(target_features=6), X, y, **protocol_options)
    monkeypatch.setattr(protocol, "CALIBRATION_BYTES", 0)
    assert run_protocol(ElasticNetSelector(target_features=6), X, y,
                        **protocol_options).same_runs(kept)
    cache = RunCache(max_bytes=X.nbytes)  # holds some runs, not all
    assert run_protocol(ElasticNetSelector(target_features=6), X, y, cache=cache,
                        **protocol_options).same_runs(kept)
    assert 0 < len(cache) < 8


# ------------------------------------------------------------- peak memory and M


def traced_peak(compute) -> int:
    """Peak bytes allocated (NumPy's included) while ``compute()`` runs."""
    tracemalloc.start()
    try:
        compute()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_a_calibrated_trial_does_not_hold_its_runs_at_once(monkeypatch):
    """Each run prepared holds about 3 × X (its rows, their standardisation, its distinct
    rows): a calibration holding M runs would add 3 × X per run; the streamed one holds
    one run at a time beyond its budgets (here 0), and only the M × d matrices of the
    RunSet grow with M (18 × 1 500 × 17 bytes, 0.46 MB)."""
    monkeypatch.setattr(protocol, "CALIBRATION_BYTES", 0)
    monkeypatch.setattr(linear, "CACHE_BYTES", 0)
    X, y = problem(22, n=200, d=1500)

    def trial(M):
        return run_protocol(ElasticNetSelector(target_features=5), X, y, runs=M,
                            random_state=0, progress=False)

    few, many = traced_peak(lambda: trial(6)), traced_peak(lambda: trial(24))
    assert many - few < X.nbytes  # 2.4 MB; holding the runs: about 18 × 3 × 2.4 MB


@pytest.mark.slow
def test_calibrate_runs_keeps_per_run_only_its_solutions(monkeypatch):
    monkeypatch.setattr(linear, "CACHE_BYTES", 0)
    X, y = problem(25, n=100, d=2000)
    rng = np.random.default_rng(0)
    rows = [rng.integers(0, 100, 100) for _ in range(40)]

    def calibrate(M):
        return calibrate_runs(ElasticNetSelector(target_features=5), X, y, rows[:M],
                              n_subset=4)

    few, many = traced_peak(lambda: calibrate(8)), traced_peak(lambda: calibrate(40))
    assert many - few < X.nbytes / 4  # one run's problem is about 0.6 X


def test_the_calibration_keeps_its_runs_only_when_all_fit_in_its_budget(monkeypatch):
    """A prepared run counts with its distinct rows to come (its size and its rows' again);
    the runs are kept, all of them, when M of these fit in :data:`CALIBRATION_BYTES` to
    the byte, and none is kept a byte below."""
    X, y = problem(28, n=60, d=50)
    draws = run_cache.run_draws(list(range(4)), "subsample")

    def kept(budget):
        monkeypatch.setattr(protocol, "CALIBRATION_BYTES", budget)
        runs = protocol._CalibrationRuns(X, y, draws, ("subsample", 0.8, None), None, None)
        for i in range(len(runs)):
            runs[i]
        return [runs.pop(i) for i in range(len(runs))]

    whole = kept(2**40)
    sizes = {run.nbytes + run.sample.X.nbytes for run, _ in whole}
    assert len(sizes) == 1  # subsamples of one size
    size = sizes.pop()
    assert all(run is not None for run in kept(4 * size))
    assert kept(4 * size - 1) == [None] * 4


def test_the_calibration_keeps_runs_only_while_they_fit_in_its_budget(monkeypatch):
    """Bootstrap runs differ in size (their out-of-bag rows): the first run read decides
    to keep (M of its size fit), and the later, larger runs are kept only while their
    sum stays within the budget."""
    X, y = problem(28, n=60, d=50)
    draws = run_cache.run_draws(list(range(6)), "bootstrap")

    def kept(order, budget):
        monkeypatch.setattr(protocol, "CALIBRATION_BYTES", budget)
        runs = protocol._CalibrationRuns(X, y, [draws[i] for i in order],
                                         ("bootstrap", None, None), None, None)
        for i in range(len(runs)):
            runs[i]
        return [runs.pop(i) for i in range(len(runs))]

    sizes = [run.nbytes + run.sample.X.nbytes for run, _ in kept(range(6), 2**40)]
    order = np.argsort(sizes, kind="stable")  # the smallest first
    budget = 6 * sizes[order[0]]
    assert sum(sizes) > budget
    runs = kept(order, budget)
    held = [sizes[i] for i, run in zip(order, runs, strict=True) if run is not None]
    assert runs[0] is not None and sum(held) <= budget and len(held) < 6


def estimated(monkeypatch, shape, runs, settings, n_jobs, calibrates, X=None):
    """The parts of ``_check_memory``'s estimate, as it hands them to ``check_room``."""
    seen = {}

    def check_room(needed, what, parts, remedy):
        assert needed == sum(parts.values())
        seen.update(parts)

    monkeypatch.setattr(memory, "check_room", check_room)
    protocol._check_memory("S", np.zeros(shape) if X is None else X, runs, settings, n_jobs,
                           calibrates)
    return seen


def test_the_memory_estimate_is_its_docstrings_sum_part_by_part(monkeypatch):
    """Each part written out from the docstring, in float64 arrays of n_train × d_run: a
    running run 4 n_train d_run + its out-of-bag rows (or, pre-filtering, 2 n_train d +
    n_train d_run), 150 MiB per worker process and one copy of X, 17 M d for the RunSet,
    the runs a calibration keeps (all of them within 768 MiB, or the budget itself)."""
    mib = 2**20
    # the bootstrap: n_train = n = 100, n_out = ⌈100/e⌉ = 37
    assert estimated(monkeypatch, (100, 300), 5, ("bootstrap", None, None), 1, False) == {
        "1 running run": 8 * (4 * 100 + 37) * 300,
        "worker processes and the copy of X they share": 0,
        "the selections, importances and ranks": 17 * 5 * 300,
        "the runs kept for them": 0}
    # a 70 % subsample pre-filtered to 50 of 300, two worker processes: the preparation's
    # unfiltered rows outweigh the fit's (70 × 650 against 310 × 50)
    assert estimated(monkeypatch, (100, 300), 4, ("subsample", 0.7, 50), 2, False) == {
        "2 running runs": 2 * 8 * 70 * (2 * 300 + 50),
        "worker processes and the copy of X they share": 2 * 150 * mib + 8 * 100 * 300,
        "the selections, importances and ranks": 17 * 4 * 300,
        "the runs kept for them": 0}
    # complementary halves of 101: n_train = 51, n_out = 50; a calibration keeps all four
    # runs, each frozen with its distinct rows (2 n_train + n_out rows)
    kept_run = 8 * (2 * 51 + 50) * 300
    assert estimated(monkeypatch, (101, 300), 4, ("complementary_pairs", None, None), 1,
                     True) == {
        "1 running run": 8 * (4 * 51 + 50) * 300,
        "worker processes and the copy of X they share": 0,
        "the selections, importances and ranks": 17 * 4 * 300,
        "the runs kept for them": 4 * kept_run}
    # 30 runs of 100 × 20 000 would keep 1.06 GiB: none is kept for the fits, and the
    # calibration's phase, its budget beside the run it reads, is the peak
    assert 30 * 8 * (2 * 100 + 37) * 20_000 > 768 * mib
    assert estimated(monkeypatch, (100, 20_000), 30, ("bootstrap", None, None), 1, True) == {
        "a run being read": 8 * (4 * 100 + 37) * 20_000,
        "the calibration's kept runs": 768 * mib}


@pytest.mark.slow
def test_the_kernel_svm_importance_takes_its_support_vector_pairs_in_blocks(monkeypatch):
    """003 eq. 8 sums over the n_sv²/2 pairs of support vectors: in blocks of pairs its
    memory is bounded (all pairs at once: about 56 bytes each, and the n_sv² Gram matrix:
    1.4 GB for kernel SVM-RFE at n = 10 000), to rounding the same values; up to 1 448
    support vectors, one block (the papers' data: unchanged to the bit,
    tests/test_binary_unchanged.py)."""
    rng = np.random.default_rng(3)
    sv, coef = rng.normal(size=(600, 20)), rng.normal(size=600)
    whole = {kernel: kernel_svm_importance(sv, coef, kernel=kernel, gamma=0.05, signed=True)
             for kernel in ("rbf", "poly")}
    peak_whole = traced_peak(lambda: kernel_svm_importance(sv, coef, gamma=0.05))
    monkeypatch.setattr(importance, "_PAIR_BLOCK", 4096)
    for kernel, values in whole.items():
        blocks = kernel_svm_importance(sv, coef, kernel=kernel, gamma=0.05, signed=True)
        np.testing.assert_allclose(blocks, values, rtol=1e-12, atol=0)
    peak_blocks = traced_peak(lambda: kernel_svm_importance(sv, coef, gamma=0.05))
    assert peak_blocks < peak_whole / 5  # 179 700 pairs at once (16 MB), or 4 096


@pytest.mark.parametrize(("kernel", "gamma"), [("rbf", 3.0), ("rbf", 1e-3), ("poly", 1e-3)])
def test_the_kernel_svm_importance_takes_its_features_in_blocks(kernel, gamma):
    """Its features × pairs temporaries hold at most 2¹⁸ values (2 MiB) each, whatever the
    number of features: beyond a copy of the support vectors and the per-pair arrays, the
    peak is a few of them (rbf with γD > 1 keeps the most, about 6), not the 49 MiB of
    900 features × 7 140 pairs of one temporary at once."""
    rng = np.random.default_rng(4)
    n, d = 120, 900
    sv, coef = rng.normal(size=(n, d)), rng.normal(size=n)
    per_pair = 16 * 8 * n * (n + 1) // 2
    peak = traced_peak(lambda: kernel_svm_importance(sv, coef, kernel=kernel, gamma=gamma))
    assert peak < sv.nbytes + per_pair + 7 * 2**21


# ------------------------------------------------------------- the pre-flight check


@pytest.fixture
def no_work(monkeypatch):
    """A run's preparation fails the test: the refusal must come before any work."""
    def prepare(*args):
        pytest.fail("a run was prepared")
    monkeypatch.setattr(run_cache, "_prepare_run", prepare)


def test_a_trial_that_cannot_fit_is_refused_in_one_line_before_it_starts(monkeypatch,
                                                                        no_work):
    monkeypatch.setattr(memory, "available_bytes", lambda: 100 * 2**20)
    X, y = problem(23, n=100, d=20_000)  # a running run: about 70 MB
    with pytest.raises(MemoryLimitError) as caught:
        run_protocol(ElasticNetSelector(target_features=5), X, y, runs=10, n_jobs=2,
                     cache=RunCache(), progress=False)
    assert str(caught.value) == (
        "ElasticNetSelector on 100 × 20000 data with M = 10 runs needs about 0.44 GiB "
        "(0.13 GiB for 2 running runs, 0.31 GiB for worker processes and the copy of X "
        "they share, 3.24 MiB for the selections, importances and ranks), more than the "
        "0.10 GiB available: pre-filter the features (prefilter; a spec's [data] "
        "prefilter), or run fewer jobs at once (n_jobs = 2 now).")
    assert isinstance(caught.value, MemoryError)
    monkeypatch.setattr(memory, "available_bytes", lambda: 50 * 2**20)
    with pytest.raises(MemoryLimitError, match=r"^HybridRFE on 100 × 20000 data with M = 10 "
                       r"runs needs about 0\.07 GiB \(0\.07 GiB for 1 running run, 3\.24 MiB "
                       r"for the selections, importances and ranks\), more than the 0\.05 GiB "
                       r"available: pre-filter the features \(prefilter; a spec's \[data\] "
                       r"prefilter\)\.$"):
        run_protocol(HybridRFE(n_features=5), X, y, runs=10, progress=False)
    with parallel_config(backend="threading"), pytest.raises(
            MemoryLimitError, match=r"about 0\.13 GiB \(0\.13 GiB for 2 running runs, 3\.24 MiB "
                                    r"for the selections, importances and ranks\)"):
        run_protocol(HybridRFE(n_features=5), X, y, runs=10, n_jobs=2, progress=False)


def test_data_mapped_from_a_file_are_not_counted_again_for_the_workers(monkeypatch, tmp_path,
                                                                        no_work):
    monkeypatch.setattr(memory, "available_bytes", lambda: 100 * 2**20)
    X, y = problem(23, n=100, d=20_000)
    np.save(tmp_path / "X.npy", X)
    mapped = np.load(tmp_path / "X.npy", mmap_mode="r")
    with pytest.raises(MemoryLimitError, match=r"0\.29 GiB for worker processes and the "
                                               r"copy of X they share"):
        run_protocol(HybridRFE(n_features=5), mapped, y, runs=10, n_jobs=2, progress=False)


def test_the_run_cache_takes_only_what_the_machine_can_spare(monkeypatch):
    """A RunCache admits a run only while the memory available stays above its reserve:
    on a machine with little to spare it keeps nothing, and the RunSet is the same."""
    X, y = problem(27, n=60, d=300)
    options = {"runs": 6, "random_state": 2, "progress": False}
    roomy = RunCache()
    reference = run_protocol(HybridRFE(n_features=5), X, y, cache=roomy, **options)
    assert len(roomy) == 6
    spare = run_cache.CACHE_RESERVE_BYTES + 3 * roomy.nbytes // 6 + 1  # room for 3 runs
    held = []

    def available():  # what the runs admitted so far took from the machine
        return spare - sum(held)

    monkeypatch.setattr(memory, "available_bytes", available)
    tight = RunCache()
    original = tight.admit

    def admit(nbytes):
        taken = original(nbytes)
        if taken:
            held.append(nbytes)
        return taken

    monkeypatch.setattr(tight, "admit", admit)
    assert run_protocol(HybridRFE(n_features=5), X, y, cache=tight, **options).same_runs(
        reference)
    assert 0 < len(tight) < 6
    assert available() >= run_cache.CACHE_RESERVE_BYTES


def test_a_trial_that_fits_or_an_unknown_room_is_not_refused(monkeypatch):
    X, y = problem(26, n=40, d=100)
    for room in (None, 2**30):
        monkeypatch.setattr(memory, "available_bytes", lambda room=room: room)
        run_protocol(ElasticNetSelector(target_features=3), X, y, runs=3, progress=False)


# ------------------------------------------------------------- the memory available


def test_the_memory_available_is_read_from_the_system():
    available = memory.available_bytes()
    assert available is None or available > 0
    assert memory.meminfo_available("MemTotal: 8 kB\nMemAvailable:    2048 kB\n") == 2048 * 1024
    assert memory.meminfo_available("MemTotal: 8 kB\n") is None


def test_a_control_group_limits_the_memory_available(tmp_path):
    v2 = tmp_path / "v2"
    v2.mkdir()
    (v2 / "memory.max").write_text("1073741824\n")
    (v2 / "memory.current").write_text("805306368\n")
    (v2 / "memory.stat").write_text("anon 1000\ninactive_file 1048576\nactive_file 5\n")
    assert memory.cgroup_room(v2) == 2**30 - 768 * 2**20 + 2**20  # reclaimable cache is room
    (v2 / "memory.max").write_text("max\n")
    assert memory.cgroup_room(v2) is None
    v1 = tmp_path / "v1"
    v1.mkdir()
    (v1 / "memory.limit_in_bytes").write_text("536870912\n")
    (v1 / "memory.usage_in_bytes").write_text("536870912\n")
    (v1 / "memory.stat").write_text("total_inactive_file 4096\n")
    assert memory.cgroup_room(v1) == 4096
    (v1 / "memory.limit_in_bytes").write_text(f"{2**63 - 4096}\n")  # v1's "no limit"
    assert memory.cgroup_room(v1) is None
    assert memory.cgroup_room(tmp_path / "absent") is None


# ------------------------------------------------------------- a study on a small machine


@pytest.mark.slow
def test_tune_on_a_machine_without_the_memory_stops_with_one_line(tmp_path, monkeypatch,
                                                                   capsys):
    """Trials refused for memory do not count (the machine, not their parameters, is at
    fault): tune stops after a few in a row with the estimate and the remedy (exit 2), and
    a resume on a machine with room runs their slots."""
    from optuna.trial import TrialState

    from paretostab._cli import main
    from paretostab._faults import ENVIRONMENT_FAILURES_IN_A_ROW
    from paretostab._storage import open_storage
    from paretostab._tuning.coordination import counted_trials, counts
    from tests.studies import storage_url, write_spec

    spec = write_spec(tmp_path, "tiny", trials=4)
    url = storage_url(tmp_path)
    monkeypatch.setattr(memory, "available_bytes", lambda: 1024)  # the study needs 50 KiB
    with pytest.raises(SystemExit) as stopped:
        main(["tune", str(spec), "--storage", url, "--artifacts", str(tmp_path / "art")])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, err
    assert (f"error: {ENVIRONMENT_FAILURES_IN_A_ROW} trials in a row could not be run or "
            "recorded, the last one: MemoryLimitError: ") in lines[0]
    assert "more than the 0.00 MiB available: pre-filter the features" in lines[0]
    assert "artifact store" not in lines[0]
    import optuna

    study = optuna.load_study(study_name="tiny", storage=open_storage(url))
    assert [t.state for t in study.trials] == [TrialState.FAIL] * ENVIRONMENT_FAILURES_IN_A_ROW
    assert not any(counts(t) for t in study.trials)
    monkeypatch.undo()
    assert main(["tune", str(spec), "--storage", url, "--artifacts",
                 str(tmp_path / "art")]) in (0, None)
    assert counted_trials(optuna.load_study(study_name="tiny",
                                            storage=open_storage(url))) == 4
