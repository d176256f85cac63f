"""Storages and artifact stores: URLs, drivers, missing and unwritable paths, many processes
on one fresh database, PostgreSQL and an S3-compatible server for real (tests/servers.py)."""

from __future__ import annotations

import functools
import io
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import optuna
import pytest
from optuna.artifacts import get_all_artifact_meta
from optuna.trial import TrialState

from paretostab._cli import main
from paretostab._errors import Interrupted, InvalidInputError
from paretostab._optuna_internals import heartbeat_enabled
from paretostab._storage import artifact_notice, artifact_store, open_storage
from tests.command_line import cli
from tests.studies import write_spec
from tests.waiting import WAIT_SECONDS, wait_until

ROOT = Path(__file__).resolve().parents[1]
AS_ROOT = "running as root: permission bits do not stop root's writes"


def assert_one_error_line(result, *fragments):
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


def cli_error(capsys, *args) -> str:
    """Run the CLI in this process: it must exit 2 with one ``error:`` line; that line."""
    with pytest.raises(SystemExit) as stop:
        main(list(map(str, args)))
    assert stop.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    return lines[0]


# URLs and drivers


@pytest.mark.slow
@pytest.mark.parametrize("command", [["report"], ["choose", "--gamma", "0.5"]])
def test_a_mistyped_storage_url_is_one_error_line_naming_the_accepted_forms(tmp_path, command):
    result = cli(*command, "--storage", "sqlit:///x.db", cwd=tmp_path)
    assert_one_error_line(result, "'sqlit'", "did you mean 'sqlite'?", "sqlite:///FILE",
                          "postgresql://user@host/db", "journal:PATH")
    assert "Traceback" not in result.stderr and not (tmp_path / "x.db").exists()


@pytest.mark.parametrize("url", ["nonsense", "postgres://u@h/db", "journal:"])
def test_other_bad_urls_are_input_errors(url):
    with pytest.raises(InvalidInputError, match="journal:PATH"):
        open_storage(url)


def test_a_missing_postgresql_driver_names_the_package_to_install(monkeypatch, capsys):
    import paretostab._storage

    monkeypatch.setitem(sys.modules, "psycopg", None)  # `import psycopg` raises ImportError
    monkeypatch.setattr(paretostab._storage, "_importable", lambda module: False)
    line = cli_error(capsys, "report", "--storage", "postgresql://me@db.example/studies")
    assert "driver 'psycopg' is not installed" in line
    assert "pip install 'paretostab[postgres]'" in line
    assert "postgresql+psycopg2://" in line  # or another driver named in the URL
    # with psycopg2 installed, the message names the URL that uses it
    monkeypatch.setattr(paretostab._storage, "_importable", lambda module: module == "psycopg2")
    with pytest.raises(InvalidInputError, match=r"installed driver in the URL "
                                                r"\(postgresql\+psycopg2://…\)"):
        open_storage("postgresql://me@db.example/studies")


def test_a_driver_named_in_the_url_but_missing_is_named_with_its_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "psycopg2", None)
    with pytest.raises(InvalidInputError, match=r"'psycopg2' is not installed\. Install it "
                                                r"\(pip install psycopg2-binary\)"):
        open_storage("postgresql+psycopg2://me:secret@db.example/studies")
    with pytest.raises(InvalidInputError, match=r"me:\*\*\*@") as error:
        open_storage("postgresql+psycopg2://me:secret@db.example/studies")
    assert "secret" not in str(error.value)


def test_a_server_that_does_not_answer_is_one_error_line(capsys):
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    line = cli_error(capsys, "choose", "--gamma", "0.5", "--storage",
                     f"postgresql://postgres@127.0.0.1:{port}/none")
    assert f"cannot open storage postgresql://postgres@127.0.0.1:{port}/none" in line
    assert "Connection refused" in line


# Storages that do not exist, paths that cannot be written


@pytest.mark.parametrize("command", [["report"], ["choose", "--gamma", "0.5"], ["dashboard"]])
@pytest.mark.parametrize("kind", ["sqlite", "journal"])
def test_reading_a_storage_that_does_not_exist_does_not_create_it(tmp_path, capsys, command,
                                                                   kind):
    path = tmp_path / ("study.db" if kind == "sqlite" else "study.log")
    url = f"sqlite:///{path}" if kind == "sqlite" else f"journal:{path}"
    line = cli_error(capsys, *command, "--storage", url)
    assert line == f"error: no study storage at {path}; run tune first or pass --storage."
    assert list(tmp_path.iterdir()) == []  # neither the storage nor an artifact folder


def test_report_without_storage_and_no_default_file_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert "no study storage at paretostab.db" in cli_error(capsys, "report")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("content", [b"not a journal\n", bytes(range(256))])
@pytest.mark.parametrize("command", [["tune", "--n-trials", "1"], ["report"]])
def test_a_journal_url_naming_another_file_is_one_error_line_and_leaves_it(
        tmp_path, monkeypatch, capsys, content, command):
    # before: Optuna's replay of the file's lines raised JSONDecodeError (a traceback)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.log").write_bytes(content)
    line = cli_error(capsys, *command, "--storage", "journal:notes.log")
    assert line.startswith("error: journal storage notes.log: it is not an Optuna journal file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.log"]
    assert (tmp_path / "notes.log").read_bytes() == content


def test_paths_below_a_regular_file_are_one_error_line_each(tmp_path):
    # fails for root too: nobody can create a folder below a regular file
    (tmp_path / "file").write_text("not a folder")
    below = tmp_path / "file" / "sub"
    with pytest.raises(InvalidInputError, match=rf"SQLite storage {below}/s\.db: cannot create "
                                                rf"it: {tmp_path}/file is a file, not a folder"):
        open_storage(f"sqlite:///{below}/s.db")
    with pytest.raises(InvalidInputError, match=rf"journal storage {below}/s\.log: .* is a file"):
        open_storage(f"journal:{below}/s.log")
    with pytest.raises(InvalidInputError, match=rf"artifact folder {below}: cannot create it"):
        artifact_store(f"sqlite:///{tmp_path}/s.db", below)
    with pytest.raises(InvalidInputError, match=r"artifact folder .*file: it is a file"):
        artifact_store(f"sqlite:///{tmp_path}/s.db", tmp_path / "file")
    with pytest.raises(InvalidInputError, match=r"the folder .*absent does not exist"):
        open_storage(f"sqlite:///{tmp_path}/absent/s.db")


@pytest.mark.slow
def test_tune_into_an_impossible_path_is_one_error_line(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    spec = write_spec(tmp_path, "tiny", trials=1)
    result = cli("tune", spec, "--storage", f"sqlite:///{tmp_path}/file/s.db", cwd=tmp_path)
    # the artifact folder beside it or the storage, whichever tune opens first
    assert_one_error_line(result, f"{tmp_path}/file/s", f"{tmp_path}/file is a file, not a folder")
    assert "Traceback" not in result.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason=AS_ROOT)
def test_read_only_folders_are_one_error_line_each(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    open_storage(f"sqlite:///{folder}/old.db")  # a storage made before the folder is locked
    folder.chmod(0o555)
    try:
        for url in (f"sqlite:///{folder}/s.db", f"journal:{folder}/s.log",
                    f"sqlite:///{folder}/old.db"):
            with pytest.raises(InvalidInputError, match=rf"the folder {folder} is read-only"):
                open_storage(url)
        with pytest.raises(InvalidInputError, match=rf"artifact folder {folder}: the folder is "
                                                    "read-only"):
            artifact_store(f"sqlite:///{tmp_path}/s.db", folder)
    finally:
        folder.chmod(0o755)


def test_a_folder_the_process_may_not_write_is_named(tmp_path, monkeypatch):
    # what the kernel says for a read-only folder, simulated so that it holds for root too
    # (the test above checks the real permission bits where it can)
    folder = tmp_path / "ro"
    folder.mkdir()
    open_storage(f"sqlite:///{folder}/old.db")
    access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: access(path, mode) and not (
        Path(path) == folder and mode & os.W_OK))
    with pytest.raises(InvalidInputError, match=rf"cannot create it: the folder {folder} is "
                                                "read-only"):
        open_storage(f"journal:{folder}/s.log")
    with pytest.raises(InvalidInputError, match=rf"cannot write it: the folder {folder} is "
                                                "read-only"):
        open_storage(f"sqlite:///{folder}/old.db", must_exist=True)
    with pytest.raises(InvalidInputError, match=rf"artifact folder {folder}: the folder is "
                                                "read-only"):
        artifact_store(f"sqlite:///{tmp_path}/s.db", folder)


# Heartbeats


def test_heartbeat_settings_reach_the_rdb_storage_and_are_ignored_by_the_journal(tmp_path):
    storage = open_storage(f"sqlite:///{tmp_path}/s.db", heartbeat_interval=5, grace_period=12)
    assert isinstance(storage, optuna.storages.RDBStorage)
    assert storage.get_heartbeat_interval() == 5 and storage.grace_period == 12
    journal = open_storage(f"journal:{tmp_path}/s.log", heartbeat_interval=5, grace_period=12)
    assert isinstance(journal, optuna.storages.JournalStorage)
    assert not heartbeat_enabled(journal)
    for bad in (0, -1, 2.5, True, "5"):
        with pytest.raises(InvalidInputError,
                           match=r"heartbeat_interval must be an integer >= 1 \(s"):
            open_storage(f"sqlite:///{tmp_path}/s.db", heartbeat_interval=bad)


def test_a_grace_period_shorter_than_the_heartbeat_interval_is_refused(tmp_path):
    """A live trial beats every interval: a shorter grace period would fail it as stale
    between two of its heartbeats. Equal is the least accepted."""
    url = f"sqlite:///{tmp_path}/s.db"
    with pytest.raises(InvalidInputError, match=r"grace_period must be at least "
                                                r"heartbeat_interval \(10 s\).*got 9 s"):
        open_storage(url, heartbeat_interval=10, grace_period=9)
    assert not (tmp_path / "s.db").exists()  # refused before anything is created
    assert open_storage(url, heartbeat_interval=10, grace_period=10).grace_period == 10


# Many processes on one fresh storage

OPEN_TOGETHER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    import optuna
    from paretostab._storage import open_storage
    folder, index, urls = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
    for round, url in enumerate(urls):
        (folder / f"ready-{round}-{index}").touch()
        while not (folder / f"go-{round}").exists():
            time.sleep(0.002)
        optuna.create_study(storage=open_storage(url), study_name=f"process-{index}")
""")


def open_together(urls: list[str], folder: Path,
                  processes: int) -> list[subprocess.CompletedProcess]:
    """Start ``processes`` processes that open each of ``urls`` in turn, all at the same
    moment (each waits, its imports done, for a file to appear), and create a study in it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = [subprocess.Popen([sys.executable, "-c", OPEN_TOGETHER, str(folder), str(i),
                                 *urls], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
               for i in range(processes)]

    def ready(round: int) -> bool:  # or one has failed: its error is the test's
        return (len(list(folder.glob(f"ready-{round}-*"))) == processes
                or any(p.poll() is not None for p in started))

    for round, url in enumerate(urls):
        wait_until(functools.partial(ready, round), poll=0.005,
                   what=f"every process ready to open {url}")
        (folder / f"go-{round}").touch()
    finished = []
    for process in started:
        out, err = process.communicate(timeout=WAIT_SECONDS)
        finished.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
    return finished


def assert_all_opened(started, urls):
    errors = [[line for line in p.stderr.splitlines() if "Error" in line][-1:] or p.stderr
              for p in started if p.returncode]
    assert not errors, errors
    for url in urls:
        names = {s.study_name for s in optuna.get_all_study_summaries(open_storage(url))}
        assert names == {f"process-{i}" for i in range(len(started))}


@pytest.mark.slow
def test_processes_opening_fresh_postgresql_databases_together_all_succeed(
        new_postgres_database, tmp_path):
    # without the schema lock, 4 processes failed on 6 of 10 fresh databases
    # (IntegrityError … pg_type_typname_nsp_index: CREATE TYPE studydirection)
    urls = [new_postgres_database() for _ in range(3)]
    assert_all_opened(open_together(urls, tmp_path, 4), urls)


@pytest.mark.slow
def test_processes_opening_fresh_sqlite_files_together_all_succeed(tmp_path):
    # without the lock, 4 processes failed on 4 of 6 fresh files ("table … already exists")
    urls = [f"sqlite:///{tmp_path / f'study-{i}.db'}" for i in range(3)]
    assert_all_opened(open_together(urls, tmp_path, 4), urls)


# PostgreSQL end to end


@pytest.mark.slow
def test_tune_on_postgresql_then_choose_and_the_artifact_notice(postgres_url, tmp_path):
    spec = write_spec(tmp_path, "pg", trials=4)
    result = cli("tune", spec, "--storage", postgres_url, "--n-trials", 4, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    folder = tmp_path / "paretostab-artifacts"
    assert f"artifacts: {folder} (the default for a database server)" in result.stderr
    assert "other machines" in result.stderr
    study = optuna.load_study(study_name="pg", storage=open_storage(postgres_url))
    trials = study.get_trials(deepcopy=False)
    assert [t.state for t in trials] == [TrialState.COMPLETE] * 4
    assert len(list(folder.iterdir())) >= 4  # a RunSet per trial, maps for the front
    result = cli("choose", "--gamma", "0.5", "--storage", postgres_url, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "parameters: " in result.stdout and "selected features (" in result.stdout


def test_the_artifact_notice_is_for_database_servers_without_a_store(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    notice = artifact_notice("postgresql://user@host/db", None)
    assert notice.startswith(f"artifacts: {tmp_path / 'paretostab-artifacts'} ")
    assert "--artifacts" in notice and "s3://bucket/prefix" in notice
    assert artifact_notice("mysql://user@host/db", None) is not None
    for url in ("sqlite:///x.db", "journal:x.log", "sqlit:///x.db", "nonsense"):
        assert artifact_notice(url, None) is None
    assert artifact_notice("postgresql://user@host/db", "/shared/artifacts") is None
    assert artifact_notice("postgresql://user@host/db", "s3://bucket/p") is None


# S3-compatible artifact store


@pytest.mark.slow
def test_an_s3_store_keeps_objects_under_its_prefix(s3_bucket):
    import boto3
    from optuna.artifacts.exceptions import ArtifactNotFound

    store = artifact_store("sqlite:///unused.db", f"s3://{s3_bucket}/runs/a")
    store.write("id-1", io.BytesIO(b"content"))
    with store.open_reader("id-1") as reader:
        assert reader.read() == b"content"
    keys = [o["Key"] for o in boto3.client("s3").list_objects_v2(Bucket=s3_bucket)["Contents"]]
    assert keys == ["runs/a/id-1"]
    with pytest.raises(ArtifactNotFound):
        store.open_reader("id-2")
    store.remove("id-1")
    assert "Contents" not in boto3.client("s3").list_objects_v2(Bucket=s3_bucket)


def test_an_s3_store_that_cannot_be_used_is_one_error_line(s3_server, monkeypatch):
    with pytest.raises(InvalidInputError, match=r"s3://no-such-bucket/p: the bucket "
                                                r"'no-such-bucket' does not exist"):
        artifact_store("sqlite:///x.db", "s3://no-such-bucket/p")
    with pytest.raises(InvalidInputError, match=r"an S3 store is s3://bucket/prefix"):
        artifact_store("sqlite:///x.db", "s3:///p")
    monkeypatch.setitem(sys.modules, "boto3", None)
    with pytest.raises(InvalidInputError, match=r"needs boto3: pip install 'paretostab\[s3\]'"):
        artifact_store("sqlite:///x.db", "s3://bucket/p")


@pytest.mark.slow
def test_two_tune_processes_write_to_s3_and_the_report_reads_it_back(s3_bucket, tmp_path):
    import boto3

    spec = write_spec(tmp_path, "s3", trials=4)
    url, store = f"sqlite:///{tmp_path / 'study.db'}", f"s3://{s3_bucket}/studies/s3"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "paretostab", "tune", str(spec), "--storage", url,
               "--n-trials", "4", "--artifacts", store]
    runs = [subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for run in runs:
        run.communicate(timeout=600)
        assert run.returncode == 0, run.stderr
    storage = open_storage(url)
    study = optuna.load_study(study_name="s3", storage=storage)
    complete = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    assert len(complete) >= 4
    keys = {o["Key"] for o in boto3.client("s3").list_objects_v2(
        Bucket=s3_bucket)["Contents"]}
    expected = {f"studies/s3/{m.artifact_id}" for t in complete
                for m in get_all_artifact_meta(t, storage=storage)}
    assert {m.filename.split("-")[0] for t in complete
            for m in get_all_artifact_meta(t, storage=storage)} == {"runset", "stability"}
    assert expected <= keys and all(k.startswith("studies/s3/") for k in keys)
    assert not (tmp_path / "study-artifacts").exists()  # nothing went to a local folder
    # nogueira is not recorded: the report recomputes it from every trial's RunSet on S3
    result = cli("report", "--storage", url, "--artifacts", store, "--replicates", 0,
                 "--measures", "iw,nogueira", "--out", tmp_path / "report", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "report" / "index.html").is_file()
    front = (tmp_path / "report" / "front.csv").read_text().splitlines()
    assert front[0].split(",")[:4] == ["trial", "accuracy", "iw", "nogueira"]
    assert all(row.split(",")[3] for row in front[1:])


# Ctrl-C


@pytest.mark.parametrize("interrupt, code, name", [
    (KeyboardInterrupt(), 130, "Ctrl-C"), (Interrupted(signal.SIGTERM), 143, "SIGTERM"),
    (Interrupted(signal.SIGHUP), 129, "SIGHUP")])
@pytest.mark.parametrize("command, function", [
    (["report"], "analysed_study"), (["choose", "--gamma", "0.5"], "choose_trial")])
def test_ctrl_c_or_sigterm_during_report_or_choose_is_one_line_and_its_exit_code(
        monkeypatch, capsys, command, function, interrupt, code, name):
    import paretostab.report._build

    def interrupted(*args, **kwargs):
        raise interrupt

    monkeypatch.setattr(paretostab.report._build, function, interrupted)
    assert main(command) == code
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"Interrupted ({name}): ")
