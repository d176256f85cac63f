"""No secret leaves the process; nothing read from a shared store chooses a local path
(issue 19, points 4 and 5).

A storage URL's password is shown masked (:func:`~paretostab._storage.display_url`)
wherever paretostab shows or writes the URL: the command line's output, the reports'
files, the study's stored spec, error messages. The end-to-end test runs tune → report →
compare → choose → dashboard on PostgreSQL as a role with a password and greps every file
written, every line printed and every attribute stored for it. A RunSet artifact's
recorded file name and id, which anyone who can write to a shared storage can change,
never make ``report`` write outside the folders it was given.
"""

from __future__ import annotations

import doctest
import io
import json
import socket
import tempfile
import uuid
from pathlib import Path
from urllib.parse import quote

import numpy as np
import optuna
import pytest
from hypothesis import given
from hypothesis import strategies as st
from optuna.artifacts import FileSystemArtifactStore
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

import paretostab._storage
from paretostab._cli import main
from paretostab._errors import InvalidInputError, ParetostabError
from paretostab._optuna_internals import trial_id_of
from paretostab._runset import RunSet
from paretostab._storage import display_url, load_runset, open_storage
from tests import servers
from tests.command_line import cli
from tests.extras import need

ROOT = Path(__file__).resolve().parents[1]

# --------------------------------------------------------------------------- display_url

MASKED = [
    ("postgresql://u:PW@host/db", "postgresql://u:***@host/db"),
    ("postgresql+psycopg://u:PW@host:5432/db?sslmode=require",
     "postgresql+psycopg://u:***@host:5432/db?sslmode=require"),
    ("mysql+pymysql://u:p%40s%3As%2Fw@host/db", "mysql+pymysql://u:***@host/db"),
    # a bare "@" in the password: SQLAlchemy takes "p" for it and "ss@host" for the host
    ("postgresql://u:p@ss@host/db", "postgresql://u:***@host/db"),
    ("postgresql://:PW@host/db", "postgresql://:***@host/db"),
    ("postgresql://me@example.org:PW@host/db", "postgresql://me@example.org:***@host/db"),
    ("postgresql:///db?host=/run/pg&password=PW", "postgresql:///db?host=/run/pg&password=***"),
    ("postgresql://u@host/db?Password=PW&sslmode=require",
     "postgresql://u@host/db?Password=***&sslmode=require"),
    ("postgresql://u@host/db?pass%77ord=PW", "postgresql://u@host/db?pass%77ord=***"),
    ("mysql://u@host/db?passwd=PW&pwd=PW", "mysql://u@host/db?passwd=***&pwd=***"),
    ("postgresql://u:PW@host/db?password=PW", "postgresql://u:***@host/db?password=***"),
    # what SQLAlchemy cannot parse, or cannot open, shows in error messages
    ("postgress://u:PW@host/db", "postgress://u:***@host/db"),
    ("postgres ql://u:PW@host/db", "postgres ql://u:***@host/db"),
    ("postgresql:/u:PW@host/db", "postgresql:***@host/db"),
    ("u:PW@host/db", "u:***@host/db"),
]
UNCHANGED = ["sqlite:///paretostab.db", "sqlite:////data/a:b@c.db", "sqlite://",
             "sqlite:///:memory:", "journal:study.log", "journal:/data/a:b@c.log",
             "postgresql://u@host/db", "postgresql://u:@host/db",
             "postgresql://host:5432/db?sslmode=require&application_name=x",
             "postgresql://u:***@host/db", "nonsense", ""]


@pytest.mark.parametrize(("url", "shown"), MASKED)
def test_display_url_masks_the_password(url, shown):
    assert display_url(url) == shown
    assert "PW" not in shown and "p@ss" not in shown and "s%3As" not in shown


@pytest.mark.parametrize("url", UNCHANGED)
def test_display_url_leaves_urls_without_a_password_as_they_are(url):
    assert display_url(url) == url


def test_display_urls_examples_hold():
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner()
    for test in finder.find(display_url, "display_url", globs={"display_url": display_url}):
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


SCHEMES = st.sampled_from(["postgresql", "postgresql+psycopg", "postgresql+psycopg2",
                           "mysql", "mysql+pymysql", "oracle", "mssql+pyodbc", "unknown"])
USERS = st.text(max_size=12).map(lambda text: quote(text, safe=""))
PASSWORDS = st.text(min_size=1, max_size=24)  # any character: "@", ":", "/", "?", "&", "%", …
HOSTS = st.from_regex(r"[a-z0-9]([a-z0-9.-]{0,20}[a-z0-9])?", fullmatch=True)
PORTS = st.one_of(st.just(""), st.integers(1, 65535).map(lambda port: f":{port}"))
DATABASES = st.from_regex(r"[A-Za-z0-9_]{0,12}", fullmatch=True)
QUERIES = st.lists(st.tuples(st.sampled_from(["sslmode", "application_name", "options",
                                              "connect_timeout"]),
                             st.text(max_size=10).map(lambda text: quote(text, safe=""))),
                   max_size=3).map(lambda pairs: "?" + "&".join(f"{k}={v}" for k, v in pairs)
                                   if pairs else "")


@given(SCHEMES, USERS, PASSWORDS, HOSTS, PORTS, DATABASES, QUERIES, st.booleans())
def test_the_password_never_shows_and_nothing_else_changes(scheme, user, password, host, port,
                                                           database, query, encoded):
    """Percent-encoded as a URL should have it, or written bare (special characters
    included): the password is masked, all the rest kept."""
    written = quote(password, safe="") if encoded else password
    url = f"{scheme}://{user}:{written}@{host}{port}/{database}{query}"
    shown = display_url(url)
    assert shown == f"{scheme}://{user}:***@{host}{port}/{database}{query}"
    others = f"{scheme}://{user}:@{host}{port}/{database}{query}"
    for secret in (password, written):
        if secret not in others and "*" not in secret:  # not a piece of the user, host, …
            assert secret not in shown
    assert display_url(shown) == shown


@given(SCHEMES, USERS, HOSTS, PORTS, DATABASES, QUERIES)
def test_a_url_without_a_password_is_unchanged(scheme, user, host, port, database, query):
    url = f"{scheme}://{user}@{host}{port}/{database}{query}"
    assert display_url(url) == url


@given(st.text().filter(lambda text: "?" not in text))
def test_sqlite_and_journal_paths_are_unchanged(path):
    for url in (f"sqlite:///{path}", f"journal:{path}"):
        assert display_url(url) == url


URL_TEXT = st.text(st.one_of(st.sampled_from(list(":@/?&=%#+ pw")), st.characters()))


@given(URL_TEXT)
def test_whatever_sqlalchemy_would_send_as_a_password_is_masked(rest):
    """For any text SQLAlchemy reads as a URL with a password (or a password query
    parameter), SQLAlchemy reads the shown URL's password as ``***``."""
    url = f"postgresql://{rest}"
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):  # not a URL, or a port that is not a number
        return
    shown = make_url(display_url(url))
    if parsed.password:
        assert shown.password == "***"
    if "password" in parsed.query:
        values = shown.query["password"]
        assert ({values} if isinstance(values, str) else set(values)) == {"***"}


@given(URL_TEXT)
def test_display_url_is_idempotent(text):
    for url in (text, f"postgresql://{text}", f"sqlite:///{text}"):
        assert display_url(display_url(url)) == display_url(url)


# --------------------------------------------------------------------------- error messages

SECRET = "Sw0rdf1sh-secret"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("url", [
    f"postgress://u:{SECRET}@127.0.0.1/db",  # unknown database kind
    f"postgres ql://u:{SECRET}@127.0.0.1/db",  # not a URL
    f"postgresql:/u:{SECRET}@127.0.0.1/db",  # not a URL
    f"postgresql://u:{SECRET}@127.0.0.1:{{port}}/db",  # nothing listens
    f"postgresql://u@127.0.0.1:{{port}}/db?password={SECRET}",
    f"postgresql://u:x@{SECRET}@127.0.0.1:{{port}}/db",  # a bare "@" in the password
])
def test_storage_errors_show_no_password(url, capsys):
    url = url.replace("{port}", str(free_port()))
    with pytest.raises(ParetostabError) as error:
        open_storage(url)
    assert SECRET not in str(error.value) and "***" in str(error.value)
    with pytest.raises(SystemExit):
        main(["report", "--storage", url])
    assert SECRET not in capsys.readouterr().err


def test_a_bare_at_in_the_password_is_named():
    with pytest.raises(InvalidInputError, match=r"an '@' in the password must be written %40"):
        open_storage(f"postgresql://u:p@{SECRET}@127.0.0.1:{free_port()}/db")


def test_the_dashboard_line_shows_no_password(monkeypatch, capsys, tmp_path):
    optuna_dashboard = need("optuna_dashboard")
    served = []
    monkeypatch.setattr(paretostab._storage, "open_storage", lambda url, **kwargs: "storage")
    monkeypatch.setattr(optuna_dashboard, "run_server", lambda *args, **kwargs: served.append(1))
    url = f"postgresql://u:{quote(SECRET + '/@:', safe='')}@db.example:5432/studies"
    port = servers.free_port()  # the dashboard checks it can listen there first
    assert main(["dashboard", "--storage", url, "--artifacts", str(tmp_path),
                 "--port", str(port)]) == 0
    out = capsys.readouterr().out
    assert served and SECRET not in out
    assert (f"Serving postgresql://u:***@db.example:5432/studies at http://127.0.0.1:{port}/"
            in out)


# --------------------------------------------------------------------------- end to end


@pytest.fixture
def secret_database(postgres_server):
    """A database owned by a new role with a password (special characters included):
    ``(url, password)``; the URL has the password percent-encoded. The test server trusts
    every local connection, so the password is sent but not checked: what matters here
    is where it goes."""
    import sqlalchemy
    from sqlalchemy.pool import NullPool

    tag = uuid.uuid4().hex[:10]
    role, database = f"secretuser_{tag}", f"secrets_{tag}"
    password = f"S3cr3tPW-{tag}/:@?&%#"
    admin = sqlalchemy.create_engine(postgres_server, isolation_level="AUTOCOMMIT",
                                     poolclass=NullPool)
    with admin.connect() as connection:
        connection.execute(sqlalchemy.text(
            f"CREATE ROLE {role} LOGIN PASSWORD '{password}'"))
        connection.execute(sqlalchemy.text(f'CREATE DATABASE "{database}" OWNER {role}'))
    server = make_url(postgres_server)
    url = (f"postgresql://{role}:{quote(password, safe='')}@{server.host}:{server.port}/"
           f"{database}")
    try:
        yield url, password
    finally:
        with admin.connect() as connection:
            connection.execute(sqlalchemy.text(
                f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)'))
            connection.execute(sqlalchemy.text(f"DROP ROLE IF EXISTS {role}"))
        admin.dispose()


def stored_attributes(url: str) -> str:
    """Every study's and trial's user and system attributes (the dashboard's notes and
    the artifacts' metadata included), as one JSON text."""
    storage = optuna.storages.RDBStorage(url)
    found = []
    for study in storage.get_all_studies():
        found += [study.user_attrs, study.system_attrs]
        found += [[t.user_attrs, t.system_attrs]
                  for t in storage.get_all_trials(storage.get_study_id_from_name(study.study_name),
                                         deepcopy=False)]
    storage.engine.dispose()
    return json.dumps(found, ensure_ascii=False)


@pytest.mark.slow
def test_no_password_in_any_output_of_tune_report_compare_choose_dashboard(
        secret_database, tmp_path, monkeypatch, capsys):
    url, password = secret_database
    work = tmp_path / "work"  # every output lands here (the spec, which names the URL, not)
    work.mkdir()
    monkeypatch.chdir(work)
    core = password.split("/")[0]  # the part a percent-encoding leaves as it is
    masked = display_url(url)
    assert core not in masked and ":***@" in masked
    artifacts = work / "artifacts"
    outputs: dict[str, str] = {}

    def run(name, *args):
        result = cli(*args, cwd=work, timeout=600)
        outputs[name] = result.stdout + result.stderr
        return result

    # one study from the command line's --storage, one from a spec naming its storage
    spec = (ROOT / "studies" / "quickstart.toml").read_text(encoding="utf-8")
    spec = spec.replace('name = "quickstart"', f'name = "second"\nstorage = "{url}"')
    (tmp_path / "second.toml").write_text(spec, encoding="utf-8")
    tuned = run("tune", "tune", "--storage", url, "--n-trials", 3, "--artifacts", artifacts)
    assert tuned.returncode == 0, tuned.stderr
    assert f"Study 'quickstart' in {masked}:" in tuned.stdout
    assert tuned.stdout.count(f"--storage '{masked}'") == 3
    assert "(the password is shown as ***: type yours in its place)" in tuned.stdout
    result = run("tune-spec", "tune", tmp_path / "second.toml", "--n-trials", 3,
                 "--artifacts", artifacts)
    assert result.returncode == 0, result.stderr
    assert f"Study 'second' in {masked}:" in result.stdout
    common = ["--storage", url, "--artifacts", artifacts]
    result = run("report", "report", *common, "--study-name", "quickstart", "--replicates", 0,
                 "--out", work / "report")
    assert result.returncode == 0, result.stderr
    summary = json.loads((work / "report" / "summary.json").read_text(encoding="utf-8"))
    assert summary["storage"] == masked
    result = run("compare", "compare", "quickstart", "second", *common, "--replicates", 0,
                 "--out", work / "comparison")
    assert result.returncode == 0, result.stderr
    compared = json.loads((work / "comparison" / "comparison.json").read_text("utf-8"))
    assert [s["storage"] for s in compared["studies"]] == [masked, masked]
    assert masked in (work / "comparison" / "index.html").read_text(encoding="utf-8")
    result = run("choose", "choose", "--gamma", "0.5", *common, "--study-name", "quickstart")
    assert result.returncode == 0, result.stderr
    result = run("compare-twice", "compare", "quickstart", "quickstart", *common)
    assert result.returncode == 2 and "is given twice" in result.stderr
    # the dashboard, in this process, without a server
    optuna_dashboard = need("optuna_dashboard")
    monkeypatch.setattr(optuna_dashboard, "run_server", lambda *args, **kwargs: None)
    assert main(["dashboard", "--storage", url, "--artifacts", str(artifacts)]) == 0
    captured = capsys.readouterr()
    outputs["dashboard"] = captured.out + captured.err
    assert f"Serving {masked} at" in outputs["dashboard"]

    secrets = {core, password, quote(password, safe=""), url}
    files = [path for path in work.rglob("*") if path.is_file()]
    for folder in ("report", "comparison", "artifacts"):  # pages, figures, RunSets, maps
        assert len([p for p in files if p.is_relative_to(work / folder)]) >= 3
    leaks = [f"{path.relative_to(work)}" for path in files
             if any(s.encode() in path.read_bytes() for s in secrets)]
    leaks += [f"output of {name}" for name, text in outputs.items()
              if any(s in text for s in secrets)]
    attributes = stored_attributes(url)
    leaks += ["the storage's attributes"] if any(s in attributes for s in secrets) else []
    assert not leaks, leaks
    assert f'"storage": "{masked}"' in attributes  # the second study's stored spec


# --------------------------------------------------------------------------- artifact paths


def small_runset() -> RunSet:
    return RunSet(selection_matrix=np.array([[True, False, True], [True, True, False]]),
                  importance_matrix=np.array([[1.0, 0.0, 0.5], [0.7, 0.2, 0.0]]),
                  rank_matrix=None, scores=np.array([0.9, 0.8]),
                  seeds=np.zeros(2, dtype=np.uint32), fit_seconds=np.zeros(2),
                  metric="accuracy", resampling="bootstrap", selector="test")


@pytest.fixture
def tampered(tmp_path):
    """A function making a trial whose one RunSet artifact, stored under ``artifact_id``
    (written to the store as it is, when the store takes it), is recorded with
    ``filename`` and ``artifact_id``: ``(trial, storage, store)``."""
    url = f"sqlite:///{tmp_path / 'study.db'}"
    storage = open_storage(url)
    study = optuna.create_study(storage=storage, directions=["maximize", "maximize"])
    store_folder = tmp_path / "store"
    store_folder.mkdir()
    store = FileSystemArtifactStore(str(store_folder))
    with tempfile.TemporaryDirectory() as folder:
        runset_bytes = small_runset().save(Path(folder) / "r.npz").read_bytes()

    def make(filename: str, artifact_id: str):
        trial = study.ask()
        try:
            store.write(artifact_id, io.BytesIO(runset_bytes))
        except (ValueError, OSError):  # the store refuses the id
            pass
        storage.set_trial_system_attr(trial_id_of(trial), f"artifacts:{artifact_id}", json.dumps(
            {"artifact_id": artifact_id, "filename": filename,
             "mimetype": "application/octet-stream", "encoding": None}))
        study.tell(trial, [1.0, 1.0])
        return study.trials[trial.number], storage, store

    return make


def files_named(folder: Path, pattern: str) -> list[Path]:
    return list(folder.rglob(pattern))


@pytest.mark.parametrize("kind", ["absolute", "parent"])
def test_a_stored_artifact_filename_is_never_a_path(tampered, tmp_path, monkeypatch, kind):
    """An absolute name, or ``../../escape.npz`` from the temporary folder (set two levels
    below ``tmp_path/outside`` here, so that an escape lands inside ``tmp_path``), made
    the report write there."""
    outside = tmp_path / "outside"
    (outside / "a" / "b").mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(outside / "a" / "b"))
    filename = str(outside / "escape.npz") if kind == "absolute" else "../../escape.npz"
    trial, storage, store = tampered(filename, str(uuid.uuid4()))
    runs = load_runset(trial, storage=storage, store=store)
    assert runs.same_runs(small_runset())
    assert files_named(tmp_path, "escape.npz") == []
    assert not Path("/escape.npz").exists() and not Path(tempfile.gettempdir(), "..",
                                                         "..", "escape.npz").exists()


@pytest.mark.slow
@pytest.mark.parametrize("artifact_id", ["../escape", "../../escape", "/tmp/escape",
                                         "sub/escape", "..", "", "a b", "x.npz"])
def test_a_stored_artifact_id_that_optuna_does_not_make_is_one_clear_error(
        tampered, tmp_path, artifact_id):
    trial, storage, store = tampered("runset-trial-0.npz", artifact_id)
    with pytest.raises(InvalidInputError, match=rf"Trial {trial.number}'s RunSet artifact has "
                                                r"the id .* not one Optuna makes"):
        load_runset(trial, storage=storage, store=store)
    assert files_named(tmp_path, "escape*") == []


def test_a_stored_artifact_filename_that_is_not_text_is_no_runset(tampered):
    trial, storage, store = tampered(None, str(uuid.uuid4()))  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="has no RunSet artifact"):
        load_runset(trial, storage=storage, store=store)
