"""pyproject's optional extras: without them the suite collects and the tests that need
one are skipped, naming the extra to install, rather than failed (``tests/extras.py``'s
:func:`~tests.extras.need`; issue 38: a plain ``pip install -e .`` plus pytest)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.extras import EXTRAS

ROOT = Path(__file__).resolve().parents[1]

#: One test per kind of place an extra is needed: in a test, in a test's helper, in a
#: session fixture (each imported an extra bare before issue 38).
NEEDING = {
    "test_a_stale_trial_that_had_written_its_note_gets_a_note_that_says_it_failed":
        "optuna_dashboard",
    "test_a_tasks_own_error_is_the_trials_and_dask_errors_the_environments": "distributed",
    "test_an_s3_store_that_cannot_be_used_is_one_error_line": "boto3",
}

#: A pytest plugin: importing one of the modules (or anything in it) raises the error of a
#: package that is not installed (a finder ahead of all others; not ``None`` in
#: ``sys.modules``, which libraries that look there take for the package itself).
HIDE_EXTRAS = """import sys

HIDDEN = set({0!r})


class NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, NotInstalled())
"""


def test_every_module_a_test_needs_is_in_an_extra_of_pyproject():
    tomllib = pytest.importorskip("tomllib", reason="reading TOML needs Python >= 3.11")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "project"]["optional-dependencies"]
    assert set(EXTRAS.values()) <= set(extras)


@pytest.mark.slow
def test_without_the_extras_the_suite_collects_and_their_tests_are_skipped(tmp_path):
    """Each extra's modules made unimportable, as if not installed, by a plugin loaded
    before the tests are collected."""
    (tmp_path / "hide_extras.py").write_text(HIDE_EXTRAS.format(sorted(EXTRAS)), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
         "-p", "no:xdist", "-p", "hide_extras", "tests", "-k", " or ".join(NEEDING)],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": f"{tmp_path}:{ROOT}"},
        capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert re.search(rf"\b{len(NEEDING)} skipped, \d+ deselected in ", done.stdout), done.stdout
    for test, module in NEEDING.items():
        reason = f"{module} is not installed: pip install -e '.[{EXTRAS[module]}]'"
        assert re.search(rf"^SKIPPED \[1\] \S+: {re.escape(reason)}$", done.stdout,
                         re.MULTILINE), (test, done.stdout[-3000:])
