"""Where studies live: Optuna storages from URLs, artifact stores, trial artifacts.

The edge between paretostab and Optuna's persistence (``tuning`` runs studies on it, the
report and ``choose`` read them back). Whatever cannot be opened — a mistyped URL, a
missing database driver, a storage that does not exist, a read-only folder, an S3 bucket
that cannot be reached — is an :class:`~paretostab.InvalidInputError` whose
message names the URL or path and what is wrong.

A storage URL may hold a password: whatever shows or writes one (the command line, the
reports, error messages) shows :func:`display_url` of it, the password masked; the URL
itself stays in the process that connects with it. Nothing read from a storage chooses a
local path: a RunSet artifact is read under a name made here (:func:`load_runset`).
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import importlib.util
import json
import os
import re
import sqlite3
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import unquote_plus, urlsplit

import optuna
from optuna.artifacts import FileSystemArtifactStore, get_all_artifact_meta
from optuna.artifacts.exceptions import ArtifactNotFound

from paretostab._errors import InvalidInputError, StoreError
from paretostab._faults import (
    DEFAULT_STORAGE_WAIT,
    Retrying,
    causes,
    environment_error,
    server_unavailable,
    transient_database_error,
)
from paretostab._optuna_internals import RetryingRDBStorage
from paretostab._runset import RunSet
from paretostab._validation import WAIT_SECONDS, Interval

__all__ = ["DEFAULT_SERVER_ARTIFACTS", "DEFAULT_STORAGE", "STORAGE_FORMS", "PrefixedArtifactStore",
           "artifact_notice", "artifact_store", "check_heartbeat", "default_artifact_dir",
           "display_url", "load_runset", "open_storage"]

#: Seconds between heartbeats, or without one before a trial is stale.
HEARTBEAT = Interval("integer", 1, why=" (seconds)")

DEFAULT_STORAGE = "sqlite:///paretostab.db"
DEFAULT_SERVER_ARTIFACTS = "paretostab-artifacts"
STORAGE_FORMS = ("sqlite:///FILE, postgresql://user@host/db, mysql://user@host/db "
                 "or journal:PATH")

# SQLAlchemy driver name → (module it imports, what to pip install for it).
_DRIVERS = {
    "psycopg": ("psycopg", "'paretostab[postgres]'"),
    "psycopg2": ("psycopg2", "psycopg2-binary"),
    "pg8000": ("pg8000", "pg8000"),
    "mysqldb": ("MySQLdb", "mysqlclient"),
    "pymysql": ("pymysql", "PyMySQL"),
    "mysqlconnector": ("mysql.connector", "mysql-connector-python"),
}
_BACKEND_DRIVERS = {"postgresql": ("psycopg", "psycopg2", "pg8000"),
                    "mysql": ("mysqldb", "pymysql", "mysqlconnector")}
# pg_advisory_lock key (any bigint; advisory locks are per database) that serialises the
# creation of Optuna's schema by processes opening one database together.
_SCHEMA_LOCK = 0x7061726574  # "paret"
# A URL's scheme and its "://" (no ":", "/", "?", "#" or "@" before it).
_SCHEME = re.compile(r"[^:/?#@]*://")
# A query parameter (key=value), its key as written.
_PARAMETER = re.compile(r"(?P<key>(?<=[?&])[^&=]+)=(?P<value>[^&]*)")
_SECRET_PARAMETERS = {"password", "passwd", "pwd"}
#: Seconds without an answer from an S3 endpoint before a line says that it is waited for
_S3_PATIENCE = 10.0
# An artifact id as Optuna makes them (a UUID): a safe local file name, and a key that
# stays inside its artifact store.
_ARTIFACT_ID = re.compile(r"[A-Za-z0-9_-]+")


def display_url(url: str) -> str:
    """The storage URL ``url`` as it may be shown or written: its password masked
    (``postgresql://u:***@host/db``), and the value of a ``password``, ``passwd`` or
    ``pwd`` query parameter too; anything else unchanged.

    Read from the text, so that it works for any string, URLs SQLAlchemy cannot parse
    included: in ``scheme://user:password@host…`` (or a string without ``://``, such as
    a mistyped ``postgresql:/…``) the password is everything from the first ``:`` to the
    last ``@`` — what SQLAlchemy would take for it, and the rest of a password holding a
    bare ``@``. Without an authority (``sqlite:///FILE``, ``postgresql:///db?host=…``)
    and for ``journal:PATH`` nothing but a secret query parameter is masked. Masking a
    masked URL changes nothing.

    Examples
    --------
    >>> display_url("postgresql://u:p%40ss@db.example:5432/studies?sslmode=require")
    'postgresql://u:***@db.example:5432/studies?sslmode=require'
    >>> display_url("postgresql:///studies?host=/run/pg&password=pw")
    'postgresql:///studies?host=/run/pg&password=***'
    >>> display_url("sqlite:///studies/paretostab.db")
    'sqlite:///studies/paretostab.db'
    """
    if url.startswith("journal:"):
        return url
    found = _SCHEME.match(url)
    head, rest = ("", url) if found is None else (found[0], url[found.end():])
    if not rest.startswith("/"):  # an authority: [user[:password]@]host…
        at = rest.rfind("@")
        colon = rest.find(":", 0, max(at, 0))
        if 0 <= colon < at - 1:
            head, rest = head + rest[:colon + 1] + "***", rest[at:]  # no "@" left in rest
    return head + _PARAMETER.sub(
        lambda p: (f"{p['key']}=***" if unquote_plus(p["key"]).lower() in _SECRET_PARAMETERS
                   else p[0]), rest)


def _journal_path(url: str) -> Path:
    return _storage_file(url, "journal:", "a journal storage is journal:PATH (the journal "
                                          "file's path)")


def _storage_file(url: str, prefix: str, form: str) -> Path:
    """The file of a SQLite (``prefix`` ``"sqlite:///"``) or journal (``"journal:"``) URL,
    refused in one line when the URL names no file (``journal:``, ``sqlite:///``,
    ``journal:/``): checked before anything is derived from it, such as the artifact
    folder beside it, which a path without a file name has not (a traceback)."""
    path = Path(url.removeprefix(prefix))
    if not path.name:
        raise InvalidInputError(f"storage {display_url(url)!r} names no file: {form}.")
    return path


def _sqlite_path(url: str) -> Path:
    return _storage_file(url, "sqlite:///", "a SQLite storage is sqlite:///FILE (the "
                                            "database file's path)")


def _parse_rdb_url(url: str):
    """The SQLAlchemy URL of an RDB storage, its dialect known and its driver importable."""
    from sqlalchemy import exc
    from sqlalchemy.engine import make_url

    try:
        parsed = make_url(url)
    except exc.ArgumentError:
        raise InvalidInputError(
            f"storage {display_url(url)!r} is not a storage URL; use {STORAGE_FORMS}.") from None
    if parsed.host and "@" in parsed.host:  # SQLAlchemy ends the password at its first "@"
        raise InvalidInputError(
            f"storage {display_url(url)}: an '@' in the password must be written %40.")
    try:
        dialect = parsed.get_dialect()
    except exc.NoSuchModuleError:
        backend = parsed.get_backend_name()
        close = difflib.get_close_matches(backend, ["sqlite", "postgresql", "mysql", "journal"],
                                          n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise InvalidInputError(
            f"storage {display_url(url)!r}: unknown database kind {backend!r}{hint}; use "
            f"{STORAGE_FORMS}.") from None
    try:
        dialect.import_dbapi()
    except ImportError:
        raise InvalidInputError(_missing_driver(url, parsed)) from None
    return parsed


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:  # its parent package is missing
        return False


def _missing_driver(url: str, parsed) -> str:
    backend, driver = parsed.get_backend_name(), parsed.get_driver_name()
    install = f"pip install {_DRIVERS.get(driver, (driver, driver))[1]}"
    others = [d for d in _BACKEND_DRIVERS.get(backend, ()) if d != driver]
    installed = [d for d in others if _importable(_DRIVERS[d][0])]
    if installed:
        other = f"name the installed driver in the URL ({backend}+{installed[0]}://…)"
    elif backend == "postgresql" and driver != "psycopg":
        other = "use plain postgresql://… after pip install 'paretostab[postgres]'"
    elif others:
        other = f"name another installed driver in the URL (e.g. {backend}+{others[0]}://…)"
    else:
        other = "name another installed driver in the URL"
    return (f"storage {display_url(url)}: its database driver "
            f"{driver!r} is not installed. Install it ({install}) or {other}.")


def _unwritable(path: Path, *, folder: bool = False) -> str | None:
    """Why the file (or ``folder``) ``path`` cannot be created or written, or None when it
    can. A SQLite or journal file needs its folder writable too (SQLite's rollback journal,
    the journal's lock file)."""
    kind, other = ("folder", "file") if folder else ("file", "folder")
    if path.exists() and path.is_dir() != folder:
        return f"it is a {other}, not a {kind}"
    if path.exists() and not os.access(path, os.W_OK | (os.X_OK if folder else 0)):
        return f"the {kind} is read-only"
    if folder and path.exists():
        return None
    parent = path.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        return f"cannot create it: {parent} is a file, not a folder"
    if not folder and parent != path.parent:  # a storage's folder is not created for it
        return f"cannot create it: the folder {path.parent} does not exist"
    if not os.access(parent, os.W_OK | os.X_OK):
        verb = "write" if path.exists() else "create"
        return f"cannot {verb} it: the folder {parent} is read-only"
    return None


def _sentence(text: object) -> str:
    """``text`` on one line, ending with a full stop."""
    text = " ".join(str(text).split())
    return text if text.endswith((".", "?", "!")) else text + "."


def _missing_storage(path: Path) -> InvalidInputError:
    return InvalidInputError(f"no study storage at {path}; run tune first or pass --storage.")


def _holds_no_study(path: Path) -> str | None:
    """Why the SQLite file ``path`` can hold no study (it is empty, has no Optuna tables or
    is no SQLite database), else None. Read without writing: a report given a wrong file
    must not create Optuna's schema in it."""
    try:
        with contextlib.closing(sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro",
                                                uri=True)) as connection:
            tables = connection.execute("SELECT count(*) FROM sqlite_master WHERE type = "
                                        "'table' AND name = 'studies'").fetchone()[0]
    except sqlite3.OperationalError:  # locked, unreadable: for the storage's own errors
        return None
    except sqlite3.DatabaseError:
        return "it is not a SQLite database"
    return None if tables else "it has no Optuna tables"


def _journal_storage(url: str, must_exist: bool) -> optuna.storages.BaseStorage:
    from optuna.storages.journal import JournalFileBackend

    path = _journal_path(url)
    if must_exist and not path.is_file():
        raise _missing_storage(path)
    problem = _unwritable(path)
    if problem:
        raise InvalidInputError(f"journal storage {path}: {problem}.")
    if _not_a_journal(path):
        raise InvalidInputError(
            f"journal storage {path}: it is not an Optuna journal file (its first line is "
            "not one of Optuna's JSON records); name a new file or the journal tune wrote.")
    try:
        return optuna.storages.JournalStorage(JournalFileBackend(str(path)))
    except OSError as exc:
        raise InvalidInputError(f"journal storage {path}: {_sentence(exc)}") from None


def _not_a_journal(path: Path) -> bool:
    """Whether ``path`` is a file with content that is not an Optuna journal, whose first
    line is a JSON record with an ``op_code``. Optuna ignores a last line it cannot read (a
    write cut short), so another file of one line opened as a journal, then appended to:
    the next read raised ``JSONDecodeError`` with a traceback, the file changed."""
    try:
        with path.open("rb") as file:
            first = file.readline()
    except OSError:  # missing (a new journal) or unreadable: the storage's own error
        return False
    try:
        record = json.loads(first) if first else {"op_code": None}
    except ValueError:
        return True
    return not (isinstance(record, dict) and "op_code" in record)


def check_heartbeat(heartbeat_interval: int | None, grace_period: int | None) -> None:
    """Check a heartbeat interval and grace period (seconds; None: the storage's default)
    as :func:`open_storage` takes them: whole seconds from 1, and a grace period no
    shorter than the interval (a live trial would go stale between two heartbeats).

    Raises
    ------
    InvalidInputError
        Naming the value and what was expected.
    """
    for name, value in (("heartbeat_interval", heartbeat_interval),
                        ("grace_period", grace_period)):
        if value is not None:
            HEARTBEAT.check(name, value)
    if (heartbeat_interval is not None and grace_period is not None
            and grace_period < heartbeat_interval):
        raise InvalidInputError(
            f"grace_period must be at least heartbeat_interval ({heartbeat_interval} s): a "
            f"running trial would go stale between two heartbeats; got {grace_period} s.")


def open_storage(url: str, *, must_exist: bool = False, heartbeat_interval: int | None = None,
                 grace_period: int | None = None,
                 storage_wait: float = DEFAULT_STORAGE_WAIT,
                 wait_to_open: bool = False,
                 write_ahead: bool | None = None) -> optuna.storages.BaseStorage:
    """An Optuna storage from a URL: any RDB URL SQLAlchemy and Optuna accept
    (``sqlite:///file.db``, ``postgresql://user@host/db``, ``mysql://…``) or
    ``journal:PATH`` for a journal file (the multi-process-safe local choice).

    ``must_exist``: the storage is only read or added to (report, choose, dashboard): a
    SQLite or journal file that does not exist is an error, and is not created; so is a
    SQLite file without Optuna's tables (an empty file), which is left as it was. A SQLite
    or journal file, and its folder, must be writable (the report too keeps its replicates
    in the study).

    ``heartbeat_interval`` and ``grace_period`` (seconds) go to Optuna's RDB storage: a
    running trial records a heartbeat every ``heartbeat_interval``; one silent for
    ``grace_period`` (default: twice the interval; at least the interval) is stale.
    Optuna's journal storage has no heartbeat: for ``journal:`` URLs both are accepted
    and ignored.

    Processes opening one fresh PostgreSQL database or SQLite file together create
    Optuna's schema one after the other (a PostgreSQL advisory lock, a lock on the SQLite
    file's folder, held while the storage is made), so that all of them succeed. A SQLite
    file this call created is removed again when the storage cannot be made in it.

    An RDB storage, once open, waits out a database outage for ``storage_wait`` seconds
    (:class:`~paretostab._optuna_internals.RetryingRDBStorage`): every call is tried again
    with backoff, and only then fails with a :class:`~paretostab._errors.StoreError`. A
    server's pooled connections are checked before use, so that those a restart closed
    are replaced. Opening it waits only for a server that answers it cannot serve now
    (shutting down, starting up), or with ``wait_to_open`` for any transient error (a
    process opening a storage another process has just opened: a ``tune`` worker); a
    server that does not answer at all is an error at once (a mistyped host or port).

    A SQLite file is put in write-ahead-log mode (``write_ahead``; by default unless it
    lies on a network file system, where the log does not work:
    :class:`~paretostab._optuna_internals.RetryingRDBStorage`).
    """
    WAIT_SECONDS.check("storage_wait", storage_wait)
    check_heartbeat(heartbeat_interval, grace_period)
    if url.startswith("journal:"):
        return _journal_storage(url, must_exist)
    parsed = _parse_rdb_url(url)
    backend = parsed.get_backend_name()
    kwargs: dict = {}
    if backend == "sqlite":
        kwargs = {"connect_args": {"timeout": 60}}
        if url.startswith("sqlite:///"):
            _sqlite_path(url)  # names a file (sqlite:/// would be a database in memory)
        if parsed.database and parsed.database != ":memory:":
            path = Path(parsed.database)
            if must_exist and not path.is_file():
                raise _missing_storage(path)
            empty = must_exist and _holds_no_study(path)
            if empty:
                raise InvalidInputError(f"SQLite storage {path} holds no study ({empty}); "
                                        "run tune into it first or pass --storage.")
            problem = _unwritable(path)
            if problem:
                raise InvalidInputError(f"SQLite storage {path}: {problem}.")
    else:
        kwargs = {"pool_pre_ping": True}  # a restarted server closed the pooled connections
    return _rdb_storage(url, parsed, kwargs, (heartbeat_interval, grace_period, write_ahead),
                        Retrying(display_url(url), storage_wait), wait_to_open)


@contextlib.contextmanager
def _postgres_lock(url: str, engine_kwargs: dict):
    """Hold a PostgreSQL advisory lock, on a connection of its own, for the block."""
    import sqlalchemy
    from sqlalchemy.pool import NullPool

    engine = sqlalchemy.create_engine(url, poolclass=NullPool, **engine_kwargs)
    try:
        with engine.connect() as connection:
            connection = connection.execution_options(isolation_level="AUTOCOMMIT")
            key = {"key": _SCHEMA_LOCK}
            connection.execute(sqlalchemy.text("SELECT pg_advisory_lock(:key)"), key)
            try:
                yield
            finally:
                connection.execute(sqlalchemy.text("SELECT pg_advisory_unlock(:key)"), key)
    finally:
        engine.dispose()


@contextlib.contextmanager
def _folder_lock(folder: Path):
    """Hold flock() on a SQLite file's folder for the block. Not on the file itself: SQLite
    holds fcntl() locks on it, which closing another descriptor of the file would drop.
    Where flock is unavailable (no fcntl module, some network file systems) nothing is
    locked."""
    try:
        import fcntl

        descriptor = os.open(folder, os.O_RDONLY)
    except (ImportError, OSError):
        yield
        return
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        except OSError:
            pass
        yield
    finally:
        os.close(descriptor)  # releases the lock


def _rdb_storage(url: str, parsed, engine_kwargs: dict,
                 options: tuple[int | None, int | None, bool | None], retry: Retrying,
                 wait_to_open: bool) -> RetryingRDBStorage:
    """Optuna's RDBStorage (retrying its calls through ``retry``; ``options``: its
    heartbeat interval, grace period and write-ahead choice), made under a lock that
    serialises the creation of its schema (``metadata.create_all``, then its version
    rows) by processes opening one fresh database together: without it all but one of
    them may fail (``CREATE TYPE studydirection``, ``table … already exists``). A SQLite
    file made here is removed if the storage cannot be made (a full disk). With
    ``wait_to_open``, a database that cannot be reached is waited for as ``retry`` says."""
    from sqlalchemy import exc

    heartbeat_interval, grace_period, write_ahead = options
    backend = parsed.get_backend_name()
    created = None
    lock: Callable[[], contextlib.AbstractContextManager[object]]
    if backend == "postgresql":
        lock = functools.partial(_postgres_lock, url, engine_kwargs)
    elif backend == "sqlite" and parsed.database and parsed.database != ":memory:":
        lock = functools.partial(_folder_lock, Path(parsed.database).parent)
        created = None if Path(parsed.database).exists() else Path(parsed.database)
    else:
        lock = contextlib.nullcontext

    def make() -> RetryingRDBStorage:
        with lock(), warnings.catch_warnings():
            # Optuna 5 calls heartbeat_interval experimental
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            return RetryingRDBStorage(url, retry=retry, engine_kwargs=engine_kwargs,
                                      heartbeat_interval=heartbeat_interval,
                                      grace_period=grace_period, write_ahead=write_ahead)

    # a server that answers it cannot serve now (a restart) is waited for; one that does
    # not answer at all is a wrong address, unless another process has just reached it
    opening = Retrying(retry.name, retry.wait, transient=(
        transient_database_error if wait_to_open else server_unavailable))
    try:
        return opening(make)
    except (exc.SQLAlchemyError, optuna.exceptions.StorageInternalError, StoreError) as error:
        if created is not None:  # with the write-ahead log's files, if it got that far
            for path in (created, *(created.with_name(created.name + end)
                                    for end in ("-wal", "-shm"))):
                with contextlib.suppress(OSError):
                    path.unlink()
        if isinstance(error, StoreError) and transient_database_error(error):
            raise  # waited for it, in vain: the message says how long
        *_, cause = causes(error)  # the driver's own error
        kind = StoreError if environment_error(error) else InvalidInputError
        raise kind(f"cannot open storage {display_url(url)}: "
                   f"{_sentence(cause)}") from None


def default_artifact_dir(url: str) -> Path:
    """Where a storage keeps its artifacts: ``<file>-artifacts`` beside a SQLite or journal
    file, ``paretostab-artifacts`` in the working folder for a database server."""
    if url.startswith("sqlite:///"):
        path = _sqlite_path(url)
    elif url.startswith("journal:"):
        path = _journal_path(url)
    else:
        return Path(DEFAULT_SERVER_ARTIFACTS)
    return path.with_name(f"{path.stem}-artifacts")


def artifact_notice(url: str, directory: str | Path | None) -> str | None:
    """What ``tune`` tells before it starts when the storage is a database server (many
    machines may share it) and no artifact store is given: which folder is used, and that
    the other machines need the same store. None for a SQLite or journal file, or when the
    store is given."""
    from sqlalchemy import exc
    from sqlalchemy.engine import make_url

    if directory is not None or url.startswith("journal:"):
        return None
    try:
        parsed = make_url(url)
        parsed.get_dialect()
    except exc.ArgumentError:  # not a storage URL: opening it says so
        return None
    if parsed.get_backend_name() == "sqlite":
        return None
    folder = default_artifact_dir(url).resolve()
    return (f"artifacts: {folder} (the default for a database server). Processes on other "
            "machines write their own store unless they share this one: give every tune, "
            "report and choose the same --artifacts (a shared folder or s3://bucket/prefix).")


@contextlib.contextmanager
def _said_while_silent(location: str, endpoint: str) -> Iterator[None]:
    """Say once on stderr, if the block has not ended after ``_S3_PATIENCE`` seconds,
    that the S3 endpoint is not answering and is still waited for: a hung endpoint is said
    while it hangs, at start-up and during a trial's upload alike (before, a hung upload
    printed nothing for as long as boto3's timeouts and retries lasted)."""
    silence = threading.Timer(_S3_PATIENCE, lambda: print(
        f"artifacts {location}: no answer from {endpoint} for {_S3_PATIENCE:g} s; still "
        "waiting (boto3's timeouts and retries; Ctrl-C stops).", file=sys.stderr,
        flush=True))
    silence.daemon = True
    silence.start()
    try:
        yield
    finally:
        silence.cancel()


class PrefixedArtifactStore:
    """An Optuna artifact store whose objects are kept under ``prefix/`` in another store
    (Optuna's Boto3ArtifactStore writes to a bucket's top level). With ``location`` and
    ``endpoint`` (an S3 store's), a read or write the endpoint does not answer for
    ``_S3_PATIENCE`` seconds is said on stderr while it hangs."""

    def __init__(self, store, prefix: str, *, location: str | None = None,
                 endpoint: str | None = None) -> None:
        self.store, self.prefix = store, prefix.strip("/")
        self.location, self.endpoint = location, endpoint

    def _key(self, artifact_id: str) -> str:
        return f"{self.prefix}/{artifact_id}" if self.prefix else artifact_id

    def _waited(self):
        if self.location is None or self.endpoint is None:
            return contextlib.nullcontext()
        return _said_while_silent(self.location, self.endpoint)

    def open_reader(self, artifact_id: str):
        with self._waited():
            return self.store.open_reader(self._key(artifact_id))

    def write(self, artifact_id: str, content_body) -> None:
        with self._waited():
            self.store.write(self._key(artifact_id), content_body)

    def remove(self, artifact_id: str) -> None:
        self.store.remove(self._key(artifact_id))


def _s3_store(location: str) -> PrefixedArtifactStore:
    parts = urlsplit(location)
    if not parts.netloc:
        raise InvalidInputError(f"artifacts {location!r}: an S3 store is s3://bucket/prefix.")
    try:
        import boto3
        from botocore.exceptions import BotoCoreError, ClientError
    except ImportError:
        raise InvalidInputError(f"artifacts {location}: an S3 store needs boto3: "
                                "pip install 'paretostab[s3]'.") from None
    from optuna.artifacts import Boto3ArtifactStore

    client = boto3.client("s3")
    endpoint = client.meta.endpoint_url
    try:  # one clear line now rather than a failed upload in every trial
        with _said_while_silent(location, endpoint):
            client.head_bucket(Bucket=parts.netloc)
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "")
        reason = (f"the bucket {parts.netloc!r} does not exist." if code in ("404", "NoSuchBucket")
                  else _sentence(exc))
        raise InvalidInputError(f"artifacts {location}: {reason}") from None
    except BotoCoreError as exc:
        raise InvalidInputError(
            f"artifacts {location}: cannot reach the bucket (boto3 takes the credentials, "
            f"region and AWS_ENDPOINT_URL from the environment): {_sentence(exc)}") from None
    return PrefixedArtifactStore(Boto3ArtifactStore(parts.netloc, client=client), parts.path,
                                 location=location, endpoint=endpoint)


def artifact_store(url: str, directory: str | Path | None = None, *, create: bool = True,
                   must_exist: bool = False):
    """The artifact store of the storage ``url``: ``directory`` when given — a folder (a
    folder shared by every machine serves many machines) or ``s3://bucket/prefix`` (Optuna's
    Boto3ArtifactStore, configured by boto3's environment: credentials, region,
    ``AWS_ENDPOINT_URL`` for an S3-compatible server) — else :func:`default_artifact_dir`.
    The folder must be writable, and is created unless ``create`` is False (a check before
    the storage is opened, so that a wrong storage leaves no folder behind). With
    ``must_exist`` (a study's store read back: report, choose, dashboard) a folder that
    does not exist is an error, and is not created."""
    if directory is not None and str(directory).startswith("s3://"):
        return _s3_store(str(directory))
    folder = Path(directory) if directory is not None else default_artifact_dir(url)
    if must_exist and not folder.is_dir():
        given = "" if directory is not None else " (the default for this storage)"
        raise InvalidInputError(
            f"artifact folder {folder}{given} does not exist: give the --artifacts the study "
            "was tuned with.")
    problem = _unwritable(folder, folder=True)
    if problem is None and create:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            problem = _sentence(exc).rstrip(".")
    if problem:
        raise InvalidInputError(f"artifact folder {folder}: {problem}.")
    return FileSystemArtifactStore(str(folder))


def load_runset(trial: optuna.trial.FrozenTrial, *, storage, store) -> RunSet:
    """The RunSet uploaded by ``trial`` (see
    :class:`~paretostab._tuning.objective.TrialObjective`).

    Whoever can write to a shared storage can write the artifact's recorded file name and
    id: the name only tells the RunSet (``.npz``) apart, and is never a path; the id must
    be one Optuna makes (letters, digits, ``-`` and ``_``), which names the temporary copy
    and cannot leave the artifact store."""
    from optuna.artifacts import download_artifact

    metas = [m for m in get_all_artifact_meta(trial, storage=storage)
             if isinstance(m.filename, str) and m.filename.endswith(".npz")]
    if not metas:
        raise InvalidInputError(f"Trial {trial.number} has no RunSet artifact.")
    artifact_id = metas[-1].artifact_id
    if not (isinstance(artifact_id, str) and _ARTIFACT_ID.fullmatch(artifact_id)):
        raise InvalidInputError(
            f"Trial {trial.number}'s RunSet artifact has the id {artifact_id!r}, not one "
            "Optuna makes (letters, digits, '-' and '_'): the storage was changed by hand.")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{artifact_id}.npz"
        try:
            download_artifact(artifact_store=store, file_path=str(path),
                              artifact_id=artifact_id)
        except ArtifactNotFound:
            raise InvalidInputError(
                f"Trial {trial.number}'s RunSet (artifact {artifact_id}) is not in the "
                "artifact store: give the --artifacts the study was tuned with.") from None
        return RunSet.load(path)
