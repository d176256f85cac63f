"""Sphinx configuration of the paretostab documentation.

Build (warnings are errors, as CI and ``tests/test_docs.py`` build it)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE)]  # the package, and gallery_figures (the scraper)
os.environ.setdefault("MPLBACKEND", "Agg")

import paretostab  # noqa: E402

project = "paretostab"
author = "the paretostab authors"
copyright = "the paretostab authors"  # noqa: A001
release = paretostab.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "gallery/*.ipynb",
                    "gallery/*.py", "gallery/*.zip", "gallery/*.md5", "gallery/*.json"]

# MyST: the user guide is Markdown; headings get anchors for links like (#many-processes)
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# autodoc + numpydoc, kept quiet: members are documented where they are declared
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
autodoc_typehints = "none"
autodoc_member_order = "bysource"
autosummary_generate = False
numpydoc_show_class_members = False
numpydoc_show_inherited_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()
numpydoc_xref_param_type = False

# the gallery: examples/ executed at small sizes, into docs/gallery/
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "gallery",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "show_memory": False,
    "matplotlib_animations": False,
    "within_subsection_order": "FileNameSortKey",
    "reset_modules": ("matplotlib",),
    # paretostab's figures are not pyplot's: gallery_figures shows them too
    "image_scrapers": ("matplotlib", "gallery_figures.scrape_figures"),
}

html_theme = "pydata_sphinx_theme"
html_title = "paretostab"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 8,
}
html_static_path: list[str] = []
html_show_sourcelink = False


def _skip_member(app, what, name, obj, skip, options):
    """Leave out scikit-learn's generated metadata-routing methods (``set_fit_request``…):
    their docstrings refer to scikit-learn's own glossary."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return skip


def setup(app):
    app.connect("autodoc-skip-member", _skip_member)
