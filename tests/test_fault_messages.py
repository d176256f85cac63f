"""The lines a database outage prints (issue 36, point 12), at the exact call that makes
them: the wait line names the error of the outage, not an older one the failing call was
handling; SQLAlchemy's pool errors, which carry no message, are said in words; the error
of a wait run out says how to resume in every process that gives up (a ``--workers``
worker prints it as its own error line); a hung S3 endpoint is said while it hangs."""

from __future__ import annotations

import http.server
import io
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import sqlalchemy.exc as sa

import paretostab._storage
from paretostab._errors import StoreError
from paretostab._faults import Retrying, one_line
from paretostab._storage import artifact_store
from tests.clock import FakeClock
from tests.extras import need
from tests.studies import write_spec

ROOT = Path(__file__).resolve().parents[1]


def raising(error_of):
    """A call that always fails with ``error_of()``'s error."""
    def call():
        raise error_of()
    return call


def wait_line(capsys, call, wait: float = 10) -> tuple[str, str]:
    """The wait line and the error of a wait run out, for a database ``call`` that fails."""
    clock = FakeClock()
    retry = Retrying("postgresql://u:***@db/x", wait, clock=clock, sleep=clock.sleep)
    with pytest.raises(StoreError) as given_up:
        retry(call)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1
    return lines[0], str(given_up.value)


def test_the_wait_line_names_the_outage_not_an_older_error_being_handled(capsys):
    psycopg = need("psycopg")

    def restart_during_a_lost_race():
        try:  # a slot lost to another process, as the server goes away
            raise psycopg.errors.UniqueViolation("duplicate key value violates unique")
        except psycopg.errors.UniqueViolation:
            try:
                raise psycopg.OperationalError("server closed the connection unexpectedly")
            except psycopg.OperationalError as driver:  # as SQLAlchemy raises it
                raise sa.OperationalError("INSERT …", {}, driver,
                                          connection_invalidated=True) from driver

    line, error = wait_line(capsys, restart_during_a_lost_race)
    assert "unreachable (OperationalError: server closed the connection unexpectedly)" in line
    assert "UniqueViolation" not in line + error


def test_a_pool_error_without_a_message_is_said_in_words(capsys):
    line, error = wait_line(capsys, raising(sa.InvalidatePoolError))
    said = ("InvalidatePoolError: the connections to the database were dropped after one was "
            "lost")
    assert f"unreachable ({said}); waiting up to 10 s" in line and "()" not in line
    assert said in error and "()" not in error
    assert one_line(sa.DisconnectionError()) == "DisconnectionError"


def test_the_error_of_a_wait_run_out_says_how_to_resume_in_every_process(capsys):
    psycopg = need("psycopg")
    _, error = wait_line(capsys, raising(lambda: psycopg.OperationalError("connection refused")))
    assert error.startswith("storage postgresql://u:***@db/x: unreachable for 10 s "
                            "(--storage-wait 10): OperationalError: connection refused. ")
    assert error.endswith("Completed trials are kept: once the database is back, run the "
                          "same command to resume.")


@pytest.mark.slow
def test_a_hung_s3_endpoint_is_said_while_it_hangs(tmp_path):
    """A real endpoint that takes the connection and never answers: ``tune`` says that
    it waits for it (before, nothing was printed for minutes)."""
    need("boto3")
    with socket.socket() as hung:
        hung.bind(("127.0.0.1", 0))
        hung.listen(8)  # connections complete in the backlog; nothing ever answers
        endpoint = f"http://127.0.0.1:{hung.getsockname()[1]}"
        spec = write_spec(tmp_path, "s3", trials=2)
        tune = subprocess.Popen(
            [sys.executable, "-m", "paretostab", "tune", str(spec), "--storage",
             f"sqlite:///{tmp_path / 's.db'}", "--artifacts", "s3://bucket/study"],
            cwd=tmp_path, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT), "AWS_ENDPOINT_URL": endpoint,
                 "AWS_ACCESS_KEY_ID": "key", "AWS_SECRET_ACCESS_KEY": "secret",
                 "AWS_DEFAULT_REGION": "us-east-1"})
        try:
            assert tune.stderr is not None
            line = tune.stderr.readline()  # blocks until tune says something
        finally:
            tune.kill()
            tune.wait(timeout=60)
    assert line == (f"artifacts s3://bucket/study: no answer from {endpoint} for 10 s; still "
                    "waiting (boto3's timeouts and retries; Ctrl-C stops).\n")


class HangingUploads(http.server.BaseHTTPRequestHandler):
    """An S3 endpoint that answers the start-up's check of the bucket at once and takes
    an upload without answering until its server's ``release`` is set."""

    protocol_version = "HTTP/1.1"

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_PUT(self) -> None:
        self.server.release.wait(120)  # type: ignore[attr-defined]
        self.send_response(200)
        for header, value in (("ETag", '"0"'), ("Content-Length", "0"), ("Connection", "close")):
            self.send_header(header, value)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.mark.slow
def test_a_hung_s3_upload_is_said_while_it_hangs(tmp_path, monkeypatch, capsys):
    """A trial's upload to an endpoint that takes it and does not answer: the start-up's
    line, said while the upload hangs (before, nothing was printed for as long as boto3's
    timeouts and retries lasted, minutes)."""
    pytest.importorskip("boto3")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), HangingUploads)
    server.release = threading.Event()  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    endpoint = f"http://127.0.0.1:{server.server_address[1]}"
    for name, value in {"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": "key",
                        "AWS_SECRET_ACCESS_KEY": "secret", "AWS_DEFAULT_REGION": "us-east-1",
                        "AWS_CONFIG_FILE": str(tmp_path / "none"),
                        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none")}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(paretostab._storage, "_S3_PATIENCE", 0.5)
    try:
        store = artifact_store(f"sqlite:///{tmp_path / 's.db'}", "s3://bucket/study")
        said = capsys.readouterr().err  # the check of the bucket answered at once
        upload = threading.Thread(target=store.write, args=("id", io.BytesIO(b"runs")))
        upload.start()
        deadline = time.monotonic() + 60
        while "no answer" not in said and time.monotonic() < deadline:
            time.sleep(0.1)
            said += capsys.readouterr().err
        server.release.set()  # type: ignore[attr-defined]
        upload.join(120)
    finally:
        server.release.set()  # type: ignore[attr-defined]
        server.shutdown()
    assert not upload.is_alive()
    assert said == (f"artifacts s3://bucket/study: no answer from {endpoint} for 0.5 s; still "
                    "waiting (boto3's timeouts and retries; Ctrl-C stops).\n")
