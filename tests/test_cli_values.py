"""Values given on the command line (issue 36): a storage URL that names no file, and
numbers out of their range, are one ``error:`` line before anything is made, the line
a spec gives for the same value."""

from __future__ import annotations

import pytest

from paretostab._cli import main
from tests.extras import need


def _refused(argv: list[str], capsys) -> str:
    """The one ``error:`` line ``argv`` exits with (status 2)."""
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize("url", ["journal:", "sqlite:///", "journal:/", "sqlite:////"])
@pytest.mark.parametrize("command", [["tune", "--n-trials", "1"], ["report"],
                                     ["choose", "--gamma", "0.5"], ["dashboard"]])
def test_a_storage_url_without_a_file_is_one_error_line(url, command, capsys, tmp_path,
                                                        monkeypatch):
    # before: tune computed the artifact folder beside the file first and raised
    # ValueError: PosixPath('.') has an empty name
    monkeypatch.chdir(tmp_path)
    if command == ["dashboard"]:
        need("optuna_dashboard")
    err = _refused([*command, "--storage", url], capsys)
    assert f"storage {url!r} names no file" in err
    assert ("journal:PATH" if url.startswith("journal") else "sqlite:///FILE") in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("argv", "line"), [
    (["tune", "--timeout", "-5"], "timeout must be a finite number > 0 (seconds"),
    (["tune", "--timeout", "nan"], "timeout must be a finite number > 0 (seconds"),
    (["tune", "--timeout", "0"], "timeout must be a finite number > 0 (seconds"),
    (["tune", "--n-jobs", "0"], "n_jobs must be a non-zero integer (-1: all cores); got 0."),
    (["tune", "--n-trials", "0"], "n_trials must be an integer >= 1; got 0."),
    (["tune", "--workers", "0"], "workers must be an integer >= 1; got 0."),
    (["tune", "--storage-wait", "nan"], "storage_wait must be a finite number >= 0"),
    (["tune", "--stop-wait", "-1"], "stop_wait must be a finite number >= 0 (seconds)"),
    (["tune", "--grace-period", "0"], "grace_period must be an integer >= 1 (seconds)"),
    (["tune", "--heartbeat-interval", "90"],
     "grace_period must be at least heartbeat_interval (90 s): a running trial would go "
     "stale between two heartbeats; got 60 s."),
    (["report", "--replicates", "-1"], "replicates must be 0 (no confidence regions) or >= 3"),
    (["report", "--pfer", "nan"], "pfer must be a finite number > 0; got nan."),
    (["report", "--fdp", "nan"], "fdp must be a number in (0, 1]; got nan."),
    (["report", "--level", "nan"], "level must be a number in (0, 1); got nan."),
    (["choose", "--gamma", "nan"], "gamma must be a number in [0, 1]; got nan."),
    (["choose", "--gamma", "0.5", "--fdp", "nan"], "fdp must be a number in (0, 1]; got nan."),
    (["compare", "a", "b", "--replicates", "-2"], "replicates must be 0"),
    (["dashboard", "--port", "-1"], "--port must be an integer in [1, 65535] (a TCP port)"),
])
def test_a_value_out_of_range_is_one_error_line_before_anything_is_made(argv, line, capsys,
                                                                        tmp_path, monkeypatch):
    # before: --timeout -5 made the storage and ran 0 trials, nan was ignored, --n-jobs 0
    # fell back to the spec's value; --pfer/--fdp nan turned the control off, --replicates
    # -1 and --port -1 were checked only after the storage was read
    monkeypatch.chdir(tmp_path)
    if argv[0] == "dashboard":
        need("optuna_dashboard")
    err = _refused([*argv, "--storage", "sqlite:///s.db"], capsys)
    assert line in err
    assert list(tmp_path.iterdir()) == []


def test_n_jobs_given_to_tune_is_refused_as_the_spec_refuses_it(tmp_path):
    import paretostab
    from paretostab._errors import InvalidInputError
    from paretostab.spec import find_spec, load_spec, parse_spec

    mapping = load_spec(find_spec("quickstart")).to_dict()
    mapping["protocol"]["n_jobs"] = 0
    with pytest.raises(InvalidInputError) as in_spec:
        parse_spec(mapping)
    with pytest.raises(InvalidInputError) as given:
        paretostab.tune("quickstart", storage=f"sqlite:///{tmp_path / 's.db'}", n_jobs=0)
    rule = str(in_spec.value).partition("protocol.n_jobs: ")[2]
    assert rule == "must be a non-zero integer (-1: all cores); got 0."
    assert str(given.value) == f"n_jobs {rule}"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("argv", "shown"), [
    (["tune", ""], "spec"),
    (["tune", "--storage", ""], "--storage"),
    (["tune", "--objective", ""], "--objective"),
    (["tune", "--artifacts", " "], "--artifacts"),
    (["report", "--out", ""], "--out"),
    (["report", "--measures", ""], "--measures"),
    (["choose", "--gamma", "0.5", "--save-model", ""], "--save-model"),
    (["compare", "a", "", "--storage", "sqlite:///s.db"], "STUDY"),
    (["compare", "a", "b", "--storage", "sqlite:///s.db", "--storage", ""], "--storage"),
    (["predict", "", "new.csv"], "model"),
    (["dashboard", "--host", ""], "--host"),
])
def test_a_blank_value_is_one_error_line_not_the_default(argv, shown, capsys, tmp_path,
                                                         monkeypatch):
    # before: each was taken as not given: tune "" ran the quickstart, --storage "" wrote
    # paretostab.db, --out "" spread the report over the working folder, --save-model ""
    # saved nothing, all with exit 0 (a shell's unset variable: --storage "$DB")
    monkeypatch.chdir(tmp_path)
    err = _refused(argv, capsys)
    assert err.startswith(f"error: {shown}: a blank value (")
    assert ("or leave" in err) == shown.startswith("-")
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def served(tmp_path, monkeypatch):
    """A storage the dashboard may serve, in the working folder, and the calls of its
    server (none: refused before)."""
    optuna_dashboard = pytest.importorskip("optuna_dashboard")
    import optuna

    monkeypatch.chdir(tmp_path)
    optuna.create_study(storage="sqlite:///s.db", study_name="s")
    (tmp_path / "s-artifacts").mkdir()
    calls: list[object] = []
    monkeypatch.setattr(optuna_dashboard, "run_server", lambda *a, **k: calls.append(k))
    return calls


def test_a_dashboard_host_that_is_no_address_here_is_one_error_line(served, capsys):
    # before: a traceback from the server's bind (socket.gaierror), after "Serving … at"
    err = _refused(["dashboard", "--storage", "sqlite:///s.db", "--host", "999.1.1.1"], capsys)
    assert err.startswith("error: the dashboard cannot listen at 999.1.1.1:8080 (")
    assert err.endswith("); give another --host or --port.\n") and served == []


def test_a_dashboard_port_in_use_is_one_error_line(served, capsys):
    import socket

    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        err = _refused(["dashboard", "--storage", "sqlite:///s.db", "--port", str(port)], capsys)
    assert err == (f"error: the dashboard cannot listen at 127.0.0.1:{port} (Address already "
                   "in use); give another --host or --port.\n")
    assert served == []
    assert main(["dashboard", "--storage", "sqlite:///s.db", "--port", str(port)]) == 0
    assert capsys.readouterr().out.startswith("Serving sqlite:///s.db at http://127.0.0.1:")
    assert served and served[0]["port"] == port


@pytest.mark.parametrize("argv", [["--grace-period", "0"], ["--heartbeat-interval", "90"],
                                  ["--stop-wait", "-1"], ["--storage-wait", "nan"]],
                         ids=lambda argv: argv[0])
def test_tune_checks_its_waits_before_it_loads_the_data(argv, capsys, tmp_path, monkeypatch):
    """A wait out of its range is said before the data are read (a large CSV: minutes), not
    when the storage is opened after them."""
    from paretostab._problem import Problem

    def loaded(*args, **kwargs):
        pytest.fail("the data were loaded before the values were checked")

    monkeypatch.setattr(Problem, "from_spec", loaded)
    monkeypatch.chdir(tmp_path)
    _refused(["tune", *argv, "--storage", "sqlite:///s.db"], capsys)
