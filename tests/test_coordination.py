"""Many processes on one study: counted trials, slots, sampler streams, stale trials,
interrupted and failing workers. SQLite and journal files here; the same on a real
PostgreSQL server at the end (skipped only without its server binaries)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState, create_trial

from paretostab._errors import WorkerError
from paretostab._optuna_internals import trial_id_of
from paretostab._storage import open_storage
from paretostab._tuning import create_or_load_study, run_study
from paretostab._tuning.coordination import (
    Interrupts,
    TrialSlots,
    counted_trials,
    counts,
    fail_stale_trials,
    process_ended,
)
from paretostab.spec import load_spec
from tests.extras import need
from tests.studies import storage_url, tiny, write_spec
from tests.waiting import WAIT_SECONDS, current, ended_after, heeding_stop_signals, wait_until

SHORT_HEARTBEATS = ("--heartbeat-interval", "1", "--grace-period", "5")
"""For every process of a kill -9 test: a trial the kill left running without a heartbeat
fails after 5 s, not the default minute (which these tests spent idle)."""


def cli_tune(spec_path, url, *extra, cwd, **options):
    """``tune`` started as a user starts it (``options``: of its ``Popen``)."""
    return subprocess.Popen([sys.executable, "-m", "paretostab", "tune", str(spec_path),
                             "--storage", url, *extra], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **options)


def param_sets(study):
    return [tuple(sorted(t.params.items())) for t in study.get_trials(deepcopy=False)
            if t.state != TrialState.PRUNED]


def load(url, name):
    return optuna.load_study(study_name=name, storage=open_storage(url))


def counted_now(url, name):
    study = current(url, name)
    return 0 if study is None else counted_trials(study)


def dead_pid():
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


# ------------------------------------------------------------------ what counts


@pytest.mark.parametrize(("state", "attrs", "expected"), [
    (TrialState.COMPLETE, {}, True),
    (TrialState.FAIL, {"fail_reason": "ValueError: bad epsilon"}, True),
    (TrialState.FAIL, {"fail_reason": "interrupted (Ctrl-C)", "counted": False}, False),
    (TrialState.FAIL, {}, False),  # failed by Optuna outside its computation
    (TrialState.PRUNED, {}, False),
])
def test_a_trial_counts_when_it_completed_or_its_computation_failed(state, attrs, expected):
    values = [0.5, 0.5] if state == TrialState.COMPLETE else None
    assert counts(create_trial(state=state, values=values, user_attrs=attrs)) is expected


def test_a_trial_runs_only_while_fewer_than_n_trials_before_it_count_or_run(tmp_path):
    study = create_or_load_study(tiny(), storage=open_storage(storage_url(tmp_path)))
    first, second, third = study.ask(), study.ask(), study.ask()
    slots = TrialSlots(study, 2)
    assert slots.claim(first) is None and slots.claim(second) is None
    assert slots.claim(third) == ("not run: the study had its 2 trials, finished or running, "
                                  "when this one started")
    assert first.study.get_trials()[0].user_attrs["process"] == {
        "host": socket.gethostname(), "pid": os.getpid()}
    study.tell(first, state=TrialState.FAIL)  # no reason: not counted, its slot is free
    assert slots.claim(third) is None


@pytest.mark.slow
def test_a_process_waits_for_running_trials_only_where_heartbeats_tell_them_alive(tmp_path):
    url = storage_url(tmp_path)
    study = create_or_load_study(tiny(), storage=open_storage(url))
    running = [study.ask(), study.ask()]
    assert not TrialSlots(study, 2).wait(Interrupts())  # no heartbeats: stop, do not wait
    beating = create_or_load_study(tiny(), storage=open_storage(
        url, heartbeat_interval=30, grace_period=60))
    start = time.monotonic()
    assert not TrialSlots(beating, 2, poll_seconds=0.2).wait(
        Interrupts(), deadline=time.monotonic() + 1.0)
    assert time.monotonic() - start >= 1.0  # it waited for the running trials
    for trial in running:
        study.tell(trial, [0.5, 0.5])
    assert TrialSlots(beating, 3).wait(Interrupts())
    assert not TrialSlots(beating, 2).wait(Interrupts())


@pytest.mark.slow
def test_a_timeout_stops_starting_trials_and_leaves_none_running(tmp_path):
    study = run_study(tiny(study={"trials": 400}), storage=storage_url(tmp_path), timeout=1.0,
                      progress=False)
    assert 1 <= counted_trials(study) < 400  # stopped: not by a clock of the test
    assert not study.get_trials(states=(TrialState.RUNNING,))


# ------------------------------------------------------------------ stale trials


def test_a_trial_whose_process_ended_on_this_host_fails_as_stale(tmp_path):
    study = create_or_load_study(tiny(), storage=open_storage(storage_url(tmp_path)))
    gone, alive = study.ask(), study.ask()
    gone.set_user_attr("process", {"host": socket.gethostname(), "pid": dead_pid()})
    alive.set_user_attr("process", {"host": socket.gethostname(), "pid": os.getpid()})
    assert process_ended(dead_pid()) and not process_ended(os.getpid())
    assert fail_stale_trials(study) == [gone.number]
    trial = study.get_trials()[gone.number]
    assert trial.state == TrialState.FAIL and not counts(trial)
    assert trial.user_attrs["fail_reason"].startswith("went stale: its process (pid ")
    assert study.get_trials()[alive.number].state == TrialState.RUNNING
    assert fail_stale_trials(study) == []


def test_a_stale_trial_that_had_written_its_note_gets_a_note_that_says_it_failed(tmp_path):
    """Killed between writing its note and finishing: the note no longer shows values that
    the study did not keep; a stale trial without a note gets none."""
    from paretostab._tuning.notes import write_note

    get_note = need("optuna_dashboard").get_note

    study = create_or_load_study(tiny(), storage=open_storage(storage_url(tmp_path)))
    noted, silent = study.ask(), study.ask()
    write_note(noted, "**Trial 0**\n\n- objectives (maximised): **accuracy = 0.9**\n"
               + "x" * 5000)  # three pieces: the old ones past the new are emptied
    pid = dead_pid()
    for trial in (noted, silent):
        trial.set_user_attr("process", {"host": socket.gethostname(), "pid": pid})
    assert fail_stale_trials(study) == [noted.number, silent.number]
    note = get_note(noted)
    assert note == (f"**Trial {noted.number}** · failed: went stale: its process (pid "
                    f"{pid} on {socket.gethostname()}) ended before finishing it\n\n"
                    "Its values were not kept; it does not count, and the study runs its "
                    "slot again.\n")
    assert get_note(silent) == ""


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:Heartbeat of storage:UserWarning")  # asked by hand
def test_a_trial_without_heartbeat_for_the_grace_period_fails_as_stale(tmp_path):
    storage = open_storage(storage_url(tmp_path), heartbeat_interval=1, grace_period=1)
    study = create_or_load_study(tiny(), storage=storage)
    trial = study.ask()  # of a process on another machine: no process of this host
    storage.record_heartbeat(trial_id_of(trial))
    assert fail_stale_trials(study) == []
    time.sleep(2.5)
    assert fail_stale_trials(study) == [trial.number]
    frozen = study.get_trials()[0]
    assert frozen.state == TrialState.FAIL and frozen.user_attrs["counted"] is False
    assert "no heartbeat" in frozen.user_attrs["fail_reason"]


# ------------------------------------------------------------------ sampler streams


@pytest.mark.slow
def test_one_uninterrupted_process_replays_the_spec_seed(tmp_path):
    first = run_study(tiny(study={"trials": 4}), storage=storage_url(tmp_path, "a.db"), progress=False)
    again = run_study(tiny(study={"trials": 4}), storage=storage_url(tmp_path, "b.db"), progress=False)
    assert param_sets(first) == param_sets(again)


@pytest.mark.slow
def test_a_resume_draws_new_parameters(tmp_path):
    """Before: every process seeded its sampler with the spec's seed, so trials 3–5 of a
    resume replayed trials 0–2."""
    url = storage_url(tmp_path)
    run_study(tiny(), storage=url, n_trials=3, progress=False)
    study = run_study(tiny(), storage=url, n_trials=6, progress=False)
    assert counted_trials(study) == 6 and len(set(param_sets(study))) == 6


# ------------------------------------------------------------------ processes


@pytest.mark.slow
def test_two_tune_processes_end_with_exactly_n_trials(tmp_path):
    """Before: each computed its missing trials at start-up, and two asking for 6 ran 12."""
    spec_path = write_spec(tmp_path, "both", trials=6)
    url = storage_url(tmp_path)
    processes = [cli_tune(spec_path, url, cwd=tmp_path) for _ in range(2)]
    for process in processes:
        _, err = process.communicate(timeout=WAIT_SECONDS)
        assert process.returncode == 0, err[-2000:]
    study = load(url, "both")
    assert counted_trials(study) == 6 and len(set(param_sets(study))) == 6
    assert not study.get_trials(states=(TrialState.RUNNING,))


@pytest.mark.slow
def test_kill_9_then_resume_fails_the_killed_trial_and_ends_with_exactly_n(tmp_path):
    spec_path = write_spec(tmp_path, "killed", trials=400)
    url = storage_url(tmp_path)
    process = cli_tune(spec_path, url, cwd=tmp_path)
    wait_until(lambda: counted_now(url, "killed") >= 2
               and load(url, "killed").get_trials(states=(TrialState.RUNNING,)),
               what="two trials done and one running")
    process.kill()
    process.communicate()
    # killed in write-ahead-log mode: the log is left beside the file, and a reader folds
    # the killed process's committed trials back in
    assert (tmp_path / "study.db-wal").exists()
    running = [t.number for t in load(url, "killed").get_trials(states=(TrialState.RUNNING,))]
    target = counted_trials(load(url, "killed")) + 2
    resume = subprocess.run([sys.executable, "-m", "paretostab", "tune", str(spec_path),
                             "--storage", url, "--n-trials", str(target)],
                            cwd=tmp_path, capture_output=True, text=True, timeout=WAIT_SECONDS)
    assert resume.returncode == 0, resume.stderr[-2000:]
    study = load(url, "killed")
    assert counted_trials(study) == target
    assert not study.get_trials(states=(TrialState.RUNNING,))
    for number in running:
        trial = study.trials[number]
        assert trial.state == TrialState.FAIL and "went stale" in trial.user_attrs["fail_reason"]


def children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (Linux's ``/proc``)."""
    if not Path("/proc/self/stat").exists():
        pytest.skip("no /proc on this system: the parent's helper processes are not listed")
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(stat.parent.name))
    return found


@pytest.mark.slow
def test_the_workers_end_within_seconds_when_their_parent_is_killed(tmp_path):
    """Each worker watches its parent: when it is killed (kill -9), the workers interrupt
    the trials they run at once, not 10 s later (their watch's last resort) nor after the
    study's 400 trials. Told by what they leave, not by a clock: no trial counts that
    was not counted when the parent ended, but one per worker caught in its last write."""
    spec_path = write_spec(tmp_path, "orphans", trials=400)
    url = storage_url(tmp_path)
    parent = cli_tune(spec_path, url, "--workers", "2", cwd=tmp_path)

    def worker_pids():
        study = current(url, "orphans")
        return set() if study is None else {
            t.user_attrs["process"]["pid"] for t in study.get_trials()
            if "process" in t.user_attrs} - {parent.pid}

    wait_until(lambda: len(worker_pids()) == 2, what="both workers running trials",
               process=parent)
    workers = worker_pids()
    helpers = children(parent.pid)  # the fork server and Python's resource tracker
    parent.kill()
    parent.communicate()
    counted = counted_now(url, "orphans")
    wait_until(lambda: all(process_ended(pid) for pid in workers | helpers),
               what="the workers, the fork server and the resource tracker to end")
    assert helpers  # the workers' fork server at least (forked workers are its children)
    study = load(url, "orphans")
    assert counted_trials(study) <= counted + len(workers)
    assert not study.get_trials(states=(TrialState.RUNNING,))
    interrupted = [t for t in study.trials if t.state == TrialState.FAIL]
    assert all(t.user_attrs["fail_reason"].startswith("interrupted: the tune process")
               for t in interrupted)


@pytest.mark.slow
def test_a_failing_worker_fails_tune_with_its_error_once(tmp_path):
    """Before: `--workers 2` whose workers failed exited 0 and printed two tracebacks.
    (What tune can check, it checks before starting workers: here a worker's storage
    fails in the worker.)"""
    from paretostab._problem import Problem
    from paretostab._tuning.processes import TuneSettings, run_workers

    spec = tiny()
    study = create_or_load_study(spec, storage=open_storage(storage_url(tmp_path)))
    with pytest.raises(WorkerError) as caught:
        run_workers(2, Problem.from_spec(spec),
                    TuneSettings(storage="sqlit:///typo.db", artifacts=None, study_name=None,
                                 n_trials=3, cache_bytes=0), follow=lambda: None)
    assert "sqlit" in str(caught.value) and "Traceback" not in str(caught.value)
    assert not study.get_trials()


@pytest.mark.slow
def test_tune_checks_the_artifact_store_before_any_trial(tmp_path):
    artifacts = tmp_path / "artifacts"
    artifacts.write_text("a file where the artifact folder should be")
    spec_path = write_spec(tmp_path, "checked", trials=4)
    result = subprocess.run([sys.executable, "-m", "paretostab", "tune", str(spec_path),
                             "--storage", storage_url(tmp_path), "--workers", "2",
                             "--artifacts", str(artifacts)],
                            cwd=tmp_path, capture_output=True, text=True, timeout=WAIT_SECONDS)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert not (tmp_path / "study.db").exists()  # checked before the study is opened


@pytest.mark.slow
def test_ctrl_c_to_a_tune_with_workers_stops_them_all(tmp_path):
    spec_path = write_spec(tmp_path, "stopped", trials=400)
    url = storage_url(tmp_path)
    parent = cli_tune(spec_path, url, "--workers", "2", cwd=tmp_path,
                      preexec_fn=heeding_stop_signals)
    with ended_after(parent):
        wait_until(lambda: counted_now(url, "stopped") >= 2, what="two trials",
                   process=parent)
        parent.send_signal(signal.SIGINT)
        _, err = parent.communicate(timeout=WAIT_SECONDS)
    assert parent.returncode == 130 and "Interrupted" in err and "Traceback" not in err, err
    study = load(url, "stopped")
    assert not study.get_trials(states=(TrialState.RUNNING,))


# ------------------------------------------------------------------ a PostgreSQL server


@pytest.mark.slow
def test_three_tune_processes_as_three_machines_on_one_fresh_postgresql_database(
        tmp_path, postgres_url):
    spec_path = write_spec(tmp_path, "machines", trials=12)
    processes = [cli_tune(spec_path, postgres_url, cwd=tmp_path) for _ in range(3)]
    for process in processes:
        _, err = process.communicate(timeout=WAIT_SECONDS)
        assert process.returncode == 0, err[-2000:]
    study = load(postgres_url, "machines")
    assert counted_trials(study) == 12  # none lost, none over
    assert len(set(param_sets(study))) == len(param_sets(study)) == 12  # none repeated
    assert not study.get_trials(states=(TrialState.RUNNING,))


@pytest.mark.slow
def test_kill_9_of_one_of_three_processes_on_postgresql_then_a_resume(tmp_path, postgres_url):
    spec_path = write_spec(tmp_path, "killed", trials=15)
    processes = [cli_tune(spec_path, postgres_url, *SHORT_HEARTBEATS, cwd=tmp_path)
                 for _ in range(3)]
    wait_until(lambda: counted_now(postgres_url, "killed") >= 2, what="two trials")
    processes[0].kill()
    for process in processes:
        process.communicate(timeout=WAIT_SECONDS)
    assert [p.returncode for p in processes[1:]] == [0, 0]
    resume = subprocess.run([sys.executable, "-m", "paretostab", "tune", str(spec_path),
                             "--storage", postgres_url, *SHORT_HEARTBEATS], cwd=tmp_path,
                            capture_output=True, text=True, timeout=WAIT_SECONDS)
    assert resume.returncode == 0, resume.stderr[-2000:]
    study = load(postgres_url, "killed")
    assert counted_trials(study) == 15
    assert len(set(param_sets(study))) == len(param_sets(study))
    assert not study.get_trials(states=(TrialState.RUNNING,))
    assert all("went stale" in t.user_attrs["fail_reason"] or "interrupted" in
               t.user_attrs["fail_reason"] for t in study.trials
               if t.state == TrialState.FAIL)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:Heartbeat of storage:UserWarning")  # asked by hand
def test_a_process_waiting_on_a_trial_killed_before_its_first_heartbeat_fails_it_and_ends(
        tmp_path, postgres_url):
    """Before: it waited for ever. In CI a survivor of the kill -9 above did (600 s), its
    killed process having just created a trial; 2 of 2 runs of ``tune`` after a kill in
    that window hung, here and in the reproduction. ``--grace-period`` is how long it
    waits (without it reaching the storage, a minute, and the reason says 60 s)."""
    spec_path = write_spec(tmp_path, "orphaned", trials=4)
    run_study(load_spec(spec_path), storage=postgres_url, n_trials=2, progress=False)
    orphan = load(postgres_url, "orphaned").ask()  # as a kill -9 right after creating it
    waiting = subprocess.run([sys.executable, "-m", "paretostab", "tune", str(spec_path),
                              "--storage", postgres_url, "--heartbeat-interval", "1",
                              "--grace-period", "2"], cwd=tmp_path, capture_output=True,
                             text=True, timeout=WAIT_SECONDS)
    assert waiting.returncode == 0, waiting.stderr[-2000:]
    study = load(postgres_url, "orphaned")
    assert counted_trials(study) == 4 and not study.get_trials(states=(TrialState.RUNNING,))
    assert study.trials[orphan.number].user_attrs["fail_reason"].startswith(
        "went stale: no heartbeat ever came from its process, watched for 2 s")


@pytest.mark.slow
def test_a_grid_over_three_processes_on_postgresql_a_kill_9_and_a_resume(tmp_path,
                                                                         postgres_url):
    spec_path = tmp_path / "grid.toml"
    spec_path.write_text(
        '[study]\nname = "grid"\nsampler = "grid"\nseed = 0\n'
        '[data]\nsource = "simulated:n_other=30,n_per_class=20"\n[protocol]\nruns = 3\n'
        '[selector]\nname = "hybrid_rfe"\n'
        '[selector.fixed]\nn_features = 4\nalpha = 0.5\nepsilon = 0.1\nfinal_reg = 1.0\n'
        '[selector.search]\nn_stable = { choices = [0, 1, 2, 3, 4] }\n'
        'reg = { choices = [0.1, 1.0, 10.0] }\n[objective]\nstability = "iw"\n')
    processes = [cli_tune(spec_path, postgres_url, *SHORT_HEARTBEATS, cwd=tmp_path)
                 for _ in range(3)]
    wait_until(lambda: counted_now(postgres_url, "grid") >= 2, what="two trials")
    processes[0].kill()
    for process in processes:
        process.communicate(timeout=WAIT_SECONDS)
    resume = subprocess.run([sys.executable, "-m", "paretostab", "tune", str(spec_path),
                             "--storage", postgres_url, *SHORT_HEARTBEATS], cwd=tmp_path,
                            capture_output=True, text=True, timeout=WAIT_SECONDS)
    assert resume.returncode == 0, resume.stderr[-2000:]
    study = load(postgres_url, "grid")
    complete = sorted((t.params["n_stable"], t.params["reg"])
                      for t in study.get_trials(states=(TrialState.COMPLETE,)))
    assert complete == [(k, reg) for k in range(5) for reg in (0.1, 1.0, 10.0)]  # each once
    assert not study.get_trials(states=(TrialState.RUNNING,))


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:Heartbeat of storage:UserWarning")  # asked by hand
def test_a_trial_that_never_beat_fails_as_stale_once_watched_for_the_grace_period(tmp_path):
    """Its process was killed between Optuna creating it and its first heartbeat: Optuna's
    check never fails it, and a process waiting for its slot waited for ever."""
    storage = open_storage(storage_url(tmp_path), heartbeat_interval=1, grace_period=1)
    study = create_or_load_study(tiny(), storage=storage)
    silent, late = study.ask(), study.ask()  # no heartbeat, no process recorded
    watched: dict[int, float] = {}
    assert fail_stale_trials(study, silent_since=watched) == []
    assert watched.keys() == {trial_id_of(silent), trial_id_of(late)}
    time.sleep(1.2)
    storage.record_heartbeat(trial_id_of(late))  # its first heartbeat comes late, but comes
    assert fail_stale_trials(study) == []  # not watched: Optuna's rule alone
    assert fail_stale_trials(study, silent_since=watched) == [silent.number]
    assert watched.keys() == {trial_id_of(silent)}  # the late one beats: no longer watched
    assert fail_stale_trials(study, silent_since=watched) == [] and watched == {}
    frozen = study.get_trials()[silent.number]
    assert frozen.state == TrialState.FAIL and not counts(frozen)
    assert frozen.user_attrs["fail_reason"] == (
        "went stale: no heartbeat ever came from its process, watched for 1 s (it ended or "
        "stopped while starting the trial)")
    assert study.get_trials()[late.number].state == TrialState.RUNNING
    study.tell(late, [0.5, 0.5])
    watched = {trial_id_of(late): 0.0}  # with nothing running, nothing is watched or queried
    assert fail_stale_trials(study, silent_since=watched) == [] and watched == {}


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:Heartbeat of storage:UserWarning")  # asked by hand
def test_a_trial_without_heartbeat_on_postgresql_fails_as_stale(postgres_url):
    storage = open_storage(postgres_url, heartbeat_interval=1, grace_period=1)
    study = create_or_load_study(tiny(), storage=storage)
    trial = study.ask()
    storage.record_heartbeat(trial_id_of(trial))
    time.sleep(2.5)
    assert fail_stale_trials(study) == [trial.number]
    assert study.get_trials()[0].user_attrs["fail_reason"] == (
        "went stale: no heartbeat from its process for the grace period, 1 s (killed, or cut "
        "off from the storage)")

