"""The documentation site builds with warnings as errors (as CI builds it), executing the
gallery, and holds the API reference and the gallery's pages.

The build runs on a copy of ``docs/`` and ``examples/`` in a temporary folder:
sphinx-gallery writes its generated pages beside the sources, and the tests write nothing
into the repository. About 25 s on the 2-core development machine, most of it the four
examples.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from tests.extras import need
from tests.once import made_once
from tests.public_modules import PUBLIC_MODULES

ROOT = Path(__file__).resolve().parents[1]
DOCS_PACKAGES = ("sphinx", "numpydoc", "sphinx_gallery", "myst_parser", "pydata_sphinx_theme")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    missing = [name for name in DOCS_PACKAGES if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"the documentation needs {', '.join(missing)}: "
                    "pip install -e '.[docs]' (the test extra has them too)")
    ignore = shutil.ignore_patterns("_build", "gallery", "sg_execution_times.rst",
                                    "__pycache__")
    env = {**os.environ, "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                       os.environ.get("PYTHONPATH")]))}

    def build(work: Path) -> None:
        shutil.copytree(ROOT / "docs", work / "docs", ignore=ignore)
        shutil.copytree(ROOT / "examples", work / "examples", ignore=ignore)
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
             str(work / "docs"), str(work / "html")],
            cwd=work, env=env, capture_output=True, text=True, timeout=600)
        seconds = time.perf_counter() - start
        print(f"documentation built in {seconds:.1f} s")
        assert done.returncode == 0, (
            f"sphinx-build -W failed after {seconds:.0f} s:\n{done.stderr[-6000:]}")

    return made_once(tmp_path_factory, "docs-site", build) / "html"


@pytest.mark.slow
def test_the_site_builds_with_warnings_as_errors(site):
    for page in ("index", "getting-started", "user-guide/index", "spec-reference",
                 "papers", "benchmarks", "design", "api/index"):
        assert (site / f"{page}.html").is_file(), page


@pytest.mark.slow
def test_the_spec_reference_is_definition_lists_that_wrap(site):
    """Every key and selector a definition-list entry, no table: the page's tables of four
    and five columns were cut off at the page's width (1 400 and 1 920 pixels)."""
    from paretostab.selectors import SELECTORS
    from paretostab.spec._schema import reference_entries

    page = (site / "spec-reference.html").read_text(encoding="utf-8")
    assert "<table" not in page
    assert page.count("<dt") == page.count("<dd") == len(reference_entries()) + len(SELECTORS)


@pytest.mark.slow
def test_the_api_reference_documents_the_main_jobs(site):
    page = (site / "api" / "main.html").read_text(encoding="utf-8")
    for name in ("paretostab.tune", "paretostab.study_report", "paretostab.choose",
                 "paretostab.compare", "paretostab.TunedStudy", "paretostab.Report",
                 "paretostab.stability"):
        assert f'id="{name}"' in page, name


@pytest.mark.slow
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


@pytest.mark.slow
def test_every_public_name_is_in_the_api_reference(site):
    """The public surface and its reference are one list: each public module (those of
    tests/public_modules.py; tests/test_architecture.py checks every other one is private) is
    documented, and so is every name of its ``__all__``, under the module's own name
    (re-exported from a private module or not)."""
    import importlib

    documented = documented_objects(site)
    assert set(PUBLIC_MODULES) <= documented
    public = {f"{module}.{name}" for module in PUBLIC_MODULES
              for name in importlib.import_module(module).__all__}
    missing = sorted(public - documented)
    assert not missing, f"public names missing from docs/api: {missing}"


def public_callables():
    """(qualified name, callable, docstring) of every public function and class of the
    public modules' ``__all__`` (each object once, by the first module exporting it), and
    of every public method of such a class defined in the package — inherited from a
    private base class too (a selector's ``fit`` is ``SelectorBase``'s)."""
    import importlib

    seen: set[int] = set()
    for module in PUBLIC_MODULES:
        for name in importlib.import_module(module).__all__:
            obj = getattr(importlib.import_module(module), name)
            if id(obj) in seen or not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            seen.add(id(obj))
            yield f"{module}.{name}", obj, inspect.getdoc(obj)
            if not inspect.isclass(obj) or not obj.__module__.startswith("paretostab"):
                continue
            for attr in dir(obj):
                owner = next((c for c in obj.__mro__ if attr in vars(c)), None)
                if attr.startswith("_") or owner is None or not owner.__module__.startswith(
                        "paretostab"):
                    continue
                value = vars(owner)[attr]
                function = getattr(value, "__func__", value)  # classmethod, staticmethod
                if inspect.isfunction(function):
                    yield f"{module}.{name}.{attr}", getattr(obj, attr), inspect.getdoc(function)


def described_parameters(doc: str | None) -> set[str]:
    """The names a numpy-style docstring describes in its "Parameters", "Other
    Parameters" and "Attributes" sections ("a, b : float" describes both; ``*arrays``
    and ``**options`` by their names)."""
    from numpydoc.docscrape import NumpyDocString

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpydoc's own complaints are not this test's
        parsed = NumpyDocString(doc or "")
    return {part.strip().lstrip("*") for section in ("Parameters", "Other Parameters",
                                                      "Attributes")
            for entry in parsed[section] for part in entry.name.split(",")}


def test_every_parameter_of_a_public_callable_is_described():
    """Every parameter of every public function, method and class (its constructor, or
    a dataclass's fields) is described in its docstring's "Parameters" (or, for a class,
    "Attributes") section, where the API reference shows it — not only named in the
    prose. Private parameters (``_token``), ``self``/``cls`` and ``*args`` /
    ``**kwargs`` are not asked for."""
    need("numpydoc")
    offenders = []
    for name, obj, doc in public_callables():
        try:
            signature = inspect.signature(obj)
        except (TypeError, ValueError):  # a builtin without a signature
            continue
        wanted = [p.name for p in signature.parameters.values()
                  if p.name not in ("self", "cls") and not p.name.startswith("_")
                  and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        missing = [p for p in wanted if p not in described_parameters(doc)]
        if missing:
            offenders.append(f"{name}: {', '.join(missing)}")
    assert not offenders, ("parameters their docstring does not describe in a Parameters "
                           "or Attributes section:\n" + "\n".join(offenders))


def test_the_parameter_check_reads_numpy_sections():
    doc = """Summary.

    Parameters
    ----------
    a, b : float
        Two numbers.
    *arrays : array-like
        Points.

    Attributes
    ----------
    c : int
    """
    assert described_parameters(inspect.cleandoc(doc)) == {"a", "b", "arrays", "c"}
    assert described_parameters("Uses ``a`` and ``b`` in prose only.") == set()
