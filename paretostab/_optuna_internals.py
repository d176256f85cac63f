"""The private interfaces of Optuna that paretostab relies on, in one place.

Optuna 5 has no public way to reach what follows, and paretostab needs each of them; no
other module of the package touches an Optuna name that starts with an underscore:

- the storage and the id behind a study (``Study._storage``, ``Study._study_id``) and the
  storage id of a trial (``Trial._trial_id``, ``FrozenTrial._trial_id``): the dashboard's
  notes, the report's replicate cache (study system attributes), a trial's artifact
  address, failing another process's trial;
- whether a storage records heartbeats (``optuna.storages._heartbeat.is_heartbeat_enabled``)
  and which running trials have outlived their grace period
  (``BaseHeartbeat._get_stale_trial_ids``);
- which running trials have recorded a heartbeat at all: the RDB storage's heartbeat table
  (``optuna.storages._rdb.models.TrialHeartbeatModel``, read through
  ``optuna.storages._rdb.storage._create_scoped_session``), inside Optuna's cache of an
  RDB storage (``_CachedStorage._backend``);
- a trial's parameters, user and system attributes (its artifacts' records) and study
  system attributes (its dashboard note) written in one transaction of an RDB storage
  (``RDBStorage._set_trial_param_without_commit`` and ``_set_trial_attr_without_commit``,
  and ``models.StudyModel`` with ``models.StudySystemAttributeModel`` as
  ``RDBStorage.set_study_system_attr`` uses them, in one scoped session,
  :func:`one_transaction`): Optuna commits each ``suggest_*``, ``set_trial_user_attr``,
  ``set_trial_system_attr`` and ``set_study_system_attr`` on its own;
- an RDB storage whose calls wait out a database outage (:class:`RetryingRDBStorage`):
  Optuna's own trial loop calls its stale check (``_get_stale_trial_ids``) before every
  trial, and Optuna's cache of an RDB storage calls ``_create_new_trial``, ``_get_trials``,
  ``_set_trial_param`` and ``_get_best_trial_id``, so those private methods are retried
  too.
- the SQLAlchemy engine of an RDB storage (``RDBStorage.engine``, undocumented): a SQLite
  file is put in write-ahead-log mode through it.

``pyproject.toml`` bounds Optuna below its next major version, and
``tests/test_optuna_internals.py`` exercises every function here on real SQLite (and,
when a server is available, PostgreSQL) storages: an Optuna release that changes one of
these interfaces fails those tests with a message naming it.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

import optuna
from optuna.exceptions import UpdateFinishedTrialError

from paretostab._errors import StoreError
from paretostab._faults import Retrying
from paretostab._sqlite import network_file_system, write_ahead_log

if TYPE_CHECKING:
    from optuna.distributions import BaseDistribution
    from optuna.storages._heartbeat import BaseHeartbeat
    from optuna.trial import TrialState

__all__ = ["RETRIED_METHODS", "RetryingRDBStorage", "grace_seconds",
           "heartbeat_enabled", "one_transaction",
           "set_trial_user_attrs", "stale_trial_ids", "storage_of", "study_id_of",
           "trial_id_of", "trials_with_heartbeat"]


def storage_of(study: optuna.Study) -> optuna.storages.BaseStorage:
    """The storage a study lives in (``Study._storage``)."""
    return study._storage


def study_id_of(study: optuna.Study) -> int:
    """A study's id in its storage (``Study._study_id``)."""
    return study._study_id


def trial_id_of(trial: optuna.Trial | optuna.trial.FrozenTrial) -> int:
    """A running or finished trial's id in its storage (``_trial_id``), which the
    storage's per-trial methods take (not the trial's number)."""
    return trial._trial_id


def heartbeat_enabled(storage: optuna.storages.BaseStorage) -> bool:
    """Whether ``storage`` records heartbeats of running trials (an RDB storage opened
    with a heartbeat interval)."""
    from optuna.storages._heartbeat import is_heartbeat_enabled

    return is_heartbeat_enabled(storage)


def stale_trial_ids(storage: optuna.storages.BaseStorage, study_id: int) -> list[int]:
    """The ids of a study's running trials whose last heartbeat is older than the
    storage's grace period (``BaseHeartbeat._get_stale_trial_ids``); only for a storage
    with heartbeats."""
    heartbeat = cast("BaseHeartbeat", storage)  # with heartbeats: RDB, or Optuna's cache of it
    return list(heartbeat._get_stale_trial_ids(study_id))


def _rdb(storage: optuna.storages.BaseStorage) -> optuna.storages.BaseStorage:
    """The storage itself, or the (RDB) storage Optuna's cache wraps."""
    return getattr(storage, "_backend", storage)


def grace_seconds(storage: optuna.storages.BaseStorage) -> int:
    """How long a running trial of ``storage`` (with heartbeats) may go without one:
    its grace period, by default twice its heartbeat interval (as Optuna reads it)."""
    rdb = cast(optuna.storages.RDBStorage, _rdb(storage))  # with heartbeats: an RDB storage
    return rdb.grace_period or 2 * cast(int, rdb.heartbeat_interval)  # set: with heartbeats


def trials_with_heartbeat(storage: optuna.storages.BaseStorage,
                          trial_ids: Iterable[int]) -> set[int]:
    """Those of ``trial_ids`` that have recorded at least one heartbeat (a row in the RDB
    storage's heartbeat table). Optuna's own stale check passes over a running trial that
    never did: that of a process killed between creating the trial and its first
    heartbeat."""
    from optuna.storages._rdb import models
    from optuna.storages._rdb.storage import _create_scoped_session

    trial_ids = list(trial_ids)
    if not trial_ids:
        return set()
    rdb = cast(optuna.storages.RDBStorage, _rdb(storage))  # with heartbeats: an RDB storage

    def query() -> set[int]:
        with _create_scoped_session(rdb.scoped_session) as session:
            return {trial_id for (trial_id,) in session.query(
                models.TrialHeartbeatModel.trial_id).filter(
                models.TrialHeartbeatModel.trial_id.in_(trial_ids))}

    retry = getattr(rdb, "retry", None)
    return query() if retry is None else retry(query)


def set_trial_user_attrs(storage: optuna.storages.BaseStorage, trial_id: int,
                         attrs: Mapping[str, object]) -> None:
    """Write a running trial's user attributes ``attrs`` in one transaction of a
    :class:`RetryingRDBStorage` (:func:`one_transaction`: one commit, where
    ``set_trial_user_attr`` commits each), retried as one call; one call per attribute
    on any other storage."""
    with one_transaction(storage):
        for key, value in attrs.items():
            storage.set_trial_user_attr(trial_id, key, value)


@contextlib.contextmanager
def one_transaction(storage: optuna.storages.BaseStorage) -> Iterator[None]:
    """Commit the trial parameters, the trial user and system attributes and the study
    system attributes that this thread sets on ``storage`` during the block in one
    transaction at its end (a :class:`RetryingRDBStorage`, perhaps in Optuna's cache; any
    other storage writes each at once). Optuna commits each ``suggest_*``,
    ``set_user_attr`` and artifact upload on its own. Nothing is written when the block
    raises: what it set belongs to a trial that does not start, or is not recorded."""
    rdb = _rdb(storage)
    if not isinstance(rdb, RetryingRDBStorage) or getattr(rdb._queued, "writes",
                                                         None) is not None:
        yield
        return
    rdb._queued.writes = []
    try:
        yield
        writes = rdb._queued.writes
    finally:
        rdb._queued.writes = None
    if writes:
        rdb._commit(writes)


# What a process calls on a storage, through Optuna's study and trial or directly: every
# method of Optuna's BaseStorage and BaseHeartbeat that RDBStorage implements, the stale
# check Optuna's trial loop runs before each trial, and the private methods Optuna's cache
# of an RDB storage (_CachedStorage) calls in place of public ones.
RETRIED_METHODS = (
    "create_new_study", "delete_study", "set_study_user_attr", "set_study_system_attr",
    "get_study_id_from_name", "get_study_name_from_id", "get_study_directions",
    "get_study_user_attrs", "get_study_system_attrs", "get_all_studies", "create_new_trial",
    "set_trial_param", "get_trial_id_from_study_id_trial_number", "get_trial_number_from_id",
    "get_trial_param", "set_trial_state_values", "set_trial_intermediate_value",
    "set_trial_user_attr", "set_trial_system_attr", "get_trial", "get_all_trials",
    "get_n_trials", "get_best_trial", "get_trial_params", "get_trial_user_attrs",
    "get_trial_system_attrs", "record_heartbeat", "_get_stale_trial_ids", "_create_new_trial",
    "_get_best_trial_id", "_get_trials", "_set_trial_param")


class RetryingRDBStorage(optuna.storages.RDBStorage):
    """Optuna's RDB storage whose every call waits out a database outage (a server
    restart, a failover, a connection reset) with :class:`~paretostab._faults.Retrying`.

    A call is one transaction, rolled back when it fails, so trying it again is safe,
    with two exceptions where the failure hides a commit (the connection lost after the
    server committed, before it answered): finishing a trial again finds it finished —
    that is success when it is in the state asked for; creating a trial again leaves one
    trial that never starts, failed as stale after its grace period without counting.

    Parameters
    ----------
    url, **kwargs
        As for ``optuna.storages.RDBStorage``.
    retry : Retrying
        The outage policy: how long to wait, the database's name in messages.
    write_ahead : bool, optional
        For a SQLite file: write-ahead-log mode
        (:func:`~paretostab._sqlite.write_ahead_log`) or SQLite's default journal; by
        default the log, unless the file lies on a network file system
        (:func:`~paretostab._sqlite.network_file_system`), where the log's shared memory
        does not work.
    """

    def __init__(self, url: str, *, retry: Retrying, write_ahead: bool | None = None,
                 **kwargs) -> None:
        self.retry = retry
        self._queued = threading.local()
        super().__init__(url, **kwargs)
        database = self.engine.url.database
        if self.engine.dialect.name == "sqlite" and database not in (None, "", ":memory:"):
            if write_ahead is None:
                write_ahead = network_file_system(Path(database).resolve().parent) is None
            if write_ahead:
                write_ahead_log(self.engine)

    def set_trial_state_values(self, trial_id: int, state: TrialState,
                               values: Sequence[float] | None = None) -> bool:
        attempts = 0

        def finish() -> bool:
            nonlocal attempts
            attempts += 1
            try:
                return super(RetryingRDBStorage, self).set_trial_state_values(
                    trial_id, state, values)
            except UpdateFinishedTrialError:
                if attempts > 1 and super(RetryingRDBStorage, self).get_trial(
                        trial_id).state == state:
                    return True  # the attempt that lost its connection had committed
                raise

        return self.retry(finish)

    def _set_trial_param(self, trial_id: int, param_name: str, param_value_internal: float,
                         distribution: BaseDistribution,
                         previous_distribution: BaseDistribution | None) -> None:
        self._write(lambda session: self._set_trial_param_without_commit(
            session, trial_id, param_name, param_value_internal, distribution,
            previous_distribution))

    def set_trial_param(self, trial_id: int, param_name: str, param_value_internal: float,
                        distribution: BaseDistribution) -> None:
        self._set_trial_param(trial_id, param_name, param_value_internal, distribution, None)

    def set_trial_user_attr(self, trial_id: int, key: str, value: object) -> None:
        from optuna.storages._rdb import models

        self._write(lambda session: self._set_trial_attr_without_commit(
            session, models.TrialUserAttributeModel, trial_id, key, value))

    def set_trial_system_attr(self, trial_id: int, key: str, value: object) -> None:
        from optuna.storages._rdb import models

        self._write(lambda session: self._set_trial_attr_without_commit(
            session, models.TrialSystemAttributeModel, trial_id, key, value))

    def set_study_system_attr(self, study_id: int, key: str, value: object) -> None:
        self._write(lambda session: _set_study_system_attr_without_commit(
            session, study_id, key, value))

    def _write(self, write: Callable) -> None:
        """``write(session)`` in a transaction of its own, or queued for the one
        :func:`one_transaction` commits when it is open in this thread."""
        queue = getattr(self._queued, "writes", None)
        if queue is not None:
            queue.append(write)
            return
        self._commit([write])

    def _commit(self, writes: list[Callable]) -> None:
        from optuna.storages._rdb.storage import _create_scoped_session

        def commit() -> None:
            with _create_scoped_session(self.scoped_session, True) as session:
                for write in writes:
                    write(session)

        self.retry(commit)

    def record_heartbeat(self, trial_id: int) -> None:
        """Record a heartbeat, waiting out an outage as every call does; an outage longer
        than the wait is not the heartbeat thread's to report: it skips this beat, and the
        trial's own next call to the database stops tune with one ``error:`` line (a
        raise here would print a thread's traceback beside it)."""
        try:
            self.retry(super().record_heartbeat, trial_id)
        except StoreError:
            pass


def _set_study_system_attr_without_commit(session, study_id: int, key: str,
                                          value: object) -> None:
    """Optuna's ``RDBStorage.set_study_system_attr`` in ``session``, not committed."""
    from optuna.storages._rdb import models

    study = models.StudyModel.find_or_raise_by_id(study_id, session)
    attribute = models.StudySystemAttributeModel.find_by_study_and_key(study, key, session)
    if attribute is None:
        session.add(models.StudySystemAttributeModel(study_id=study_id, key=key,
                                                     value_json=json.dumps(value)))
    else:
        attribute.value_json = json.dumps(value)


def _retried(name: str):
    method = getattr(optuna.storages.RDBStorage, name)

    def call(self, *args, **kwargs):
        return self.retry(method, self, *args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = method.__doc__
    return call


for _name in RETRIED_METHODS:
    if hasattr(optuna.storages.RDBStorage, _name) and _name not in vars(RetryingRDBStorage):
        setattr(RetryingRDBStorage, _name, _retried(_name))
del _name
