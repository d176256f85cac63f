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
