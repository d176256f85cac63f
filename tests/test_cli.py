"""The command line: the bundled example prints every registered measure."""

from __future__ import annotations

import subprocess
import sys

from paretostab import list_measures
from paretostab.cli import main


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

    import paretostab.tuning

    seen = {}

    def fake_tune(spec, **kwargs):
        seen.update(kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(paretostab.tuning, "tune", fake_tune)
    assert main(["tune", "--cache-gib", "0.5", "--storage", f"sqlite:///{tmp_path / 'x.db'}"]) == 130
    assert seen["cache_bytes"] == 2**29
    for bad in ("-1", "inf", "nan"):
        with pytest.raises(SystemExit) as stop:
            main(["tune", "--cache-gib", bad])
        assert stop.value.code == 2
        assert "error: --cache-gib must be a finite number >= 0" in capsys.readouterr().err
