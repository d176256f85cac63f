"""Where studies live: Optuna storages from URLs, artifact stores, trial artifacts.

The edge between paretostab and Optuna's persistence (``tuning`` runs studies on it, the
report and ``choose`` read them back).
"""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

import optuna
from optuna.artifacts import FileSystemArtifactStore, get_all_artifact_meta

from paretostab.errors import InvalidInputError
from paretostab.protocol import RunSet

DEFAULT_STORAGE = "sqlite:///paretostab.db"


def open_storage(url: str, *, heartbeat_interval: int | None = None,
                 grace_period: int | None = None) -> optuna.storages.BaseStorage:
    """An Optuna storage from a URL: any RDB URL Optuna accepts (``sqlite:///file.db``,
    ``postgresql://…``, ``mysql://…``) or ``journal:PATH`` for a journal file (the
    multi-process-safe local choice).

    An RDB storage records a heartbeat of each running trial every
    ``heartbeat_interval`` seconds, and a trial without one for ``grace_period`` seconds
    is stale (see :func:`paretostab.coordination.fail_stale_trials`). Optuna 5's journal
    storage has no heartbeats: there both are ignored."""
    if url.startswith("journal:"):
        path = url.removeprefix("journal:")
        from optuna.storages.journal import JournalFileBackend

        return optuna.storages.JournalStorage(JournalFileBackend(path))
    if "://" not in url:
        raise InvalidInputError(
            f"storage must be an Optuna RDB URL (e.g. 'sqlite:///study.db', "
            f"'postgresql://user@host/db') or 'journal:PATH'; got {url!r}."
        )
    kwargs = {"connect_args": {"timeout": 60}} if url.startswith("sqlite") else {}
    with warnings.catch_warnings():  # the heartbeat is experimental in Optuna 5
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        return optuna.storages.RDBStorage(url, engine_kwargs=kwargs,
                                          heartbeat_interval=heartbeat_interval,
                                          grace_period=grace_period)


def default_artifact_dir(url: str) -> Path:
    """Where a storage keeps its artifacts: ``<file>-artifacts`` beside a SQLite or journal
    file, ``paretostab-artifacts`` in the working folder for a database server."""
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
    elif url.startswith("journal:"):
        path = Path(url.removeprefix("journal:"))
    else:
        return Path("paretostab-artifacts")
    return path.with_name(f"{path.stem}-artifacts")


def artifact_store(url: str, directory: str | Path | None = None) -> FileSystemArtifactStore:
    folder = Path(directory) if directory is not None else default_artifact_dir(url)
    folder.mkdir(parents=True, exist_ok=True)
    return FileSystemArtifactStore(str(folder))


def load_runset(trial: optuna.trial.FrozenTrial, *, storage, store) -> RunSet:
    """The RunSet uploaded by ``trial`` (see :func:`make_objective`)."""
    from optuna.artifacts import download_artifact

    metas = [m for m in get_all_artifact_meta(trial, storage=storage)
             if m.filename.endswith(".npz")]
    if not metas:
        raise InvalidInputError(f"Trial {trial.number} has no RunSet artifact.")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / metas[-1].filename
        download_artifact(artifact_store=store, file_path=str(path),
                          artifact_id=metas[-1].artifact_id)
        return RunSet.load(path)
