"""The README and the documentation's Python examples run as written; the README stays a
front page (the user guide, the measured tables and the tours live in ``docs/``)."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").rglob("*.md"))


def _python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def _run(path: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # the examples may write files
    for block in _python_blocks(path):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            exec(compile(block, str(path), "exec"), {})


@pytest.mark.slow
def test_readme_python_blocks_run(tmp_path, monkeypatch):
    assert _python_blocks(README), "the README has no Python example"
    _run(README, tmp_path, monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if _python_blocks(p)],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_python_blocks_run(page, tmp_path, monkeypatch):
    _run(page, tmp_path, monkeypatch)


def test_docs_hold_the_python_examples_of_the_user_guide():
    """The tours moved from the README into the user guide: each still has its example."""
    for name in ("measures", "selectors", "data"):
        assert _python_blocks(ROOT / "docs" / "user-guide" / f"{name}.md"), name


def test_readme_is_a_front_page():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150, "the README is a front page: at most 150 lines"
    # the two commands that set up a fresh machine come first; .ci/run runs the second
    first = text.index("```bash")
    assert text.index("## Set up a fresh machine") < first
    block = text[first:text.index("```", first + 3)]
    assert "python -m paretostab tune" in block
    assert "python -m pip install -e '.[test]' && python -m pytest -q -n 2" in block
    # its links to the documentation point at files that exist
    for target in re.findall(r"\]\(((?:docs|examples)/[^)#]*)", text):
        assert (ROOT / target).exists(), target


@pytest.mark.slow
def test_the_fast_loop_is_the_ci_command_without_the_slow_tests():
    """Getting started's fast loop is the README's test command (what ``.ci/run`` runs,
    every test) leaving out a marker that pyproject registers, and it deselects the slow
    tests of a module with both kinds."""
    import subprocess
    import sys

    tomllib = pytest.importorskip("tomllib", reason="reading TOML needs Python >= 3.11")
    page = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    contributing = page[page.index("## Contributing"):]
    fast, everything = re.findall(r"^(python -m pytest[^#\n]*?)\s+#", contributing, re.M)
    assert fast == f'{everything} -m "not slow"'
    assert f"&& {everything}  #" in README.read_text(encoding="utf-8")
    assert (ROOT / ".ci" / "run").read_text(encoding="utf-8").rstrip().endswith(
        f"\n{everything}")
    markers = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "tool"]["pytest"]["ini_options"]["markers"]
    assert any(marker.startswith("slow:") for marker in markers)
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider",
         "-m", "not slow", "tests/test_extras.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert collected.returncode == 0, collected.stdout + collected.stderr
    assert "1/2 tests collected (1 deselected)" in collected.stdout, collected.stdout


def test_what_the_readme_commands_write_is_ignored_by_git(tmp_path):
    """After the README's tune, report and compare, ``git status`` shows no new file: the
    study's SQLite file with its write-ahead log, its artifacts, the output folders."""
    import shutil
    import subprocess

    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and a git checkout of the source")
    written = ["paretostab.db", "paretostab.db-wal", "paretostab.db-shm",
               "paretostab-artifacts/a1", "report/index.html", "comparison/index.html"]
    result = subprocess.run(["git", "check-ignore", "--no-index", "--verbose", *written],
                            cwd=ROOT, capture_output=True, text=True)
    ignored = [line.rsplit("\t", 1)[1] for line in result.stdout.splitlines()]
    assert ignored == written, result.stdout + result.stderr
    kept = subprocess.run(["git", "check-ignore", "--no-index", "paretostab/report/_load.py",
                           "studies/quickstart.toml"], cwd=ROOT, capture_output=True, text=True)
    assert kept.stdout == ""  # the package's own report/ and the specs are not ignored


def test_the_pages_name_no_internal_ticket():
    """A user's page cites the papers (``003 §7.1``), not the project's own tickets."""
    for page in [README, *PAGES]:
        found = re.findall(r"\b[Ii]ssues? (?:\d+|#\d+)|\bissue's\b", page.read_text(encoding="utf-8"))
        assert not found, f"{page.relative_to(ROOT)}: {found}"
