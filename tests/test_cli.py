"""The command line: the bundled example prints every registered measure."""

from __future__ import annotations

import subprocess
import sys

import pytest

from paretostab import list_measures
from paretostab._cli import main


@pytest.mark.slow
def test_measures_command_prints_every_measure(capsys):
    assert main(["measures", "--runs", "4", "--k", "3", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "top-3 Welch-t filter over 4 bootstrap runs" in out
    for name in list_measures().index:
        assert name in out


@pytest.mark.slow
def test_module_entry_point_runs():
    result = subprocess.run([sys.executable, "-m", "paretostab", "measures", "--runs", "3"],
                            capture_output=True, text=True, check=True)
    assert "nogueira" in result.stdout


@pytest.mark.slow
def test_bad_arguments_exit_with_a_usage_message():
    result = subprocess.run([sys.executable, "-m", "paretostab", "measures", "--runs", "1"],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert "--runs must be >= 2" in result.stderr


def test_tune_takes_the_run_cache_budget(capsys, tmp_path, monkeypatch):
    import pytest

    import paretostab._tuning

    seen = {}

    def fake_tune(spec, **kwargs):
        seen.update(kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(paretostab._tuning, "run_study", fake_tune)
    assert main(["tune", "--cache-gib", "0.5", "--storage", f"sqlite:///{tmp_path / 'x.db'}"]) == 130
    assert seen["cache_bytes"] == 2**29
    for bad in ("-1", "inf", "nan"):
        with pytest.raises(SystemExit) as stop:
            main(["tune", "--cache-gib", bad])
        assert stop.value.code == 2
        assert "error: --cache-gib must be a finite number >= 0" in capsys.readouterr().err


def test_version_is_the_package_metadata(capsys):
    from importlib.metadata import version

    import pytest

    import paretostab

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"paretostab {version('paretostab')}\n"
    assert paretostab.__version__ == version("paretostab")


def test_studies_lists_the_builtin_specs_and_prints_one(capsys, tmp_path):
    import pytest

    from paretostab.spec import (
        builtin_spec_data,
        builtin_spec_names,
        builtin_spec_summaries,
        load_spec,
    )

    assert main(["studies"]) == 0
    lines = capsys.readouterr().out.splitlines()
    for name, summary in builtin_spec_summaries().items():
        file = builtin_spec_data(name)
        mark = f" [data not shipped: {file}]" if file else ""
        assert any(line.startswith(name) and line.endswith(f"  {summary}{mark}")
                   for line in lines)
    assert len(lines) == len(builtin_spec_names()) + 3  # a blank line, what next, the mark
    assert lines[-1].startswith("[data not shipped]: the spec's comments say where")
    assert main(["studies", "quickstart"]) == 0
    (tmp_path / "my.toml").write_text(capsys.readouterr().out, encoding="utf-8")
    assert load_spec(tmp_path / "my.toml").name == "quickstart"
    with pytest.raises(SystemExit) as stop:
        main(["studies", "quickstrat"])
    assert stop.value.code == 2
    assert "error: Unknown built-in study 'quickstrat'. Did you mean 'quickstart'" in \
        capsys.readouterr().err


def test_tune_takes_a_builtin_spec_by_name(tmp_path, monkeypatch):
    import paretostab._tuning

    seen = []

    def fake_tune(spec, **kwargs):
        seen.append(spec)
        raise KeyboardInterrupt

    monkeypatch.chdir(tmp_path)  # no file of that name here: the built-in spec
    monkeypatch.setattr(paretostab._tuning, "run_study", fake_tune)
    for argv in (["tune"], ["tune", "quickstart"], ["tune", "singh_methods"]):
        assert main(argv) == 130
    assert [s.name for s in seen] == ["quickstart", "quickstart", "singh_methods"]


def test_builtin_specs_name_the_data_files_the_package_does_not_ship():
    from paretostab.spec import builtin_spec_data, builtin_spec_names, load_spec
    from paretostab.spec import builtin_spec_path as path

    unshipped = {name: builtin_spec_data(name) for name in builtin_spec_names()}
    assert unshipped["quickstart"] is None and unshipped["singh_methods"] == "singh.csv.gz"
    for name, file in unshipped.items():  # the file the loaded spec reads, by its own parser
        source = load_spec(path(name)).data.source
        assert file == (None if source == "breast_cancer" else source.rsplit("/", 1)[1]), name


def test_help_is_plain_text(capsys):
    import pytest

    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert "tune [SPEC]\n    Run or resume" in out and "Command line: python -m paretostab" in out
    assert "`" not in out and ":func:" not in out


def test_a_mistyped_option_is_refused_naming_the_closest(capsys):
    import pytest

    for argv, hint in ((["tune", "--trials", "5"], "--trials (did you mean --n-trials?)"),
                       (["measures", "--rnus=3"], "--rnus=3 (did you mean --runs?)"),
                       (["measures", "--zzz"], "--zzz\n")):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert f"error: unrecognized arguments: {hint}" in err, err


def _cut_short(*argv: str, cwd) -> subprocess.CompletedProcess:
    """``python -m paretostab ARGV`` writing into a pipe whose reader has gone
    (``… | head -1`` once head has exited)."""
    import os

    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([sys.executable, "-m", "paretostab", *argv], stdout=write,
                              stderr=subprocess.PIPE, text=True, cwd=cwd, timeout=600)
    finally:
        os.close(write)


@pytest.mark.slow
def test_output_cut_short_by_its_reader_ends_quietly_with_status_141(tmp_path):
    """Python's documentation of SIGPIPE: no BrokenPipeError traceback, the shell's status
    of a process the signal ended (128 + 13)."""
    for argv in (("studies",), ("measures", "--runs", "3"),
                 ("tune", "--n-trials", "1", "--quiet", "--storage",
                  f"sqlite:///{tmp_path / 'cut.db'}")):
        result = _cut_short(*argv, cwd=tmp_path)
        assert result.returncode == 141, (argv, result.stderr)
        assert "Traceback" not in result.stderr and "Error" not in result.stderr, argv


@pytest.mark.slow
def test_tune_counts_one_trial_in_the_singular(tmp_path, capsys):
    assert main(["tune", "--n-trials", "1", "--quiet",
                 "--storage", f"sqlite:///{tmp_path / 'one.db'}"]) == 0
    out = capsys.readouterr().out
    assert ": 1 counted trial of 1 (1 complete;" in out
    assert "\nPareto front (1 trial):\n" in out


def test_report_on_a_storage_without_a_study_says_so_and_leaves_it_as_it_was(tmp_path, capsys):
    import optuna
    import pytest

    empty, junk, bare = tmp_path / "empty.db", tmp_path / "junk.db", tmp_path / "bare.db"
    empty.touch()
    junk.write_text("not a database", encoding="utf-8")
    optuna.storages.RDBStorage(f"sqlite:///{bare}")  # Optuna's tables, no study
    for path, why in ((empty, "it has no Optuna tables"),
                      (junk, "it is not a SQLite database")):
        for command in (["report", "--quiet"], ["choose", "--gamma", "0.5"]):
            with pytest.raises(SystemExit) as stop:
                main([*command, "--storage", f"sqlite:///{path}"])
            assert stop.value.code == 2
            assert capsys.readouterr().err == (
                f"error: SQLite storage {path} holds no study ({why}); run tune into it "
                "first or pass --storage.\n")
    assert empty.stat().st_size == 0 and junk.read_text(encoding="utf-8") == "not a database"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bare.db", "empty.db", "junk.db"]
    with pytest.raises(SystemExit) as stop:
        main(["report", "--quiet", "--storage", f"sqlite:///{bare}"])
    assert stop.value.code == 2
    assert "error: The storage holds no study; run tune into it first" in capsys.readouterr().err


def test_a_selector_module_beside_the_spec_but_off_the_import_path_gets_the_fix(
        tmp_path, monkeypatch, capsys):
    import pytest

    from paretostab.spec import builtin_spec_text, load_spec

    folder = tmp_path / "specs"
    folder.mkdir()
    (folder / "cli_own_selector.py").write_text(
        "from sklearn.feature_selection import SelectKBest\n\n\n"
        "class OwnSelector(SelectKBest):\n    pass\n", encoding="utf-8")
    text = builtin_spec_text("quickstart").replace(
        'name = "hybrid_rfe"', 'name = "cli_own_selector:OwnSelector"')
    text = text[:text.index("[selector.fixed]")] + (
        '[selector.search]\nk = [2, 10]\n\n[objective]\nstability = "nogueira"\n')
    spec = folder / "own.toml"
    spec.write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # not the spec's folder
    with pytest.raises(SystemExit) as stop:
        main(["tune", str(spec), "--storage", f"sqlite:///{tmp_path / 'own.db'}"])
    assert stop.value.code == 2
    assert capsys.readouterr().err == (
        f"error: {spec}: [selector] name 'cli_own_selector:OwnSelector': module "
        f"'cli_own_selector' is beside the spec ({folder / 'cli_own_selector.py'}) but not "
        f"on Python's import path: run python -m paretostab from {folder}, or add that "
        "folder to PYTHONPATH (the trials' processes and the report import the module "
        "too).\n")
    assert not (tmp_path / "own.db").exists()
    monkeypatch.syspath_prepend(str(folder))  # as running from the spec's folder does
    assert load_spec(spec).selectors[0].name == "cli_own_selector:OwnSelector"
