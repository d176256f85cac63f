"""Optuna tuning end to end: trials, resume, workers, failures, artifacts, dashboard, CLI."""

from __future__ import annotations

import errno
import importlib
import io
import json
import math
import multiprocessing
import multiprocessing.forkserver
import os
import signal
import subprocess
import sys
import tempfile
from multiprocessing.context import ForkServerContext, SpawnContext
from pathlib import Path
from wsgiref.util import setup_testing_defaults

import numpy as np
import optuna
import pytest
from optuna.artifacts import get_all_artifact_meta
from optuna.trial import TrialState

from paretostab._errors import InvalidInputError
from paretostab._optuna_internals import storage_of, study_id_of, trial_id_of
from paretostab._runset import RunSet
from paretostab._signals import STOP_SIGNALS
from paretostab._storage import artifact_store, load_runset, open_storage
from paretostab._tuning import processes, run_study
from paretostab._tuning.coordination import counted_trials
from tests.extras import need
from tests.studies import note_of, storage_url, tiny, write_spec
from tests.user_studies import PROBE, selector_spec
from tests.waiting import (
    WAIT_SECONDS,
    complete_trials_in,
    ended_after,
    heeding_stop_signals,
    stop_signals_heeded,
    wait_until,
)

ROOT = Path(__file__).resolve().parents[1]


def states(study):
    return [t.state for t in study.get_trials(deepcopy=False)]


def test_a_study_records_objectives_measures_and_artifacts(tmp_path):
    url = storage_url(tmp_path)
    study = run_study(tiny(), storage=url, progress=False)
    assert states(study) == [TrialState.COMPLETE] * 3
    assert study.metric_names == ["accuracy", "φ_iw"]  # what a person reads
    assert study.user_attrs["objective"] == "iw"  # the registry name
    trial = study.trials[0]
    assert set(trial.user_attrs["measures"]) == {"iw", "nogueira", "pearson"}
    assert trial.values[1] == trial.user_attrs["measures"]["iw"]
    assert trial.user_attrs["runs"] == 3 and trial.user_attrs["mean_selected"] == 4
    assert trial.user_attrs["spec_hash"] == tiny().content_hash()
    storage = open_storage(url)
    runs = load_runset(trial, storage=storage, store=artifact_store(url))
    assert isinstance(runs, RunSet) and runs.runs == 3
    assert runs.accuracy == pytest.approx(trial.values[0])
    assert runs.stability("iw") == pytest.approx(trial.values[1])
    names = {m.filename for m in get_all_artifact_meta(trial, storage=storage)}
    assert names == {"runset-trial-0.npz", "stability-map-trial-0.png"}
    assert (tmp_path / "study-artifacts").is_dir()


@pytest.mark.slow
def test_rerunning_resumes_and_adds_exactly_the_missing_trials(tmp_path):
    url = storage_url(tmp_path)
    run_study(tiny(), storage=url, n_trials=2, progress=False)
    study = run_study(tiny(), storage=url, n_trials=5, progress=False)
    assert len(study.trials) == 5
    study = run_study(tiny(), storage=url, n_trials=5, progress=False)
    assert len(study.trials) == 5


def test_a_study_refuses_another_spec(tmp_path):
    url = storage_url(tmp_path)
    run_study(tiny(), storage=url, n_trials=1, progress=False)
    with pytest.raises(InvalidInputError, match="made from another spec"):
        run_study(tiny(protocol={"runs": 4}), storage=url, n_trials=2, progress=False)


@pytest.mark.slow
def test_a_failing_trial_is_recorded_and_the_study_goes_on(tmp_path):
    spec = tiny(selector={"search": {"n_stable": [0, 4], "epsilon": [-1.0, 1.0]}},
                study={"trials": 8, "seed": 1})
    study = run_study(spec, storage=storage_url(tmp_path), progress=False)
    failed = [t for t in study.trials if t.state == TrialState.FAIL]
    complete = [t for t in study.trials if t.state == TrialState.COMPLETE]
    assert len(study.trials) == 8 and failed and complete
    assert all("epsilon must be a finite number > 0" in t.user_attrs["fail_reason"]
               for t in failed)
    assert all(t.params["epsilon"] <= 0 for t in failed)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["sqlite", "journal"])
def test_two_worker_processes_lose_and_duplicate_no_trial(tmp_path, kind):
    url = storage_url(tmp_path) if kind == "sqlite" else f"journal:{tmp_path / 'study.log'}"
    study = run_study(tiny(study={"trials": 6}), storage=url, workers=2, progress=False)
    trials = study.get_trials(deepcopy=False)
    run = [t for t in trials if t.state != TrialState.PRUNED]  # pruned: a slot taken by then
    assert len(run) == 6 and all(t.state == TrialState.COMPLETE for t in run)
    assert all(not t.params for t in trials if t.state == TrialState.PRUNED)
    params = {tuple(sorted(t.params.items())) for t in run}
    assert len(params) == 6  # the two workers' samplers are seeded differently


def test_the_dashboard_serves_the_study_with_metric_names_and_artifacts(tmp_path):
    optuna_dashboard = need("optuna_dashboard")
    url = storage_url(tmp_path)
    run_study(tiny(study={"trials": 2}), storage=url, progress=False)
    app = optuna_dashboard.wsgi(open_storage(url), artifact_store=artifact_store(url))

    def get(path):
        environ = {"PATH_INFO": path, "REQUEST_METHOD": "GET", "wsgi.input": io.BytesIO()}
        setup_testing_defaults(environ)
        status = []
        body = b"".join(app(environ, lambda s, h, *a: status.append(s)))
        return status[0], body

    status, body = get("/api/studies")
    assert status.startswith("200")
    studies = json.loads(body)["study_summaries"]
    study_id = studies[0]["study_id"]
    status, body = get(f"/api/studies/{study_id}")
    detail = json.loads(body)
    assert detail["objective_names"] == ["accuracy", "φ_iw"]  # the study's metric names
    trial = detail["trials"][0]
    artifacts = {a["filename"]: a for a in trial["artifacts"]}
    assert set(artifacts) == {"runset-trial-0.npz", "stability-map-trial-0.png"}
    png = artifacts["stability-map-trial-0.png"]
    status, body = get(f"/artifacts/{study_id}/{trial['trial_id']}/{png['artifact_id']}")
    assert status.startswith("200") and body[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_cli_tune_prints_the_front_and_resumes(tmp_path):
    spec_path = write_spec(tmp_path, "tiny", trials=2)
    url = storage_url(tmp_path)
    command = [sys.executable, "-m", "paretostab", "tune", str(spec_path), "--storage", url]
    first = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, check=True)
    assert "2 counted trials of 2 (2 complete;" in first.stdout and "Pareto front" in first.stdout
    assert "prepared runs kept:" in first.stdout and "MiB per process" in first.stdout
    assert "python -m paretostab dashboard --storage" in first.stdout
    again = subprocess.run([*command, "--n-trials", "3"], capture_output=True, text=True,
                           cwd=tmp_path, check=True)
    assert "3 counted trials of 3 (3 complete;" in again.stdout
    bad = subprocess.run([sys.executable, "-m", "paretostab", "tune", str(tmp_path / "no.toml")],
                         capture_output=True, text=True, cwd=tmp_path)
    assert bad.returncode == 2 and "error:" in bad.stderr


@pytest.mark.slow
def test_front_points_are_the_completed_trials(tmp_path):
    from paretostab._tuning.study import front_points, front_table
    from paretostab.front import pareto_front

    study = run_study(tiny(study={"trials": 4}), storage=storage_url(tmp_path), progress=False)
    trials, points = front_points(study)
    assert points.shape == (4, 2)
    table = front_table(study)
    assert sorted(table["trial"]) == sorted(trials[i].number for i in pareto_front(points))
    assert np.all(np.isfinite(points))
    assert isinstance(optuna.load_study(study_name="tiny", storage=storage_url(tmp_path)),
                      optuna.Study)
    running = study.ask()
    seen = study.get_trials(deepcopy=False)
    from paretostab._optuna_internals import storage_of

    reads = []
    storage = storage_of(study)
    read = storage.get_all_trials
    storage.get_all_trials = lambda *args, **kwargs: reads.append(1) or read(*args, **kwargs)
    assert front_points(study, seen)[0] == trials
    assert not reads  # the trials given are not read again
    front_points(study)
    assert reads
    np.testing.assert_array_equal(front_points(study, seen)[1], points)
    assert running.number not in [t.number for t in front_points(study, seen)[0]]


def test_a_trial_checks_the_front_on_the_trials_its_claim_read(tmp_path):
    """One read of the study for the claim and the front check: the trials the claim saw
    are kept (a trial finished since by another process can only put this one on the
    front in vain, never leave it off)."""
    from paretostab._tuning.coordination import TrialSlots

    study = run_study(tiny(study={"trials": 3}), storage=storage_url(tmp_path), progress=False)
    slots = TrialSlots(study, 4)
    trial = study.ask()
    assert slots.claim(trial) is None
    assert [t.number for t in slots.seen] == [0, 1, 2, 3]
    assert slots.seen[3].state == optuna.trial.TrialState.RUNNING


@pytest.mark.slow
@pytest.mark.parametrize("progress", [False, None])
def test_a_trial_reads_the_study_twice_and_commits_four_writes(tmp_path, monkeypatch,
                                                                progress):
    """What a trial costs the storage, counted as the trials of a 6-trial study less
    those of a 2-trial one: two reads of the study's trials (the slot wait and claim),
    three with progress shown (its line or bar), and four commits that write besides
    its heartbeats (Optuna's trial creation and finish; the slot claim with the
    parameters; the artifacts' records, the note and the user attributes)."""
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    reads, writing, commits = [], set(), []
    get_trials = optuna.Study.get_trials

    def read(self, *args, **kwargs):
        reads.append(1)
        return get_trials(self, *args, **kwargs)

    def written(connection, cursor, statement, *args) -> None:
        if (statement.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))
                and "trial_heartbeats" not in statement):  # a thread's, every 10 s
            writing.add(connection)

    def committed(connection) -> None:
        if connection in writing:
            commits.append(connection)
            writing.discard(connection)

    monkeypatch.setattr(optuna.Study, "get_trials", read)
    event.listen(Engine, "before_cursor_execute", written)
    event.listen(Engine, "commit", committed)
    counted = []
    try:
        for trials in (2, 6):
            reads.clear()
            commits.clear()
            run_study(tiny(study={"trials": trials}), storage=storage_url(tmp_path, f"{trials}.db"),
                      progress=progress)
            counted.append((len(reads), len(commits)))
    finally:
        event.remove(Engine, "before_cursor_execute", written)
        event.remove(Engine, "commit", committed)
    (reads_2, commits_2), (reads_6, commits_6) = counted
    assert (reads_6 - reads_2) / 4 == (2 if progress is False else 3)
    assert (commits_6 - commits_2) / 4 == 4


@pytest.mark.slow
def test_ctrl_c_keeps_completed_trials_and_fails_the_running_one(tmp_path):
    import signal

    spec_path = write_spec(tmp_path, "long", trials=500)
    url = storage_url(tmp_path)
    process = subprocess.Popen([sys.executable, "-m", "paretostab", "tune", str(spec_path),
                                "--storage", url], cwd=tmp_path, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, preexec_fn=heeding_stop_signals)
    with ended_after(process):
        wait_until(lambda: complete_trials_in(tmp_path / "study.db") >= 3,
                   what="3 complete trials", process=process)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=WAIT_SECONDS)
    assert process.returncode == 130 and "Interrupted" in err, err[-3000:]
    trials = optuna.load_study(study_name="long", storage=open_storage(url)).trials
    assert sum(t.state == TrialState.COMPLETE for t in trials) >= 3
    assert not any(t.state == TrialState.RUNNING for t in trials)
    assert len(trials) < 500


@pytest.mark.parametrize("where", ["sampling", "computation", "storage write"])
def test_ctrl_c_anywhere_in_a_trial_stops_the_study_with_nothing_left_running(
        tmp_path, monkeypatch, where):
    """A SIGINT in the computation fails the trial with its reason; one while Optuna
    samples (before the computation) fails it too; one while Optuna writes the finished
    trial lets the write end (Optuna 5 itself breaks on an interrupt there). Each time
    the interrupt reaches the caller once and no trial is left running."""
    import os
    import signal

    import paretostab._problem
    import paretostab._tuning.objective
    from paretostab._optuna_internals import storage_of
    from paretostab._problem import Problem
    from paretostab._tuning import create_or_load_study
    from paretostab._tuning.processes import TuneSettings, run_trials

    spec = tiny(study={"trials": 5})
    url = storage_url(tmp_path)
    storage = open_storage(url)
    study = create_or_load_study(spec, storage=storage)

    def interrupting(function):
        def call(*args, **kwargs):
            if not sent:
                sent.append(True)
                os.kill(os.getpid(), signal.SIGINT)
            return function(*args, **kwargs)
        return call

    sent = []
    if where == "sampling":
        monkeypatch.setattr(paretostab._tuning.objective, "suggest",
                            interrupting(paretostab._tuning.objective.suggest))
    elif where == "computation":
        monkeypatch.setattr(paretostab._problem, "run_protocol",
                            interrupting(paretostab._problem.run_protocol))
    else:
        storage = storage_of(study)  # Optuna's cache around the RDB storage
        write = storage.set_trial_state_values
        monkeypatch.setattr(storage, "set_trial_state_values", lambda trial_id, state, *a: (
            interrupting(write) if state == TrialState.COMPLETE else write)(trial_id, state, *a))
    with stop_signals_heeded():  # whatever the shell that started the tests ignored
        with pytest.raises(KeyboardInterrupt):
            run_trials(study, Problem.from_spec(spec),
                       TuneSettings(storage=url, artifacts=None, study_name=None, n_trials=5),
                       artifact_store(url))
        assert sent and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    trials = study.get_trials(deepcopy=False)
    assert len(trials) == 1
    if where == "storage write":
        assert trials[0].state == TrialState.COMPLETE
    else:
        assert trials[0].state == TrialState.FAIL
        assert trials[0].user_attrs["fail_reason"] == "interrupted (Ctrl-C)"
        assert trials[0].user_attrs["counted"] is False  # its slot is run again


# ------------------------------------------------------------------ shared resamples


def trial_runsets(url, study):
    """The RunSets of the study's counted trials. Two workers that see the last free slot
    together both create a trial; the later one is pruned without running (TrialSlots),
    so it has none."""
    from paretostab._tuning.coordination import counts

    storage = open_storage(url)
    return [load_runset(t, storage=storage, store=artifact_store(url))
            for t in study.get_trials(deepcopy=False) if counts(t)]


@pytest.mark.slow
def test_shared_resamples_give_every_trial_the_same_runs(tmp_path, monkeypatch):
    import paretostab._tuning.objective
    from paretostab._run_cache import RunCache

    caches = []

    class Kept(RunCache):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            caches.append(self)

    monkeypatch.setattr(paretostab._tuning.objective, "RunCache", Kept)
    url = storage_url(tmp_path)
    study = run_study(tiny(study={"trials": 3}), storage=url, progress=False)
    runsets = trial_runsets(url, study)
    assert all(np.array_equal(r.seeds, runsets[0].seeds) for r in runsets)
    assert study.user_attrs["resample_seed"] == 0  # the spec's seed
    timing = study.trials[1].user_attrs["timing"]
    assert {"protocol", "preparation", "fits", "scoring", "measures", "artifacts", "note",
            "run_cache_mib"} == set(timing)
    assert timing["note"] <= timing["artifacts"]  # a part of it
    assert timing["run_cache_mib"] > 0
    # trial 0 prepares the 3 runs; trials 1 and 2 find them prepared (this process's cache)
    (cache,) = caches
    assert (cache.misses, cache.hits) == (3, 6)
    per_trial = run_study(tiny(study={"trials": 3, "name": "per"}, protocol={"resamples": "per_trial"}),
                     storage=url, progress=False)
    seeds = [tuple(r.seeds) for r in trial_runsets(url, per_trial)]
    assert len(set(seeds)) == 3
    assert per_trial.trials[0].user_attrs["timing"]["run_cache_mib"] == 0


@pytest.mark.slow
def test_a_study_without_seed_draws_its_resample_seed_once(tmp_path):
    url = storage_url(tmp_path)
    spec = tiny(study={"trials": 2, "seed": None})
    study = run_study(spec, storage=url, progress=False)
    seed = study.user_attrs["resample_seed"]
    study = run_study(spec, storage=url, n_trials=4, workers=2, progress=False)  # other processes
    assert study.user_attrs["resample_seed"] == seed
    runsets = trial_runsets(url, study)
    assert len(runsets) == 4 and all(np.array_equal(r.seeds, runsets[0].seeds) for r in runsets)


@pytest.mark.slow
def test_the_report_replicates_draw_fresh_resamples(tmp_path, monkeypatch):
    import paretostab._problem
    from paretostab.report._build import build_report

    url = storage_url(tmp_path)
    study = run_study(tiny(study={"trials": 3}, protocol={"replicates": 3}), storage=url,
                 progress=False)
    trial_seeds = {int(s) for r in trial_runsets(url, study) for s in r.seeds}
    drawn = []
    original = paretostab._problem.replicate_protocols

    def spy(*args, **kwargs):
        for found in original(*args, **kwargs):
            drawn.append(found)
            yield found

    monkeypatch.setattr(paretostab._problem, "replicate_protocols", spy)
    build_report(url, out=tmp_path / "report", progress=False)
    assert drawn
    by_trial: dict[int, dict[int, tuple]] = {}
    for i, b, runs in drawn:
        by_trial.setdefault(i, {})[b] = tuple(int(s) for s in runs.seeds)
    for replicates in by_trial.values():  # each replicate of a trial its own resamples
        assert len(set(replicates.values())) == len(replicates) == 3
    # the study's trials share their resamples: replicate b of each trial shares them too
    assert len({tuple(sorted(r.items())) for r in by_trial.values()}) == 1
    assert trial_seeds.isdisjoint(s for r in by_trial.values() for seeds in r.values()
                                  for s in seeds)


@pytest.mark.slow
@pytest.mark.parametrize(("objective", "depth"), [
    ({"record": ["nogueira"]}, 0),
    ({"stability": "js", "options": {"k": 3}, "record": ["nogueira"]}, 3),
    ({"record": ["spearman"]}, None),
])
def test_the_runset_artifact_keeps_the_rankings_its_measures_read(tmp_path, objective, depth):
    from paretostab._tuning.objective import kept_ranks

    spec = tiny(study={"trials": 1}, objective=objective)
    url = storage_url(tmp_path)
    study = run_study(spec, storage=url, progress=False)
    (runs,) = trial_runsets(url, study)
    assert runs.rank_depth == depth
    assert kept_ranks(spec) == {0: None, 3: 3, None: "full"}[depth]
    if depth is None:
        assert runs.stability("spearman") == pytest.approx(
            study.trials[0].user_attrs["measures"]["spearman"])


@pytest.mark.slow
def test_msi_is_a_tuning_objective(tmp_path):
    from paretostab._similarity import FeatureSimilarity
    from paretostab.data import load_dataset

    spec = tiny(study={"trials": 3}, objective={"stability": "msi", "similarity": "spearman",
                                                "record": ["nogueira"]})
    url = storage_url(tmp_path)
    study = run_study(spec, storage=url, progress=False)
    assert study.metric_names == ["accuracy", "φ_msi"]
    data = load_dataset(spec.data.source, random_state=0)  # what the study simulated
    similarity = FeatureSimilarity(data.X, "spearman")
    for trial, runs in zip(study.trials, trial_runsets(url, study), strict=True):
        assert trial.state == TrialState.COMPLETE and 0 <= trial.values[1] <= 1
        assert trial.values[1] == pytest.approx(runs.stability("msi", similarity=similarity),
                                                abs=1e-12)


@pytest.mark.slow
def test_a_map_for_every_trial_that_joins_the_front(tmp_path):
    from paretostab.front import pareto_front

    url = storage_url(tmp_path)
    study = run_study(tiny(study={"trials": 10, "seed": 3}), storage=url, progress=False)
    storage = open_storage(url)
    trials = study.get_trials(deepcopy=False)
    points = np.array([t.values for t in trials])
    with_map = []
    for index, trial in enumerate(trials):
        names = {m.filename for m in get_all_artifact_meta(trial, storage=storage)}
        assert f"runset-trial-{trial.number}.npz" in names
        joined = index in pareto_front(points[: index + 1])  # undominated when it finished
        assert (f"stability-map-trial-{trial.number}.png" in names) == joined
        with_map.append(joined)
    assert all(with_map[i] for i in pareto_front(points))  # the front has its maps
    assert not all(with_map)  # and the others cost no drawing


# ------------------------------------------------------------------- dashboard notes


def note_keys(study, trial_id=None):
    where = "dashboard:note" if trial_id is None else f"dashboard:{trial_id}:note"
    return sorted(k for k in storage_of(study).get_study_system_attrs(study_id_of(study))
                  if k.startswith(where))


@pytest.mark.slow
def test_every_trial_has_a_note_with_values_measures_k_bar_and_top_features(tmp_path):
    need("optuna_dashboard")
    from paretostab.data import load_dataset
    from paretostab.maps import stability_map

    url = storage_url(tmp_path)
    spec = tiny(study={"trials": 10, "seed": 3})
    study = run_study(spec, storage=url, progress=False)
    storage = open_storage(url)
    names = load_dataset(spec.data.source, random_state=0).feature_names
    kinds = set()
    for trial in study.get_trials(deepcopy=False):
        note = note_of(study, trial)
        accuracy, phi = trial.values
        assert note.startswith(f"**Trial {trial.number}**\n")
        assert f"**accuracy = {accuracy:.4f}** · **φ_iw = {phi:.4f}**" in note
        measures = trial.user_attrs["measures"]
        assert set(measures) == {"iw", "nogueira", "pearson"}
        for name, symbol in (("iw", "φ_iw"), ("nogueira", "φ"), ("pearson", "φ_pears")):
            assert f"{symbol} = {measures[name]:.4f} (`{name}`)" in note
        assert f"k̄ = {trial.user_attrs['mean_selected']:.2f} features selected per run" in note
        assert "M = 3 bootstrap runs" in note
        runs = load_runset(trial, storage=storage, store=artifact_store(url))
        expected = stability_map(runs, feature_names=names)
        listed = [line.removeprefix("  - ") for line in note.splitlines()
                  if line.startswith("  - ")]
        top = [f"{n}: {p:.2f}" for n, p in zip(expected.names[:10], expected.frequency[:10],
                                                strict=True)]
        more = [f"+{len(expected.names) - 10} more"] if len(expected.names) > 10 else []
        assert listed == top + more
        assert f"{len(expected.names)} selected at least once" in note
        png = [m for m in get_all_artifact_meta(trial, storage=storage)
               if m.filename.endswith(".png")]
        image = (f"![Stability map of trial {trial.number}](/artifacts/{study_id_of(study)}/"
                 f"{trial_id_of(trial)}/{png[0].artifact_id})" if png else None)
        assert (image in note) if png else ("![" not in note)
        assert "when it finished" not in note and "front" not in note.split("\n")[0]
        kinds.add(bool(png))
        assert note_keys(study, trial_id_of(trial)) == [
            f"dashboard:{trial_id_of(trial)}:note_str:0", f"dashboard:{trial_id_of(trial)}:note_ver"]
    assert kinds == {True, False}  # trials with a map and without one


@pytest.mark.slow
def test_the_study_note_states_the_objectives_and_protocol_and_is_written_once(tmp_path):
    need("optuna_dashboard")
    from optuna_dashboard import save_note

    from paretostab._tuning.notes import study_note

    url = storage_url(tmp_path)
    spec = tiny(study={"trials": 2})
    study = run_study(spec, storage=url, n_trials=1, progress=False)
    note = note_of(study)
    assert note == study_note(spec)
    for text in ("both maximised", "1. **accuracy**", "out-of-bag accuracy",
                 "2. **φ_iw** (measure `iw`", "M = 3 stratified bootstrap resamples",
                 "the same for every trial (shared resamples, seed 0)", "`hybrid_rfe`",
                 "φ (`nogueira`)", "φ_pears (`pearson`)",
                 r"(Hamer \& Dupont, JMLR 2021, eq. 6, Algorithm 2)"):  # a paper by its name
        assert text in note, f"{text!r} not in the study note:\n{note}"
    keys = ["dashboard:note_str:0", "dashboard:note_ver"]
    assert note_keys(study) == keys

    study = run_study(spec, storage=url, n_trials=2, progress=False)  # resumed
    assert note_of(study) == note and note_keys(study) == keys
    assert storage_of(study).get_study_system_attrs(study_id_of(study))["dashboard:note_ver"] == 1

    save_note(study, "my own words")  # edited in the dashboard: a resume keeps it
    run_study(spec, storage=url, n_trials=3, workers=2, progress=False)
    assert note_of(study) == "my own words" and note_keys(study) == keys


def _create(spec, url):
    from paretostab._tuning import create_or_load_study

    create_or_load_study(spec, storage=open_storage(url))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["sqlite", "journal", "postgres"])
def test_processes_creating_a_study_together_write_one_study_note(tmp_path, request, kind):
    need("optuna_dashboard")
    import multiprocessing

    from paretostab._tuning.notes import study_note

    url = {"sqlite": lambda: storage_url(tmp_path),
           "journal": lambda: f"journal:{tmp_path / 'study.log'}",
           "postgres": lambda: request.getfixturevalue("postgres_url")}[kind]()
    spec = tiny()
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=_create, args=(spec, url)) for _ in range(3)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(120)
    assert [p.exitcode for p in processes] == [0, 0, 0]
    study = optuna.load_study(study_name="tiny", storage=open_storage(url))
    assert note_of(study) == study_note(spec)
    assert note_keys(study) == ["dashboard:note_str:0", "dashboard:note_ver"]


def test_write_note_is_read_back_by_optuna_dashboard_however_long(tmp_path):
    need("optuna_dashboard")
    from paretostab._tuning.notes import has_note, write_note

    study = optuna.create_study(storage=open_storage(storage_url(tmp_path)))
    trial = study.ask()
    assert not has_note(study) and not has_note(trial)
    long = "".join(f"line {i} é φ\n" for i in range(600))  # pieces of 2045 characters
    write_note(trial, long)
    write_note(study, "")
    assert has_note(study) and has_note(trial)
    assert note_of(study) == "" and note_of(study, trial) == long
    assert len(note_keys(study, trial_id_of(trial))) == 1 + math.ceil(len(long) / 2045) == 5


def test_a_trial_note_escapes_markdown_in_names_and_counts_the_features_left_out():
    from paretostab._tuning.notes import trial_note
    from paretostab.maps import stability_map

    Z = np.zeros((4, 14), dtype=bool)
    Z[:, :3] = True
    Z[np.arange(4), 3 + np.arange(4)] = True
    Z[0, 7:14] = True
    runs = RunSet(selection_matrix=Z, importance_matrix=Z.astype(float), rank_matrix=None,
                  scores=np.ones(4), seeds=np.zeros(4, dtype=np.uint32), fit_seconds=np.zeros(4),
                  metric="accuracy", resampling="bootstrap", selector="test")
    names = ["a|b", "_hidden_", "g1_0", *(f"x{i}" for i in range(3, 14))]
    m = stability_map(runs, feature_names=names)
    note = trial_note(7, tiny(), {"iw": 0.5, "nogueira": 0.25, "pearson": float("nan")}, 0.9, m)
    assert "**accuracy = 0.9000** · **φ_iw = 0.5000**" in note
    assert "φ_pears = nan (`pearson`)" in note and "k̄ = 5.75" in note  # (4 · 4 + 7) / 4
    assert "  - a\\|b: 1.00\n  - \\_hidden\\_: 1.00\n  - g1_0: 1.00\n" in note
    assert note.count("\n  - ") == 11 and "  - +4 more\n" in note  # 14 selected, 10 shown
    assert note.startswith("**Trial 7**\n") and "![" not in note
    empty = stability_map(RunSet(
        selection_matrix=np.zeros((2, 3), dtype=bool), importance_matrix=np.zeros((2, 3)),
        rank_matrix=None, scores=np.ones(2), seeds=np.zeros(2, dtype=np.uint32),
        fit_seconds=np.zeros(2), metric="accuracy", resampling="bootstrap", selector="test"))
    assert "- no feature was selected in any run" in trial_note(
        0, tiny(), {"iw": 0.0}, 0.5, empty, image="/artifacts/1/2/x")


@pytest.mark.slow
@pytest.mark.parametrize("level, logged", [("INFO", True), ("WARNING", False)])
def test_worker_processes_log_as_the_process_that_started_them(tmp_path, level, logged):
    """The library sets no log level: tune's worker processes take Optuna's level of the
    process that called tune (a notebook's, a script's), not a level of their own."""
    url = storage_url(tmp_path)
    code = ("import sys, optuna; from tests.studies import tiny; "
            "from paretostab._tuning import run_study; "
            f"optuna.logging.set_verbosity(optuna.logging.{level}); "
            "run_study(tiny(), storage=sys.argv[1], n_trials=2, workers=2, progress=False)")
    run = subprocess.run([sys.executable, "-c", code, url], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[1], timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert ("finished with values" in run.stderr) is logged, run.stderr[-2000:]


@pytest.mark.slow
def test_tune_with_workers_returns_as_they_end_not_at_its_next_tick(tmp_path, monkeypatch):
    """``run_workers`` wakes when a worker ends: with progress shown once every two minutes,
    a study of a few seconds still returns in seconds (it slept a whole tick before)."""
    import time

    monkeypatch.setattr(processes, "FOLLOW_SECONDS", 120.0)
    start = time.monotonic()
    study = run_study(tiny(study={"trials": 4}), storage=storage_url(tmp_path), workers=2,
                      progress=False)
    assert counted_trials(study) == 4
    assert time.monotonic() - start < 120.0  # a bound only the old sleep reaches


@pytest.mark.slow
def test_workers_take_the_environment_and_ignored_signals_of_their_parent_at_each_start(
        tmp_path, monkeypatch):
    """Workers forked from a fork server that an earlier ``tune`` of this process started,
    with the environment and signal dispositions of that moment, still start with their
    parent's of now, as spawned ones would: a variable set since, SIGHUP ignored since (and
    heeded again after)."""
    spec = tiny(selector={"name": "tests.user_studies:StartProbe", "fixed": {},
                          "search": {"n_keep": [2, 6]}}, study={"trials": 4})
    probe = tmp_path / "probe.jsonl"
    monkeypatch.delenv(PROBE, raising=False)
    run_study(spec, storage=storage_url(tmp_path, "before.db"), workers=2, progress=False)
    assert not probe.exists()
    monkeypatch.setenv(PROBE, str(probe))
    original = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # SIG_IGN already under nohup
    try:
        run_study(spec, storage=storage_url(tmp_path, "ignored.db"), workers=2,
                  progress=False)
        ignored = [json.loads(line) for line in probe.read_text().splitlines()]
        probe.unlink()
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
        run_study(spec, storage=storage_url(tmp_path, "heeded.db"), workers=2,
                  progress=False)
        again = [json.loads(line) for line in probe.read_text().splitlines()]
    finally:
        signal.signal(signal.SIGHUP, original)
    assert ignored and again  # 4 trials of 3 runs (and a final fit each)
    assert {line["sighup"] for line in ignored} == {"ignored"}
    assert {line["sighup"] for line in again} == {"handled"}  # stop_signals()'s handler
    assert os.getpid() not in {line["pid"] for line in ignored + again}  # in the workers


def test_a_worker_reads_tmpdir_again_and_takes_fresh_handlers_for_the_heeded_signals(
        tmp_path, monkeypatch):
    """What a fork server may hold that a fresh interpreter would not: a temporary folder
    ``tempfile`` cached (matplotlib makes one where its configuration folder cannot be
    written), stop signals' handlers of its own."""
    saved_environment = dict(os.environ)
    saved_handlers = {s: signal.getsignal(s) for s in STOP_SIGNALS}
    monkeypatch.setattr(tempfile, "tempdir", "/cached/by/the/server")
    try:
        for signum in STOP_SIGNALS:
            signal.signal(signum, signal.SIG_IGN)
        ignored = (signal.SIGHUP,)
        processes._StartState({"TMPDIR": str(tmp_path), "KEPT": "1"}, ignored).restore()
        assert tempfile.gettempdir() == str(tmp_path)
        assert dict(os.environ) == {"TMPDIR": str(tmp_path), "KEPT": "1"}
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
        assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
    finally:
        os.environ.clear()
        os.environ.update(saved_environment)
        for signum, handler in saved_handlers.items():
            signal.signal(signum, handler)


def test_the_modules_a_fork_server_preloads_exist():
    """A name in WORKER_MODULES that no longer imports would be skipped silently, and each
    worker would import it again."""
    for name in processes.WORKER_MODULES:
        importlib.import_module(name)


def test_workers_are_spawned_where_there_is_no_fork_server_or_it_cannot_start(monkeypatch):
    assert isinstance(processes.worker_context(), ForkServerContext)

    def cannot_start() -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(multiprocessing.forkserver, "ensure_running", cannot_start)
    assert isinstance(processes.worker_context(), SpawnContext)
    monkeypatch.undo()
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    assert isinstance(processes.worker_context(), SpawnContext)


@pytest.mark.slow
def test_workers_are_forked_though_tmpdir_is_too_long_for_a_socket(tmp_path):
    """Python makes the fork server's socket in TMPDIR: one of more than 75 bytes made its
    path too long (``OSError: AF_UNIX path too long``, as pytest's folders did in the CI
    once numbered past 100); the socket goes to /tmp, and the workers are forked from the
    server, not spawned by ``tune``."""
    temporary = tmp_path / ("t" * max(1, 100 - len(str(tmp_path))))
    temporary.mkdir()
    assert len(os.fsencode(temporary)) >= 100
    probe = tmp_path / "probe.jsonl"
    spec = selector_spec(tmp_path, "long", "tests.user_studies:StartProbe", trials=2)
    tune = subprocess.Popen(
        [sys.executable, "-m", "paretostab", "tune", str(spec), "--storage",
         storage_url(tmp_path), "--workers", "2"], cwd=tmp_path, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True,
        env={**os.environ, "TMPDIR": str(temporary), PROBE: str(probe), "PYTHONPATH": str(ROOT)})
    _, err = tune.communicate(timeout=300)
    assert tune.returncode == 0, err[-2000:]
    fits = [json.loads(line) for line in probe.read_text().splitlines()]
    assert fits and tune.pid not in {fit["pid"] for fit in fits}  # in the workers
    assert tune.pid not in {fit["ppid"] for fit in fits}  # forked by the server


@pytest.mark.slow
def test_a_trial_whose_stability_is_undefined_names_its_parameters(tmp_path, monkeypatch):
    """A value the spec allowed that leaves a measure undefined (NaN): the trial fails
    with the setting that gave it, so that the user sees which parameter to bound, and
    counts once the study has a completed trial; before, it is one of the study's first
    failures: none counts, and the third stops the study with its reason."""
    import paretostab._problem

    original = paretostab._problem.Problem.measure_values
    calls = []

    def undefined_after(first_defined):
        def measure_values(self, runs, names=None):
            calls.append(1)
            values = original(self, runs, names)
            return (values if len(calls) <= first_defined
                    else {name: float("nan") for name in values})
        return measure_values

    monkeypatch.setattr(paretostab._problem.Problem, "measure_values", undefined_after(1))
    study = run_study(tiny(study={"trials": 3}), storage=storage_url(tmp_path), progress=False)
    assert [t.state for t in study.trials] == [TrialState.COMPLETE] + [TrialState.FAIL] * 2
    assert counted_trials(study) == 3
    for trial in study.trials[1:]:
        reason = trial.user_attrs["fail_reason"]
        assert reason.startswith("φ_iw undefined (NaN) at "), reason
        assert f"n_stable = {trial.params['n_stable']}" in reason
        assert f"epsilon = {trial.params['epsilon']:.4g}" in reason

    calls.clear()
    monkeypatch.setattr(paretostab._problem.Problem, "measure_values", undefined_after(0))
    url = storage_url(tmp_path, "none.db")
    with pytest.raises(InvalidInputError, match=r"first 3 trials failed, the last one: "
                                                r"φ_iw undefined \(NaN\) at alpha = "):
        run_study(tiny(study={"trials": 5}), storage=url, progress=False)
    study = optuna.load_study(study_name=study.study_name, storage=url)
    assert len(study.trials) == 3 and counted_trials(study) == 0


def test_the_front_table_flags_the_trials_that_recorded_chance_and_no_other():
    """A study resumed from a version that did not record chance: its old front trials
    get no verdict (None), not a p-value of NaN read as "not above chance"; the new ones
    are flagged by what they recorded."""
    from paretostab._tuning import front_table

    def chance(p_value, **probe):
        return {"metric": "accuracy", "no_information": 0.6, "p_value": p_value, **probe}

    study = optuna.create_study(directions=["maximize", "maximize"])
    for values, attrs in [((0.9, 0.5), {}),  # recorded nothing: an old trial
                          ((0.8, 0.7), {"chance": chance(1e-6, ignores_labels=False)}),
                          ((0.62, 1.0), {"chance": chance(0.4, ignores_labels=True)})]:
        study.add_trial(optuna.trial.create_trial(
            values=list(values), user_attrs=attrs,
            params={}, distributions={}))
    table = front_table(study).set_index("trial")
    assert table.loc[0, "flagged"] is None and table.loc[1, "flagged"] == ""
    assert table.loc[2, "flagged"] == ("accuracy not above chance (0.600; p = 0.4); selection "
                                       "ignores the labels: its stability is not evidence of "
                                       "signal")
    old = optuna.create_study(directions=["maximize", "maximize"])
    old.add_trial(optuna.trial.create_trial(values=[0.9, 0.5]))
    assert "flagged" not in front_table(old)  # nothing recorded: no column
