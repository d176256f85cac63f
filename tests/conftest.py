"""Shared fixtures: real servers on loopback (``tests/servers.py``).

``postgres_server`` is the URL of a PostgreSQL server: ``PARETOSTAB_TEST_POSTGRES`` when set
(``.ci/run`` starts one cluster for the whole run), else a throwaway cluster started here
from Debian's postgresql-15 binaries and stopped at the end of the session; the tests that
need it are skipped only where those binaries do not exist. ``postgres_url`` is a fresh
database on it for one test (``new_postgres_database`` makes more). ``s3_server`` is a moto S3-compatible server, with boto3's
environment (endpoint, fake credentials, region) set for the session and its subprocesses.
"""

from __future__ import annotations

import os
import tempfile
import uuid

import pytest
from hypothesis import settings
from threadpoolctl import threadpool_limits

from tests import servers
from tests.extras import need

#: One BLAS and OpenMP thread in each test process and in every process a test starts:
#: the suite runs as two pytest-xdist processes on two cores, and a pool of one thread a
#: core in each oversubscribes them, where OpenBLAS's idle threads spin (the RFE reference
#: test alone: 25 s of CPU with two threads for the 13 s it takes with one). The package's
#: own fits are single-threaded already (``selectors._base.single_threaded``); this is
#: the tests' oracles and the rest.
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"  # read by each library as a process loads it
threadpool_limits(limits=1)  # and for those loaded already (plugins load NumPy before this)
#: The processes a test starts write the bytecode of what they import (``__pycache__``,
#: which .gitignore leaves out), even where ``PYTHONDONTWRITEBYTECODE`` is set (as some CI
#: environments do): else every Python process a test starts (each ``tune`` and report,
#: and their workers) compiles the package again: about 0.1 s of CPU a process, within
#: this machine's noise (importing what a ``tune`` imports: 3.31–3.72 s without the
#: package's bytecode, 3.38–3.62 s with it, three alternated runs).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
#: No hypothesis deadline (200 ms an example by default): a duration is not a test's
#: assertion (speed is the benchmarks'), and on a busy machine, or where an example's first
#: call imports and compiles a module, a sound example takes longer.
settings.register_profile("paretostab", deadline=None)
settings.load_profile("paretostab")


@pytest.fixture(scope="session")
def postgres_server():
    url = os.environ.get(servers.POSTGRES_ENV)
    if url:
        yield url
        return
    if not servers.postgres_available():
        pytest.skip(servers.POSTGRES_MISSING)
    folder = tempfile.mkdtemp(prefix="paretostab-pg-")
    try:
        url = servers.start_postgres(folder)
    except BaseException:
        servers.stop_postgres(folder)
        raise
    try:
        yield url
    finally:
        servers.stop_postgres(folder)


@pytest.fixture
def new_postgres_database(postgres_server):
    """A function that creates a new, empty database on the server and returns its URL
    (the databases are dropped after the test)."""
    import sqlalchemy
    from sqlalchemy.engine import make_url
    from sqlalchemy.pool import NullPool

    admin = sqlalchemy.create_engine(postgres_server, isolation_level="AUTOCOMMIT",
                                     poolclass=NullPool)
    names: list[str] = []

    def create() -> str:
        names.append(f"test_{uuid.uuid4().hex[:12]}")
        with admin.connect() as connection:
            connection.execute(sqlalchemy.text(f'CREATE DATABASE "{names[-1]}"'))
        return make_url(postgres_server).set(database=names[-1]).render_as_string(
            hide_password=False)

    try:
        yield create
    finally:
        with admin.connect() as connection:
            for name in names:
                connection.execute(
                    sqlalchemy.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture
def postgres_url(new_postgres_database):
    """A new, empty database on the server for this test (dropped after it)."""
    return new_postgres_database()


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory):
    """The endpoint of a moto S3 server on 127.0.0.1; boto3 reaches it with fake
    credentials through the environment (this process's and its subprocesses')."""
    need("boto3")
    need("moto")
    process, endpoint = servers.start_s3()
    nowhere = tmp_path_factory.mktemp("aws") / "absent"  # no user's AWS config is read
    with pytest.MonkeyPatch.context() as patch:
        for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN"):
            patch.delenv(name, raising=False)
        patch.setenv("AWS_ENDPOINT_URL", endpoint)
        patch.setenv("AWS_ACCESS_KEY_ID", "testing")
        patch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
        patch.setenv("AWS_DEFAULT_REGION", "us-east-1")
        patch.setenv("AWS_CONFIG_FILE", str(nowhere))
        patch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(nowhere))
        try:
            yield endpoint
        finally:
            servers.stop_s3(process)


@pytest.fixture
def s3_bucket(s3_server):
    """A new bucket on the moto server: its name."""
    import boto3

    name = f"paretostab-{uuid.uuid4().hex[:12]}"
    boto3.client("s3").create_bucket(Bucket=name)
    return name


@pytest.fixture
def chdir_tmp(tmp_path, monkeypatch):
    """Run the test in its temporary folder (default storages and artifacts land there)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path

