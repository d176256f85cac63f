"""The package type-checks: mypy with the configuration of ``pyproject.toml``
(``[tool.mypy]``: ``check_untyped_defs``, Python 3.10, the untyped third-party packages
named one by one) reports no error in the modules of :data:`CHECKED`.

The modules not yet in :data:`CHECKED` are still read (imports are followed, so that the
checked ones see their types), but their own errors are not reported
(``--follow-imports=silent``). Once every module is typed, :data:`CHECKED` becomes
``["paretostab"]``, as ``[tool.mypy] files`` says.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The paths mypy checks, relative to the repository's root (folders: every module in them).
CHECKED = [
    "paretostab/spec",
    "paretostab/selectors",
    "paretostab/measures",
    "paretostab/_tuning",
    "paretostab/plot",
    "paretostab/_weight.py",
    "paretostab/_similarity.py",
    "paretostab/maps.py",
    "paretostab/front.py",
    "paretostab/_point_labels.py",
    "paretostab/_optuna_internals.py",
    "paretostab/_faults.py",
    "paretostab/data.py",
    "paretostab/_data_formats.py",
    "paretostab/_importance.py",
    "paretostab/_memory.py",
    "paretostab/_progress.py",
    "paretostab/_errors.py",
    "paretostab/_papers.py",
    "paretostab/_example.py",
]


def test_the_checked_paths_exist():
    missing = [path for path in CHECKED if not (ROOT / path).exists()]
    assert not missing, f"CHECKED names paths that do not exist: {missing}"


def test_mypy_finds_no_error():
    pytest.importorskip("mypy", reason="mypy is not installed (it is in the test extra)")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "pyproject.toml",
         "--follow-imports=silent", *CHECKED],
        cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, (
        f"mypy exited with {result.returncode}:\n{result.stdout}{result.stderr}")
