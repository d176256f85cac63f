"""Optuna's private interfaces that paretostab uses (paretostab/_optuna_internals.py), each
exercised on real storages: an Optuna release that changes one of them fails here, with a
message naming it, before it breaks the dashboard notes, the report's cache or the
detection of stale trials."""

from __future__ import annotations

import time
from importlib.metadata import version
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState
from packaging.version import Version

from paretostab._errors import StoreError
from paretostab._optuna_internals import (
    RETRIED_METHODS,
    RetryingRDBStorage,
    grace_seconds,
    heartbeat_enabled,
    one_transaction,
    set_trial_user_attrs,
    stale_trial_ids,
    storage_of,
    study_id_of,
    trial_id_of,
    trials_with_heartbeat,
)
from paretostab._sqlite import network_file_system
from paretostab._storage import open_storage

pytestmark = pytest.mark.filterwarnings("ignore:Heartbeat of storage:UserWarning")


def changed(interface: str) -> str:
    return (f"Optuna {optuna.__version__} changed its private interface {interface}: "
            "update paretostab/_optuna_internals.py (and the bound in pyproject.toml)")


def test_the_installed_optuna_is_within_the_bound_pyproject_gives():
    assert Version("5") <= Version(version("optuna")) < Version("6"), changed("(its version)")


@pytest.fixture(params=["sqlite", "postgresql"])
def storage_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'internals.db'}"
    return request.getfixturevalue("postgres_url")


@pytest.mark.slow
def test_a_studys_storage_and_id_and_a_trials_id(storage_url):
    storage = open_storage(storage_url)
    study = optuna.create_study(storage=storage, study_name="internals",
                                directions=["maximize", "maximize"])
    assert storage_of(study).get_study_id_from_name("internals") == study_id_of(study), \
        changed("Study._storage / Study._study_id")
    trial = study.ask()
    frozen = storage_of(study).get_trial(trial_id_of(trial))
    assert frozen.number == trial.number, changed("Trial._trial_id")
    study.tell(trial, [0.5, 0.5])
    assert trial_id_of(study.get_trials(deepcopy=False)[0]) == trial_id_of(trial), \
        changed("FrozenTrial._trial_id")


@pytest.mark.slow
def test_heartbeats_stale_trials_and_trials_that_never_beat(storage_url):
    quiet = open_storage(storage_url)
    assert not heartbeat_enabled(quiet), changed("optuna.storages._heartbeat")
    storage = open_storage(storage_url, heartbeat_interval=1, grace_period=1)
    assert heartbeat_enabled(storage), changed("optuna.storages._heartbeat")
    assert grace_seconds(storage) == 1, changed("RDBStorage.grace_period (in _CachedStorage)")
    assert grace_seconds(open_storage(storage_url, heartbeat_interval=3)) == 6, \
        changed("RDBStorage.heartbeat_interval (in _CachedStorage)")
    study = optuna.create_study(storage=storage, study_name="beats",
                                directions=["maximize", "maximize"])
    beating, silent = study.ask(), study.ask()
    storage.record_heartbeat(trial_id_of(beating))
    ids = [trial_id_of(beating), trial_id_of(silent)]
    assert trials_with_heartbeat(storage, ids) == {trial_id_of(beating)}, \
        changed("optuna.storages._rdb.models.TrialHeartbeatModel / _create_scoped_session")
    assert trials_with_heartbeat(storage, []) == set()
    assert stale_trial_ids(storage, study_id_of(study)) == []
    time.sleep(2.5)
    assert stale_trial_ids(storage, study_id_of(study)) == [trial_id_of(beating)], \
        changed("BaseHeartbeat._get_stale_trial_ids")


def test_every_storage_call_optuna_makes_is_retried_through_an_outage():
    """Optuna's cache of an RDB storage calls these methods of it, public and private: a
    release that adds one (or renames one) must fail here, not lose a study at the next
    database restart."""
    import inspect
    import re

    from optuna.storages import _cached_storage, _heartbeat

    called = set(re.findall(r"self\._backend\.(\w+)\(", inspect.getsource(_cached_storage)))
    called |= set(re.findall(r"storage\.(_get_stale_trial_ids)\(",
                             inspect.getsource(_heartbeat)))
    settings = {"get_heartbeat_interval", "get_heartbeat_stale_trial_callback"}  # no query
    assert called - settings <= set(RETRIED_METHODS)
    for name in RETRIED_METHODS:
        assert hasattr(optuna.storages.RDBStorage, name), name
        assert getattr(RetryingRDBStorage, name) is not getattr(optuna.storages.RDBStorage,
                                                                  name), name


def test_a_retrying_storage_finishing_a_trial_again_after_a_lost_commit(storage_url,
                                                                        monkeypatch):
    """A commit whose answer was lost: the retried finish finds the trial finished as
    asked, and that is success."""
    from paretostab._faults import Retrying

    storage = open_storage(storage_url)
    storage.retry = Retrying("db", 60, sleep=lambda s: None)
    study = optuna.create_study(storage=storage, study_name="lost", directions=["maximize"])
    trial = study.ask()
    finish = optuna.storages.RDBStorage.set_trial_state_values
    calls = []

    def commit_then_lose_the_answer(self, trial_id, state, values=None):
        calls.append(state)
        result = finish(self, trial_id, state, values)
        if len(calls) == 1:
            import sqlite3

            raise sqlite3.OperationalError("database is locked")  # a transient error
        return result

    monkeypatch.setattr(optuna.storages.RDBStorage, "set_trial_state_values",
                        commit_then_lose_the_answer)
    assert storage.set_trial_state_values(trial_id_of(trial), TrialState.COMPLETE, [1.0])
    assert len(calls) == 2 and study.trials[0].state == TrialState.COMPLETE


def test_a_trials_user_attributes_in_one_commit(storage_url, tmp_path):
    """One transaction of the RDB storage (counted by SQLAlchemy's commit event), the
    values as Optuna's own setter writes them, over values already there; a finished
    trial refused as Optuna refuses it; one call per attribute on the journal storage."""
    from sqlalchemy import event

    storage = open_storage(storage_url)
    study = optuna.create_study(storage=storage, study_name="attrs")
    trial = study.ask()
    trial.set_user_attr("seconds", 0.0)
    commits = []

    def count(connection) -> None:
        commits.append(connection)

    engine = getattr(storage, "_backend", storage).engine
    event.listen(engine, "commit", count)
    attrs = {"measures": {"iw": 0.5, "nogueira": float("nan")}, "runs": 30, "seconds": 1.25,
             "timing": {"fits": 0.1}, "spec_hash": "ab" * 32}
    set_trial_user_attrs(storage_of(study), trial_id_of(trial), attrs)
    event.remove(engine, "commit", count)
    assert len(commits) == 1, changed("RDBStorage._set_trial_attr_without_commit")
    written = storage_of(study).get_trial(trial_id_of(trial)).user_attrs
    assert written["seconds"] == 1.25 and written["runs"] == 30
    assert written["measures"]["iw"] == 0.5 and written["timing"] == {"fits": 0.1}
    study.tell(trial, 1.0)
    with pytest.raises(RuntimeError):  # UpdateFinishedTrialError, as Optuna's setter
        set_trial_user_attrs(storage_of(study), trial_id_of(trial), {"late": 1})
    journal = open_storage(f"journal:{tmp_path / 'attrs.log'}")
    other = optuna.create_study(storage=journal, study_name="attrs")
    running = other.ask()
    set_trial_user_attrs(storage_of(other), trial_id_of(running), attrs)
    assert storage_of(other).get_trial(trial_id_of(running)).user_attrs["spec_hash"] == \
        attrs["spec_hash"]


def test_a_trials_parameters_and_attributes_in_one_transaction(storage_url):
    """What a trial sets while it starts (its process, its parameters) is one commit, read
    back as Optuna wrote it; a block that raises writes nothing."""
    from sqlalchemy import event

    storage = open_storage(storage_url)
    study = optuna.create_study(storage=storage, study_name="start",
                                directions=["maximize", "maximize"])
    trial = study.ask()
    writes, commits = set(), []

    def written(connection, cursor, statement, *args) -> None:
        if statement.lstrip().upper().startswith(("INSERT", "UPDATE")):
            writes.add(connection)

    def committed(connection) -> None:
        if connection in writes:  # a transaction that wrote (reads commit too)
            commits.append(connection)
            writes.discard(connection)

    engine = getattr(storage_of(study), "_backend", storage).engine
    event.listen(engine, "before_cursor_execute", written)
    event.listen(engine, "commit", committed)
    with one_transaction(storage_of(study)):
        trial.set_user_attr("process", {"host": "h", "pid": 1})
        x = trial.suggest_float("x", 0.0, 1.0)
        k = trial.suggest_int("k", 1, 50, log=True)
        c = trial.suggest_categorical("c", ["a", "b"])
        assert commits == [] and trial.params == {"x": x, "k": k, "c": c}
    event.remove(engine, "before_cursor_execute", written)
    event.remove(engine, "commit", committed)
    assert len(commits) == 1, changed("RDBStorage._set_trial_param_without_commit")
    frozen = storage_of(study).get_trial(trial_id_of(trial))
    assert frozen.params == {"x": x, "k": k, "c": c}
    assert frozen.user_attrs == {"process": {"host": "h", "pid": 1}}
    other = study.ask()
    with pytest.raises(optuna.TrialPruned), one_transaction(storage_of(study)):
        other.suggest_float("x", 0.0, 1.0)
        raise optuna.TrialPruned("not run")
    assert optuna.load_study(study_name="start", storage=storage_url).trials[1].params == {}


def test_a_trials_record_in_one_transaction(storage_url, tmp_path):
    """What a trial records as it finishes (its artifacts' records, its note, which are
    study system attributes, and its user attributes) is one commit, read back as
    Optuna writes each; a study system attribute already there is overwritten; a block
    that raises writes nothing."""
    from optuna.artifacts import FileSystemArtifactStore, get_all_artifact_meta, upload_artifact
    from sqlalchemy import event

    storage = open_storage(storage_url)
    study = optuna.create_study(storage=storage, study_name="record",
                                directions=["maximize", "maximize"])
    storage_of(study).set_study_system_attr(study_id_of(study), "kept", "old")
    store = FileSystemArtifactStore(str(tmp_path))
    (tmp_path / "runs.npz").write_bytes(b"runs")
    trial, commits = study.ask(), []

    def committed(connection) -> None:
        commits.append(connection)

    engine = getattr(storage_of(study), "_backend", storage).engine
    event.listen(engine, "commit", committed)
    with one_transaction(storage_of(study)):
        artifact = upload_artifact(artifact_store=store, file_path=str(tmp_path / "runs.npz"),
                                   study_or_trial=trial)
        storage_of(study).set_study_system_attr(study_id_of(study), "kept", "new")
        storage_of(study).set_study_system_attr(study_id_of(study), "note", "**Trial 0**")
        set_trial_user_attrs(storage_of(study), trial_id_of(trial), {"seconds": 1.5})
        assert commits == []
    event.remove(engine, "commit", committed)
    assert len(commits) == 1, changed("StudySystemAttributeModel")
    reread = optuna.load_study(study_name="record", storage=storage_url)
    assert [m.artifact_id for m in get_all_artifact_meta(
        reread.trials[0], storage=storage_of(reread))] == [artifact]
    attrs = storage_of(reread).get_study_system_attrs(study_id_of(reread))
    assert attrs == {"kept": "new", "note": "**Trial 0**"}
    assert reread.trials[0].user_attrs == {"seconds": 1.5}
    other = study.ask()
    with pytest.raises(PermissionError), one_transaction(storage_of(study)):
        upload_artifact(artifact_store=store, file_path=str(tmp_path / "runs.npz"),
                        study_or_trial=other)
        storage_of(study).set_study_system_attr(study_id_of(study), "kept", "lost")
        raise PermissionError("the note's store refuses writes")
    reread = optuna.load_study(study_name="record", storage=storage_url)
    assert get_all_artifact_meta(reread.trials[1], storage=storage_of(reread)) == []
    assert storage_of(reread).get_study_system_attrs(study_id_of(reread))["kept"] == "new"


def test_a_heartbeat_through_an_outage_longer_than_the_wait_skips_the_beat(tmp_path,
                                                                            monkeypatch):
    """The heartbeat thread does not raise (a thread's traceback beside tune's one
    ``error:`` line): it skips the beat, and the trial's own next call reports."""
    import sqlite3

    from paretostab._faults import Retrying

    storage = open_storage(f"sqlite:///{tmp_path / 'beat.db'}", heartbeat_interval=1)
    storage.retry = Retrying("db", 0, sleep=lambda s: None)
    study = optuna.create_study(storage=storage, study_name="beat", directions=["maximize"])
    trial = study.ask()

    def down(*args):
        raise sqlite3.OperationalError("database is locked")

    from optuna.storages._rdb import models

    monkeypatch.setattr(models.TrialHeartbeatModel, "where_trial_id", down)
    assert storage.record_heartbeat(trial_id_of(trial)) is None
    with pytest.raises(StoreError, match="unreachable"):
        storage.retry(down)


def test_a_sqlite_storage_writes_ahead_without_a_sync_per_commit(tmp_path):
    """WAL mode (kept in the file: another process opening it reads it so) and
    ``synchronous = NORMAL`` on every connection, also those opened after an outage."""
    import sqlite3

    path = tmp_path / "wal.db"
    storage = open_storage(f"sqlite:///{path}")
    optuna.create_study(storage=storage, study_name="wal")
    with sqlite3.connect(path) as other:
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    storage.engine.dispose()
    with storage.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL
    assert optuna.load_study(study_name="wal", storage=open_storage(
        f"sqlite:///{path}")).study_name == "wal"


MOUNTS = """/dev/sda1 / ext4 rw,relatime 0 0
server:/export/home /home nfs4 rw,relatime 0 0
/dev/sdb1 /home/local ext4 rw 0 0
scratch@tcp:/fs /lus/scratch lustre rw 0 0
/dev/sdc1 /mnt/with\\040space xfs rw 0 0
"""


@pytest.mark.parametrize("folder, kind", [
    ("/home/u/studies", "nfs4"), ("/home", "nfs4"), ("/home/local/u", None),
    ("/homework", None), ("/lus/scratch/u", "lustre"), ("/tmp", None),
    ("/mnt/with space/u", None)])
def test_a_network_file_system_is_found_by_the_folders_mount(folder, kind):
    assert network_file_system(Path(folder), MOUNTS) == kind


def test_sqlite_on_a_network_file_system_keeps_its_journal(tmp_path, monkeypatch):
    """SQLite's write-ahead log needs shared memory between the processes, which a network
    file system does not give: a file there keeps SQLite's default journal (so does one
    opened with write_ahead=False); elsewhere the log is used."""
    import sqlite3

    import paretostab._optuna_internals as internals

    def journal(name, **options):
        path = tmp_path / f"{name}.db"
        optuna.create_study(storage=open_storage(f"sqlite:///{path}", **options),
                            study_name=name)
        with sqlite3.connect(path) as other:
            return other.execute("PRAGMA journal_mode").fetchone()[0]

    assert journal("local") == "wal"
    assert journal("asked", write_ahead=False) == "delete"
    monkeypatch.setattr(internals, "network_file_system", lambda folder: "nfs4")
    assert journal("shared") == "delete"
    assert journal("forced", write_ahead=True) == "wal"
