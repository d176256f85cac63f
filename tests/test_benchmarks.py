"""The scripts of ``benchmarks/``: each still imports what it measures from the package
(a benchmark that no longer runs measures nothing; ``bench_bookkeeping.py`` imported a
function that had moved, unnoticed, until it was run)."""

from __future__ import annotations

import pytest

from tests.benchmark_modules import BENCHMARKS, benchmark_module


@pytest.mark.parametrize("name", sorted(path.stem for path in BENCHMARKS.glob("*.py")))
def test_every_benchmark_script_imports(name):
    with benchmark_module(name) as module:
        assert callable(getattr(module, "main", None)) or module.__doc__, name
