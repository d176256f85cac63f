"""Real servers for the tests, started and stopped on loopback: a throwaway PostgreSQL 15
cluster from Debian's server binaries and a local S3-compatible server (moto).

The tests' fixtures (``tests/conftest.py``) and ``.ci/run`` use the same functions; the
command line lets a shell start one PostgreSQL cluster for a whole test run::

    eval "$(python tests/servers.py postgres-start DIR)"   # exports PARETOSTAB_TEST_POSTGRES
    python tests/servers.py postgres-stop DIR

DIR is a new folder (its parents must let the ``postgres`` user through, as ``/tmp``
does); it holds the cluster's data, its private socket folder and its log.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

POSTGRES_BIN = Path("/usr/lib/postgresql/15/bin")
POSTGRES_MISSING = "no PostgreSQL server binaries (Debian postgresql-15)"
POSTGRES_ENV = "PARETOSTAB_TEST_POSTGRES"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def postgres_available() -> bool:
    return all((POSTGRES_BIN / name).is_file() for name in ("initdb", "pg_ctl", "postgres"))


def _as_postgres(command: list[str]) -> list[str]:
    """initdb and the server refuse to run as root: run them as the ``postgres`` user."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


def _own(path: Path) -> None:
    if os.geteuid() == 0:
        shutil.chown(path, "postgres", "postgres")


def start_postgres(folder: str | Path, *, timeout: float = 60) -> str:
    """Create and start a cluster in ``folder`` (trust authentication, listening on
    127.0.0.1 on a free port and on a private socket folder); its URL, for the superuser
    ``postgres`` and the database ``postgres``."""
    if not postgres_available():
        raise RuntimeError(POSTGRES_MISSING)
    folder = Path(folder).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    data, sockets = folder / "data", folder / "socket"
    sockets.mkdir(exist_ok=True)
    for path in (folder, sockets):
        _own(path)
    if subprocess.run(_as_postgres(["test", "-w", str(folder)])).returncode != 0:
        raise RuntimeError(f"the postgres user cannot write to {folder}: a folder above it "
                           "does not let it through (use a new folder in /tmp)")
    subprocess.run(_as_postgres([str(POSTGRES_BIN / "initdb"), "-D", str(data), "-U",
                                 "postgres", "-A", "trust", "-E", "UTF8", "--no-sync",
                                 "--no-instructions"]),
                   check=True, capture_output=True, text=True)
    for attempt in range(3):  # another program may take the free port first
        port = free_port()
        options = (f"-c listen_addresses=127.0.0.1 -p {port} -k {sockets} -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        started = subprocess.run(
            _as_postgres([str(POSTGRES_BIN / "pg_ctl"), "-D", str(data), "-l",
                          str(folder / "server.log"), "-o", options, "-w", "-t",
                          str(int(timeout)), "start"]),
            capture_output=True, text=True)
        if started.returncode == 0:
            break
        if attempt == 2:
            log = (folder / "server.log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"pg_ctl start failed: {started.stderr}\n{log}")
    url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
    (folder / "url").write_text(url + "\n", encoding="utf-8")
    (folder / "options").write_text(options, encoding="utf-8")
    return url


def pause_postgres(folder: str | Path) -> None:
    """Stop the cluster in ``folder`` as an administrator does (fast shutdown: every open
    session is ended), keeping its data (:func:`resume_postgres` starts it again)."""
    subprocess.run(_as_postgres([str(POSTGRES_BIN / "pg_ctl"), "-D",
                                 str(Path(folder).resolve() / "data"), "-m", "fast", "-w",
                                 "stop"]), check=True, capture_output=True, text=True)


def restart_postgres(folder: str | Path, *, down_seconds: float = 0.0) -> None:
    """Restart the cluster in ``folder`` (:func:`pause_postgres`, then
    :func:`resume_postgres`), down for ``down_seconds``."""
    pause_postgres(folder)
    time.sleep(down_seconds)
    resume_postgres(folder)


def resume_postgres(folder: str | Path, *, timeout: float = 60) -> None:
    """Start the cluster in ``folder`` again, on the port it had."""
    folder = Path(folder).resolve()
    data = str(folder / "data")
    subprocess.run(_as_postgres([str(POSTGRES_BIN / "pg_ctl"), "-D", data, "-l",
                                 str(folder / "server.log"), "-o",
                                 (folder / "options").read_text(encoding="utf-8"), "-w", "-t",
                                 str(int(timeout)), "start"]),
                   check=True, capture_output=True, text=True)


def stop_postgres(folder: str | Path) -> None:
    """Stop the cluster in ``folder`` (fast shutdown: open sessions are ended) and delete
    the folder."""
    folder = Path(folder).resolve()
    if (folder / "data" / "postmaster.pid").exists():
        subprocess.run(_as_postgres([str(POSTGRES_BIN / "pg_ctl"), "-D", str(folder / "data"),
                                     "-m", "fast", "-w", "stop"]),
                       check=False, capture_output=True, text=True)
    shutil.rmtree(folder, ignore_errors=True)


def start_s3(*, timeout: float = 60) -> tuple[subprocess.Popen, str]:
    """A moto S3-compatible server on 127.0.0.1 (``python -m moto.server``): the process
    and its endpoint URL, once it answers."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1",
                                "-p", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{endpoint}/moto-api/", timeout=2):
                return process, endpoint
        except OSError:
            if process.poll() is not None:
                raise RuntimeError("moto server exited: "
                                   + process.stderr.read().decode(errors="replace")) from None
            if time.monotonic() > deadline:
                stop_s3(process)
                raise RuntimeError(f"moto server did not answer on {endpoint} "
                                   f"within {timeout:g} s") from None
            time.sleep(0.2)


def stop_s3(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def main(argv: list[str]) -> int:
    usage = "usage: python tests/servers.py postgres-start DIR | postgres-stop DIR"
    if len(argv) != 2 or argv[0] not in ("postgres-start", "postgres-stop"):
        print(usage, file=sys.stderr)
        return 2
    command, folder = argv
    if command == "postgres-stop":
        stop_postgres(folder)
        return 0
    try:
        url = start_postgres(folder)
    except subprocess.CalledProcessError as exc:
        print(f"{' '.join(exc.cmd)} failed:\n{exc.stderr}", file=sys.stderr)
        return 1
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(f"export {POSTGRES_ENV}={url}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
