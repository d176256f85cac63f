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
  RDB storage (``_CachedStorage._backend``).

``pyproject.toml`` bounds Optuna below its next major version, and
``tests/test_optuna_internals.py`` exercises every function here on real SQLite (and,
when a server is available, PostgreSQL) storages: an Optuna release that changes one of
these interfaces fails those tests with a message naming it.
"""

from __future__ import annotations

from collections.abc import Iterable

import optuna

__all__ = ["grace_seconds", "heartbeat_enabled", "stale_trial_ids", "storage_of",
           "study_id_of", "trial_id_of", "trials_with_heartbeat"]


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
    return list(storage._get_stale_trial_ids(study_id))


def _rdb(storage: optuna.storages.BaseStorage) -> optuna.storages.RDBStorage:
    """The RDB storage itself, also when Optuna's cache wraps it."""
    return getattr(storage, "_backend", storage)


def grace_seconds(storage: optuna.storages.BaseStorage) -> int:
    """How long a running trial of ``storage`` (with heartbeats) may go without one:
    its grace period, by default twice its heartbeat interval (as Optuna reads it)."""
    rdb = _rdb(storage)
    return rdb.grace_period or 2 * rdb.heartbeat_interval


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
    with _create_scoped_session(_rdb(storage).scoped_session) as session:
        return {trial_id for (trial_id,) in session.query(
            models.TrialHeartbeatModel.trial_id).filter(
            models.TrialHeartbeatModel.trial_id.in_(trial_ids))}
