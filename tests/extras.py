"""The optional dependencies the tests use, and the skip of a test whose one is missing.

``pyproject.toml``'s extras install them (``dashboard``, ``postgres``, ``s3``, ``h5ad``,
``parquet``, ``dask``, ``docs``; the ``test`` extra has them all, with the test-only
references and tools). A plain ``pip install -e .`` plus pytest skips the tests that need
one, naming what to install (issue 38); ``tests/test_extras.py`` checks it.
"""

from __future__ import annotations

from types import ModuleType

import pytest

__all__ = ["EXTRAS", "need"]

#: The module a test imports → the extra of ``pyproject.toml`` that installs it.
EXTRAS = {
    "optuna_dashboard": "dashboard",
    "psycopg": "postgres",
    "boto3": "s3",
    "moto": "test",  # the S3-compatible server the s3 tests write to
    "anndata": "h5ad",
    "pyarrow": "parquet",
    "dask": "dask",
    "distributed": "dask",
    "moocore": "test",  # a reference hypervolume
    "build": "test",  # tests/test_wheel.py
    "twine": "test",
    "sphinx": "docs",  # tests/test_docs.py
    "numpydoc": "docs",
}


def need(module: str) -> ModuleType:
    """``module``, imported, or the running test skipped with the extra to install."""
    return pytest.importorskip(
        module, reason=f"{module} is not installed: pip install -e '.[{EXTRAS[module]}]'")
