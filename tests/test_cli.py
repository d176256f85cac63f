"""The command line: the bundled example prints every registered measure."""

from __future__ import annotations

import subprocess
import sys

from paretostab import list_measures
from paretostab._cli import main


def test_measures_command_prints_every_measure(capsys):
    assert main(["measures", "--runs", "4", "--k", "3", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "top-3 Welch-t filter over 4 bootstrap runs" in out
    for name in list_measures().index:
        assert name in out


def test_module_entry_point_runs():
    result = subprocess.run([sys.executable, "-m", "paretostab", "measures", "--runs", "3"],
                            capture_output=True, text=True, check=True)
    assert "nogueira" in result.stdout


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

    from paretostab.spec import builtin_spec_names, builtin_spec_summaries, load_spec

    assert main(["studies"]) == 0
    lines = capsys.readouterr().out.splitlines()
    for name, summary in builtin_spec_summaries().items():
        assert any(line.startswith(name) and line.endswith(f"  {summary}") for line in lines)
    assert len(lines) == len(builtin_spec_names()) + 2  # a blank line, then what next
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
