"""The package type-checks: mypy with the configuration of ``pyproject.toml``
(``[tool.mypy]``: ``files = ["paretostab"]``, ``check_untyped_defs``, Python 3.10, the
untyped third-party packages named one by one) reports no error in any module."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_mypy_finds_no_error_in_the_package():
    pytest.importorskip("mypy", reason="mypy is not installed (it is in the test extra)")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "pyproject.toml"],
        cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, (
        f"mypy exited with {result.returncode}:\n{result.stdout}{result.stderr}")
    assert "no issues found" in result.stdout


def test_the_configuration_checks_the_whole_package_and_untyped_bodies():
    """What the test above relies on: the package as mypy's files, bodies of functions
    without annotations checked too."""
    tomllib = pytest.importorskip("tomllib", reason="Python 3.11 reads TOML")

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["files"] == ["paretostab"] and config["check_untyped_defs"] is True
