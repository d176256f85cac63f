"""The wheel is the product: the sdist and the wheel built from the source as a user builds
them (``python -m build``), checked (``twine check --strict``), their contents listed, the
wheel installed in a fresh virtual environment and run in an empty folder — the version,
the built-in specs, the default study with three trials, the clear error of a built-in
spec whose data are not shipped.

The wheel's dependencies come from the package index (pip's cache makes later runs
quick); without the build tools or the network the tests are skipped, saying which.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from importlib.metadata import version
from pathlib import Path

import pytest

from paretostab.spec import builtin_spec_names, builtin_spec_path, load_spec
from tests.once import made_once

ROOT = Path(__file__).resolve().parents[1]
VERSION = version("paretostab")
#: What the copy of the source leaves out: version control, CI, caches, build output and
#: the files .gitignore names.
NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".ci", "__pycache__", "*.egg-info", "build", "dist", "*.db", "*-artifacts",
    ".pytest_cache", ".hypothesis", ".ruff_cache", "*.log", ".venv", "results", "*.db-wal",
    "*.db-shm")
#: pip's and build's words for an index that cannot be reached.
OFFLINE = re.compile(r"NewConnectionError|Temporary failure in name resolution|Network is "
                     r"unreachable|No matching distribution found|Could not find a version|"
                     r"ConnectTimeout|ReadTimeout|Max retries exceeded")
TIMEOUT = 1200  # seconds for a build or an install with nothing in pip's cache


def run(*command, cwd: Path | None = None, check: bool = True,
        env: dict | None = None) -> subprocess.CompletedProcess:
    """``command`` run to its end; a failure that is the network's skips the test."""
    result = subprocess.run([str(c) for c in command], cwd=cwd, env=env, text=True,
                            capture_output=True, timeout=TIMEOUT)
    if check and result.returncode != 0:
        output = result.stdout + result.stderr
        if OFFLINE.search(output):
            pytest.skip(f"the package index cannot be reached ({' '.join(map(str, command[:4]))}"
                        f"…): {OFFLINE.search(output).group(0)}")
        pytest.fail(f"{' '.join(map(str, command))} exited with {result.returncode}:\n{output}")
    return result


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """The folder of the sdist and the wheel, built from a copy of the source."""
    pytest.importorskip("build", reason="building the wheel needs the build package "
                                        "(pip install -e '.[test]')")

    def build(folder: Path) -> None:
        source = folder / "source"
        shutil.copytree(ROOT, source, ignore=NOT_SOURCE)  # the build writes into its source
        run(sys.executable, "-m", "build", "--outdir", folder / "dist", source)

    return made_once(tmp_path_factory, "wheel-dist", build) / "dist"


def the(folder: Path, pattern: str) -> Path:
    (found,) = folder.glob(pattern)
    return found


@pytest.fixture(scope="module")
def installed(dist, tmp_path_factory) -> tuple[Path, dict]:
    """A fresh virtual environment with the wheel (and its dependencies) installed: its
    Python and the environment to run it in."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["MPLBACKEND"] = "Agg"

    def python_of(venv: Path) -> Path:
        return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")

    def install(venv: Path) -> None:
        run(sys.executable, "-m", "venv", venv)
        # --no-compile: pip would compile every module of every dependency (scipy's,
        # pandas', matplotlib's…: the install took 39 s of CPU, 11 s without); the few
        # processes run in the environment compile what they import, once (conftest.py)
        run(python_of(venv), "-m", "pip", "install", "--quiet", "--no-compile",
            the(dist, "*.whl"), env=env)

    return python_of(made_once(tmp_path_factory, "wheel-venv", install)), env


@pytest.mark.slow
def test_the_wheel_holds_the_package_its_specs_and_schema_only(dist):
    names = zipfile.ZipFile(the(dist, f"paretostab-{VERSION}-py3-none-any.whl")).namelist()
    assert all(n.startswith(("paretostab/", f"paretostab-{VERSION}.dist-info/")) for n in names)
    assert not [n for n in names if re.search(r"(^|/)(tests|\.ci|benchmarks|studies/.*\.sh)",
                                              n) and not n.startswith("paretostab/studies/")]
    specs = {Path(n).stem for n in names if re.fullmatch(r"paretostab/studies/\w+\.toml", n)}
    assert specs == set(builtin_spec_names()) and "quickstart" in specs
    assert "paretostab/spec/spec.schema.json" in names
    templates = ROOT / "paretostab" / "report" / "templates"
    assert {f"paretostab/report/templates/{t.name}" for t in templates.iterdir()} <= set(names)
    assert "paretostab/report/templates/page.html" in names
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "paretostab").rglob("*.py")}
    assert {"paretostab/__main__.py", "paretostab/_cli.py"} <= modules <= set(names)
    with tarfile.open(the(dist, f"paretostab-{VERSION}.tar.gz")) as sdist:
        members = sdist.getnames()
    # the built-in specs are the repository's top-level studies/, mapped into the package
    assert f"paretostab-{VERSION}/studies/quickstart.toml" in members
    assert not [m for m in members if "/.ci/" in m or m.endswith(".db")]


@pytest.mark.slow
def test_twine_check_passes_strictly(dist):
    pytest.importorskip("twine", reason="checking the distributions needs twine "
                                        "(pip install -e '.[test]')")
    result = run(sys.executable, "-m", "twine", "check", "--strict", *sorted(dist.iterdir()))
    assert result.stdout.count("PASSED") == 2


@pytest.mark.slow
def test_the_installed_wheel_runs_the_quickstart_in_an_empty_folder(installed, tmp_path):
    python, env = installed
    where = run(python, "-c", "import paretostab; print(paretostab.__file__)", cwd=tmp_path,
                env=env).stdout.strip()
    assert Path(where).is_relative_to(python.parents[1])  # the wheel's, not the source's
    assert run(python, "-m", "paretostab", "--version", cwd=tmp_path,
               env=env).stdout == f"paretostab {VERSION}\n"
    assert run(python, "-c", "import paretostab; print(paretostab.__version__)", cwd=tmp_path,
               env=env).stdout == f"{VERSION}\n"
    listing = run(python, "-m", "paretostab", "studies", cwd=tmp_path, env=env).stdout
    for name in builtin_spec_names():
        assert re.search(rf"^{name} +\S", listing, re.MULTILINE), listing
    spec = run(python, "-m", "paretostab", "studies", "quickstart", cwd=tmp_path, env=env).stdout
    (tmp_path / "my.toml").write_text(spec, encoding="utf-8")
    assert load_spec(tmp_path / "my.toml").content_hash() == \
        load_spec(builtin_spec_path()).content_hash()
    (tmp_path / "my.toml").unlink()
    empty = tmp_path / "empty"
    empty.mkdir()
    tune = run(python, "-m", "paretostab", "tune", "--n-trials", "3", cwd=empty, env=env)
    assert "Study 'quickstart' in sqlite:///paretostab.db: 3 counted trials" in tune.stdout
    optuna = pytest.importorskip("optuna")
    study = optuna.load_study(study_name="quickstart",
                              storage=f"sqlite:///{empty / 'paretostab.db'}")
    assert [t.state.name for t in study.trials] == ["COMPLETE"] * 3
    assert all(len(t.values) == 2 for t in study.trials)  # accuracy and stability


@pytest.mark.slow
def test_a_builtin_spec_whose_data_are_not_shipped_says_where_to_get_them(installed, tmp_path):
    python, env = installed
    result = run(python, "-m", "paretostab", "tune", "singh_hybrid_rfe", "--n-trials", "1",
                 cwd=tmp_path, env=env, check=False)
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: The built-in study 'singh_hybrid_rfe' reads singh.csv.gz, "
                           "which is not part of the package")
    assert "paretostab studies singh_hybrid_rfe > singh_hybrid_rfe.toml" in line
    assert not list(tmp_path.iterdir())  # no storage opened


@pytest.mark.slow
def test_the_installed_wheel_renders_its_templates(installed, tmp_path):
    """The templates are found in the installed package: a page and a choice rendered,
    their text escaped."""
    python, env = installed
    code = (
        "from paretostab.report._html import Section, write_report\n"
        "from paretostab._choice import Choice\n"
        "page = write_report('out', title='<t> & \"q\"', sections=[Section('S', text='a<b')],"
        " figure_files=())\n"
        "print(page.read_text(encoding='utf-8'))\n"
        "print(Choice(1, 0.5, {'accuracy': 0.9}, {'k': '<k>'}, ('<f>',), None, {}).to_html())\n")
    out = run(python, "-c", code, cwd=tmp_path, env=env).stdout
    assert "<title>&lt;t&gt; &amp; &quot;q&quot;</title>" in out and "<p>a&lt;b</p>" in out
    assert "k = &lt;k&gt;<br>features (1): &lt;f&gt;</div>" in out
    assert "<style>\n:root { color-scheme: light; }" in out  # style.css, inlined
