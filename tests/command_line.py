"""The command line as a user runs it, for the tests: ``python -m paretostab`` in a child
process, with this checkout on its path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

__all__ = ["cli"]

#: The checkout: the child process imports the package (and tests/) from here.
ROOT = Path(__file__).resolve().parents[1]


def cli(*args, cwd, timeout=300):
    """``python -m paretostab ARGS`` in ``cwd`` (the environment, S3's included, passed on)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "paretostab", *map(str, args)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=timeout)
