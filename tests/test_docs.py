"""The documentation site builds with warnings as errors (as CI builds it), executing the
gallery, and holds the API reference and the gallery's pages.

The build runs on a copy of ``docs/`` and ``examples/`` in a temporary folder:
sphinx-gallery writes its generated pages beside the sources, and the tests write nothing
into the repository. About 25 s on the 2-core development machine, most of it the four
examples.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS_PACKAGES = ("sphinx", "numpydoc", "sphinx_gallery", "myst_parser", "pydata_sphinx_theme")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    missing = [name for name in DOCS_PACKAGES if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"the documentation needs {', '.join(missing)}: "
                    "pip install -e '.[docs]' (the test extra has them too)")
    work = tmp_path_factory.mktemp("docs")
    ignore = shutil.ignore_patterns("_build", "gallery", "sg_execution_times.rst",
                                    "__pycache__")
    shutil.copytree(ROOT / "docs", work / "docs", ignore=ignore)
    shutil.copytree(ROOT / "examples", work / "examples", ignore=ignore)
    out = work / "html"
    env = {**os.environ, "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                       os.environ.get("PYTHONPATH")]))}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         str(work / "docs"), str(out)],
        cwd=work, env=env, capture_output=True, text=True, timeout=600)
    seconds = time.perf_counter() - start
    print(f"documentation built in {seconds:.1f} s")
    assert done.returncode == 0, (
        f"sphinx-build -W failed after {seconds:.0f} s:\n{done.stderr[-6000:]}")
    return out


def test_the_site_builds_with_warnings_as_errors(site):
    for page in ("index", "getting-started", "user-guide/index", "spec-reference",
                 "papers", "benchmarks", "design", "api/index"):
        assert (site / f"{page}.html").is_file(), page


def test_the_spec_reference_is_definition_lists_that_wrap(site):
    """Every key and selector a definition-list entry, no table: the page's tables of four
    and five columns were cut off at the page's width (1 400 and 1 920 pixels)."""
    from paretostab.selectors import SELECTORS
    from paretostab.spec._schema import reference_entries

    page = (site / "spec-reference.html").read_text(encoding="utf-8")
    assert "<table" not in page
    assert page.count("<dt") == page.count("<dd") == len(reference_entries()) + len(SELECTORS)


def test_the_api_reference_documents_the_main_jobs(site):
    page = (site / "api" / "main.html").read_text(encoding="utf-8")
    for name in ("paretostab.tune", "paretostab.study_report", "paretostab.choose",
                 "paretostab.compare", "paretostab.TunedStudy", "paretostab.Report",
                 "paretostab.stability"):
        assert f'id="{name}"' in page, name


def test_every_example_is_a_gallery_page_with_its_output(site):
    examples = sorted(p.stem for p in (ROOT / "examples").glob("plot_*.py"))
    assert len(examples) >= 3
    index = (site / "gallery" / "index.html").read_text(encoding="utf-8")
    for name in examples:
        page = site / "gallery" / f"{name}.html"
        assert page.is_file(), name
        assert f"{name}.html" in index, name
    # the executed examples drew their figures (the report's front among them)
    assert (site / "_images" / "sphx_glr_plot_2_tiny_study_001.png").is_file()


def documented_objects(site: Path) -> set[str]:
    """The Python objects the built site documents, read from its ``objects.inv``."""
    from sphinx.util.inventory import InventoryFile

    content = (site / "objects.inv").read_bytes()
    if hasattr(InventoryFile, "loads"):  # Sphinx >= 8.2
        data = InventoryFile.loads(content, uri="").data
    else:
        import io
        import posixpath

        data = InventoryFile.load(io.BytesIO(content), "", posixpath.join)
    return {name for kind, items in data.items() if kind.startswith("py:") for name in items}


def test_every_public_name_is_in_the_api_reference(site):
    """The public surface and its reference are one list: each public module (those of
    tests/test_architecture.py, which checks that every other module is private) is
    documented, and so is every name of its ``__all__``, under the module's own name
    (re-exported from a private module or not)."""
    import importlib

    from tests.test_architecture import PUBLIC_MODULES

    documented = documented_objects(site)
    assert set(PUBLIC_MODULES) <= documented
    public = {f"{module}.{name}" for module in PUBLIC_MODULES
              for name in importlib.import_module(module).__all__}
    missing = sorted(public - documented)
    assert not missing, f"public names missing from docs/api: {missing}"
